# The real firmware on the simulated board, driven by primitive commands (a MicroPython script).
"""Run under micropython: ``micropython -m boxrun [options] < commands``.

Builds the firmware's App on the fake rp2 board (machine, neopixel, simbus) and obeys one
command per line. Kept tiny, because it shares the 64 KB test heap with the firmware: the
host (shutbox_host.box.boxsim) turns readable scripts (open 9, bounce 3 15, hold, ...) into these
primitives and decodes the output.

Options: --players N, --seed N (dice stream; 0 with --realtime = os.urandom), --realtime
(time.ticks_ms and stdin polled; for ``shutbox play``), --poll MS, --levels MASK (tiles open
at power-up), --roll-held, --peak (sample the live heap after every LED write), --quiet (no
F and T lines), --rules D,M,V,S,T (one-die, one-die-mode, moves, scoring, start as ints),
--shut-wins, --hints N, --computer N (Settings attributes, set at every boot).
Reliability (shutbox.guard, shutbox.resume): --flash DIR (the box's flash: the game in
progress in DIR/data, errors in DIR/error.log), --wdt MS (start the watchdog at every boot),
--guard (run under shutbox.guard.Guard, as app.main does; implied by --flash and --wdt).
Power-up (shutbox.powerup): --powerup (with --flash: boot as app.main does, with the button
combinations held at power-up and the settings and records in DIR/data; the options that set
Settings attributes are then ignored).

Commands:  p GPIO LEVEL   drive an input        w MS     let MS ms pass (virtual clock)
           d F..          next dice faces       s        print the game state
           h              print the live heap   k N      N idle polls under heap_lock
           e TEXT         echo                  q        quit
           r              power cut, power on   x KIND N fault on the pin read after N more
           m              print the power-up screen (M kind page values-hex, or M -)
           z              print the box state   b NAME=INT ..  a new box: Settings attributes
                                                (players, one_die, ...; seed=N: the dice),
                                                the flash wiped, the clock back to its start
Output:    F <ms> <hex>   LED bytes as written  T <ms> <Hz> <duty>  the buzzer changed
           the firmware's JSON log lines, and the answers (S ..., H ..., LOCK ..., PEAK ..., BASE).
           RESET <cause> <ms>: the board reset (3: the watchdog) and booted again;
           HUNG <ms>: a hang no watchdog ended (the run stops).
The scripted clock starts 3 s before the 2**30 ms tick wrap, so every run crosses it. A
reset or power cut rebuilds the board and the app as a reboot does; the firmware's modules
stay loaded (they keep no state of their own) and the flash folder is kept.
"""

import gc
import sys
import time

import machine  # noqa: F401 - the simulated board (C code on the Pico): part of the base
import neopixel  # noqa: F401
import simbus

import micropython


def load_firmware():
    """Load the firmware module by module, collecting the loader's garbage in between: the
    heap stays unfragmented enough for the engine's and the game's larger blocks."""
    for m in ("ticks", "pins", "engine", "frame", "debounce", "dice",
              "game", "board", "app"):
        gc.collect()
        __import__("shutbox." + m)
    gc.collect()


POLL_MS = 2  # shutbox.app.POLL_MS

opts = {"players": 2, "seed": 0, "poll": POLL_MS, "levels": -1, "wdt": 0, "hints": -1,
        "computer": -1,
        "flash": "", "rules": ""}
flags = []
_i = 1
while _i < len(sys.argv):
    _a = sys.argv[_i][2:]
    if _a in opts:
        _i += 1
        opts[_a] = sys.argv[_i] if _a in ("flash", "rules") else int(sys.argv[_i])
    else:
        flags.append(_a)
    _i += 1
realtime = "realtime" in flags
peak_mode = "peak" in flags
quiet = "quiet" in flags
poll = opts["poll"]
_RULES = ("one_die", "one_die_mode", "moves", "scoring", "start")
box = {}  # Settings attributes set on every boot (the b command replaces them)
if opts["rules"]:
    _v = opts["rules"].split(",")
    for _i in range(len(_v)):
        box[_RULES[_i]] = int(_v[_i])
if "shut-wins" in flags:
    box["shut_wins"] = 1
if opts["hints"] >= 0:
    box["hints"] = opts["hints"]
if opts["computer"] >= 0:
    box["computer"] = opts["computer"]
guarded = bool("guard" in flags or opts["flash"] or opts["wdt"])
now = [0]
queue = []  # scripted dice faces
seed = [opts["seed"] or 1]
real = None
if realtime and not opts["seed"]:
    import os

    real = os.urandom


def urandom(n):
    """Random bytes: queued faces first (byte f-1 rolls face f), then os.urandom (realtime
    without a seed) or a seeded xorshift."""
    if real and not queue:
        return real(n)
    out = bytearray(n)
    for i in range(n):
        if queue:
            out[i] = queue.pop(0) - 1
        elif real:
            out[i] = real(1)[0]
        else:
            x = seed[0]
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            seed[0] = x
            out[i] = x & 0xFF
    return bytes(out)


def _advance(ms):
    now[0] = ticks_add(now[0], ms)


def _clock():
    return now[0]


app = None  # the running App (None while the guard shows a fault)
pre = [None]  # --powerup: the power-up screen (shutbox.menu) before the game
guard = None
seen = [-1, 0, 0, 0]  # LED writes, tone, peak heap, the tone's duty
saved = [None]  # --powerup: the boot list (shutbox.powerup.read) app.start builds from


def read_saved():
    """As main.py after the power-up screen: the saved settings and the records' key."""
    from shutbox import powerup
    from shutbox.store import Store

    saved[0] = powerup.read(Board(), Store(opts["flash"] + "/data"))
    powerup.unload("powerup")


def make(t, safe):
    """Build the box's App as app.main does (a store on the flash folder when there is one)."""
    if "powerup" in flags:  # app.main's own start, from the settings read at power-up
        from shutbox.app import start
        from shutbox.store import Store

        return start(Board(), urandom, t, Store(opts["flash"] + "/data"), saved[0], safe)
    from shutbox.app import App
    settings = Settings(players=opts["players"])
    rules = None
    for k in box:
        setattr(settings, k, box[k])
        if k in _RULES and rules is None:
            from shutbox.engine import Rules

            rules = Rules(pins.TILES)
        if k in _RULES:
            setattr(rules, k, box[k])
    store = None
    if opts["flash"]:
        from shutbox.store import Store

        store = Store(opts["flash"] + "/data")
    return App(Board(), urandom, t, settings=settings, rules=rules, store=store,
               resume=not safe)


def boot(cause):
    """Power the box on (again): a new board and app, the watchdog stopped by the reset."""
    global app, guard
    app = guard = None
    gc.collect()
    simbus.reset_cause = cause
    simbus.wdt[0] = 0
    if "powerup" in flags:  # as main.py: the screen of a combination held at power-up first
        from shutbox import powerup
        from shutbox.store import Store

        pre[0] = powerup.prelude(Board(), Store(opts["flash"] + "/data"), now[0])
        if pre[0] is not None:
            return
        read_saved()
    game_on()


def game_on():
    """Start the game: the firmware's modules, then the app (under the guard, as app.main)."""
    global app, guard
    load_firmware()
    if guarded:
        from shutbox.guard import Guard

        board = Board()
        wdt = board.watchdog(opts["wdt"]) if opts["wdt"] else None
        log = opts["flash"] + "/error.log" if opts["flash"] else "/dev/null"
        guard = Guard(board, make, now[0], wdt=wdt, log_path=log,
                      wdt_reset=board.watchdog_reset())
        app = guard.app
    else:
        app = make(now[0], False)


def wipe():
    """Empty the flash folder (a new box)."""
    import os

    if not opts["flash"]:  # no flash folder: nothing to wipe (never the working directory)
        return
    for d in (opts["flash"] + "/data", opts["flash"]):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            try:
                os.remove(d + "/" + n)
            except OSError:
                pass

def report():
    """Print what changed on the LEDs and the buzzer since the last poll."""
    if quiet:
        return
    ms = ticks_diff(now[0], t0)
    if simbus.writes != seen[0]:
        seen[0] = simbus.writes
        print("F %d %s" % (ms, simbus.leds.hex()))
        if peak_mode:
            gc.collect()
            seen[2] = max(seen[2], gc.mem_alloc())
    tone = simbus.tone()
    duty = simbus.duty() if tone else 0
    if tone != seen[1] or duty != seen[3]:
        seen[1] = tone
        seen[3] = duty
        print("T %d %d %d" % (ms, tone, duty))


def poll_once():
    """One poll of the box; a reset (the watchdog) reboots it."""
    global app
    try:
        if pre[0] is not None:
            if pre[0].step(now[0]):  # the screen is done: unload it, then the game
                pre[0] = None
                from shutbox import powerup

                powerup.unload("menu", "setfile", "records", "challenge")
                read_saved()
                game_on()
        elif guard is not None:
            guard.step(now[0])
            app = guard.app
        else:
            app.step(now[0])
        simbus.check_wdt(now[0])
    except simbus.Hung as e:
        print("HUNG %d" % ticks_diff(now[0], t0))
        raise SystemExit(0) from e
    except simbus.Reset as e:
        print("RESET %d %d" % (e.args[0], ticks_diff(now[0], t0)))
        boot(e.args[0])


def step():
    poll_once()
    report()


def wait(ms):
    end = ticks_add(now[0], ms)
    while ticks_diff(end, now[0]) > 0:
        dt = ticks_diff(end, now[0])
        now[0] = ticks_add(now[0], dt if dt < poll else poll)
        step()


def lockcheck(n):
    """Run n polls with the heap locked: any allocation raises MemoryError and stops them."""
    gc.collect()
    done = 0
    micropython.heap_lock()
    try:
        while done < n:
            now[0] = ticks_add(now[0], poll)
            poll_once()
            done += 1
    except MemoryError:
        pass
    micropython.heap_unlock()
    report()
    print("LOCK %d %d" % (done, n))


def command(line):
    """Obey one command line; return False to stop."""
    w = line.split()
    if not w:
        return True
    c = w[0]
    if c == "p":
        simbus.set_level(int(w[1]), int(w[2]))
    elif c == "w":
        wait(int(w[1]))
    elif c == "d":
        queue.extend(int(f) for f in w[1:])
        if app is not None:
            app.dice.flush()
    elif c == "s":
        if app is None:
            print("S -1 0 0 0 0 0 0 0")
            return True
        game = app.game
        print("S %d %d %d %d %d %d %d %d %s" % (
            game.state, game.player + 1, game.open_, game.levels, game.a, game.b, game.err,
            game.err_mask, " ".join(str(s) for s in game.scores[:game.players])))
    elif c == "z":  # for the fuzzer: the model, the debounced levels, the hold after a resume
        if app is None:
            print("Z -1")
            return True
        game = app.game
        rs = app.resume
        print("Z %d %d %d %d %d %d %d %d %d %d %d %d" % (
            game.state, game.player, game.players, game.open_, app.deb.levels, game.a, game.b,
            game.err, 1 if game.locked else 0, rs.expect if rs else -1, game.played,
            guard.faults if guard else 0))
    elif c == "r":
        print("RESET 0 %d" % ticks_diff(now[0], t0))
        boot(1)
    elif c == "x":
        simbus.inject(int(w[1]), int(w[2]) if len(w) > 2 else 0)
    elif c == "b":  # a new box: the clock back 3 s before the wrap, the dice reseeded
        box.clear()
        del queue[:]
        seed[0] = 1
        for kv in w[1:]:
            k, v = kv.split("=")
            if k == "players":
                opts["players"] = int(v)
            elif k == "seed":
                seed[0] = int(v) or 1
            else:
                box[k] = int(v)
        simbus.inject(0)
        now[0] = t0
        wipe()
        boot(1)
    elif c == "h":
        gc.collect()
        print("H %d %d" % (gc.mem_alloc(), gc.mem_free()))
    elif c == "k":
        lockcheck(int(w[1]))
    elif c == "m":  # the power-up screen in front of the game (--powerup)
        sc = pre[0]
        if sc is None:
            print("M -")
        else:
            print("M %s %d %s" % (type(sc).__name__, getattr(sc, "page", -1),
                                   bytes(getattr(sc, "vals", b"")).hex()))
    elif c == "e":
        print(line.strip()[2:])
    elif c == "a":  # fast-forward computer games (sim/boxauto.py, loaded only for this)
        from boxauto import auto

        auto(app, now, int(w[1]), int(w[2]))
    elif c == "q":
        return False
    else:
        print("? " + c)
    return True


gc.collect()
BASE = gc.mem_alloc()  # the simulated board and this harness, before any firmware (--peak)

# --powerup: the game's modules load only after the power-up screen, as on the box (main.py)
if "--powerup" not in sys.argv:
    load_firmware()

from shutbox import pins  # noqa: E402
from shutbox.board import Board  # noqa: E402
from shutbox.settings import Settings  # noqa: E402
from shutbox.ticks import ticks_add, ticks_diff  # noqa: E402

now[0] = time.ticks_ms() if realtime else ticks_add(0, -3000)
t0 = now[0]
if not realtime:
    simbus.clock = _clock
    simbus.advance = _advance
simbus.buzzer_pin = pins.BUZZER_PIN
_shut = pins.SWITCH_ACTIVE
for _k in range(pins.TILES):
    simbus.set_level(pins.TILE_PINS[_k], _shut ^ (opts["levels"] >> _k & 1))
simbus.set_level(pins.ROLL_PIN, _shut if "roll-held" in flags else _shut ^ 1)


if opts["flash"]:
    import os

    try:
        os.mkdir(opts["flash"])
    except OSError:
        pass  # there already
gc.collect()
boot(1)  # machine.PWRON_RESET

step()
if realtime:
    import select

    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    going = True
    while going:
        now[0] = time.ticks_ms()
        step()
        wait_ms = poll
        while going and poller.poll(wait_ms):  # every line already waiting, then poll again
            line = sys.stdin.readline()
            going = bool(line) and command(line)
            wait_ms = 0
else:
    while True:
        line = sys.stdin.readline()
        if not line or not command(line):
            break
if peak_mode:
    print("PEAK %d" % seen[2])
    print("BASE %d" % BASE)

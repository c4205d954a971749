# The real firmware on the simulated board, driven by primitive commands (a MicroPython script).
"""Run under micropython: ``micropython -m boxrun [options] < commands``.

Builds the firmware's App on the fake rp2 board (machine, neopixel, simbus) and obeys one
command per line. Kept tiny, because it shares the 64 KB test heap with the firmware: the
host (shutbox_host.box.boxsim) turns readable scripts (open 9, bounce 3 15, hold, ...) into these
primitives and decodes the output.

Options: --players N, --seed N (dice stream; 0 with --realtime = os.urandom), --realtime
(the PC's clock followed, every ms of it lived, and stdin polled; for ``shutbox play``),
--poll MS, --levels MASK (tiles open at power-up), --roll-held, --peak (sample the live
heap after every LED write), --quiet (no F and T lines), --rules D,M,V,S,T (one-die,
one-die-mode, moves, scoring, start as ints), --shut-wins, --hints N, --computer N (Settings
attributes, set at every boot).
Reliability (shutbox.guard, shutbox.resume): --flash DIR (the box's flash: the game in
progress in DIR/data, errors in DIR/error.log), --wdt MS (start the watchdog at every boot),
--guard (run under shutbox.guard.Guard, as app.main does; implied by --flash and --wdt).
Power-up (shutbox.powerup): --powerup (with --flash: boot as main.py does, with the button
combinations held at power-up, the self-test among them, and the settings and records in
DIR/data; the options that set Settings attributes are then ignored).
As the Pico boots: --main FW (with --flash DIR laid out by boxsim.pico_flash): DIR becomes
the filesystem's root, the firmware folder FW is mounted where its launcher (DIR/main.py)
finds it, and the launcher runs firmware/main.py (the power-up, then app.main) with a
virtual ``time`` whose sleep_ms obeys the commands; the commands before the first w set
the pins at power-up; b, k, a and m are not available; DARK <ms> <error>: main.py ended or
failed outside the guard (the box is dark until the watchdog, if started, resets it);
? out of heap <ms>: boxrun itself (a command, its output) found no heap in the firmware's
sleep: the run is the harness's failure.
The board is an RP2040 for the firmware (simbus.rp2040): its sys says so, and
machine.mem32 reads the watchdog's REASON and SCRATCH registers.

Commands:  p GPIO LEVEL   drive an input        w MS     let MS ms pass (virtual clock)
           d F..          next dice faces       s        print the game state
           h              print the live heap   k N      N idle polls under heap_lock
           i              print the qstr pool and the heap's block map (micropython.mem_info)
           e TEXT         echo                  q        quit
           n              print the loop's passes and the app's steps so far (N passes steps)
           r              power cut, power on   x KIND N fault on the pin read after N more
           o              power off (dark and still until r)
           R              machine.reset() (as mpremote reset, a flash): the board restarts
           m              print the power-up screen (M kind page values-hex, or M -)
           z              print the box state   b NAME=INT ..  a new box: Settings attributes
                                                (players, one_die, ...; seed=N: the dice),
                                                the flash wiped, the clock back to its start
Output:    F <ms> <hex>   LED bytes as written  T <ms> <Hz> <duty>  the buzzer changed
           the firmware's JSON log lines, and the answers (S ..., H ..., LOCK ..., PEAK ..., BASE).
           RESET <cause> <ms> <reason>: the board reset and booted again: cause 3 (a
           watchdog reset) with reason 1 (it expired) or 2 (machine.reset), 0 0 (a power cut);
           HUNG <ms>: a hang no watchdog ended (the run stops).
The scripted clock starts 3 s before the 2**30 ms tick wrap, so every run crosses it. The
script's clock (its w's, from which E's µs count) and the board's agree: the core's busy
time (pin reads, LED writes) moves the board's, and a wait it ran past ends the next one that
much sooner. A
reset or power cut rebuilds the board and the app as a reboot does; the firmware's modules
stay loaded (they keep no state of their own) and the flash folder is kept.
"""

import gc
import sys

# Modules come from MICROPYPATH only, never from the folder boxrun was started in (`-m` puts
# it first): that folder may hold anything, e.g. a checkout named shutbox.
if "" in sys.path:
    sys.path.remove("")

import machine  # noqa: F401 - the simulated board (C code on the Pico): part of the base
import neopixel  # noqa: F401
import simbus
import simtime

import micropython

simbus.rp2040()  # the firmware's sys names the board as a Pico's does
# A firmware already loaded here (the virtual Pico's, whose main loop a Ctrl-C stopped) took
# the port's own time (its ticks wrap at 2**62): it loads again, on simtime. (sim/norflash.py
# mounts the flash with the firmware's shutbox.ahead on simtime: kept, with its idle step.)
if sys.modules.get("time") is not simtime:
    sys.modules["time"] = simtime  # rp2's ticks (their 2**30 wrap), on the board's clock
    for _m in [m for m in sys.modules if m == "shutbox" or m.startswith("shutbox.")]:
        del sys.modules[_m]

ticks_add = simtime.ticks_add
ticks_diff = simtime.ticks_diff


def load_firmware():
    """Load the firmware module by module, collecting the loader's garbage in between: the
    heap stays unfragmented enough for the engine's and the game's larger blocks."""
    for m in ("ticks", "pins", "engine", "frame", "debounce", "dice",
              "game", "board", "app"):
        gc.collect()
        __import__("shutbox." + m)
    gc.collect()


POLL_MS = 2  # shutbox.guard._POLL_MS: the longest sleep of the Pico's loop

opts = {"players": 2, "seed": 0, "poll": POLL_MS, "levels": -1, "wdt": 0, "hints": -1,
        "computer": -1,
        "flash": "", "rules": "", "main": ""}
flags = []
_i = 1
while _i < len(sys.argv):
    _a = sys.argv[_i][2:]
    if _a in opts:
        _i += 1
        opts[_a] = sys.argv[_i] if _a in ("flash", "rules", "main") else int(sys.argv[_i])
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
now = [0]  # the board's clock (ms; simbus.us: the µs past it its busy core spent)
until = [0]  # the script's clock: where its waits end (--main: its commands are read again)
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
pre = [None]  # --powerup: the power-up screen (shutbox.menu, or the self-test) before the game
on = [1]  # the power switch (o: off; r: on again)
guard = None
seen = [-1, 0, 0, 0]  # LED writes, tone, peak heap, the tone's duty
saved = [None]  # --powerup: the boot list (shutbox.powerup.read) app.start builds from


def read_saved():
    """As main.py after the power-up screen: the saved settings and the records' key."""
    from shutbox import powerup
    from shutbox.store import Store

    saved[0] = powerup.read(loop[6], Store(opts["flash"] + "/data"))
    powerup.unload("powerup")


def make(t, safe):
    """Build the box's App as app.main does (a store on the flash folder when there is one)."""
    if "powerup" in flags:  # app.main's own start, from the settings read at power-up
        from shutbox.app import start
        from shutbox.store import Store

        return start(loop[6], urandom, t, Store(opts["flash"] + "/data"), saved[0], safe)
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
    return App(loop[6], urandom, t, settings=settings, rules=rules, store=store,
               resume=not safe)


def boot(power_cut):
    """Power the box on (again): a new board and app, the watchdog stopped by the reset.

    After a power cut the watchdog's REASON and SCRATCH registers read 0; after a reset by
    the watchdog (simbus.Reset: it expired, or machine.reset) they are as it left them.
    """
    global app, guard
    app = guard = None
    loop[6] = Board()  # the boot's one Board (app.main's: the guard's and every app's)
    on[0] = 1
    gc.collect()
    if power_cut:
        simbus.power_on()
    simbus.wdt[0] = 0
    simbus.peripherals_reset()
    if "powerup" in flags:  # as main.py: the screen of a combination held at power-up first
        from shutbox import powerup
        from shutbox.store import Store

        b = loop[6]
        if powerup.combination(b.switches(), b.roll(), b.tiles) == 2:  # _SELFTEST
            from shutbox.selftest import SelfTest

            pre[0] = SelfTest(b)  # until the power goes off, as powerup.screens runs it
            return
        pre[0] = powerup.prelude(b, Store(opts["flash"] + "/data"), now[0])
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

        board = loop[6]
        wdt = board.watchdog(opts["wdt"]) if opts["wdt"] else None
        log = opts["flash"] + "/error.log" if opts["flash"] else "/dev/null"
        guard = Guard(board, make, now[0], wdt=wdt, log_path=log,
                      wdt_reset=board.watchdog_reset())
        app = guard.app
    else:
        app = make(now[0], False)
        board = app.board
    loop[0] = -1  # the loop starts again (Guard.forever): its first pass steps, at once
    loop[2] = board.reader()
    loop[3] = 0


def power_off():
    """The power switch off: nothing runs, the LEDs and the buzzer go dark."""
    global app, guard
    app = guard = None
    pre[0] = None
    on[0] = 0
    simbus.peripherals_reset()
    leds = simbus.leds
    for i in range(len(leds)):
        leds[i] = 0
    simbus.writes += 1
    gc.collect()


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


# Guard.forever's state: switches last seen, a step due, the reader, the ms to the next pass;
# then the passes and the steps of the app so far (the n command); the boot's Board
loop = [-1, 0, None, 0, 0, 0, None]


def poll_once(force=False):
    """One pass of the Pico's loop (shutbox.guard: Guard.forever): the app steps when a
    switch changed (one read of GPIO_IN, Board.reader: the reading the step takes) or when
    it said something is due
    (App.wait), else the watchdog is fed; a reset (the watchdog) reboots it. Returns the ms
    to the next pass (the loop's sleep). The power-up screens step every pass."""
    global app
    if not on[0]:
        return poll
    try:
        if pre[0] is not None:
            if pre[0].step(now[0]) is True:  # done (the self-test's step returns its phase)
                pre[0] = None
                from shutbox import powerup

                powerup.unload("menu", "setfile", "records", "challenge")
                read_saved()
                game_on()
            simbus.check_wdt(now[0])
            return poll
        try:
            lv = loop[2]()
        except (simbus.Hung, simbus.Reset):
            raise
        except Exception as e:  # as Guard.forever: a failing reading is a fault
            if guard is None:
                raise
            if guard.app is not None:  # in fault mode: its own reading retries
                guard.fault(e, now[0])
            app = None
            lv = -1
        loop[4] += 1
        if force or lv != loop[0] or ticks_diff(now[0], loop[1]) >= 0:
            loop[0] = lv
            loop[5] += 1
            if guard is not None:
                guard.step(now[0], lv)
                app = guard.app
                dt = guard.wait(now[0])
            else:
                app.step(now[0], lv)
                dt = app.wait(now[0])
            loop[1] = ticks_add(now[0], dt)
        elif guard is not None and guard.wdt is not None:
            guard.wdt.feed()
        simbus.check_wdt(now[0])
    except simbus.Hung as e:
        print("HUNG %d" % ticks_diff(now[0], t0))
        raise SystemExit(0) from e
    except simbus.Reset as e:
        print("RESET %d %d %d" % (e.args[0], ticks_diff(now[0], t0), simbus.reason))
        boot(False)
        return 0
    dt = ticks_diff(loop[1], now[0])
    return 1 if dt < 1 else dt if dt < poll else poll  # as Guard.forever: 1 ms at least


def step():
    """A pass of the loop, then what changed on the LEDs and the buzzer; returns its sleep."""
    dt = poll_once()
    report()
    return dt


def wait(ms):
    """Let *ms* ms of the script's clock pass, the loop sleeping and passing as on the Pico.

    The board's clock ends where the script's does, or past it by the busy time of the pass
    that ended the wait (its reads, its LED write): that overshoot is carried into the next
    wait, which ends *ms* ms after the script's clock, not after the board's."""
    end = until[0] = ticks_add(until[0], ms)
    while True:
        left = ticks_diff(end, now[0])
        if left <= 0:
            return
        dt = loop[3]
        if dt == 0:  # due at once: a pass now
            dt = step()
            loop[3] = dt if dt > 0 else -1
            continue
        if dt < 0:  # due at once again, at the same time: the next pass one ms later
            dt = loop[3] = 1
        dt = dt if dt < left else left
        now[0] = ticks_add(now[0], dt)
        idle = getattr(sys.modules.get("shutbox"), "idle", None)  # as Guard.forever's sleep
        if idle:
            idle[0](dt)
        loop[3] -= dt
        if loop[3] <= 0:
            loop[3] = step()


def lockcheck(n):
    """Run n polls with the heap locked: any allocation raises MemoryError and stops them
    (each one a step of the app, whatever the loop would skip)."""
    gc.collect()
    done = 0
    micropython.heap_lock()
    try:
        while done < n:
            now[0] = ticks_add(now[0], poll)
            poll_once(True)
            done += 1
    except MemoryError:
        pass
    micropython.heap_unlock()
    until[0] = now[0]  # the polls' time is the script's too
    report()
    print("LOCK %d %d" % (done, n))


def command(line):
    """Obey one command line; return False to stop."""
    w = line.split()
    if not w:
        return True
    c = w[0]
    if c == "p":  # the edges scheduled up to now came first (none waits for a read)
        simbus.busy_us(0)
        simbus.set_level(int(w[1]), int(w[2]))
    elif c == "E":  # a contact's edges: E gpio us level us level ... (µs from now, in order)
        q = simbus.schedule  # when each takes effect: [ms tick, µs within it, gpio, level]
        g = int(w[1])
        for i in range(2, len(w), 2):  # from the script's clock: the board may be past it
            u = int(w[i])
            q.append([ticks_add(until[0], u // 1000), u % 1000, g, int(w[i + 1])])
        q.sort(key=lambda e: (ticks_diff(e[0], now[0]), e[1]))
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
    elif c == "z":  # for the fuzzer (boxauto.model: loaded for it alone, as its names cost
        # heap in every run that loads them)
        from boxauto import model

        model(app, guard)
    elif c == "r":
        print("RESET 0 %d 0" % ticks_diff(now[0], t0))
        boot(True)
    elif c == "o":
        power_off()
    elif c == "R":  # machine.reset() between two polls, as mpremote reset or a flash does
        try:
            machine.reset()
        except simbus.Reset as e:
            print("RESET %d %d %d" % (e.args[0], ticks_diff(now[0], t0), simbus.reason))
            boot(False)
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
        now[0] = until[0] = t0
        simbus.us = 0  # nothing left of the box before: its µs past the ms, its edges due
        del simbus.schedule[:]
        wipe()
        boot(True)
    elif c == "h":
        gc.collect()
        print("H %d %d" % (gc.mem_alloc(), gc.mem_free()))
    elif c == "i":  # the heap's block map, for finding what fragments it
        gc.collect()
        micropython.qstr_info()
        micropython.mem_info(1)
    elif c == "n":
        print("N %d %d" % (loop[4], loop[5]))
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
        until[0] = now[0]  # the fast-forward's time is the script's too
    elif c == "q":
        return False
    else:
        print("? " + c)
    return True


# ----- --main FW: boot as the Pico does, through the launcher and firmware/main.py -----

class PowerCut(SystemExit):
    """Command r in --main: the power goes, out of whatever the firmware was doing."""


class Quit(SystemExit):
    """Command q in --main; Quit(1): the harness itself (its commands, its output, in the
    firmware's sleep) found no heap. No harness shares the Pico's heap: that run fails as the
    harness's (``? out of heap <ms>``), not as a fault or a dark box of the firmware's."""



def _vsleep(ms):
    """The firmware's time.sleep_ms in --main (simtime, simbus.sleep): the virtual clock
    runs only here and in what keeps the core busy (the LED chain's bitstream), and the
    script's commands are obeyed here when their time comes (the firmware computes in no
    time otherwise, as a poll loop that never misses its pace)."""
    try:
        report()
    except MemoryError:
        raise Quit(1) from None
    left = ms
    while True:
        dt = ticks_diff(until[0], now[0])
        if dt <= 0:
            try:
                obey()
            except MemoryError:
                raise Quit(1) from None
            continue
        if left <= 0:
            return
        dt = dt if dt < left else left
        now[0] = ticks_add(now[0], dt)
        left -= dt
        simbus.check_wdt(now[0])
        simbus.run_timers(now[0])


# shutbox.guard.Guard.poll (what Guard.step and Guard.forever's try call), wrapped once the
# guard's module is loaded. The harness keeps the running guard (and through it the app) only
# where the firmware's modules keep it, on the Guard class (guard, _step): an error that
# escapes the guard drops those modules (firmware/main.py) and with them every reference to
# the game, as on the Pico, where no harness holds it; a reference of the harness's own would
# leave the game's heap full for shutbox.rescue (the box dark).


def _guard_step(self, t, levels=-1):
    """Guard.poll, recording the guard for the s, z and d commands (--main)."""
    cls = type(self)
    cls.guard = self
    cls._step(self, t, levels)


def obey():
    """--main: obey the script's commands up to its next wait (w), or stop (r, q)."""
    global guard, app
    m = sys.modules.get("shutbox.guard")
    if m is not None:
        cls = m.Guard
        if cls.poll is not _guard_step:  # (two attributes more: about 200 bytes of heap)
            cls._step = cls.poll
            cls.poll = _guard_step
        guard = getattr(cls, "guard", None)
        app = None if guard is None else guard.app
        m = cls = None
    try:
        while True:
            line = sys.stdin.readline()
            w = line.split()
            if not line or w and w[0] == "q":
                raise Quit(0)
            if not w:
                continue
            if w[0] == "w":  # from the script's clock: a busy pass may have run past it
                until[0] = ticks_add(until[0], int(w[1]))
                return
            if w[0] == "r":
                raise PowerCut(0)
            if w[0] == "R":  # out of the firmware as the chip's reset, to main_mode
                machine.reset()
            if w[0] in ("b", "k", "a", "m"):
                print("? " + w[0])  # not in --main
            else:
                command(line)
    finally:
        guard = app = None  # the firmware's own, until the next obey (see _guard_step)


def _mount_flash():
    """--main: the flash folder becomes '/', as the Pico's littlefs; the firmware folder FW
    (the .mpy build, or firmware/ itself: the .py fallback) is mounted where the launcher
    finds it, /.shutbox/<the name in /.shutbox/current>. The host's root stays at /.host,
    for rename (os below)."""
    import os

    host = opts["flash"]
    fw = opts["main"]
    os.umount("/")
    os.mount(os.VfsPosix(host), "/")
    os.mount(os.VfsPosix(), "/.host")
    with open("/.shutbox/current") as f:
        os.mount(os.VfsPosix(fw), "/.shutbox/" + f.read().strip())
    os.chdir("/")

    def rename(old, new):  # VfsPosix with a root folder sees the new path twice
        os.rename("/.host" + host + old, "/.host" + host + new)

    class Os:
        """The firmware's ``os``: the real one, with the dice's urandom and that rename."""

    for k in dir(os):
        if not k.startswith("__"):
            setattr(Os, k, getattr(os, k))
    Os.urandom = urandom
    Os.rename = rename
    return Os


def _reboot(power_cut, keep):
    """--main: what a reset leaves: no module of the firmware, the watchdog stopped (its
    registers cleared by a power cut, kept by a watchdog reset)."""
    global app, guard
    app = guard = None
    for k in list(sys.modules):
        if k not in keep:
            del sys.modules[k]
    sys.path[:] = ["", ".frozen", "/lib"]
    if power_cut:
        simbus.power_on()
    simbus.wdt[0] = 0
    simbus.peripherals_reset()
    simbus.irq.clear()
    del simbus.timers[:]
    gc.collect()


def main_mode():
    """--main FW: the box boots as a Pico with the firmware as a flash lays it out: /main.py
    (the launcher) starts firmware/main.py, which runs the power-up screens, then app.main.
    The commands before the first w set the pins it powers up with; a reset (the watchdog,
    machine.reset, a power cut r) boots it again from a heap without the firmware. Without
    the firmware running (main.py ended, or failed), the box is dark: DARK <ms> <error>."""
    global t0, BASE
    now[0] = t0 = ticks_add(0, -3000)
    until[0] = now[0]
    simbus.clock = _clock
    simbus.advance = _advance
    simbus.sleep = _vsleep
    sys.modules["os"] = _mount_flash()
    keep = set(sys.modules)
    keep.add("boxrun")
    with open("/main.py") as f:
        launcher = f.read()
    cut = True  # the first boot: power-on
    gc.collect()
    BASE = gc.mem_alloc()
    try:
        obey()  # the pins at power-up
        while True:
            try:
                try:
                    exec(launcher, {"__name__": "__main__"})
                    print("DARK %d -" % ticks_diff(now[0], t0))
                except (simbus.Reset, PowerCut, Quit, simbus.Hung):
                    raise
                except Exception as e:  # noqa: BLE001 - the Pico's REPL reports it, then waits
                    print("DARK %d %s" % (ticks_diff(now[0], t0), type(e).__name__))
                    sys.print_exception(e)
                while True:  # dark: time passes; only the watchdog (if started) resets
                    _vsleep(1000)
            except simbus.Reset as e:
                print("RESET %d %d %d" % (e.args[0], ticks_diff(now[0], t0), simbus.reason))
                cut = False
            except PowerCut:
                print("RESET 0 %d 0" % ticks_diff(now[0], t0))
                cut = True
            _reboot(cut, keep)
    except simbus.Hung:
        print("HUNG %d" % ticks_diff(now[0], t0))
    except Quit as e:
        if e.args[0]:
            print("? out of heap %d" % ticks_diff(now[0], t0))
    report()
    if peak_mode:
        print("PEAK %d" % seen[2])
        print("BASE %d" % BASE)
    raise SystemExit(0)



gc.collect()
BASE = gc.mem_alloc()  # the simulated board and this harness, before any firmware (--peak)
if opts["main"]:
    main_mode()

# --powerup: the game's modules load only after the power-up screen, as on the box (main.py)
if "--powerup" not in sys.argv:
    load_firmware()

from shutbox import pins  # noqa: E402
from shutbox.board import Board  # noqa: E402
from shutbox.settings import Settings  # noqa: E402

now[0] = simtime.ticks_ms() if realtime else ticks_add(0, -3000)
t0 = until[0] = now[0]
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
boot(True)  # machine.PWRON_RESET

loop[3] = step()
if realtime:
    import select

    # The box's clock follows the PC's, but the box lives every ms of it: after a stall of
    # this process (a loaded PC) it catches up pass by pass on its own clock, as the chip,
    # never stalled, would have passed, and the edges scheduled meanwhile (E: a click's press
    # and release) come at their times, not folded into one reading.
    host_ms = simbus.clock  # the PC's ms (the unix port's time.ticks_ms)
    simbus.clock = _clock
    simbus.advance = _advance
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    going = True
    start = host_ms()
    lived = 0
    while going:
        due = host_ms() - start
        if due > lived:
            wait(due - lived)
            lived = due
        while going and poller.poll(loop[3] if loop[3] > 1 else 1):  # every line waiting
            line = sys.stdin.readline()
            going = bool(line) and command(line)
else:
    while True:
        line = sys.stdin.readline()
        if not line or not command(line):
            break
if peak_mode:
    print("PEAK %d" % seen[2])
    print("BASE %d" % BASE)

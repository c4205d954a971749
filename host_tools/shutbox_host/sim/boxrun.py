# The real firmware on the simulated board, driven by primitive commands (a MicroPython script).
"""Run under micropython: ``micropython -m boxrun [options] < commands``.

Builds the firmware's App on the fake rp2 board (machine, neopixel, simbus) and obeys one
command per line. Kept tiny, because it shares the 64 KB test heap with the firmware: the
host (shutbox_host.boxsim) turns readable scripts (open 9, bounce 3 15, hold, ...) into these
primitives and decodes the output.

Options: --players N, --seed N (dice stream; 0 with --realtime = os.urandom), --realtime
(time.ticks_ms and stdin polled; for ``shutbox play``), --poll MS, --levels MASK (tiles open
at power-up), --roll-held, --peak (sample the live heap after every LED write).

Commands:  p GPIO LEVEL   drive an input        w MS     let MS ms pass (virtual clock)
           d F..          next dice faces       s        print the game state
           h              print the live heap   k N      N idle polls under heap_lock
           e TEXT         echo                  q        quit
Output:    F <ms> <hex>   LED bytes as written  T <ms> <Hz>  the buzzer changed
           the firmware's JSON log lines, and the answers (S ..., H ..., LOCK ..., PEAK ...).
The scripted clock starts 3 s before the 2**30 ms tick wrap, so every run crosses it.
"""

import gc
import sys
import time

import simbus

import micropython

# Load the firmware module by module, collecting the loader's garbage in between: the heap
# stays unfragmented enough for the engine's and the game's larger blocks.
for _m in ("ticks", "variants", "pins", "movetab", "engine", "frame", "debounce", "dice",
           "game", "board", "app"):
    gc.collect()
    __import__("shutbox." + _m)
gc.collect()

from shutbox import pins  # noqa: E402
from shutbox.app import POLL_MS, App  # noqa: E402
from shutbox.board import Board  # noqa: E402
from shutbox.game import Settings  # noqa: E402
from shutbox.ticks import ticks_add, ticks_diff  # noqa: E402

opts = {"players": 2, "seed": 0, "poll": POLL_MS, "levels": -1}
flags = []
_i = 1
while _i < len(sys.argv):
    _a = sys.argv[_i][2:]
    if _a in opts:
        _i += 1
        opts[_a] = int(sys.argv[_i])
    else:
        flags.append(_a)
    _i += 1
realtime = "realtime" in flags
peak_mode = "peak" in flags
poll = opts["poll"]
now = [time.ticks_ms() if realtime else ticks_add(0, -3000)]
t0 = now[0]
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


if not realtime:
    simbus.clock = lambda: now[0]
simbus.buzzer_pin = pins.BUZZER_PIN
_shut = pins.SWITCH_ACTIVE
for _k in range(pins.TILES):
    simbus.set_level(pins.TILE_PINS[_k], _shut ^ (opts["levels"] >> _k & 1))
simbus.set_level(pins.ROLL_PIN, _shut if "roll-held" in flags else _shut ^ 1)
gc.collect()
app = App(Board(), urandom, now[0], settings=Settings(players=opts["players"]))
game = app.game
seen = [-1, 0, 0]  # LED writes, tone, peak heap


def report():
    """Print what changed on the LEDs and the buzzer since the last poll."""
    ms = ticks_diff(now[0], t0)
    if simbus.writes != seen[0]:
        seen[0] = simbus.writes
        print("F %d %s" % (ms, simbus.leds.hex()))
        if peak_mode:
            gc.collect()
            seen[2] = max(seen[2], gc.mem_alloc())
    tone = simbus.tone()
    if tone != seen[1]:
        seen[1] = tone
        print("T %d %d" % (ms, tone))


def step():
    app.step(now[0])
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
            app.step(now[0])
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
        app.dice.flush()
    elif c == "s":
        print("S %d %d %d %d %d %d %d %d %s" % (
            game.state, game.player + 1, game.open_, game.levels, game.a, game.b, game.err,
            game.err_mask, " ".join(str(s) for s in game.scores[:game.players])))
    elif c == "h":
        gc.collect()
        print("H %d %d" % (gc.mem_alloc(), gc.mem_free()))
    elif c == "k":
        lockcheck(int(w[1]))
    elif c == "e":
        print(line.strip()[2:])
    elif c == "q":
        return False
    else:
        print("? " + c)
    return True


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

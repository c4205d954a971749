# Soak: thousands of whole games on the simulated board under MicroPython; heap, leaks, GC pauses.
"""Run under micropython with the simulated board's build tree on the path (the firmware as
.mpy, as on the Pico): soak_games.py GAMES FLASH [SEED] [REBOOT_EVERY].

A careful player plays GAMES whole games through the simulated pins: tiles flipped on the
switch GPIOs, Roll pressed and held, the virtual clock stepped 10 ms a poll (the same App,
debouncer, store and resume code as on the box). The player reads the game's state to choose
(as a person reads the LEDs) and plays the rule-of-thumb move; games have 1 to 4 players in
turn (set before each new game). FLASH is the folder of the store ("-" for none). Every
REBOOT_EVERY games (0: never) the box is rebooted as after a power cut: a new App resumes the
saved game.

After every game, at the same point (the new game just started): gc.collect() timed with
time.ticks_us (the GC pause), then gc.mem_alloc() (the live heap). Also timed: a collection at
every turn end, in the middle of games. Prints one line, then ``GCHIST`` (how many pauses fell
in 1, 2-3, 4-7, ... us):

    SOAK games G polls P records R winners W base B first F last L min m max M
         gcmax_us X gcavg_us A ms T reboots N saves S

base is the heap held before the firmware was imported (the simulated board and this
script); first/last the live heap after the first and the last game. A MemoryError prints
"MEMERR <game> <text>" and exits with status 3.
"""

import gc
import sys
import time
from array import array

import simbus
from machine import Pin  # noqa: F401 - the simulated board, part of the base
from neopixel import NeoPixel  # noqa: F401

GAMES = int(sys.argv[1])
FLASH = sys.argv[2] if len(sys.argv) > 2 else "-"
_seed = [int(sys.argv[3]) if len(sys.argv) > 3 else 12345]
REBOOT_EVERY = int(sys.argv[4]) if len(sys.argv) > 4 else 0
POLL = 10
now = [0]
simbus.clock = lambda: now[0]
count = [0, 0, 0, 0, 0]  # polls, log records, winners, saves of the game in progress, games


def urandom(n):
    """Seeded xorshift bytes (the dice)."""
    out = bytearray(n)
    x = _seed[0]
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x & 0xFF
    _seed[0] = x
    return out


def out(line):
    """The console: count the records (and the winners) instead of printing them."""
    count[1] += 1
    if '"winner"' in line:
        count[2] += 1


def set_tiles(mask):
    for k in range(NT):
        simbus.set_level(TILE_PINS[k], ACTIVE ^ ((mask >> k) & 1))


def set_roll(down):
    simbus.set_level(pins.ROLL_PIN, ACTIVE if down else ACTIVE ^ 1)


def run(ms):
    end = ticks_add(now[0], ms)
    while ticks_diff(end, now[0]) > 0:
        now[0] = ticks_add(now[0], POLL)
        box[0].step(now[0])
        count[0] += 1


def click(held=60):
    set_roll(True)
    run(held)
    set_roll(False)
    run(50)


def boot(resume):
    if box[0] is not None and box[0].resume is not None:
        count[3] += box[0].resume.saves
    box[0] = None
    gc.collect()
    store = Store(FLASH + "/data") if FLASH != "-" else None
    box[0] = App(Board(), urandom, now[0], settings=Settings(players=2), out=out,
                 store=store, resume=resume)


HIST = array("I", [0] * 24)  # GC pauses by power of two: bucket k counts 2**k..2**(k+1)-1 us


def timed_collect():
    t0 = time.ticks_us()
    gc.collect()
    dt = time.ticks_diff(time.ticks_us(), t0)
    k = 0
    while dt >> (k + 1) and k < 23:
        k += 1
    HIST[k] += 1
    return dt


box = [None]

# Everything above is the harness (the simulated board and this script's functions and
# buffers): the base. The firmware's share is what the heap holds beyond it.
gc.collect()
BASE = gc.mem_alloc()
for _m in ("ticks", "variants", "pins", "engine", "frame", "debounce", "dice",
           "settings", "rounds", "game", "board", "store", "resume", "app"):
    gc.collect()
    try:
        __import__("shutbox." + _m)
    except ImportError:
        pass  # a module another version of the firmware does not have
gc.collect()

from shutbox import pins  # noqa: E402
from shutbox.app import App  # noqa: E402
from shutbox.board import Board  # noqa: E402
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, Settings  # noqa: E402
from shutbox.store import Store  # noqa: E402
from shutbox.ticks import ticks_add, ticks_diff  # noqa: E402

now[0] = ticks_add(0, -3000)
ACTIVE = pins.SWITCH_ACTIVE
TILE_PINS = pins.TILE_PINS
NT = pins.TILES


def main():
    """Play the games; return the figures (locals only: the module's globals never grow)."""
    set_tiles((1 << NT) - 1)
    set_roll(False)
    if FLASH != "-":
        import os

        try:
            os.mkdir(FLASH)
        except OSError:
            pass
    boot(False)
    first = last = lo = hi = -1
    gcmax = gcsum = gcn = 0
    reboots = 0
    played = 0
    while played < GAMES:
        app = box[0]
        game = app.game
        st = game.state
        if st == SETUP:
            if game.levels != game.open_:
                set_tiles(game.open_)
                run(50)
            else:
                click()
        elif st == READY:
            click()
        elif st == ROLLING:
            run(100)
        elif st == MOVE:
            if game.open_ & ~game.levels:  # a move that a longer one could extend: it settles
                run(200)
            else:
                m = app.engine.greedy_move(game.open_, game.a, game.b)
                set_tiles(game.open_ & ~m)
                run(50)
        elif st == TURN_END:
            run(710)
            gcmax = max(gcmax, timed_collect())
            click()
        elif st == GAME_END:
            played += 1
            count[4] = played
            game.settings.players = 1 + played % 4  # the next game's size
            set_roll(True)
            run(720)  # a long press: a new game
            set_roll(False)
            run(50)
            app = game = None
            dt = timed_collect()  # the garbage of a whole game, collected
            gcmax = max(gcmax, dt)
            gcsum += dt
            gcn += 1
            gc.collect()
            used = gc.mem_alloc()
            if first < 0:
                first = lo = hi = used
            last = used
            lo = min(lo, used)
            hi = max(hi, used)
            if REBOOT_EVERY and played % REBOOT_EVERY == 0 and played < GAMES:
                reboots += 1
                boot(True)
        else:  # a state of a feature this harness does not know: press on
            click()
    if box[0].resume is not None:
        count[3] += box[0].resume.saves
    return (played, first, last, lo, hi, gcmax, gcsum // max(1, gcn), reboots)


t_start = time.ticks_ms()
try:
    played, first, last, lo, hi, gcmax, gcavg, reboots = main()
except MemoryError as e:
    print("MEMERR %d %s" % (count[4], e))
    sys.exit(3)
print("SOAK games %d polls %d records %d winners %d base %d first %d last %d min %d max %d "
      "gcmax_us %d gcavg_us %d ms %d reboots %d saves %d" % (
          played, count[0], count[1], count[2], BASE, first, last, lo, hi, gcmax, gcavg,
          time.ticks_diff(time.ticks_ms(), t_start), reboots, count[3]))
print("GCHIST " + " ".join(str(n) for n in HIST))

# app.main() on the simulated board: the guard runs, the watchdog is fed, Ctrl-C stops it.
"""Run under micropython with the simulated board's build tree and tests/mp on the path.

A littlefs on a RAM flash (store_flashdev.py) becomes the filesystem's root, as on the Pico,
so main()'s /data and /error.log land there. A fake ``time`` module gives main() a virtual
clock; its sleep_ms raises KeyboardInterrupt after 200 polls, as a developer's Ctrl-C would.
Prints WDT (the timeout main() started the watchdog with), FEEDS, STOPPED (Board.watchdog_stop
was called), INTERRUPT (the KeyboardInterrupt came back out of main()), AGAIN (a board, a store,
settings and an engine made after it, as the REPL would) and FILES (what main() wrote: /data's
files, then the root's).
"""

import os
import sys

import machine  # noqa: F401 - the simulated board, loaded before the remount
import neopixel  # noqa: F401
import simbus
from store_flashdev import PROGSIZE, FlashDev

dev = FlashDev()  # 64 KB in one block: made first, before the heap fragments
os.VfsLfs2.mkfs(dev, progsize=PROGSIZE)

import shutbox  # noqa: E402 - after the flash is made
from shutbox import app, board  # noqa: E402
from shutbox.ticks import ticks_add  # noqa: E402

for _name in os.listdir(shutbox.__path__):  # every firmware module, loaded before the remount
    if _name.endswith(".mpy") or _name.endswith(".py"):
        __import__("shutbox." + _name.rsplit(".", 1)[0])

_now = [ticks_add(0, -1000)]
_polls = [0]


class FakeTime:
    """The parts of time that main() uses, on a virtual clock."""

    @staticmethod
    def ticks_ms():
        return _now[0]

    @staticmethod
    def ticks_us():
        return _now[0] * 1000

    @staticmethod
    def sleep_ms(ms):
        _now[0] = ticks_add(_now[0], ms)
        _polls[0] += 1
        if _polls[0] >= 200:
            raise KeyboardInterrupt

    @staticmethod
    def sleep_us(us):
        FakeTime.sleep_ms((us + 999) // 1000)


simbus.clock = FakeTime.ticks_ms
stopped = [0]
_stop = board.Board.watchdog_stop


def _record_stop(self):
    stopped[0] += 1
    _stop(self)


board.Board.watchdog_stop = _record_stop
# the firmware's own files stay where they are (on the Pico they are in the same flash): the
# engine reads its move table, tables/moves.bin beside engine.py, from the filesystem
_top = shutbox.engine.__file__.split("/")[1]
os.umount("/")
os.mount(os.VfsLfs2(dev, progsize=PROGSIZE), "/")
os.mount(os.VfsPosix("/" + _top), "/" + _top)
sys.modules["time"] = FakeTime
interrupted = 0
try:
    app.main()
except KeyboardInterrupt:
    interrupted = 1
del sys.modules["time"]  # the built-in one again
# the REPL after a Ctrl-C: the classes whose constructors app.prelude dropped load whole again
from shutbox.board import Board  # noqa: E402
from shutbox.engine import Engine, Rules  # noqa: E402
from shutbox.settings import Settings  # noqa: E402
from shutbox.store import Store  # noqa: E402

print("AGAIN", Board().tiles, Store("/data").root, Settings(players=3).players,
      Engine(Rules(tiles=9)).tiles)
print("WDT", simbus.wdt[0])
print("FEEDS", simbus.wdt[2])
print("STOPPED", stopped[0])
print("INTERRUPT", interrupted)
print("FILES", " ".join(sorted(os.listdir("/data"))), "/",
      " ".join(sorted(n for n in os.listdir("/") if n != _top)))  # not the firmware's mount

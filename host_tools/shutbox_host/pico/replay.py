# The firmware's polls on the emulated chip replayed on CPython: the frames and log they must give.
"""Replay what the firmware read on the emulated RP2040 through ``shutbox.app.App`` on CPython.

``Emulator.trace()`` records every read of the GPIO inputs and the timer read before it (the
``time.ticks_ms()`` of each pass of the Pico's loop, Guard.forever, which then reads the
switches once and steps the app with that reading when it changed or the app is due). Fed
the same reads, the same ``now`` values and dice giving the throws the chip logged, a
CPython ``App`` on a stand-in board, stepped as that loop steps it, takes exactly the
firmware's path, so its
``Board.show`` calls are the frames the chip must have sent down the LED chain, one for one,
and its log the chip's log. The tests compare both with what the emulator decoded and read.
"""

from __future__ import annotations

import json
import tempfile

from shutbox import pins
from shutbox.frame import NAMES


class _Reads:
    """The trace as a queue: T tokens (timer, us) and G tokens (GPIO levels)."""

    def __init__(self, reads, start: int):
        self.reads = reads
        self.i = start

    def next_timer(self) -> int | None:
        while self.i < len(self.reads):
            kind, _ms, v = self.reads[self.i]
            self.i += 1
            if kind == "T":
                return v
        return None

    def next_gpio(self) -> int:
        while self.i < len(self.reads):
            kind, _ms, v = self.reads[self.i]
            self.i += 1
            if kind == "G":
                return v
        raise EOFError


class _Board:
    """The box's board on CPython, its inputs taken from the trace, its LEDs recorded."""

    def __init__(self, reads: _Reads):
        self.tiles = pins.TILES
        self.reads = reads
        self.frames: list[str] = []
        self.tones: list[int] = []

    def switches(self, levels: int = -1) -> int:
        """The tiles of the loop's reading *levels* (-1: read now: a read of the trace per
        pin, as Pin.value reads GPIO_IN on the chip)."""
        m = 0
        for k in range(self.tiles):
            g = pins.TILE_PINS[k]
            v = (levels if levels >= 0 else self.reads.next_gpio()) >> g & 1
            if v != pins.SWITCH_ACTIVE:
                m |= 1 << k
        return m

    def roll(self, levels: int = -1) -> bool:
        v = levels if levels >= 0 else self.reads.next_gpio()
        return v >> pins.ROLL_PIN & 1 == pins.SWITCH_ACTIVE

    def show(self, frame) -> None:
        self.frames.append("".join(chr(NAMES[c & 7]) for c in frame))

    def tone(self, hz, ms=0) -> None:
        self.tones.append(hz)

    def adjust(self, sound, brightness) -> None:
        """The settings' volume and brightness: the frames are palette codes, which they
        do not change."""
        self.sound, self.brightness = sound, brightness


def throws_of(log: list[dict]) -> list[int]:
    """The dice faces the chip threw, in order, from its log's throw records."""
    faces: list[int] = []
    for rec in log:
        if rec.get("ev") == "throw":
            faces += rec["dice"]
    return faces


def replay(reads, log: list[dict], start_ms: float, settings=None) -> tuple[list[str], list[dict]]:
    """Replay the polls from the App built just before *start_ms* (its settings line).

    Returns (frames as palette letters, one string per LED chain write; log records).
    """
    from shutbox import setfile
    from shutbox.app import App
    from shutbox.records import _T_SKIP, Records
    from shutbox.settings import Settings
    from shutbox.store import Store
    from shutbox.ticks import ticks_add, ticks_diff

    start = max(i for i, (k, ms, _) in enumerate(reads) if k == "T" and ms <= start_ms)
    q = _Reads(reads, start)
    board = _Board(q)
    faces = throws_of(log)
    pool = [f - 1 for f in faces]

    def urandom(n: int) -> bytes:
        out = bytes(pool[:n]) + bytes(max(0, n - len(pool)))
        del pool[:n]
        return out

    settings = settings if settings is not None else Settings()
    rules = setfile.rules(settings, pins.TILES)
    out: list[dict] = []

    def emit(line):
        out.append(json.loads(line) if isinstance(line, str) else line)

    t0 = q.next_timer()
    assert t0 is not None
    now = (t0 // 1000) & 0x3FFFFFFF
    # a store and the records' tally as the chip's (app.start): where the box saves decides
    # when it steps (one save a step: a game's end steps again at once for the game's)
    tmp = tempfile.TemporaryDirectory(prefix="shutbox-replay-")
    store = Store(tmp.name + "/data")
    tally = Records(store, setfile.variant_key(settings, pins.TILES)).tally(0)
    app = App(board, urandom, now, settings=settings, rules=rules, out=emit, store=store,
              tally=tally)
    cpu = getattr(app.game, "cpu", None)
    if cpu is not None:
        tally[_T_SKIP] = cpu.seats
    # the Pico's loop (shutbox.guard: Guard.forever): each pass reads the time, then the
    # switches in one read of GPIO_IN, and steps the app when they changed or it is due
    seen = -1
    due = now
    while True:
        t = q.next_timer()
        if t is None:
            break
        now = (t // 1000) & 0x3FFFFFFF
        try:
            levels = q.next_gpio()
            if levels != seen or ticks_diff(now, due) >= 0:
                seen = levels
                app.step(now, levels)
                due = ticks_add(now, app.wait(now))
        except EOFError:
            break
    tmp.cleanup()
    return board.frames, out

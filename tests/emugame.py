# A two-player game on the emulated chip, for the power-cut tests: near its end, then finished.
"""The steps the power-cut tests on the emulated RP2040 (a Pico's build, or a Pico W's with its
companion) share: ``near_the_end`` plays a game from power-up to the second turn's last safe
point and returns the flash there; ``pass_the_box`` after a turn's score; ``finish`` plays a
game resumed after a power cut to its end; ``Replays`` runs a reference's inputs again up to
each cut from one booted chip. The waits are the emulated clock's, longer on the Pico W (its
radio and companion start first)."""

from __future__ import annotations

from shutbox import pins
from shutbox_host.pico import autoplay
from shutbox_host.pico.emulator import Emulator

FULL = (1 << pins.TILES) - 1
# by board: (ms to the first record after power-up, ms to the winner after the last Roll, ms
# let pass after the first turn's record before playing)
_WAITS = {"RPI_PICO": (5000, 2000, 100), "RPI_PICO_W": (8000, 3000, 300)}


def pass_the_box(emu) -> None:
    """After a turn's score: let it show, put the tiles up, Roll (the next turn or the end)."""
    emu.run(ms=750)
    emu.set_open(FULL)
    emu.run(ms=60)
    emu.click(100)


def near_the_end(emu) -> bytes:
    """From power-up, the first player's turn played, then the second's up to its last safe
    point before the throw or move that ends it (its score still to come): return the flash
    then, each save of that turn done."""
    boot_ms, end_ms, settle_ms = _WAITS[emu.board.name]
    emu.wait_for(r'"ev": "turn"', timeout_ms=boot_ms)
    emu.run(ms=settle_ms)
    autoplay.play_turn(emu, autoplay.engine())
    n = len(emu.lines)
    pass_the_box(emu)
    assert emu.wait_for(r'"ev": "turn"', timeout_ms=end_ms, since=n)["player"] == 2
    emu.run(ms=300)
    images = [emu.flash_image()]

    def saved():  # each throw and move of the second turn, once its save is done
        emu.run(ms=100)
        images.append(emu.flash_image())

    autoplay.play_turn(emu, autoplay.engine(), after=saved)
    return images[-2]


def finish(emu, n: int) -> list[int]:
    """Play the resumed game (its records from console line *n* on) to its end; return the
    scores it ended with."""
    boot_ms, end_ms, _ = _WAITS[emu.board.name]
    rec = emu.wait_for(r'"ev": "(resume|turn)"', timeout_ms=boot_ms, since=n)
    assert rec["ev"] == "resume", rec  # the saved game, never damaged, never lost
    st = rec["state"]
    if st == "game_end":
        emu.run(ms=500)
        return rec["scores"]
    if st != "turn_end":
        assert rec["player"] == 2 and st in ("setup", "ready", "rolling"), rec
        open_ = sum(1 << (k - 1) for k in rec["open"])
        emu.set_open(open_)  # the tiles as the saved game had them
        emu.run(ms=200)
        autoplay.play_turn(emu, autoplay.engine(), open_=open_,
                           rolling=n if st == "rolling" else None)
    m = len(emu.lines)
    pass_the_box(emu)
    win = emu.wait_for(r'"ev": "winner"', timeout_ms=end_ms, since=m)
    emu.run(ms=500)
    return win["scores"]


class Replays:
    """A reference run's inputs (Emulator.inputs) played again up to each cut, from one chip:
    booted once (*emu_kw*: Emulator's, the reference's flash) and run with the inputs up to
    *start* (ns: the earliest cut), then kept (Emulator.snapshot). ``to(cut)`` puts it back
    and drives the inputs after *start* up to *cut*: the run a fresh boot's replay makes (the
    chip is deterministic, the snapshot exact: ``to`` checks that the flash operations and
    console lines by then are the reference's *ops* and *lines*, at the same ns), without
    its boot nor the replay before *start*."""

    def __init__(self, inputs: list, ops: list, lines: list, start: int, **emu_kw):
        self.inputs, self.ops, self.lines, self.start = inputs, ops, lines, start
        self.emu = Emulator(**emu_kw).start()
        try:
            self.emu.replay_inputs(inputs, start)
            self.snap = self.emu.snapshot()
        except BaseException:
            self.emu.stop()
            raise

    def to(self, cut: int) -> Emulator:
        """The chip run as the reference was up to *cut* (ns, after *start*)."""
        assert cut > self.start, (cut, self.start)
        emu = self.emu
        emu.restore(self.snap)
        emu.replay_inputs([x for x in self.inputs if x[0] > self.start], cut)
        assert emu.stats()["now"] >= cut
        done = [op for op in emu.flash_ops if op[1] <= cut]
        said = [x for x in emu.lines if x[0] * 1e6 <= cut]
        assert (done, said) == ([op for op in self.ops if op[1] <= cut],
                                [x for x in self.lines if x[0] * 1e6 <= cut]), \
            "not the reference's run"
        return emu

    def stop(self) -> None:
        self.emu.stop()

# The emulated RP2040 driven by shutbox_host.model.drive's verbs: a script's pins on the chip.
"""``EmuBox``: the real MicroPython rp2 build on rp2040js (``Emulator``) booted from the
firmware's flash image, driven verb by verb through shutbox_host.model.drive's protocol.

Its clock starts (ms 0) at the first turn's record, once the power-up is over; what it
showed before has negative times. A contact's edges land on their pin at their exact ns
(``Emulator.drive``) as the chip runs through the wait that follows them. It has no
``dice`` (the chip draws its own from its entropy) and answers no question of the
simulated board's (state, heap); a power cut reboots it, which takes its own time (the
power-up again) where the simulated board boots in no virtual time.
"""

from __future__ import annotations

from shutbox import pins
from shutbox_host.model.drive import Driver, Shown
from shutbox_host.pico.emulator import Emulator

READY = r'"ev": "turn"'  # the box is ready for play: its first turn's record


class EmuBox(Driver):
    """One emulated Pico flashed with the firmware, from its first turn on."""

    name = "emulated RP2040"

    def __init__(self, fs: bytes | None = None, levels: int = -1, ready: str = READY,
                 **kw):
        """*fs*: the littlefs image (None: shutbox_host.pico.fsimage.build()); *levels*:
        the tiles open at power-up (bit k-1: tile k; -1: all); *ready*: the console line
        that starts the script's clock; *kw*: Emulator's options."""
        if fs is None:
            from shutbox_host.pico import fsimage

            fs = fsimage.build()
        self.emu = Emulator(fs=fs, **kw).start()
        self._owned = True
        self._begin()
        try:
            if levels != -1:
                self.open_ = levels & ((1 << pins.TILES) - 1)
                self.emu.set_open(self.open_)
            self.emu.wait_for(ready, timeout_ms=10000)
        except BaseException:
            self.emu.stop()
            raise
        self.t0 = self.emu.now_ms

    def _begin(self) -> None:
        self._pending: list[tuple[int, int, int]] = []  # (ns, gpio, level) yet to land
        self._out = Shown()
        self._seen = [0, 0, 0, 0]  # the emulator's frames, tones, log, flash taken so far

    @classmethod
    def attach(cls, emu: Emulator) -> EmuBox:
        """The protocol on an Emulator already running (its owner stops it), from now."""
        box = cls.__new__(cls)
        box.emu = emu
        box._owned = False
        box._begin()
        box.t0 = emu.now_ms
        return box

    @property
    def ms(self) -> float:  # type: ignore[override]
        return self.emu.now_ms - self.t0

    def _land(self, until_ns: int) -> None:
        """Land the scheduled edges due by *until_ns* (the chip runs to each one)."""
        due = [e for e in self._pending if e[0] <= until_ns]
        if due:
            self._pending = [e for e in self._pending if e[0] > until_ns]
            self.emu.drive(due)

    # ---- the verbs ----

    def levels(self, levels: dict[int, int]) -> None:
        self._land(self.emu.now_ns)
        self.emu.set_levels(levels)

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        now = self.emu.now_ns
        self._pending = sorted(self._pending + [(now + round(us * 1000), gpio, v)
                                                for us, v in edges])

    def advance(self, ms: float) -> None:
        end = self.emu.now_ns + int(ms * 1_000_000)
        self._land(end)
        if end > self.emu.now_ns:
            self.emu.run(until_ns=end)

    def power_cut(self) -> None:
        self._land(self.emu.now_ns)
        self.emu.power_cycle()

    def reset(self) -> None:
        self._land(self.emu.now_ns)
        self.emu.watchdog_reset()

    def until(self, ms: float, *kinds: str) -> dict | None:
        n = len(self.emu.log)
        end = self.emu.now_ns + int(ms * 1_000_000)
        self._land(end)
        if end > self.emu.now_ns:
            self.emu.run(until_ns=end, until=r'"ev": "(%s)"' % "|".join(kinds))
        return next((r for r in self.shown().log[n:] if r.get("ev") in kinds), None)

    def shown(self) -> Shown:
        """What the chip sent so far, on the script's clock (taken once: a long run reads it
        often)."""
        t0, emu, out, seen = self.t0, self.emu, self._out, self._seen
        out.frames += [(f.ms - t0, f.tiles, f.die_a, f.die_b) for f in emu.frames[seen[0]:]]
        out.tones += [(ms - t0, hz) for ms, hz, _ in emu.tones[seen[1]:]]
        out.log += [dict(r, _ms=r["_ms"] - t0) for r in emu.log[seen[2]:]]
        out.flash += [(a / 1e6 - t0, z / 1e6 - t0) for a, z, *_ in emu.flash_ops[seen[3]:]]
        self._seen = [len(emu.frames), len(emu.tones), len(emu.log), len(emu.flash_ops)]
        return out

    def close(self) -> None:
        if self._owned:
            self.emu.stop()

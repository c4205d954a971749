# One way to drive any box: its verbs, what it showed, and the runner of the scenario language.
"""The protocol every box a host drives speaks, whatever runs the firmware.

A box (``Box``) is driven by a few verbs: ``levels`` (drive pins), ``edges`` (a contact's
burst scheduled from now), ``advance`` (let time pass), ``power_cut`` and ``reset``,
``dice`` (the next throws' faces, where the backend can set them), ``ask`` (the simulated
board's questions: the state, the heap) and ``until`` (time passes until the box logs a
record of a kind, as one watching its console waits); and it tells what it did:
``shown()``, its LED frames, tones and log records on the script's clock (ms since the box
was ready: the power-up on the simulated board, the first turn's record on the emulated
chip). ``Driver`` adds the player's verbs built on them (open, shut, flip, set_open, press,
release, click, hold) and ``run``, which plays a
scenario script (shutbox_host.model.script) through ``play``: the same script runs on every
backend, and a backend without a verb the script needs says so (``Unsupported``).

Backends: box/drive.py (the firmware's App on CPython, CpyBox; the unix-port simulated board,
SimBox), pico/drive.py (the emulated RP2040, EmuBox), box/play.py (the terminal box,
TermBox), web/drive.py (the web page, PageBox); docs/design.md says which verbs each has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from shutbox import pins
from shutbox_host.model.script import PRESS_MS, Script


class Unsupported(Exception):
    """A verb this backend cannot do (one line: which verb, which backend, why)."""


class Reading:
    """What a box's record says (its frames, log and answers): the readers every record of a
    box shares (Shown here, boxsim.Run)."""

    frames: list
    log: list
    lines: list

    def events(self, kind: str) -> list:
        """Return the log records whose "ev" is *kind*."""
        return [r for r in self.log if r.get("ev") == kind]

    def frame_at(self, ms: float):
        """Return the last frame sent at or before *ms* (None before the first)."""
        best = None
        for f in self.frames:
            if f[0] <= ms:
                best = f
        return best

    def states(self) -> list[dict]:
        """Return the answers to every ``s`` question (``ask``), as dicts."""
        out = []
        for line in self.lines:
            if line.startswith("S "):
                w = [int(x) for x in line.split()[1:]]
                out.append({"state": w[0], "player": w[1], "open": w[2], "levels": w[3],
                            "a": w[4], "b": w[5], "err": w[6], "err_mask": w[7],
                            "scores": w[8:]})
        return out

    def frames_in(self, start: float, end: float) -> list:
        """Return the frames sent in [start, end)."""
        return [f for f in self.frames if start <= f[0] < end]


@dataclass
class Shown(Reading):
    """What a box did so far, on the script's clock (ms since it was ready)."""

    frames: list = field(default_factory=list)  # (ms, tiles, die_a, die_b) as palette letters
    tones: list = field(default_factory=list)  # (ms, Hz)
    log: list = field(default_factory=list)  # the firmware's JSON records, each with "_ms"
    lines: list = field(default_factory=list)  # the answers to ``ask`` (simulated board)
    flash: list = field(default_factory=list)  # (ms, ms): each erase or program (emulated chip)

class Box(Protocol):
    """The verbs of a box; times in ms on the script's clock (``ms``: now)."""

    name: str
    ms: float

    def levels(self, levels: dict[int, int]) -> None:
        """Drive GPIOs (number -> 0/1) from now on."""

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        """Schedule a contact's edges on *gpio*: (µs from now, level), in order; each lands
        when the box's clock reaches it (time does not pass here)."""

    def advance(self, ms: float) -> None:
        """Let *ms* ms pass (a box whose clock counts whole ms rounds up)."""

    def until(self, ms: float, *kinds: str) -> dict | None:
        """Let up to *ms* ms pass, stopping once the box logs a record whose "ev" is one of
        *kinds*; return that record (None: none came)."""

    def power_cut(self) -> None:
        """The power goes and comes back now (the flash kept, the pins as driven)."""

    def reset(self) -> None:
        """machine.reset() now: the chip restarts through its watchdog."""

    def dice(self, faces: list[int]) -> None:
        """The next throws' faces, in order; Unsupported where the box draws its own."""

    def ask(self, line: str) -> None:
        """A question in boxrun's words (s, h, n, k N, e TEXT): answered in ``lines``;
        Unsupported where nobody can answer it."""

    def press(self) -> None:
        """Roll pressed (held until ``release``)."""

    def release(self) -> None:
        """Roll let go."""

    def shown(self) -> Shown:
        """What the box did so far: its frames, tones and log."""

    def run(self, script: Script | str) -> Shown:
        """Play a scenario script from now (``play``); return what was shown."""

    def close(self) -> None:
        """Stop the box (its process ends)."""


class Driver:
    """The player's verbs and the script runner, on any backend's primitive verbs."""

    name = "box"
    ms: float = 0
    tiles: int = pins.TILES
    open_: int = (1 << pins.TILES) - 1  # the tiles driven open (bit k-1: tile k), as Script's

    def levels(self, levels: dict[int, int]) -> None:
        raise NotImplementedError

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        raise NotImplementedError

    def advance(self, ms: float) -> None:
        raise NotImplementedError

    UNTIL_MS = 5  # until(): the log looked at every this many ms (a box that can stop at
    # the record itself does so)

    def until(self, ms: float, *kinds: str) -> dict | None:
        n = len(self.shown().log)
        end = self.ms + ms
        while self.ms < end:
            self.advance(min(self.UNTIL_MS, end - self.ms))
            log = self.shown().log
            for rec in log[n:]:
                if rec.get("ev") in kinds:
                    return rec
            n = len(log)
        return None

    def power_cut(self) -> None:
        raise NotImplementedError

    def reset(self) -> None:
        raise Unsupported("%s: no machine.reset() from outside" % self.name)

    def dice(self, faces: list[int]) -> None:
        raise Unsupported("%s: the box draws its own dice (a script that sets them runs on "
                          "the simulated board)" % self.name)

    def ask(self, line: str) -> None:
        raise Unsupported("%s: cannot answer %r (the simulated board's question)"
                          % (self.name, line.split()[0]))

    def shown(self) -> Shown:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- the player's verbs ----

    def _tiles(self, tiles, is_open) -> None:
        """Drive *tiles* open or shut together (*is_open*: one bool, or one per tile)."""
        out = {}
        for i, k in enumerate(tiles):
            if not 1 <= k <= self.tiles:
                raise ValueError("no tile %d on a %d-tile box" % (k, self.tiles))
            up = is_open[i] if isinstance(is_open, list) else is_open
            out[pins.TILE_PINS[k - 1]] = pins.SWITCH_ACTIVE ^ up
            self.open_ = self.open_ | 1 << (k - 1) if up else self.open_ & ~(1 << (k - 1))
        self.levels(out)

    def open(self, *tiles: int) -> None:
        self._tiles(tiles, True)

    def shut(self, *tiles: int) -> None:
        self._tiles(tiles, False)

    def flip(self, *tiles: int) -> None:
        """Shut the open ones of *tiles* and open the shut ones, together."""
        self._tiles(tiles, [not self.open_ >> (k - 1) & 1 for k in tiles])

    def set_open(self, mask: int) -> None:
        """Drive every tile: open where bit k-1 of *mask* is set, shut elsewhere, together."""
        tiles = range(1, self.tiles + 1)
        self._tiles(tiles, [bool(mask >> (k - 1) & 1) for k in tiles])

    def press(self) -> None:
        self.levels({pins.ROLL_PIN: pins.SWITCH_ACTIVE})

    def release(self) -> None:
        self.levels({pins.ROLL_PIN: 1 - pins.SWITCH_ACTIVE})

    def click(self, ms: float = 120) -> None:
        """A short press of Roll held *ms* ms, at least PRESS_MS (as Script.click)."""
        self.press()
        self.advance(max(ms, PRESS_MS))
        self.release()

    def hold(self, ms: float = 1000) -> None:
        """A long press of Roll (one die where the rules allow it; as Script.hold)."""
        self.press()
        self.advance(ms)
        self.release()

    def run(self, script: Script | str) -> Shown:
        """Play *script* (a Script, or its readable text) from now; return what was shown."""
        play(self, script)
        return self.shown()


def play(box: Box, script: Script | str) -> None:
    """Play *script* on *box*: each of its primitive lines (what Script compiles to, boxrun's
    words) becomes the box's verb; pins driven at one instant are driven together."""
    if isinstance(script, str):
        script = Script().parse(script)
    held: dict[int, int] = {}
    for line in script.lines:
        c, *w = line.split()
        if c == "p":
            held[int(w[0])] = int(w[1])
            continue
        if held:
            box.levels(held)
            held = {}
        if c == "w":
            box.advance(int(w[0]))
        elif c == "E":
            box.edges(int(w[0]), [(int(w[i]), int(w[i + 1])) for i in range(1, len(w), 2)])
        elif c == "d":
            box.dice([int(f) for f in w])
        elif c == "r":
            box.power_cut()
        elif c == "R":
            box.reset()
        else:  # s, h, n, k N, e TEXT: questions
            box.ask(line)
    if held:
        box.levels(held)

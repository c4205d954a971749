# The scenario language: physical events on a box, as readable lines or calls.
"""A box's physical events, scripted: tiles flipped cleanly or with contact bounce, the Roll
button pressed, held or bouncing, time let pass, the dice's next faces, a reset or a power
cut, and questions to the box (its state, its heap). ``Script`` compiles them to the
simulated board's primitives (sim/boxrun.py: drive a pin, let time pass); physical detail
such as contact bounce is expanded here, on the host, so the harness inside the 64 KB heap
stays small.

Script commands (``Script.parse``; tiles numbered from 1):
  open K.. / shut K.. / flip K..   set tiles cleanly     bounce K MS / glitch K US
  press / release / click [MS] / hold [MS] / rollbounce MS      the Roll button
  wait MS / dice F.. / state / heap / lockcheck N / echo TEXT
  reset (machine.reset(): the chip restarts through its watchdog) / power_cut
"""

from __future__ import annotations

import random

from shutbox import debounce as _debounce
from shutbox import pins
from shutbox_host import contact

ROLL_MS = 700  # from a press to the throw shown (debounce + the 600 ms animation), rounded up
# A power-up's own work after its first turn's frame (the erases ahead of shutbox.ahead: the
# chip polls the flash), measured apart from any waiting screen's (bench idle)
SETTLE_MS = 1000
# The shortest press a host makes of a click, a tap or a key (the web page, the terminal box,
# Script.click): the firmware's own figure, which its debouncer always counts
PRESS_MS = _debounce._PRESS_MS


class Script:
    """Physical events on the box, compiled to boxrun's primitive commands."""

    def __init__(self, levels: int = -1, seed: int = 0,
                 profile: contact.Profile = contact.NEW):
        """*seed*: the contact model's draws (bounce, glitches); *profile*: how the
        contacts bounce (shutbox_host.contact)."""
        self.rng = random.Random(seed)
        self.profile = profile
        self.lines: list[str] = []
        self.open_ = levels & ((1 << pins.TILES) - 1)  # as set by boxrun --levels
        self.ms = 0  # virtual time so far: the ms that boxrun prints on its F and T lines

    def _pin(self, gpio: int, active: bool) -> None:
        level = pins.SWITCH_ACTIVE if active else 1 - pins.SWITCH_ACTIVE
        self.lines.append("p %d %d" % (gpio, level))

    def _tile(self, k: int, is_open: bool) -> None:
        if not 1 <= k <= pins.TILES:
            raise ValueError("no tile %d on a %d-tile box" % (k, pins.TILES))
        self.open_ = self.open_ | 1 << (k - 1) if is_open else self.open_ & ~(1 << (k - 1))
        self._pin(pins.TILE_PINS[k - 1], not is_open)

    def open(self, *tiles: int) -> Script:
        for k in tiles:
            self._tile(k, True)
        return self

    def shut(self, *tiles: int) -> Script:
        for k in tiles:
            self._tile(k, False)
        return self

    def flip(self, *tiles: int) -> Script:
        for k in tiles:
            self._tile(k, not self.open_ >> (k - 1) & 1)
        return self

    def wait(self, ms: int) -> Script:
        if ms > 0:
            self.lines.append("w %d" % ms)
            self.ms += ms
        return self

    def _edges(self, gpio: int, active: bool, edges: list[tuple[int, bool]],
               offset_us: int = 0) -> None:
        """Schedule a contact's *edges* (ns from now, True = *active*) on *gpio*, *offset_us*
        later: boxrun applies each when the virtual clock reaches it, between or inside the
        box's reads. Time does not pass here."""
        on = pins.SWITCH_ACTIVE
        words = []
        for t, v in edges:
            words += [str(offset_us + t // 1000), str(on if v == active else 1 - on)]
        self.lines.append("E %d %s" % (gpio, " ".join(words)))

    def _burst(self, gpio: int, active: bool, ms: int | None, offset_us: int = 0) -> None:
        """Switch *gpio* to *active* *offset_us* from now with a contact's bounce lasting
        *ms* ms (None: drawn from the profile); time passes until it has settled."""
        edges = contact.burst(self.rng, True, self.profile,
                              None if ms is None else ms * 1_000_000)
        self._edges(gpio, active, edges, offset_us)
        self.wait(-(-(edges[-1][0] + offset_us * 1000) // 1_000_000) + 1)

    def bounce(self, k: int, ms: int | None = None, offset_us: int = 0) -> Script:
        """Flip tile *k* with contact bounce lasting *ms* ms (None: drawn from the profile),
        its first edge *offset_us* from now (time passes)."""
        if not 1 <= k <= pins.TILES:
            raise ValueError("no tile %d on a %d-tile box" % (k, pins.TILES))
        was_open = bool(self.open_ >> (k - 1) & 1)
        self._burst(pins.TILE_PINS[k - 1], was_open, ms, offset_us)
        self.open_ ^= 1 << (k - 1)
        return self

    def glitch(self, k: int, us: int | None = None) -> Script:
        """A spike on tile *k* shorter than 1 ms (*us* µs; None: drawn) that ends where it
        started: the box must take nothing from it (1 ms passes)."""
        if not 1 <= k <= pins.TILES:
            raise ValueError("no tile %d on a %d-tile box" % (k, pins.TILES))
        is_open = bool(self.open_ >> (k - 1) & 1)
        edges = contact.glitch(self.rng, False, None if us is None else us * 1000)
        self._edges(pins.TILE_PINS[k - 1], is_open, edges)
        self.wait(1)
        return self

    def press(self) -> Script:
        self._pin(pins.ROLL_PIN, True)
        return self

    def release(self) -> Script:
        self._pin(pins.ROLL_PIN, False)
        return self

    def click(self, ms: int = 120) -> Script:
        """A short press of Roll held for *ms* ms, at least PRESS_MS (as a host's click: a
        shorter pulse is press, wait and release)."""
        return self.press().wait(max(ms, PRESS_MS)).release()

    def hold(self, ms: int = 1000) -> Script:
        """A long press of Roll (one die where the rules allow it)."""
        return self.press().wait(ms).release()

    def rollbounce(self, ms: int | None, held: int = 150, offset_us: int = 0) -> Script:
        """A short press whose contacts bounce for *ms* ms (None: drawn from the profile) on
        the way down and up, its first edge *offset_us* from now."""
        self._burst(pins.ROLL_PIN, True, ms, offset_us)
        self.wait(held)
        self._burst(pins.ROLL_PIN, False, ms, offset_us)
        return self

    def dice(self, *faces: int) -> Script:
        """The next throws' faces, in order (die A then die B)."""
        self.lines.append("d " + " ".join(str(f) for f in faces))
        return self

    def reset(self) -> Script:
        """machine.reset() between two polls, as ``mpremote reset`` or a flash does (on rp2
        through the watchdog: REASON FORCE)."""
        self.lines.append("R")
        return self

    def power_cut(self) -> Script:
        """The power goes and comes back (the watchdog's registers read 0)."""
        self.lines.append("r")
        return self

    def state(self) -> Script:
        self.lines.append("s")
        return self

    def heap(self) -> Script:
        self.lines.append("h")
        return self

    def loop_count(self) -> Script:
        """Ask for the loop's passes and the app's steps so far (answer N passes steps)."""
        self.lines.append("n")
        return self

    def lockcheck(self, n: int) -> Script:
        self.lines.append("k %d" % n)
        return self

    def echo(self, text: str) -> Script:
        self.lines.append("e " + text)
        return self

    def text(self) -> str:
        return "\n".join(self.lines + ["q"]) + "\n"

    def parse(self, text: str) -> Script:
        """Add readable commands, one per line (# starts a comment)."""
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            word, *rest = line.split()
            if word == "echo":
                self.echo(line[5:])
                continue
            fn = getattr(self, word, None)
            if word.startswith("_") or word in ("text", "parse") or fn is None:
                raise ValueError("unknown script command %r" % word)
            args = [int(x) for x in rest]
            fn(*args)
        return self

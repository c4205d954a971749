# What `shutbox play` draws: the box's LEDs, tiles, dice and game log, laid out for the terminal.
"""The picture of the simulated box as lines of text, fitted to the terminal's size.

``Screen.feed`` takes boxrun's output (LED frames, tones, the firmware's JSON log, and the
``POWER`` markers shutbox_host.box.play echoes through it), ``Screen.render(cols, rows)``
returns the lines to draw: the **full** layout when the terminal is big enough for it, the
**compact** one down to ``minimum()`` (80 x 24 is well inside it), and below that one line
saying the size needed. Every layout keeps the tile LEDs and both dice on screen; only the
game log gets shorter. ``hits`` maps screen cells to the controls they stand for (mouse
clicks: a tile, Roll, the power switch).
"""

from __future__ import annotations

import re
import textwrap

from shutbox import pins, powerup
from shutbox_host.box import boxsim
from shutbox_host.model import words

_COLOUR = {"W": "97", "G": "92", "R": "91", "Y": "93", "B": "94", "M": "95", "C": "96"}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LED = "\u25cf"  # a lit LED
_DARK = "\u00b7"  # an LED that is off
_LOG_KEEP = 60
_STATUS = 3  # lines of status under the box: what it does, what the keys do now

# power-up modes (shutbox.powerup's private _PLAY .. _FACTORY); GAME: the game is running
GAME, MENU, SELFTEST, RECORDS, ERASE, FACTORY = (words.GAME, words.MENU, words.SELFTEST,
                                                 words.RECORDS, words.ERASE, words.FACTORY)

# power-up modes (shutbox.powerup's private _PLAY .. _FACTORY); GAME: the game is running
GAME, MENU, SELFTEST, RECORDS, ERASE, FACTORY = (words.GAME, words.MENU, words.SELFTEST,
                                                 words.RECORDS, words.ERASE, words.FACTORY)

KEYS = ("keys: 1-9 tiles{more} | space Roll | Enter or L hold Roll (one die) | r Roll "
        "held down / let go | p power | q quit | or click a tile, Roll or power")
KEYS_SHORT = "1-9 tiles | space Roll | Enter hold Roll | r Roll down/up | p power | q quit"
LEGEND = "LEDs: " + " | ".join("%s = %s" % (name, text) for _, name, text in words.LEGEND)
_VOC = words.vocabulary()


def width(text: str) -> int:
    """Return the columns *text* takes (ANSI escapes take none)."""
    return len(_ANSI.sub("", text))


def fit(text: str, cols: int) -> str:
    """Return *text* cut to *cols* visible columns, its escapes kept (colour reset at a cut)."""
    if width(text) <= cols:
        return text
    out, n, i = [], 0, 0
    while i < len(text) and n < cols:
        m = _ANSI.match(text, i)
        if m:
            out.append(m.group())
            i = m.end()
            continue
        out.append(text[i])
        n += 1
        i += 1
    return "".join(out) + ("\x1b[0m" if "\x1b[" in text else "")


def wrap(text: str, cols: int, indent: str = "  ") -> list[str]:
    """Return plain *text* wrapped to *cols* columns, every line indented."""
    return textwrap.wrap(text, max(10, cols - len(indent)), initial_indent=indent,
                         subsequent_indent=indent + "  ") or [""]


class Screen:
    """What the box shows (LEDs, buzzer, log) and where its switches are, as text."""

    def __init__(self, color: bool, tiles: int = pins.TILES):
        self.color = color
        self.n = tiles
        self.tiles = "." * tiles  # the LEDs, as palette letters
        self.die_a = self.die_b = "......."
        self.open_ = (1 << tiles) - 1  # the tiles' switches (bit set = up)
        self.roll_down = False  # Roll held down (the r key)
        self.power = True
        self.mode = GAME
        self.tone = 0
        self.tones = 0  # buzzer onsets heard (the terminal bell with --bell)
        self.ctx: dict = {}  # what the log is read with (words.track: the computer's seats)
        self.mem: dict = {}  # what the power-up screen's frames said (words.see)
        self.settings: list[int] = []  # the values of the last settings record
        self.log: list[str] = []
        self.hits: list[tuple[int, int, int, str]] = []  # (row, first col, last col, action)

    # ----- input -----

    def feed(self, text: str) -> bool:
        """Take boxrun output (one line or many); return True if the picture changed."""
        changed = False
        chunk: list[str] = []
        for line in text.splitlines() + ["POWER -"]:  # a last marker: the chunk's end
            if not line.startswith("POWER "):
                chunk.append(line)
                continue
            if chunk:  # decoded in one go (the self-test writes the LEDs every 2 ms)
                volume: list = []
                frames, tones, log, _ = boxsim.parse("\n".join(chunk), volume=volume)
                if len(volume) == len(tones):  # a silent buzzer (sound off) rings no bell
                    tones = [(ms, hz if duty else 0)
                             for (ms, hz), (_, duty) in zip(tones, volume, strict=True)]
                changed |= self._apply(frames, tones, log)
                chunk = []
            w = line.split()
            if w[1] != "-":
                self.power = w[1] == "1"
                if self.power:
                    self.mode = int(w[2])
                self.tone = 0
                changed = True
        return changed

    def _apply(self, frames: list, tones: list, log: list) -> bool:
        for _, self.tiles, self.die_a, self.die_b in frames:
            words.see(self.mode, self.tiles, self.die_a, self.die_b, self.mem)
        for _, hz in tones:
            if hz and hz != self.tone:
                self.tones += 1
            self.tone = hz
        for rec in log:
            self._record(rec)
        return bool(frames or tones or log)

    def _record(self, rec: dict) -> None:
        ev = rec.get("ev")
        if ev == "settings":
            self.mode = GAME
            self.settings = list(rec["values"])
        words.track(rec, self.ctx)
        self.log.append(words.say(rec, self.ctx, _VOC))
        del self.log[:-_LOG_KEEP]

    # ----- pieces -----

    def _led(self, letter: str) -> str:
        if not self.color:
            return letter
        if letter == ".":
            return "\x1b[90m%s\x1b[0m" % _DARK
        return "\x1b[%sm%s\x1b[0m" % (_COLOUR.get(letter, "97"), _LED)

    def _pips(self, pips: str) -> list[str]:
        grid = ((0, None, 1), (2, 3, 4), (5, None, 6))
        return [" ".join(" " if i is None else self._led(pips[i]) for i in row) for row in grid]

    def _shut(self, k: int) -> bool:
        return not self.open_ >> k & 1

    def title(self) -> str:
        """The heading: what is playing."""
        if self.settings:
            return "SHUT THE BOX on a simulated Pico: " + words.settings_text(self.settings,
                                                                              _VOC)
        return "SHUT THE BOX on a simulated Pico"

    def switches(self) -> str:
        """The power switch, Roll and the buzzer, in words."""
        return "power %s | Roll %s | buzzer %s" % (
            "on" if self.power else "OFF", "HELD DOWN" if self.roll_down else "up",
            "%d Hz" % self.tone if self.tone else "quiet")

    def buttons(self) -> str:
        """The clickable Roll and power buttons."""
        return "[ Roll ]  [ power %s ]" % ("on " if self.power else "off")

    def status(self, cols: int) -> list[str]:
        """Up to _STATUS lines: what the box is doing and what the keys do now."""
        def say(key):
            return words.fill(_VOC["screens"][key], words.TERMINAL, {}, _VOC)

        if not self.power:
            return wrap(say("off"), cols)
        if self.mode == GAME:
            return wrap(say("held" if self.roll_down else "game"), cols)
        lines = words.screen_lines(self.mode, self.tiles, self.die_a, self.die_b, self.mem,
                                   words.TERMINAL, _VOC)
        if self.mode == MENU:  # a line each, cut to the width (the values' line is long)
            if self.roll_down:
                lines[-1] = "r: let Roll go first"
            return ["  " + x for x in lines]
        return [x for line in lines for x in wrap(line, cols)]

    # ----- layouts -----

    def _tile_cells(self, cell: int) -> tuple[str, str]:
        leds, faces = [], []
        for k in range(self.n):
            leds.append("  " + self._led(self.tiles[k]) + " " * (cell - 3))  # over the digit
            if cell >= 5:
                faces.append("|///|" if self._shut(k) else "|%2d |" % (k + 1))
            else:
                faces.append("[//]" if self._shut(k) else "[%2d]" % (k + 1))
        return " ".join(leds), " ".join(faces)

    def _hit_tiles(self, row: int, first: int, cell: int) -> None:
        for k in range(self.n):
            col = first + k * (cell + 1)
            self.hits.append((row, col, col + cell - 1, "tile %d" % (k + 1)))

    def _hit_buttons(self, lines: list[str]) -> None:
        for row, line in enumerate(lines):
            plain = _ANSI.sub("", line)
            at = plain.find("[ Roll ]")
            if at >= 0:
                self.hits.append((row, at, at + 7, "roll"))
                end = plain.index("]", at + 10)
                self.hits.append((row, at + 10, end, "power"))

    def full(self, cols: int, log_rows: int = 10) -> list[str]:
        """The full layout: boxed tiles, dice below, the legend; *log_rows* of the log."""
        self.hits = []
        cell = 5
        leds, faces = self._tile_cells(cell)
        edge = " ".join("+---+" for _ in range(self.n))
        ups = " ".join(" shut" if self._shut(k) else "  up " for k in range(self.n))
        out = ["  " + self.title(), ""]
        out += ["   " + leds, "   " + edge, "   " + faces, "   " + edge, "   " + ups, ""]
        for row in range(2, 7):
            self._hit_tiles(row, 3, cell)
        a, b = self._pips(self.die_a), self._pips(self.die_b)
        out.append("      die A     die B      " + self.switches())
        for i, (ra, rb) in enumerate(zip(a, b, strict=True)):
            out.append("      %s     %s" % (ra, rb) + ("      " + self.buttons() if i == 1
                                                      else ""))
        out.append("")
        out += (self.status(cols) + ["", ""])[:_STATUS]
        out.append("")
        out += self._log_lines(log_rows)
        out.append("")
        out += wrap(self.keys(), cols) + wrap(LEGEND, cols)
        self._hit_buttons(out)
        return out

    def compact(self, cols: int, log_rows: int) -> list[str]:
        """The compact layout: small tiles with the dice beside them; *log_rows* of the log."""
        self.hits = []
        cell = 4
        leds, faces = self._tile_cells(cell)
        tw = self.n * (cell + 1) - 1
        a, b = self._pips(self.die_a), self._pips(self.die_b)
        left = [leds, faces, self.switches(), self.buttons()]
        right = ["die A   die B", a[0] + "   " + b[0], a[1] + "   " + b[1], a[2] + "   " + b[2]]
        out = [" " + fit(self.title(), cols - 1)]
        for row_l, row_r in zip(left, right, strict=True):
            row_l = fit(row_l, tw)
            out.append(" " + row_l + " " * (tw - width(row_l)) + "   " + row_r)
        self._hit_tiles(1, 1, cell)
        self._hit_tiles(2, 1, cell)
        out.append("")
        out += (self.status(cols) + ["", ""])[:_STATUS]
        out += self._log_lines(log_rows)
        out += (wrap(self.keys() if width(self.keys()) <= 2 * cols - 8 else KEYS_SHORT,
                     cols, " ") + [""])[:2]
        self._hit_buttons(out)
        return out

    def keys(self) -> str:
        return KEYS.format(more=" (0 - = for 10-12)" if self.n > 9 else "")

    def _log_lines(self, rows: int) -> list[str]:
        lines = ["  " + x for x in self.log[-rows:]] if rows > 0 else []
        return lines + [""] * (rows - len(lines))

    def compact_size(self, log_rows: int = 3) -> tuple[int, int]:
        """Return (cols, rows) the compact layout needs with *log_rows* of the log."""
        tiles = self.n * 5 - 1
        return 1 + tiles + 3 + 13, 6 + _STATUS + log_rows + 2

    def minimum(self) -> tuple[int, int]:
        """Return the smallest terminal (cols, rows) the box is drawn in."""
        return self.compact_size(3)

    def render(self, cols: int, rows: int) -> list[str]:
        """Return the lines to draw on a *cols* x *rows* terminal (at most *rows*, each at
        most *cols* columns): full, compact, or one line saying the size needed."""
        full_rows = len(self.full(cols, 8))
        if cols >= 80 and rows >= full_rows:
            lines = self.full(cols, 8 + rows - full_rows)
        else:
            need_c, need_r = self.minimum()
            if cols < need_c or rows < need_r:
                self.hits = []
                size = (need_c, need_r, cols, rows)
                for say in ("shutbox play needs a terminal of at least %d x %d (this one is "
                            "%d x %d); q quits",
                            "needs a terminal of at least %d x %d (this one is %d x %d)",
                            "needs %d x %d (this: %d x %d)", "needs %dx%d"):
                    line = say % size[:say.count("%")]
                    if len(line) <= cols:
                        break
                return [fit(line, cols)]
            lines = self.compact(cols, rows - self.compact_size(0)[1])
        return [fit(x, cols) for x in lines[:rows]]

    def text(self, cols: int = 100) -> str:
        """The whole picture as one string, the full layout with the log kept (the --keys
        run's final screen)."""
        lines = self.full(cols, max(1, len(self.log)))
        return "\n".join(fit(x, cols).rstrip() for x in lines) + "\n"


def mode_at_power_on(open_: int, roll_down: bool, tiles: int = pins.TILES) -> int:
    """Return the power-up mode the firmware picks for these switches (shutbox.powerup)."""
    return powerup.combination(open_, roll_down, tiles)

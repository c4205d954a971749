# `shutbox play` (make play): the box in this terminal, the real firmware on a simulated board.
"""Play Shut the Box in a terminal: the Pico's firmware runs under MicroPython on the
simulated board (sim/boxrun.py) in real time, booting as the box does (``--powerup``: the
power-up combinations, the settings and records in a flash folder kept between runs); keys or
mouse clicks flip the tiles, press Roll and work the power switch, and the tiles, their LEDs and
the dice are drawn with ANSI colours (shutbox_host.box.screen), fitted to the terminal.

Keys: 1-9 flip tile 1-9 (0, -, = flip tiles 10-12 on bigger boxes); space presses Roll;
Enter or L holds Roll down for a second (a long press: one die, where the rules allow it);
r holds Roll down until pressed again; p switches the power off and on (r then p: the settings
menu, as holding Roll while switching the box on); q quits. ``--keys`` plays a fixed sequence
of keys instead, on a virtual clock, on a blank box unless ``--flash`` is given, and prints
the final screen as plain text: it needs no terminal (tests, demos, CI).

Settings given as options (``--moves kids``, the names of ``shutbox solve`` and the card) are
written to the box's settings file as its menu saves them, before it is switched on.
Needs termios (Linux, macOS, WSL); ``--keys`` runs anywhere. Drawn with plain ANSI escapes
(the alternate screen, every line placed by address, SGR mouse reports) rather than a TUI
library: the picture is one small fixed grid, and `make play` stays free of dependencies.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shutbox import pins
from shutbox_host.box import boxsim, screen
from shutbox_host.errors import UserError
from shutbox_host.model.drive import Driver, Shown, Unsupported
from shutbox_host.model.script import PRESS_MS, Script

_KEY_TILES = "1234567890-="  # key -> tile 1..12
_CLICK_MS = 120
_HOLD_MS = 1000
_DRAW_S = 0.03  # at most one redraw per 30 ms
_BELL_S = 0.12  # at most one bell per 120 ms (a fanfare's notes would ring as one)
_GAME = "game"  # shutbox.resume's file: the game in progress (the menu removes it on a change)
_TILES_FILE = "play-tiles.json"  # where the tiles were left (a box's tiles stay put when off)
_MOUSE_ON = "\x1b[?1000h\x1b[?1006h"  # button presses and releases, SGR coordinates
_MOUSE_OFF = "\x1b[?1006l\x1b[?1000l"
_SGR_MOUSE = re.compile(r"\x1b\[<(\d+);(\d+);(\d+)([Mm])")


def default_flash() -> Path:
    """The box's flash between runs: play-flash in the tools' cache (shutbox_host.mp)."""
    from shutbox_host import mp

    return mp.cache_dir() / "play-flash"


def configure(parser):
    """Add the play flags: how to run, then every setting in the CLI's one vocabulary."""
    from shutbox import setnames
    from shutbox.setfile import index
    from shutbox.settings import ATTRS, Settings
    from shutbox_host.model.words import MEANINGS

    parser.add_argument("--keys", help="play these keys on a virtual clock and print the "
                        "final screen (no terminal needed; a blank box unless --flash is "
                        "given); '.' waits a second")
    parser.add_argument("--dice", default="", help="faces the dice throw first, e.g. 5,4,6,6")
    parser.add_argument("--seed", type=int, default=0,
                        help="repeatable dice from this seed (default: real randomness)")
    parser.add_argument("--bell", action="store_true",
                        help="ring the terminal bell when the buzzer sounds (the box's own "
                        "--sound setting off: silent)")
    parser.add_argument("--flash", metavar="DIR", help="the box's flash: settings, records "
                        "and the game in progress (default %s)" % default_flash())
    parser.add_argument("--fresh", action="store_true",
                        help="start from a blank box (erase the flash folder's box files)")
    parser.add_argument("--heap", default="256k",
                        help="MicroPython heap (default 256k: a Pico has about 190 KB)")
    parser.add_argument("--log", metavar="FILE",
                        help="append the box's game log to FILE: its JSON lines as it prints "
                        "them (docs/log-format.md; shutbox report reads it)")
    parser.add_argument("--no-color", action="store_true", help="letters instead of colours")
    parser.add_argument("--no-mouse", action="store_true", help="do not take mouse clicks")
    group = parser.add_argument_group(
        "settings", "saved on the box as its menu saves them (the rest stay as saved; a new "
        "box starts with the value in brackets)")
    defaults = Settings()
    for i, option in enumerate(setnames.OPTIONS):
        names = setnames.CHOICES[i]
        group.add_argument("--" + option, dest="set_" + ATTRS[i], choices=names,
                           metavar="{%s}" % ",".join(names),
                           help="%s [%s]" % (MEANINGS[option], names[index(defaults, i)]))
    group.add_argument("--code", dest="set_code", metavar="{off,NNNN}",
                       help="a challenge code: four digits (the dice follow it: the same "
                       "throws on every box with the code; `shutbox daily` prints today's), or "
                       "off [off]")


# ----- checking the options and preparing the box -----


def heap(text: str) -> str:
    """Return *text* as MicroPython's -X heapsize takes it (shutbox_host.mp.heap_size's
    rules); UserError in one line if not."""
    import argparse

    from shutbox_host import mp

    try:
        return mp.heap_size(text)
    except argparse.ArgumentTypeError as exc:
        raise UserError("--heap: %s" % exc) from None


def faces(text: str) -> list[int]:
    """Return the --dice faces; UserError unless each is 1 to 6."""
    if not text:
        return []
    try:
        out = [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise UserError("--dice takes faces 1 to 6, e.g. 5,4,6,6") from None
    if any(not 1 <= f <= 6 for f in out):
        raise UserError("--dice takes faces 1 to 6, e.g. 5,4,6,6")
    return out


def given_settings(args) -> dict[str, int]:
    """Return {Settings attribute: value} for the settings given as options."""
    from shutbox import setnames
    from shutbox.settings import ATTRS

    out = {}
    for i, attr in enumerate(ATTRS):
        name = getattr(args, "set_" + attr, None)
        if name is not None:
            v = setnames.CHOICES[i].index(name)
            out[attr] = v + 1 if i == 0 else v
    code = getattr(args, "set_code", None)
    if code is not None:
        try:
            out["code"] = setnames.parse("code=" + code).code
        except ValueError as exc:
            raise UserError("--code: %s" % exc) from None
    return out


def wipe(flash: Path) -> None:
    """Erase the box's files in *flash* (the data folder, error.log, the tiles), nothing else."""
    shutil.rmtree(flash / "data", ignore_errors=True)
    for name in ("error.log", _TILES_FILE):
        (flash / name).unlink(missing_ok=True)


def save_settings(flash: Path, given: dict[str, int]) -> None:
    """Write the *given* settings over the saved ones, as the menu saves them (a change ends
    the game saved in progress); UserError in words when they do not fit together."""
    from shutbox import setfile, setnames
    from shutbox.settings import ATTRS, Settings
    from shutbox.store import Store

    store = Store(str(flash / "data"))
    saved, _ = setfile.load(store, pins.TILES)
    values = {a: getattr(saved, a) for a in ATTRS}
    values.update(given)
    try:
        new = setnames.check(Settings(**values), pins.TILES)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if setfile.pack(new) != setfile.pack(saved) or store.status != 0:
        if setfile.save(new, store) != 0:
            raise UserError("cannot write the settings in %s" % flash)
        store.remove(_GAME)


def load_tiles(flash: Path) -> int:
    """Return where the tiles were left in *flash* (bit set = up); every tile up if unknown."""
    full = (1 << pins.TILES) - 1
    try:
        return int(json.loads((flash / _TILES_FILE).read_text())["open"]) & full
    except (OSError, ValueError, KeyError, TypeError):
        return full


def save_tiles(flash: Path, open_: int) -> None:
    try:
        (flash / _TILES_FILE).write_text(json.dumps({"open": open_}) + "\n")
    except OSError:
        pass  # the tiles start up next time: nothing is lost that the box keeps


def prepare(args, flash: Path) -> None:
    """Make the flash folder (blank with --fresh) and write the settings given."""
    try:
        flash.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError("--flash %s: %s" % (flash, exc.strerror)) from None
    if args.fresh:
        wipe(flash)
    given = given_settings(args)
    if given:
        save_settings(flash, given)


def _boxrun_args(args, flash: Path, open_: int, realtime: bool) -> list[str]:
    out = ["--powerup", "--flash", str(flash), "--levels", str(open_)]
    if realtime:
        out.insert(0, "--realtime")
    if args.seed:
        out += ["--seed", str(args.seed)]
    elif not realtime:  # the virtual clock's dice need a seed: a random one, as --seed says
        import secrets

        out += ["--seed", str(1 + secrets.randbelow(2**30 - 1))]
    return out


def open_log(path: str | None):
    """The game log file (appended to), or None; UserError if it cannot be written."""
    if not path:
        return None
    try:
        return open(path, "a", encoding="utf-8")  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise UserError("--log %s: %s" % (path, exc.strerror or exc)) from None


def write_log(out, lines) -> None:
    """Append the box's log records among *lines* (its JSON lines) to *out*, flushed."""
    if out is None:
        return
    for line in lines:
        if line.startswith("{"):
            out.write(line.rstrip("\r\n") + "\n")
    out.flush()


def firmware_error(stderr: str, heapsize: str) -> UserError:
    """The one line that says why the firmware stopped."""
    tail = stderr.strip().splitlines()
    if any("MemoryError" in x for x in tail[-3:]):
        return UserError("the firmware ran out of memory on a %s heap: give --heap 256k or "
                         "more" % heapsize)
    return UserError("the firmware stopped: " + (tail[-1] if tail else "no message"))


# ----- the scripted run -----


class ScriptedBox:
    """Keys turned into a box script on the virtual clock (shutbox_host.model.script.Script)."""

    def __init__(self, open_: int, dice: list[int]):
        self.s = Script(open_).wait(100)
        if dice:
            self.s.dice(*dice)
        self.roll_down = False
        self.on = True

    @property
    def open_(self) -> int:
        return self.s.open_

    def key(self, key: str) -> None:
        s = self.s
        if key in _KEY_TILES[:pins.TILES]:
            s.flip(_KEY_TILES.index(key) + 1).wait(300)
        elif key == " ":
            if not self.roll_down:
                s.click(_CLICK_MS)
            s.wait(1000)
        elif key in "\r\nlL":
            if not self.roll_down:
                s.hold(_HOLD_MS)
            s.wait(800)
        elif key in "rR":
            self.roll_down = not self.roll_down
            (s.press() if self.roll_down else s.release()).wait(300)
        elif key in "pP":
            if self.on:
                s.lines += ["o", "e POWER 0"]
            else:
                mode = screen.mode_at_power_on(self.open_, self.roll_down)
                s.lines += ["e POWER 1 %d" % mode, "r"]
            self.on = not self.on
            s.wait(1000)
        elif key == ".":
            s.wait(1000)
        else:
            raise UserError("--keys: no key %r (1-9, space, Enter/L, r, p, '.', q)" % key)


def run_keys(args, flash: Path, persistent: bool) -> int:
    """Play --keys on the virtual clock and print the final screen."""
    box = ScriptedBox(load_tiles(flash) if persistent else (1 << pins.TILES) - 1,
                      faces(args.dice))
    start = box.open_
    for key in args.keys:
        if key in "qQ":
            break
        box.key(key)
    box.s.wait(300)
    out = open_log(args.log)
    try:
        r = boxsim.run(box.s, *_boxrun_args(args, flash, start, realtime=False),
                       heapsize=args.heap)
        write_log(out, r.stdout.splitlines())
    finally:
        if out is not None:
            out.close()
    if r.returncode != 0:
        raise firmware_error(r.stderr, args.heap)
    view = screen.Screen(color=not args.no_color and sys.stdout.isatty())
    view.feed(r.stdout)
    view.open_, view.roll_down = box.open_, box.roll_down
    if persistent:
        save_tiles(flash, box.open_)
    if args.bell:
        sys.stdout.write("\a" * view.tones)
    sys.stdout.write(view.text())
    return 0


# ----- the interactive run -----


class Box:
    """The firmware running in real time behind a pipe, and the box's switches.

    Each level of Roll stays on the pin at least script.PRESS_MS (the firmware's shortest
    press, which its debouncer always counts): a mouse click whose press and release come
    together, or r pressed twice at once, is still a press, and each of two quick ones too.
    """

    def __init__(self, args, flash: Path, open_: int):
        argv, env = boxsim.command(*_boxrun_args(args, flash, open_, realtime=True),
                                   heapsize=args.heap)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, **boxsim.tied())
        self.buf = b""
        self.open_ = open_
        self.roll_down = False  # held down by the r key (or the mouse)
        self.on = True
        self.release_at = 0.0
        self.roll_levels: list[bool] = []  # Roll's levels still to go on the pin, in order
        self.roll_pin = False  # Roll's level on the pin (down)
        self.roll_at = float("-inf")  # when it went there (time.monotonic())

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(x + "\n" for x in lines).encode())
        self.proc.stdin.flush()

    def pin(self, gpio: int, active: bool) -> None:
        self.send("p %d %d" % (gpio, pins.SWITCH_ACTIVE if active else 1 - pins.SWITCH_ACTIVE))

    def flip(self, k: int) -> None:
        self.open_ ^= 1 << (k - 1)
        self.pin(pins.TILE_PINS[k - 1], not self.open_ >> (k - 1) & 1)

    def roll_to(self, down: bool) -> None:
        """Put Roll *down* (or up) on the pin after the levels before it, each held long
        enough (tick() does it when due)."""
        last = self.roll_levels[-1] if self.roll_levels else self.roll_pin
        if down != last:
            self.roll_levels.append(down)
        self.tick()

    def roll(self, ms: int) -> None:
        """Press Roll for *ms* ms (not while it is down already)."""
        if self.release_at or self.roll_down:
            return
        now = time.monotonic()
        self.release_at = now + ms / 1000
        if self.roll_levels or self.roll_pin:  # after the levels still to go (tick)
            self.roll_to(True)
            return
        # one command: the press and its release on the box's own clock, *ms* apart there,
        # so that a stall of this process cannot fold them into one reading of the box's
        down = pins.SWITCH_ACTIVE
        self.send("E %d 0 %d %d %d" % (pins.ROLL_PIN, down, ms * 1000, 1 - down))
        self.roll_at = self.release_at  # up from then: the next level PRESS_MS after it

    def hold(self, down: bool) -> None:
        """Hold Roll down, or let it go."""
        self.release_at = 0.0
        self.roll_down = down
        self.roll_to(down)

    def power(self) -> None:
        """The power switch: off, or on (the firmware picks the power-up screen the switches
        ask for; the POWER marker tells the screen which, in the order of the output)."""
        if self.on:
            self.send("o", "e POWER 0")
        else:
            self.send("e POWER 1 %d" % screen.mode_at_power_on(self.open_, self.roll_down), "r")
        self.on = not self.on

    def tick(self) -> None:
        """Let Roll go when its press is over; put its next level on the pin when due."""
        now = time.monotonic()
        if self.release_at and now >= self.release_at:
            self.release_at = 0.0
            self.roll_to(False)
            return
        if self.roll_levels and now - self.roll_at >= PRESS_MS / 1000:
            self.roll_pin = self.roll_levels.pop(0)
            self.roll_at = now
            self.pin(pins.ROLL_PIN, self.roll_pin)

    def read_lines(self) -> list[str] | None:
        """Return the complete lines waiting on the pipe; None once the firmware has ended."""
        assert self.proc.stdout is not None
        data = os.read(self.proc.stdout.fileno(), 65536)
        if not data:
            return None
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        return [x.decode(errors="replace") for x in lines]

    def close(self) -> str:
        """Stop the firmware; return what it wrote on stderr."""
        try:
            self.send("q")
        except (BrokenPipeError, OSError):
            pass
        try:
            _, err = self.proc.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err.decode(errors="replace")


class TermBox(Driver):
    """The terminal box's firmware (``Box``: boxrun in real time, booted as ``shutbox play``
    boots it) driven by shutbox_host.model.drive's verbs, on the wall clock.

    Its clock starts at the first turn's record; a wait is real time (``advance`` sleeps,
    reading the box meanwhile), so a script plays as a person at the keys would, Roll's
    levels each held at least script.PRESS_MS as the keys are. It takes the dice and the
    simulated board's questions; it has no µs edges (``edges``: the wall clock cannot place
    them) and no machine.reset()."""

    name = "terminal box"

    def __init__(self, flash: Path | None = None, heapsize: str = "256k", seed: int = 1,
                 ready: str = '"ev": "turn"', timeout_s: float = 30):
        """*flash*: the box's flash folder (as --flash; None: a blank one of its own, removed
        at ``close``); *seed*: the dice's; *ready*: the output line (a regular expression)
        that starts the script's clock."""
        import argparse

        args = argparse.Namespace(heap=heapsize, seed=seed)
        self._tmp = None if flash else tempfile.TemporaryDirectory(prefix="shutbox-term-")
        where = Path(flash) if flash else Path(self._tmp.name)  # type: ignore[union-attr]
        self.box = Box(args, where, (1 << pins.TILES) - 1)
        self.out = Shown()
        self._t0 = time.monotonic()
        self._box0 = None  # the wall clock's time at the box's ms 0 (its first frame's)
        rx = re.compile(ready)
        deadline = self._t0 + timeout_s
        while not any(rx.search(json.dumps(r)) for r in self.out.log):
            if time.monotonic() > deadline:
                self.close()
                raise UserError("the terminal box was not ready in %d s" % timeout_s)
            self._read(0.05)
        self._t0 = time.monotonic()
        for rec in self.out.log:
            rec["_ms"] = 0

    @property
    def ms(self) -> float:  # type: ignore[override]
        return (time.monotonic() - self._t0) * 1000

    def _read(self, timeout: float) -> None:
        """Read what the box printed within *timeout* s, on the script's clock."""
        assert self.box.proc.stdout is not None
        ready, _, _ = select.select([self.box.proc.stdout.fileno()], [], [], timeout)
        if not ready:
            return
        lines = self.box.read_lines()
        if lines is None:
            raise UserError("the terminal box's firmware stopped: " + self.box.close())
        frames, tones, log, other = boxsim.parse("\n".join(lines))
        if frames and self._box0 is None:
            self._box0 = time.monotonic() - frames[0][0] / 1000
        shift = ((self._box0 or 0) - self._t0) * 1000  # box ms -> script ms
        self.out.frames += [(f[0] + shift, *f[1:]) for f in frames]
        self.out.tones += [(ms + shift, hz) for ms, hz in tones]
        self.out.log += [dict(r, _ms=self.ms) for r in log]
        self.out.lines += other

    # ---- the verbs ----

    def levels(self, levels: dict[int, int]) -> None:
        for g, v in levels.items():
            if g == pins.ROLL_PIN:
                self.box.roll_to(v == pins.SWITCH_ACTIVE)  # held PRESS_MS at least (tick)
            else:
                self.box.send("p %d %d" % (g, v))

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        raise Unsupported("terminal box: no contact bounce on the wall clock")

    def advance(self, ms: int) -> None:
        end = time.monotonic() + ms / 1000
        while True:
            self.box.tick()
            left = end - time.monotonic()
            if left <= 0:
                return
            self._read(min(left, 0.005))

    def power_cut(self) -> None:
        self.box.send("r")

    def dice(self, faces: list[int]) -> None:
        self.box.send("d " + " ".join(str(f) for f in faces))

    def ask(self, line: str) -> None:
        self.box.send(line)

    def shown(self) -> Shown:
        self._read(0)
        return self.out

    def close(self) -> None:
        self.box.close()
        if self._tmp is not None:
            self._tmp.cleanup()


class Terminal:
    """This terminal: cbreak input, the alternate screen, redraws of the changed lines only."""

    def __init__(self, mouse: bool):
        import termios
        import tty

        self.fd = sys.stdin.fileno()
        self.out = sys.stdout
        self.mouse = mouse
        self._termios = termios
        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        self.resized = True
        self._old_winch = signal.signal(signal.SIGWINCH, self._winch)
        # the alternate screen, no cursor, no line wrap: a redraw can never scroll
        self.write("\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[2J" + (_MOUSE_ON if mouse else ""))
        self.shown: list[str] = []

    def _winch(self, signum, frame) -> None:
        self.resized = True

    def write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def size(self) -> tuple[int, int]:
        try:
            cols, rows = os.get_terminal_size(self.out.fileno())
        except OSError:
            cols, rows = 80, 24
        return cols, rows

    def draw(self, lines: list[str], cols: int) -> None:
        """Show *lines* from the top: each line moved to by address, none ever scrolls. A
        line as wide as the terminal is not followed by an erase: with line wrap off the
        cursor stays on the last column, which the erase would clear."""
        if self.resized:
            self.resized = False
            self.shown = []
            self.out.write("\x1b[2J")
        parts = []
        for i, line in enumerate(lines):
            if i >= len(self.shown) or self.shown[i] != line:
                erase = "" if screen.width(line) >= cols else "\x1b[K"
                parts.append("\x1b[%d;1H%s\x1b[0m%s" % (i + 1, line, erase))
        if len(self.shown) > len(lines):
            parts.append("\x1b[%d;1H\x1b[J" % (len(lines) + 1))
        self.shown = list(lines)
        self.write("".join(parts))

    def close(self) -> None:
        self._termios.tcsetattr(self.fd, self._termios.TCSADRAIN, self._saved)
        signal.signal(signal.SIGWINCH, self._old_winch)
        self.write((_MOUSE_OFF if self.mouse else "") + "\x1b[0m\x1b[?7h\x1b[?1049l\x1b[?25h")


def _keys(data: str):
    """Split terminal input into keys and mouse events ("mouse", press, row, col), 0-based."""
    i = 0
    while i < len(data):
        m = _SGR_MOUSE.match(data, i)
        if m:
            button = int(m.group(1))
            if button & 3 == 0 and not button & 32:  # the left button, not a drag
                yield ("mouse", m.group(4) == "M", int(m.group(3)) - 1, int(m.group(2)) - 1)
            i = m.end()
        elif data[i] == "\x1b":  # another escape sequence (arrows, ...): skipped whole
            m = re.match(r"\x1b(\[[0-9;<?]*[ -~]?|O.)?", data[i:])  # a lone ESC: itself
            i += len(m.group()) if m else 1
        else:
            yield data[i]
            i += 1


def _act(box: Box, action: str) -> None:
    """Do what a key or a click asks of the box."""
    if action.startswith("tile "):
        box.flip(int(action[5:]))
    elif action == "click":
        box.roll(_CLICK_MS)
    elif action == "hold":
        box.roll(_HOLD_MS)
    elif action == "latch":
        box.hold(not box.roll_down)
    elif action == "power":
        box.power()


_KEY_ACTIONS = {" ": "click", "\r": "hold", "\n": "hold", "l": "hold", "L": "hold",
                "r": "latch", "R": "latch", "p": "power", "P": "power"}


def run_terminal(args, flash: Path) -> int:
    """Play interactively in this terminal."""
    open_ = load_tiles(flash)
    log = open_log(args.log)
    box = Box(args, flash, open_)
    dice = faces(args.dice)
    if dice:
        box.send("d " + " ".join(map(str, dice)))
    view = screen.Screen(color=not args.no_color)
    view.open_ = open_
    term = Terminal(mouse=not args.no_mouse)
    crashed = ""
    mouse_roll = False
    pending = ""
    try:
        dirty, last_draw, last_bell, bells = True, 0.0, 0.0, 0
        assert box.proc.stdout is not None
        pipe = box.proc.stdout.fileno()
        while True:
            ready, _, _ = select.select([term.fd, pipe], [], [], _DRAW_S)
            if pipe in ready:
                lines = box.read_lines()
                if lines is None:
                    crashed = "stopped"
                    break
                write_log(log, lines)
                dirty |= view.feed("\n".join(lines))
            if term.fd in ready:
                pending += os.read(term.fd, 1024).decode(errors="replace")
                if pending.startswith("\x1b") and len(pending) < 32 and not re.search(
                        r"[A-Za-z~]", pending[1:]):
                    continue  # the rest of an escape sequence is on its way
                events, pending = list(_keys(pending)), ""
                quit_ = False
                for ev in events:
                    if isinstance(ev, tuple):
                        _, press, row, col = ev
                        hit = next((a for r, c0, c1, a in view.hits
                                    if r == row and c0 <= col <= c1), None)
                        if press and hit == "roll" and not box.roll_down:
                            box.hold(True)
                            mouse_roll = True
                        elif not press and mouse_roll:
                            box.hold(False)
                            mouse_roll = False
                        elif press and hit:
                            _act(box, hit)
                    elif ev in ("q", "Q", "\x04"):
                        quit_ = True
                        break
                    elif ev in _KEY_TILES[:pins.TILES]:
                        _act(box, "tile %d" % (_KEY_TILES.index(ev) + 1))
                    elif ev in _KEY_ACTIONS:
                        _act(box, _KEY_ACTIONS[ev])
                if quit_:
                    break
                view.open_, view.roll_down = box.open_, box.roll_down
                dirty = True
            box.tick()
            now = time.monotonic()
            if args.bell and view.tones > bells:
                bells = view.tones
                if now - last_bell >= _BELL_S:
                    term.write("\a")
                    last_bell = now
            if (dirty or term.resized) and now - last_draw >= _DRAW_S:
                cols, rows = term.size()
                term.draw(view.render(cols, rows), cols)
                dirty, last_draw = False, now
    except KeyboardInterrupt:
        pass
    finally:
        term.close()
        err = box.close()
        save_tiles(flash, box.open_)
        if log is not None:
            log.close()
    if crashed:
        raise firmware_error(err, args.heap)
    return 0


def run(args) -> int:
    """Play in the terminal, or run --keys without one."""
    heap(args.heap)
    faces(args.dice)
    if args.keys is not None:
        if args.flash:
            flash = Path(args.flash)
            prepare(args, flash)
            return run_keys(args, flash, persistent=True)
        with tempfile.TemporaryDirectory(prefix="shutbox-play-") as tmp:
            prepare(args, Path(tmp))
            return run_keys(args, Path(tmp), persistent=False)
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UserError("stdin or stdout is not a terminal: run `make play` in a terminal, or "
                        "give --keys KEYS for a scripted run")
    try:
        import termios  # noqa: F401
    except ImportError:
        raise UserError("the terminal box needs termios (Linux, macOS, WSL); --keys runs "
                        "anywhere") from None
    flash = Path(args.flash) if args.flash else default_flash()
    prepare(args, flash)
    return run_terminal(args, flash)

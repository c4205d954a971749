# `shutbox vpico`: a virtual Raspberry Pi Pico behind a pseudo-terminal, for mpremote and tests.
"""A virtual Pico: the real MicroPython interpreter behind a pty, a folder as its flash.

The device side is a pseudo-terminal (Python's pty module) that unmodified mpremote opens like
the Pico's USB serial port. Behind it a relay thread runs `micropython vpico_repl.py`, which
makes the unix port look like an rp2 board (see that file): the folder is its flash, the
simulated board (shutbox_host/box/sim) is its hardware, and it speaks the Pico's friendly, raw and
raw-paste REPL protocols. The relay does what the Pico's USB console and reset logic do:
'\\n' goes out as '\\r\\n'; Ctrl-C interrupts running code (SIGINT) and is a plain byte at a
prompt; a soft reboot or machine.reset() starts a fresh interpreter (new heap, new modules).

It also keeps what the RP2040 keeps across a reset: the watchdog's REASON and SCRATCH0..7
registers (``watchdog``: REASON first). machine.reset() restarts the chip through the
watchdog (REASON FORCE, 2), a watchdog that expires restarts it with REASON TIMER (1); both
read WDT_RESET from machine.reset_cause(), as on rp2 (MicroPython issue #19409). A soft
reboot changes neither; a power cycle (or a crash of the interpreter) clears them. The
console output of each interpreter is kept (``outputs``, the last 64 KB of each).

It reports the Pico board it is given (``board``, shutbox_host.model.boards: RPI_PICO by
default) in sys.implementation, as that board's MicroPython does. With ``fs_image`` the flash
is not a folder but a file holding the board's littlefs, as big as that board's filesystem
(a Pico W's 212 blocks of 4 KB): the real littlefs of MicroPython (the unix port's VfsLfs2,
the rp2 port's code and settings), so a full filesystem refuses writes and os.statvfs tells
the truth; ``fs_tree()`` reads it back (littlefs-python).

The power: ``power_off()`` cuts it (the interpreter dies wherever it is, the flash keeps what
its last operation left, what the host sends is lost as with a USB link that is gone) and
returns once the board is dark, so the flash can be read as the cut left it; ``power_on()``
starts it as at power-on; ``power_cycle()`` is both. ``cut_after(n)`` arms a cut that does not
depend on the host's clock: the board loses its power by itself after its next *n* flash
operations (a 4 KB erase or a 256-byte page program; ``ops`` counts each interpreter's).
"""

from __future__ import annotations

import functools
import os
import pty
import selectors
import signal
import struct
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

from shutbox_host import mp
from shutbox_host.errors import UserError

REPL_SCRIPT = Path(__file__).resolve().with_name("vpico_repl.py")
DEFAULT_FLASH = mp.BUILD / "vpico"
DEFAULT_HEAP = "256k"  # a Pico has ~190 KB of heap; the 64-bit port needs somewhat more
_HOST_BUFFER_MAX = 16384  # output held for a slow reader; past it the board waits...
_HOST_STALL_S = 0.5  # ...this long, then drops it, as the Pico does when nobody reads
_CTRL_C = 3
_OUTPUT_MAX = 65536
_REASON = {b"H": 2, b"T": 1}  # REASON after machine.reset() (FORCE), after the watchdog (TIMER)


@functools.cache
def board_mpy() -> int:
    """sys.implementation._mpy as a virtual Pico reports it (vpico_repl): the interpreter's
    own, its arch (bits 10 up) that of the machine code it runs, for which a flash builds
    the viper modules (layout.NATIVE); a Pico's armv6m where the port has none."""
    r = subprocess.run([mp.micropython_exe(), "-c",
                        "import sys\nprint(sys.implementation._mpy)"],
                       capture_output=True, text=True, timeout=30, check=True, **mp.tied())
    v = int(r.stdout)
    return v if v >> 10 else v | 4 << 10


def _read_ready(fd: int, n: int) -> bytes | None:
    """os.read of a non-blocking fd: None when nothing is there yet, b"" at its end (or on
    an error: the other side is gone)."""
    try:
        return os.read(fd, n)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class VirtualPico:
    """One virtual Pico. `start()` returns the device path; `stop()` ends it (or use `with`)."""

    def __init__(self, flash=DEFAULT_FLASH, platform="rp2", heapsize=DEFAULT_HEAP, link=None,
                 env=None, log=None, board="RPI_PICO", fs_image=None):
        from shutbox_host.model import boards

        self.board = boards.get(board)
        self.fs_image = Path(fs_image).resolve() if fs_image else None
        self.flash = Path(flash).resolve()
        self.platform = platform
        self.heapsize = heapsize
        self.link = Path(link) if link else None
        self.env = dict(env or {})
        self.log = log or (lambda msg: None)
        self.path: str | None = None
        self.boots: list[str] = []  # how each interpreter started: hard, soft, raw
        self.outputs: list[bytearray] = []  # what each one printed (its last _OUTPUT_MAX)
        self.ops: list[int] = []  # the flash operations each one started (fs_image)
        self.watchdog = [0] * 9  # the RP2040 watchdog's REASON, then SCRATCH0..7
        self.error: BaseException | None = None
        self._proc: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._power_cut = False
        self._on = False  # the board has power (an interpreter runs, or is restarting)
        self._power = threading.Condition()
        self._cut_left: int | None = None  # operations before the armed cut (cut_after)
        self._cut_from = 0  # ...counted in the interpreters from this one (len(boots)) on

    # ---- life cycle -------------------------------------------------------------------

    def start(self) -> str:
        """Create the pty, boot the interpreter (as at power-on), return the device path."""
        try:
            self.flash.mkdir(parents=True, exist_ok=True)
            if self.fs_image is not None:
                size = self.board.fs_bytes
                if not self.fs_image.exists() or self.fs_image.stat().st_size != size:
                    self.fs_image.write_bytes(b"\xff" * size)  # erased: formatted at boot
        except OSError as exc:
            msg = "cannot use %s as the flash: %s" % (self.fs_image or self.flash, exc.strerror)
            raise UserError(msg) from None
        try:
            self._exe = mp.micropython_exe()
        except FileNotFoundError as exc:
            raise UserError(str(exc)) from None
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)  # what pyserial sets too: no echo, no line editing, 8 bits
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)
        if self.link:
            if self.link.is_symlink():
                self.link.unlink()
            self.link.symlink_to(self.path)
        self._wake_r, self._wake_w = os.pipe()
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._master, selectors.EVENT_READ, "host")
        self._sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._to_host = bytearray()
        self._to_child = bytearray()
        self._stalled: float | None = None
        self._deaths: list[float] = []
        self._spawn("hard")
        self._thread = threading.Thread(target=self._serve, name="vpico", daemon=True)
        self._thread.start()
        return str(self.link) if self.link else self.path

    def stop(self):
        """End the interpreter and the relay; the pty disappears."""
        if self._thread is None:
            return
        self._stopping = True
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=10)
        fds = [self._master, self._slave, self._wake_r, self._wake_w]
        if self._proc is not None:
            self._kill_child()
            fds += [self._ctl_r, self._ack_w]
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._sel.close()
        if self.link and self.link.is_symlink():
            self.link.unlink()
        self._thread = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def fs_tree(self) -> dict[str, bytes]:
        """{absolute path: content} of every file on the littlefs flash (``fs_image``)."""
        from shutbox_host.pico import fsimage

        return fsimage.read_tree(self.fs_bytes(), self.board)

    def fs_used(self) -> tuple[int, int]:
        """(bytes in files, blocks in use) on the littlefs flash, as littlefs counts them."""
        from shutbox_host.pico import fsimage

        fs = fsimage.new_fs(bytearray(self.fs_bytes()), blocks=self.board.fs_blocks)
        try:
            used = fs.used_block_count
            size = 0
            for root, _dirs, files in fs.walk("/"):
                for name in files:
                    size += fs.stat(root.rstrip("/") + "/" + name).size
        finally:
            fs.unmount()
        return size, used

    def fs_bytes(self) -> bytes:
        """The littlefs flash (``fs_image``) as it is, read with the power off: an interpreter
        that runs may be writing it, and a read taken meanwhile mixes blocks of before and
        after its writes (a file moved between two folders would be in neither)."""
        assert self.fs_image is not None, "the flash is a folder: read it directly"
        if self._on:
            raise RuntimeError("the virtual Pico is running: power_off() before reading its "
                               "flash")
        return self.fs_image.read_bytes()

    def power_cycle(self):
        """Pull the plug and plug it back in: the interpreter restarts as at power-on."""
        self.power_off()
        self.power_on()

    def power_off(self, timeout: float = 30):
        """Pull the plug; return once the interpreter is dead (the flash is what it left)."""
        os.write(self._wake_w, b"0")
        self._await_power(False, timeout)

    def power_on(self, timeout: float = 30):
        """Plug it back in: the board starts as at power-on (returns once it runs)."""
        os.write(self._wake_w, b"1")
        self._await_power(True, timeout)

    @property
    def powered(self) -> bool:
        """Whether the board has power (False after power_off() or an armed cut)."""
        return self._on

    def cut_after(self, n: int | None):
        """Arm a power cut after *n* flash operations of the interpreters started from now
        on (None: disarm): the one that reaches *n* loses the power before its next
        operation. What the running one writes does not count (`shutbox flash` starts its
        own: mpremote's soft reset), so *n* is the same point of the same flash each time."""
        self._cut_from = len(self.boots)
        self._cut_left = n

    def _await_power(self, on: bool, timeout: float):
        deadline = time.monotonic() + timeout
        with self._power:
            while self._on != on:
                if self.error is not None or time.monotonic() > deadline:
                    raise RuntimeError("the virtual Pico did not power %s: %r"
                                       % ("on" if on else "off", self.error))
                self._power.wait(0.1)

    def _set_power(self, on: bool):
        with self._power:
            self._on = on
            self._power.notify_all()

    # ---- the interpreter ----------------------------------------------------------------

    def _spawn(self, boot):
        ctl_r, ctl_w = os.pipe()
        ack_r, ack_w = os.pipe()
        env = dict(os.environ, **self.env)
        env.pop("MICROPYPATH", None)
        env["SHUTBOX_VPICO_BOARD"] = self.board.name
        env["SHUTBOX_VPICO_MACHINE"] = self.board.machine
        env.pop("SHUTBOX_VPICO_CUT", None)
        if self._cut_left is not None:
            env["SHUTBOX_VPICO_CUT"] = str(max(0, self._cut_left))
        if self.fs_image is not None:
            env["SHUTBOX_VPICO_LFS"] = "%s,%d" % (self.fs_image, self.board.fs_blocks)
        else:
            env.pop("SHUTBOX_VPICO_LFS", None)
        cmd = [self._exe, "-X", "heapsize=" + self.heapsize, str(REPL_SCRIPT), str(self.flash),
               str(mp.SIM), self.platform, boot, str(ctl_w), str(ack_r),
               ",".join(str(v) for v in self.watchdog)]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, pass_fds=(ctl_w, ack_r), env=env,
                                cwd=str(self.flash), start_new_session=True, **mp.tied())
        os.close(ctl_w)
        os.close(ack_r)
        self._proc = proc
        self._ctl_r, self._ack_w = ctl_r, ack_w
        self._in = proc.stdin.fileno()
        self._out = proc.stdout.fileno()
        for fd in (self._in, self._out, ctl_r):
            os.set_blocking(fd, False)
        self._sel.register(self._out, selectors.EVENT_READ, "out")
        self._sel.register(ctl_r, selectors.EVENT_READ, "ctl")
        self._pump_host()
        self._in_registered = False
        self._ctl_buf = b""
        self._running = False  # code runs: Ctrl-C must interrupt it
        self._kbd_intr = True
        self._sigint_sent = False
        self._reboot = None
        self.boots.append(boot)
        self.outputs.append(bytearray())
        self.ops.append(0)
        self._set_power(True)
        self.log("vpico: interpreter started (%s)" % boot)
        self._pump_child()

    def _kill_child(self):
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def _child_gone(self):
        """The interpreter ended (a reset we were asked for, or a crash): start the next one."""
        proc = self._proc
        if proc is None:  # already gone (a power cut; a stale event of its pipes)
            return
        for fd in (self._out, self._ctl_r, self._in):
            if fd in self._sel.get_map():
                self._sel.unregister(fd)
        while True:  # what it printed last still goes out, before the next boot's banner
            try:
                data = os.read(self._out, 65536)
            except (BlockingIOError, OSError):
                break
            if not data:
                break
            self.outputs[-1] += data
            self._to_host += data.replace(b"\n", b"\r\n")
        del self._to_host[:-_HOST_BUFFER_MAX]
        self._stalled = None
        self._kill_child()
        self._count_ops(self._ctl_buf + self._drain(self._ctl_r))  # what it said last
        os.close(self._ctl_r)
        os.close(self._ack_w)
        self._proc = None
        if self._stopping:
            return
        boot = self._reboot
        if boot is None or self._power_cut:  # a power cycle, or not asked for (a crash): the
            self.watchdog = [0] * 9  # board comes back as from power-on, its registers clear
            self._power_cut = False
        if boot == "off":  # the power is gone: the board stays dark until power_on()
            self._to_child.clear()
            self._set_power(False)
            return
        if boot is None:  # not asked for: like a crash, the board comes back as from power-on
            now = time.monotonic()
            self._deaths = [t for t in self._deaths if now - t < 5] + [now]
            self.log("vpico: interpreter exited with %s; restarting" % proc.returncode)
            if len(self._deaths) >= 3:
                time.sleep(1)
            boot = "hard"
        if boot == "hard":
            self._to_child.clear()  # a hard reset drops the USB link and what was in flight
        self._spawn(boot)

    # ---- the relay ----------------------------------------------------------------------

    def _serve(self):
        try:
            while not self._stopping:
                timeout = 0.05 if self._stalled is not None else 1.0
                for key, mask in self._sel.select(timeout=timeout):
                    tag = key.data
                    if tag == "host":
                        if mask & selectors.EVENT_WRITE:
                            self._pump_host()
                        if mask & selectors.EVENT_READ:
                            self._from_host()
                    elif tag == "out":
                        self._from_child()
                    elif tag == "ctl":
                        self._from_ctl()
                    elif tag == "in":
                        self._pump_child()
                    elif tag == "wake":
                        self._from_wake()
                    if self._stopping:
                        break
                if self._stalled is not None:
                    self._pump_host()
        except BaseException as exc:  # noqa: BLE001 - reported by stop() and the CLI
            self.error = exc
            self.log("vpico: relay failed: %r" % exc)

    def _from_wake(self):
        for cmd in os.read(self._wake_r, 64):
            if cmd == ord("0"):
                self._cut_power()
            elif cmd == ord("1") and self._proc is None:
                self._to_child.clear()  # nothing reached a board without power
                self._spawn("hard")

    def _cut_power(self):
        """The power goes: the interpreter dies where it is and nothing starts again."""
        if self._proc is None:
            self._set_power(False)
            return
        self._reboot = "off"
        self._power_cut = True
        self._running = False
        self._child_gone()

    @staticmethod
    def _drain(fd: int) -> bytes:
        out = b""
        while True:
            data = _read_ready(fd, 4096)
            if not data:
                return out
            out += data

    def _count_ops(self, buf: bytes):
        """Count the flash operations in what a dead interpreter still had to say."""
        i = 0
        while i < len(buf):
            m = buf[i:i + 1]
            if m == b"o":
                self._op()
            i += {b"N": 2, b"R": 37}.get(m, 1)

    def _op(self):
        self.ops[-1] += 1
        if self._cut_left is not None and len(self.boots) > self._cut_from:
            self._cut_left -= 1

    def _from_host(self):
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            time.sleep(0.05)  # no one has the port open: nothing to read
            return
        if self._reboot == "off" or self._proc is None:
            return  # no power: no USB link, what the host sends is lost
        if self._reboot is not None:
            self._to_child += data  # arrives while it reboots: the next interpreter reads it
            return
        start = 0
        for i, b in enumerate(data):
            if b != _CTRL_C or not (self._running and self._kbd_intr):
                continue
            self._to_child += data[start:i]
            start = i + 1
            self._pump_child()
            if not self._sigint_sent and self._proc is not None:
                self._sigint_sent = True
                self._proc.send_signal(signal.SIGINT)
        self._to_child += data[start:]
        self._pump_child()

    def _pump_child(self):
        if not self._to_child or self._proc is None:
            return
        try:
            n = os.write(self._in, self._to_child)
            del self._to_child[:n]
        except BlockingIOError:
            pass
        except (BrokenPipeError, OSError):
            return
        want = bool(self._to_child)
        if want != self._in_registered:
            if want:
                self._sel.register(self._in, selectors.EVENT_WRITE, "in")
            else:
                self._sel.unregister(self._in)
            self._in_registered = want

    def _from_child(self):
        if self._proc is None:
            return
        data = _read_ready(self._out, 65536)
        if data is None:
            return
        if not data:
            self._child_gone()
            return
        self._send_host(data)

    def _send_host(self, data):
        out = self.outputs[-1]
        out += data
        del out[:-_OUTPUT_MAX]
        self._to_host += data.replace(b"\n", b"\r\n")
        self._pump_host()

    def _pump_host(self):
        if self._to_host:
            try:
                n = os.write(self._master, self._to_host)
                del self._to_host[:n]
            except (BlockingIOError, OSError):
                pass
        self._flow()
        registered = self._sel.get_map().get(self._master)
        want = selectors.EVENT_READ | (selectors.EVENT_WRITE if self._to_host else 0)
        if registered is not None and registered.events != want:
            self._sel.modify(self._master, want, "host")

    def _flow(self):
        """Hold the interpreter's output while the host is behind; drop it if nobody reads."""
        full = len(self._to_host) > _HOST_BUFFER_MAX
        paused = self._stalled is not None
        if full and not paused:
            self._stalled = time.monotonic()
            if self._out in self._sel.get_map():
                self._sel.unregister(self._out)
        elif paused and (not full or time.monotonic() - self._stalled > _HOST_STALL_S):
            if full:
                del self._to_host[:-_HOST_BUFFER_MAX // 4]
            self._stalled = None
            if self._proc is not None and self._out not in self._sel.get_map():
                self._sel.register(self._out, selectors.EVENT_READ, "out")

    def _from_ctl(self):
        if self._proc is None:
            return
        data = _read_ready(self._ctl_r, 256)
        if data is None:
            return
        if not data:
            self._sel.unregister(self._ctl_r)  # it is ending; its stdout's end restarts it
            return
        buf = self._ctl_buf + data
        i = 0
        while i < len(buf):
            m = buf[i:i + 1]
            if m == b"o":
                self._op()
            elif m == b"C":  # the armed cut: it waits for the power to go
                self._cut_left = None
                self._ctl_buf = b""
                self._cut_power()
                return
            elif m == b"X":
                self._running, self._kbd_intr, self._sigint_sent = True, True, False
            elif m == b"N":
                if i + 1 >= len(buf):
                    break
                self._running = False
                try:
                    os.write(self._ack_w, buf[i + 1:i + 2])
                except OSError:  # it died meanwhile (a power cut): its successor needs none
                    pass
                i += 1
            elif m == b"I":
                self._kbd_intr = True
            elif m == b"i":
                self._kbd_intr = False
            elif m == b"R":  # the watchdog's registers as the board leaves them
                if i + 37 > len(buf):
                    break
                self.watchdog = list(struct.unpack("<9I", buf[i + 1:i + 37]))
                i += 36
            elif m in (b"H", b"F", b"W", b"T"):
                self._reboot = {b"H": "hard", b"F": "soft", b"W": "raw", b"T": "hard"}[m]
                if m in _REASON:  # a reset of the chip, through its watchdog
                    self.watchdog[0] = _REASON[m]
                self._running = False
                if self._proc is not None:
                    self._proc.kill()  # its stdout ends; _child_gone starts the next one
            i += 1
        self._ctl_buf = buf[i:]


def configure(parser):
    """Add the vpico flags."""
    parser.add_argument("--flash", default=str(DEFAULT_FLASH),
                        help="folder used as the Pico's flash (default: build/vpico)")
    parser.add_argument("--print-path", action="store_true",
                        help="print only the device path (for scripts)")
    parser.add_argument("--platform", default="rp2",
                        help="sys.platform to report (default rp2; others test refusals)")
    parser.add_argument("--board", default="RPI_PICO",
                        help="the Pico board it reports (RPI_PICO, RPI_PICO_W, RPI_PICO2, "
                             "RPI_PICO2_W; default %(default)s)")
    parser.add_argument("--fs-image", metavar="FILE",
                        help="keep the flash as the board's littlefs in FILE (its real size) "
                             "instead of the --flash folder")
    parser.add_argument("--link", help="also make this symlink to the device")
    parser.add_argument("--heap", default=DEFAULT_HEAP, type=mp.heap_size,
                        help="heap size (default %(default)s)")


def run(args):
    """Serve a virtual Pico until Ctrl-C or SIGTERM."""
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    vp = VirtualPico(args.flash, platform=args.platform, heapsize=args.heap, link=args.link,
                     log=lambda msg: print(msg, file=sys.stderr, flush=True),
                     board=args.board, fs_image=args.fs_image)
    path = vp.start()
    if args.print_path:
        print(path, flush=True)
    else:
        print("virtual %s (%s) on %s, flash %s\n  mpremote connect %s\n"
              "  shutbox flash --port %s\nCtrl-C to stop"
              % (vp.board.short, args.platform, path, vp.fs_image or vp.flash, path, path),
              flush=True)
    try:
        while not done.wait(0.5):
            if vp.error is not None:
                break
    except KeyboardInterrupt:
        pass
    finally:
        vp.stop()
    if vp.error is not None:
        raise UserError("virtual Pico failed: %s" % vp.error)
    return 0

# `shutbox emu`: the firmware on an emulated RP2040, its console printed or behind a pty.
"""Run the real MicroPython rp2 build with the box's firmware on rp2040js (shutbox_host.pico).

Without ``--pty`` the console is printed as it comes. With ``--pty`` the chip's USB CDC is
bridged to a pseudo-terminal that unmodified mpremote and `shutbox flash --port` use like a
Pico's: Node has no openpty, so this small relay opens the pair, sets the slave raw before a
byte flows, raises DTR/RTS when a program opens the port and drops them when it closes it,
drops what the device prints while nobody has the port open (the next program would read
stale bytes), and runs the chip at about real time with a bounded lag. ``machine.reset()``
goes through the watchdog: the chip is built again keeping the flash, REASON and SCRATCH,
and USB enumerates again. Ctrl-C stops it; ``--flash FILE`` keeps the flash in a file.
"""

from __future__ import annotations

import base64
import os
import pty
import select
import sys
import threading
import time
import tty
from pathlib import Path

from shutbox_host import mp
from shutbox_host.errors import UserError
from shutbox_host.pico import emulator, fsimage, inputs

_LAG_MS = 500  # the emulated clock may fall this far behind the wall before it is let go


class Bridge:
    """The emulated Pico behind a pty. ``start()`` returns the device path; ``stop()``."""

    def __init__(self, emu: emulator.Emulator, link: str | None = None, log=None):
        self.emu = emu
        self.link = Path(link) if link else None
        self.log = log or (lambda msg: None)
        self.path: str | None = None
        self.is_open = False
        self.opens = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Power the chip up until its USB enumerates (a Pico's port appears only then), open
        the pty and let the chip run freely; return the device path."""
        emu = self.emu
        deadline = emu.now_ms + 3000
        while not emu.connects and emu.now_ms < deadline:
            emu.run(ms=20)
        emu.run(ms=50)
        self._master, slave = pty.openpty()
        tty.setraw(slave)  # before any byte flows: no echo of the device's output as input
        self.path = os.ttyname(slave)
        os.close(slave)  # nobody holds the slave: the master sees a hang-up until one opens it
        os.set_blocking(self._master, False)
        if self.link:
            if self.link.is_symlink() or self.link.exists():
                self.link.unlink()
            self.link.symlink_to(self.path)
        self.emu._send("go", lag_ms=_LAG_MS)
        self._thread = threading.Thread(target=self._serve, name="emu-pty", daemon=True)
        self._thread.start()
        return str(self.link) if self.link else self.path

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join(timeout=30)
        if self._thread.is_alive():  # it would take the answers of the calls that follow
            raise RuntimeError("the pty bridge's thread did not stop")
        self._thread = None
        try:
            os.close(self._master)
        except OSError:
            pass
        if self.link and self.link.is_symlink():
            self.link.unlink()

    def pause(self) -> None:
        """Stop the free run (the chip keeps its state); then Emulator calls work again."""
        self.stop()
        self.emu._call("pause")

    def _serve(self) -> None:
        emu = self.emu
        poller = select.poll()
        poller.register(self._master, select.POLLIN | select.POLLHUP)
        # the chip's output wakes the loop too (a pipe the emulator's reader writes to): a
        # host waiting for each answer (mpremote's writes of a file) gets it at once, not at
        # the poll's next timeout
        woken, wake = os.pipe()
        os.set_blocking(woken, False)
        os.set_blocking(wake, False)
        poller.register(woken, select.POLLIN)

        def poke():
            try:
                os.write(wake, b"!")
            except OSError:  # full: a wake-up is pending already
                pass

        emu.wake = poke
        try:
            self._loop(poller, woken)
        finally:
            emu.wake = None
            os.close(woken)
            os.close(wake)

    def _loop(self, poller, woken: int) -> None:
        emu = self.emu
        while not self._stop.is_set():
            got = poller.poll(10)
            if any(fd == woken for fd, _mask in got):
                try:
                    os.read(woken, 4096)  # the wake-ups so far: their events are pumped below
                except OSError:
                    pass
            events = [(fd, mask) for fd, mask in got if fd != woken]
            hup = any(mask & select.POLLHUP for _fd, mask in events)
            # the line state first: what the host sends right after opening the port is
            # answered with DTR up, or the device (which drops output without DTR) says nothing
            if hup and self.is_open:
                self.is_open = False
                emu._send("line", dtr=0, rts=0)
                self.log("emu: port closed")
            elif not hup and not self.is_open:
                self.is_open = True
                self.opens += 1
                emu._send("line", dtr=1, rts=1)
                self.log("emu: port opened")
            if not hup and any(mask & select.POLLIN for _fd, mask in events):
                try:
                    data = os.read(self._master, 4096)
                except OSError:
                    data = b""
                if data:
                    emu._send("write", b64=base64.b64encode(data).decode())
            self._pump()
            if hup:
                time.sleep(0.01)

    def _pump(self) -> None:
        emu = self.emu
        # stop() waits for this thread before pause(): a chip that talks faster than a loaded
        # host reads must not keep it here, or it would take pause's answer (dropped below)
        while not self._stop.is_set():
            with emu._cv:
                if not emu._events:
                    return
                ev = emu._events.popleft()
            kind = ev.get("ev")
            if kind in ("done", "fail"):
                continue
            if kind == "eof":
                self._stop.set()
                return
            emu._event(ev)
            if kind == "console" and self.is_open:
                data = base64.b64decode(ev["b64"])
                try:
                    os.write(self._master, data)
                except OSError:
                    pass
            elif kind == "connect" and self.is_open:
                emu._send("line", dtr=1, rts=1)  # the host still holds the port open
            elif kind == "reset":
                self.log("emu: %s reset at %.0f ms" % (ev["why"], ev["t"] / 1e6))


def flash_for(args) -> tuple[bytes | None, bytes | None]:
    """Return (flash, fs) for the emulator from the options."""
    if args.flash and Path(args.flash).is_file():
        data = Path(args.flash).read_bytes()
        if len(data) != fsimage.FLASH_SIZE:
            raise UserError("%s is not a 2 MB flash image (%d bytes)" % (args.flash, len(data)))
        return data, None
    if args.blank:
        return None, None
    return None, fsimage.build(Path(args.firmware))


def configure(parser):
    """Add the emu flags."""
    inputs.arguments(parser)
    parser.add_argument("--firmware", default=str(mp.FIRMWARE),
                        help="firmware folder laid out on the flash (default: firmware/)")
    parser.add_argument("--blank", action="store_true",
                        help="plain MicroPython: no firmware on the flash")
    parser.add_argument("--flash", help="a 2 MB flash image file: used if it exists, written "
                                        "back when the emulator stops")
    parser.add_argument("--pinmap", help="pin map the firmware must match (default: "
                                         "hardware/pinmap.json)")
    parser.add_argument("--pty", action="store_true",
                        help="bridge the USB console to a pseudo-terminal (for mpremote)")
    parser.add_argument("--link", help="with --pty: also make this symlink to the device")
    parser.add_argument("--ms", type=float,
                        help="run this many emulated ms as fast as it goes, then stop")


def run(args):
    """Boot the emulated Pico; print its console (or bridge it) until Ctrl-C or --ms."""
    if args.ms is not None and args.ms <= 0:
        raise UserError("--ms %g: give the emulated time to run, more than 0 ms" % args.ms)
    if args.pinmap:  # a file given: read before anything else (bad input fails first)
        from shutbox_host.model import pinout

        pinout.load(args.pinmap)
    # the firmware's image goes at the Pico's filesystem: the uf2 must be the Pico's
    laid = not args.blank and not (args.flash and Path(args.flash).is_file())
    uf2, bootrom = emulator.resolve_inputs(args.uf2, args.bootrom, fetch=True, pico=laid)
    emulator.node_exe()
    flash, fs = flash_for(args)
    emu = emulator.Emulator(uf2, bootrom, flash=flash, fs=fs, pinmap=args.pinmap,
                            echo=None if args.pty else _echo)
    bridge = None
    try:
        emu.start()
        if args.pty:
            bridge = Bridge(emu, args.link, log=lambda m: print(m, file=sys.stderr))
            path = bridge.start()
            print("emulated Pico on %s (mpremote connect %s; Ctrl-C stops it)" % (path, path),
                  flush=True)
            while bridge._thread is not None and bridge._thread.is_alive():
                time.sleep(0.2)
        elif args.ms is not None:
            emu.run(ms=args.ms)
        else:
            emu._send("go", lag_ms=_LAG_MS)
            bridge = Bridge(emu)  # no pty: only its event pump
            bridge.is_open = False
            while True:
                time.sleep(0.02)
                bridge._pump()
    except KeyboardInterrupt:
        pass
    finally:
        if bridge is not None and bridge._thread is not None:
            bridge.stop()
        if args.flash and emu.proc is not None:
            try:
                if bridge is not None:
                    emu._call("pause")
                Path(args.flash).write_bytes(emu.flash_image())
            except emulator.EmulatorError:
                pass
        emu.stop()
    if emu.errors:
        raise UserError(emu.errors[0])
    return 0


def _echo(text: str) -> None:
    sys.stdout.write(text.replace("\r\n", "\n"))
    sys.stdout.flush()

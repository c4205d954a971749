# `shutbox log`: recording the box's log from a (virtual) Pico's port, through resets and replugs.
"""The recorder against the virtual Pico (shutbox_host.pico.vpico: the real micropython behind
a pty, like a Pico's USB port) running the real firmware: a reset mid-recording, the port
vanishing and coming back, Ctrl-C, a kill; lines that are not records and a newer format;
bad ports and files; and reading a log back (``--check``, ``read``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import logschema
import pytest

from shutbox_host.analysis import log
from shutbox_host.box import boxsim
from shutbox_host.errors import UserError
from shutbox_host.pico import vpico

SHUTBOX = Path(sys.executable).with_name("shutbox")
FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def wait_for(cond, why=lambda: "", timeout=30.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, why()
        time.sleep(0.05)


def with_firmware(flash: Path) -> Path:
    """A Pico's flash holding the firmware (.mpy, as `shutbox flash` puts it) and its
    main.py at the root: it plays from power-on."""
    tree = boxsim.build()
    shutil.copytree(Path(tree) / "shutbox", flash / "shutbox",
                    ignore=shutil.ignore_patterns("tables"))
    shutil.copytree(FIRMWARE / "shutbox" / "tables", flash / "shutbox" / "tables")
    shutil.copy(FIRMWARE / "main.py", flash / "main.py")
    return flash


class Recording:
    """`shutbox log --port PORT -o FILE` running, its stderr in a file."""

    def __init__(self, tmp: Path, port: Path, *extra: str):
        self.out = tmp / "box.jsonl"
        self.errfile = tmp / "recorder.err"
        self.proc = subprocess.Popen(
            [str(SHUTBOX), "log", "--port", str(port), "-o", str(self.out), *extra],
            stdout=subprocess.DEVNULL, stderr=self.errfile.open("w"))

    def records(self) -> list[dict]:
        if not self.out.exists():
            return []
        text = self.out.read_text()
        return [json.loads(line) for line in text.splitlines()]  # every line whole

    def kinds(self) -> list[str]:
        return [r["ev"] for r in self.records()]

    def err(self) -> str:
        return self.errfile.read_text()

    def stop(self, sig=signal.SIGINT) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(20)


@pytest.fixture
def tmp(tmp_path):
    yield tmp_path


def test_records_the_box_through_a_reset_and_a_replug(tmp):
    flash = with_firmware(tmp / "flash")
    port = tmp / "ttyACM0"  # the virtual Pico's pty is linked here, as udev names a Pico
    rec = Recording(tmp, port)
    try:
        wait_for(lambda: "waiting for" in rec.err(), rec.err)  # no box yet: it waits
        box = vpico.VirtualPico(flash, link=port)
        box.start()
        try:
            wait_for(lambda: rec.kinds()[:1] == ["link"], rec.err)
            # the box saves its new game at its first step: a reset before that (its boot
            # slowed by a loaded machine) leaves no game, and the next boot starts a new one
            wait_for(lambda: (flash / "data" / "game").exists(), rec.err)
            box.power_cycle()  # a reset mid-recording: the port stays, the box boots again
            wait_for(lambda: "resume" in rec.kinds(), lambda: "%r\n%s" % (rec.kinds(),
                                                                            rec.err()))
            before = rec.records()  # on disk while it runs: flushed line by line
        finally:
            box.stop()  # unplugged: the port vanishes
        wait_for(lambda: rec.kinds()[-1:] == ["link"] and rec.records()[-1]["state"] == "lost",
                 rec.err)
        box = vpico.VirtualPico(flash, link=port)  # plugged in again
        box.start()
        try:
            wait_for(lambda: rec.kinds().count("link") == 3, lambda: repr(rec.kinds()))
            # what a box prints before the PC has its port open is not sent (a Pico's USB
            # drops it; opening a port clears what it holds): its next boot is recorded
            box.power_cycle()
            wait_for(lambda: rec.kinds().count("resume") >= 2, lambda: repr(rec.kinds()))
        finally:
            box.stop()
        assert rec.stop() == 0  # Ctrl-C: a clean stop
    finally:
        if rec.proc.poll() is None:
            rec.proc.kill()
    got = rec.records()
    assert got[:len(before)] == before  # nothing recorded was lost or rewritten
    kinds = [r["ev"] for r in got]
    assert kinds[0] == "link" and got[0]["state"] == "open" and got[0]["port"] == str(port)
    lost = kinds.index("link", 1)
    assert got[lost]["state"] == "lost" and got[lost + 1]["ev"] == "link" and \
        got[lost + 1]["state"] == "open"
    # each boot: the settings (by index, and by name from the recorder), then the saved game
    assert kinds.count("settings") >= 2 and kinds.count("resume") >= 2
    for r in got:
        logschema.check(r)  # the box's records, the recorder's, its "t" and "names"
        if r["ev"] == "settings":
            assert r["v"] == 3 and r["names"]["sound"] == "loud" and r["names"]["code"] == "off"
    times = [r["t"] for r in got]
    assert times == sorted(times)  # this PC's time, as the lines came
    err = rec.err().strip().splitlines()
    assert any("went away" in line for line in err)
    assert err[-1] == "shutbox log: stopped: %d records in %s" % (len(got), rec.out)
    assert "Traceback" not in rec.err()


BOX_LINES = [
    '{"ev": "game", "v": 4, "players": 1, "hats": "new"}',  # a newer format
    "hello from a REPL",  # not a record
    '{"ev": "throw", "dice": [3',  # cut short
    "[1, 2, 3]",  # JSON, not a record
    '{"ev": "game", "v": 4, "players": 2}',  # the newer format again: warned once
    '{"ev": "settings", "v": 3, "status": 0, "values": %s, "code": "0042"}' % ([0] * 25),
]


def test_lines_that_are_not_records_and_a_newer_format(tmp):
    flash = tmp / "flash"
    flash.mkdir()
    (flash / "main.py").write_text(
        "import time\nfor line in %r:\n    print(line)\nprint('DONE')\n"
        "while True:\n    time.sleep(1)\n" % (BOX_LINES,))
    port = tmp / "ttyACM0"
    rec = Recording(tmp, port)
    box = vpico.VirtualPico(flash, link=port)
    try:
        wait_for(lambda: "waiting for" in rec.err(), rec.err)
        box.start()
        wait_for(lambda: rec.kinds()[:1] == ["link"], rec.err)
        box.power_cycle()  # its lines again, now that the recorder is surely listening
        wait_for(lambda: "'DONE'" in rec.err() and "settings" in rec.kinds(), rec.err)
        assert rec.stop() == 0
    finally:
        box.stop()
        if rec.proc.poll() is None:
            rec.proc.kill()
    got = [r for r in rec.records() if r["ev"] != "link"]
    last = got[-3:]  # the lines of the second boot that are records, as they came
    assert [r["ev"] for r in last] == ["game", "game", "settings"]
    assert last[0]["hats"] == "new" and last[0]["v"] == 4  # recorded, not refused
    assert last[2]["names"]["code"] == "0042" and last[2]["names"]["players"] == "1"
    err = rec.err()
    assert err.count("newer than this shutbox reads (3)") == 1
    assert err.count("'hello from a REPL'") >= 1 and err.count("[1, 2, 3]") >= 1
    assert "not a record" in err and """'{"ev": "throw", "dice": [3'""" in err
    for line in err.strip().splitlines():
        assert line.startswith("shutbox log: ")  # one line each


def test_a_killed_recorder_keeps_every_line(tmp):
    flash = with_firmware(tmp / "flash")
    port = tmp / "ttyACM0"
    box = vpico.VirtualPico(flash, link=port)
    box.start()
    rec = Recording(tmp, port)
    try:
        wait_for(lambda: rec.kinds()[:1] == ["link"], rec.err)
        box.power_cycle()
        wait_for(lambda: "resume" in rec.kinds() or "game" in rec.kinds(), rec.err)
        n = len(rec.records())
        rec.stop(signal.SIGKILL)  # no clean-up at all
    finally:
        box.stop()
    got = rec.records()  # every line whole (json.loads of each)
    assert len(got) >= n and rec.out.read_text().endswith("\n")


def test_waiting_for_a_port_that_never_comes_then_ctrl_c(tmp):
    rec = Recording(tmp, tmp / "no-such-port")
    wait_for(lambda: "waiting for" in rec.err(), rec.err)
    assert rec.stop() == 0
    assert rec.err().strip().splitlines()[-1].endswith("stopped: 0 records in %s" % rec.out)


def test_ctrl_c_as_a_record_goes_out_stops_after_it_and_counts_it(monkeypatch):
    """Ctrl-C the moment a record is flushed, before the recorder has counted it (the race of
    a Ctrl-C as the box goes away): it stops cleanly at a line's end, and its last line says
    how many records it wrote, all of them."""
    master, slave = pty.openpty()
    tty.setraw(slave)

    class Out(io.StringIO):
        def flush(self):
            super().flush()
            n = self.getvalue().count("\n")
            if n == 1:  # the link record: the port is open, the box prints (opening cleared it)
                os.write(master, b'{"ev": "turn", "player": 1, "open": [1]}\r\n' * 3)
            elif n == 2:  # the box's first record
                os.kill(os.getpid(), signal.SIGINT)

    out, err = Out(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(log, "Recorder", lambda o, _r=log.Recorder: _r(o, err))
    old = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in `shutbox log`
    again = threading.Timer(10, os.kill, (os.getpid(), signal.SIGINT))  # never to hang
    again.start()
    try:
        args = argparse.Namespace(check=None, output=None, port=os.ttyname(slave))
        assert log.run(args) == 0
    finally:
        again.cancel()
        signal.signal(signal.SIGINT, old)
        os.close(master)
        os.close(slave)
    n = out.getvalue().count("\n")
    assert n >= 2 and err.getvalue().endswith("shutbox log: stopped: %d records written\n" % n)


def shutbox(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SHUTBOX), *args], capture_output=True, text=True, timeout=30)


def test_bad_ports_and_files_are_one_line_errors(tmp):
    r = shutbox("log", "--port", "/dev/null")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not a serial port" in r.stderr
    (tmp / "plain").write_text("x")
    r = shutbox("log", "--port", str(tmp / "plain"))
    assert r.returncode == 2 and "not a serial port" in r.stderr
    r = shutbox("log", "--port", "/dev/null", "-o", str(tmp / "no" / "such" / "dir.jsonl"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot write" in r.stderr
    if os.geteuid() != 0:  # root opens anything
        locked = tmp / "locked"
        locked.write_text("")
        locked.chmod(0)
        r = shutbox("log", "--port", str(locked))
        assert r.returncode == 2 and "no permission" in r.stderr


def test_a_busy_port_is_a_one_line_error(tmp):
    import serial

    box = vpico.VirtualPico(tmp / "flash", link=tmp / "ttyACM0")
    box.start()
    try:
        held = serial.Serial(str(tmp / "ttyACM0"), 115200, exclusive=True)
        try:
            r = shutbox("log", "--port", str(tmp / "ttyACM0"))
        finally:
            held.close()
    finally:
        box.stop()
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "another program" in r.stderr


# ----- reading a log back -----


def test_check_reads_a_recorded_log(tmp):
    path = tmp / "good.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (
        {"ev": "link", "t": "2026-05-01T12:00:00.000Z", "state": "open", "port": "p"},
        {"ev": "settings", "v": 3, "status": 0, "values": [0] * 25, "code": "off"},
        {"ev": "turn", "player": 1, "open": [1]})) + "\n\n")
    r = shutbox("log", "--check", str(path))
    assert r.returncode == 0 and r.stdout.strip() == "%s: 3 records, format 3" % path
    assert [x["ev"] for x in log.read(path)] == ["link", "settings", "turn"]


@pytest.mark.parametrize("line,why", [
    ("not json at all", "3: not a JSON record: 'not json at all'"),
    ('{"ev": "game", "v": 4}', "3: log format 4, newer than this shutbox reads (3)"),
    ("[1, 2]", "3: JSON, but not a record"),
    ('{"player": 1}', "3: JSON, but not a record"),
])
def test_check_refuses_a_line_it_cannot_read_in_one_line(tmp, line, why):
    path = tmp / "bad.jsonl"
    path.write_text('{"ev": "turn", "player": 1, "open": [1]}\n\n' + line + "\n")
    r = shutbox("log", "--check", str(path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "%s:%s" % (path, why) in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(UserError, match="newer|JSON"):
        log.read(path)


def test_check_of_a_missing_file(tmp):
    r = shutbox("log", "--check", str(tmp / "none.jsonl"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot read" in r.stderr


def test_settings_names_follow_the_firmware_s_vocabulary():
    from shutbox import setnames

    values = [3, 3, 2, 0, 2, 3, 2, 3, 1, 1, 1, 1, 4, 1, 2, 0, 1, 0, 2, 4, 1, 1, 2, 1, 0]
    names = log.settings_names({"ev": "settings", "v": 3, "values": values, "code": "0007"})
    s = setnames.parse(",".join("%s=%s" % kv for kv in names.items()
                                if kv[0] not in ("code", "to-go")))
    assert names["code"] == "0007" and s.players == 4 and s.brightness == 2 and s.sound == 0
    assert names["sleep"] == "30-min" and s.sleep == 4
    assert names["real-dice"] == "on" and s.real_dice == 1
    assert names["two-tiles"] == "on" and s.two_tiles == 1
    assert names["timeout"] == "60-s" and s.timeout == 2
    assert names["resign"] == "on" and s.resign == 1 and names["long-game"] == "off"
    new = ("sleep", "real-dice", "two-tiles", "timeout", "resign", "long-game")
    # a log of the firmware before sleep (format 1): 19 values, the same names but sleep's
    old = log.settings_names({"ev": "settings", "v": 1, "values": values[:19], "code": "off"})
    assert old == {k: v for k, v in names.items() if k not in new} | {"code": "off"}
    # before real dice (format 2): 20 values
    old = log.settings_names({"ev": "settings", "v": 2, "values": values[:20], "code": "off"})
    assert old == {k: v for k, v in names.items() if k not in new[1:]} | {"code": "off"}
    # format 3 before the long game (24 values) and before resign (23): the names they had
    old = log.settings_names({"ev": "settings", "v": 3, "values": values[:24], "code": "off"})
    assert old == {k: v for k, v in names.items() if k != "long-game"} | {"code": "off"}
    assert "resign" not in log.settings_names({"ev": "settings", "v": 3, "values": values[:23]})
    assert log.settings_names({"ev": "settings", "v": 3, "values": values[:22]}) is None
    assert log.settings_names({"ev": "settings", "v": 4, "values": values}) is None
    assert log.settings_names({"ev": "settings", "v": 1, "values": values}) is None
    assert log.settings_names({"ev": "settings", "v": 3, "values": values[:17]}) is None
    assert log.settings_names({"ev": "settings", "v": 3, "values": [9] * 25}) is None

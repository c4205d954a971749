# `shutbox emu` on bad input, and the Node process never outliving its caller.
"""Each mistake is one line and exit 2 (UserError); Ctrl-C, an exception or a killed parent
end the emulator's Node process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from emu_skip import require_emulator

from shutbox_host import mp
from shutbox_host.pico import emulator, inputs

pytestmark = [pytest.mark.node]

SHUTBOX = Path(sys.executable).with_name("shutbox")


def emu_cli(*args, env=None, timeout=120):
    p = subprocess.run([str(SHUTBOX), "emu", *args], capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr.strip()


def one_line_error(rc, err, *words):
    assert rc == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def test_a_missing_uf2(tmp_path):
    rc, _, err = emu_cli("--uf2", str(tmp_path / "none.uf2"), "--ms", "1")
    one_line_error(rc, err, "no uf2 at", "SHUTBOX_UF2")


def test_a_file_that_is_no_uf2(tmp_path):
    bad = tmp_path / "notes.uf2"
    bad.write_text("not a firmware\n")
    rc, _, err = emu_cli("--uf2", str(bad), "--ms", "1")
    one_line_error(rc, err, "not a UF2 file")


def shared_uf2(board: str) -> Path:
    path = inputs.shared_dir() / ("%s-%s.uf2" % (board, inputs.MP_VERSION))
    if not path.is_file():
        pytest.skip("no %s uf2 in ../shared/rp2040/" % board)
    return path


def test_a_uf2_for_another_chip():
    rc, _, err = emu_cli("--uf2", str(shared_uf2("RPI_PICO2")), "--ms", "1")
    one_line_error(rc, err, "RP2350", "0xe48bff59", "RPI_PICO")


def test_a_pico_w_uf2_is_refused_in_one_line():
    """The Pico W's MicroPython is an RP2040 build too, for another board (the chip would
    fail on its wireless chip's pins): the check of `shutbox uf2` refuses it."""
    rc, _, err = emu_cli("--uf2", str(shared_uf2("RPI_PICO_W")), "--ms", "1")
    one_line_error(rc, err, "Pico W (RPI_PICO_W), not the Pico")


def test_a_truncated_uf2_is_refused_in_one_line(tmp_path):
    cut = tmp_path / "cut.uf2"
    cut.write_bytes(shared_uf2("RPI_PICO").read_bytes()[:512 * 100])
    rc, _, err = emu_cli("--uf2", str(cut), "--ms", "1")
    one_line_error(rc, err, "truncated", "download it again")


@pytest.mark.parametrize("text, says", [(None, "No such file"), ("{not json", "not valid JSON"),
                                        ("[1, 2]", "expected a JSON object")])
def test_a_pin_map_missing_or_not_one(tmp_path, text, says):
    pinmap = tmp_path / "pinmap.json"
    if text is not None:
        pinmap.write_text(text)
    rc, _, err = emu_cli("--pinmap", str(pinmap), "--ms", "1")
    if rc != 2 and emulator.missing():
        pytest.skip(emulator.missing())
    one_line_error(rc, err, str(pinmap), says)


def test_no_time_to_run_is_refused(tmp_path):
    rc, _, err = emu_cli("--ms", "-5")
    one_line_error(rc, err, "--ms -5")


def test_a_bootrom_that_is_not_one(tmp_path):
    bad = tmp_path / "rom.bin"
    bad.write_bytes(bytes(16384))
    rc, _, err = emu_cli("--bootrom", str(bad), "--ms", "1")
    one_line_error(rc, err, "not the RP2040 bootrom")


def test_no_node(tmp_path):
    env = {"PATH": str(tmp_path), "NODE": ""}
    rc, _, err = emu_cli("--ms", "1", env=env)
    try:  # the uf2 and the bootrom are looked for first: without them, that is the error
        emulator.resolve_inputs()
    except emulator.UserError as exc:
        pytest.skip(str(exc))
    one_line_error(rc, err, "node not found", "apt-get install nodejs")


def test_no_node_modules(tmp_path):
    if emulator.missing() and "node not found" not in emulator.missing():
        pytest.skip(emulator.missing())
    rc, _, err = emu_cli("--ms", "1", env={"SHUTBOX_NODE_MODULES": str(tmp_path)})
    one_line_error(rc, err, "rp2040js is not installed", "npm ci")


def test_a_pin_map_the_firmware_does_not_match(tmp_path):
    require_emulator()
    pm = json.loads((mp.ROOT / "hardware" / "pinmap.json").read_text())
    pm["roll_pin"] = 22
    other = tmp_path / "pinmap.json"
    other.write_text(json.dumps(pm))
    rc, _, err = emu_cli("--pinmap", str(other), "--ms", "1")
    one_line_error(rc, err, "another pin map")


def test_the_node_process_ends_with_an_exception_in_the_block():
    require_emulator()
    with pytest.raises(ZeroDivisionError), emulator.Emulator() as emu:
        proc = emu.proc
        emu.run(ms=10)
        raise ZeroDivisionError("a test that fails")
    assert proc.poll() is not None and emu.proc is None


def test_the_node_process_ends_when_its_parent_is_killed():
    require_emulator()
    code = ("from shutbox_host.pico.emulator import Emulator\n"
            "e = Emulator().start()\n"
            "print(e.proc.pid, flush=True)\n"
            "e._send('run', until_ns=10**12)\n"  # a long run: Node reads no stdin meanwhile
            "import time; time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pid = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    for _ in range(100):
        if not Path("/proc/%d" % pid).exists() or \
                Path("/proc/%d/stat" % pid).read_text().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        raise AssertionError("node outlived its killed parent")


def test_ctrl_c_stops_shutbox_emu_cleanly():
    require_emulator()
    p = subprocess.Popen([str(SHUTBOX), "emu", "--blank"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0 and "Traceback" not in err, err

# `shutbox flash` on the virtual Pico with the real mpremote: full, unchanged, cut off, refused.
"""Tests of shutbox_host.pico.flash: every flash ends with a board that starts a whole version."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial
from test_vpico import Console, mpremote, wait_for

from shutbox_host import mp
from shutbox_host.errors import UserError
from shutbox_host.model import boards, layout
from shutbox_host.pico import flash, vpico

SHUTBOX = [sys.executable, "-m", "shutbox_host.cli"]
KILLED = Path(__file__).with_name("flash_killed.py")  # a flash that kills itself at a point
TABLE = bytes(range(256)) * 40  # 10 KB of data both versions share


def make_firmware(root: Path, tag: str, extra: bytes = b"") -> Path:
    """Write a small firmware tree (the real layout) whose main prints BOOT <tag> and loops."""
    (root / "shutbox" / "tables").mkdir(parents=True)
    (root / "main.py").write_text("from shutbox import app\napp.main()\n")
    (root / "shutbox" / "__init__.py").write_text("")
    (root / "shutbox" / "app.py").write_text(
        "import time\nfrom shutbox import ver\n\n\ndef main():\n"
        "    with open('/boots.log', 'a') as f:\n        f.write(ver.TAG + '\\n')\n"
        "    print('BOOT', ver.TAG)\n    while True:\n        time.sleep_ms(5)\n")
    (root / "shutbox" / "ver.py").write_text("TAG = %r\n" % tag)
    (root / "shutbox" / "tables" / "n9.bin").write_bytes(TABLE)
    if extra:
        (root / "shutbox" / "tables" / "n10.bin").write_bytes(extra)
    return root


def maker_files(flash_dir: Path) -> dict[str, bytes]:
    """Put the maker's own files on the board; return them to compare later."""
    files = {"boot.py": b"# the maker's boot.py\n", "lib/mylib.py": b"X = 1\n",
             "data/settings": b"SHBX\x01\x00\x00\x00saved", "notes.txt": b"mine"}
    for rel, data in files.items():
        p = flash_dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return files


def assert_untouched(flash_dir: Path, files: dict[str, bytes]):
    for rel, data in files.items():
        assert (flash_dir / rel).read_bytes() == data, rel


def versions(flash_dir: Path) -> list[str]:
    return sorted(p.name for p in (flash_dir / ".shutbox").iterdir()
                  if p.is_dir() and p.name.startswith("fw-"))


def stored_tables(flash_dir: Path) -> dict[str, bytes]:
    """The table store: {file name: content}."""
    return {p.name: p.read_bytes() for p in (flash_dir / ".shutbox" / "tables").iterdir()}


def boot(vp) -> str:
    """Power the board off and on; return the tag of the version it then starts."""
    log = vp.flash / "boots.log"

    def lines():
        return log.read_text().split() if log.exists() else []

    n = len(lines())
    vp.power_cycle()
    wait_for(lambda: len(lines()) > n, lambda: "no boot: %r" % lines())
    return lines()[-1]


def quiet(_line):
    pass


@pytest.fixture
def vp(tmp_path):
    pico = vpico.VirtualPico(tmp_path / "flash")
    pico.start()
    yield pico
    pico.stop()
    assert pico.error is None, pico.error  # the relay never failed


@pytest.fixture
def fw(tmp_path):
    """Two versions of a small firmware: B changes ver.py and adds a 9 KB table."""
    return (make_firmware(tmp_path / "fw_a", "A"),
            make_firmware(tmp_path / "fw_b", "B", extra=os.urandom(9000)))


def cli_flash(port, firmware, *extra, env=None, kill=None):
    """`shutbox flash`; with *kill* ("phase[:n]"), one that kills itself at that point."""
    cmd = [sys.executable, str(KILLED), kill] if kill else [*SHUTBOX, "flash"]
    return subprocess.run([*cmd, "--port", port, "--firmware", str(firmware), *extra],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, **(env or {})))


def test_full_flash_then_unchanged_then_update(vp, fw):
    fw_a, fw_b = fw
    mine = maker_files(vp.flash)
    result = cli_flash(vp.path, fw_a)
    assert result.returncode == 0, result.stderr
    assert "mpy" in result.stdout and "switched to fw-" in result.stdout
    assert boot(vp) == "A"
    (current,) = versions(vp.flash)
    assert (vp.flash / ".shutbox" / "current").read_text() == current
    stage = vp.flash / ".shutbox" / current
    assert (stage / "shutbox" / "ver.mpy").exists() and not (stage / "shutbox" / "ver.py").exists()
    # the table is stored once, by content, and the version's manifest says where (this
    # firmware has no pins.py: no tile count, so every table and no index for the engine)
    n9 = "n9-%s.bin" % hashlib.sha256(TABLE).hexdigest()[:12]
    assert stored_tables(vp.flash) == {n9: TABLE}
    assert not (stage / "shutbox" / "tables").exists()
    manifest = json.loads((stage / layout.MANIFEST).read_text())
    assert manifest["tables"] == {"n9.bin": ["/.shutbox/tables/" + n9, len(TABLE),
                                             hashlib.sha256(TABLE).hexdigest()]}
    assert (vp.flash / "main.py").read_text().startswith(layout.LAUNCHER_MARK)
    assert_untouched(vp.flash, mine)

    # The same firmware again: nothing crosses the cable, nothing on the board changes.
    def stamps():  # boots.log is the firmware's own: it grows at every boot
        return {p: p.stat().st_mtime_ns for p in vp.flash.rglob("*") if p.name != "boots.log"}

    before = stamps()
    again = flash.flash(vp.path, firmware=fw_a, out=quiet)
    assert (again["uploaded"], again["copied"]) == (0, 0)
    assert stamps() == before
    assert boot(vp) == "A"

    # A new version: only new content is uploaded (ver.mpy, n10.bin); the unchanged modules
    # move from the old version's folder after the switch (main, the package's __init__,
    # app), nothing is copied, the shared table stays where it is.
    up = flash.flash(vp.path, firmware=fw_b, out=quiet)
    assert (up["uploaded"], up["moved"], up["copied"], up["kept"]) == (2, 3, 0, 1), up
    assert up["previous"] == current and up["removed"] == [current]
    assert set(stored_tables(vp.flash)) == {n9, "n10-%s.bin" % hashlib.sha256(
        (fw_b / "shutbox" / "tables" / "n10.bin").read_bytes()).hexdigest()[:12]}
    assert not (vp.flash / ".shutbox" / up["version"] / layout.FINISH).exists()
    assert versions(vp.flash) == [up["version"]]
    assert boot(vp) == "B"
    assert_untouched(vp.flash, mine)
    # Every file of the version is what the host meant (the board verified it too).
    manifest = (vp.flash / ".shutbox" / up["version"] / "manifest.json").read_text()
    listing = json.loads(manifest)["files"]
    for rel, (size, sha) in listing.items():
        data = (vp.flash / ".shutbox" / up["version"] / rel).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, sha)


# Where the flash process dies (SIGKILL) while going from version A to B, and which version
# the board must start afterwards: the switch is one rename, so before it A, after it B.
KILL_POINTS = [("staged-dirs", "A"), ("copied", "A"), ("chunk:3", "A"), ("uploaded:1", "A"),
               ("verified", "A"), ("launcher", "A"), ("switched", "B"), ("moved", "B"),
               ("removed", "B")]


@pytest.mark.parametrize("point,runs", KILL_POINTS)
def test_flash_killed_part_way_never_bricks_and_the_next_flash_finishes(vp, fw, point, runs):
    fw_a, fw_b = fw
    mine = maker_files(vp.flash)
    flash.flash(vp.path, firmware=fw_a, out=quiet)
    result = cli_flash(vp.path, fw_b, kill=point)
    assert result.returncode == -9, (result.stdout, result.stderr)  # it really died there
    assert boot(vp) == runs
    done = flash.flash(vp.path, firmware=fw_b, out=quiet)
    assert boot(vp) == "B"
    assert versions(vp.flash) == [done["version"]]
    assert not {"current.tmp", "main.tmp"} & {p.name for p in (vp.flash / ".shutbox").iterdir()}
    assert_untouched(vp.flash, mine)
    if point in ("verified", "launcher"):  # everything was staged: nothing is sent again
        assert (done["uploaded"], done["copied"]) == (0, 0)
    if point == "switched":  # the launcher finished the switch at boot: nothing left to do
        assert (done["uploaded"], done["copied"], done["moved"]) == (0, 0, 0)


def test_a_switch_left_unfinished_is_finished_by_the_next_flash(vp, fw):
    """A flash killed right after its switch, its journal's renames not made, and flashed
    again before the board restarts (the launcher would make them at boot): the next flash
    makes them itself (the journal read back from the board, its renames a batch a command)
    and finds B whole."""
    fw_a, fw_b = fw
    flash.flash(vp.path, firmware=fw_a, out=quiet)
    result = cli_flash(vp.path, fw_b, kill="switched")
    assert result.returncode == -9, (result.stdout, result.stderr)
    current = (vp.flash / ".shutbox" / "current").read_text()
    assert (vp.flash / ".shutbox" / current / layout.FINISH).exists()  # renames still to make
    lines: list[str] = []
    done = flash.flash(vp.path, firmware=fw_b, out=lines.append)
    assert "finished the switch to %s that a cut-off flash made" % current in lines, lines
    assert (done["version"], done["uploaded"], done["copied"], done["moved"]) == \
        (current, 0, 0, 0)
    assert not (vp.flash / ".shutbox" / current / layout.FINISH).exists()
    assert versions(vp.flash) == [current]
    assert boot(vp) == "B"


@pytest.mark.long  # mpremote's own timeouts take most of it (no short version: make test)
def test_board_reset_mid_flash_is_a_clear_error_and_recovers(vp, tmp_path):
    """The cable pulled and plugged back in mid-upload: the board reboots under the flash."""
    fw_a = make_firmware(tmp_path / "a", "A")
    fw_b = make_firmware(tmp_path / "b", "B", extra=os.urandom(50_000))
    flash.flash(vp.path, firmware=fw_a, out=quiet)

    def pull_cable(board, phase, n):  # at the 5th chunk of the upload, it restarts
        if (phase, n) == ("chunk", 5):
            vp.power_cycle()
            time.sleep(0.3)

    t0 = time.monotonic()
    with pytest.raises(UserError, match="writing .* failed"):
        flash.flash(vp.path, firmware=fw_b, out=quiet, on_point=pull_cable)
    assert time.monotonic() - t0 < 30  # mpremote's own timeouts: it does not hang
    assert vp.boots[-2:] == ["raw", "hard"]  # the flash's own soft reset, then the power cut
    assert boot(vp) == "A"
    flash.flash(vp.path, firmware=fw_b, out=quiet)
    assert boot(vp) == "B"


def test_a_damaged_version_on_the_board_is_rebuilt_aside(vp, fw):
    first = flash.flash(vp.path, firmware=fw[0], out=quiet)
    live = vp.flash / ".shutbox" / first["version"]
    (live / "shutbox" / "ver.mpy").write_bytes(b"bit rot")
    repair = flash.flash(vp.path, firmware=fw[0], out=quiet)
    assert repair["version"] == first["version"]  # same firmware, staged beside the live one
    assert repair["uploaded"] == 1 and repair["removed"] == [first["version"]]
    assert versions(vp.flash) == [first["version"] + "b"]
    assert boot(vp) == "A"
    again = flash.flash(vp.path, firmware=fw[0], out=quiet)
    assert (again["uploaded"], again["copied"]) == (0, 0)
    # a damaged table is replaced in place (a rename over it): every version naming it
    # wants that content; the version folder stays
    (name,) = stored_tables(vp.flash)
    (vp.flash / ".shutbox" / "tables" / name).write_bytes(b"bit rot")
    fixed = flash.flash(vp.path, firmware=fw[0], out=quiet)
    assert (fixed["uploaded"], fixed["moved"], fixed["removed"]) == (1, 0, [])
    assert stored_tables(vp.flash) == {name: TABLE}
    assert versions(vp.flash) == [first["version"] + "b"]
    assert boot(vp) == "A"


def test_the_points_of_a_flash_go_to_its_own_hook_in_order(vp, fw):
    """The hook is handed to one flash (no module-wide switch): it sees the named points of
    that flash in their order, and the next flash, given none, calls nothing."""
    assert not hasattr(flash, "on_point")
    flash.flash(vp.path, firmware=fw[0], out=quiet)
    seen = []
    done = flash.flash(vp.path, firmware=fw[1], out=quiet,
                       on_point=lambda board, phase, n: seen.append((phase, n, board is None)))
    phases = [p for p, _, _ in seen]
    steps = [p for p in dict.fromkeys(phases) if p != "chunk"]
    assert steps == ["staged-dirs", "copied", "uploaded", "verified", "launcher", "switched",
                     "moved", "removed", "done"], seen
    chunks = [n for p, n, _ in seen if p == "chunk"]
    assert chunks == list(range(1, len(chunks) + 1)) and chunks, seen
    assert [n for p, n, _ in seen if p == "uploaded"] == list(range(1, done["uploaded"] + 1))
    assert {p for p, _, none in seen if none} == {"chunk", "removed"}  # no board held there
    assert boot(vp) == "B"
    flash.flash(vp.path, firmware=fw[0], out=quiet)
    assert len(seen) == len(phases)  # not called again
    assert boot(vp) == "A"


def test_first_flash_killed_then_finished(vp, fw):
    result = cli_flash(vp.path, fw[0], kill="chunk:2")
    assert result.returncode == -9
    done = flash.flash(vp.path, firmware=fw[0], out=quiet)
    assert done["kept"] >= 1  # what made it across the first time is not sent again
    assert boot(vp) == "A"


def test_wrong_board_is_refused_unless_forced(tmp_path, fw):
    with vpico.VirtualPico(tmp_path / "esp", platform="esp32") as other:
        result = cli_flash(other.path, fw[0])
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert "not MicroPython on a Raspberry Pi Pico (rp2)" in result.stderr
        assert list(other.flash.iterdir()) == []  # nothing written
        forced = cli_flash(other.path, fw[0], "--force")
        assert forced.returncode == 0, forced.stderr
        assert "warning" in forced.stdout
        assert boot(other) == "A"


def test_makers_main_py_is_kept(vp, fw):
    (vp.flash / "main.py").write_text("print('my own program')\n")
    result = cli_flash(vp.path, fw[0])
    assert result.returncode == 2 and "its own /main.py" in result.stderr
    assert (vp.flash / "main.py").read_text() == "print('my own program')\n"
    assert not (vp.flash / ".shutbox").exists()
    result = cli_flash(vp.path, fw[0], "--force")
    assert result.returncode == 0, result.stderr
    assert (vp.flash / "main_before_shutbox.py").read_text() == "print('my own program')\n"
    assert boot(vp) == "A"


def test_py_source_when_bytecode_cannot_match(vp, fw):
    result = cli_flash(vp.path, fw[0], env={"MPY_CROSS": "/nonexistent/mpy-cross"})
    assert result.returncode == 0, result.stderr
    assert ".py source (mpy-cross not found" in result.stdout
    (current,) = versions(vp.flash)
    assert (vp.flash / ".shutbox" / current / "shutbox" / "ver.py").exists()
    assert boot(vp) == "A"


def test_dry_run_changes_nothing(vp, fw):
    mine = maker_files(vp.flash)
    result = cli_flash(vp.path, fw[0], "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "would upload n9-%s.bin" % hashlib.sha256(TABLE).hexdigest()[:12] in result.stdout
    assert not (vp.flash / ".shutbox").exists() and not (vp.flash / "main.py").exists()
    assert_untouched(vp.flash, mine)


def test_a_dry_run_on_an_up_to_date_board_does_not_reset_it(vp, fw):
    """The chip is not reset (its watchdog's REASON stays as the power-up left it, 0; a
    machine.reset() would make it FORCE): a soft reboot starts the box again."""
    assert cli_flash(vp.path, fw[0]).returncode == 0
    boot(vp)  # a power cycle: REASON 0
    log = vp.flash / "boots.log"
    n = len(log.read_text().split())
    assert vp.watchdog[0] == 0
    result = cli_flash(vp.path, fw[0], "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "nothing to copy" in result.stdout and "board reset" not in result.stdout
    wait_for(lambda: len(log.read_text().split()) > n, lambda: "the box did not start again")
    assert vp.watchdog[0] == 0, vp.watchdog


def test_missing_busy_and_silent_ports_are_one_line_errors(vp, fw, tmp_path, monkeypatch):
    result = cli_flash(str(tmp_path / "ttyACM9"), fw[0])
    assert result.returncode == 2 and "no such port" in result.stderr
    assert result.stderr.count("\n") == 1
    for not_a_port in ("/dev/null", str(fw[0] / "main.py")):  # no tty: not "in use"
        result = cli_flash(not_a_port, fw[0])
        assert result.returncode == 2 and "is not a serial port" in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1
    holder = serial.Serial(vp.path, 115200, exclusive=True)  # a terminal left open
    try:
        result = cli_flash(vp.path, fw[0])
    finally:
        holder.close()
    assert result.returncode == 2 and "another program is using it" in result.stderr
    assert result.stderr.count("\n") == 1
    # A serial device that never answers (a pty with nobody behind it).
    import pty

    master, slave = pty.openpty()
    try:
        monkeypatch.setattr(flash, "CONNECT_TIMEOUT", 1)
        with pytest.raises(UserError, match="does not answer like MicroPython"):
            flash.flash(os.ttyname(slave), firmware=fw[0], out=quiet)
    finally:
        os.close(master)
        os.close(slave)


def test_no_pico_on_usb(fw):
    import serial.tools.list_ports

    if any(p.vid == boards.PICO_VID for p in serial.tools.list_ports.comports()):
        pytest.skip("a real Pico is plugged in: this test would flash it")
    result = subprocess.run([*SHUTBOX, "flash", "--firmware", str(fw[0])],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("shutbox flash: error: no Pico found on USB")
    assert "--port /dev/ttyACM0" in result.stderr  # the command's own option, not make's
    assert result.stderr.count("\n") == 1


def test_the_real_firmware_boots_and_plays_a_scripted_game(vp):
    """A full flash of firmware/; the box starts it, then plays a whole game through its pins."""
    if not (mp.FIRMWARE / "main.py").exists() or not (mp.SIM / "boxrun.py").exists():
        pytest.skip("the firmware or the simulated board's harness is not written yet")
    from shutbox_host.box import boxsim
    from shutbox_host.box.plan import plan_game

    summary = flash.flash(vp.path, out=quiet)
    assert summary["format"].startswith("mpy")
    # every file but the manifest (written apart) and every table the 9-tile box reads
    assert (summary["uploaded"], summary["tables"]) == (summary["files"] - 1 + 3, 3)

    # It boots: after the reset the launcher runs the flashed version's main loop (its game
    # module loaded: app.main forgets its own module's name once the loop runs).
    def running():
        out = mpremote(vp.path, "resume", "exec", "import sys\nm = sys.modules\n"
                       "print(m['shutbox.game'].__file__ if 'shutbox.game' in m else '-')\n"
                       "print(m['machine'].__file__ if 'machine' in m else '-')").stdout
        return out.split()

    wait_for(lambda: running()[0] != "-", running)
    app_file, machine_file = running()
    assert app_file == "/.shutbox/%s/shutbox/game.mpy" % summary["version"]
    assert machine_file.startswith("/.vpico-sim/")  # the simulated board is its hardware

    # It plays: in that same interpreter, the box's App (the flashed modules) on its pins, fed
    # a whole one-player game over the serial line by the simulated board's harness.
    script, expect = plan_game(players=1, seed=3)
    con = Console(vp.path)
    try:
        con.prompt()
        con.send(b"\x01")
        con.expect(b"raw REPL; CTRL-B to exit\r\n>")
        con.send(b"import sys\nsys.argv[:] = ['boxrun', '--players', '1']\nimport boxrun\n\x04")
        con.expect(b"OK")
        con.send(script.text().encode())
        out = con.expect(b"\x04", timeout=60)[:-1].decode()
        err = con.expect(b"\x04>")[:-2].decode()
    finally:
        con.close()
    assert err == ""
    frames, _tones, log, _lines = boxsim.parse(out)
    assert frames  # it drew the LEDs
    assert [e["dice"] for e in log if e["ev"] == "throw"] == expect["throws"]
    assert [e["shut"] for e in log if e["ev"] == "move"] == expect["moves"]
    assert [e["score"] for e in log if e["ev"] == "score"] == expect["scores"]
    assert [e["ev"] for e in log][-1] == "winner"


def test_the_hardware_guides_switch_reading_command_works_on_a_flashed_box(vp):
    """hardware/README.md's mpremote command, as written, on a box that `shutbox flash` made."""
    import re
    import shlex

    flash.flash(vp.path, out=quiet)
    guide = (mp.ROOT / "hardware" / "README.md").read_text()
    line = next(x for x in guide.splitlines() if x.startswith("mpremote exec ") and "switches"
                in x)
    args = shlex.split(line)[1:]
    out = mpremote(vp.path, *args).stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"0b1{9} False", out), out  # nine tiles up, Roll not pressed
def test_after_a_flash_the_box_starts_with_no_notice(vp):
    """Issue 17: the flash resets the board with machine.reset(), which on rp2 restarts the
    chip through its watchdog (reset_cause() WDT_RESET, as after a hang; REASON FORCE); the
    flash also leaves the box's mark of a reset on purpose in SCRATCH3. The box starts its
    game with no boot notice and writes nothing to /error.log."""
    from shutbox import board

    flash.flash(vp.path, out=quiet)
    assert vp.boots[-1] == "hard"
    assert vp.watchdog[0] == 2  # REASON.FORCE
    assert vp.watchdog[1 + 3] == board._RESET_MARK  # SCRATCH3

    def out():
        return bytes(vp.outputs[-1])

    wait_for(lambda: b'"ev": "turn"' in out(), out, timeout=30)
    assert b'"ev": "settings"' in out()  # everything the box printed since it started
    assert b'"notice"' not in out() and b'"fault"' not in out(), out()
    assert not (vp.flash / "error.log").exists()


def test_the_flashs_reset_leaves_its_mark(vp):
    """The reset shutbox flash makes (flash.Board.reset) writes the mark into SCRATCH3 before
    machine.reset(), on an RP2040: a main.py of the maker's reads it at boot."""
    from shutbox import board

    (vp.flash / "main.py").write_text(
        "import machine\nwith open('/regs.log', 'a') as f:\n"
        "    f.write('%d %d\\n' % (machine.mem32[0x40058008], machine.mem32[0x40058018]))\n")
    log = vp.flash / "regs.log"

    def lines():  # one a boot of main.py (a soft reboot runs it too: REASON unchanged)
        return log.read_text().splitlines() if log.exists() else []

    b = flash.Board(vp.path)
    try:
        n = len(lines())
        b.reset()
    finally:
        b.close()
    wait_for(lambda: len(lines()) > n, lines)
    assert lines()[-1] == "2 %d" % board._RESET_MARK  # REASON.FORCE, the mark



def _held_after_reset_sent(vp, hold_s: float):
    """on_point for flash.flash: from its "done" point (the reset next), the board's
    interpreter is stopped (SIGSTOP) for *hold_s* as soon as it has taken the reset's code,
    as a loaded host or a busy board holds it: the reset runs late."""
    import signal
    import threading

    def on_point(board, phase, n):
        if phase != "done":
            return
        sent = board.t.exec_raw_no_follow

        def exec_then_hold(code):
            sent(code)
            pid = vp._proc.pid
            os.kill(pid, signal.SIGSTOP)
            threading.Timer(hold_s, os.kill, (pid, signal.SIGCONT)).start()
        board.t.exec_raw_no_follow = exec_then_hold
    return on_point


def test_a_flash_returns_once_its_reset_took_place_however_late_the_board(vp):
    """The flash's last step resets the board: `shutbox flash` returns once the board said
    it runs the reset and then went (a real Pico's USB drops; here its next start printed),
    not after a fixed wait that a slow board outlasts (it returned with the board still in
    the raw REPL of its own connection, the reset not run yet)."""
    flash.flash(vp.path, out=quiet, on_point=_held_after_reset_sent(vp, 1.0))
    assert vp.boots[-1] == "hard", vp.boots


def test_a_flash_right_after_a_flash_opens_the_port_however_slow_the_reset(vp, monkeypatch):
    """A flash right after another opens the port: the first one is over with the board's
    restart. The virtual Pico's next interpreter, forked by the reset while the first flash
    still held the port, shares the port's lock until it runs; here that start is made slow
    on purpose (1 s in the child before it runs), and the second flash found the port
    "used by another program" when the first returned before the restart."""
    tied = mp.tied

    def slow_tied(nice=0):
        opts = tied(nice)
        first = opts.get("preexec_fn")

        def preexec():
            if first is not None:
                first()
            time.sleep(1)
        return dict(opts, preexec_fn=preexec)
    monkeypatch.setattr(mp, "tied", slow_tied)
    flash.flash(vp.path, out=quiet)
    plan = flash.flash(vp.path, dry_run=True, out=quiet)
    assert plan["kept"] > 0, plan

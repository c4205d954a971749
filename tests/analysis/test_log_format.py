# The game log's format: the schema covers every record the firmware prints, and no other.
"""docs/log-format.md and docs/log.schema.json against the firmware: every kind of record the
firmware can print is in both, the firmware prints each of them in real runs on the simulated
board and each follows the schema, the schema refuses what is not a record, and the version
is the same everywhere. (tests/conftest.py checks every record of every other test too.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import logschema
import pytest

from shutbox import game, powerup
from shutbox_host.analysis import log
from shutbox_host.bench import game as bench_game
from shutbox_host.bench import settings as bench_settings
from shutbox_host.box import boxsim
from shutbox_host.model.script import Script

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware" / "shutbox"
SCHEMA = json.loads(logschema.SCHEMA_PATH.read_text())
DOC = (ROOT / "docs" / "log-format.md").read_text()
RECORDER = {"link"}  # the kinds `shutbox log` writes itself
# printed only where the box can sleep (shutbox.sleep: the chip, not the simulated board):
# tests/pico/test_power.py checks them against the schema on the emulated RP2040
CHIP_ONLY = {"sleep", "wake"}


def firmware_kinds(folder: Path = FIRMWARE) -> set[str]:
    """Every "ev" the firmware's source writes (the way the issue counts them)."""
    kinds = set()
    for path in folder.glob("*.py"):
        kinds |= set(re.findall(r'"ev": "([a-z_]+)"', path.read_text()))
    return kinds


def test_the_schema_and_the_doc_list_every_kind_the_firmware_prints():
    kinds = firmware_kinds()
    assert len(kinds) == 21  # the count, and sleep and wake (shutbox.sleep)
    # and the Pico W companion's own record (its server not started)
    kinds |= firmware_kinds(FIRMWARE.parent / "companion")
    assert "companion" in kinds
    assert set(SCHEMA["properties"]["ev"]["enum"]) == kinds | RECORDER
    assert {k for k in SCHEMA["$defs"] if k in kinds | RECORDER} == kinds | RECORDER
    for kind in kinds | RECORDER:
        assert "| `%s` |" % kind in DOC, kind


def test_one_version_everywhere():
    assert game._LOG_VERSION == powerup._LOG_VERSION == log.FORMAT == 3
    assert SCHEMA["$defs"]["version"] == {"const": 3}
    assert "format version 3" in DOC and "version **3**" in DOC


def _runs(tmp_path) -> list[boxsim.Run]:
    """Runs of the real firmware on the simulated board that between them print every kind
    of record: the all-features game, the settings bench's match, out-at-45, mistakes, a
    fault and a power cut."""
    runs = [bench_game.all_features_run(str(tmp_path / "all"), "1m")]
    runs.append(boxsim.run(bench_settings.all_game(), "--flash", str(tmp_path / "match"),
                           "--powerup", heapsize="1m") if _save(tmp_path / "match") else None)
    s = Script().wait(100)
    s.lines.append("b players=2 format=3 to_go=1")  # out at 45: a 4 under 2-to-go scores 45
    s.wait(100).dice(2, 2).click(120).wait(1500).click(120).wait(200)
    s.dice(2, 2).click(120).wait(1500).click(120).wait(300)
    runs.append(boxsim.run(s, heapsize="256k"))
    s = Script().wait(100).dice(6, 6).click(120).wait(800).shut(9, 3).wait(200)  # a move
    s.shut(5).wait(100).click(120).wait(100)  # a mistake (shut before the throw), refused
    runs.append(boxsim.run(s, heapsize="256k"))
    s = Script().wait(100).dice(6, 6).click(120).wait(800)
    s.lines.append("r")  # a power cut while the throw shows: the game resumes
    s.wait(300).lines.append("x 2 5")  # then a fault: the guard logs it, restarts, notice
    s.wait(12000)
    runs.append(boxsim.run(s, "--flash", str(tmp_path / "cut"), heapsize="256k"))
    return [r for r in runs if r is not None]


def _save(folder: Path) -> bool:
    from shutbox import setfile
    from shutbox.store import Store

    (folder / "data").mkdir(parents=True)
    return setfile.save(bench_settings.ALL_SETTINGS, Store(str(folder / "data"))) == 0


def test_real_runs_print_every_kind_and_each_follows_the_schema(tmp_path):
    seen: dict = {}
    for r in _runs(tmp_path):  # boxsim.parse has checked each record (tests/conftest.py)
        assert r.returncode == 0, r.stderr
        for rec in r.log:
            seen[rec["ev"]] = seen.get(rec["ev"], 0) + 1
            assert logschema.problem(rec, whole=True) is None, rec  # the whole schema too
    assert set(seen) == firmware_kinds() - CHIP_ONLY, sorted(firmware_kinds() - set(seen))
    assert sum(seen.values()) > 100, seen


def test_the_check_of_every_test_s_records_catches_one_off_the_schema():
    """The conftest hook: a box printing a record the schema does not know fails the test."""
    good = '{"ev": "turn", "player": 1, "open": [1, 2, 3]}\n'
    assert boxsim.parse(good)[2] == [json.loads(good)]
    with pytest.raises(AssertionError, match="not in docs/log.schema.json"):
        boxsim.parse('{"ev": "turn", "player": 5, "open": [1, 2, 3]}\n')


GOOD = [
    {"ev": "throw", "player": 2, "dice": [6, 1], "total": 7, "open": [1, 9], "moves": 1},
    {"ev": "throw", "player": 1, "dice": [4], "total": 4, "open": [1, 3], "moves": 1,
     "t": "2026-05-01T12:00:00.123Z"},
    {"ev": "settings", "v": 3, "status": 0, "values": [0] * 25, "code": "0042"},
    {"ev": "throw", "player": 1, "dice": [5, 2], "total": 7, "open": [1, 9], "moves": 2,
     "real": True},
    {"ev": "refused", "player": 1, "why": "dice", "tiles": []},
    {"ev": "sleep", "why": "idle", "mv": 4180}, {"ev": "wake", "mv": -1},
    {"ev": "notice", "tiles": [5]},
    {"ev": "link", "t": "2026-05-01T12:00:00.123Z", "state": "lost", "port": "/dev/ttyACM0"},
]
BAD = [
    {"player": 1},  # no kind
    {"ev": "dance"},  # an unknown kind
    {"ev": "throw", "player": 2, "dice": [7, 1], "total": 8, "open": [], "moves": 1},
    {"ev": "throw", "player": 2, "dice": [6, 1], "total": 7, "open": [], "moves": 1,
     "extra": 1},  # a field the format does not have
    {"ev": "throw", "player": 2, "dice": [6, 1], "total": 7, "open": []},  # one missing
    {"ev": "settings", "v": 4, "status": 0, "values": [0] * 25, "code": "off"},  # newer
    {"ev": "settings", "v": 3, "status": 0, "values": [0] * 22, "code": "off"},  # older
    {"ev": "throw", "player": 1, "dice": [5, 2], "total": 7, "open": [1], "moves": 2,
     "real": False},  # only entered throws are marked
    {"ev": "sleep", "why": "tired", "mv": 4000},  # sleeps for idleness or flat cells
    {"ev": "notice", "tiles": [6]},  # five reasons
    {"ev": "game", "v": 3, "players": 2, "tiles": 9, "code": "42",
     "rules": {"one-die": "never", "one-die-mode": "optional", "moves": "any",
               "scoring": "sum", "start": "all-open"}},  # a code is four digits
    {"ev": "error", "player": 1, "why": "setup", "tiles": [1]},  # setup is no mistake
    {"ev": "link", "state": "open", "port": "x"},  # the recorder's record without its time
    {"ev": "turn", "player": 1, "open": [1], "t": "yesterday"},
]


@pytest.mark.parametrize("rec", GOOD)
def test_the_schema_takes_records(rec):
    assert logschema.problem(rec) is None and logschema.problem(rec, whole=True) is None


@pytest.mark.parametrize("rec", BAD)
def test_the_schema_refuses_what_is_not_a_record_of_this_version(rec):
    assert logschema.problem(rec) is not None and logschema.problem(rec, whole=True)

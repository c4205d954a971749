# The firmware's shared constants: every module's block equals the table (shutbox consts).
"""Each firmware module's copies of the shared constants (and the shared variant_key) are
written from one table, shutbox_host.hardware.consttable, by ``shutbox consts``: the committed
blocks equal a fresh generation, a block edited by hand or a copy kept by hand outside a block
fails ``shutbox consts --check`` in one line naming the module, and the blocks hold what the
firmware's own vocabularies say (the variant ints, the option pages, the rule names)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shutbox import engine, frame, game, setfile, setnames, settings, store, variants
from shutbox import menu as _menu
from shutbox import resume as _resume
from shutbox import sleep as _sleep
from shutbox_host.errors import UserError
from shutbox_host.hardware import constgen, consttable

ROOT = Path(__file__).resolve().parents[2]


def _shutbox(*args):
    return subprocess.run([sys.executable, "-m", "shutbox_host.cli", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def copy(tmp_path):
    """A copy of the firmware modules (the box's and the Pico W companion's) under tmp_path
    (the --root of the commands)."""
    for sub in (constgen.FIRMWARE, "firmware/companion"):
        shutil.copytree(ROOT / sub, tmp_path / sub,
                        ignore=shutil.ignore_patterns("tables", "__pycache__"))
    return tmp_path


def test_every_block_equals_the_table():
    assert constgen.stale(ROOT) == [], "run `shutbox consts` and commit the result"


def test_check_command_passes_on_the_repository():
    result = _shutbox("consts", "--check")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "%d modules match the constants' table" % len(
        constgen.blocks())


def test_check_command_names_a_module_edited_by_hand(copy):
    menu = copy / constgen.FIRMWARE / "menu.py"
    text = menu.read_text()
    assert "\n_DIGIT_MS = const(900)  #" in text
    menu.write_text(text.replace("\n_DIGIT_MS = const(900)  #", "\n_DIGIT_MS = const(800)  #"))
    result = _shutbox("consts", "--check", "--root", str(copy))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip() == (
        "consts: out of date (run `shutbox consts`, or add the copy to the table): "
        "firmware/shutbox/menu.py")
    # the command writes the table's value back; the check then passes
    assert _shutbox("consts", "--root", str(copy)).returncode == 0
    assert menu.read_text() == text
    assert _shutbox("consts", "--check", "--root", str(copy)).returncode == 0


def test_check_command_names_a_copy_kept_by_hand(copy):
    """A table constant copied by hand into a module outside its block (same name, same
    value) fails the check; another value under the same name is another constant."""
    coach = copy / constgen.FIRMWARE / "coach.py"
    text = coach.read_text()
    coach.write_text(text.replace("_COUNT_MS = const(1000)",
                                  "_ROLLOFF = const(6)\n_COUNT_MS = const(1000)"))
    result = _shutbox("consts", "--check", "--root", str(copy))
    assert result.returncode == 1
    assert result.stderr.strip().endswith(": coach: _ROLLOFF")
    coach.write_text(text.replace("_COUNT_MS = const(1000)",
                                  "_ROLLOFF = const(7)\n_COUNT_MS = const(1000)"))
    assert _shutbox("consts", "--check", "--root", str(copy)).returncode == 0


def test_the_companions_copies_are_checked_too(copy):
    """The Pico W companion's modules keep table constants in blocks too: one kept by hand
    there fails the check."""
    web = copy / "firmware" / "companion" / "web.py"
    text = web.read_text()
    at = text.index("\n_")
    web.write_text(text[:at] + "\n_MOVE = const(3)" + text[at:])
    result = _shutbox("consts", "--check", "--root", str(copy))
    assert result.returncode == 1
    assert result.stderr.strip().endswith(": web: _MOVE"), result.stderr


def test_a_block_without_its_markers_is_refused(copy):
    rescue = copy / constgen.FIRMWARE / "rescue.py"
    rescue.write_text(rescue.read_text().replace("# END consts\n", ""))
    result = _shutbox("consts", "--check", "--root", str(copy))
    assert result.returncode == 2  # a UserError: one line, no traceback
    assert result.stderr.count("\n") == 1
    assert "rescue.py: needs one `# BEGIN consts: ...` line" in result.stderr


def test_a_long_string_is_cut_within_the_line_length():
    lines = constgen.render_const("_RULE_NAMES", consttable._RULE_NAMES, "a note")
    assert len(lines) > 2 and all(len(line) <= constgen.WIDTH for line in lines)
    assert lines[0] == "# a note"
    joined = "".join(line.split('"')[1] for line in lines[1:])
    assert joined == consttable._RULE_NAMES


def test_a_name_twice_in_a_module_is_refused(monkeypatch):
    table = consttable.TABLE + (consttable.Const("X", 1, "", "rounds:_MAX"),)
    monkeypatch.setattr(consttable, "TABLE", table)
    with pytest.raises(UserError, match="_MAX twice in rounds"):
        constgen.blocks()


# ----- the blocks hold what the firmware's vocabularies say -----


def test_the_copies_are_the_firmware_vocabularies_values():
    """The derived entries, checked against the modules themselves on CPython."""
    v = variants
    assert [engine._ONE_DIE_RULES, engine._MODES, engine._MOVE_RULES, engine._SCORINGS,
            engine._STARTS] == [len(v.ONE_DIE), len(v.ONE_DIE_MODE), len(v.MOVES),
                                len(v.SCORING), len(v.START)]
    assert (engine._START_ODD_OPEN, engine._MODE_FORCED, game._MODE_LOCKED) == (
        v.START_ODD_OPEN, v.MODE_FORCED, v.MODE_LOCKED)
    names = [v.ONE_DIE, v.ONE_DIE_MODE, v.MOVES, v.SCORING, v.START]
    assert game._RULE_NAMES == "/".join(
        " ".join((key,) + vals) for key, vals in zip(setnames.OPTIONS[3:8], names, strict=True))
    assert settings.ATTRS[settings._GAME_OPTIONS] == "sound" == settings.ATTRS[_menu._SOUND]
    assert settings.ATTRS[_menu._BRIGHTNESS] == "brightness"
    assert settings.ATTRS[setfile._TO_GO] == "to_go"
    assert len(_sleep._MINUTES) == settings.COUNTS[settings.ATTRS.index("sleep")]
    assert _resume._NAMES.split()[game._ROLLOFF] == "rolloff"
    assert _resume._NAMES.split()[game.MOVE] == "move" and not _resume._SAVED >> game.MOVE & 1
    assert _menu._CODE_VIEW_MS == 5 * frame._DIGIT_MS
    assert game._CODE_CYCLE_MS == game._CYCLE_MS + _menu._CODE_VIEW_MS
    assert (store._TRUNCATED, store._BAD_VERSION) == (2, 4)

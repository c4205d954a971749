# Tests for shutbox.store: power cuts on MicroPython's littlefs, damaged files, both interpreters.
"""The store keeps the old or the new version through any power cut and never trusts bad files."""

from __future__ import annotations

import os
import re
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import store as st_mod
from shutbox.store import MISSING, OK, Store, damaged
from shutbox_host import mp

# The damaged codes and the header's constants are private to shutbox.store (folded into its
# bytecode: no names in the box's RAM); on CPython they are plain module attributes.
TRUNCATED, BAD_MAGIC, BAD_VERSION = st_mod._TRUNCATED, st_mod._BAD_MAGIC, st_mod._BAD_VERSION
TOO_BIG, BAD_CRC, IO_ERROR = st_mod._TOO_BIG, st_mod._BAD_CRC, st_mod._IO_ERROR
FORMAT, HEADER = st_mod._FORMAT, st_mod._HEADER

ROOT = Path(__file__).resolve().parents[2]
MP_DIR = ROOT / "tests" / "mp"
CAP = 1024
payloads = st.binary(max_size=CAP)


def make(tmp_path, cap=CAP):
    """Return a Store in a fresh folder under *tmp_path*."""
    return Store(str(tmp_path / "data"), cap=cap)


def raw_of(store, name="f"):
    """Return the bytes of *name* as stored on disk."""
    return (Path(store.root) / name).read_bytes()


def put(store, raw, name="f"):
    """Write *raw* as *name*, bypassing the store."""
    Path(store.root).mkdir(exist_ok=True)
    (Path(store.root) / name).write_bytes(raw)


def check_bad(store, want, name="f"):
    """Both loads return nothing with status *want*; the file is reported damaged."""
    assert store.load(name) is None
    assert store.status == want
    assert store.load_into(name, bytearray(CAP)) == -1
    assert store.status == want
    assert damaged(store.status)


# --- the format, on CPython -------------------------------------------------------------


def test_header_layout_is_the_documented_one(tmp_path):
    """Magic, format, payload version, length LE, CRC-32 of header[0:8] + payload."""
    s = make(tmp_path)
    assert s.save("f", b"hello", version=3) == OK
    raw = raw_of(s)
    assert raw[:4] == b"SHBX" and raw[4] == FORMAT and raw[5] == 3
    assert int.from_bytes(raw[6:8], "little") == 5 and raw[HEADER:] == b"hello"
    assert int.from_bytes(raw[8:12], "little") == zlib.crc32(b"hello", zlib.crc32(raw[:8]))


@settings(max_examples=200, deadline=None)
@given(payload=payloads, version=st.integers(0, 255))
def test_roundtrip(tmp_path_factory, payload, version):
    """Whatever is saved loads back, by load and by load_into, with status OK."""
    s = make(tmp_path_factory.mktemp("rt"))
    assert s.save("f", payload, version) == OK
    assert s.load("f", version) == payload and s.status == OK
    buf = bytearray(CAP)
    assert s.load_into("f", buf, version) == len(payload) and buf[: len(payload)] == payload


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=3 * CAP))
def test_random_bytes_are_damaged(tmp_path_factory, raw):
    """Any random file is refused (a random CRC match is 1 in 4 billion, and magic first)."""
    s = make(tmp_path_factory.mktemp("rb"))
    put(s, raw)
    assert s.load("f") is None
    check_bad(s, s.status)


@settings(max_examples=300, deadline=None)
@given(payload=payloads, data=st.data())
def test_any_changed_byte_is_caught(tmp_path_factory, payload, data):
    """Changing any one byte anywhere gives the status that says which part broke."""
    s = make(tmp_path_factory.mktemp("flip"))
    s.save("f", payload)
    raw = bytearray(raw_of(s))
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] ^= data.draw(st.integers(1, 255))
    put(s, bytes(raw))
    if i < 4:
        want = BAD_MAGIC
    elif i < 6:
        want = BAD_VERSION
    elif i < 8:
        want = TOO_BIG if int.from_bytes(raw[6:8], "little") > CAP else TRUNCATED
    else:
        want = BAD_CRC
    check_bad(s, want)


@settings(max_examples=200, deadline=None)
@given(payload=payloads, data=st.data())
def test_truncated_or_padded(tmp_path_factory, payload, data):
    """A file cut short anywhere, or with bytes added, is damaged."""
    s = make(tmp_path_factory.mktemp("tr"))
    s.save("f", payload)
    raw = raw_of(s)
    put(s, raw[: data.draw(st.integers(0, len(raw) - 1))])
    check_bad(s, TRUNCATED)
    extra = data.draw(st.binary(min_size=1, max_size=8))
    put(s, raw + extra)
    check_bad(s, TOO_BIG if len(raw + extra) > HEADER + CAP else TRUNCATED)


@pytest.mark.parametrize("fmt", [0, 2, 255])
def test_unknown_format_version(tmp_path, fmt):
    """A store format this firmware does not know is not guessed at."""
    s = make(tmp_path)
    s.save("f", b"payload")
    raw = bytearray(raw_of(s))
    raw[4] = fmt
    put(s, bytes(raw))
    check_bad(s, BAD_VERSION)


def test_payload_version_mismatch(tmp_path):
    """Settings saved with layout 1 are refused when layout 2 is asked for, and vice versa."""
    s = make(tmp_path)
    s.save("settings", b"layout one", version=1)
    assert s.load("settings", version=2) is None and s.status == BAD_VERSION
    assert s.load("settings", version=1) == b"layout one"


def test_oversized_is_refused_without_reading(tmp_path):
    """A 100 MB (sparse) file is refused from its size alone, and a header over the cap too."""
    s = make(tmp_path)
    put(s, b"")
    with open(Path(s.root) / "f", "r+b") as f:
        f.truncate(100 * 1024 * 1024)
    check_bad(s, TOO_BIG)
    head = b"SHBX" + bytes([FORMAT, 0]) + (CAP + 1).to_bytes(2, "little") + bytes(4)
    put(s, head + bytes(CAP + 1))
    check_bad(s, TOO_BIG)
    with pytest.raises(ValueError):
        s.save("f", bytes(CAP + 1))


def test_load_into_a_small_buffer(tmp_path):
    """load_into never writes past its buffer: a longer payload is TOO_BIG."""
    s = make(tmp_path)
    s.save("f", bytes(100))
    assert s.load_into("f", bytearray(99)) == -1 and s.status == TOO_BIG
    assert s.load_into("f", bytearray(100)) == 100 and s.status == OK


def test_missing_is_not_damaged(tmp_path):
    """No file: None, MISSING, and the box has nothing to report."""
    s = make(tmp_path)
    assert s.load("settings") is None and s.status == MISSING and not damaged(MISSING)
    assert s.load_into("settings", bytearray(4)) == -1 and s.status == MISSING


def test_no_work_at_import_or_construction(tmp_path):
    """Making a Store touches nothing; the folder appears with the first save."""
    s = Store(str(tmp_path / "later"))
    assert not (tmp_path / "later").exists()
    assert s.save("f", b"x") == OK and (tmp_path / "later" / "f").exists()
    assert "Store" in dir(st_mod)


def test_leftover_tmp_is_an_unfinished_save(tmp_path):
    """A .tmp left by a cut is removed on load; the file keeps its last whole version."""
    s = make(tmp_path)
    s.save("game", b"turn 3")
    put(s, b"half of turn 4", "game.tmp")
    put(s, b"junk", "records.tmp")
    assert s.load("game") == b"turn 3"
    assert sorted(os.listdir(s.root)) == ["game", "records.tmp"]
    s.remove("records")  # the only other place a .tmp goes (factory reset)
    assert os.listdir(s.root) == ["game"]


def test_failed_save_keeps_the_old_version(tmp_path, monkeypatch):
    """When the flash refuses the write the old version stays and IO_ERROR is returned: a
    file that is there is written over in place, a new one through its .tmp."""
    s = make(tmp_path)
    s.save("records", b"old")
    real = open

    def refused(path, mode="r"):
        if "w" in mode:
            raise OSError(28)  # ENOSPC: the flash is full
        return real(path, mode)

    monkeypatch.setattr(st_mod, "open", refused, raising=False)
    assert s.save("records", b"new") == IO_ERROR and s.status == IO_ERROR
    assert s.save("game", b"new") == IO_ERROR
    monkeypatch.undo()
    assert s.load("records") == b"old"
    assert sorted(os.listdir(s.root)) == ["records"]


def test_a_file_there_is_written_in_place_a_new_one_through_its_tmp(tmp_path, monkeypatch):
    """One metadata commit a save on littlefs: no rename once the file is there."""
    s = make(tmp_path)
    renames = []
    rename = os.rename
    monkeypatch.setattr(st_mod.os, "rename", lambda a, b: renames.append(b) or rename(a, b))
    s.save("game", b"turn 1")
    s.save("game", b"turn 2")
    assert renames == [str(Path(s.root) / "game")] and s.load("game") == b"turn 2"


def test_names_cannot_escape_the_folder(tmp_path):
    """Names with a slash, empty names and .tmp names are programming errors."""
    s = make(tmp_path)
    for bad in ("", "../x", "a/b", "x.tmp"):
        with pytest.raises(ValueError):
            s.save(bad, b"")
        with pytest.raises(ValueError):
            s.load(bad)


def test_remove_is_a_factory_reset(tmp_path):
    """remove() deletes the file and any unfinished save; a missing file is fine."""
    s = make(tmp_path)
    s.save("records", b"x")
    put(s, b"y", "records.tmp")
    s.remove("records")
    s.remove("records")
    assert os.listdir(s.root) == []
    assert s.load("records") is None and s.status == MISSING


# --- under the real micropython ---------------------------------------------------------


def run_mp(script, *args, heapsize="1m", extra=()):
    """Run a tests/mp script; return its stdout, failing on a crash or any stderr."""
    r = mp.run(MP_DIR / script, *args, heapsize=heapsize, extra_path=[*extra, MP_DIR])
    assert r.returncode == 0 and not r.stderr, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def powercut_figures(out):
    """Parse the summary line of store_powercut.py."""
    m = re.search(r"^CUTS .*$", out, re.M)
    assert m, out[-2000:]
    words = m.group(0).split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}


def test_power_cut_at_every_flash_operation_of_every_save():
    """On VfsLfs2: after a cut anywhere in a save, the file is the old or the new version."""
    out = run_mp("store_powercut.py", "25")
    f = powercut_figures(out)
    assert f["FAIL"] == 0, out[-2000:]
    # a save of a file that is there is one metadata commit (written in place): 1-4 flash
    # operations, each cut in three modes
    assert f["CUTS"] >= 500 and f["SAVES"] == 75
    assert f["OLD"] > 0 and f["NEW"] > 0  # cuts landed both before and after the commit
    assert f["ERASES"] > 0  # some saves erased blocks, so cuts also fell mid-erase
    assert f["OVERPROG"] == 0
    assert f["CUTS"] == f["OLD"] + f["NEW"]


@pytest.mark.slow
def test_power_cut_soak():
    """600 saves: metadata compaction and block relocation are crossed too."""
    f = powercut_figures(run_mp("store_powercut.py", "200", heapsize="2m"))
    assert f["FAIL"] == 0 and f["CUTS"] > 4000  # one commit a save: 1-4 operations


BROKEN = {
    # Deleting the old file before writing the new one leaves a window with no file at all.
    "remove-then-write": ("            tmp = path\n",
                          "            tmp = path\n            os.remove(path)\n"),
    # Writing the header and the payload in two commits leaves a short file.
    "two-commits": ('            with f:\n                f.write(h)\n'
                    '                f.write(payload)\n',
                    '            f.close()\n            with open(path, "wb") as f:\n'
                    '                f.write(h)\n'
                    '            with open(path, "ab") as f:\n                f.write(payload)\n'),
}


@pytest.mark.parametrize("how", sorted(BROKEN))
def test_the_power_cut_harness_catches_a_non_atomic_store(tmp_path, how):
    """The same harness with a deliberately broken store reports failures: it can fail."""
    old, new = BROKEN[how]
    src = (ROOT / "firmware" / "shutbox" / "store.py").read_text()
    assert old in src
    (tmp_path / "shutbox").mkdir()
    (tmp_path / "shutbox" / "__init__.py").write_text("")
    (tmp_path / "shutbox" / "store.py").write_text(src.replace(old, new))
    f = powercut_figures(run_mp("store_powercut.py", "3", extra=[tmp_path]))
    assert f["FAIL"] > 0


def test_the_mp_vectors_use_the_stores_codes():
    """tests/mp/store_damaged.py keeps copies of the store's private codes: they match."""
    src = (MP_DIR / "store_damaged.py").read_text()
    ns: dict = {}
    exec(re.search(r"^TRUNCATED, .*\n(?:.*\n)*?FORMAT, HEADER = .*$", src, re.M).group(0), ns)
    assert (ns["TRUNCATED"], ns["BAD_MAGIC"], ns["BAD_VERSION"], ns["TOO_BIG"], ns["BAD_CRC"],
            ns["FORMAT"], ns["HEADER"]) == (TRUNCATED, BAD_MAGIC, BAD_VERSION, TOO_BIG,
                                            BAD_CRC, FORMAT, HEADER)
    assert ns["DAMAGED"] == TRUNCATED and damaged(TRUNCATED) and not damaged(MISSING)


def test_damaged_vectors_on_littlefs():
    """Truncated, flipped, padded, random, unknown versions, oversized: all refused."""
    out = run_mp("store_damaged.py", heapsize="512k")
    m = re.search(r"VECTORS (\d+) FAIL (\d+)", out)
    assert m and int(m.group(2)) == 0 and int(m.group(1)) > 1000, out[-2000:]


def test_damaged_vectors_on_the_unix_filesystem_in_64k(tmp_path):
    """The same vectors with the heap capped at 64 KB, on the unix port's own filesystem."""
    out = run_mp("store_damaged.py", str(tmp_path / "data"), heapsize="64k")
    m = re.search(r"VECTORS (\d+) FAIL (\d+)", out)
    assert m and int(m.group(2)) == 0 and int(m.group(1)) > 1000, out[-2000:]


def test_files_move_between_interpreters(tmp_path):
    """A file saved under micropython loads on CPython and the other way round."""
    root = str(tmp_path / "data")
    Store(root).save("records", b"from cpython", version=7)
    code = ("from shutbox.store import Store\ns = Store(%r)\n"
            "print(s.load('records', 7))\ns.save('settings', b'from micropython', 2)\n" % root)
    r = mp.run(code)
    assert r.returncode == 0 and r.stdout.strip() == "b'from cpython'", r.stderr
    assert Store(root).load("settings", 2) == b"from micropython"

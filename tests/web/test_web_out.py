# `shutbox web --out`: the page's folder is replaced only when a build made it.
"""A build replaces its folder whole; so a folder it did not make (a user's files) is refused
in one line and left as it was, and so is a file given as the folder. Nothing here needs the
page to be buildable: the folder is checked before anything else."""

from __future__ import annotations

import subprocess
import sys

from shutbox_host import mp
from shutbox_host.web import build

SHUTBOX = [sys.executable, "-m", "shutbox_host.cli"]


def web(*args):
    return subprocess.run([*SHUTBOX, "web", "--build-only", *args], capture_output=True,
                          text=True, cwd=str(mp.ROOT), timeout=120)


def test_a_folder_of_someone_else_s_files_is_refused_and_kept(tmp_path):
    mine = tmp_path / "photos"
    mine.mkdir()
    (mine / "holiday.jpg").write_bytes(b"\xff\xd8 a photo")
    (mine / "notes").mkdir()
    (mine / "notes" / "todo.txt").write_text("buy dice\n")
    p = web("--out", str(mine))
    assert p.returncode == 2, p
    assert len(p.stderr.strip().splitlines()) == 1 and "did not make" in p.stderr, p.stderr
    assert sorted(str(x.relative_to(mine)) for x in mine.rglob("*")) == \
        ["holiday.jpg", "notes", "notes/todo.txt"]
    assert (mine / "holiday.jpg").read_bytes() == b"\xff\xd8 a photo"


def test_a_file_as_the_folder_is_one_line(tmp_path):
    f = tmp_path / "page.html"
    f.write_text("mine\n")
    p = web("--out", str(f))
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "is a file" in p.stderr, p.stderr
    assert f.read_text() == "mine\n"


def test_what_a_build_may_replace(tmp_path):
    """New, empty, or holding the build's marker: yes; anything else: no."""
    build.check_out(tmp_path / "new")
    (tmp_path / "empty").mkdir()
    build.check_out(tmp_path / "empty")
    made = tmp_path / "made"
    made.mkdir()
    (made / build.MARKER).write_text("built\n")
    (made / "index.html").write_text("<p>old</p>\n")
    build.check_out(made)
    old = tmp_path / "old"  # built before the marker: its stamp beside box.json, worker.js
    old.mkdir()
    for name in ("box.json", "worker.js"):
        (old / name).write_text("{}\n")
    (old / ".stamp").write_text("ab" * 32 + "\n")
    build.check_out(old)
    (old / ".stamp").write_text("my notes\n")
    try:
        build.check_out(old)
    except build.UserError:
        pass
    else:
        raise AssertionError("a folder with a stamp of another's was accepted")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "index.html").write_text("mine\n")
    try:
        build.check_out(tmp_path / "other")
    except build.UserError as exc:
        assert "did not make" in str(exc)
    else:
        raise AssertionError("a folder of another's files was accepted")

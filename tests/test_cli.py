# The `shutbox` command line: sub-commands are wired, user mistakes are one line and exit 2.
"""Tests of the shutbox CLI dispatch."""

from __future__ import annotations

import subprocess
import sys

from shutbox_host import cli


def _shutbox(*args):
    return subprocess.run([sys.executable, "-m", "shutbox_host.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_unknown_command_is_one_line_and_exit_2():
    result = _shutbox("frobnicate")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "invalid choice" in result.stderr


def test_every_present_command_has_help():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert "bench" in sub.choices
    for name in sub.choices:
        result = _shutbox(name, "--help")
        assert result.returncode == 0, (name, result.stderr)
        assert "usage: shutbox " + name in result.stdout


def test_user_error_is_one_line(monkeypatch, capsys):
    from shutbox_host.errors import UserError

    def boom(_args):
        raise UserError("no Pico found on /dev/nothing")

    monkeypatch.setitem(cli.COMMANDS, "bench", ("shutbox_host.bench", "x"))
    parser = cli.build_parser(["bench"])
    args = parser.parse_args(["bench"])
    monkeypatch.setattr(cli, "build_parser", lambda argv=None: _Fixed(parser, boom))
    assert cli.main(["bench"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "shutbox bench: error: no Pico found on /dev/nothing"
    assert args.command == "bench"


class _Fixed:
    """A parser stand-in whose parsed args run *func*."""

    def __init__(self, parser, func):
        self.parser, self.func = parser, func

    def parse_args(self, argv):
        args = self.parser.parse_args(argv)
        args._run = self.func
        return args


def test_bad_values_are_refused_in_one_line():
    """Values a command cannot use stop it before it starts anything (issue 16's rough edges)."""
    for args, says in ((("bench", "--only", "bogus"), "invalid choice: 'bogus'"),
                       (("vpico", "--heap", "abc"), "'abc' is not a heap size"),
                       (("vpico", "--heap", "2k"), "too small")):
        result = _shutbox(*args)
        assert result.returncode == 2, (args, result)
        assert says in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines()[-1].startswith("shutbox "), result.stderr


def test_bench_help_lists_its_parts():
    from shutbox_host import bench

    out = _shutbox("bench", "--help").stdout
    for name in bench.PARTS:
        assert name.rsplit(".", 1)[1] in out


def test_version():
    from shutbox import __version__

    result = _shutbox("--version")
    assert result.returncode == 0 and result.stdout.strip() == "shutbox " + __version__


def test_a_command_whose_package_is_not_installed_says_how_to_install_it(tmp_path):
    """`shutbox enclosure` where build123d is not installed (hidden here if it is: an import
    of a module set to None in sys.modules fails as a missing one does)."""
    import shutil

    from shutbox_host import mp

    shutil.copytree(mp.ROOT / "hardware", tmp_path / "hardware")  # nothing written in ours
    code = ("import sys\nsys.modules['build123d'] = None\nfrom shutbox_host import cli\n"
            "sys.exit(cli.main(['enclosure', '--root', %r]))\n" % str(tmp_path))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert "needs build123d" in result.stderr and "make venv-enclosure" in result.stderr

# The `shutbox` command: one sub-command per host tool, each in its own module, loaded on use.
"""Entry point of the `shutbox` console script."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from shutbox_host.errors import UserError

DESCRIPTION = ("shutbox: the host tools of an electronic Shut the Box on a Raspberry Pi Pico "
               "(solve the game, build and flash the firmware, play the box on this PC).")

# name -> (module, one-line help). Each module defines configure(parser) and run(args) -> int;
# it is imported only when its command runs, so `shutbox --help` loads none of them.
COMMANDS = {
    "solve": ("shutbox_host.solve.cli", "solve a variant exactly (expected score, p(shut), ...)"),
    "advise": ("shutbox_host.solve.advise",
               "rank the moves of a throw exactly, or play a turn along (any position)"),
    "tables": ("shutbox_host.solve.tablegen", "write the firmware's generated tables"),
    "bench": ("shutbox_host.bench", "print speed and memory figures"),
    "play": ("shutbox_host.box.play", "play the simulated box in this terminal"),
    "board": ("shutbox_host.hardware.boardgen",
              "generate the pin module and documents from the pin map"),
    "consts": ("shutbox_host.hardware.constgen",
               "write the firmware modules' shared constants from their table"),
    "flash": ("shutbox_host.pico.flash", "put the firmware on a Raspberry Pi Pico with mpremote"),
    "uf2": ("shutbox_host.pico.uf2",
            "write one .uf2 for a Pico: MicroPython and the box's firmware (drag it onto the "
            "board's BOOTSEL drive)"),
    "vpico": ("shutbox_host.pico.vpico", "start a virtual Pico behind a pseudo-terminal"),
    "emu": ("shutbox_host.pico.emu_cli", "run the firmware on an emulated RP2040 (rp2040js)"),
    "fetch": ("shutbox_host.pico.inputs",
              "get MicroPython's RPI_PICO uf2 and the RP2040 bootrom for the emulated Pico"),
    "web": ("shutbox_host.web.serve",
            "serve the box in a web page: the real firmware on an emulated Pico, in the browser"),
    "card": ("shutbox_host.hardware.cardgen",
             "write the printable reference card and the docs' settings table"),
    "enclosure": ("shutbox_host.hardware.enclosure",
                  "generate and check the box's case, tiles and switch mounts (build123d)"),
    "daily": ("shutbox_host.box.daily",
              "print the challenge code of a date (UTC): the same on every PC"),
    "log": ("shutbox_host.analysis.log",
            "record the box's game log from USB, with this PC's timestamps"),
    "report": ("shutbox_host.analysis.report",
               "report on recorded games: each player's decisions and luck against the optimum"),
}


# Python packages some commands need that `make play` does not install: how to get them.
OPTIONAL = {
    "build123d": "make venv-enclosure (pip install -r requirements-enclosure.txt)",
    "OCP": "make venv-enclosure (pip install -r requirements-enclosure.txt)",
    "matplotlib": "make venv (pip install -r requirements-plots.txt)",
    "numpy": "make venv (pip install -r requirements-plots.txt)",
    "playwright": "make venv (pip install -r requirements-dev.txt)",
}


# Commands that write or read the repository's own files (the tables, the pin module, the
# card, the enclosure, the bench's machinery in tests/): they need a checkout, not a wheel.
CHECKOUT_ONLY = {"tables", "board", "consts", "card", "enclosure", "bench"}


def _missing(command: str, exc: ModuleNotFoundError) -> str | None:
    """One line for a command that needs a package not installed here, or None."""
    top = (exc.name or "").split(".")[0]
    if top not in OPTIONAL:
        return None
    return "%s needs %s, which is not installed here: %s" % (command, top, OPTIONAL[top])


def _version() -> str:
    from shutbox import __version__

    return __version__


def _command_in(argv: list[str]) -> str | None:
    """Return the sub-command *argv* names (the first word that is not an option), or None."""
    for word in argv:
        if not word.startswith("-"):
            return word
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Return the parser of every sub-command; only the one *argv* names is loaded."""
    parser = argparse.ArgumentParser(prog="shutbox", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version="shutbox " + _version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    wanted = _command_in(sys.argv[1:] if argv is None else argv)
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name != wanted:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            why = _missing(name, exc)
            if why:
                parser.exit(2, "shutbox %s: error: %s\n" % (name, why))
            if exc.name != module_name:
                raise
            parser.error("%s: this installation has no %s" % (name, module_name))
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the `shutbox` command line; user mistakes exit 2 with one line on stderr."""
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command in CHECKOUT_ONLY:
        from shutbox_host import mp

        if not mp.CHECKOUT:
            print("shutbox %s: error: it works on the repository's files: run it in a clone "
                  "of the shutbox repository (this shutbox is installed from a wheel)"
                  % args.command, file=sys.stderr)
            return 2
    try:
        return int(args._run(args) or 0)
    except UserError as exc:
        print("shutbox %s: error: %s" % (args.command, exc), file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        why = _missing(args.command, exc)
        if why is None:
            raise
        print("shutbox %s: error: %s" % (args.command, why), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `shutbox solve --json | head`: the reader left; say nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())

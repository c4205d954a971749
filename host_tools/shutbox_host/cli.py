# The `shutbox` command: one sub-command per host tool, each in its own module.
"""Entry point of the `shutbox` console script."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from shutbox_host.errors import UserError

# name -> (module, one-line help). Each module defines configure(parser) and run(args) -> int.
COMMANDS = {
    "solve": ("shutbox_host.solver_cli", "solve a variant exactly (expected score, p(shut), ...)"),
    "tables": ("shutbox_host.tablegen", "write the firmware's generated tables"),
    "bench": ("shutbox_host.bench", "print speed and memory figures"),
    "play": ("shutbox_host.play", "play the simulated box in this terminal"),
    "board": ("shutbox_host.boardgen", "generate the pin module and documents from the pin map"),
    "flash": ("shutbox_host.flash", "put the firmware on a Raspberry Pi Pico with mpremote"),
    "vpico": ("shutbox_host.vpico", "start a virtual Pico behind a pseudo-terminal"),
    "emu": ("shutbox_host.pico.emu_cli", "run the firmware on an emulated RP2040 (rp2040js)"),
    "card": ("shutbox_host.cardgen", "write the printable reference card and README's table"),
}


def build_parser() -> argparse.ArgumentParser:
    """Return the parser with every sub-command whose module is present."""
    parser = argparse.ArgumentParser(prog="shutbox", description=__doc__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the `shutbox` command line; user mistakes exit 2 with one line on stderr."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except UserError as exc:
        print("shutbox %s: error: %s" % (args.command, exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `shutbox solve --json | head`: the reader left; say nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())

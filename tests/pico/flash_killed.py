# `shutbox flash` that kills itself at a named point of the flash: fault injection for the tests.
"""``python flash_killed.py PHASE[:N] ARGS...`` runs ``shutbox flash ARGS`` with a hook
(shutbox_host.pico.flash.flash's ``on_point``) that SIGKILLs this process at the point PHASE
(its N-th, 0 without N): a flash that dies there, as one whose USB cable is pulled does. The
product holds no switch for it: the hook is handed to this one flash from here."""

import argparse
import os
import sys
from pathlib import Path

from shutbox_host.errors import UserError
from shutbox_host.pico import flash


def main() -> int:
    """Run the flash with the kill armed; its exit code (-9 when it died at the point)."""
    name, _, count = sys.argv[1].partition(":")

    def kill(board, phase, n):
        if phase == name and n == int(count or 0):
            sys.stdout.flush()
            os.kill(os.getpid(), 9)

    parser = argparse.ArgumentParser(prog="shutbox flash")
    flash.configure(parser)
    args = parser.parse_args(sys.argv[2:])
    try:
        flash.flash(args.port, force=args.force, dry_run=args.dry_run,
                    firmware=Path(args.firmware), on_point=kill,
                    companion=False if args.no_companion else None)
    except UserError as exc:  # as the command line says it
        print("shutbox flash: error: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

# `shutbox flash` that kills itself at a named point of the flash: fault injection for the tests.
"""``python flash_killed.py PHASE[:N] ARGS...`` runs ``shutbox flash ARGS`` with
shutbox_host.pico.flash.on_point set to SIGKILL this process at the point PHASE (its N-th,
0 without N): a flash that dies there, as one whose USB cable is pulled does. The product
holds no switch for it: the tests set the hook from here."""

import os
import sys

from shutbox_host import cli
from shutbox_host.pico import flash


def main() -> int:
    """Run the flash with the kill armed; its exit code (-9 when it died at the point)."""
    name, _, count = sys.argv[1].partition(":")

    def kill(board, phase, n):
        if phase == name and n == int(count or 0):
            sys.stdout.flush()
            os.kill(os.getpid(), 9)

    flash.on_point = kill
    return cli.main(["flash", *sys.argv[2:]])


if __name__ == "__main__":
    sys.exit(main())

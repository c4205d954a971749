# Throws of two dice under micropython with shutbox.dice, summarised for the fairness tests.
"""Run under micropython: dice_throws.py <throws> <source>.

*source* is ``os`` (os.urandom: the entropy the box uses), ``hash:<seed>`` (a SHA-256
counter stream: dicecount.HashBytes, the same code and bytes on CPython, so both
interpreters must print the very same counts) or ``code:<first>`` (challenge codes from
<first> on, as the box throws them: dicecount.CodeThrows). Prints, one per line:

    FACES_A c1 .. c6 / FACES_B c1 .. c6 / TOTALS c2 .. c12 / PAIRS 36 counts (a then b)
    RUNS above below runs      (Wald-Wolfowitz on totals vs the median 7; 7s left out)
    REJECTED r / MS elapsed
"""

import os
import sys
import time

from dicecount import (  # host_tools/shutbox_host/box/sim (MICROPYPATH)
    CodeThrows,
    HashBytes,
    throw_counts,
)

from shutbox.dice import Dice


def main():
    """Throw, count, print."""
    n = int(sys.argv[1])
    source = sys.argv[2] if len(sys.argv) > 2 else "os"
    if source.startswith("code:"):
        dice = CodeThrows(int(source.split(":", 1)[1]))
    else:
        dice = Dice(os.urandom if source == "os" else HashBytes(source.split(":", 1)[1]))
    t0 = time.ticks_ms()
    counts = throw_counts(dice, n)
    ms = time.ticks_diff(time.ticks_ms(), t0)
    for name in ("FACES_A", "FACES_B", "TOTALS", "PAIRS", "RUNS", "REJECTED"):
        print(name, *counts[name])
    print("MS", ms)


main()

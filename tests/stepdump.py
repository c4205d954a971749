# A step's hot paths run on given readings and draws: one source for CPython and the unix port.
"""What the debouncer and the frame's drawing give for seeded readings and draws, computed the
same way wherever it runs: imported on CPython (``results``), run as a script by the unix port
(the readings and draws as JSON on stdin, the results as JSON on stdout), so that
tests/firmware/test_step_native.py compares machine code with Python, not two copies of a
loop."""

from shutbox import frame as fr
from shutbox.debounce import Debouncer


def results(runs, draws):
    """[events, levels, pressed, wait] per reading of each run, and each draw's frame drawn
    then cleared: (runs: tiles, start levels, readings, whether they cross the tick wrap,
    where the wait is left out; draws: tiles, mask, colour code, face, which die)."""
    out = []
    for tiles, start, readings, wraps in runs:
        d = Debouncer(tiles, start[0], start[1], start[2])
        got = []
        for sw, roll, now in readings:
            got.append([d.update(sw, roll, now), d.levels, d.pressed,
                        None if wraps else d.wait(now, 50)])
        out.append(got)
    frames = []
    for tiles, mask, code, face, which in draws:
        f = bytearray(fr.size(tiles))
        fr.clear(f)
        fr.tiles_mask(f, mask, code)
        fr.die(f, tiles, which, face, code)
        a = bytes(f)
        fr.clear(f)
        frames.append([list(a), list(f)])
    return [out, frames]


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(results(*json.loads(sys.stdin.read()))))

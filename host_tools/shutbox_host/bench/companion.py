# Bench: the Pico W companion beside the box's loop on the unix port (a PC's figures, no Pico's).
"""How late the box's loop wakes while the companion serves (companion.live: the loop and the
server share one asyncio scheduler), measured on the MicroPython unix port of this PC with
real sockets on 127.0.0.1 (shutbox_host.box.webbox): idle, then with four phones polling
``/api/state`` as fast as they are answered. The loop asks to wake every 2 ms or sooner; its
lateness is the time past that: its worst (which the PC's own scheduler of processes can
stretch on a loaded machine) and its 99th percentile. A PC's figures: the Pico W's own wait
for the emulated Pico W with the companion (a later part)."""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

_SPAN_S = 3.0  # each measurement's length
_PHONES = 4  # the clients the companion serves at once


def _span(box) -> dict:
    box.send("z")
    time.sleep(_SPAN_S)
    return box.figures()


def figures(soak=False) -> dict:
    from shutbox_host.box.webbox import WebBox

    with tempfile.TemporaryDirectory(prefix="shutbox-companion-") as d:
        box = WebBox(Path(d) / "flash")
        try:
            time.sleep(0.5)
            idle = _span(box)
            stop = threading.Event()
            done = [0]

            def phone():
                while not stop.is_set():
                    try:
                        if box.request("GET", "/api/state")[0] == 200:
                            done[0] += 1
                    except OSError:
                        pass

            threads = [threading.Thread(target=phone) for _ in range(_PHONES)]
            for t in threads:
                t.start()
            time.sleep(0.3)
            n0 = done[0]
            busy = _span(box)
            n = done[0] - n0
            stop.set()
            for t in threads:
                t.join(10)
        finally:
            box.close()
    return {"companion_unix_loop_late_ms_idle": idle["late_ms"],
            "companion_unix_loop_late_ms_polled": busy["late_ms"],
            "companion_unix_loop_late_ms_p99_idle": idle["p99_ms"],
            "companion_unix_loop_late_ms_p99_polled": busy["p99_ms"],
            "companion_unix_loop_passes_per_s_polled": round(busy["passes"] / _SPAN_S),
            "companion_unix_state_requests_per_s": round(n / _SPAN_S),
            "companion_unix_heap_free_bytes": busy["free"]}

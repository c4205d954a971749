# Bench: the Pico W companion beside the box's loop on the unix port (a PC's figures, no Pico's).
"""How late the box's loop wakes while the companion serves (companion.live: the loop and the
server share one asyncio scheduler), measured on the MicroPython unix port of this PC with
real sockets on 127.0.0.1 (shutbox_host.box.webbox): idle, then with four phones polling
``/api/state`` as fast as they are answered. The loop asks to wake every 2 ms or sooner; its
lateness is the time past that: its worst (which the PC's own scheduler of processes can
stretch on a loaded machine) and its 99th percentile. A PC's figures: the Pico W's own wait
for the emulated Pico W with the companion (a later part).

And the box's input latency (``input_latency``: companion_unix_{idle,page,polled}_*), idle,
with one phone's page open (its event stream) and while three phones poll ``/api/state``
as fast as they are answered and a fourth holds the event stream: each
tile flip of scripted turns to the start of the first LED write showing it, each Roll press
that throws to the first frame of rolling dice (the inputs set and the writes timed on the
PC's µs clock by sim/boxweb.py's ``t``), against the box's targets of 10 ms (docs/
performance.md); p50, p90, the worst, how many took over 10 ms, and inputs never shown
within 120 ms (lost)."""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path

_SPAN_S = 3.0  # each measurement's length
_PHONES = 4  # the clients the companion serves at once
# a turn's throws and the tile each shuts (9 down to 3), for the input latency's samples
_THROWS = (((6, 3), 9), ((6, 2), 8), ((4, 3), 7), ((3, 3), 6), ((4, 1), 5), ((2, 2), 4),
           ((2, 1), 3))
_TOGGLES = 4  # tile 1 flipped down and up this often at each throw (never part of a move)
_GAP_S = 0.12  # between two timed inputs


def _span(box) -> dict:
    box.send("z")
    time.sleep(_SPAN_S)
    return box.figures()


def _timed(box, gpio: int, level: int, first: int, count: int) -> float | None:
    """Set *gpio* to *level* and return the ms from then to the start of the first LED write
    that changed LEDs first..first+count-1 (boxweb's t and r: the PC's µs), None if none
    came within _GAP_S."""
    box.send("t %d %d %d %d" % (gpio, level, first, count))
    time.sleep(_GAP_S)
    us = int(box.ask("r", "R ").split()[1])
    return us / 1000 if us >= 0 else None


def _latency(box, turns: int) -> dict:
    """Play *turns* scripted turns on *box* (each ended by a new game: Roll held 5 s), timing
    every tile flip (a move's tile, tile 1 flipped down and up at each throw, the tiles
    opened again) to its LED and every Roll press that throws to the first frame of rolling
    dice; returns {"flip": [ms...], "roll": [ms...], "lost": n}."""
    from shutbox import pins

    down, up = pins.SWITCH_ACTIVE, pins.SWITCH_ACTIVE ^ 1
    n = pins.TILES
    out: dict = {"flip": [], "roll": [], "lost": 0}

    def keep(kind, ms):
        if ms is None:
            out["lost"] += 1
        else:
            out[kind].append(ms)

    for _ in range(turns):
        box.wait_state(lambda s: s["state"] in ("setup", "ready")
                       and s["up"] == list(range(1, n + 1)))
        for faces, tile in _THROWS:
            box.send("d %d %d" % faces)
            keep("roll", _timed(box, pins.ROLL_PIN, down, n, 14))  # the dice's 14 pips
            box.send("p %d %d" % (pins.ROLL_PIN, up))
            box.wait_state(lambda s: s["state"] == "move")
            for _t in range(_TOGGLES):
                keep("flip", _timed(box, pins.TILE_PINS[0], down, 0, 1))
                keep("flip", _timed(box, pins.TILE_PINS[0], up, 0, 1))
            keep("flip", _timed(box, pins.TILE_PINS[tile - 1], down, tile - 1, 1))
            box.wait_state(lambda s: s["state"] == "ready", timeout=5)  # the move settles
        box.send("p %d %d" % (pins.ROLL_PIN, down))  # a new game: Roll held 5 s
        time.sleep(5.3)
        box.send("p %d %d" % (pins.ROLL_PIN, up))
        box.wait_state(lambda s: s["state"] == "setup")
        for _faces, tile in _THROWS:
            keep("flip", _timed(box, pins.TILE_PINS[tile - 1], up, tile - 1, 1))
    return out


def _stats(prefix: str, got: dict) -> dict:
    out = {"%s_lost" % prefix: got["lost"]}
    for kind in ("flip", "roll"):
        ms = sorted(got[kind])
        out.update({"%s_%s_ms_p50" % (prefix, kind): round(statistics.median(ms), 2),
                    "%s_%s_ms_p90" % (prefix, kind): round(ms[len(ms) * 9 // 10], 2),
                    "%s_%s_ms_max" % (prefix, kind): round(ms[-1], 2),
                    "%s_%s_over_10_ms" % (prefix, kind): sum(x > 10 for x in ms),
                    "%s_%s_samples" % (prefix, kind): len(ms)})
    return out


def input_latency(turns: int = 2) -> dict:
    """The box's input latency on the unix port (the simulated board on the PC's clock, the
    companion serving): idle; with one phone's page open (its event stream); then while
    three phones poll /api/state as fast as they are answered and a fourth holds the event
    stream (the companion's 4 connections)."""
    from shutbox_host.box.webbox import Events, WebBox

    with tempfile.TemporaryDirectory(prefix="shutbox-companion-") as d:
        box = WebBox(Path(d) / "flash")
        try:
            out = _stats("companion_unix_idle", _latency(box, turns))
            ev = Events(box.port)  # a phone's page: its event stream, pushed at every change
            try:
                out.update(_stats("companion_unix_page", _latency(box, turns)))
                out["companion_unix_page_events"] = len(ev.events)
            finally:
                ev.close()
            ev = Events(box.port)
            phones = Phones(box, _PHONES - 1)
            try:
                t0, n0 = time.monotonic(), phones.done
                out.update(_stats("companion_unix_polled", _latency(box, turns)))
                out["companion_unix_polled_requests_per_s"] = round(
                    (phones.done - n0) / (time.monotonic() - t0))
                out["companion_unix_polled_events"] = len(ev.events)
            finally:
                phones.stop()
                ev.close()
        finally:
            box.close()
    return out


class Phones:
    """*n* phones asking the box for its state without a pause, each on a thread of its own,
    until stop(); ``done`` counts the answered requests."""

    def __init__(self, box, n: int):
        self.box = box
        self.done = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._ask) for _ in range(n)]
        for t in self._threads:
            t.start()

    def _ask(self) -> None:
        while not self._stop.is_set():
            try:
                if self.box.request("GET", "/api/state")[0] == 200:
                    self.done += 1
            except OSError:
                pass

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(10)


def figures(soak=False) -> dict:
    from shutbox_host.box.webbox import WebBox

    with tempfile.TemporaryDirectory(prefix="shutbox-companion-") as d:
        box = WebBox(Path(d) / "flash")
        try:
            time.sleep(0.5)
            idle = _span(box)
            phones = Phones(box, _PHONES)
            try:
                time.sleep(0.3)
                n0 = phones.done
                busy = _span(box)
                n = phones.done - n0
            finally:
                phones.stop()
        finally:
            box.close()
    return {"companion_unix_loop_late_ms_idle": idle["late_ms"],
            "companion_unix_loop_late_ms_polled": busy["late_ms"],
            "companion_unix_loop_late_ms_p99_idle": idle["p99_ms"],
            "companion_unix_loop_late_ms_p99_polled": busy["p99_ms"],
            "companion_unix_loop_passes_per_s_polled": round(busy["passes"] / _SPAN_S),
            "companion_unix_state_requests_per_s": round(n / _SPAN_S),
            "companion_unix_heap_free_bytes": busy["free"],
            **input_latency(6 if soak else 2)}

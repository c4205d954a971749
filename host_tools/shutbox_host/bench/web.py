# Figures of the box in a web page: headless Chromium on this machine, wall-clock times.
"""figures(soak) -> the web_* figures (shutbox_host.web.drive: the page in Debian's Chromium).

The page runs the real MicroPython rp2 build on rp2040js in a Web Worker, throttled to real
time; these are wall-clock times on this machine, so they depend on what else runs on it
(``web_loadavg_1min`` says how busy it was: the machine's load average at the end).

- web_engine: the firmware engine the page runs ("rp2040js: MicroPython rp2 v1.28 RPI_PICO").
- web_load_to_first_lit_ms: a fresh box (no saved flash): navigation start to the first
  WS2812 frame with an LED lit reaching the page (fetching the files, building the chip,
  MicroPython formatting nothing: the image is laid out, booting the firmware).
- web_reload_to_first_lit_ms: the same after a reload, the box's flash from IndexedDB.
- web_click_to_led_ms_p50/_p95/_max (and ``web_click_to_led_ms``, the p95): a tile's
  pointerdown (the event's time stamp) to the page's next animation frame after the LED
  frame in which that tile's LED changed; samples: every tile shut during two whole turns,
  and 20 flips (10 tiles down and up again) in the second player's setup (a tile flipped
  down blinks amber, flipped up it is white again).
  ``web_click_samples`` counts them; ``web_click_unanswered`` the flips whose LED did not
  change within 2 s or before the same tile was flipped again (0 expected).
- web_idle_speed: emulated time / wall time over 5 s of an idle box (1.0: real time), and
  web_idle_worker_load: the share of that wall time the worker spent emulating; their ratio,
  web_idle_headroom, is how much faster than real time it could have run.
- web_idle_busy_fraction: the emulated core's busy share over the same 5 s (the firmware's
  idle loop; rp2_idle_busy_fraction measures it in Node from the same clock).
- web_idle_emulated_s_per_cpu_s: emulated seconds per CPU second of all of the browser's
  processes over the same 5 s (Linux /proc): what the page could do with a core of its own,
  whatever else runs (above 1: real time with room to spare).
"""

from __future__ import annotations

import os
import statistics
import time

from shutbox import pins

_FLIPS = 20


def _pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _browser_cpu_s() -> float:
    """CPU seconds used so far by the Chromium processes this process started (Linux /proc;
    0 elsewhere)."""
    procs: dict[int, tuple[int, str, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        rest = stat[stat.rindex(")") + 2:].split()
        procs[int(d)] = (int(rest[1]), name, (int(rest[11]) + int(rest[12])) / tick)
    mine = {os.getpid()}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _name, _cpu) in procs.items():
            if ppid in mine and pid not in mine:
                mine.add(pid)
                grew = True
    return sum(cpu for pid, (_pp, name, cpu) in procs.items()
               if pid in mine and "chrom" in name)


def _idle(bp, seconds: float = 5.0) -> dict:
    """Average the worker's stats over *seconds* of an idle box."""
    samples = []
    last = None
    cpu0 = _browser_cpu_s()
    emu0 = bp.js("() => shutbox.stats ? shutbox.stats.emuMs : 0")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        st = bp.js("() => shutbox.stats")
        if st and st != last:
            samples.append(st)
            last = st
        time.sleep(0.25)
    cpu = _browser_cpu_s() - cpu0
    emu = bp.js("() => shutbox.stats.emuMs") - emu0
    samples = samples[1:] or samples  # the first window may hold a burst before idling
    speed = statistics.mean(s["speed"] for s in samples)
    load = statistics.mean(s["load"] for s in samples)
    return {
        "web_idle_speed": round(speed, 3),
        "web_idle_worker_load": round(load, 3),
        "web_idle_headroom": round(speed / load, 2) if load else None,
        "web_idle_busy_fraction": round(statistics.mean(s["busy"] for s in samples), 4),
        "web_idle_emulated_s_per_cpu_s": round(emu / 1000 / cpu, 2) if cpu > 0 else None,
    }


def figures(soak=False) -> dict:
    from shutbox_host.pico import autoplay
    from shutbox_host.web import drive

    why = drive.missing()
    if why:
        return {"web_missing": why}
    out: dict = {"web_engine": "rp2040js: MicroPython rp2 v1.28 RPI_PICO"}
    with drive.Browser() as br:
        bp = br.page()
        try:
            bp.open()
            bp.wait_log("turn", 0, timeout_s=60)
            bp.page.wait_for_function("() => shutbox.firstLitMs !== null", timeout=30000)
            out["web_load_to_first_lit_ms"] = round(bp.js("() => shutbox.firstLitMs"))
            bp.wait_leds(lambda t, a, b: True, "a frame")
            out.update(_idle(bp))
            eng = autoplay.engine()
            for player in (1, 2):
                drive.play_turn(bp, eng)
                time.sleep(0.8)  # the score shows 700 ms before Roll passes the box on
                bp.open_all()
                time.sleep(0.2)
                n = bp.log_len()
                bp.click_roll(100)
                bp.wait_log("turn|winner", n)
                if player == 1:
                    # the next player's setup: a tile flipped down blinks amber, up lights white
                    time.sleep(0.5)
                    for i in range(_FLIPS):
                        bp.flip(1 + (i // 2) % pins.TILES)
                        time.sleep(0.5)
                    time.sleep(0.3)
            time.sleep(2.2)  # the last flips: answered or given up
            lat = bp.latencies()
            out.update({
                "web_click_to_led_ms": round(_pct(lat, 0.95), 1),
                "web_click_to_led_ms_p50": round(statistics.median(lat), 1),
                "web_click_to_led_ms_p95": round(_pct(lat, 0.95), 1),
                "web_click_to_led_ms_max": round(max(lat), 1),
                "web_click_samples": len(lat),
                "web_click_unanswered": bp.js("() => shutbox.unanswered + shutbox.superseded"),
            })
            bp.page.wait_for_function("() => !shutbox.unsaved", timeout=20000)
            bp.page.evaluate("() => { shutbox.firstLitMs = null; }")
            bp.reload()
            bp.page.wait_for_function("() => shutbox.firstLitMs !== null", timeout=60000)
            out["web_reload_to_first_lit_ms"] = round(bp.js("() => shutbox.firstLitMs"))
            if bp.errors:
                out["web_errors"] = bp.errors[:5]
        finally:
            bp.close()
    out["web_loadavg_1min"] = round(os.getloadavg()[0], 2)
    return out

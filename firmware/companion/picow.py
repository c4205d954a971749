# The companion on a Pico W: its radio, its log and its server beside the box's loop.
"""Started by shutbox.sleep.main on a Pico W whose flash holds these files (``shutbox flash``
and ``shutbox uf2`` put them on a Pico W only; a Pico neither has nor imports them).

``prepare(make, boot, supply)`` runs before the box's first start: the radio is started once,
as shutbox.supply starts it (the Pico W's VBUS sense is one of the radio's pins, and a second
start after a failed one never ends), and the companion's state (companion.live.Live) takes
the box's log; it returns the box's *make* giving each app that log, and ``run(guard)``, the
box's loop beside the server (companion.web.run), which returns only when the companion could
not start. A missing or failing radio, or anything else that fails here, is one line of the
log, ``{"ev": "companion", "error": ..., "text": ...}``, and the box plays on: without the
radio the server's code runs all the same (lwIP listens on no interface).
"""

import json

from micropython import const

_RADIO_RUNS = const(3)  # shutbox.supply's Supply.wireless: the radio started
_PORT = const(80)
live = None  # the companion's state (companion.live.Live), for a look from the REPL


def _say(out, error, text):
    out(json.dumps({"ev": "companion", "error": error, "text": text}))


def prepare(make, boot, supply):
    """Return (make, run): the box's *make* wrapped so that every app logs through the
    companion, and ``run(guard)``; (*make*, None) when the companion cannot start."""
    global live
    try:
        from companion.live import Live

        live = Live()
    except Exception as e:  # noqa: BLE001 - no companion (a MemoryError, a bad file): the box
        _say(print, type(e).__name__, str(e))
        return make, None
    live.settings = boot[0]
    live.store = boot[4][0]  # the records' tally: [store, key, ...] (shutbox.records)
    live.key = boot[4][1]
    try:
        supply.usb()  # the radio's first start, or its answer kept (shutbox.supply)
        if supply.wireless != _RADIO_RUNS:
            _say(live.out, "radio", "the Wi-Fi chip did not start")
    except Exception as e:  # noqa: BLE001 - a failing radio is a line, not a fault
        _say(live.out, type(e).__name__, str(e))

    def made(now, safe):
        first = boot[3]  # the boot's settings record, which the first start prints
        app = make(now, safe)
        if first is not None:
            live.keep(first)
        app.out = live.out
        return app

    def run(guard):
        guard.out = live.out
        try:
            from companion import web
        except Exception as e:  # noqa: BLE001 - the box's own loop then
            _say(live.out, type(e).__name__, str(e))
            return
        web.run(live, guard, port=_PORT)

    return made, run

# The companion on a Pico W: its radio, its log and its server beside the box's loop.
"""Started by shutbox.sleep.main on a Pico W whose flash holds these files (``shutbox flash``
and ``shutbox uf2`` put them on a Pico W only; a Pico neither has nor imports them).

``prepare(board, make, settings, supply, wdt)`` runs before the box's first start: the chip
goes to its rated 133 MHz (_SYS_HZ), the radio is started once, as shutbox.supply starts it
(the Pico W's VBUS sense is one of the radio's pins, and a second start after a failed one
never ends), and the companion's state (companion.live.Live) takes the box's log; it returns
the box's *make* giving each app that log, and ``run(guard)``, the box's loop beside the
server (companion.web.run), which returns only when the companion could not start. A
missing or failing radio, or anything else that fails here, is one line of the log,
``{"ev": "companion", "error": ..., "text": ...}``, and the box plays on: a radio that did
not start leaves the server's code running all the same (lwIP listens on no interface); one
that raised (a failing chip, or a stand-in board: the virtual Pico W) leaves the box alone,
without the server.
"""

import json
import time

from micropython import const

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_RADIO_RUNS = const(3)  # Supply.wireless: the radio started
# END consts
_PORT = const(80)
_KEY_TILE = const(8)  # Roll held with tile 4 alone shut at power-up: the passphrase shows
_PAIR_MS = const(1500)  # each two faces of it show this long
_POLL_MS = const(10)
# the RP2040's rated clock (its datasheet: 133 MHz; the rp2 port starts at 125): a press
# landing as a collection of the heap starts waits for all of it, which the phones' garbage
# brings on, and a faster core shortens it and the step after (docs/companion.md)
_SYS_HZ = const(133_000_000)
live = None  # the companion's state (companion.live.Live), for a look from the REPL


def _say(out, error, text):
    out(json.dumps({"ev": "companion", "error": error, "text": text}))


def show_key(board, key, wdt):
    """Show the access point's passphrase (*key*: dice faces as text) on the dice until Roll
    is pressed again: two faces at a time, the tile of the pair lit amber (tile 1 for the
    first two faces ...), then a dark pause; the watchdog fed."""
    from shutbox import frame as fr

    n = board.tiles
    f = bytearray(fr.size(n))
    pairs = (len(key) + 1) // 2
    t0 = time.ticks_ms()
    held = True  # Roll is down from the power-up: its release first, then a press ends it
    shown = -1
    while True:
        if wdt is not None:
            wdt.feed()
        down = board.roll()
        if held and not down:
            held = False
        elif not held and down:
            break
        i = time.ticks_diff(time.ticks_ms(), t0) // _PAIR_MS % (pairs + 1)
        if i != shown:
            shown = i
            for k in range(len(f)):
                f[k] = fr.OFF
            if i < pairs:
                f[i] = fr.AMBER
                fr.die(f, n, 0, int(key[2 * i]), fr.WHITE)
                if 2 * i + 1 < len(key):
                    fr.die(f, n, 1, int(key[2 * i + 1]), fr.WHITE)
            board.show(f)
        time.sleep_ms(_POLL_MS)
    while board.roll():  # the press that ended it starts nothing
        if wdt is not None:
            wdt.feed()
        time.sleep_ms(_POLL_MS)


def prepare(board, make, settings, supply, wdt=None):
    """Return (make, run): the box's *make* wrapped so that every app logs through the
    companion, and ``run(guard)``; (*make*, None) when the companion cannot start. Roll held
    with tile 4 alone shut shows the access point's passphrase first (``show_key``)."""
    global live
    try:
        from companion.live import Live

        live = Live()
    except Exception as e:  # noqa: BLE001 - no companion (a MemoryError, a bad file): the box
        _say(print, type(e).__name__, str(e))
        return make, None
    try:
        supply.machine.freq(_SYS_HZ)
    except Exception:  # noqa: BLE001 - a stand-in machine: its own clock
        pass
    from shutbox import forget, setfile

    live.settings = settings
    live.key = setfile.variant_key(settings, board.tiles)  # the records' (shutbox.powerup)
    # gone from the heap until a phone changes a setting (companion.live.Live.change loads
    # it again): every collection would mark its code (about 0.05 ms a KB of code live on
    # the Pico W, and a press landing as a collection starts waits for all of it)
    del setfile
    forget("setfile")
    tasks = []
    try:
        uid = supply.machine.unique_id()
        if board.roll() and board.switches() == (1 << board.tiles) - 1 & ~_KEY_TILE:
            from companion import wifi

            show_key(board, wifi.passphrase(uid), wdt)
        supply.usb()  # the radio's first start, or its answer kept (shutbox.supply)
        if supply.wireless != _RADIO_RUNS:
            _say(live.out, "radio", "the Wi-Fi chip did not start")
        else:
            import network  # type: ignore[import-not-found]  # the W's (not in the rp2 stubs)

            from companion.wifi import Wifi

            live.wifi = Wifi(network, uid, "/data", live.out)
            tasks.append(live.wifi.run())
    except Exception as e:  # noqa: BLE001 - a failing radio is a line, not a fault: the box
        _say(live.out, type(e).__name__, str(e))  # plays alone (a stand-in board's too)
        return make, None

    def made(now, safe):
        app = make(now, safe)
        app.out = live.out
        if app.resume is not None:  # the box's store (shutbox.app.prelude's, whose class
            live.store = app.resume.store  # has no constructor left on the chip to make one)
        return app

    def run(guard):
        guard.out = live.out
        # what only the start runs goes (as setfile above); a value is set to None before
        # its key is deleted: MicroPython leaves a deleted key's value in its slot
        g = globals()
        for k in ("prepare", "show_key"):
            g[k] = None
            del g[k]
        try:
            # the server's modules one at a time, each before those that import it, each
            # loader's garbage collected before the next (as main.py loads the game's): their
            # code packs into the heap's holes, not above the loaders' garbage, so the heap's
            # highest block in use stays lower and every collection's sweep, which runs up to
            # it, shorter (a press landing as a collection starts waits for all of it: shutbox
            # bench, picow_inputs_polled_gc_end_ms_*; docs/companion.md)
            import gc

            for m in ("microdot.helpers", "microdot.microdot", "microdot", "microdot.sse",
                      "companion.web", "companion.sweep"):
                gc.collect()
                try:
                    __import__(m)
                except ImportError:  # (another microdot's layout: imported below as it is)
                    pass
            gc.collect()
            from companion import web
        except Exception as e:  # noqa: BLE001 - the box's own loop then
            _say(live.out, type(e).__name__, str(e))
            return
        web.run(live, guard, port=_PORT, tasks=tasks)

    return made, run

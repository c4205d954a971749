# The companion: a Pico W serves the box's game, settings, records and log to the phones nearby.
"""On a Pico W only; a Pico neither gets nor imports these files (shutbox_host.pico.companion
builds them with microdot, the web framework, from its published package).

``companion.live``: the box's loop beside the server, its state, log and pairing;
``companion.web``: the server (microdot), its bounds and routes; ``page.html``: the page.
"""

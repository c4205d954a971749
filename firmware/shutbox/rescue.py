# The box's last resort: an error outside the guard (firmware/main.py's imports) on the LEDs.
"""Show an exception that escaped firmware/main.py, and restart, as shutbox.guard does.

main.py imports the power-up code and the game's modules before app.main's guard runs; an
exception there (a MemoryError: the .py fallback of a flash compiles on the box and needs far
more heap than bytecode; a broken file) would leave the box dark at the REPL. ``run(exc)``
drops every firmware module (the code main.py loaded is garbage then), loads only the board,
the frame and the guard, and hands the guard an app that cannot start: the error goes to
/error.log, the LEDs show the fault pattern (frame.fault) under the watchdog, and Roll or
10 s restarts; a restart here is a reset of the chip on purpose (Board.reset), so the next
try starts from a fresh heap, as at power-up.
"""

from micropython import const

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_WATCHDOG_MS = const(8000)  # the hardware watchdog's timeout (the rp2 maximum is 8388)
# END consts


def run(exc):
    """Show *exc* as a fault and restart (never returns; Ctrl-C stops it as app.main)."""
    import gc
    import sys
    import time

    import shutbox

    for name in list(sys.modules):  # what main.py loaded, but this module
        if name.startswith("shutbox.") and name != "shutbox.rescue":
            shutbox.forget(name[8:])
    gc.collect()
    from shutbox.board import Board
    from shutbox.guard import Guard

    board = Board()
    todo = [exc]

    def make(now, safe):  # the first start is the error; a restart, the reset
        if todo:
            raise todo.pop()
        board.reset()

    try:  # a Ctrl-C stops the watchdog first: the REPL cannot stop machine.WDT
        Guard(board, make, time.ticks_ms(), wdt=board.watchdog(_WATCHDOG_MS),
              wdt_reset=board.watchdog_reset()).forever()
    except KeyboardInterrupt:
        board.watchdog_stop()
        raise

# Power-up of the box: the button combinations, settings and records from flash, then the game.
"""Two steps at every power-up, both with little else in RAM.

1. ``screens()`` (firmware/main.py, before the game's modules are imported): when a button
   combination is held, its screen (shutbox.menu) runs until it is done, or the self-test
   (shutbox.selftest) until power-off. ``prelude`` is the same as a state machine for the
   simulated box (sim/boxrun.py --powerup, which steps shutbox.selftest.SelfTest itself).
2. ``read()`` (firmware/main.py, still before the game's modules): the saved settings and
   the key of the box's records, as a boot list for ``shutbox.app.start``, which builds the
   App from it at every start (again after a fault) with nothing of this module, setfile
   or records in RAM; a settings or records file that is damaged gives the defaults (empty
   records), is written again at once, and the boot notice says so (app's
   _NOTICE_SETTINGS, _NOTICE_RECORDS). The settings go to the log as one ``settings``
   record at every boot, printed by ``read`` before the game's modules load: the log format's
   version ``v``, the value indexes in page order and the code. The names are the host's to
   add (shutbox.setnames, by ``v``: docs/log-format.md): on the box they would stay interned
   in RAM for good.

Combinations (read from the raw switches; on a box of fewer than 9 tiles, tile 9 means the
highest tile):

=============================  =================================================
Roll held, every tile open     the settings menu
Roll held, tile 1 shut         the self-test (shutbox.selftest, run by screens)
Roll held, tile 2 shut         the records of the variant the settings choose
Roll held, tiles 2 and 9 shut  erase the records (hold Roll to confirm)
Roll held, tiles 8 and 9 shut  factory reset: settings and records (hold Roll)
Roll held, tile 3 shut         the battery gauge (shutbox.sleep) until Roll
=============================  =================================================

On the cells (and on request) the gauge shows before the settings are read; on flat cells
the box stops safely there (shutbox.sleep.prelude).

The callers unload this module, shutbox.setfile and shutbox.menu when done (``unload``;
shutbox.records unloads itself here), so they take no RAM during play.

The modes ``combination`` returns are private constants (no names kept in RAM): _PLAY 0,
_MENU 1, _SELFTEST 2, _RECORDS 3, _RESET_RECORDS 4, _FACTORY 5 (shutbox.menu keeps copies),
_GAUGE 6.
"""

from micropython import const
from shutbox import forget

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_LOG_VERSION = const(3)  # the log format's "v" (docs/log-format.md)
_NOTICE_SETTINGS = const(1)  # boot notice: the settings file was damaged
_NOTICE_RECORDS = const(2)  # boot notice: the records file was damaged
_POLL_MS = const(2)  # the longest sleep between two readings of the switches
_BOOT_SETTINGS = const(0)  # the boot list's slots (powerup.read): the settings
_BOOT_RULES = const(1)  # the boot list: the rules
_BOOT_NOTICES = const(2)  # the boot list: the boot notice's bits
_BOOT_TALLY = const(3)  # the boot list: the records' tally
# the boot list: appended by shutbox.app (make_engine), kept from start to start
_BOOT_ENGINE = const(4)
_PLAY = const(0)  # power-up mode: play
_MENU = const(1)  # power-up mode: the menu
_SELFTEST = const(2)  # power-up mode: the self-test
_RECORDS = const(3)  # power-up mode: the records
_RESET_RECORDS = const(4)  # power-up mode: reset the records
_FACTORY = const(5)  # power-up mode: factory settings
_GAUGE = const(6)  # power-up mode: the battery gauge
# END consts


def combination(levels, roll, tiles):
    """Return the power-up mode (_PLAY, _MENU, ...) for raw tile *levels* (bit set = open)."""
    if not roll:
        return _PLAY
    shut = ~levels & ((1 << tiles) - 1)
    top = 1 << ((tiles if tiles < 9 else 9) - 1)  # tile 9 (the highest on a smaller box)
    if shut == 0:
        return _MENU
    if shut & 1:
        return _SELFTEST
    if shut == 2:
        return _RECORDS
    if shut == 2 | top:
        return _RESET_RECORDS
    if shut == top | top >> 1:
        return _FACTORY
    if shut == 4:
        return _GAUGE
    return _PLAY


def unload(*names):
    """Forget the modules shutbox.<name> (shutbox.forget), so their code can be collected."""
    for name in names:
        forget(name)


def prelude(board, store, now):
    """Return the screen (shutbox.menu) of the combination held now, or None.

    Call its ``step(now)`` until it returns True, then ``unload("menu", "setfile",
    "records", "challenge")``.
    """
    tiles = board.tiles
    mode = combination(board.switches(), board.roll(), tiles)
    if mode == _PLAY or mode == _SELFTEST or mode == _GAUGE:
        return None
    from shutbox import menu, setfile
    from shutbox.records import Records

    settings, _ = setfile.load(store, tiles)
    recs = Records(store, setfile.variant_key(settings, tiles))
    return menu.screen(mode, board, settings, store, recs, now)


def screens():
    """On the box: run the screen of the combination held at power-up, if any (main.py),
    then return the boot list (``read``) for shutbox.app.main.

    The self-test's combination runs the self-test until power-off (it never returns).
    """
    import sys
    import time

    from shutbox.board import Board
    from shutbox.store import Store

    board = Board()
    mode = combination(board.switches(), board.roll(), board.tiles)
    if mode == _SELFTEST:
        from shutbox import selftest

        selftest.run(board, time.ticks_ms)
    if sys.platform == "rp2":  # the cells' gauge, the safe stop on flat ones (the chip's)
        from shutbox import sleep

        sleep.prelude(board, mode == _GAUGE, time.ticks_ms, time.sleep_ms)
        del sleep
        unload("sleep")
    store = Store("/data")
    screen = prelude(board, store, time.ticks_ms())
    if screen is not None:  # stepped when a switch changes or it is due (as Guard.forever)
        levels = board.reader()
        seen = -1
        due = time.ticks_ms()
        while True:
            now = time.ticks_ms()
            lv = levels()
            if lv != seen or time.ticks_diff(now, due) >= 0:
                seen = lv
                if screen.step(now, lv):
                    break
                due = time.ticks_add(now, screen.wait(now))
            time.sleep_ms(_POLL_MS)
    unload("menu", "setfile", "records", "challenge")
    return read(board, store)


def read(board, store):
    """Read the saved settings and the records' key: the box's boot list for app.start.

    A list, its slots named _BOOT_*: the Settings (_BOOT_SETTINGS), the engine's Rules for
    them (_BOOT_RULES), the boot notice's reasons (_BOOT_NOTICES: a settings or records file
    found damaged, the defaults or empty records written again at once) and a new tally of
    the box's records (_BOOT_TALLY: Records.tally); shutbox.app appends the engine
    (_BOOT_ENGINE). The ``settings`` log record is printed here and now, so that its string
    is gone before the game's modules load. shutbox.setfile and shutbox.records are
    unloaded before it returns: the caller unloads this module too, then loads the game's
    modules.
    """
    import json

    from shutbox import setfile
    from shutbox.records import Records
    from shutbox.store import damaged

    tiles = board.tiles
    settings, status = setfile.load(store, tiles)
    notices = 0
    if damaged(status):
        notices |= _NOTICE_SETTINGS
        setfile.save(settings, store)  # the defaults: the notice shows once
    recs = Records(store, setfile.variant_key(settings, tiles))
    if damaged(recs.status):
        notices |= _NOTICE_RECORDS
        recs.save()
    c = settings.code
    print(json.dumps({"ev": "settings", "v": _LOG_VERSION, "status": status,
                      "values": [setfile.index(settings, i) for i in range(len(setfile.ATTRS))],
                      "code": "%04d" % c if c >= 0 else "off"}))
    boot = [settings, setfile.rules(settings, tiles), notices, recs.tally(0)]  # _BOOT_* order
    del recs, Records, setfile
    # shutbox.records comes back at each game's end; the names are not needed again
    unload("records", "setfile")
    return boot

# The box's main loop: board -> debounce -> game -> LEDs, buzzer and the JSON game log.
"""Wiring of the firmware, driven one poll at a time.

``App.step(now)`` is one poll: read the switches, debounce, feed the game, play the next note,
redraw the LEDs when the frame changed, print new game-log records as JSON lines (the USB
serial console), feed the watchdog. The Pico's ``main()`` calls it every few ms with
``time.ticks_ms()``; the simulator calls it with a virtual clock. A poll where nothing happens
allocates nothing (tests/test_scenarios.py proves it with ``micropython.heap_lock``).
"""

import json

from micropython import const
from shutbox.debounce import EV_LONG, EV_SHORT, EV_TILES, Debouncer
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import Game, Settings
from shutbox.ticks import ticks_add, ticks_diff

POLL_MS = const(2)  # the main loop's pause between polls
_FRAME_MS = const(20)  # LEDs redrawn at most 50 times a second
# The optimal-play table (2 KB and more) is loaded only for a feature that needs it (best-move
# hints, the computer opponent); a folder that cannot exist makes the engine go without.
_NO_TABLES = "/-"


class App:
    """The box: one board, one game."""

    def __init__(self, board, urandom, now, settings=None, rules=None, out=None, wdt=None,
                 tables_dir=None):
        """Build everything once; *urandom(n)* gives random bytes, *out* prints a log line.

        *tables_dir*: where the engine's optimal-play tables are (None: beside the engine, and
        only when the settings need them).
        """
        self.board = board
        self.deb = Debouncer(board.tiles, board.switches(), board.roll(), now)
        if rules is None:
            rules = Rules(tiles=board.tiles)
        self.settings = settings if settings is not None else Settings()
        if tables_dir is None and not self.settings.needs_table():
            tables_dir = _NO_TABLES
        self.engine = Engine(rules, tables_dir)
        self.dice = Dice(urandom)
        self.game = Game(self.engine, self.dice, self.settings, self.deb.levels, now)
        self.out = out if out is not None else print
        self.wdt = wdt
        self._shown = bytearray(len(self.game.frame))
        self._force = True  # draw the first frame even if it is dark
        self._next_frame = now
        self._sound_seq = 0
        self._melody = b""
        self._note = 0
        self._note_end = now
        self._playing = False
        self.polls = 0

    def step(self, now):
        """One poll at time *now* (ticks_ms)."""
        self.polls = (self.polls + 1) & 0x3FFFFFFF  # stays a small int on the Pico
        board = self.board
        deb = self.deb
        game = self.game
        ev = deb.update(board.switches(), board.roll(), now)
        if ev:
            if ev & EV_TILES:
                game.tiles_changed(deb.levels, now)
            if ev & EV_SHORT:
                game.roll(False, now)
            if ev & EV_LONG:
                game.roll(True, now)
        game.tick(now)
        if game.log:
            self._write_log()
        if game.sound_seq != self._sound_seq:
            self._sound_seq = game.sound_seq
            self._melody = game.sound
            self._note = 0
            self._next_note(now)
        elif self._playing and ticks_diff(now, self._note_end) >= 0:
            self._next_note(now)
        if ticks_diff(now, self._next_frame) >= 0:
            self._next_frame = ticks_add(now, _FRAME_MS)
            f = game.render(now)
            if self._force or f != self._shown:
                self._force = False
                self._shown[:] = f
                board.show(f)
        if self.wdt is not None:
            self.wdt.feed()

    def _write_log(self):
        log = self.game.log
        for rec in log:
            self.out(json.dumps(rec))
        del log[:]

    def _next_note(self, now):
        mel = self._melody
        i = self._note
        if i + 1 < len(mel):
            ms = mel[i + 1] * 10
            self.board.tone(mel[i] * 10, ms)
            self._note = i + 2
            self._note_end = ticks_add(now, ms)
            self._playing = True
        else:
            self.board.tone(0, 0)
            self._playing = False


def main(watchdog_ms=0):
    """Run the box on the Pico forever; *watchdog_ms* > 0 starts the hardware watchdog.

    The watchdog cannot be stopped once started, which would reboot the Pico under a
    development session (mpremote), so it is opt-in here.
    """
    import os
    import time

    from shutbox.board import Board

    board = Board()
    from shutbox import selftest

    if selftest.requested(board):  # Roll held with tile 1 shut at power-up
        selftest.run(board, time.ticks_ms)
    app = App(board, os.urandom, time.ticks_ms())
    if watchdog_ms > 0:
        app.wdt = board.watchdog(watchdog_ms)
    while True:
        app.step(time.ticks_ms())
        time.sleep_ms(POLL_MS)

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
from shutbox import frame as fr
from shutbox.debounce import EV_DOWN, EV_LONG, EV_SHORT, EV_TILES, Debouncer
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import Game, Settings, tiles_of
from shutbox.ticks import ticks_add, ticks_diff

POLL_MS = const(2)  # the main loop's pause between polls
WATCHDOG_MS = const(8000)  # main(): the hardware watchdog's timeout (the rp2 maximum is 8388)
NEW_GAME_MS = const(5000)  # Roll held this long, in any state: a new game
_NOTICE_MS = const(2000)  # the boot notice (frame.notice) shows this long
# Why the boot notice shows (tile k lit amber for the reason with bit k-1): App.notice().
NOTICE_SETTINGS = const(1)  # the settings file was damaged: defaults
NOTICE_RECORDS = const(2)  # the records file was damaged: records start again
NOTICE_GAME = const(4)  # the saved game was damaged: a new game
NOTICE_FAULT = const(8)  # restarted after an error or a watchdog reset (see error.log)
_FRAME_MS = const(20)  # LEDs redrawn at most 50 times a second
# The optimal-play table (2 KB and more) is loaded only for a feature that needs it (best-move
# hints, the computer opponent); a folder that cannot exist makes the engine go without.
_NO_TABLES = "/-"
_HINT_BEST = const(2)  # shutbox.settings.HINT_BEST


class App:
    """The box: one board, one game."""

    def __init__(self, board, urandom, now, settings=None, rules=None, out=None, wdt=None,
                 tables_dir=None, store=None, resume=True):
        """Build everything once; *urandom(n)* gives random bytes, *out* prints a log line.

        *tables_dir*: where the engine's optimal-play tables are (None: beside the engine, and
        only when the settings need them). *store* (shutbox.store.Store): the game in progress
        is saved there at safe points and, with *resume*, continued from there.
        """
        self.board = board
        self.deb = Debouncer(board.tiles, board.switches(), board.roll(), now)
        if rules is None:
            rules = Rules(tiles=board.tiles)
        self.settings = settings if settings is not None else Settings()
        if tables_dir is None and not self.settings.needs_table():
            tables_dir = _NO_TABLES
        # the beat-target buffer (1 KB a layer) only for best-move hints (shutbox.coach)
        self.engine = Engine(rules, tables_dir, hints=self.settings.hints == _HINT_BEST)
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
        self.observe = None  # called with each game-log record (shutbox.powerup: records)
        self.notices = 0  # NOTICE_* bits shown by the boot notice
        self._notice_at = now
        self._held = False  # Roll down: NEW_GAME_MS from _down_at starts a new game
        self._down_at = now
        self.resume = None
        if store is not None:  # imported here: a box without flash (some tests) goes without
            from shutbox.resume import Resume, was_damaged

            self.resume = Resume(store)
            if resume and was_damaged(self.resume.load(self.game, self.deb.levels, now)):
                self.notice(NOTICE_GAME, now)

    def notice(self, reasons, now):
        """Show the boot notice (frame.notice) for 2 s from *now*, adding NOTICE_* *reasons*.

        For anything found wrong at boot (a damaged file, a restart after a fault): the box
        carries on with safe defaults and says so on its LEDs; the log gets a "notice" line.
        """
        self.notices |= reasons
        self._notice_at = now
        self._force = True
        self.game.log.append({"ev": "notice", "tiles": tiles_of(self.notices)})

    def step(self, now):
        """One poll at time *now* (ticks_ms)."""
        self.polls = (self.polls + 1) & 0x3FFFFFFF  # stays a small int on the Pico
        board = self.board
        deb = self.deb
        game = self.game
        ev = deb.update(board.switches(), board.roll(), now)
        rs = self.resume
        if rs is not None and rs.expect >= 0:  # resumed: the tiles must match the saved game
            ev = rs.hold(game, deb.levels, ev, now)
        if ev:
            if ev & EV_TILES:
                game.tiles_changed(deb.levels, now)
            if ev & EV_SHORT:
                game.roll(False, now)
            if ev & EV_LONG:
                game.roll(True, now)
            if ev & EV_DOWN:
                self._held = True
                self._down_at = now
        if self._held:
            self._hold_check(now)
        game.tick(now)
        if rs is not None:
            rs.poll(game)
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
            if rs is not None and rs.expect >= 0:
                rs.draw(f, deb.levels, now)
            if self.notices:
                if ticks_diff(now, self._notice_at) < _NOTICE_MS:
                    fr.notice(f, board.tiles, self.notices, now, self._notice_at)
                else:
                    self.notices = 0
            if self._force or f != self._shown:
                self._force = False
                self._shown[:] = f
                board.show(f)
        if self.wdt is not None:
            self.wdt.feed()

    def _hold_check(self, now):
        """Roll held NEW_GAME_MS: abandon the game (or match) and start a new one, always."""
        game = self.game
        if not self.deb.pressed:
            self._held = False
        elif ticks_diff(now, self._down_at) >= NEW_GAME_MS:
            self._held = False
            game.new_game(now)
            if self.resume is not None:
                self.resume.forget()
            game.tiles_changed(self.deb.levels, now)

    def _write_log(self):
        log = self.game.log
        for rec in log:
            self.out(json.dumps(rec))
            if self.observe is not None:  # the records (shutbox.records, set by powerup)
                self.observe(rec)
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


def main(watchdog_ms=WATCHDOG_MS):
    """Run the box on the Pico forever, under the guard, with the hardware watchdog.

    The game in progress is kept in /data (littlefs), errors in /error.log. A developer's
    Ctrl-C (mpremote) stops the watchdog before the REPL takes over, since it cannot be
    stopped through machine.WDT and would otherwise reboot the Pico mid-session;
    *watchdog_ms* = 0 leaves it off.
    """
    import os
    import time

    from shutbox.board import Board
    from shutbox.guard import Guard
    from shutbox.store import Store

    board = Board()
    from shutbox import selftest

    if selftest.requested(board):  # Roll held with tile 1 shut at power-up
        selftest.run(board, time.ticks_ms)
    store = Store("/data")

    def make(now, safe):
        # power-up combinations, settings and records (shutbox.powerup), then the game
        from shutbox import powerup

        app = powerup.start(board, os.urandom, now, store, safe)
        powerup.unload("powerup", "setfile")
        return app

    wdt = board.watchdog(watchdog_ms) if watchdog_ms > 0 else None
    guard = Guard(board, make, time.ticks_ms(), wdt=wdt, wdt_reset=board.watchdog_reset())
    try:
        while True:
            guard.step(time.ticks_ms())
            time.sleep_ms(POLL_MS)
    except KeyboardInterrupt:
        board.watchdog_stop()
        raise

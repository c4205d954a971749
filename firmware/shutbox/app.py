# The box's main loop: board -> debounce -> game -> LEDs, buzzer and the JSON game log.
"""Wiring of the firmware, driven one poll at a time.

``App.step(now)`` is one poll: read the switches, debounce, feed the game, play the next note,
redraw the LEDs when the frame changed, print new game-log records as JSON lines (the USB
serial console) and count them for the box's records, feed the watchdog. The Pico's
``main()`` calls it every few ms with ``time.ticks_ms()``; the simulator calls it with a
virtual clock. A poll where nothing happens allocates nothing (tests/firmware/test_scenarios.py
proves it with ``micropython.heap_lock``).
"""

import gc
import json

from micropython import const
from shutbox import forget
from shutbox import frame as fr
from shutbox.debounce import EV_DOWN, EV_LONG, EV_SHORT, EV_TILES, Debouncer
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import Game, Settings, parts, tiles_of
from shutbox.ticks import ticks_add, ticks_diff

# _NOTICE_*: why the boot notice shows (tile k lit amber for the reason with bit k-1).
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_OFF = const(0)  # palette codes (shutbox.frame; keep them < 8): dark
_AMBER = const(4)  # attention: open this tile, one die available
_STATUS_MS = const(500)  # a waiting screen's 1 Hz blink (half-period; half LABEL_MS)
_NOTICE_SETTINGS = const(1)  # boot notice: the settings file was damaged
_NOTICE_RECORDS = const(2)  # boot notice: the records file was damaged
_NOTICE_GAME = const(4)  # boot notice: the saved game was damaged
_NOTICE_FAULT = const(8)  # boot notice: restarted after an error or a watchdog reset
_NOTICE_BATTERY = const(16)  # boot notice: the cells are low
_WATCHDOG_MS = const(8000)  # the hardware watchdog's timeout (the rp2 maximum is 8388)
_IDLE_MS = const(60000)  # wait(): the longest sleep reported when nothing is due
_FRAME_MS = const(20)  # LEDs redrawn 50 times a second while they move (and on an input)
_BOOT_SETTINGS = const(0)  # the boot list's slots (powerup.read): the settings
_BOOT_RULES = const(1)  # the boot list: the rules
_BOOT_NOTICES = const(2)  # the boot list: the boot notice's bits
_BOOT_TALLY = const(3)  # the boot list: the records' tally
# the boot list: appended by shutbox.app (make_engine), kept from start to start
_BOOT_ENGINE = const(4)
_T_STORE = const(0)  # a records' tally's slots (Records.tally): the store
_T_KEY = const(1)  # a tally: the variant's key
_T_SKIP = const(2)  # a tally: bit p, player p+1's turns do not count
_T_TURNS = const(3)  # a tally: the turns not merged yet (this and on: saved by shutbox.resume)
_T_BEST = const(4)  # a tally: their best score
_T_SHUT = const(5)  # a tally: their boxes shut
_T_BEGAN = const(6)  # a tally: the variant's game count when the game began
_T_GAMES = const(7)  # a tally: the variant's game count as the records last had it
# END consts
_NEW_GAME_MS = const(5000)  # Roll held this long, in any state: a new game
_NOTICE_MS = const(2000)  # the boot notice (frame.notice) shows this long
# The optimal-play table (2 KB and more) is loaded only for a feature that needs it (best-move
# hints, the computer opponent); a folder that cannot exist makes the engine go without.
_NO_TABLES = const("/-")


class App:
    """The box: one board, one game."""

    def __init__(self, board, urandom, now, settings=None, rules=None, out=None, wdt=None,
                 tables_dir=None, store=None, resume=True, engine=None, tally=None):
        """Build everything once; *urandom(n)* gives random bytes, *out* prints a log line.

        *tables_dir*: where the engine's optimal-play tables are (None: beside the engine, and
        only when the settings need them). *store* (shutbox.store.Store): the game in progress
        is saved there at safe points and, with *resume*, continued from there. *engine*: the
        engine for these settings and rules (``make_engine``), made once and shared by every
        start; None: one is made here. *tally*: the box's records' (``start``), saved with
        the game and taken back with it.
        """
        # Every attribute first, the game's as a stand-in: the instance's dict (a block of a
        # few hundred bytes) grows to its full size before the game's many blocks are made
        self.board = board
        self.game: Game = None  # type: ignore[assignment]  # made last, below
        self.out = out if out is not None else print
        self.wdt = wdt
        self._next_frame = now
        # Names the box already holds where they fit (an interned name is RAM for good, and
        # one more can grow their pool by KBs): the melody being played (game.sound, counted
        # by its sound_seq): its next note (tone; -1: silent), when that is due (at)
        self.sound_seq = 0
        self.tone = -1
        self.at = now
        self.notices = 0  # _NOTICE_* bits shown by the boot notice ...
        self.since = now  # ... from then
        self._down_at = -1  # Roll went down then (-1: up): _NEW_GAME_MS later, a new game
        # A long press takes effect when Roll comes up, so that holding it on to _NEW_GAME_MS
        # starts a new game without throwing the dice first
        self.long = False
        # the box's records (shutbox.records): the turns counted for them, made by
        # shutbox.powerup (Records.tally: its slots _T_*), or None
        self.tally = tally
        self.resume = None
        self.deb = Debouncer(board.tiles, board.switches(), board.roll(), now)
        if rules is None:
            rules = Rules(tiles=board.tiles)
        if settings is None:
            settings = Settings()
        self.engine = engine if engine is not None else make_engine(settings, rules,
                                                                    tables_dir)
        if settings.code >= 0:  # a challenge code: the dice follow it
            from shutbox.challenge import Challenge, variant_key

            self.dice = Challenge(settings.code, variant_key(settings, rules.tiles))
        else:
            self.dice = Dice(urandom)  # type: ignore[assignment]  # Challenge is a Dice
        game = Game
        if settings.real_dice | settings.timeout | settings.resign | settings.long:  # the
            # players' own dice entered on the tiles, a time limit, resigning: shutbox.turn's
            # Game (which makes shutbox.long's for the long game for 2: no more code here, in
            # the RAM every game needs), by names the box already holds ("shutbox.", "turn",
            # "Game": interned names stay in RAM for good, and one more can make their pool
            # grow by KBs)
            game = __import__("shutbox." + "turn").turn.Game
        board.adjust(settings.sound, settings.brightness)  # the box's own settings
        # the game's blocks (its instance dict alone takes 752 bytes in one piece) go where
        # the blocks just made and dropped were: after a fault, the heap has no other room
        gc.collect()
        self.game = game(self.engine, self.dice, settings, self.deb.levels, now)
        if store is not None:  # imported here: a box without flash (some tests) goes without
            from shutbox.resume import Resume, was_damaged

            self.resume = Resume(store)
            if resume and was_damaged(self.resume.load(self.game, self.deb.levels, now,
                                                       tally)):
                self.notice(_NOTICE_GAME, now)

    def notice(self, reasons, now):
        """Show the boot notice (frame.notice) for 2 s from *now*, adding _NOTICE_* *reasons*.

        For anything found wrong at boot (a damaged file, a restart after a fault): the box
        carries on with safe defaults and says so on its LEDs; the log gets a "notice" line.
        """
        self.notices |= reasons
        self.since = now
        self._next_frame = now  # drawn at the next step, moving or not (wait)
        self.game.log.append({"ev": "notice", "tiles": tiles_of(self.notices)})

    def step(self, now, levels=-1):
        """One poll at time *now* (ticks_ms) of the switches' reading *levels* (Board.reader:
        the box's loop reads them once a pass; -1: read here)."""
        # Each method of a step keeps its frame within 11 slots (few locals, shallow calls):
        # a larger one is allocated on the heap at every call, and once the heap holds the
        # game's garbage each allocation costs 0.1-0.2 ms on the emulated RP2040.
        ev = self.board.roll(levels)
        ev = self.deb.update(self.board.switches(levels), ev, now)
        rs = self.resume
        if rs is not None and rs.expect >= 0:  # resumed: the tiles must match the saved game
            ev = rs.hold(self.game, self.deb.levels, ev, now)
        if ev:
            if ev & EV_TILES:
                self.game.tiles_changed(self.deb.levels, now)
            if ev & EV_SHORT:
                self.game.roll(False, now)
            if ev & EV_LONG:
                self.long = True
            if ev & EV_DOWN:
                self._down_at = now  # the frame below shows the dice rolling if it throws
        if self._down_at >= 0:  # Roll held _NEW_GAME_MS: abandon the game (or match), always
            if not self.deb.pressed:
                self._down_at = -1
                if self.long:
                    self.long = False
                    self.game.roll(True, now)
            elif ticks_diff(now, self._down_at) >= _NEW_GAME_MS:
                self._down_at = -1
                self.long = False
                self.game.new_game(now)
                if rs is not None:
                    rs.expect = -1  # no hold for the new game
                self.game.tiles_changed(self.deb.levels, now)
                self._next_frame = now  # drawn now, with no input in this step
        self.game.tick(now)
        # The LEDs first, at once on an input, then the note, the log and the flash: a save
        # (a 45 ms erase and page programs) must not hold up the frame that shows the flip.
        if ev or ticks_diff(now, self._next_frame) >= 0:
            self.draw(now)
        # the melody's next note, or silence, when it is due (Game.sound); levels and ev are
        # reused (the note, the melody): a frame of at most 11 slots
        if self.game.sound_seq != self.sound_seq:  # a new melody: its first note now
            self.sound_seq = self.game.sound_seq
            self.tone = 0
            self.at = now
        levels = self.tone
        if levels >= 0 and ticks_diff(now, self.at) >= 0:  # the next note, or silence
            ev = self.game.sound
            if levels + 1 < len(ev):
                self.board.tone(ev[levels] * 10, ev[levels + 1] * 10)
                self.tone = levels + 2
                self.at = ticks_add(now, ev[levels + 1] * 10)
            else:
                self.board.tone(0, 0)
                self.tone = -1
        # The log and the save wait while another switch is about to be taken (the second
        # of two tiles flipped together: Debouncer.wait, its next reading 1 ms away), so that
        # its frame comes first too: a log line takes the emulated RP2040 1-2 ms
        if self.deb.wait(now, 2) > 1:
            ev = 0
            if self.game.log:
                ev = self._write_log()  # True: it saved the records (a game's end)
            # one save a step, so that the pins are read between two: a game's end saves the
            # records now and the game at the next step (wait: at once), in that order (a cut
            # between them: shutbox.records)
            if rs is not None and not ev:
                rs.poll(self.game, self.tally)  # with the tally: a cut loses none of its turns
        if self.wdt is not None:
            self.wdt.feed()

    def draw(self, now):
        """Fill the frame for *now* (the game's, the dice rolling while Roll is held, a resumed
        game's tiles, the boot notice) and send it.

        The app draws on an input and at the frame pace while the picture moves (wait); a
        still picture is never paced (wait), so the step that first reads a switch moving
        (not yet taken: Debouncer) draws nothing: 1.9 ms less before the step that takes it
        on the emulated RP2040. Every frame drawn is sent (Board.show rewrites only the LEDs
        that changed): the app keeps no copy of the last one (17 attributes: its dict stays
        at 17 slots, not 29), and an app's first frame and the boot notice's are paced."""
        self._next_frame = ticks_add(now, _FRAME_MS)
        # Roll down at this very step and its press throws: the dice roll over the picture on
        # the LEDs (the game's frame, as sent last), the whole picture drawn at the frame
        # pace, 20 ms on: the press answered 0.5 ms sooner on the emulated RP2040 (the
        # game's render skipped), within its 10 ms when the contact bounces most of them
        f = self.game.frame
        if self._down_at >= 0 and self.game.would_throw():  # Roll held: the dice roll till up
            if self._down_at != now:
                f = self.game.render(now)
            fr.rolling(f, self.board.tiles, now, self._down_at, True)
        else:
            f = self.game.render(now)
        if self.resume is not None and self.resume.expect >= 0:  # resumed: tiles unlike the
            # saved game's blink at 1 Hz (fr.blink(now, 0, _STATUS_MS), inline)
            fr.tiles_mask(f, self.deb.levels ^ self.resume.expect,
                          _OFF if ticks_diff(now, 0) // _STATUS_MS & 1 else _AMBER)
        if self.notices:
            if ticks_diff(now, self.since) < _NOTICE_MS:
                fr.notice(f, self.board.tiles, self.notices, now, self.since)
            else:
                self.notices = 0
        self.board.show(f)

    def wait(self, now):
        """Return the ms from *now* until the next step can change anything if no switch
        changes (0: at once): a level settling, Roll's long press or its 5 s hold, the next
        note, the frame's next change while time alone changes it (Game.moving: a blink's or
        a view's next edge, or the frame pace while the dice roll; a resumed game's blinking
        tiles; the boot notice at the frame pace), never sooner than the frame pace. The
        Pico's loop sleeps until then, or until a switch changes (shutbox.guard:
        Guard.forever): a screen that waits for the player steps only when it changes."""
        ms = self.deb.wait(now, _IDLE_MS)
        held = self._down_at >= 0
        if held:
            w = _NEW_GAME_MS - ticks_diff(now, self._down_at)
            if w < ms:
                ms = w
        if self.tone >= 0:
            w = ticks_diff(self.at, now)
            if w < ms:
                ms = w
        # True: the frame pace (the boot notice; the dice rolling while Roll is held)
        w = True if self.notices or held and self.game.would_throw() else self.game.moving(now)
        rs = self.resume
        if rs is not None and rs.transitions != self.game.transitions:
            return 0  # a save the last step left to this one (step: one save a step)
        if not w and rs is not None and rs.expect >= 0:  # the tiles unlike the saved game's
            w = _STATUS_MS - ticks_diff(now, 0) % _STATUS_MS  # blink (as render draws it)
        if w:  # never sooner than the frame pace
            w = max(w, ticks_diff(self._next_frame, now))
            if w < ms:
                ms = w
        else:  # a still picture: no step draws it again until an input (or notice) asks
            self._next_frame = ticks_add(now, _IDLE_MS)
        return ms if ms > 0 else 0

    def _write_log(self):
        """Print the game's new log records; count them for the box's records (self.tally);
        return True if the records were saved (a ``winner`` record)."""
        log = self.game.log
        t = self.tally
        saved = False
        for rec in log:
            self.out(json.dumps(rec))
            if t is None:
                continue
            ev = rec["ev"]
            if ev == "score" and not t[_T_SKIP] >> (rec["player"] - 1) & 1:  # not the computer's
                t[_T_TURNS] += 1
                t[_T_BEST] = min(t[_T_BEST], rec["score"])
                t[_T_SHUT] += 1 if rec["shut_box"] else 0
            elif ev == "game":  # a new game: the records' count it began with (Records.add)
                t[_T_BEGAN] = t[_T_GAMES]
            elif ev == "winner":  # the game's end: into flash, with the module only for that
                import gc

                gc.collect()  # the module's code into a heap the game has left garbage in
                from shutbox import records

                records.Records(t[_T_STORE], t[_T_KEY]).add(t)
                forget("records")
                saved = True
        del log[:]
        return saved


def make_engine(settings, rules, tables_dir=None):
    """Return the Engine for *settings* and *rules*, with the tables the settings need.

    The optimal-play table (2 KB and more) only for a feature that needs it (best-move
    hints, the hard computer), and for them the hint buffer (1 KB a layer: beat-target and
    match play, shutbox.coach and shutbox.computer); *tables_dir*: where the tables are
    (None: beside the engine).
    """
    from shutbox.settings import needs_table

    if tables_dir is None and not needs_table(settings):
        tables_dir = _NO_TABLES
    return Engine(rules, tables_dir, hints=needs_table(settings))


def start(board, urandom, now, store, boot, safe=False, out=None, tables_dir=None):
    """Return the App for the box's *boot* list (shutbox.powerup.read), with the boot list's
    tally of the records (the one list, kept from start to start: the saved game's when it
    resumes); *safe*: start a new game rather than the saved one (the guard, after a fault).
    The boot notice's reasons are shown at the first start only.

    The engine (its tables: the largest blocks the game holds) is made at the first start
    and kept in the boot list for every start after it (main() makes it before the first):
    a restart after a fault needs no large block, however the game left the heap.
    """
    settings = boot[_BOOT_SETTINGS]
    rules = boot[_BOOT_RULES]
    notices = boot[_BOOT_NOTICES]
    tally = boot[_BOOT_TALLY]
    boot[_BOOT_NOTICES] = 0
    if len(boot) == _BOOT_ENGINE:
        boot.append(make_engine(settings, rules, tables_dir))
    app = App(board, urandom, now, settings=settings, rules=rules, out=out, store=store,
              resume=not safe, engine=boot[_BOOT_ENGINE], tally=tally)
    cpu = getattr(app.game, "cpu", None)
    if cpu is not None:  # the computer's turns are not the box's records
        tally[_T_SKIP] = cpu.seats
    if notices:
        app.notice(notices, now)
    return app


def prelude(boot, booted):
    """main()'s boot: the board, the store, the boot list (read if None), the modules the
    first start needs, the engine; return (board, make(now, safe), boot list, on the chip)."""
    import gc
    import os
    import sys

    from shutbox.board import Board
    from shutbox.store import Store

    board = Board()
    store = Store("/data")
    if boot is None:
        from shutbox import powerup

        boot = powerup.read(board, store)
        powerup.unload("powerup")
        del powerup
    # the code the first start would import (the guard's, the saved game's, the settings'
    # optional parts), one module at a time and each loader's garbage collected, then the
    # engine's tables: the first app is made of objects only, in a heap without holes
    chip = sys.platform == "rp2"  # the cells' gauge and sleep (shutbox.sleep): on the chip
    s = boot[_BOOT_SETTINGS]
    # The objects made once for the box's life (the board, the store, the settings and the
    # rules, then the engine below: every start after a fault reuses them) are made: their
    # constructors' code goes (about 1.7 KB of heap with the engine's), before the modules
    # below load into the holes it leaves. A method leaves the heap only once nothing holds
    # it: set to None first (a key removed from a dict leaves its value in the slot). On
    # MicroPython only: main forgets their modules on a Ctrl-C, so that the REPL's next
    # import loads them whole
    mp = sys.implementation.name == "micropython"
    for p in (Board, Store, Settings, Rules) if mp else ():
        p.__init__ = None  # type: ignore[method-assign,assignment]
        del p.__init__
    # the engine's tables before the optional modules: their blocks below the code, which
    # leaves a restart after a fault its holes (about 0.5 KB less room for the recoveries)
    gc.collect()
    boot.append(make_engine(boot[_BOOT_SETTINGS], boot[_BOOT_RULES]))  # _BOOT_ENGINE
    if mp:  # its tables are made: the engine's constructor goes too (above), and the code
        # that chose them (every start after this reuses the engine)
        Engine.__init__ = None  # type: ignore[method-assign,assignment]
        del Engine.__init__
    p = parts(s)
    turn = s.real_dice or s.timeout or s.resign
    # the match's play (shutbox.target: the hard computer's and the best hints' in one round
    # for the win, its checks as in shutbox.coach) with the code, not among a game's garbage
    # later, where its blocks left a restart after a fault no room for the game's; and where
    # the pack has no block for some seat (a variant but the default one, tablegen's
    # MATCH_KEYS; replay: seat 1 of 3 and 4, every later seat) the pass that computes it
    # (shutbox.payout)
    m = (s.hints == 2 or s.computer == 3) and not (
        s.format or s.stakes or s.same_throws or s.unlucky7 or s.to_go or s.most_tiles)
    w = m and (s.tie == 2 and s.players + (s.computer > 0) > 1 or s.one_die != 1
               or s.one_die_mode or s.moves or s.scoring)
    for name in ["guard", "resume"] + p + (["sleep"] if chip else []) + (
            ["turn"] if turn else []) + (["target"] if m else []) + (["payout"] if w else []):
        gc.collect()
        __import__("shutbox." + name)
    if w:  # the pass's working memory, made once beside the code (shutbox.payout.load): a
        # turn's start late in a game, or a restart after a fault, has no hole of 2 KB
        gc.collect()
        __import__("shutbox." + "payout").payout.load(boot[_BOOT_ENGINE])
    # every module that uses shutbox.ticks and shutbox.pins has taken what it needs from them
    # (MicroPython's own functions, the pin numbers): the modules themselves (about 900 and
    # 2,400 bytes of heap) go; a module loaded later brings them back
    forget("ticks")
    forget("pins")
    forget("app")  # main frees this function (del prelude): `import main` loads it anew
    if booted is not None:  # main.py's start-up shortcuts end: collected with the rest
        booted()
    gc.collect()

    def make(now, safe):
        return start(board, os.urandom, now, store, boot, safe)

    return board, make, boot, chip


def main(boot=None, watchdog_ms=_WATCHDOG_MS, booted=None):
    """Run the box on the Pico forever, under the guard, with the hardware watchdog.

    The game in progress is kept in /data (littlefs), errors in /error.log. A developer's
    Ctrl-C (mpremote) stops the watchdog before the REPL takes over, since it cannot be
    stopped through machine.WDT and would otherwise reboot the Pico mid-session;
    *watchdog_ms* = 0 leaves it off. The power-up screens (and the self-test) have run
    before, and the settings were read (*boot*: shutbox.powerup.read; read here if None):
    firmware/main.py. *booted()* is called once the modules are loaded, before the engine.
    """
    global prelude
    board, make, boot, chip = prelude(boot, booted)
    # main runs until the power goes, its code with it; the boot's (prelude: about 500 bytes
    # of heap) goes now, for the game's heap. A reset loads this module anew, and so does
    # `import main` run again at the REPL after a Ctrl-C (prelude forgot the module's name)
    del prelude
    try:  # a Ctrl-C from the watchdog's start on stops it: the REPL cannot stop machine.WDT
        wdt = board.watchdog(watchdog_ms) if watchdog_ms > 0 else None
        if chip:  # the guard with the cells' checks and sleep
            from shutbox import sleep

            sleep.main(board, make, boot[_BOOT_SETTINGS], wdt, watchdog_ms)
        import time

        from shutbox.guard import Guard

        Guard(board, make, time.ticks_ms(), wdt=wdt, wdt_reset=board.watchdog_reset()).forever()
    except KeyboardInterrupt:
        board.watchdog_stop()
        for name in ("board", "store", "settings", "engine"):  # their constructors went,
            forget(name)  # in prelude
        raise

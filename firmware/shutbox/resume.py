# The game in progress survives a power cut: a compact snapshot saved at safe points.
"""Snapshot layout, saving at safe points, and resuming with the physical tiles checked.

``snapshot(game, buf, tally)`` packs everything a game needs to continue into 76 bytes (layout
``VERSION``, little-endian)::

    0       VERSION                  13  player (0-based)
    1       tiles                    14  flags: 1 locked, 2 over, 4 shut_box
    2..6    one-die, one-die-mode,   15  played (bit p: player p+1 has played)
            moves, scoring, start    16  winners (bit p)
    7..10   settings fingerprint:    17, 18  the dice a, b (b = 0: one die)
            CRC-32 of the settings       19  throws this turn (capped at 255)
            that shape the game          20  page (the game-end view)
            (settings.ATTRS order, and the code when there is one)
    11      players                  21..22  the open tiles (mask)
    12      state (MOVE is saved     23..46  scores, 4 x 6 bytes (digital scoring: 47 bits)
            as ROLLING: the throw    47..52  this turn's score
            stands; ROLLOFF too)     53..58  the winning score
    59      n: bytes of the match that follow (0 without one; at most 83)
    60..75  the box's records' tally (shutbox.records; App.tally), 4 bytes each: turns, the
            best turn score, boxes shut, the records' game count when the game began

The tally: the turns the records have not counted yet (the game's, and those of the games left
unfinished since the last one that ended), so that a power cut loses none of them, and the
variant's game count when the game began, by which the records know a game they counted
before a cut (``load``: its turns are not counted again). The match: a game with rounds, a
format, a tie rule, stakes or a turn variant keeps more state in ``game.match``
(shutbox.rounds: the round, the turn scores of the round, the Canoga balances, the roll-off,
the recorded throws), written from byte 76 on by ``Match.save`` and checked and taken back by
``Match.load`` (its docstring has the layout). A change of this layout, the match's included,
raises VERSION: a file of another version reads as damaged and the box starts anew (version
2, before the tally: a game saved by the firmware before an update). The fingerprint covers
the options that shape a game and the challenge code, if any (CRC-32 chained over its two
bytes): sound and brightness end no saved game. ``played`` of a one-round game leaves out
the players who resigned (shutbox.turn: they cannot win), and a match's ``st`` has every
player of a round who resigned out of ``_IN_ROUND``: the same bytes as before, no new version
(a game saved by the firmware before, where the first to resign kept that bit, plays on as
it was saved).

``restore(game, data, now)`` checks the layout (the range of every field) and that the rules
and settings are the ones the box runs now; a game saved under other settings is not resumed.

``Resume`` ties it to the app: ``load`` at boot, ``poll`` after every app step saves when the
game has entered a new state (a throw, an accepted move, a turn end, a new turn, round or
game, a roll-off die; never on a plain poll, and not on entering MOVE, which adds nothing to
the throw saved just before). Saving at the throw, before the dice are shown, means pulling
the plug cannot buy a new throw. Flash wear: about a dozen saves of an 88-byte file (up to
171 with a match) per turn; littlefs inlines such a small file in its directory's
metadata log, so a save (written in place: shutbox.store) appends one commit of a page there
and a 4 KB block is erased only when the log compacts, about every fifteen saves, with the
metadata moved to a fresh block every 100 erases (block_cycles) so the wear spreads over the
whole filesystem (``shutbox bench`` measures erases per save on MicroPython's littlefs;
tests/mp/resume_wear.py: the same for a match's larger file). The app saves after the step's
LED frame, one file a step (shutbox.app): an erase stops the Pico for 45 to 400 ms, and the
inputs that come meanwhile wait for it (docs/reliability.md).

After a resume the box waits until the tiles match the saved game (Open the Box: the tiles
up, not the mirrored model): tiles that differ blink amber (the app draws them over the
game's frame), Roll does nothing (``hold``), and play continues as soon as they match. A game
saved under other settings loads as MISSING (quietly replaced); ``was_damaged(status)`` says
when to show the notice.
"""

import binascii

from micropython import const
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, tiles_of
from shutbox.settings import ATTRS
from shutbox.store import MISSING, OK, damaged

VERSION = const(3)
_SIZE = const(76)  # the fixed part
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_ROLLOFF = const(6)  # a state: the tied players throw one die each (tie rule roll-off)
# the states' names, for the log
_NAMES = const("setup ready rolling move turn_end game_end rolloff")
_SAVED = const(0x77)  # the states saved (bit per state): all but MOVE (saved as ROLLING)
_SND_NO = const(b"\x1e\x0a")  # the game's low "no" buzz
_GAME_OPTIONS = const(17)  # settings.ATTRS[:17] shape the game
_EV_TILES = const(1)  # the debounced tile levels changed
_EV_PRESSES = const(24)  # EV_SHORT | EV_LONG
_EV_ROLL = const(6)  # EV_DOWN | EV_UP: passed on, so that a long hold still counts
NAME = "game"  # the saved game's file in the store
_T_TURNS = const(3)  # a tally: the turns not merged yet (this and on: saved by shutbox.resume)
_T_BEST = const(4)  # a tally: their best score
_T_SHUT = const(5)  # a tally: their boxes shut
_T_BEGAN = const(6)  # a tally: the variant's game count when the game began
_T_GAMES = const(7)  # a tally: the variant's game count as the records last had it
_NONE = const(0xFFFFFFFF)  # records: no best score yet
# END consts
_EXTRA_MAX = const(84)  # the most a match adds (shutbox.rounds.Match.save: 83 bytes)
_STALE = const(8)  # restore(): a whole game, but under other settings (not damage)
_BAD = const(2)  # restore(): the bytes are not a game this firmware can continue



def _fingerprint(game):
    """Return the CRC-32 of the game's settings that shape it (settings.ATTRS order) and of
    its challenge code's two bytes, if it has one. (A function of its own: snapshot's code
    stays one small block of RAM.)"""
    s = game.settings
    raw = bytearray(_GAME_OPTIONS)
    for i in range(_GAME_OPTIONS):
        raw[i] = int(getattr(s, ATTRS[i], 0)) & 0xFF
    crc = binascii.crc32(raw)
    code = game.dice.code
    if code >= 0:
        crc = binascii.crc32(code.to_bytes(2, "little"), crc)
    return crc & 0xFFFFFFFF


def snapshot(game, buf=None, tally=None):
    """Return the game's snapshot: a bytearray, or a memoryview of *buf* when given.

    *buf* must hold 76 + 84 bytes. *tally*: the records' (App.tally; None: an empty one).
    """
    given = buf is not None
    if not given:
        buf = bytearray(_SIZE + _EXTRA_MAX)
    buf[0] = VERSION
    r = game.engine.rules  # the variant, and a fingerprint of the settings (they must be the same)
    buf[1] = game.engine.tiles
    buf[2] = r.one_die
    buf[3] = r.one_die_mode
    buf[4] = r.moves
    buf[5] = r.scoring
    buf[6] = r.start
    buf[7:11] = _fingerprint(game).to_bytes(4, "little")
    buf[11] = game.players
    st = game.state
    buf[12] = ROLLING if st == MOVE else st
    buf[13] = game.player
    buf[14] = (1 if game.locked else 0) | (2 if game.over else 0) | (4 if game.shut_box else 0)
    buf[15] = game.played
    buf[16] = game.winners
    buf[17] = game.a
    buf[18] = game.b
    buf[19] = game.throws if game.throws < 255 else 255
    buf[20] = game.page
    buf[21:23] = game.open_.to_bytes(2, "little")
    for i in range(4):
        buf[23 + 6 * i:29 + 6 * i] = game.scores[i].to_bytes(6, "little")
    buf[47:53] = game.score.to_bytes(6, "little")
    buf[53:59] = (game.best_score if game.best_score > 0 else 0).to_bytes(6, "little")
    t = tally if tally is not None else (0,) * _T_GAMES  # none: an empty one
    for i in range(4):  # turns, best, shut, began; a larger best is capped by the records too
        buf[60 + 4 * i:64 + 4 * i] = min(t[_T_TURNS + i], _NONE).to_bytes(4, "little")
    n = _SIZE if game.match is None else game.match.save(buf, _SIZE)
    buf[59] = n - _SIZE
    return memoryview(buf)[:n] if given else buf[:n]


def restore(game, data, now):
    """Continue the game saved in *data*; return OK, or _STALE/_BAD (the game is untouched).

    Checks the layout (the range of every field), and that the rules and settings are the
    ones the box runs now: a game saved under other settings is _STALE.
    """
    m = game.match
    if len(data) < _SIZE or data[0] != VERSION or len(data) != _SIZE + data[59]:
        return _BAD
    # the variant, the settings, the players, as snapshot writes them: compared field by
    # field, as a restart after a fault has no room for a second snapshot's buffer
    r = game.engine.rules
    if (data[1] != game.engine.tiles or data[2] != r.one_die or data[3] != r.one_die_mode
            or data[4] != r.moves or data[5] != r.scoring or data[6] != r.start
            or data[7] | data[8] << 8 | data[9] << 16 | data[10] << 24 != _fingerprint(game)
            or data[11] != game.players):
        return _STALE
    players = data[11]
    st = data[12]
    everyone = (1 << players) - 1
    open_ = data[21] | data[22] << 8
    a = data[17]
    b = data[18]
    if (st > _ROLLOFF or not _SAVED >> st & 1 or data[13] >= players or data[14] > 7
            or data[15] & ~everyone or data[16] & ~everyone or a > 6 or b > 6
            or data[20] > players or open_ & ~game.engine.full
            or (data[59] == 0) != (m is None) or (st == _ROLLOFF and m is None)):
        return _BAD
    if st == ROLLING and (a == 0 or (b == 0 and not game.engine.one_die_allowed(open_))):
        return _BAD
    if st == GAME_END and data[16] == 0:
        return _BAD
    if m is not None and not m.load(data[_SIZE:], st):
        return _BAD  # the match checks its part before anything changes
    p = data[13]
    game.start_turn(p, now)  # resets the per-turn fields; the ones saved are set below
    flags = data[14]
    game.locked = bool(flags & 1)
    game.over = bool(flags & 2)
    game.shut_box = bool(flags & 4)
    game.played = data[15]
    game.winners = data[16]
    game.a = a
    game.b = b
    game.throws = data[19]
    game.page = data[20]
    if st != SETUP:
        game.open_ = open_
    for q in range(4):
        game.scores[q] = int.from_bytes(data[23 + 6 * q:29 + 6 * q], "little")
    game.score = int.from_bytes(data[47:53], "little")
    game.best_score = int.from_bytes(data[53:59], "little")
    # hints: the score to beat again, from the scores just restored; only for a turn in
    # play (at a turn's end the seat has played: its aim would be its own score, and a
    # computed one a pass for nothing while the restart's App is made)
    if game.coach is not None and st <= MOVE:
        game.coach.turn()
    del game.log[:]  # the fresh game the box was built with never happened
    game.log.append({"ev": "resume", "state": _NAMES.split()[st], "player": p + 1,
                     "open": tiles_of(game.open_), "dice": [a, b] if b else [a],
                     "scores": game.scores[:game.players]})
    if st == READY or st == ROLLING:
        game.levels = game.open_  # the model; the app holds the real tiles back until they match
    game.enter(st, now)
    return OK


class Resume:
    """The game in progress on flash: saved at safe points, restored at boot.

    What shutbox.app uses: ``load``, ``poll``, ``hold``, ``expect`` (the tile levels a resumed
    game waits for, -1: none) and ``transitions`` (the game's count at the last poll: while
    the game's differs, a save is due at the next step)."""

    def __init__(self, store):
        """Keep the store (shutbox.store.Store) and the one snapshot buffer."""
        self.store = store
        self._buf = bytearray(_SIZE + _EXTRA_MAX)
        self.transitions = -1  # game.transitions at the last poll (App.wait)
        self.expect = -1  # tile levels the box waits for after a resume (-1: none)
        self.saves = 0
        self.failed = 0  # saves the flash refused (the game goes on; the next save retries)

    def load(self, game, levels, now, tally=None):
        """Resume the saved game into *game* if there is one; return the status.

        *levels* are the debounced tile levels now. The status is the store's: OK, MISSING
        (also for a game saved under other settings) or a damaged file (was_damaged: the app
        shows the notice); the game stays a new one unless OK. A resumed game's records'
        tally goes back into *tally* (App.tally), with no turns when the records' count has
        moved on since the game began (they counted it, and its turns, before a cut).
        """
        b = self._buf
        n = self.store.load_into(NAME, b, VERSION)
        st = self.store.status
        if n >= 0:
            st = restore(game, memoryview(b)[:n], now)
            if st == _STALE:  # a game under other settings: quietly replaced, as if none
                st = MISSING
        if st == OK and tally is not None:
            t = tally
            for i in range(4):
                t[_T_TURNS + i] = int.from_bytes(b[60 + 4 * i:64 + 4 * i], "little")
            if t[_T_BEGAN] != t[_T_GAMES]:  # counted: whatever it ends in, not counted again
                t[_T_TURNS] = t[_T_SHUT] = 0
                t[_T_BEST] = _NONE
        # a resumed game is on flash already; anything else is saved at the first poll, so a
        # damaged file is replaced at once
        self.transitions = game.transitions if st == OK else -1
        if st == OK:
            cpu = game.cpu
            want = game.open_ ^ game.inv  # the tiles up (Open the Box: the model is mirrored)
            # a turn in play needs the box's tiles as saved; the computer plays on virtual
            # tiles (the box's own do not matter), and SETUP takes the tiles as they are
            if (READY <= game.state <= MOVE and levels != want
                    and (cpu is None or not cpu.playing())):
                self.expect = want
            else:
                game.tiles_changed(levels, now)
        return st

    def poll(self, game, tally=None):
        """Save the game, with the records' *tally*, if it entered a new state since the last
        poll (not into MOVE)."""
        t = game.transitions
        if t == self.transitions:
            return False
        self.transitions = t
        if game.state == MOVE:
            return False
        if self.store.save(NAME, snapshot(game, self._buf, tally), VERSION) == OK:
            self.saves += 1
            return True
        self.failed += 1
        return False

    def hold(self, game, levels, ev, now):
        """Filter the debouncer's events while the tiles differ from the resumed game."""
        if levels == self.expect or game.state > MOVE:  # matched, or the turn ended anyway
            self.expect = -1
            return ev | _EV_TILES  # the tiles match: the game takes them from here
        if ev & _EV_PRESSES:
            game.melody(_SND_NO)  # put the tiles back first
        return ev & _EV_ROLL


# Whether a load status means the saved game's file was damaged (the app shows the notice).
was_damaged = damaged

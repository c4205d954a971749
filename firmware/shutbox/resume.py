# The game in progress survives a power cut: a compact snapshot saved at safe points.
"""Snapshot layout, saving at safe points, and resuming with the physical tiles checked.

``snapshot(game)`` packs everything a game needs to continue into ``SIZE`` bytes (layout
``VERSION``, little-endian)::

    0       VERSION                  13  player (0-based)
    1       tiles                    14  flags: 1 locked, 2 over, 4 shut_box
    2..6    one-die, one-die-mode,   15  played (bit p: player p+1 has played)
            moves, scoring, start    16  winners (bit p)
    7..10   settings fingerprint:    17, 18  the dice a, b (b = 0: one die)
            CRC-32 of every setting      19  throws this turn (capped at 255)
            (settings.ATTRS order)       20  page (the game-end view)
    11      players                  21..22  the open tiles (mask)
    12      state (MOVE is saved     23..46  scores, 4 x 6 bytes (digital scoring: 47 bits)
            as ROLLING: the throw    47..52  this turn's score
            stands)                  53..58  the winning score
    59      n: bytes of extra state that follow (0..EXTRA_MAX)

Extra state: features that keep more state in the game (rounds, totals, stakes, a roll-off)
provide ``game.save_extra() -> bytes`` (at most EXTRA_MAX) and ``game.load_extra(data) ->
bool`` (False: the bytes make no sense); they are stored at byte 60 on. A change of this
layout raises VERSION: a file of another version reads as damaged and the box starts anew.

``restore(game, data, now)`` checks the layout (the range of every field) and that the rules
and settings are the ones the box runs now; a game saved under other settings is not resumed.

``Resume`` ties it to the app: ``load`` at boot, ``poll`` after every app step saves when the
game has entered a new state (a throw, an accepted move, a turn end, a new turn or game;
never on a plain poll, and not on entering MOVE, which adds nothing to the throw saved just
before). Saving at the throw, before the dice are shown, means pulling the plug cannot buy a
new throw. Flash wear: about a dozen saves of a 68-byte file per turn; littlefs inlines such a
small file in its directory's metadata log, so a save appends a few hundred bytes there and a
4 KB block is erased only when the log compacts, every few dozen saves, with the metadata
moved to a fresh block every 100 erases (block_cycles) so the wear spreads over the whole
filesystem (``shutbox bench`` measures erases per save on MicroPython's littlefs).

After a resume the box waits until the tiles match the saved game: tiles that differ blink
amber (``hold``/``draw``), Roll does nothing, and play continues as soon as they match.
"""

import binascii

from micropython import const
from shutbox import frame as fr
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, tiles_of
from shutbox.settings import ATTRS
from shutbox.store import MISSING, OK, damaged

NAME = "game"  # the file in the store
VERSION = const(1)
SIZE = const(60)  # the fixed part
EXTRA_MAX = const(64)  # the most extra state a game may add (save_extra)
STALE = const(8)  # load(): a whole file, but of a game under other settings (not damage)
_BAD = const(2)  # restore(): the bytes are not a game this firmware can continue

_EV_TILES = const(1)  # shutbox.debounce's event bits (kept here: no import for two ints)
_EV_PRESSES = const(8 | 16)  # EV_SHORT | EV_LONG
_EV_ROLL = const(2 | 4)  # EV_DOWN | EV_UP: passed on, so that a long hold still counts
_SAVED = (SETUP, READY, ROLLING, TURN_END, GAME_END)
_NAMES = ("setup", "ready", "rolling", "move", "turn_end", "game_end")
_SND_NO = b"\x1e\x0a"  # the game's low "no" buzz


def _put(buf, i, value, n):
    """Write *value* as *n* little-endian bytes at *i*."""
    for j in range(n):
        buf[i + j] = (value >> (8 * j)) & 0xFF


def _get(data, i, n):
    """Read *n* little-endian bytes at *i*."""
    v = 0
    for j in range(n - 1, -1, -1):
        v = (v << 8) | data[i + j]
    return v


def _key(game, buf):
    """Write the variant and the settings' fingerprint into bytes 1..10 of *buf*."""
    r = game.rules
    buf[1] = game.tiles
    buf[2] = r.one_die
    buf[3] = r.one_die_mode
    buf[4] = r.moves
    buf[5] = r.scoring
    buf[6] = r.start
    st = game.settings
    raw = bytearray(len(ATTRS))
    for i in range(len(ATTRS)):
        raw[i] = int(getattr(st, ATTRS[i], 0)) & 0xFF
    _put(buf, 7, binascii.crc32(raw) & 0xFFFFFFFF, 4)


def snapshot(game, buf=None):
    """Return the game's snapshot: a bytearray, or a memoryview of *buf* when given.

    *buf* must hold SIZE + EXTRA_MAX bytes.
    """
    extra = getattr(game, "save_extra", None)
    extra = extra() if extra is not None else b""
    n = len(extra)
    if n > EXTRA_MAX:
        raise ValueError("save_extra: too long")
    given = buf is not None
    if buf is None:
        buf = bytearray(SIZE + n)
    buf[0] = VERSION
    _key(game, buf)
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
    _put(buf, 21, game.open_, 2)
    for p in range(4):
        _put(buf, 23 + 6 * p, game.scores[p], 6)
    _put(buf, 47, game.score, 6)
    _put(buf, 53, game.best_score if game.best_score > 0 else 0, 6)
    buf[59] = n
    buf[SIZE:SIZE + n] = extra
    return memoryview(buf)[:SIZE + n] if given else buf


def _valid(game, data):
    """Return OK, STALE or _BAD for *data* as a snapshot for *game*."""
    if len(data) < SIZE or data[0] != VERSION or len(data) != SIZE + data[59]:
        return _BAD
    if data[59] and getattr(game, "load_extra", None) is None:
        return _BAD
    key = bytearray(11)
    _key(game, key)
    for i in range(1, 11):
        if data[i] != key[i]:
            return STALE
    players = data[11]
    if players != game.players:
        return STALE
    st = data[12]
    everyone = (1 << players) - 1
    open_ = _get(data, 21, 2)
    a = data[17]
    b = data[18]
    if (st not in _SAVED or data[13] >= players or data[14] > 7 or data[15] & ~everyone
            or data[16] & ~everyone or a > 6 or b > 6 or data[20] > players
            or open_ & ~game.engine.full or data[59] > EXTRA_MAX):
        return _BAD
    if st == ROLLING and (a == 0 or (b == 0 and not game.engine.one_die_allowed(open_))):
        return _BAD
    if st == GAME_END and data[16] == 0:
        return _BAD
    return OK


def restore(game, data, now):
    """Continue the game saved in *data*; return OK, or STALE/_BAD (the game is untouched)."""
    ok = _valid(game, data)
    if ok != OK:
        return ok
    load_extra = getattr(game, "load_extra", None)
    if load_extra is not None and not load_extra(data[SIZE:]):
        return _BAD  # a game with extra state checks its part before anything changes
    st = data[12]
    p = data[13]
    game._start_turn(p, now)  # resets the per-turn fields; the ones saved are set below
    flags = data[14]
    game.locked = bool(flags & 1)
    game.over = bool(flags & 2)
    game.shut_box = bool(flags & 4)
    game.played = data[15]
    game.winners = data[16]
    game.a = data[17]
    game.b = data[18]
    game.throws = data[19]
    game.page = data[20]
    if st != SETUP:
        game.open_ = _get(data, 21, 2)
    for q in range(4):
        game.scores[q] = _get(data, 23 + 6 * q, 6)
    game.score = _get(data, 47, 6)
    game.best_score = _get(data, 53, 6)
    if game.coach is not None:
        game.coach.turn()  # hints: the score to beat again, from the scores just restored
    del game.log[:]  # the fresh game the box was built with never happened
    game.log.append({"ev": "resume", "state": _NAMES[st], "player": p + 1,
                     "open": tiles_of(game.open_), "dice": [game.a, game.b] if game.b
                     else [game.a], "scores": game.scores[:game.players]})
    if st == READY or st == ROLLING:
        game.levels = game.open_  # the model; the app holds the real tiles back until they match
    game._anim = now & 0xFF
    game._enter(st, now)
    return OK


def expected(game):
    """Return the tile levels the resumed *game* needs before it goes on, or -1 (any)."""
    cpu = getattr(game, "cpu", None)
    if cpu is not None and cpu.playing():
        return -1  # the computer plays on virtual tiles: the box's own do not matter
    st = game.state
    if st == READY or st == ROLLING or st == MOVE:
        if game.cpu is not None and game.cpu.virtual():
            return -1  # the computer's turn: it plays on virtual tiles, the box's stay open
        return game.open_
    return -1


class Resume:
    """The game in progress on flash: saved at safe points, restored at boot."""

    def __init__(self, store):
        """Keep the store (shutbox.store.Store) and the one snapshot buffer."""
        self.store = store
        self._buf = bytearray(SIZE + EXTRA_MAX)
        self._seen = -1  # game.transitions at the last poll
        self.expect = -1  # tile levels the box waits for after a resume (-1: none)
        self.status = MISSING  # of the load: OK, MISSING, STALE or a damaged() code
        self.saves = 0
        self.failed = 0  # saves the flash refused (the game goes on; the next save retries)

    def load(self, game, levels, now):
        """Resume the saved game into *game* if there is one; return the status.

        *levels* are the debounced tile levels now. A damaged file is reported through the
        status (damaged(status): the app shows the notice); the game stays a new one.
        """
        n = self.store.load_into(NAME, self._buf, VERSION)
        st = self.store.status
        if n >= 0:
            st = restore(game, memoryview(self._buf)[:n], now)
            if st == _BAD:
                st = 2  # store.DAMAGED: the layout is ours but the content is impossible
        self.status = st
        # a resumed game is on flash already; anything else is saved at the first poll, so a
        # damaged file is replaced at once
        self._seen = game.transitions if st == OK else -1
        if st == OK:
            exp = expected(game)
            if exp >= 0 and exp != levels:
                self.expect = exp
            else:
                game.tiles_changed(levels, now)
        return st

    def poll(self, game):
        """Save the game if it entered a new state since the last poll (not into MOVE)."""
        t = game.transitions
        if t == self._seen:
            return False
        self._seen = t
        if game.state == MOVE:
            return False
        if self.store.save(NAME, snapshot(game, self._buf), VERSION) == OK:
            self.saves += 1
            return True
        self.failed += 1
        return False

    def forget(self):
        """Drop the hold (a new game was started)."""
        self.expect = -1

    def hold(self, game, levels, ev, now):
        """Filter the debouncer's events while the tiles differ from the resumed game."""
        if levels == self.expect or expected(game) < 0:  # matched, or the turn ended anyway
            self.expect = -1
            return ev | _EV_TILES  # the tiles match: the game takes them from here
        if ev & _EV_PRESSES:
            game._sound(_SND_NO)  # put the tiles back first
        return ev & _EV_ROLL

    def draw(self, frame, levels, now):
        """Blink the tiles that differ from the resumed game amber (on top of the game's frame)."""
        diff = levels ^ self.expect
        fr.tiles_mask(frame, diff, fr.AMBER if fr.blink(now, 0) else fr.OFF)


def was_damaged(status):
    """Return True if the load status means the saved game's file was damaged."""
    return status != STALE and damaged(status)

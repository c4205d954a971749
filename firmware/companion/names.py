# Players' names at the box's seats and a record per name, kept in the box's flash.
"""The seats' names, set from the page, and each name's record: games, wins, draws, best
score, boxes shut and a rating; one file in the box's store (shutbox.store: checksummed and
replaced atomically), ``names``, version ``VERSION``, little-endian::

    0..3    the variant's key of the last game counted (shutbox.setfile.variant_key)
    4..5    the box's records' game count when that game began (with 0 at 0..3: none yet)
    6..7    _COUNTED when the box's records counted that game too, else its end's mark
            (``_mark``: the winners, who played and the scores, in 15 bits)
    8..71   the seats' names, 4 x _LEN bytes of UTF-8, zero-padded (empty: no name)
    72..    up to _MAX records of _ENTRY bytes (_FORMAT): the name (_LEN bytes), games,
            wins, draws, boxes shut (u16 each, stopping at 65,535), best score (u32,
            _NONE before the first), rating (u16), two bytes spare

Counted once a game, at its end (``Names.after``, after the step that ends a game, which has
saved the box's records; the game's own save comes at the next step),
from the game's end as the box holds it: its winners, the seats' scores and who played. A
power cut anywhere leaves one of three states, each counted once. Before this save: the game
resumes from before its end and ends again, and is counted then. After it: the file keeps
which game it counted last, by the variant's key and the box's records' game count when the
game began (shutbox.records' tally, which the box's saved game carries through a cut), so a
game that ends again after a cut (the box resumes it from before its end) or that resumes at
its end is not counted again. That count moves at every game the box's records count, which
is every game in which a person's seat took a turn. In a game the records did not count (the
variant's first, won by the computer before any person's turn) the count does not move, and
the next game begins at the same count: the game's end's mark then tells them apart (a game
that resumes at its end has the same; one that ends again after a cut may end otherwise, and
would count twice). Once a variant's count stops at 65,535, the marks alone tell its games
apart.

What a game counts, for each seat with a name (the computer's seats are named by the box,
``computer (hard)``; a seat without a name counts nothing, and a game without a person's
name is not saved at all): a game; a win when it alone won a game of two seats or more, a
draw when it shared the win; its game score as its best when lower (the seats that played:
a game won by a shut box ends before the others' turns); a box shut when that score is a shut
box's (every tile shut: 0 in every scoring). The rating is Elo's, as ranked play's usually
is: every name starts at _START; in a game, each winner against each seat that did not win
scores 1 and the other 0, shared winners score a half each against each other (a draw is
halfway between a win and a loss), seats that both lost are not compared (the game ranks
only its winners); each pair moves both ratings by K (_K, divided by the seats less one in
games of three or four) times the score less its expectation, 1 / (1 + 10^(d / 400)) by
the rating difference d, from a table (_EXPECT: no floats), so what one gains the other
loses.
"""

import binascii
import struct

from micropython import const

NAME = "names"  # the file in the store
VERSION = const(1)
SEATS = const(4)
_LEN = const(16)  # bytes of a name
_MAX = const(12)  # names with a record: a new one replaces the one with the fewest games
_HEAD = const(72)
_ENTRY = const(32)
_FORMAT = const("<HHHHIHH")  # after the name: games, wins, draws, shut, best, rating, spare
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_GAME_END = const(5)  # a state
_T_KEY = const(1)  # a tally: the variant's key
_T_BEGAN = const(6)  # a tally: the variant's game count when the game began
_T_GAMES = const(7)  # a tally: the variant's game count as the records last had it
_NONE = const(0xFFFFFFFF)  # records: no best score yet
# END consts
_MARKER = const("<IHH")  # the last game counted: key, the count it began with, _COUNTED or mark
_COUNTED = const(0xFFFF)
_COUNT = const(0xFFFF)
_START = const(1500)
_K = const(32)
# 1000 / (1 + 10^(d / 400)) for d = 0, 50 .. 800 (the expected score, per mille)
_EXPECT = (500, 429, 360, 297, 240, 192, 151, 118, 91, 70, 53, 40, 31, 23, 17, 13, 10)
LEVELS = ("easy", "medium", "hard")  # shutbox.setnames.COMPUTER's levels


def expect(d):
    """Return the expected score per mille of a player rated *d* below the other."""
    a = d if d >= 0 else -d
    if a >= 800:
        e = _EXPECT[16]
    else:
        i = a // 50
        e = _EXPECT[i] + (_EXPECT[i + 1] - _EXPECT[i]) * (a - 50 * i) // 50
    return e if d >= 0 else 1000 - e


def _mark(g):
    """Return 15 bits of the end of game *g*: its winners, who played, the scores."""
    return binascii.crc32(("%d %d %r" % (g.winners, g.played, g.scores[:g.players])).encode()
                          ) & 0x7FFF


def check(name):
    """Return what is wrong with *name* for a seat, in words, or None (None or "": none)."""
    if name is None or name == "":
        return None
    if not isinstance(name, str):
        return "a name is text, or null for none"
    if name != name.strip():
        return "a name neither starts nor ends with a space"
    if len(name.encode()) > _LEN:
        return "a name is at most %d bytes (UTF-8)" % _LEN
    for c in name:
        if ord(c) < 32 or ord(c) == 127:
            return "a name holds no control characters"
    if name.lower().startswith("computer"):
        return "the computer's seats are named by the box"
    return None


class Names:
    """The seats' names (``seats``: text, "" for none) and the records, from *store*."""

    def __init__(self, store):
        """Load the file (``status``: the store's; a damaged one: empty, written at the next
        save)."""
        self.store = store
        self.buf = bytearray(_HEAD + _MAX * _ENTRY)
        n = store.load_into(NAME, self.buf, VERSION)
        self.status = store.status
        if n < _HEAD or (n - _HEAD) % _ENTRY:
            for i in range(len(self.buf)):
                self.buf[i] = 0
            struct.pack_into(_MARKER, self.buf, 0, 0, 0xFFFF, 0)
            n = _HEAD
        self.n = (n - _HEAD) // _ENTRY
        self.seats = [self._text(8 + _LEN * p) for p in range(SEATS)]

    def _text(self, at):
        b = bytes(self.buf[at:at + _LEN])
        i = b.find(b"\0")
        return (b if i < 0 else b[:i]).decode()

    def _put(self, at, text):
        b = text.encode()
        for i in range(_LEN):
            self.buf[at + i] = b[i] if i < len(b) else 0

    def save(self):
        """Write the file; return the store's status (0 = OK)."""
        return self.store.save(NAME, memoryview(self.buf)[:_HEAD + self.n * _ENTRY], VERSION)

    # ----- the seats -----

    def set_seats(self, names):
        """Name seats 1.. len(*names) (None or "": no name) and save; return None, or what is
        wrong in words (nothing changed then)."""
        if not isinstance(names, list) or not 1 <= len(names) <= SEATS:
            return "seats is a list of 1 to %d names (null: none)" % SEATS
        new = self.seats[:]
        for p in range(len(names)):
            wrong = check(names[p])
            if wrong is not None:
                return "seat %d: %s" % (p + 1, wrong)
            new[p] = names[p] or ""
        for p in range(SEATS):
            if new[p] and new[p] in new[p + 1:]:
                return "%s sits at one seat only" % new[p]
        for p in range(SEATS):
            self._put(8 + _LEN * p, new[p])
        self.seats = new
        if self.save():
            return "the box could not save the names (its flash)"
        return None

    def at_seats(self, game):
        """Return the names of *game*'s seats (shutbox.game.Game): the seats' own, the
        computer's for its seats, None for a seat without a name."""
        cpu = game.cpu.seats if game.cpu is not None else 0
        level = game.settings.computer
        out: list = []
        for p in range(game.players):
            if cpu >> p & 1:
                out.append("computer (%s)" % LEVELS[level - 1 if level > 0 else 0])
            else:
                out.append(self.seats[p] or None)
        return out

    # ----- the records -----

    def find(self, name):
        """Return the index of *name*'s record, or -1."""
        for i in range(self.n):
            if self._text(_HEAD + _ENTRY * i) == name:
                return i
        return -1

    def entry(self, i):
        """Return record *i* as (games, wins, draws, shut, best, rating)."""
        return struct.unpack_from(_FORMAT, self.buf, _HEAD + _ENTRY * i + _LEN)[:6]

    def records(self):
        """Return the records as dicts for JSON, the highest rating first."""
        out = []
        for i in range(self.n):
            games, wins, draws, shut, best, rating = self.entry(i)
            out.append({"name": self._text(_HEAD + _ENTRY * i), "games": games, "wins": wins,
                        "draws": draws, "best": None if best == _NONE else best,
                        "boxes_shut": shut, "rating": rating})
        out.sort(key=lambda r: -r["rating"])
        return out

    def _slot(self, name, keep):
        """Return the index of *name*'s record, made when it has none (over the record with
        the fewest games whose name is not in *keep* when all _MAX are taken)."""
        i = self.find(name)
        if i >= 0:
            return i
        if self.n < _MAX:
            i = self.n
            self.n += 1
        else:
            fewest = -1
            for j in range(_MAX):
                if self._text(_HEAD + _ENTRY * j) not in keep and (
                        fewest < 0 or self.entry(j)[0] < self.entry(fewest)[0]):
                    fewest = j
            i = fewest
        self._put(_HEAD + _ENTRY * i, name)
        struct.pack_into(_FORMAT, self.buf, _HEAD + _ENTRY * i + _LEN, 0, 0, 0, 0, _NONE,
                         _START, 0)
        return i

    def after(self, app, shut_score):
        """At the end of the game of the box's *app* (shutbox.app.App), after the step that
        ended it (companion.live.Live.count_game: once a game's end, and again after each
        power-up that finds it ended): count it, unless it was counted before (the module's
        doc), and save; *shut_score*: a shut box's score. Return True when it counted."""
        g = app.game
        if g.state != _GAME_END:
            return False
        t = app.tally
        key = began = -1
        if t is not None:
            key = t[_T_KEY] & 0xFFFFFFFF
            began = t[_T_BEGAN]
            was_key, was_began, was = struct.unpack_from(_MARKER, self.buf, 0)
            if was_key == key and was_began == began and (was == _COUNTED or was == _mark(g)):
                return False  # counted before a cut, and the game ended (or resumed) again
        names = self.at_seats(g)
        cpu = g.cpu.seats if g.cpu is not None else 0
        if not [p for p in range(g.players) if names[p] and not cpu >> p & 1]:
            return False  # nobody's name: nothing to keep
        seats = [p for p in range(g.players) if names[p]]
        idx = [-1] * g.players
        for p in seats:
            idx[p] = self._slot(names[p], names)
        won = g.winners
        shared = won & (won - 1) != 0
        old = [0] * g.players
        for p in seats:
            old[p] = self.entry(idx[p])[5]
        k = _K // (g.players - 1) if g.players > 1 else 0
        delta = [0] * g.players
        for a in seats:
            for b in seats:
                if b <= a or not (won >> a & 1 or won >> b & 1):
                    continue  # each pair once; two seats that lost are not compared
                s = 500 if won >> a & 1 and won >> b & 1 else 1000 if won >> a & 1 else 0
                x = k * (s - expect(old[b] - old[a]))
                d = (x + 500) // 1000 if x >= 0 else -((500 - x) // 1000)
                delta[a] += d
                delta[b] -= d
        for p in seats:
            at = _HEAD + _ENTRY * idx[p] + _LEN
            games, wins, draws, shut, best, rating = self.entry(idx[p])
            if g.players > 1 and won >> p & 1:
                if shared:
                    draws = min(draws + 1, _COUNT)
                else:
                    wins = min(wins + 1, _COUNT)
            if g.played >> p & 1:
                score = g.scores[p]
                if score < best:
                    best = score
                if score == shut_score:
                    shut = min(shut + 1, _COUNT)
            rating = max(0, min(rating + delta[p], _COUNT))
            struct.pack_into(_FORMAT, self.buf, at, min(games + 1, _COUNT), wins, draws, shut,
                             best, rating, 0)
        if t is not None:
            struct.pack_into(_MARKER, self.buf, 0, key, began,
                             _COUNTED if t[_T_GAMES] != began else _mark(g))
        self.save()
        return True

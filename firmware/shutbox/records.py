# Records kept on the box per variant: best turn score, boxes shut, turns and games played.
"""The box's records, one entry per variant of a turn, in flash (shutbox.store).

A variant is what decides a turn's score (shutbox.setfile.variant_key): the tile count,
one-die, one-die-mode, moves, scoring, start, open-box, to-go, unlucky-7 and most-tiles;
the game format, tie rule and stakes do not change what a turn scores, so they share the
entry. Each entry is ``_ENTRY`` (16) bytes, little-endian (``_FORMAT``): key u32, best
(lowest) turn score u32 (``_NONE`` before the first turn), turns u32, boxes shut u16, games
u16; counts stop at their maximum. At most ``_MAX`` (16) entries: a new variant replaces the
one with the fewest turns.

Not in RAM during play. At power-up shutbox.powerup checks the file (``Records``: a damaged
one is written again, empty) and gives the app a tally (``Records.tally``); the app counts
each ``score`` record of the game log into it (App._write_log: a turn, a shut box, the best
score), except the turns of the computer's seats. At a ``winner`` record the app imports this
module for ``Records.add``, which merges the tally into the variant's entry, counts a game and
saves (once a game, so flash wear is a few hundred bytes a game), then forgets it again.
The settings menu's records screen (shutbox.menu) reads the entry with ``Records.entry``.

Exact through power cuts: the saved game carries the tally (shutbox.resume), so the turns
played before a cut still count, and with it the variant's game count as it was when the
game began (the app takes it at each ``game`` record). The records and the saved game are
two files, so a cut can come between their saves at a game's end; the game then resumes from
before its end and ends again, and ``add`` finds the count moved on since it began: the game
was counted, and is not counted again (exact up to 65,535 games of a variant, where the
count stops).
"""

import struct

from micropython import const

NAME = "records"  # the file in the store
VERSION = const(1)
_MAX = const(16)  # entries
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_TRUNCATED = const(2)  # damaged (2 and up): the size does not match the header
_T_STORE = const(0)  # a records' tally's slots (Records.tally): the store
_T_KEY = const(1)  # a tally: the variant's key
_T_SKIP = const(2)  # a tally: bit p, player p+1's turns do not count
_T_TURNS = const(3)  # a tally: the turns not merged yet (this and on: saved by shutbox.resume)
_T_BEST = const(4)  # a tally: their best score
_T_SHUT = const(5)  # a tally: their boxes shut
_T_BEGAN = const(6)  # a tally: the variant's game count when the game began
_T_GAMES = const(7)  # a tally: the variant's game count as the records last had it
_NONE = const(0xFFFFFFFF)  # records: no best score yet
# END consts
_ENTRY = const(16)  # bytes an entry
_FORMAT = const("<IIIHH")  # key, best, turns, shut, games


class Records:
    """The records of every variant as in flash; ``at`` is the entry of variant *key* or -1."""

    def __init__(self, store, key):
        """Load the records from *store* (``status``: the store's); find variant *key*."""
        self.store = store
        self.key = key
        self.buf = bytearray(_MAX * _ENTRY)
        n = store.load_into(NAME, self.buf, VERSION)
        self.status = store.status
        if n % _ENTRY:  # -1 (missing, damaged) or not whole entries
            if n > 0:
                self.status = _TRUNCATED
            n = 0
        self.n = n // _ENTRY
        self.at = -1
        for i in range(self.n):
            if struct.unpack_from(_FORMAT, self.buf, i * _ENTRY)[0] == key:
                self.at = i

    def entry(self):
        """Return (best, turns, shut, games) of the variant; best is _NONE before a turn."""
        if self.at < 0:
            return _NONE, 0, 0, 0
        return struct.unpack_from(_FORMAT, self.buf, self.at * _ENTRY)[1:]

    def tally(self, skip):
        """Return a new tally of a game for the app (App.tally), for this store and variant.

        A list, its slots named _T_*: the store and the variant's key (_T_STORE, _T_KEY),
        *skip* (_T_SKIP: bit p = player p+1's turns do not count, the computer's seats);
        the turns the app counts, the best (lowest) of their scores and the boxes shut
        (_T_TURNS, _T_BEST, _T_SHUT), which ``add`` merges; the variant's game count as it
        was when the game began (_T_BEGAN: App._write_log takes it at each new game) and as
        the records last had it (_T_GAMES).
        """
        games = self.entry()[3]
        return [self.store, self.key, skip, 0, _NONE, 0, games, games]  # _T_* order

    def add(self, tally):
        """Merge a game's *tally* into the variant's entry, count the game and save, unless
        the count has moved on since the game began: the records counted it before a power
        cut, and it ended again.

        The tally starts again from zero, with the count as it is now. Before the variant's
        first counted turn there is no entry and nothing is saved.
        """
        if self.entry()[3] == tally[_T_BEGAN]:  # else counted before a cut: not again
            turns = tally[_T_TURNS]
            buf = self.buf
            i = self.at
            if i < 0:
                if not turns:
                    return
                i = self.n  # a new entry: at the end, or over the one with the fewest turns
                if i == _MAX:
                    i = 0
                    for j in range(1, _MAX):
                        if struct.unpack_from(_FORMAT, buf, j * _ENTRY)[2] < \
                                struct.unpack_from(_FORMAT, buf, i * _ENTRY)[2]:
                            i = j
                else:
                    self.n += 1
                struct.pack_into(_FORMAT, buf, i * _ENTRY, self.key, _NONE, 0, 0, 0)
                self.at = i
            _, best, old, shut, games = struct.unpack_from(_FORMAT, buf, i * _ENTRY)
            if turns:  # digital scores on 10+ tiles can be larger than the field
                best = min(best, tally[_T_BEST], _NONE - 1)
            struct.pack_into(_FORMAT, buf, i * _ENTRY, self.key, best,
                             min(old + turns, _NONE), min(shut + tally[_T_SHUT], 0xFFFF),
                             min(games + 1, 0xFFFF))
            self.save()
        tally[_T_TURNS] = 0
        tally[_T_BEST] = _NONE
        tally[_T_SHUT] = 0
        tally[_T_GAMES] = self.entry()[3]

    def save(self):
        """Write the records to flash; return the store's status (0 = OK)."""
        return self.store.save(NAME, memoryview(self.buf)[:self.n * _ENTRY], VERSION)

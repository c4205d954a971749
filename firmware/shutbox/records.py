# Records kept on the box per variant: best turn score, boxes shut, turns and games played.
"""The box's records, one entry per variant of a turn, in flash (shutbox.store).

A variant is what decides a turn's score (shutbox.setfile.variant_key): the tile count,
one-die, one-die-mode, moves, scoring, start, open-box, to-go, unlucky-7 and most-tiles;
the game format, tie rule and stakes do not change what a turn scores, so they share the
entry. Each entry is ``ENTRY`` bytes, little-endian (``FORMAT``): key u32, best (lowest)
turn score u32 (``NONE`` before the first turn), turns u32, boxes shut u16, games u16;
counts stop at their maximum. At most ``MAX`` entries: a new variant replaces the one with
the fewest turns.

``Records.note(rec)`` takes the game log's records (the app calls it for each): a ``score``
counts a turn, a shut box and the best score, a ``winner`` counts a game and saves (once a
game, so flash wear is a few hundred bytes a game). The turns of the seats in ``skip`` (the
computer opponent's, set by shutbox.powerup) are not counted. Kept small: it stays in RAM
during play.
"""

import struct

from micropython import const

NAME = "records"  # the file in the store
VERSION = const(1)
MAX = const(16)
NONE = const(0xFFFFFFFF)  # best score before the first turn
ENTRY = const(16)
FORMAT = "<IIIHH"  # key, best, turns, shut, games


class Records:
    """The records of every variant; ``at`` is the entry of the variant being played."""

    def __init__(self, store, key):
        """Load the records from *store* (``status``: the store's); play variant *key*."""
        self.store = store
        self.key = key
        self.buf = bytearray(MAX * ENTRY)
        n = store.load_into(NAME, self.buf, VERSION)
        self.status = store.status
        if n % ENTRY:  # -1 (missing, damaged) or not whole entries
            if n > 0:
                self.status = 2  # shutbox.store.TRUNCATED
            n = 0
        self.n = n // ENTRY
        self.at = -1
        self.skip = 0  # bit p: player p+1's turns do not count (the computer's seats)
        for i in range(self.n):
            if struct.unpack_from("<I", self.buf, i * ENTRY)[0] == key:
                self.at = i

    def note(self, rec):
        """Take one game-log record (the app's observer)."""
        ev = rec["ev"]
        buf = self.buf
        if ev == "score" and not self.skip >> (rec["player"] - 1) & 1:
            i = self.at
            if i < 0:  # a new entry: at the end, or over the one with the fewest turns
                i = self.n
                if i == MAX:
                    i = 0
                    for j in range(1, MAX):
                        if struct.unpack_from("<I", buf, j * ENTRY + 8)[0] < \
                                struct.unpack_from("<I", buf, i * ENTRY + 8)[0]:
                            i = j
                else:
                    self.n += 1
                struct.pack_into(FORMAT, buf, i * ENTRY, self.key, NONE, 0, 0, 0)
                self.at = i
            _, best, turns, shut, games = struct.unpack_from(FORMAT, buf, i * ENTRY)
            score = min(rec["score"], NONE - 1)  # digital scores on 10+ tiles can be larger
            struct.pack_into(FORMAT, buf, i * ENTRY, self.key, min(score, best),
                             min(turns + 1, NONE), min(shut + (1 if rec["shut_box"] else 0),
                                                       0xFFFF), games)
        elif ev == "winner" and self.at >= 0:
            i = self.at * ENTRY + 14
            struct.pack_into("<H", buf, i, min(struct.unpack_from("<H", buf, i)[0] + 1,
                                               0xFFFF))
            self.save()

    def save(self):
        """Write the records to flash; return the store's status (0 = OK)."""
        return self.store.save(NAME, memoryview(self.buf)[:self.n * ENTRY], VERSION)

# The match's play for a turn: the block of the table pack the seat to play reads.
"""Imported by shutbox.coach and shutbox.computer only in one round for the win or under a tie
rule (no format, stakes or turn variant: the computer's games with one of those take the
lowest expected score here): target(g) aims the engine's *_target play for the seat to play.
Seat 1 of 2, 3 or 4 players reads its match situation among the table pack's match blocks
(tablegen's numbering) by set_target(-1 - situation). A later seat aims at the best chance
to win against the best final score so far this round, a tie with it counted half: under
ties shared or rolled off that is the match's play of seat 2 of 2 in every state, and under
replay nearly (docs/solver.md). Seats 2 to 4 of 3 and 4 players also weigh the seats still
to play: under ties shared or rolled off the pack's later-seat patch for the seat, the score
to beat and how many share it re-ranks the states of the tile sums where the match's play
differs (tablegen), read once a turn into the target's block: the match's play in every
state (the default variant; replay with 3 and 4 players is not solved). After a shut box
(shut-wins off) only a shut box ties: the pack's situation MATCH_SHUT (every variant it
covers), the best chance of one (the match's play in every seat). Where the pack has no
block (the start not all open for seat 1, replay with 3 and 4 players, a variant without
seat-1 blocks, a variant without hints) seat 1 aims at the lowest expected score, and after
a shut box a seat aims at a score below 1."""

from micropython import const
from shutbox.engine import tile_sum

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_TIE_REPLAY = const(2)  # settings.tie: replay (one more round for the tied, its lowest wins)
# END consts
_HINT_ENTRY = const(12)  # the hint pack's directory entry (engine, tablegen)
_P_MASK = const(0x3FF)  # a hint entry's P (1023: a state left out of the block) ...
_P_ONE = const(1000)  # ... which a patched state's P is (it wins whatever happens)
_LATER_LIST = const(93)  # a later seat's list of patches: a count, 2 bytes each of 46 sums
_LATER_SLOTS = const(6)  # a later seat's rows: seat 2; seat 3 (1 or 2 holders); seat 4 (1-3)
# the pack's situations (tablegen): 0 a shut box to tie (MATCH_SHUT, every variant), then
# seat 1's: 1 + (players - 2) * 4 + replay * 2 + shut_wins


def target(g):
    """Aim game *g*'s engine for the seat to play (it reads a table block: once a turn).
    Return -2 for seat 1's match play, else the score aimed at, a final score below it a
    win and one equal to it half a win (-1: none, the lowest expected score; 0: a shut box,
    MATCH_SHUT's block)."""
    e = g.engine
    s = g.settings
    if s.format or s.stakes or s.same_throws or s.unlucky7 or s.to_go or s.most_tiles:
        e.set_target(0)  # not one round for the win (the computer only: the coach checks)
        return -1
    n = g.players
    t = -1  # the score to beat: the best final score so far this round
    j = c = 0  # the seats played, and how many of them hold the score to beat
    rs = g.scores if g.match is None else g.match.rscores
    for p in range(n):
        if g.played >> p & 1:  # bit p: seat p has played
            j += 1
            if t < 0 or rs[p] < t:
                t = rs[p]
                c = 0
            c += rs[p] == t
    if t < 0 and e.start_open == e.full:
        k = (n - 2) * 4 + 1 + (2 if s.tie == _TIE_REPLAY else 0) + s.shut_wins
        if k > 0 and e.set_target(-1 - k):  # one player: no match
            return -2
    if t == 0 and e.set_target(-1):  # the pack's MATCH_SHUT: tablegen
        return 0
    if e.set_target(t if t > 0 else 1 if t == 0 else 0) and t > 0 and n > 2 and \
            s.tie != _TIE_REPLAY:  # a block loaded where the pack has later rows
        # a later seat of 3 or 4: the pack's patch over the target's block, where the match's
        # play (the seats after it weigh in) differs: those tile sums' states re-ranked
        f, d = e._open(e._hpath, b"STH1", _HINT_ENTRY)
        if f:
            try:
                if d[7]:  # later rows (after the other index rows): every score has a block
                    # the situation's row, after the patches' area's offset
                    j = ((((n - 3) * 2 + s.shut_wins) * _LATER_SLOTS + j * (j - 1) // 2 + c
                          - 1) * (d[5] + 1) + t) * 2 + 4
                    k = int.from_bytes(d[8:12], "little") + (d[5] + d[6]) * d[4] * 4
                    f.seek(k)
                    f.readinto(d)
                    a = int.from_bytes(d[0:4], "little")  # the patches' area
                    f.seek(k + j)
                    f.readinto(d)
                    j = d[0] | d[1] << 8  # the situation's list of tile sums' patches (0: none)
                    if j:
                        f.seek(a + j)
                        b = bytearray(_LATER_LIST)
                        f.readinto(b)  # the list: a count, then where each sum's patch is
                        z = bytearray(e.full + 1)  # each state's tile sum
                        for x in range(e.full + 1):
                            z[x] = tile_sum(x)
                        hp = e._hp
                        for i in range(b[0]):
                            f.seek(a + (b[2 * i + 1] | b[2 * i + 2] << 8))
                            f.readinto(d)  # the tile sum, then a byte a state (d: a buffer)
                            y = d[0]
                            k = 1
                            for x in range(e.full + 1):
                                if z[x] == y:
                                    if k == _HINT_ENTRY:  # the sum's next bytes
                                        f.readinto(d)
                                        k = 0
                                    p = hp[x] & _P_MASK
                                    hp[x] = (_P_ONE if p == _P_MASK else p) | d[k] << 10
                                    k += 1
            finally:
                f.close()
    return t if t else 1

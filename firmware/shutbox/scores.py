# A later seat's match play in a round of 3 or 4: the table pack's patch over its target block.
"""Imported by shutbox.target only in a round of 3 or 4 players: target(g) is its aim there
(seat 1's match block, MATCH_SHUT after a shut box, else the score to beat's block), and for
seat 2, 3 or 4 with a score to beat above 0 (ties shared or rolled off) it then reads the
seat's later-seat row of the table pack (tablegen: by the rule set, the seat, how many seats
share the score to beat and that score), its list of tile sums' patches, and overwrites the
rank and one-die bits of those sums' states in the engine's hint buffer (one pass over the
states), so best_move_target and choose_one_die_target give the match's play (the seats
after it weigh in) in every state. Nothing more where the row has no list; None where the
pack has no block or patch for the seat (seat 1 under replay or of a variant without match
blocks, a later seat under replay or of a variant without later rows): shutbox.target then
computes its play (shutbox.payout). A module of its own: its code costs heap only in these
games, not in every game that reads a match block (the games of 2 beside a tie rule's rounds
have no room for it)."""

from micropython import const
from shutbox.engine import tile_sum

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_TIE_REPLAY = const(2)  # settings.tie: replay (one more round for the tied, its lowest wins)
# END consts
_HINT_ENTRY = const(12)  # the hint pack's directory entry (engine, tablegen)
_P_MASK = const(0x3FF)  # a hint entry's P (1023: a state left out of the block) ...
_P_ONE = const(1000)  # ... which a patched state's P is (it wins whatever happens)
_LATER_SLOTS = const(6)  # a later seat's rows: seat 2; seat 3 (1 or 2 holders); seat 4 (1-3)
_LATER_LIST = const(93)  # a later seat's list of patches: a count, 2 bytes each of 46 sums


def target(g):
    """shutbox.target's target(g) for 3 or 4 players (one round for the win: it checked), the
    later seats' patches read (once a turn); the same return values, or None where the pack
    has no block or patch for the seat (shutbox.target computes its play then)."""
    e = g.engine
    s = g.settings
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
    if t < 0 and e.start_open == e.full and e.set_target(
            -1 - ((n - 2) * 4 + 1 + (s.tie == _TIE_REPLAY) * 2 + s.shut_wins)):
        return -2  # seat 1's match situation (tablegen; replay: none for 3 and 4)
    # no block (another variant, or replay), or a later seat under replay: None, the seat's
    # play computed from the pack's vectors (shutbox.target)
    if e.start_open == e.full and (t < 0 or t > 0 and s.tie == _TIE_REPLAY):
        return None
    if t == 0 and e.set_target(-1):  # the pack's MATCH_SHUT: tablegen
        return 0
    if not (e.set_target(t if t > 0 else 0) and t > 0 and s.tie != _TIE_REPLAY):
        return t if t else 1
    # a later seat (ties shared or rolled off): the pack's patch over the block, where the
    # seats after it change its play
    f, d = e._open(e._hpath, b"STH1", _HINT_ENTRY)
    if f is None:
        return t
    try:
        if not d[7] & 1:  # no later rows (flag bit 0): computed from the vectors, as above
            return None if e.start_open == e.full else t
        # the situation's row, after the patches' area's offset
        j = ((((n - 3) * 2 + s.shut_wins) * _LATER_SLOTS + j * (j - 1) // 2 + c - 1)
             * (d[5] + 1) + t) * 2 + 4
        k = int.from_bytes(d[8:12], "little") + (d[5] + d[6]) * d[4] * 4
        f.seek(k)
        f.readinto(d)
        a = int.from_bytes(d[0:4], "little")  # the patches' area
        f.seek(k + j)
        f.readinto(d)
        j = d[0] | d[1] << 8  # the situation's list of tile sums' patches (0: none)
        if not j:
            return t
        f.seek(a + j)
        b = bytearray(_LATER_LIST)
        f.readinto(b)  # the list: a count, then where each sum's patch is
        # each state's tile sum (the states a tile tops: those below it, plus it) and how many
        # states share each sum: one pass, no call a state
        z = bytearray(e.full + 1)
        q = bytearray(tile_sum(e.full) + 1)
        q[0] = 1
        for y in range(1, e.tiles + 1):
            k = 1 << y - 1
            for x in range(k, k << 1):
                j = z[x - k] + y
                z[x] = j
                q[j] += 1
        # the patches, one after another, each after its sum's place (w[sum]: 1 + where its
        # next byte is, 0 for a sum it leaves as it is)
        w = [0] * len(q)
        v = bytearray(e.full + 1)
        m = memoryview(v)
        k = 0
        for i in range(b[0]):
            f.seek(a + (b[2 * i + 1] | b[2 * i + 2] << 8))
            f.readinto(m[k:k + 1])  # the tile sum, then a byte a state of it, in mask order
            y = v[k]
            w[y] = k + 1
            f.readinto(m[k:k + q[y]])
            k += q[y]
        hp = e._hp
        for x in range(e.full + 1):  # one pass: each patched state takes its sum's next byte
            k = w[z[x]]
            if k:
                w[z[x]] = k + 1
                p = hp[x] & _P_MASK
                hp[x] = (_P_ONE if p == _P_MASK else p) | v[k - 1] << 10
    finally:
        f.close()
    return t

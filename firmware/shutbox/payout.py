# A seat's match play computed on the box: the payout objective's backward pass, in small ints.
"""best(e, g) fills engine *e*'s hint buffer with the play that maximises the expected
payout *g* of the final score (g[score]: the seat's value of ending its turn on that
score x 2**23, an int 0..2**23), as a loaded block would (shutbox.engine.set_target): per
open mask and layer the value x 1000, the rank of its key among the states of its tile sum
and layer (lower is better) and the one-die choice; then best_move_target, p_beat and
choose_one_die_target answer from it.

The pass is the host solver's payout objective (shutbox_host.solve.solver) in fixed point:
a state's value is the weighted mean over the throws of its best result's value, x 2**23,
with its expected final score x 2**19 as the tie-break (the lower is better), each mean
rounded to the nearest int; the best result of a throw is the first in greedy order on a
tie, one die only when strictly better than two. Every sum stays below 2**30 (36 x 2**23,
36 x 45 x 2**19): MicroPython's small ints, no allocation in the pass. The rounding is not
the solver's exact fractions: tests/firmware/test_payout_play.py counts the choices that differ
from the host's match solver on the payouts the box reads (none).

Only the `any` moves rule has hint blocks (one tile sum per throw's results): the variants
of the hint pack. Allocates two int arrays of a value a state and layer (4 KB a layer on
nine tiles) and the tile-sum order, all freed when it returns: call it once a turn.

target(g) is what shutbox.target and shutbox.scores call where the pack has no block or patch
(every variant but the default, replay), from the pack's vectors (tablegen.hint_pack_bytes,
every variant of tables/t9.bin). Its names are ones the box already holds (target, best;
locals aside), so that loading it adds the module's name alone to MicroPython's full qstr
pool.
"""

from array import array

from micropython import const
from shutbox.engine import tile_sum

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_IN_ROUND = const(2)  # Match.st: players taking a turn in this round
_TIE_REPLAY = const(2)  # settings.tie: replay (one more round for the tied, its lowest wins)
# END consts
_HINT_ENTRY = const(12)  # the hint pack's directory entry (engine, tablegen)
_LATER_ROWS = const(48)  # a variant's later rows: 2 bytes x 24 a score (tablegen)
_VEC_ROWS = const(6)  # a rule set's rows of values a score (tablegen.VEC_SLOTS)
_CODES = const(49)  # moves.bin: 49 starts, then 49 ends (shutbox.engine)
_ONE_BIT = const(0x8000)  # a hint entry: one die (shutbox.engine)
_H_TABLE = const(3)  # shutbox.engine: a block is loaded
_E_SHIFT = const(19)  # an expected score's fixed point


def best(e, g):
    """Fill *e*'s hint buffer with the play maximising the expected payout *g* (see the
    module docstring); False (nothing changed) without a hint buffer."""
    hp = e._hp
    size = e.full + 1
    layers = len(hp) // size
    if not layers:
        return False
    v = array("i", range(layers * size))
    x = array("i", range(layers * size))
    mv = e._mv
    # the locked mode's second layer first: the first layer's one-die results are there
    for lk in range(layers - 1, -1, -1):
        base = lk * size
        for s in range(size):
            sc = e.score(s)
            tv = g[sc]
            te = sc << _E_SHIFT
            f = 0
            if s:
                dice = e._dice(s, lk)  # 0: two dice; 1: one die; 2: the seat's choice
                cv = -1  # the dice option taken so far: (cv, cx), one die (f)
                cx = 0
                for one in range(2):
                    if dice == 1 - one:
                        continue  # an option the rules do not give
                    # its results' layer: the locked mode's second after a chosen one die
                    k = base if dice != 2 else ((layers - 1) * size if one else 0)
                    av = ax = 0
                    for a in range(1, 7):
                        b = 0 if one else a
                        while b < (1 if one else 7):
                            code = a * 7 + b
                            i = mv[code]
                            end = mv[_CODES + code]
                            bv = -1  # the best legal result, the first on a tie
                            bx = 0
                            while i < end:
                                m = mv[i]
                                if m & s == m:
                                    t = k + (s ^ m)
                                    if v[t] > bv or (v[t] == bv and x[t] < bx):
                                        bv = v[t]
                                        bx = x[t]
                                i += 1
                            if bv < 0:  # no legal move: the turn ends on this score
                                bv = tv
                                bx = te
                            w = 6 if one else (1 if a == b else 2)
                            av += w * bv
                            ax += w * bx
                            b += 1
                    av = (av + 18) // 36
                    ax = (ax + 18) // 36
                    # one die (the second option) only when strictly better than two
                    if cv < 0 or av > cv or (av == cv and ax < cx):
                        cv = av
                        cx = ax
                        f = _ONE_BIT if one else 0
                tv = cv
                te = cx
            v[base + s] = tv
            x[base + s] = te
            # the value x 1000, rounded: x 125 / 2**20 (a small int)
            hp[base + s] = f | (tv * 125 + (1 << 19)) >> 20
    # each state's dense rank among the states of its tile sum and layer
    order = sorted(range(size), key=tile_sum)
    for lk in range(layers):
        base = lk * size
        i = 0
        while i < size:
            j = i
            d = tile_sum(order[i])
            while j < size and tile_sum(order[j]) == d:
                j += 1
            for p in range(i, j):
                k = base + order[p]
                r = 0  # the distinct keys better than this one
                for q in range(i, j):
                    t = base + order[q]
                    if v[t] > v[k] or (v[t] == v[k] and x[t] < x[k]):
                        # counted once a key: only its first state in the group counts
                        u = i
                        while u < q and not (v[base + order[u]] == v[t]
                                             and x[base + order[u]] == x[t]):
                            u += 1
                        r += u == q
                hp[k] |= r << 10
            i = j
    e._hmode = _H_TABLE
    return True


def target(g):
    """Aim game *g*'s engine for the seat to play by best() (see the module docstring): the
    round's situation (its seats, those played, the best score so far and its holders) gives
    the payout of each final score from the hint pack's vectors of the rule set (tablegen:
    match_vectors). Return what shutbox.target returns (-2: seat 1's match play; else the
    score to beat), or None where the pack has no vectors for the variant (nothing
    changed)."""
    e = g.engine
    s = g.settings
    rs = g.scores if g.match is None else g.match.rscores
    w = g.players if g.match is None else g.match.st[_IN_ROUND]  # the round's seats
    n = j = c = 0
    t = -1  # the best final score so far this round, and how many hold it (c)
    for p in range(g.players):
        if g.match is None or w >> p & 1:
            n += 1
            if g.played >> p & 1:
                j += 1
                if t < 0 or rs[p] < t:
                    t = rs[p]
                    c = 0
                c += rs[p] == t
    f, d = e._open(e._hpath, b"STH1", _HINT_ENTRY)
    if f is None:
        return None
    try:
        if not d[7] & 2:  # no vectors (flag bit 1)
            return None
        k = int.from_bytes(d[8:12], "little") + (d[5] + d[6]) * d[4] * 4
        if d[7] & 1:  # the later rows first (shutbox.scores)
            k += 4 + (d[5] + 1) * _LATER_ROWS
        f.seek(k)
        b = bytearray(4)
        f.readinto(b)
        k = int.from_bytes(b, "little")
        r = n - j - 1  # the seats after this one
        m = d[5] + 1  # the final scores
        k += ((s.tie == _TIE_REPLAY) * 2 + s.shut_wins) * (4 + _VEC_ROWS * m) * 3
        b = bytearray(3 * m)
        f.seek(k)
        f.readinto(b)  # the last seat's values (and more)
        pay = array("i", range(m))
        h = 0
        if t >= 0:  # at the best score: joining its c holders, slot (r, c + 1)
            y = 3 * c if r == 0 else -1
            if r:
                f.seek(k + 12 + ((r * 4 - r * (r - 1) // 2 + c - 4) * m + t) * 3)
                f.readinto(b)
                y = 0
            h = b[y] | b[y + 1] << 8 | b[y + 2] << 16
        if r:  # below it (every score for seat 1): holding it alone, slot (r, 1)
            f.seek(k + 12 + (r * 4 - r * (r - 1) // 2 - 4) * m * 3)
            f.readinto(b)
        for y in range(m):
            pay[y] = 0 if t >= 0 and y > t else (h if y == t else (
                b[3 * y] | b[3 * y + 1] << 8 | b[3 * y + 2] << 16 if r else
                b[0] | b[1] << 8 | b[2] << 16))
    finally:
        f.close()
    best(e, pay)
    return -2 if t < 0 else t

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
tie, one die only when strictly better than two. Every sum stays below 2**31 (36 x 2**23,
36 x 45 x 2**19, a value's tile sum above it: 78 << 24): a 32-bit machine int. The rounding
is not the solver's exact fractions: tests/firmware/test_payout_play.py counts the choices that
differ from the host's match solver on the payouts the box reads (none).

best is a viper function: machine code on the box (a flash compiles it for the board's arch:
host_tools' layout.NATIVE; the unix port's for the simulated box), Python on CPython (the
micropython stand-in's ptr casts); tests/firmware/test_payout_native.py holds the two to the
same hint buffer, and the rp2 bench the chip's. Only the `any` moves rule has hint blocks
(one tile sum per throw's results): the variants of the hint pack, where a throw's moves are
those of its tile sum, so the pass searches once a sum, not once a throw. Its working memory,
two int arrays of a state each (one layer at a time: a locked mode's first layer reads only
the second's states below 64, its one-die results), the tile-sum order and a few bytes, is
made once (load, from app.prelude beside the engine's tables) and kept (buf): a turn's
start late in a game, or a restart after a fault, finds the heap's holes too small for
blocks of 2 KB in one piece, kilobytes free in all. It allocates nothing else: call it once
a turn.

target(g) is what shutbox.target calls where the pack has no block or patch (every variant
but the default; replay: seat 2 of 2, every seat of 3 and 4), from the pack's vectors (tablegen.
hint_pack_bytes, every variant of tables/t9.bin). Its names are ones the box already holds
(target, best; load and buf are MicroPython's own; locals aside), so that loading it adds
the module's name alone to MicroPython's full qstr pool.
"""
# ruff: noqa: F821 - viper's ptr8, ptr16 and ptr32 (its compiler's casts; builtins on CPython)
# mypy: disable-error-code="name-defined"

from array import array

import micropython
from micropython import const

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
_SUM_SHIFT = const(24)  # a state's tile sum, above its value x 2**23 (at most 78 << 24)
_VALUE = const(0xFFFFFF)


buf = None  # the pass's working memory (load): made once, kept for the box's life


def load(e):
    """Return best()'s working memory for engine *e* (buf), made unless what is made is big
    enough: each state's value and tie-break (int arrays, the locked mode's one-die results
    after its layer), the states in tile-sum order, where each tile sum's states start, each
    tile's share of a score. app.prelude calls it at boot (beside the engine's tables);
    best() where no one did."""
    global buf
    size = e.full + 1
    n = size + (64 if len(e._hp) == 2 * size else 0)
    hi = e.tiles * (e.tiles + 1) >> 1  # the highest tile sum
    w = buf
    if w is None or len(w[0]) < n or len(w[2]) < size or len(w[3]) < hi + 2 or \
            len(w[4]) < e.tiles:
        w = buf = None  # the old arrays go first
        # sized from range(): no temporary as big as an array
        w = buf = (array("i", range(n)), array("i", range(n)), array("H", range(size)),
                   array("H", range(hi + 2)), bytearray(e.tiles))
    return w


@micropython.viper
def best(e, g) -> bool:
    """Fill *e*'s hint buffer with the play maximising the expected payout *g* (an int
    array; see the module docstring); False (nothing changed) without a hint buffer."""
    hp = e._hp
    size = int(e.full) + 1
    layers = int(len(hp)) // size
    if layers == 0:
        return False
    tiles = int(e.tiles)
    hi = tiles * (tiles + 1) >> 1  # the highest tile sum
    # one die needs every tile above 6 shut (Engine.one_die_allowed, under every rule): the
    # first layer's one-die results are the second's states below 64, kept after its own
    low = 64 if layers == 2 else 0
    wm = load(e)  # made already on the box (app.prelude)
    # each state's value x 2**23, its tile sum above it (the states a value is compared
    # with are of one tile sum: a throw's results, a rank's), and its expected final score
    # x 2**19 (the tie-break), a layer at a time; the states in tile-sum order (for the
    # ranks), where each tile sum's states start in it, each tile's share of a final score
    # (sum, count: they add up)
    v = ptr32(wm[0])
    x = ptr32(wm[1])
    o = ptr16(wm[2])
    cn = ptr16(wm[3])
    sp = ptr8(wm[4])
    gp = ptr32(g)
    h = ptr16(hp)
    mv = ptr16(e._mv)
    for k in range(tiles):
        sp[k] = int(e.score(1 << k))
    # the locked mode's second layer first: the first layer's one-die results are there
    lk = layers - 1
    while lk >= 0:
        base = lk * size  # the layer's hint entries
        for s in range(size):
            sc = 0  # the final score of ending here, and the tile sum (t)
            t = 0
            u = s
            k = 0
            while u:
                if u & 1:
                    sc += sp[k]
                    t += k + 1
                u >>= 1
                k += 1
            tv = gp[sc]
            te = sc << _E_SHIFT
            f = 0
            if s:
                dice = int(e._dice(s, lk)) if s < 64 else 0  # 0: two dice; 1: one; 2: choice
                # a chosen one die's results: the locked mode's second layer (kept)
                k1 = size if dice == 2 and low else 0
                av = 0  # two dice: the sums of the best results' values and tie-breaks
                ax = 0
                cv = 0  # one die
                cx = 0
                bv = 0
                bx = 0
                # with the `any` moves rule a throw's moves are those of its tile sum, in
                # one order (moves.bin): one search a sum and layer, not one a throw
                for d in range(1, 13):
                    w = 0  # the two-dice throws of sum d, of 36
                    if dice != 1 and d >= 2:
                        w = d - 1 if d <= 7 else 13 - d
                    c = 6 if dice != 0 and d <= 6 else 0  # one die's
                    code = d * 7 if d <= 6 else (d - 6) * 7 + 6
                    j = 0 if w != 0 else 1
                    while j < 2:
                        if j == 1 and (c == 0 or (w != 0 and k1 == 0)):
                            break  # no one die here, or its best is the two dice's
                        kk = 0 if j == 0 else k1
                        i = mv[code]
                        end = mv[_CODES + code]
                        bv = -1  # the best legal result, the first on a tie
                        bx = 0
                        while i < end:
                            m = mv[i]
                            if m & s == m:
                                r = kk + (s ^ m)
                                if v[r] > bv or (v[r] == bv and x[r] < bx):
                                    bv = v[r]
                                    bx = x[r]
                            i += 1
                        if bv < 0:  # no legal move: the turn ends on this score
                            bv = tv
                            bx = te
                        bv &= _VALUE
                        if j == 0:
                            av += w * bv
                            ax += w * bx
                        j += 1
                    if c != 0:
                        cv += 6 * bv
                        cx += 6 * bx
                # each mean rounded; one die only when strictly better than two
                av = (av + 18) // 36
                ax = (ax + 18) // 36
                cv = (cv + 18) // 36
                cx = (cx + 18) // 36
                if dice == 1 or (dice == 2 and (cv > av or (cv == av and cx < ax))):
                    tv = cv
                    te = cx
                    f = _ONE_BIT
                else:
                    tv = av
                    te = ax
            v[s] = t << _SUM_SHIFT | tv
            x[s] = te
            # the value x 1000, rounded: x 125 / 2**20 (a small int)
            h[base + s] = f | (tv * 125 + (1 << 19)) >> 20
        if lk == layers - 1:  # the states in tile-sum order: a counting sort, once
            for d in range(hi + 2):
                cn[d] = 0
            for s in range(size):
                cn[(v[s] >> _SUM_SHIFT) + 1] += 1
            for d in range(hi):
                cn[d + 1] += cn[d]
            for s in range(size):
                d = v[s] >> _SUM_SHIFT
                o[cn[d]] = s
                cn[d] += 1  # then the end of sum d's states
        # each state's dense rank among the layer's states of its tile sum: those sorted
        # best first (an insertion sort), then counted
        i = 0
        for d in range(hi + 1):
            j = cn[d]
            for q in range(i + 1, j):
                r = o[q]
                p = q
                while p > i:
                    u = o[p - 1]
                    if v[u] > v[r] or (v[u] == v[r] and x[u] <= x[r]):
                        break
                    o[p] = u
                    p -= 1
                o[p] = r
            c = 0
            for q in range(i, j):
                r = o[q]
                if q > i and (v[r] != v[u] or x[r] != x[u]):
                    c += 1
                h[base + r] |= c << 10
                u = r
            i = j
        for s in range(low):  # the second layer's states below 64, for the first's
            v[size + s] = v[s]
            x[size + s] = x[s]
        lk -= 1
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

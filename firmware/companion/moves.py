# The current throw's moves ranked by the box's own tables, for the page: best-move hints only.
"""``GET /api/moves`` (companion.web, imported at its first request): the moves of the throw
the box shows, ranked by the box's engine and tables, never by a solver of its own.

Only when the box's hints setting is "best move": that is when the box lights the best move
itself and holds the optimal-play table (shutbox.app.make_engine); with hints off or "legal
moves" the box has no table and gives no advice, so the page gets none either (``answer``
says why, and the route answers 403): a game without hints stays one.

Each legal move (the ones the game allows: a format's limits included) comes with:

- ``expected``: the expected final score x 1000 of the tiles it leaves, playing for the
  lowest expected score from there (the table's value, engine.expected; rounded half up);
- ``p_shut``: the chance to shut the box x 1000 from there, playing for it: twice the value
  of the match block that ties a shut box (tables/t9.bin's situation MATCH_SHUT, where only a
  shut box ties, worth half a win: engine.p_beat; so to within 1 in 1000, as that block
  rounds half the chance), on every variant of the hint pack (digital scoring reads sum
  scoring's: that chance does not depend on the scoring); None elsewhere: the nN.bin tables
  hold no chance to shut of min-expected play;
- ``hint``: the move the box lights (Game.best: for the lowest expected score, or the best
  chance to beat the score to beat, or the match's play: ``aim``).

They come best first by the table's exact rank of the expected score (rounding never orders
them), equal ones in greedy order: the order of ``shutbox advise`` (min-expected).
The chance to shut needs its own hint buffer (1 KB a layer), made at the first request and
kept while the box's engine is the same: the engine's own buffer holds the game's aim.
"""

from array import array

from micropython import const
from shutbox.engine import Engine, Rules

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_SCORING_SUM = const(0)  # scoring sum
_SCORING_DIGITAL = const(1)  # scoring digital
_MOVE = const(3)  # a state
_HINT_BEST = const(2)  # hints: also the optimal move in cyan
# END consts
_RANK_MASK = const(0x3FFF)  # shutbox.engine: a state's rank in the optimal-play table
_SHUT = const(-1)  # set_target's MATCH_SHUT block: -1 - situation 0 (shutbox.target)
_kept: list = [None, None]  # the engine the chance to shut was read for, and its reader


class _Sum(Rules):
    """The box's rules with sum scoring, made with a constructor of its own: the box drops
    Rules' once its own rules are made (shutbox.app.prelude), so Rules(...) would make an
    object without attributes there."""

    def __init__(self, r):
        self.tiles = r.tiles
        self.one_die = r.one_die
        self.one_die_mode = r.one_die_mode
        self.moves = r.moves
        self.scoring = _SCORING_SUM
        self.start = r.start


class Shut(Engine):
    """The box's engine's tables, shared, with a hint buffer of its own holding the MATCH_SHUT
    block: the best chance to shut from each state (``p_beat``)."""

    def __init__(self, e):
        r = e.rules
        if r.scoring == _SCORING_DIGITAL:  # no block of its own: the chance to shut of
            # max-shut play does not depend on the scoring, so sum scoring's block is it
            r = _Sum(r)
        self.rules = r
        self.tiles = e.tiles
        self.full = e.full
        self.start_open = e.start_open
        self.has_table = e.has_table
        self._mv = e._mv
        self._ranks = e._ranks
        self._exp = e._exp
        self._lk = e._lk
        self._hpath = e._hpath
        self._hmode = 0
        self._hp = array("H", range(len(e._ranks)))  # a state a layer, as the engine's
        self.ok = self.set_target(_SHUT)  # False without a block for the variant
        if not self.ok:
            self._hp = array("H")

    def rank(self, open_, locked):
        """The rank of the state (lower is better) in the optimal-play table."""
        return self._ranks[open_ + (self._lk if locked else 0)] & _RANK_MASK


def _tiles(mask, n):
    return [k + 1 for k in range(n) if mask >> k & 1]


def answer(live):
    """Return (body, status) for GET /api/moves: the ranking (see the module's doc), or 403
    and why when the box's hints do not allow it."""
    s = live.settings
    app = live.guard.app if live.guard is not None else None
    if s is None or s.hints != _HINT_BEST:
        return {"error": "the box's hints are not set to best move: no advice on the page "
                         "either", "status": 403}, 403
    if app is None:
        return {"error": "the box is restarting", "status": 503}, 503
    g = app.game
    e = g.engine
    if not e.has_table:
        return {"error": "the box has no table for this variant", "status": 409}, 409
    out = {"version": live.version, "throw": [], "moves": [], "scale": 1000}
    if g.state != _MOVE or not g.moves:
        return out, 200
    if _kept[0] is not e:
        _kept[0] = None
        _kept[1] = Shut(e)
        _kept[0] = e
    sh = _kept[1]
    n = e.tiles
    o = g.open_
    nxt = g.locked or g.b == 0  # the layer of the results (one die: the second)
    moves = []
    for i in range(g.moves):
        m = g.legal[i]
        r = o & ~m
        moves.append((sh.rank(r, nxt), i, m, r))
    moves.sort()
    for _rk, _i, m, r in moves:
        out["moves"].append({"shut": _tiles(m, n), "leaves": _tiles(r, n),
                             "expected": e.expected(r, nxt),
                             "p_shut": min(1000, 2 * sh.p_beat(r, nxt)) if sh.ok else None,
                             "hint": m == g.best})
    c = g.coach
    t = c.target if c is not None else -1
    out["aim"] = "min-expected" if t == -1 else "match" if t == -2 else "beat-target"
    if t >= 0:
        out["target"] = t
    out["throw"] = [g.a, g.b] if g.b else [g.a]
    out["open"] = _tiles(o, n)
    return out, 200

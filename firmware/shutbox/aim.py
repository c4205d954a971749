# The match's play for a turn: the block of the table pack the seat to play reads.
"""Imported by Game.target only in one round for the win (no format, stakes or turn variant):
the match situation of the seat to play among the table pack's match blocks (tablegen's
numbering: seat 1 of 2, 3 or 4 players, then seat 2 of 2 players after each score seat 1 can
end on), read into the engine's hint buffer by set_target(-1 - situation)."""

from micropython import const

_TIE_REPLAY = const(2)  # settings.tie: replay (share and roll-off are worth the same)
_SEAT1 = const(12)  # the pack's seat-1 situations: (players - 2) * 4 + replay * 2 + shut_wins


def aim(g, t):
    """Load the match block of game *g*'s seat to play, *t* the best final score so far this
    round (-1: nobody has played); False where the pack has none (the start not all open,
    later seats of 3 and 4 players, replay with 3 and 4, a variant without blocks)."""
    e = g.engine
    s = g.settings
    n = g.players
    if e.start_open != e.full or t >= 0 and n != 2:
        return False
    k = (n - 2) * 4 + (2 if s.tie == _TIE_REPLAY else 0) + s.shut_wins
    if t >= 0:
        k = _SEAT1 + k * (e.score(e.full) + 1) + t
    return k >= 0 and e.set_target(-1 - k)

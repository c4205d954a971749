# The match's play for a turn: the block of the table pack the seat to play reads.
"""Imported by shutbox.coach and shutbox.computer only in one round for the win or under a
tie rule (no format, stakes or turn variant: the computer's games with one of those take the
lowest expected score here): target(g) aims the engine's *_target play for the seat to play.
Its match situation among the table pack's match blocks (tablegen's numbering: seat 1 of 2,
3 or 4 players, then seat 2 of 2 players after each score seat 1 can end on, while
tablegen.MATCH_SEAT2 stores them) is read into the engine's hint buffer by
set_target(-1 - situation); where the pack has none (the start not all open, later seats of
3 and 4 players, replay with 3 and 4, a variant without blocks) the aim is the best chance to
beat the best final score so far this round, and after a shut box (shut-wins off) the best
chance of a shut box: only that ties it, so it is the match's play in every seat."""

from micropython import const

_TIE_REPLAY = const(2)  # settings.tie: replay (share and roll-off are worth the same)
_SEAT1 = const(12)  # the pack's seat-1 situations: (players - 2) * 4 + replay * 2 + shut_wins


def target(g):
    """Aim game *g*'s engine for the seat to play (it reads a table block: once a turn).
    Return -2 for the match's play, else the score to beat aimed at (-1: none; 0: a score
    no one can beat; the lowest expected score for both)."""
    e = g.engine
    s = g.settings
    if s.format or s.stakes or s.same_throws or s.unlucky7 or s.to_go or s.most_tiles:
        e.set_target(0)  # not one round for the win (the computer only: the coach checks)
        return -1
    n = g.players
    t = -1  # the score to beat: the best final score so far this round
    rs = g.scores if g.match is None else g.match.rscores
    for p in range(n):
        if g.played >> p & 1 and (t < 0 or rs[p] < t):  # bit p: seat p has played
            t = rs[p]
    if e.start_open == e.full and (t < 0 or n == 2):
        k = (n - 2) * 4 + (2 if s.tie == _TIE_REPLAY else 0) + s.shut_wins
        if t >= 0:
            k = _SEAT1 + k * (e.score(e.full) + 1) + t
        if k >= 0 and e.set_target(-1 - k):
            return -2
    if t == 0:  # a shut box to tie: a final score below 1 (a tie is worth something, a
        t = 1  # loss nothing, so the best chance of one, as the match solver plays it)
    e.set_target(t if t > 0 else 0)
    return t

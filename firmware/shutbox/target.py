# The match's play for a turn: the block of the table pack the seat to play reads.
"""Imported by shutbox.coach and shutbox.computer only in one round for the win or under a tie
rule (no format, stakes or turn variant: the computer's games with one of those take the
lowest expected score here): target(g) aims the engine's *_target play for the seat to play.
Seat 1 of 2, 3 or 4 players reads its match situation among the table pack's match blocks
(tablegen's numbering) by set_target(-1 - situation). A later seat aims at the best chance
to win against the best final score so far this round, a tie with it counted half: under
ties shared or rolled off that is the match's play of seat 2 of 2 in every state (under
replay its play is computed: below). Seats 2 to 4 of 3 and 4 players also weigh the seats
still to play: under ties shared or rolled off the pack's later-seat patch for the seat, the score
to beat and how many share it re-ranks the states of the tile sums where the match's play
differs (tablegen), read once a turn into the target's block by shutbox.scores, which aims 3
and 4 players: the match's play in every state (the default variant under ties shared or
rolled off). After a shut box (shut-wins off) only a shut box ties: the pack's
situation MATCH_SHUT (every variant it covers), the best chance of one (the match's play in
every seat). Where the pack has no block or patch (seat 1 of a variant without seat-1 blocks
or of replay with 3 and 4 players, a later seat of 3 and 4 under replay or of a variant
without later-seat patches) the seat's match play is computed from the pack's vectors
(shutbox.payout, once a turn: every variant of the hint pack, the start all open), and so is
seat 2's of 2 under replay (a tie there is worth its chance in the replay, not half).
Without hints (or the start not all open) seat 1 aims at the lowest expected score, and
after a shut box a seat aims at a score below 1."""

from micropython import const

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_TIE_REPLAY = const(2)  # settings.tie: replay (one more round for the tied, its lowest wins)
# END consts
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
    rs = g.scores if g.match is None else g.match.rscores
    for p in range(n):
        if g.played >> p & 1 and (t < 0 or rs[p] < t):  # bit p: seat p has played
            t = rs[p]
    if n > 2:  # 3 or 4 players: shutbox.scores (loaded only then, by names the box holds)
        p = __import__("shutbox." + "scores").scores.target(g)
        if p is not None:
            return p
    # seat 1 of 2: its match situation 1 + replay * 2 + shut_wins (one player: no match)
    elif t < 0 and n > 1 and e.start_open == e.full and \
            e.set_target(-2 - (s.tie == _TIE_REPLAY) * 2 - s.shut_wins):
        return -2
    # a later seat of 2 under ties shared or rolled off (its target block, a tie half: the
    # match's play), a shut box, no match: not the computed play (a tie under replay is worth
    # seat 2's chance in the replay, not half: computed, below)
    elif not (n > 1 and (t < 0 or t > 0 and s.tie == _TIE_REPLAY) and e.start_open == e.full):
        if t == 0 and e.set_target(-1):  # the pack's MATCH_SHUT: tablegen
            return 0
        e.set_target(t if t > 0 else 0)  # a shut box to tie without MATCH_SHUT: no hints
        return t if t else 1
    # no block (another variant; replay: seat 2 of 2, for 3 and 4 every seat; a later seat
    # without a patch): the seat's play computed from the pack's vectors (shutbox.payout, by
    # names the box holds)
    p = __import__("shutbox." + "payout").payout.target(g)
    if p is not None:
        return p
    e.set_target(t if t > 0 else 0)  # no vectors: the lowest expected score, or the target
    return t if t else 1

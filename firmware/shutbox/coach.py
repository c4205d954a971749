# Exact hints and the post-turn analysis for the best-move hints setting: part of shutbox.game.
"""What the box tells a player with hints set to "best move"; imported only then.

Hints: in MOVE the best move is lit cyan (Game.best, chosen here); before a throw where the
player may choose one die, die B's centre pip blinks cyan when one die is the better choice
(amber when two dice are). Best means the lowest expected final score (the engine's tables),
except for a player who knows the score to beat: a later player in a round, where the best
final score so far this round (the score to beat) is the target. A score strictly below it
wins and one equal to it ties, so the hint is then the move with the best chance to win, a tie
counted half (engine.set_target, once a turn; nine tiles with `any` moves and sum or count
scoring have these tables): a tie between two players is worth half a win under every tie
rule of the box. In one round for the win (no format, stakes or turn variant; any tie rule,
beside the computer, real dice, the time limit and resigning too) seat 1's hint is the
match's play instead: the best chance to win the round, a tie counted as the tie rule makes
it (shutbox.target: a block of the pack for the default variant, computed from the pack's
vectors elsewhere, shutbox.payout); seat 2 of 2's target play is the match's play.
Where the target cannot be beaten, or cannot be missed, the lowest expected score is the aim
again (after a shut box in one round: the best chance of one, the only way to tie it); in one
round for the win the loaded block's play is the hint even where the chance rounds to 0 or 1 in
thousandths (its ranks are exact: a later seat of 3 or 4 that all but surely beats the score
so far still plays against the seats after it), as the hard computer plays.

Analysis: every choice a person makes (each move, each free one-die choice) is measured against
the same aim on the dice actually thrown: engine.move_loss and one_die_loss for the lowest
expected score, the chance to win against the target, a tie half (engine.p_beat), otherwise.
After the turn the score record in the game log gets ``"analysis": {"short": N, "cost": C,
"goal": G}`` (N choices fell short of optimal; C is what they cost in total: expected final
score x 1000 for G "min-expected", the chance to win against the target, a tie counted half,
x 1000 for G "beat-target", which adds "target": T, the chance to win the round x 1000 for G
"match", where only the moves are measured: the tables hold no value of a turn a throw ends),
and the score view shows N in cyan after the score
(frame.number: 0 lights all pips). Computer turns are not analysed. Without the optimal-play
table (a variant the box has no table for) the hints fall back to the rule of thumb and there
is no analysis.
"""

from micropython import const
from shutbox import frame as fr
from shutbox.ticks import ticks_add, ticks_diff

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_P_SCALE = const(1000)  # p_beat() is P(score < target) + P(score = target) / 2, x P_SCALE
_CYCLE_MS = const(3000)  # a score view: its label, then its number, this long
_CYCLE2_MS = const(5000)  # a score view with a second number (a total, a balance)
# END consts
_COUNT_MS = const(1000)  # then the count of choices short of optimal, this long


class Coach:
    """Best-move hints and the analysis of one game's turns (see the module docstring)."""

    def __init__(self, game):
        """Keep the game; the analysis is on for a person's turns (turn())."""
        self.game = game
        self.on = False  # analyse this turn: a person's, with the optimal-play table
        # the score to beat this turn (-1: aim for the lowest expected score; -2: the match's
        # play, the chance to win the round)
        self.target = -1
        self.short = 0  # this turn's choices that fell short of optimal ...
        self.cost = 0  # ... and what they cost in total (x 1000)
        self.shown = -1  # the count the score view shows after a person's turn (-1: none)

    def turn(self):
        """A turn starts (Game.start_turn): aim at the score to beat, if there is one."""
        g = self.game
        e = g.engine
        self.short = 0
        self.cost = 0
        self.shown = -1
        self.target = -1
        person = g.cpu is None or not g.cpu.seats >> g.player & 1  # the computer: no hints
        self.on = person and e.has_table
        if not person:
            return
        t = -1  # the score to beat: the best final score so far this round
        rs = g.scores if g.match is None else g.match.rscores  # this round's scores
        for p in range(g.players):
            if g.played >> p & 1 and (t < 0 or rs[p] < t):  # bit p: seat p has played
                t = rs[p]
        s = g.settings  # one round for the win: the match's play, or the score to beat
        m = not (s.format or s.stakes or s.same_throws or s.unlucky7 or s.to_go
                 or s.most_tiles)
        if m:
            # by names the box already holds ("shutbox.", "target": one more interned name can
            # make their pool grow by KBs)
            t = __import__("shutbox." + "target").target.target(g)
        elif t < 0 or not e.set_target(t):  # allocates (reads a table block): once a turn
            return
        p = e.p_beat(g.open_)
        # it can be beaten and it can be missed (won and lost); in one round for the win
        # wherever a block is loaded, as the computer plays: its ranks are exact where the
        # chance rounds to 1 in thousandths (a later seat's next seats still weigh in)
        if 0 < p and (p < _P_SCALE or m):
            self.target = t

    def best(self):
        """Return the hint for the throw shown (Game.tick, as the dice land): the best move,
        0 for none."""
        g = self.game
        if g.cpu is not None and g.cpu.seats >> g.player & 1:
            return 0  # the computer's turn: no hint
        e = g.engine
        if self.target != -1:
            return e.best_move_target(g.open_, g.a, g.b, g.locked)
        return e.best_move(g.open_, g.a, g.b, g.locked)

    def one_die(self):
        """Return True when one die is the better choice for the next throw (the hint)."""
        g = self.game
        e = g.engine
        if self.target != -1:
            return e.choose_one_die_target(g.open_, g.locked)
        return e.choose_one_die(g.open_, g.locked)

    def dice(self, one):
        """Measure the dice a person chose (Game.throw, before the throw): *one* = one die."""
        g = self.game
        if not self.on or g.one_die_choice() != 1 or self.target == -2:
            return  # a match: a turn ended by a throw has no value in the tables
        e = g.engine
        o = g.open_
        lk = g.locked
        if self.target < 0:
            loss = e.one_die_loss(o, one, lk)
        elif one != e.choose_one_die_target(o, lk):
            # 36 x the chance (x 1000) of beating the target with the dice chosen (a tie
            # half), playing the beat-target moves from there
            # no move: the turn ends here, a win below the target, half a win on it
            miss = _P_SCALE if e.score(o) < self.target else 0
            if e.score(o) == self.target:
                miss = _P_SCALE // 2
            total = 0
            for a in range(1, 7):
                if one:
                    m = e.best_move_target(o, a, 0, lk)
                    total += 6 * (e.p_beat(o & ~m, True) if m else miss)
                    continue
                for b in range(1, 7):
                    m = e.best_move_target(o, a, b, lk)
                    total += e.p_beat(o & ~m, lk) if m else miss
            loss = (e.p_beat(o, lk) * 36 - total + 18) // 36
        else:
            return
        if loss > 0:
            self.short += 1
            self.cost += loss

    def move(self, mask):
        """Measure the move a person made (Game.accept, before it is applied)."""
        g = self.game
        if not self.on:
            return
        e = g.engine
        o = g.open_
        lk = g.locked
        best = g.best  # the hint: the best of the moves the game allows
        if mask == best:
            return
        if self.target != -1:
            loss = e.p_beat(o & ~best, lk) - e.p_beat(o & ~mask, lk)
        elif best == e.best_move(o, g.a, g.b, lk):
            loss = e.move_loss(o, g.a, g.b, mask, lk)
        else:  # a setting allows fewer moves than the engine (to-go, most-tiles)
            loss = e.expected(o & ~mask, lk) - e.expected(o & ~best, lk)
        if loss > 0:
            self.short += 1
            self.cost += loss

    def end(self, r):
        """The turn ended: add the analysis to its score record *r* (the end of Game.accept;
        a name the box holds: each name is RAM for good)."""
        if not self.on:
            return
        a = {"short": self.short, "cost": self.cost, "goal": "beat-target"
             if self.target >= 0 else "min-expected" if self.target == -1 else "match"}
        if self.target >= 0:
            a["target"] = self.target
        r["analysis"] = a
        self.shown = self.short

    def view(self, f, now, two):
        """Add a second for the count after the score view's cycle (Game.render, TURN_END).

        *two*: the view shows a second number (a running total). Returns the clock to draw
        the game's own view with (its cycle unchanged), or -1 when the count was drawn.
        """
        if self.shown < 0:
            return now
        g = self.game
        c = _CYCLE2_MS if two else _CYCLE_MS
        t = ticks_diff(now, g.t_state) % (c + _COUNT_MS)
        if t < c:
            return ticks_add(g.t_state, t)
        fr.number(f, g.engine.tiles, self.shown, fr.CYAN, now, g.t_state)
        return -1

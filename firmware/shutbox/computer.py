# The computer opponent: it plays its seat on the LEDs, on virtual tiles, at a person's pace.
"""A computer player for shutbox.game, imported only when the computer setting is on.

Seats: the computer takes the seat after the human players (``seats``): 1 player + the
computer is a game of 2, 3 players + the computer a game of 4; with 4 players set it takes
seat 4, so the game stays at 4 seats (3 people and the computer). It plays last in the first
round and moves round like everyone else when the first seat moves in later rounds.

Its turn runs through the game's own state machine, one step per ``_PACE_MS`` of the passed-in
clock: its seat number shows in cyan on die A (SETUP: once the box's tiles are all open, as
for a person's turn), the dice it is about to throw show as cyan centre pips (one or two
dice: its one-die choice), the throw rolls and shows, then the tiles of its move turn green
one by one and are accepted by the same checks as a person's. It plays on virtual tiles: from
its first throw to its score the game ignores the box's own tiles (they stay open) and the
LEDs show the computer's box (open tiles white). Roll does nothing during its turn; after it,
Roll passes the box on as usual.

Levels (shutbox.engine LEVEL_*): easy picks any legal move at random (and one die or two at
random where the rules let it choose), medium plays the rule of thumb of the solver's page
(docs/rules.md: the highest tiles first, then the fewest; one die when the open tiles add
up to 6 or less), hard plays the exact optimum (the engine's tables): in one round for the
win (no rounds setting but a tie rule: share, roll-off or replay; beside best hints, real
dice, the time limit and resigning too) the match's play, the best
chance to win the round (seat 1; in later seats the best chance to win against the score so
far, a tie with it counted half, and of a shut box after one: shutbox.target), elsewhere the
lowest expected score. It chooses among the moves the game allows: where a
setting removes some (to-go, most-tiles), hard takes the allowed move with the lowest
expected score and medium the first allowed in greedy order. Random picks come from the
game's Dice byte pool (Dice.below). Nothing here allocates once built.
"""

from micropython import const
from shutbox import frame as fr
from shutbox.ticks import ticks_diff

_PACE_MS = const(800)  # one step of the computer's turn: a throw, a tile, the next throw
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_EASY = const(1)  # computer: a random legal move; one or two dice at random
_MEDIUM = const(2)  # computer: the rule of thumb (docs/rules.md)
_MAX_SEATS = const(4)  # seats at the box
_SETUP = const(0)  # game states (shutbox.game)
_READY = const(1)  # a state
_MOVE = const(3)  # a state
# END consts


class Computer:
    """The computer's seat(s) in a game; Game.tick drives it, Game.render lets it draw."""

    def __init__(self, game, level):
        """Take the seat after the game's human players; *level* is LEVEL_EASY..LEVEL_HARD."""
        self.game = game
        self.level = level
        s = game.settings.players  # its seat (0-based): after the people, at most seat 4
        if s >= _MAX_SEATS:
            s = _MAX_SEATS - 1
        self.players = s + 1  # seats in the game (Game.new_game)
        self.seats = 1 << s  # bit p: seat p is played by the computer
        self.one = False  # the dice it throws next: True for one die
        self.plan = 0  # tiles of its move still to shut
        # when the last step was made (the pace counts from it; a name the box holds)
        self.at = 0
        self._seen = -1  # game.transitions when it last looked: a new state is planned once

    def playing(self):
        """Return True while it is the computer's turn, until its score shows."""
        g = self.game
        return bool(self.seats >> g.player & 1) and g.state <= _MOVE

    def tick(self, now):
        """Make the computer's next step when it is due (called by Game.tick)."""
        if not self.playing():
            return
        g = self.game
        st = g.state
        if g.transitions != self._seen:  # a state just entered: decide what to do in it
            e = g.engine
            o = g.open_
            if self.level > _MEDIUM and (st == _SETUP or self._seen < 0):
                # one round for the win (no rounds setting but a tie rule): the match's
                # play, or the score to beat; other games the lowest expected score
                # (shutbox.target checks the other rounds settings: their check here does
                # not fit the heap)
                s = g.settings
                if g.match is None or s.tie:
                    # set_target: it reads a table block (by names the box holds, as in
                    # shutbox.coach)
                    __import__("shutbox." + "target").target.target(g)
                else:
                    e.set_target(0)
            self._seen = g.transitions
            self.at = now
            if st != _MOVE:  # the dice for the next throw (the rules decide where they must)
                r = g.dice.below(2) if self.level == _EASY and g.one_die_choice() == 1 else 0
                self.one = e.computer_one_die(self.level, o, g.locked, r)
                return
            # MOVE: the move for the throw shown, among those the game allows (g.legal[:g.moves])
            n = g.moves
            buf = g.legal
            if n == 0:
                m = 0
            elif self.level == _EASY:
                m = buf[g.dice.below(n)]  # a random move (easy), over the allowed moves
            else:
                if self.level == _MEDIUM:
                    m = e.greedy_move(o, g.a, g.b)
                else:
                    m = e.best_move_target(o, g.a, g.b, g.locked)
                i = 0
                while i < n and buf[i] != m:
                    i += 1
                if i == n and self.level == _MEDIUM:  # not allowed here (to-go, most-tiles):
                    m = buf[0]  # the first allowed, as they keep the greedy order
                elif i == n:  # hard: the allowed move with the lowest expected score
                    low = -1
                    for i in range(n):
                        x = e.expected(o & ~buf[i], g.locked)
                        if low < 0 or 0 <= x < low:
                            m = buf[i]
                            low = x
            self.plan = m
            return
        if st == _SETUP and g.err:  # the box's tiles are not in the start position yet
            self.at = now  # the pause counts from when they are
            return
        if ticks_diff(now, self.at) < _PACE_MS:
            return
        self.at = now
        if st == _SETUP:
            g.levels = g.open_  # from here on the game plays on the computer's tiles
            g.throw(self.one, now)
        elif st == _READY:
            g.throw(self.one, now)
        elif st == _MOVE:  # shut the highest tile of the plan on the virtual tiles
            plan = self.plan
            bit = 1
            while plan >= bit << 1:
                bit <<= 1
            self.plan = plan & ~bit
            g.levels &= ~bit
            g.check(now)  # the game checks it as a person's
            if g.state == _MOVE and self.plan == 0 and g.pending:
                g.accept(g.shut, now)  # complete, though a longer move could extend it

    def draw(self, f, now):
        """Draw the computer's turn over the game's frame (allocation-free)."""
        g = self.game
        n = g.engine.tiles
        st = g.state
        if st == _SETUP:
            fr.die(f, n, 0, g.player + 1, fr.CYAN)  # the computer's seat, in cyan
        elif st == _READY:
            fr.die(f, n, 0, 1, fr.CYAN)  # the dice it is about to throw: one pip per die
            fr.die(f, n, 1, 0 if self.one else 1, fr.CYAN)
        elif st == _MOVE:
            fr.tiles_mask(f, g.open_ & ~g.shut, fr.WHITE)  # its virtual box

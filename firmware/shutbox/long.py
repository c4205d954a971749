# The long game for 2: one player shuts, the other reopens, in turns; loaded only for it.
"""The long game for 2 (the ``long`` setting, menu 6.5): shutbox.app makes this module's
``Game`` (shutbox.game.Game with the turns below) when the setting is on.

Player 1 plays a turn by the usual rules, shutting tiles, from the start position. When that
turn ends, player 2 takes the box as it is and plays a reopening turn: for each throw, flip
UP shut tiles that add up to it (every rule of a turn applies, mirrored: the shut tiles play
the part of the open ones, as in Open the Box; one die where the rules allow it on the tiles
still shut). When player 2 is stopped, the box passes back to player 1, who shuts again from
the box as it is, and so on. Each double thrown (played or not) earns its thrower one more
turn from the box as it is, taken when the current turn ends (a double that cannot be
played therefore never stops its thrower). Player 1 wins on shutting every tile in play,
player 2 on opening them all: the game ends at once. No scores: the records count a game
played, and no turn.

On the box: before each turn's first throw die A shows the player's number (magenta) and the
tiles that player plays are lit white: the open ones when shutting, the shut ones when
reopening (the box as it was left: after the first turn, nothing to set up). A move is checked as
ever: tiles flipped the wrong way, or that add up to more than the throw, blink red. At a
turn's end die A shows who plays next (magenta), and die B the same number on an extra
turn; Roll passes the box. At the end the winner's number shows on die A and every tile
blinks green; a long Roll starts a new game.

The log: the ``game``, ``turn``, ``turn_end`` and ``winner`` records have ``"long": true``; the
``turn``, ``throw`` and ``move`` records of a reopening turn have ``"reopen": true`` and, as
in Open the Box, list the tiles still shut as ``open`` and the tiles reopened as ``shut``; a
``rule`` record ``extra-turn`` before a double's extra turn; a ``turn_end`` record names the
next player; the ``winner`` record ends the game (score 0).

Everything is in this subclass, loaded only for the long game: the standard game's code
(its bytes in the RAM the all-features game needs) carries none of it. The game's ``score``,
unused here, counts the extra turns earned and not yet taken (shutbox.resume saves it with
the rest). These are the readings the solver's long game takes
(shutbox_host.solve.longgame: ``shutbox solve --long-game``), so its chances are this
game's.
"""

from micropython import const
from shutbox import frame as fr
from shutbox import game
from shutbox.game import tiles_of
from shutbox.ticks import ticks_diff

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_BLINK_MS = const(250)  # shutbox.frame's slow blink (half-period)
_SETUP = const(0)  # game states (shutbox.game)
_READY = const(1)  # a state
_TURN_END = const(4)  # a state
_GAME_END = const(5)  # a state
_SND_WIN = const(b"\x4e\x0c\x4e\x0c\x4e\x0c\x69\x28")  # the winner's tune
# END consts
_MIN_SHOW_MS = const(700)  # a turn's end shows this long before Roll passes (shutbox.game's)
_SND_TURN = const(b"\x4e\x0a\x41\x0a\x34\x14")  # the turn's end (shutbox.game's)


class Game(game.Game):
    """shutbox.game.Game playing the long game for 2 (see the module doc). ``inv`` mirrors
    the tiles in player 2's reopening turns (the tiles in play: shutbox.engine's start_open),
    as Open the Box mirrors them for a whole game."""

    def new_game(self, now):
        """A new game: every tile of the start in play, player 1 shuts first."""
        self.mirror(0)
        self.open_ = self.engine.start_open
        self.score = 0
        game.Game.new_game(self, now)
        for r in self.log:  # the game record says which game
            if r["ev"] == "game":
                r["long"] = True

    def mirror(self, p):
        """Take player *p*'s view of the tiles: mirrored for player 2 (0-based 1)."""
        inv = self.engine.start_open if p else 0
        d = inv ^ self.inv
        self.phys ^= d
        self.open_ ^= d
        self.inv = inv

    def start_turn(self, p, now):
        """Player *p* takes the box as it is (the game's start_turn sets the start up): the
        game's first turn waits for the tiles of the start (SETUP), the others go straight
        to the throw (READY), the tiles being where the last turn left them. (shutbox.resume
        calls it too, before it sets the saved fields: the player's view of the tiles.)"""
        self.mirror(p)
        self.player = p
        self.levels = self.phys
        self.locked = False
        self.throws = 0
        self.shut_box = self.pending = False
        self.shut = 0
        first = not self.played  # the game's first turn (both bits set after it)
        self.played = 3
        self.enter(_SETUP if first else _READY, now)
        self.log.append({"ev": "turn", "player": p + 1, "open": tiles_of(self.open_),
                         "long": True})
        if p:
            self.log[-1]["reopen"] = True

    def throw(self, long, now):
        """The game's; a double counts for an extra turn."""
        game.Game.throw(self, long, now)
        if self.b and self.a == self.b:
            self.score += 1

    def mark(self, n):
        """Mark the log's throw and move records from index *n* on in a reopening turn."""
        if self.player:
            for r in self.log[n:]:
                if r["ev"] == "throw" or r["ev"] == "move":
                    r["reopen"] = True

    def tick(self, now):
        """The game's; a reopening turn's throw records marked."""
        n = len(self.log)
        game.Game.tick(self, now)
        self.mark(n)

    def accept(self, mask, now):
        """Play the move *mask* (0: the throw cannot be played, the turn ends); the move that
        shuts (or opens) every tile wins the game."""
        n = len(self.log)
        self.play(mask, now)
        self.mark(n)

    def play(self, mask, now):
        """accept's: the move, the game's end or the turn's."""
        if mask and self.open_ & ~mask:
            game.Game.accept(self, mask, now)
            return
        p = self.player
        if mask:  # the last tiles: the game is won
            self.open_ = 0
            self.pending = False
            self.log.append({"ev": "move", "player": p + 1,
                             "dice": [self.a, self.b] if self.b else [self.a],
                             "shut": tiles_of(mask), "open": []})
            self.shut_box = self.over = True
            self.winners = 1 << p
            self.log.append({"ev": "winner", "players": [p + 1], "score": 0, "scores": [0, 0],
                             "tie": False, "long": True})
            self.melody(_SND_WIN)
            self.enter(_GAME_END, now)
            return
        self.melody(_SND_TURN)
        self.enter(_TURN_END, now)

    def next(self):
        """Return who plays next (0-based): the same player while extra turns are due."""
        return self.player if self.score else 1 - self.player

    def roll(self, long, now):
        """Roll: at a turn's end the box passes (or the extra turn begins); at the game's end
        a long Roll starts a new game; otherwise the game's."""
        st = self.state
        if st == _TURN_END:
            if ticks_diff(now, self.t_state) >= _MIN_SHOW_MS:
                p = self.next()
                if p == self.player:  # one of the turn's doubles: its extra turn
                    self.score -= 1
                    self.log.append({"ev": "rule", "rule": "extra-turn", "player": p + 1})
                else:
                    self.score = 0
                self.log.append({"ev": "turn_end", "player": self.player + 1, "next": p + 1,
                                 "long": True})
                self.start_turn(p, now)
        elif st == _GAME_END:
            if long:
                self.new_game(now)
        else:
            game.Game.roll(self, long, now)

    def moving(self, now):
        """The game's; the game's end: the ms to its tiles' next blink, a turn's end is
        still (False)."""
        st = self.state
        if st == _GAME_END:
            return _BLINK_MS - ticks_diff(now, self.t_state) % _BLINK_MS
        if st == _TURN_END:
            return False
        return game.Game.moving(self, now)

    def render(self, now):
        """The game's frame, with the player's number before a turn's first throw; a turn's
        end and the game's end as the module doc says."""
        st = self.state
        f = self.frame
        n = self.engine.tiles
        if st != _TURN_END and st != _GAME_END:
            game.Game.render(self, now)
            if st == _READY and not self.throws:
                fr.die(f, n, 0, self.player + 1, fr.MAGENTA)
            return f
        fr.clear(f)
        if st == _GAME_END:
            if fr.blink(now, self.t_state):
                fr.tiles_mask(f, self.engine.start_open, fr.GREEN)
            fr.die(f, n, 0, self.player + 1, fr.GREEN)
            return f
        p = self.next()
        up = self.open_ ^ self.inv  # the tiles up
        fr.tiles_mask(f, up if p == 0 else self.engine.start_open & ~up, fr.WHITE)
        fr.die(f, n, 0, p + 1, fr.MAGENTA)
        if p == self.player:
            fr.die(f, n, 1, p + 1, fr.MAGENTA)
        return f

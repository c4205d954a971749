# Real dice, the time limit, resigning: turn rules of people at the box, for shutbox.game.
"""The game and dice of the real-dice, timeout and resign settings, loaded only when one is
on: shutbox.app makes this module's ``Game`` (shutbox.game.Game with the entry, the clock
and the resignation), which wraps the box's dice in its ``Dice`` for real dice. The long
game's setting loads it too: its ``Game`` then makes shutbox.long's game instead.

The players throw their own dice; the box checks the moves, gives its hints and keeps the
score as usual. A throw is entered with the tiles and Roll only, before the throw, in SETUP
(once every tile is in its start position) and READY:

* for each die, flip the tile of its number down and up again (a tile already shut: up and
  down): the die counts when the tile is back where it was. A tile away from its place blinks
  amber until it is back; the dice entered show on the dice LEDs, white, a chirp each;
* then a short Roll: two dice entered make a two-dice throw, one die a one-die throw where
  the rules allow one die (die B's centre pip blinks amber then). Roll with no die entered,
  with one where one die is not allowed, or with two where one die is forced, is refused
  (a low buzz; the log's ``refused``, why ``dice``);
* a third die, or a tile above 6 flipped down and up, clears the dice entered (a low buzz):
  enter them again.

The dice roll briefly, land on the throw entered, and the game goes on as with the box's dice
(a move a longer one could extend is taken by Roll as ever, but Roll then throws nothing: the
next throw is entered); the log's ``throw`` record carries ``"real": true``. The computer's
turns, its random picks and a roll-off use the box's own dice (``Dice.dice``). Real dice do
not go with same-throws or a challenge code (shutbox.setfile.conflict): both are the box's
own dice. Allocation-free once built.

**Time limit** (timeout: 30 s or 60 s): each decision of a person's turn has that long: from the
throw shown (MOVE) to the move made, and from a move (READY) to the next Roll. In its last
10 s the box ticks once a second and the dice flash amber; at the limit the turn ends there,
the open tiles scoring as when no move fits (the log's ``rule`` record, ``timeout``). The
setup before a turn and the computer's turns have no limit; a game resumed after a power
cut gives the decision its whole time again.

**Resign** (on): a person resigns with tile 1 out of its place (shut it, or open it if it is
shut: it blinks) and Roll held a second, before a throw (SETUP or READY). Their turn ends
with every tile of the start scoring, and they are out: in a game of rounds they play no
more rounds and cannot win, in one round they cannot win; the others go on. When every
player has resigned (every player of a round, in a game of rounds) the game ends there, a
draw between all the seats: nobody beat anybody (the winner record names them all, ``tie``
true, its score the lowest total). The log's ``rule`` record says ``resign``.

Everything is here, in a subclass, so that the standard game's code (loaded on every box,
its bytes in the RAM the all-features game needs) carries none of it.
"""

from micropython import const
from shutbox import frame as fr
from shutbox import game
from shutbox.ticks import ticks_diff

_FACES = const(6)
_SND_DIE = const(b"\x75\x05")  # a die entered: one short high note
_SND_TICK = const(b"\x96\x03")  # the time limit's last seconds: one tick a second
_LIMIT_MS = const(30000)  # the time limit's step: 30 s (setting 1) or 60 s (2)
_WARN_S = const(10)  # the last seconds that tick
_FLASH_MS = const(200)  # the dice flash amber this long each second
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_SETUP = const(0)  # game states (shutbox.game)
_READY = const(1)  # a state
_ROLLING = const(2)  # a state
_MOVE = const(3)  # a state
_SND_NO = const(b"\x1e\x0a")  # the game's low "no" buzz
_ACTIVE = const(1)  # Match.st: players still in (out-at-45 drops them, and resigning)
_IN_ROUND = const(2)  # Match.st: players taking a turn in this round
_ERR_NONE = const(0)  # Game.err: the tiles are as the game wants them
_ERR_SETUP = const(1)  # Game.err: a tile not in place yet (blinks amber, no mistake)
# END consts


class Game(game.Game):
    """shutbox.game.Game with real dice or a time limit (see the module doc). Its names are
    ones the box already holds where it can (interned names stay in RAM for good)."""

    beat = 0  # the seconds left at the time limit's last tick (0: none yet)

    def __new__(cls, engine, dice, settings, levels, now):
        """This class's game, or shutbox.long's for the long game for 2: shutbox.app makes
        every optional game through this module (one import there, in the code every game
        holds in RAM); shutbox.long is loaded only for its game."""
        if settings.long:
            return __import__("shutbox." + "long").long.Game(engine, dice, settings, levels,
                                                             now)
        return object.__new__(cls)

    def __init__(self, engine, dice, settings, levels, now):
        """The game's, with real dice (Dice) over the box's own *dice* when they are on."""
        game.Game.__init__(self, engine, Dice(dice) if settings.real_dice else dice,
                           settings, levels, now)

    def wait(self, now):
        """Return the ms a person has left for the decision under the time limit, or -1 when
        no clock runs."""
        lim = self.settings.timeout
        if lim and (self.state == _READY or self.state == _MOVE) and (
                self.cpu is None or not self.cpu.playing()):
            lim = lim * _LIMIT_MS - ticks_diff(now, self.t_state)
            return lim if lim > 0 else 0
        return -1

    def check(self, now):
        """SETUP and READY of a person's turn with real dice: the tiles enter dice
        (Dice.update); a tile away blinks amber (_ERR_SETUP: no buzz, no error record) until
        it is back."""
        if self.state <= _READY and self.settings.real_dice and (
                self.cpu is None or not self.cpu.playing()):
            m = self.dice.update(self, (self.levels ^ self.open_) & self.engine.full)
            if m >= 0:
                k = _ERR_SETUP if m else _ERR_NONE
                if k != self.err:
                    self.err = k
                    self.since = now
                self.err_mask = m
                return
        game.Game.check(self, now)

    def roll(self, long, now):
        """Roll with real dice: in SETUP and READY the throw entered (Dice.press); in MOVE a
        pending move is taken and nothing thrown; otherwise as the game's."""
        st = self.state
        if long and st <= _READY and self.err_mask == 1 and self.settings.resign and (
                self.cpu is None or not self.cpu.playing()):  # tile 1 out, Roll held
            self.resign(now)
            return
        if not self.err and self.settings.real_dice and (
                self.cpu is None or not self.cpu.playing()):
            if st == _MOVE and self.pending:
                self.accept(self.shut, now)
                return
            if st <= _READY:
                st = self.dice.press(self)  # 1: two dice, 2: one die, 0: refused
                if st:
                    self.throw(st == 2, now)
                return
        game.Game.roll(self, long, now)

    def resign(self, now):
        """The player resigns (the module doc): the turn ends with every tile of the start
        scoring, and the player cannot win: out of the rounds after (shutbox.rounds), or out
        of the winners of a one-round game (its ``played`` bit cleared); when the last seat
        resigns after every other, all of them draw."""
        p = self.player
        self.log.append({"ev": "rule", "rule": "resign", "player": p + 1})
        m = self.match
        if m is not None:
            m.st[_ACTIVE] &= ~(1 << p)
            m.st[_IN_ROUND] &= ~(1 << p)
        self.open_ = self.engine.start_open
        self.accept(0, now)
        if m is None:  # one round: out of the winners (the seats whose bit is set)
            self.played &= ~(1 << p)
            if p + 1 >= self.players and not self.played:  # every seat resigned: a draw
                self.played = (1 << p + 1) - 1  # (every score is the start's)

    def tick(self, now):
        """The game's tick; when the dice land on an entered throw, its record is marked; the
        time limit's ticks, and the turn's end at the limit."""
        st = self.state
        game.Game.tick(self, now)
        if st == _ROLLING and self.state != _ROLLING and self.settings.real_dice and (
                self.cpu is None or not self.cpu.seats >> self.player & 1):
            self.dice.end(self.log)  # a person's throw was entered (after a cut too)
        st = self.wait(now)
        if st == 0:
            self.log.append({"ev": "rule", "rule": "timeout", "player": self.player + 1})
            self.beat = 0
            self.accept(0, now)  # the turn ends: the open tiles score
        elif 0 < st <= _WARN_S * 1000:
            st = (st + 999) // 1000
            if st != self.beat:
                self.beat = st
                self.melody(_SND_TICK)

    def would_throw(self):
        """Roll throws only the dice entered with real dice (no dice roll while it is held)."""
        return not self.settings.real_dice and game.Game.would_throw(self)

    def moving(self, now):
        """The game's; True while a decision's clock runs (its end must be seen)."""
        return self.wait(now) >= 0 or game.Game.moving(self, now)

    def render(self, now):
        """The game's frame, with the dice entered so far and a tile away amber in READY
        (real dice); the dice flashing amber in a decision's last seconds (time limit)."""
        f = game.Game.render(self, now)
        st = self.state
        n = self.engine.tiles
        if st <= _READY and self.settings.real_dice and (
                self.cpu is None or not self.cpu.playing()):
            self.dice.draw(f, n, now)
            if st == _READY and self.err == _ERR_SETUP:  # the game shows READY's in red
                fr.tiles_mask(f, self.err_mask, fr.AMBER if fr.blink(now, self.since)
                              else fr.OFF)
        st = self.wait(now)
        if 0 < st <= _WARN_S * 1000 and st % 1000 > 1000 - _FLASH_MS:  # a second begins
            for st in range(n, n + 14):  # both dice: the pips lit, and die B's centre
                if f[st] or st == n + 10:
                    f[st] = fr.AMBER
        return f


class Dice:
    """The dice the players enter (see the module doc); a shutbox.dice.Dice for the game.
    Its names are the box's too: ``a`` and ``b`` the dice entered, ``throws`` how many,
    ``played`` how many roll() has handed out, ``mask`` the tiles away from their place
    since the entry began, ``transitions`` the game's when it began (-1: not in this state).
    """

    code = -1  # no challenge code (Dice.code)

    def __init__(self, dice):
        """Keep the box's own dice *dice* (shutbox.dice.Dice) for the computer and roll-offs."""
        self.dice = dice
        self.a = self.b = self.throws = self.played = self.mask = 0
        self.transitions = -1

    def update(self, g, tiles):
        """Take the *tiles* away from their place (SETUP or READY of a person's turn: Game's
        check); return the tiles to blink amber, or -1 before the entry begins (the game
        checks its tiles as without real dice). It begins in a state once every tile is in
        its place; a tile back in its place enters its number as a die."""
        if g.transitions != self.transitions:  # a new state: a new entry, once placed
            self.throws = self.played = self.mask = 0
            if tiles:
                return -1
            self.transitions = g.transitions
        back = self.mask & ~tiles
        self.mask = tiles
        k = 0
        while back:
            if back & 1:
                if k < _FACES and self.throws < 2:
                    if self.throws:
                        self.b = k + 1
                    else:
                        self.a = k + 1
                    self.throws += 1
                    g.melody(_SND_DIE)
                else:  # a tile above 6, or a third die: the dice entered are cleared
                    self.throws = 0
                    g.melody(_SND_NO)
            back >>= 1
            k += 1
        return tiles

    def press(self, g):
        """Roll in SETUP or READY of a person's turn: return 1 (two dice) or 2 (one die)
        when the dice entered make a throw the rules allow, else 0 (refused: a buzz, a log
        record)."""
        c = g.one_die_choice()  # 0: two dice only, 1: one die may be thrown, 2: one forced
        if self.throws == 2 and c < 2:
            return 1
        if self.throws == 1 and c:
            return 2
        g.melody(_SND_NO)
        g.log.append({"ev": "refused", "player": g.player + 1, "why": "dice", "tiles": []})
        return 0

    def roll(self):
        """Return the next die entered, or the box's own die when none is left (the
        computer's throws, a roll-off)."""
        if self.played < self.throws:
            self.played += 1
            return self.a if self.played == 1 else self.b
        return self.dice.roll()

    def below(self, n):
        """The box's own random int in 0..n-1 (the computer's picks: Dice.below)."""
        return self.dice.below(n)

    def flush(self):
        """Drop the box's dice's unused bytes (Dice.flush)."""
        self.dice.flush()

    def end(self, log):
        """A person's dice landed: mark the last throw record in *log* (entered: a game
        resumed rolling has no entry left, yet its throw was entered before the cut); the
        entry is over."""
        j = len(log) - 1
        while j >= 0 and log[j]["ev"] != "throw":
            j -= 1
        if j >= 0:
            log[j]["real"] = True
        self.throws = self.played = 0

    def draw(self, f, n, now):
        """Show the dice entered so far on the dice LEDs, white (frame *f*, *n* tiles)."""
        if self.throws:
            fr.die(f, n, 0, self.a, fr.WHITE)
        if self.throws > 1:
            fr.die(f, n, 1, self.b, fr.WHITE)

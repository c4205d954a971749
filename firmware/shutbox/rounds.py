# Rounds, formats, ties, stakes and the turn variants of the settings, for shutbox.game.
"""The game's settings beyond the standard single round: ``Match(game)``, made by the game
only when a setting needs it (format, tie, stakes, same-throws, unlucky-7, to-go or
most-tiles not at their defaults), so the standard game keeps its RAM.

A game is rounds; in a round every player still in takes one turn, and the first player moves
one seat each round. ``game.scores`` are the running totals, ``rscores`` the turn scores of
the round being played.

* format: one round; 3 or 5 rounds added up; out at 45 (after each round a total of 45 or
  more is out and the last player left wins; if the last players all go out in the same
  round, the lowest total among them wins); to 100 (the round in which a total reaches 100 is
  finished, then the lowest total wins). Otherwise the lowest total wins.
* shut-wins (game.over): shutting the box ends the game at once, in any format, and that
  player wins whatever the totals.
* tie (for the win): share; roll-off (each tied player throws one die, the lowest wins, ties
  throw again: state ROLLOFF); replay (the tied players play one more round; its lowest turn
  score wins, again on a new tie; such rounds add nothing to the totals).
* stakes (Canoga): after each round every player pays each round winner the difference of
  their turn scores, twice that when the winner shut the box; a player whom a shut box kept
  from playing counts as having shut nothing. ``balance`` is each player's running result.
* same-throws: a round's throws are recorded as they are first made and replayed for the
  other players (one die is not offered: Settings.rules); a throw beyond the recorded ones is
  made and recorded by whoever gets there first.
* unlucky-7: a throw of 7 ends the turn at once, unplayed; the open tiles score as usual.
* to-go: on the first throw only moves that shut the 2 (or the 3) are legal; a first throw
  with none (a 4; a 2 in 3-to-go) ends the turn at once with nothing shut: the worst score.
* most-tiles: a throw must shut as many tiles as the longest legal move does.
(open-box is the game's mirrored levels, ``Game.inv``.)
"""

from micropython import const
from shutbox import frame as fr

# The values of the settings played here (shutbox.settings: format, tie, to-go, stakes).
FORMAT_ONE_ROUND = const(0)  # every player one turn, the lowest score wins
FORMAT_3_ROUNDS = const(1)  # three rounds added up, the lowest total wins
FORMAT_5_ROUNDS = const(2)  # five rounds added up
FORMAT_OUT_AT_45 = const(3)  # rounds until one player is left: a total of 45 or more is out
FORMAT_TO_100 = const(4)  # rounds until a total reaches 100: then the lowest total wins
OUT_AT = const(45)
GAME_TO = const(100)
TIE_SHARE = const(0)  # the tied players share the win
TIE_ROLL_OFF = const(1)  # each tied player throws one die, the lowest wins; ties throw again
TIE_REPLAY = const(2)  # the tied players play one more round, its lowest score wins
TO_GO_OFF = const(0)
TO_GO_2 = const(1)  # the first throw must shut the 2; one that cannot (a 4) ends the turn
TO_GO_3 = const(2)  # the first throw must shut the 3; one that cannot (a 2) ends the turn
STAKES_OFF = const(0)
STAKES_CANOGA = const(1)  # each round every loser pays the winner the difference, x2 if shut

ROLLOFF = const(6)  # a game state: the tied players throw one die each
_GAME_END = const(5)  # shutbox.game.GAME_END
_MAX = const(4)
_SEQ = const(16)  # recorded throws per round: a turn has at most tiles + 1 <= 13
_SND_DIE = b"\x64\x03\x00\x02\x64\x03"
_SND_WIN = b"\x4e\x0c\x4e\x0c\x4e\x0c\x69\x28"
_TO_GO_NAMES = ("", "2-to-go", "3-to-go")


def ntiles(m):
    """Return how many bits of *m* are set."""
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


def _players(mask):
    """Return the player numbers (1..4) in *mask*, for the log."""
    return [p + 1 for p in range(_MAX) if mask >> p & 1]


class Match:
    """Rounds, formats, ties, stakes and turn variants of one game (see the module doc)."""

    def __init__(self, game):
        """Make the buffers once; *game* is the shutbox.game.Game this match drives."""
        self.g = game
        self.rscores = [0] * _MAX
        self.balance = [0] * _MAX
        self.dies = bytearray(_MAX)  # roll-off dice
        self.seq = bytearray(_SEQ)  # same-throws: a << 3 | b per throw of the round
        self.seq_n = 0
        self.round = 0
        self.first = 0
        self.active = 0  # players still in (out-at-45 drops players)
        self.in_round = 0  # players taking a turn in this round
        self.rshut = 0  # players who shut the box this round
        self.tiebreak = 0  # replay rounds played for a tie
        self.rolloff = 0  # players in the roll-off
        self.roller = 0

    def new(self, now):
        """Start the first round of a new game (Game.new_game)."""
        g = self.g
        for p in range(_MAX):
            self.balance[p] = 0
        self.round = 0
        self.first = 0
        self.tiebreak = 0
        self.active = (1 << g.players) - 1
        self._start_round(self.active, now)

    def _start_round(self, who, now):
        """A round for the players in the mask *who*, from seat ``first``."""
        g = self.g
        if not self.tiebreak:
            self.round += 1
        self.in_round = who
        g.played = 0
        self.rshut = 0
        self.seq_n = 0
        for p in range(_MAX):
            self.rscores[p] = 0
        g.log.append({"ev": "round", "round": self.round, "tiebreak": self.tiebreak,
                      "players": _players(who)})
        g._start_turn(self._next_player(), now)

    def _next_player(self):
        """Return the next player of the round to take a turn, or -1."""
        g = self.g
        for i in range(g.players):
            p = (self.first + i) % g.players
            if (self.in_round & ~g.played) >> p & 1:
                return p
        return -1

    def scored(self, p, score, shut):
        """Player *p*'s turn ended with *score* (Game._end_turn)."""
        g = self.g
        self.rscores[p] = score
        if not self.tiebreak:  # a tie-break round decides a tie; it adds nothing to totals
            g.scores[p] += score
        if shut:
            self.rshut |= 1 << p

    def after_turn(self, now):
        """Roll after a turn's score: the next turn, the next round, or the end."""
        g = self.g
        nxt = -1 if g.over else self._next_player()
        g.log.append({"ev": "turn_end", "player": g.player + 1, "next": nxt + 1})
        if nxt >= 0:
            g._start_turn(nxt, now)
            return
        s = g.settings
        if s.stakes and not self.tiebreak:
            self._settle()
        if g.over:  # shut-wins: the player who shut the box wins, whatever the totals
            self.end(self.rshut, now)
            return
        if self.tiebreak:
            self._decide(self.in_round, self.rscores, now)
            return
        fmt = s.format
        last = True
        who = self.in_round
        if fmt == FORMAT_3_ROUNDS or fmt == FORMAT_5_ROUNDS:
            last = self.round >= (3 if fmt == FORMAT_3_ROUNDS else 5)
        elif fmt == FORMAT_OUT_AT_45:
            out = 0
            for p in range(g.players):
                if who >> p & 1 and g.scores[p] >= OUT_AT:
                    out |= 1 << p
            if out:
                self.active &= ~out
                g.log.append({"ev": "out", "players": _players(out)})
            n = ntiles(self.active)
            last = n == 0 or (n == 1 and g.players > 1)
            who = self.active if n else out  # all went out together: the lowest total wins
        elif fmt == FORMAT_TO_100:
            last = False
            for p in range(g.players):
                if who >> p & 1 and g.scores[p] >= GAME_TO:
                    last = True
        if last:
            self._decide(who, g.scores, now)
        else:
            self.first = (self.first + 1) % g.players
            self._start_round(self.active, now)

    def _decide(self, who, table, now):
        """End the game: the lowest *table* entry among the players *who*; ties by the rule."""
        n = self.g.players
        low = -1
        for p in range(n):
            if who >> p & 1 and (low < 0 or table[p] < low):
                low = table[p]
        best = 0
        for p in range(n):
            if who >> p & 1 and table[p] == low:
                best |= 1 << p
        tie = self.g.settings.tie
        if best & (best - 1) and tie == TIE_REPLAY:
            self.tiebreak += 1
            self._start_round(best, now)
        elif best & (best - 1) and tie == TIE_ROLL_OFF:
            self._rolloff(best)
            self.g.log.append({"ev": "rolloff", "players": _players(best)})
            self.g._enter(ROLLOFF, now)
        else:
            self.end(best, now)

    def _rolloff(self, mask):
        """(Re)start a roll-off among the players in *mask*: no dice yet."""
        self.rolloff = mask
        for p in range(_MAX):
            self.dies[p] = 0
        p = 0
        while not mask >> p & 1:
            p += 1
        self.roller = p

    def end(self, winners, now):
        """The game is over: the players in the mask *winners* won."""
        g = self.g
        g.winners = winners
        p = 0
        while p < _MAX - 1 and not winners >> p & 1:
            p += 1
        g.best_score = g.scores[p]
        g.page = 0
        rec = {"ev": "winner", "players": _players(winners), "score": g.best_score,
               "scores": g.scores[:g.players], "tie": winners & (winners - 1) != 0,
               "rounds": self.round}
        if g.settings.stakes:
            rec["balance"] = self.balance[:g.players]
        g.log.append(rec)
        g._sound(_SND_WIN)
        g._enter(_GAME_END, now)

    def _settle(self):
        """Canoga stakes for the round just played (see the module doc)."""
        g = self.g
        n = g.players
        rs = self.rscores
        start = g.engine.score(g.engine.start_open)
        who = self.in_round
        low = -1
        for p in range(n):
            if who >> p & 1:
                if not g.played >> p & 1:
                    rs[p] = start
                if low < 0 or rs[p] < low:
                    low = rs[p]
        bal = self.balance
        for w in range(n):
            if who >> w & 1 and rs[w] == low:
                k = 2 if self.rshut >> w & 1 else 1
                for q in range(n):
                    if who >> q & 1 and rs[q] != low:
                        pay = (rs[q] - low) * k
                        bal[q] -= pay
                        bal[w] += pay
        g.log.append({"ev": "stakes", "round": self.round, "balance": bal[:n]})

    def press(self, now):
        """Roll in ROLLOFF: throw for the next tied player; after the last, settle it."""
        g = self.g
        mask = self.rolloff
        p = self.roller
        if self.dies[p]:
            p += 1
            while p < _MAX and not (mask >> p & 1 and not self.dies[p]):
                p += 1
        g.t_state = now
        if p < _MAX:
            self.roller = p
            d = g.dice.roll()
            self.dies[p] = d
            g.log.append({"ev": "rolloff_die", "player": p + 1, "die": d})
            g._sound(_SND_DIE)
            return
        low = 7
        for q in range(_MAX):
            if mask >> q & 1 and self.dies[q] < low:
                low = self.dies[q]
        best = 0
        for q in range(_MAX):
            if mask >> q & 1 and self.dies[q] == low:
                best |= 1 << q
        if best & (best - 1):  # tied again: those players throw again
            self._rolloff(best)
        else:
            self.end(best, now)

    def render(self, f, now):
        """ROLLOFF: the tied players' tiles blink; die A the thrower, die B their die."""
        n = self.g.tiles
        on = fr.blink(now, self.g.t_state)
        fr.tiles_mask(f, self.rolloff, fr.MAGENTA if on else fr.OFF)
        p = self.roller
        fr.die(f, n, 0, p + 1, fr.MAGENTA)
        fr.die(f, n, 1, self.dies[p], fr.WHITE)

    # ----- the turn variants -----

    def replay(self, one):
        """Same throws: the round's recorded throw, or a new one, recorded (Game._throw)."""
        g = self.g
        i = g.throws
        seq = self.seq
        if i < self.seq_n:
            g.a = seq[i] >> 3
            g.b = seq[i] & 7
            return
        g.a = g.dice.roll()
        g.b = 0 if one else g.dice.roll()
        if i < _SEQ:
            seq[i] = g.a << 3 | g.b
            self.seq_n = i + 1

    def moves(self):
        """Apply unlucky-7, to-go and most-tiles to the throw's legal moves; return how many."""
        g = self.g
        s = g.settings
        n = g._n
        if s.unlucky7 and g.a + g.b == 7:
            g.log.append({"ev": "rule", "rule": "unlucky-7", "player": g.player + 1})
            return 0
        buf = g._buf
        need = 1 << s.to_go if s.to_go and g.throws == 1 else 0
        if need:
            j = 0
            for i in range(n):
                if buf[i] & need:
                    buf[j] = buf[i]
                    j += 1
            if j == 0:
                g.log.append({"ev": "rule", "rule": _TO_GO_NAMES[s.to_go],
                              "player": g.player + 1})
            n = j
        if s.most_tiles and n:
            most = 0
            for i in range(n):
                k = ntiles(buf[i])
                if k > most:
                    most = k
            j = 0
            for i in range(n):
                if ntiles(buf[i]) == most:
                    buf[j] = buf[i]
                    j += 1
            n = j
        if g.best:  # the hint must be one of the moves left: the best of them
            best = 0
            low = -1
            for i in range(n):
                m = buf[i]
                if m == g.best:
                    return n
                e = g.engine.expected(g.open_ & ~m, g.locked)
                if best == 0 or 0 <= e < low:
                    best = m
                    low = e
            g.best = best
        return n

# Rounds, formats, ties, stakes and the turn variants of the settings, for shutbox.game.
"""The game's settings beyond the standard single round: ``Match(game)``, made by the game
only when a setting needs it (format, tie, stakes, same-throws, unlucky-7, to-go,
most-tiles or two-tiles not at their defaults), so the standard game keeps its RAM.

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
  other players (one die is not offered: setfile.rules); a throw beyond the recorded ones is
  made and recorded by whoever gets there first.
* unlucky-7: a throw of 7 ends the turn at once, unplayed; the open tiles score as usual.
* to-go: on the first throw only moves that shut the 2 (or the 3) are legal; a first throw
  with none (a 4; a 2 in 3-to-go) ends the turn at once with nothing shut: the worst score.
* most-tiles: a throw must shut as many tiles as the longest legal move does.
* two-tiles: a move shuts at most two tiles (a throw whose every move is longer ends the
  turn); the hints and the hard computer then choose among the moves left by the standard
  game's expected score (the engine's tables), not the exact optimum under the limit.
(open-box is the game's mirrored levels, ``Game.inv``.)
A player who resigns (shutbox.turn) leaves the round and the match; when every player of a
round has resigned the game ends there, a draw between every seat (``winner``).

A power cut loses nothing: ``save``/``load`` put the match into the snapshot of
shutbox.resume (its layout is resume.VERSION's).
"""

from micropython import const
from shutbox import frame as fr
from shutbox.game import tiles_of

# The values of the settings played here (shutbox.settings: format, tie, to-go, stakes);
# private: the firmware compares the settings' ints (setnames has the names).
_FORMAT_ONE_ROUND = const(0)  # every player one turn, the lowest score wins
_FORMAT_3_ROUNDS = const(1)  # three rounds added up, the lowest total wins
_FORMAT_5_ROUNDS = const(2)  # five rounds added up
_FORMAT_OUT_AT_45 = const(3)  # rounds until one player is left: a total of 45 or more is out
_FORMAT_TO_100 = const(4)  # rounds until a total reaches 100: then the lowest total wins
_OUT_AT = const(45)
_GAME_TO = const(100)
_TIE_SHARE = const(0)  # the tied players share the win
_TIE_ROLL_OFF = const(1)  # each tied player throws one die, the lowest wins; ties throw again
_TO_GO_OFF = const(0)
_TO_GO_2 = const(1)  # the first throw must shut the 2 (bit 1); one that cannot (a 4) ends it
_TO_GO_3 = const(2)  # the first throw must shut the 3 (bit 2); one that cannot (a 2) ends it
_STAKES_OFF = const(0)
_STAKES_CANOGA = const(1)  # each round every loser pays the winner the difference, x2 if shut

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_MAX = const(4)  # seats at the box
_GAME_END = const(5)  # a state
_ROLLOFF = const(6)  # a state: the tied players throw one die each (tie rule roll-off)
# the dice: (frequency / 10 Hz, duration / 10 ms) pairs
_SND_DIE = const(b"\x64\x03\x00\x02\x64\x03")
_ACTIVE = const(1)  # Match.st: players still in (out-at-45 drops them, and resigning)
_IN_ROUND = const(2)  # Match.st: players taking a turn in this round
_SND_WIN = const(b"\x4e\x0c\x4e\x0c\x4e\x0c\x69\x28")  # the winner's tune
_TIE_REPLAY = const(2)  # settings.tie: replay (one more round for the tied, its lowest wins)
# END consts

# Match.st: the match's small state, a byte each (saved as it is by save()).
_FIRST = const(0)  # the seat that plays first this round (it moves one seat a round)
# _ACTIVE (1: players still in) and _IN_ROUND (2: players taking a turn in this round) are
# in the constants' block: shutbox.turn drops a player who resigns from both
_RSHUT = const(3)  # players who shut the box this round
_TIED = const(4)  # players in the roll-off ...
_ROLLER = const(5)  # ... and the one throwing (or who threw last)
_DIES = const(6)  # 4 bytes: the roll-off dice (0: not thrown yet)
_SEQ_N = const(10)  # same-throws: the throws recorded this round ...
_SEQ = const(11)  # ... 16 bytes: a << 3 | b per throw (a turn has at most tiles + 1 <= 13)
_SEQ_MAX = const(16)
_ST = const(27)
_NUMBERS = const(28)  # save(): round, tiebreak (2 bytes each), the turn scores (4 x 6 bytes)
_BALANCES = const(28)  # save(), with stakes: the balances (4 x 7 bytes, two's complement)


class Match:
    """Rounds, formats, ties, stakes and turn variants of one game (see the module doc)."""

    def __init__(self, game):
        """Make the buffers once; *game* is the shutbox.game.Game this match drives."""
        self.game = game
        self.rscores = [0] * _MAX
        self.balance = [0] * _MAX
        self.st = bytearray(_ST)  # the small state (_FIRST ... _SEQ)
        self.round = 0
        self.tiebreak = 0  # replay rounds played for a tie

    def new(self, now, who=0):
        """Start a round for the players in the mask *who*, from seat ``st[_FIRST]``; *who* 0:
        the first round of a new game (Game.new_game), for every player."""
        g = self.game
        st = self.st
        if not who:
            for i in range(_ST):
                st[i] = 0
            for p in range(_MAX):
                self.balance[p] = 0
            self.round = 0
            self.tiebreak = 0
            who = (1 << g.players) - 1
            st[_ACTIVE] = who
        if not self.tiebreak:
            self.round += 1
        st[_IN_ROUND] = who
        st[_RSHUT] = 0
        st[_SEQ_N] = 0
        g.played = 0
        for p in range(_MAX):
            self.rscores[p] = 0
        g.log.append({"ev": "round", "round": self.round, "tiebreak": self.tiebreak,
                      "players": tiles_of(who)})
        p = st[_FIRST]  # the first of them from that seat on
        while not who >> p & 1:
            p = (p + 1) % g.players
        g.start_turn(p, now)

    def scored(self, p, score, shut):
        """Player *p*'s turn ended with *score* (the end of Game.accept)."""
        self.rscores[p] = score
        if not self.tiebreak:  # a tie-break round decides a tie; it adds nothing to totals
            self.game.scores[p] += score
        if shut:
            self.st[_RSHUT] |= 1 << p

    def after_turn(self, now):
        """Roll after a turn's score: the next turn, the next round, or the end."""
        g = self.game
        st = self.st
        n = g.players
        nxt = -1  # the next player of the round to take a turn (from seat st[_FIRST])
        left = 0 if g.over else st[_IN_ROUND] & ~g.played
        for i in range(n):
            p = (st[_FIRST] + i) % n
            if left >> p & 1:
                nxt = p
                break
        g.log.append({"ev": "turn_end", "player": g.player + 1, "next": nxt + 1})
        if nxt >= 0:
            g.start_turn(nxt, now)
            return
        s = g.settings
        who = st[_IN_ROUND]
        if s.stakes and not self.tiebreak:  # Canoga stakes for the round (the module doc)
            rs = self.rscores
            start = g.engine.score(g.engine.start_open)
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
                    k = 2 if st[_RSHUT] >> w & 1 else 1
                    for q in range(n):
                        if who >> q & 1 and rs[q] != low:
                            pay = (rs[q] - low) * k
                            bal[q] -= pay
                            bal[w] += pay
            g.log.append({"ev": "stakes", "round": self.round, "balance": bal[:n]})
        if g.over:  # shut-wins: the player who shut the box wins, whatever the totals
            self.winner(st[_RSHUT], g.scores, now)  # (the only one: the game ended there)
            return
        if not who:  # every player of the round resigned (shutbox.turn): a draw, all seats
            self.winner((1 << n) - 1, g.scores, now)
            return
        if self.tiebreak:
            self.winner(who, self.rscores, now)
            return
        fmt = s.format
        last = True
        if fmt == _FORMAT_3_ROUNDS or fmt == _FORMAT_5_ROUNDS:
            last = self.round >= (3 if fmt == _FORMAT_3_ROUNDS else 5)
        elif fmt >= _FORMAT_OUT_AT_45:  # the players of the round at 45 (100) or more
            out = 0
            for p in range(n):
                if who >> p & 1 and g.scores[p] >= (_OUT_AT if fmt == _FORMAT_OUT_AT_45
                                                    else _GAME_TO):
                    out |= 1 << p
            last = out != 0  # to-100: the round in which a total reached 100 was the last
            if fmt == _FORMAT_OUT_AT_45:  # they are out
                left = st[_ACTIVE] & ~out
                st[_ACTIVE] = left
                if out:
                    g.log.append({"ev": "out", "players": tiles_of(out)})
                # the last one left wins; if the last all went out together, the lowest total
                last = left == 0 or (left & (left - 1) == 0 and n > 1)
                who = left if left else out
        if last:
            self.winner(who, g.scores, now)
        else:
            st[_FIRST] = (st[_FIRST] + 1) % n
            self.new(now, st[_ACTIVE])

    def winner(self, mask, scores, now):
        """The lowest of *scores* among the players in *mask* wins; a tie as the tie rule says
        (from ROLLOFF, *scores* are the dice: a tie throws again). The game ends there, or
        goes on with a tie-break round or a roll-off. With nobody left in the round (every
        player resigned) the game ends in a draw between all of *mask*, its score the lowest."""
        g = self.game
        low = -1
        for p in range(_MAX):
            if mask >> p & 1 and (low < 0 or scores[p] < low):
                low = scores[p]
        best = 0
        tie = self.st[_IN_ROUND]  # 0: every player of the round resigned, *mask* all draw
        for p in range(_MAX):
            if mask >> p & 1 and (scores[p] == low or not tie):
                best |= 1 << p
        tie = g.settings.tie if best & (best - 1) and tie else _TIE_SHARE
        if tie == _TIE_REPLAY:
            self.tiebreak += 1
            self.new(now, best)
        elif tie == _TIE_ROLL_OFF:  # a roll-off among them, with no dice yet
            st = self.st
            st[_TIED] = best
            p = 0
            while not best >> p & 1:
                p += 1
            st[_ROLLER] = p
            for p in range(_MAX):
                st[_DIES + p] = 0
            if g.state != _ROLLOFF:
                g.log.append({"ev": "rolloff", "players": tiles_of(best)})
            g.enter(_ROLLOFF, now)  # (again: a new state for shutbox.resume to save)
        else:  # the game is over: the players in *best* won
            g.winners = best
            p = 0
            while p < _MAX - 1 and not best >> p & 1:
                p += 1
            g.best_score = low if scores is g.scores else g.scores[p]  # (a draw: the lowest)
            g.page = 0
            rec = {"ev": "winner", "players": tiles_of(best), "score": g.best_score,
                   "scores": g.scores[:g.players], "tie": best & (best - 1) != 0,
                   "rounds": self.round}
            if g.settings.stakes:
                rec["balance"] = self.balance[:g.players]
            g.log.append(rec)
            g.melody(_SND_WIN)
            g.enter(_GAME_END, now)

    def press(self, now):
        """Roll in ROLLOFF: the next tied player throws; after the last, the lowest die wins."""
        g = self.game
        st = self.st
        tied = st[_TIED]
        for p in range(_MAX):
            if tied >> p & 1 and not st[_DIES + p]:
                st[_ROLLER] = p
                d = g.dice.roll()
                st[_DIES + p] = d
                g.log.append({"ev": "rolloff_die", "player": p + 1, "die": d})
                g.melody(_SND_DIE)
                g.enter(_ROLLOFF, now)  # the die stands: saved (shutbox.resume) as it shows
                return
        self.winner(tied, st[_DIES:_DIES + _MAX], now)

    def render(self, f, now):
        """ROLLOFF: the tied players' tiles blink; die A the thrower, die B their die."""
        g = self.game
        st = self.st
        n = g.engine.tiles
        fr.tiles_mask(f, st[_TIED], fr.MAGENTA if fr.blink(now, g.t_state) else fr.OFF)
        p = st[_ROLLER]
        fr.die(f, n, 0, p + 1, fr.MAGENTA)
        fr.die(f, n, 1, st[_DIES + p], fr.WHITE)

    # ----- the turn variants -----

    def replay(self, one):
        """Same throws: the round's recorded throw, or a new one, recorded (Game.throw)."""
        g = self.game
        st = self.st
        i = g.throws
        if i < st[_SEQ_N]:
            g.a = st[_SEQ + i] >> 3
            g.b = st[_SEQ + i] & 7
            return
        g.a = g.dice.roll()
        g.b = 0 if one else g.dice.roll()
        if i < _SEQ_MAX:
            st[_SEQ + i] = g.a << 3 | g.b
            st[_SEQ_N] = i + 1

    def moves(self):
        """Apply unlucky-7, to-go, two-tiles and most-tiles to the throw's legal moves; return
        how many."""
        g = self.game
        s = g.settings
        n = g.moves
        if s.unlucky7 and g.a + g.b == 7:
            g.log.append({"ev": "rule", "rule": "unlucky-7", "player": g.player + 1})
            return 0
        buf = g.legal
        need = 1 << s.to_go if s.to_go and g.throws == 1 else 0  # tile 2 is bit 1 (_TO_GO_2)
        if need:
            j = 0
            for i in range(n):
                if buf[i] & need:
                    buf[j] = buf[i]
                    j += 1
            if j == 0:
                g.log.append({"ev": "rule", "rule": "%d-to-go" % (s.to_go + 1),  # 2-, 3-to-go
                              "player": g.player + 1})
            n = j
        if s.most_tiles or s.two_tiles:  # one pass: the moves of at most two tiles
            most = 0  # (two-tiles), then those of the most tiles (most-tiles), in order
            j = 0
            for i in range(n):
                m = buf[i]
                k = 0
                while m:
                    m &= m - 1
                    k += 1
                if k > 2 and s.two_tiles:
                    continue
                if k > most and s.most_tiles:  # longer than any so far: drop those kept
                    most = k
                    j = 0
                if k == most or not s.most_tiles:
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

    # ----- the game in progress across a power cut (shutbox.resume) -----

    def save(self, buf, i):
        """Write the match into *buf* from *i* (shutbox.resume.snapshot); return the end.

        Layout: the round and the tie-break count (2 bytes each), the round's turn scores
        (4 x 6 bytes), with stakes the balances (4 x 7 bytes, two's complement), then ``st``
        up to the last recorded throw (all little-endian): at most 83 bytes.
        """
        st = self.st
        buf[i:i + 2] = (self.round & 0xFFFF).to_bytes(2, "little")
        buf[i + 2:i + 4] = (self.tiebreak & 0xFFFF).to_bytes(2, "little")
        i += 4
        for p in range(_MAX):
            buf[i:i + 6] = self.rscores[p].to_bytes(6, "little")
            i += 6
        if self.game.settings.stakes:
            for p in range(_MAX):
                buf[i:i + 7] = (self.balance[p] % (1 << 56)).to_bytes(7, "little")
                i += 7
        n = _SEQ + st[_SEQ_N]
        buf[i:i + n] = st[:n]
        return i + n

    def load(self, data, state):
        """Continue the match save() wrote (*data*: exactly its bytes; *state*: the game's
        saved state). Return False, changing nothing, if it cannot be a match of this game."""
        g = self.game
        k = _NUMBERS + (_BALANCES if g.settings.stakes else 0)
        n = len(data)
        if n < k + _SEQ or n != k + _SEQ + data[k + _SEQ_N]:
            return False
        st = data[k:]
        n = g.players
        tied = st[_TIED]
        if (st[_SEQ_N] > _SEQ_MAX or st[_FIRST] >= n or st[_ROLLER] >= n
                or (st[_ACTIVE] | st[_IN_ROUND] | st[_RSHUT] | tied) >> n):
            return False
        if state == _ROLLOFF and not (tied & (tied - 1) and tied >> st[_ROLLER] & 1):
            return False  # a roll-off is between two players or more, the thrower among them
        for p in range(_MAX):
            if st[_DIES + p] > 6:
                return False
        for j in range(st[_SEQ_N]):
            if not 0 < st[_SEQ + j] >> 3 < 7 or st[_SEQ + j] & 7 > 6:
                return False
        self.round = int.from_bytes(data[0:2], "little")
        self.tiebreak = int.from_bytes(data[2:4], "little")
        for p in range(_MAX):
            self.rscores[p] = int.from_bytes(data[4 + 6 * p:10 + 6 * p], "little")
            v = 0
            if k > _NUMBERS:  # the balances: 7 bytes, two's complement
                v = int.from_bytes(data[_NUMBERS + 7 * p:_NUMBERS + 7 * p + 7], "little")
                if v >> 55:
                    v -= 1 << 56
            self.balance[p] = v
        self.st[:len(st)] = st
        return True

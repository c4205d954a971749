# The game on the box: a pure state machine from tile levels and Roll presses to LEDs and a log.
"""Shut the Box for 1 to 4 players taking turns on one box, with no I/O.

Inputs: ``tiles_changed(levels, now)`` (debounced tile levels, bit set = open),
``roll(long, now)`` (a Roll press) and ``tick(now)`` (time passing). Outputs: ``render(now)``
fills ``frame`` (palette codes, see shutbox.frame), ``a``/``b`` are the dice, ``sound`` is the
latest melody request (``sound_seq`` counts requests) and ``log`` collects game-log records
(dicts) for the app to print as JSON lines. ``now`` always comes from the caller's clock.

The box never trusts a tile event alone: it compares the tile *levels* with its model of the
box (``open_``), so a missed or repeated event cannot corrupt a game. A turn:

* SETUP: the next player's number shows on die A; tiles not in the start position blink
  amber until they are (all open in the standard game).
* READY: Roll throws two dice; a long press throws one die where the rules allow it (die B's
  centre pip blinks amber then). A tile shut or reopened before the throw blinks red and the
  throw is refused until it is put back.
* ROLLING: a short dice animation, then the throw is shown and the turn ends if it cannot be
  played.
* MOVE: the tiles that can take part in a legal move are lit; tiles the player shuts turn
  green; as soon as they form a legal move it is accepted (a move that a longer legal move
  could still extend, possible only in some variants, is accepted after a pause or on Roll).
  Shutting too much, a set no legal move contains, or reopening a tile shut earlier in the
  turn blinks the offending tiles red until it is undone.
* TURN_END: the score (shutting the box first gets a celebration), until Roll passes the
  box on. GAME_END: the winner (or the tied players), then Roll steps through every
  player's score; a long press starts a new game.

The computer opponent (shutbox.computer, loaded only when the setting is on) plays its seat
through this same machine: its turn feeds virtual tile levels through the same checks while
the box's own tiles (``phys``) wait. ``Settings.hints`` chooses what the MOVE state lights;
best-move hints and the post-turn analysis come from shutbox.coach (loaded only for them).
"""

from array import array

from micropython import const
from shutbox import forget
from shutbox import frame as fr
from shutbox.engine import MAX_MOVES, tile_sum

# Hints (what the MOVE state lights) and Settings live in shutbox.settings (importable from
# here as before); rounds, formats, ties, stakes and the turn variants in shutbox.rounds.
from shutbox.settings import HINT_BEST, HINT_LEGAL, HINT_OFF, Settings  # noqa: F401
from shutbox.ticks import ticks_diff

_MAX_PLAYERS = const(4)
_MODE_LOCKED = const(1)  # shutbox.variants (private: no module globals; see test_memory)
_MODE_FORCED = const(2)

# States.
SETUP = const(0)
READY = const(1)
ROLLING = const(2)
MOVE = const(3)
TURN_END = const(4)
GAME_END = const(5)
ROLLOFF = const(6)  # the tied players throw one die each (tie rule roll-off; shutbox.rounds)

# What is wrong with the tiles (shown in red, or amber for SETUP).
ERR_NONE = const(0)
ERR_SETUP = const(1)  # not in the start position yet (not a mistake: just open them)
ERR_EARLY = const(2)  # a tile was shut before the throw
ERR_REOPENED = const(3)  # a tile shut earlier this turn was reopened
ERR_TOO_HIGH = const(4)  # the tiles shut since the throw add up to more than it
ERR_NOT_LEGAL = const(5)  # no legal move contains the tiles shut since the throw
ERR_NAMES = ("none", "setup", "early", "reopened", "too-high", "not-legal")

_ROLL_MS = const(600)  # dice animation
_ANIM_MS = const(70)  # one animation frame
_FLASH_MS = const(500)  # accepted tiles flash green
_SETTLE_MS = const(1500)  # an extendable legal move is accepted after this pause
_LABEL_MS = const(1000)  # in a score view: the player's number ...
_CYCLE_MS = const(3000)  # ... then the number, repeating
_CYCLE2_MS = const(5000)  # ... or the number, then a second one (a total, a balance)
_SND_WIN = b"\x4e\x0c\x4e\x0c\x4e\x0c\x69\x28"
_CELEBRATE_MS = const(3000)  # shut-the-box celebration before the score
_MIN_SHOW_MS = const(700)  # a score stays at least this long before Roll passes the box

# Melodies: (frequency / 10 Hz, duration / 10 ms) pairs; frequency 0 is a rest.
_SND_ROLL = b"\x64\x03\x00\x02\x64\x03"
_SND_ACCEPT = b"\x58\x05\x75\x08"
_SND_ERROR = b"\x14\x19"
_SND_NO = b"\x1e\x0a"
_SND_TURN = b"\x4e\x0a\x41\x0a\x34\x14"
_SND_SHUT = b"\x34\x0c\x42\x0c\x4e\x0c\x69\x1e\x00\x05\x69\x08\x83\x28"


def tiles_of(mask):
    """Return the tile numbers of *mask* as a list (for log records)."""
    out = []
    k = 1
    while mask:
        if mask & 1:
            out.append(k)
        mask >>= 1
        k += 1
    return out


class Game:
    """One box, 1 to 4 players; rounds, formats and ties as the settings say (shutbox.rounds)."""

    def __init__(self, engine, dice, settings, levels, now):
        """Start a new game; *levels* are the tiles as they are now."""
        self.engine = engine
        self.rules = engine.rules
        self.tiles = engine.tiles
        self.dice = dice
        self.settings = settings
        # Open the Box: tiles start shut and are opened. The game plays it as the standard
        # game on mirrored levels (a tile *down* is one still to play), so every rule, hint
        # and table applies unchanged and the score is the tiles still face down.
        self.inv = engine.full if settings.open_box else 0
        self.frame = bytearray(fr.size(self.tiles))
        self.scores = [0] * _MAX_PLAYERS  # running totals (one round: the turn's score)
        self.log = []
        self.sound = b""
        self.sound_seq = 0
        self.levels = (levels ^ self.inv) & engine.full
        self._buf = array("H", [0] * MAX_MOVES)
        self._n = 0
        self.a = 0
        self.b = 0
        self.best = 0
        self.best_score = 0
        self.hint = 0
        self._anim = 0
        self._pending = False
        self._pending_at = now
        self._shut = 0
        self.state = SETUP
        self.t_state = now
        self.err = ERR_NONE
        self.err_mask = 0
        self.err_since = now
        self.transitions = 0  # counts state entries: shutbox.resume saves on a change
        self.phys = self.levels  # the box's own tiles (a computer's turn plays on virtual ones)
        self.cpu = None  # shutbox.computer: the computer's seat, when the setting is on
        self.coach = None  # shutbox.coach: best-move hints and the post-turn analysis
        if settings.computer:
            from shutbox.computer import Computer

            self.cpu = Computer(self, settings.computer)
        if settings.hints == HINT_BEST:
            from shutbox.coach import Coach

            self.coach = Coach(self)
        # Rounds, formats, ties, stakes and turn variants: only when a setting needs them.
        self.match = None
        s = settings
        if (s.format or s.tie or s.stakes or s.same_throws or s.unlucky7 or s.to_go
                or s.most_tiles):
            from shutbox.rounds import Match

            self.match = Match(self)
        self.new_game(now)

    # ----- inputs -----

    def new_game(self, now):
        """Forget every score; player 1 sets the box up."""
        self.players = self.settings.players if self.cpu is None else self.cpu.players
        for i in range(_MAX_PLAYERS):
            self.scores[i] = 0
        self.played = 0  # bit p: player p+1 has finished a turn
        self.winners = 0
        self.page = 0
        self.over = False
        r = self.rules
        from shutbox import variants as v  # the names, for the log only: not kept in RAM

        self.log.append({
            "ev": "game", "players": self.players, "tiles": self.tiles,
            "rules": {"one-die": v.ONE_DIE[r.one_die],
                      "one-die-mode": v.ONE_DIE_MODE[r.one_die_mode],
                      "moves": v.MOVES[r.moves], "scoring": v.SCORING[r.scoring],
                      "start": v.START[r.start]},
        })
        del v
        forget("variants")
        if self.cpu is not None:  # the seats the computer plays
            self.log[-1]["computer"] = tiles_of(self.cpu.seats)
        if self.match is not None:
            self.match.new(now)
        else:
            self._start_turn(0, now)

    def tiles_changed(self, levels, now):
        """Take new debounced tile levels (bit set = open; mirrored for Open the Box)."""
        self.phys = (levels ^ self.inv) & self.engine.full
        if self.cpu is not None and self.cpu.virtual():
            return  # the computer plays on virtual tiles: the box's own wait for the next turn
        self.levels = self.phys
        self._check(now)

    def roll(self, long, now):
        """Take a Roll press: short (long=False) or long (held)."""
        st = self.state
        if self.cpu is not None and self.cpu.playing():
            self._sound(_SND_NO)  # the computer's turn: it throws by itself
            return
        if st == SETUP or st == READY:
            if self.err:
                self._sound(_SND_NO)
                self.log.append({"ev": "refused", "player": self.player + 1,
                                 "why": ERR_NAMES[self.err], "tiles": tiles_of(self.err_mask)})
                return
            self._throw(long, now)
        elif st == MOVE:
            if self._pending:
                self._accept(self._shut, now)
                if self.state == READY:
                    self._throw(long, now)
            else:
                self._sound(_SND_NO)
        elif st == TURN_END:
            if ticks_diff(now, self.t_state) < _MIN_SHOW_MS:
                return
            if self.match is not None:
                self.match.after_turn(now)  # the next turn, round, or the end
                return
            last = self.over or self.player + 1 >= self.players
            self.log.append({"ev": "turn_end", "player": self.player + 1,
                             "next": 0 if last else self.player + 2})
            if last:
                self._end_game(now)
            else:
                self._start_turn(self.player + 1, now)
        elif st == ROLLOFF and self.match is not None:
            if ticks_diff(now, self.t_state) >= _MIN_SHOW_MS:
                self.match.press(now)
        elif st == GAME_END:
            if long:
                self.new_game(now)
            else:
                self.page = (self.page + 1) % (self.players + 1)
                self.t_state = now

    def tick(self, now):
        """Let time pass: end the dice animation, accept a settled move."""
        st = self.state
        if st == ROLLING:
            if ticks_diff(now, self.t_state) >= _ROLL_MS:
                self._reveal(now)
        elif st == MOVE:
            if self._pending and ticks_diff(now, self._pending_at) >= _SETTLE_MS:
                self._accept(self._shut, now)
        if self.cpu is not None:
            self.cpu.tick(now)

    # ----- the turn -----

    def _start_turn(self, p, now):
        self.player = p
        self.levels = self.phys  # after a computer's turn: the box's own tiles again
        self.open_ = self.engine.start_open
        self.locked = False
        self.throws = 0
        self.last_move = 0
        self.t_move = now
        self.shut_box = False
        self.score = 0
        self._pending = False
        self._shut = 0
        self._enter(SETUP, now)
        self.log.append({"ev": "turn", "player": p + 1, "open": tiles_of(self.open_)})
        if self.coach is not None:
            self.coach.turn()  # the score to beat, if there is one

    def _enter(self, state, now):
        self.state = state
        self.transitions = (self.transitions + 1) & 0xFFFF
        self.t_state = now
        self.err = ERR_NONE
        self.err_mask = 0
        self.err_since = now
        self._check(now)

    def one_die_choice(self):
        """Return 0 (two dice), 1 (one die only on a long press) or 2 (one die forced)."""
        if not self.engine.one_die_allowed(self.open_):
            return 0
        mode = self.rules.one_die_mode
        if mode == _MODE_FORCED or (mode == _MODE_LOCKED and self.locked):
            return 2
        return 1

    def _throw(self, long, now):
        if self.coach is not None:
            self.coach.dice(long)  # the analysis of a free one-die choice
        choice = self.one_die_choice()
        one = choice == 2 or (choice == 1 and long)
        if one and self.rules.one_die_mode == _MODE_LOCKED:
            self.locked = True
        if self.settings.same_throws and self.match is not None:
            self.match.replay(one)
        else:
            self.a = self.dice.roll()
            self.b = 0 if one else self.dice.roll()
        self.throws += 1
        self._anim = now & 0xFF
        self._sound(_SND_ROLL)
        self._enter(ROLLING, now)

    def _reveal(self, now):
        a = self.a
        b = self.b
        self._n = self.engine.legal_into(self.open_, a, b, self._buf)
        self.best = 0
        if self._n and self.coach is not None:
            self.best = self.coach.best()  # for the lowest expected score, or to beat a score
        if self._n and self.match is not None:
            self._n = self.match.moves()  # unlucky-7, to-go, most-tiles
        self.log.append({"ev": "throw", "player": self.player + 1, "dice": self._dice(),
                         "total": a + b, "open": tiles_of(self.open_), "moves": self._n})
        if self._n == 0:
            self._end_turn(now)
        else:
            self._pending = False
            self._enter(MOVE, now)

    def _accept(self, mask, now):
        if self.coach is not None:
            self.coach.move(mask)  # the analysis of the move
        self.open_ &= ~mask
        self.last_move = mask
        self.t_move = now
        self._pending = False
        self.log.append({"ev": "move", "player": self.player + 1, "dice": self._dice(),
                         "shut": tiles_of(mask), "open": tiles_of(self.open_)})
        if self.open_ == 0:
            self._end_turn(now)
        else:
            self._sound(_SND_ACCEPT)
            self._enter(READY, now)

    def _end_turn(self, now):
        p = self.player
        self.score = self.engine.score(self.open_)
        self.shut_box = self.open_ == 0
        if self.match is not None:
            self.match.scored(p, self.score, self.shut_box)  # totals, round scores
        else:
            self.scores[p] = self.score
        self.played |= 1 << p
        if self.shut_box and self.settings.shut_wins:
            self.over = True
        self.log.append({"ev": "score", "player": p + 1, "score": self.score,
                         "open": tiles_of(self.open_), "shut_box": self.shut_box,
                         "throws": self.throws, "total": self.scores[p]})
        if self.coach is not None:
            self.coach.end(self.log[-1])  # how many choices fell short, and their cost
        self._sound(_SND_SHUT if self.shut_box else _SND_TURN)
        self._enter(TURN_END, now)

    def _end_game(self, now):
        best = -1
        for p in range(self.players):
            if self.played & (1 << p) and (best < 0 or self.scores[p] < best):
                best = self.scores[p]
        self.winners = 0
        for p in range(self.players):
            if self.played & (1 << p) and self.scores[p] == best:
                self.winners |= 1 << p
        self.best_score = best
        self.page = 0
        self.log.append({"ev": "winner", "players": tiles_of(self.winners), "score": best,
                         "scores": self.scores[:self.players],
                         "tie": self.winners & (self.winners - 1) != 0})
        self._sound(_SND_WIN)
        self._enter(GAME_END, now)

    # ----- the game in progress across a power cut (layout in shutbox.resume) -----

    def snapshot(self):
        """Return the game as a compact, versioned bytearray (shutbox.resume.snapshot)."""
        from shutbox import resume

        return resume.snapshot(self)

    def restore(self, data, now):
        """Continue the game saved by snapshot(); return True, or False (nothing changed)."""
        from shutbox import resume

        return resume.restore(self, data, now) == 0

    # ----- checking the tiles against the model -----

    def _check(self, now):
        st = self.state
        lv = self.levels
        full = self.engine.full
        if st == SETUP:
            diff = (lv ^ self.open_) & full
            self._set_err(ERR_SETUP if diff else ERR_NONE, diff, now)
        elif st == READY:
            reopened = lv & ~self.open_ & full
            early = self.open_ & ~lv
            if reopened:
                self._set_err(ERR_REOPENED, reopened, now)
            elif early:
                self._set_err(ERR_EARLY, early, now)
            else:
                self._set_err(ERR_NONE, 0, now)
        elif st == MOVE:
            self._check_move(now)

    def _check_move(self, now):
        lv = self.levels
        reopened = lv & ~self.open_ & self.engine.full
        shut = self.open_ & ~lv  # tiles open at the throw that are shut now
        self._shut = shut
        self._pending = False
        if reopened:
            self._set_err(ERR_REOPENED, reopened, now)
            return
        exact = False
        wider = 0  # every legal move that contains the tiles shut so far
        buf = self._buf
        for i in range(self._n):
            m = buf[i]
            if m & shut == shut:
                if m == shut:
                    exact = True
                else:
                    wider |= m
        if not exact and not wider:
            too_high = tile_sum(shut) > self.a + self.b
            self._set_err(ERR_TOO_HIGH if too_high else ERR_NOT_LEGAL, shut, now)
            return
        self._set_err(ERR_NONE, 0, now)
        self.hint = wider & ~shut
        if exact:
            if wider:
                self._pending = True
                self._pending_at = now
            else:
                self._accept(shut, now)

    def _set_err(self, kind, mask, now):
        if kind != self.err:
            self.err = kind
            self.err_since = now
            if kind != ERR_NONE and kind != ERR_SETUP:
                self._sound(_SND_ERROR)
                self.log.append({"ev": "error", "player": self.player + 1, "why": ERR_NAMES[kind],
                                 "tiles": tiles_of(mask)})
        self.err_mask = mask

    # ----- outputs -----

    def _dice(self):
        return [self.a, self.b] if self.b else [self.a]

    def _sound(self, melody):
        self.sound = melody
        self.sound_seq = (self.sound_seq + 1) & 0xFFFF

    def render(self, now):
        """Fill and return ``frame`` for the time *now* (allocates nothing)."""
        f = self.frame
        n = self.tiles
        st = self.state
        fr.clear(f)
        if st == SETUP or st == READY or st == ROLLING:
            fr.tiles_mask(f, self.open_ & self.levels, fr.WHITE)
            if self.err:
                on = fr.blink(now, self.err_since)
                fr.tiles_mask(f, self.err_mask, (fr.AMBER if st == SETUP else fr.RED)
                              if on else fr.OFF)
            if st == READY and ticks_diff(now, self.t_move) < _FLASH_MS:
                fr.tiles_mask(f, self.last_move, fr.GREEN)
            if st == ROLLING:
                t = ticks_diff(now, self.t_state) // _ANIM_MS + self._anim
                fr.die(f, n, 0, (t * 5) % 6 + 1, fr.WHITE)
                if self.b:
                    fr.die(f, n, 1, (t * 7 + 3) % 6 + 1, fr.WHITE)
            else:
                if st == SETUP:
                    fr.die(f, n, 0, self.player + 1, fr.MAGENTA)
                if self.one_die_choice() == 1 and fr.blink(now, self.t_state):
                    fr.pip(f, n, 1, 3, fr.CYAN if self.coach is not None and
                           self.coach.one_die() else fr.AMBER)
        elif st == MOVE:
            fr.die(f, n, 0, self.a, fr.WHITE)
            fr.die(f, n, 1, self.b, fr.WHITE)
            if self.err:
                on = fr.blink(now, self.err_since)
                fr.tiles_mask(f, self.err_mask, fr.RED if on else fr.OFF)
            else:
                hints = self.settings.hints
                if hints != HINT_OFF:
                    fr.tiles_mask(f, self.hint, fr.WHITE)
                if hints == HINT_BEST and self.best & self._shut == self._shut:
                    fr.tiles_mask(f, self.best & ~self._shut, fr.CYAN)
                if self._pending and not fr.fast(now, self._pending_at):
                    fr.tiles_mask(f, self._shut, fr.OFF)
                else:
                    fr.tiles_mask(f, self._shut, fr.GREEN)
        elif st == TURN_END:
            t = ticks_diff(now, self.t_state)
            if self.shut_box and t < _CELEBRATE_MS:
                fr.chase(f, n, now, self.t_state)
            else:  # several rounds: then the running total, in white
                p = self.player
                m = self.match
                total = self.scores[p] if m is not None and self.settings.format and \
                    not m.tiebreak else -1
                view = now if self.coach is None else self.coach.view(f, now, total >= 0)
                if view >= 0:  # -1: the coach showed the count of choices that fell short
                    self._score_view(p + 1, self.score, fr.BLUE, view, total, fr.WHITE)
        elif st == GAME_END:
            if self.page == 0:
                self._winner_view(now)
            else:
                p = self.page - 1
                won = self.winners & (1 << p)
                if self.settings.stakes and self.match is not None:  # green won, red owes
                    bal = self.match.balance[p]
                    self._score_view(p + 1, self.scores[p], fr.GREEN if won else fr.BLUE,
                                     now, bal if bal >= 0 else -bal,
                                     fr.GREEN if bal >= 0 else fr.RED)
                else:
                    self._score_view(p + 1, self.scores[p], fr.GREEN if won else fr.BLUE, now)
        elif st == ROLLOFF and self.match is not None:
            self.match.render(f, now)
        if self.cpu is not None and self.cpu.playing():
            self.cpu.draw(f, now)
        return f

    def _score_view(self, p, score, code, now, more=-1, more_code=fr.WHITE):
        """The player's number, then *score* in *code*, then *more* (if >= 0), repeating."""
        f = self.frame
        t = ticks_diff(now, self.t_state) % (_CYCLE_MS if more < 0 else _CYCLE2_MS)
        if t < _LABEL_MS:
            fr.player(f, self.tiles, p, fr.MAGENTA)
        elif t < _CYCLE_MS:
            fr.number(f, self.tiles, score, code, now, self.t_state)
        else:
            fr.number(f, self.tiles, more, more_code, now, self.t_state)

    def _winner_view(self, now):
        f = self.frame
        n = self.tiles
        if ticks_diff(now, self.t_state) % _CYCLE_MS < _LABEL_MS:
            # who: the winners' tiles, and the first two winners' numbers on the dice
            fr.bar(f, n, 0, fr.OFF)
            fr.tiles_mask(f, self.winners, fr.GREEN if fr.fast(now, self.t_state) else fr.OFF)
            which = 0
            for p in range(self.players):
                if self.winners & (1 << p) and which < 2:
                    fr.die(f, n, which, p + 1, fr.GREEN)
                    which += 1
        else:
            fr.number(f, n, self.best_score, fr.GREEN, now, self.t_state)

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

Parts API: the game's parts (shutbox.computer, shutbox.rounds, shutbox.coach, shutbox.turn,
whose Game subclass also overrides check, roll, tick, render and would_throw for real dice)
and shutbox.resume call these methods of the game and no others (tests/firmware/test_parts.py
checks it, and that no module reads another's ``_private`` names):

* ``start_turn(p, now)``: player *p* (0-based) sets the box up for a turn;
* ``enter(state, now)``: a new state (``transitions`` counts them: shutbox.resume saves);
* ``throw(long, now)``: throw the dice (one die where *long* and the rules say so);
* ``accept(mask, now)``: play the legal move *mask*; 0: the throw cannot be played;
* ``check(now)``: compare ``levels`` with the model after they changed;
* ``melody(sound)``: play a melody (``sound``, counted in ``sound_seq``);
* ``one_die_choice()``, ``tiles_changed(levels, now)``: as for the app.

They read and set the game's fields, among them: ``legal`` (the throw's legal moves: the
first ``moves`` of them), ``shut`` (MOVE: the tiles shut since the throw; READY: the move
just accepted), ``pending`` (MOVE: they form a move a longer one could extend).
"""

from micropython import const
from shutbox import frame as fr
from shutbox.engine import tile_sum
from shutbox.frame import number

# Settings live in shutbox.settings (importable from here as before); rounds, formats, ties,
# stakes and the turn variants in shutbox.rounds.
from shutbox.settings import Settings  # noqa: F401
from shutbox.ticks import ticks_diff

# The rules' names for the "game" record (_RULE_NAMES) are one string, split when a game
# starts: shutbox.variants' tuples are not loaded (importing a module at every new game needs
# a heap the game has filled).
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_MODE_LOCKED = const(1)  # one-die-mode locked
_MODE_FORCED = const(2)  # one-die-mode forced
# per option its name and its values' names (the game log)
_RULE_NAMES = const("one-die never high-shut sum-le-6 sum-lt-6/one-die-mode optional locked "
                    "forced/moves any dice-or-total one-tile kids/scoring sum digital count/"
                    "start all-open low-three-shut odd-open even-open")
_MAX_MOVES = const(15)  # most legal moves of any throw (tablegen.max_moves(): test_tables)
_OFF = const(0)  # palette codes (shutbox.frame; keep them < 8): dark
_WHITE = const(1)  # open tiles, dice pips
_GREEN = const(2)  # accepted, progress, the winner
_RED = const(3)  # an error on the tiles
_AMBER = const(4)  # attention: open this tile, one die available
_BLUE = const(5)  # numbers: scores
_MAGENTA = const(6)  # a player's number
_CYAN = const(7)  # hints, the computer's moves, a challenge code's digits
_FAST_MS = const(100)  # shutbox.frame's fast blink (half-period)
_STATUS_MS = const(500)  # a waiting screen's 1 Hz blink (half-period; half LABEL_MS)
_MAX_PLAYERS = const(4)  # seats at the box
SETUP = const(0)  # game states (shutbox.game)
READY = const(1)  # a state
ROLLING = const(2)  # a state
MOVE = const(3)  # a state
TURN_END = const(4)  # a state
GAME_END = const(5)  # a state
_ROLLOFF = const(6)  # a state: the tied players throw one die each (tie rule roll-off)
_LABEL_MS = const(1000)  # a score view: the player's number this long ...
_CYCLE_MS = const(3000)  # a score view: its label, then its number, this long
_CYCLE2_MS = const(5000)  # a score view with a second number (a total, a balance)
_CODE_CYCLE_MS = const(7500)  # a score view, then a challenge's code (CYCLE_MS + CODE_VIEW_MS)
_LOG_VERSION = const(3)  # the log format's "v" (docs/log-format.md)
# the dice: (frequency / 10 Hz, duration / 10 ms) pairs
_SND_ROLL = const(b"\x64\x03\x00\x02\x64\x03")
_SND_NO = const(b"\x1e\x0a")  # the game's low "no" buzz
_ERR_NONE = const(0)  # Game.err: the tiles are as the game wants them
_ERR_SETUP = const(1)  # Game.err: a tile not in place yet (blinks amber, no mistake)
_SND_WIN = const(b"\x4e\x0c\x4e\x0c\x4e\x0c\x69\x28")  # the winner's tune
_HINT_OFF = const(0)  # hints (what the MOVE state lights): none
_HINT_BEST = const(2)  # hints: also the optimal move in cyan
# END consts

# What is wrong with the tiles (shown in red, or amber for SETUP): Game.err. Private: no
# module globals on the box; the tests read them as shutbox.game._ERR_* on CPython (none and
# setup, which shutbox.turn shares, are in the constants' block).
_ERR_EARLY = const(2)  # a tile was shut before the throw
_ERR_REOPENED = const(3)  # a tile shut earlier this turn was reopened
_ERR_TOO_HIGH = const(4)  # the tiles shut since the throw add up to more than it
_ERR_NOT_LEGAL = const(5)  # no legal move contains the tiles shut since the throw
# The error names for the log, split when one is logged: one string in RAM, not a tuple of six.
_ERR_NAMES = const("none setup early reopened too-high not-legal")
_ROLL_MS = const(600)  # dice animation
_FLASH_MS = const(500)  # accepted tiles flash green
_SETTLE_MS = const(1500)  # an extendable legal move is accepted after this pause
_CELEBRATE_MS = const(3000)  # shut-the-box celebration before the score
_MIN_SHOW_MS = const(700)  # a score stays at least this long before Roll passes the box


# Melodies: (frequency / 10 Hz, duration / 10 ms) pairs; frequency 0 is a rest.
_SND_ACCEPT = const(b"\x58\x05\x75\x08")
_SND_ERROR = const(b"\x14\x19")
_SND_TURN = const(b"\x4e\x0a\x41\x0a\x34\x14")
_SND_SHUT = const(b"\x34\x0c\x42\x0c\x4e\x0c\x69\x1e\x00\x05\x69\x08\x83\x28")


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


def parts(s):
    """Return the modules of the game's optional parts that the settings *s* need, of
    "computer", "coach" (best-move hints) and "rounds" (formats, ties, stakes and the turn
    variants, two-tiles among them). Game() imports them; shutbox.app.main loads them before
    the first game (and shutbox.turn for real dice and the time limit: the app makes its
    Game)."""
    out = []
    if s.computer:
        out.append("computer")
    if s.hints == _HINT_BEST:
        out.append("coach")
    if s.format or s.tie or s.stakes or s.same_throws or s.unlucky7 or s.to_go or \
            s.most_tiles or s.two_tiles:
        out.append("rounds")
    return out


class Game:
    """One box, 1 to 4 players; rounds, formats and ties as the settings say (shutbox.rounds)."""

    def __init__(self, engine, dice, settings, levels, now):
        """Start a new game; *levels* are the tiles as they are now."""
        self.engine = engine
        self.dice = dice
        self.settings = settings
        # Open the Box: tiles start shut and are opened. The game plays it as the standard
        # game on mirrored levels (a tile *down* is one still to play), so every rule, hint
        # and table applies unchanged and the score is the tiles still face down.
        self.inv = engine.full if settings.open_box else 0
        # The attributes new_game and the turn set, first: the instance's dict (the largest
        # block a start makes: 41 entries) grows to its size before the game's other blocks
        self.player = self.players = self.played = self.winners = self.page = 0
        self.open_ = self.throws = self.score = 0
        self.over = self.locked = self.shut_box = False
        self.sound = b""
        self.sound_seq = 0
        self.levels = (levels ^ self.inv) & engine.full
        self.moves = 0
        self.a = 0
        self.b = 0
        self.best = 0  # shutbox.coach's best move for the throw (best-move hints)
        self.best_score = 0
        self.hint = 0  # MOVE: tiles that can still complete a legal move (lit white)
        self.pending = False  # MOVE: the tiles shut form a move a longer one could extend
        self.shut = 0  # MOVE: the tiles shut since the throw; READY: the move just accepted
        self.state = SETUP
        self.t_state = now
        self.err = _ERR_NONE
        self.err_mask = 0
        # When the tiles' check last changed: an error began (its blink starts then), or an
        # extendable move became pending (it is accepted _SETTLE_MS later). Never both at once.
        self.since = now
        self.transitions = 0  # counts state entries: shutbox.resume saves on a change
        self.phys = self.levels  # the box's own tiles (a computer's turn plays on virtual ones)
        self.cpu = None  # shutbox.computer: the computer's seat, when the setting is on
        self.coach = None  # shutbox.coach: best-move hints and the post-turn analysis
        # Rounds, formats, ties, stakes and turn variants: only when a setting needs them.
        self.match = None
        self.frame = bytearray(fr.size(engine.tiles))
        self.tiles = engine.tiles  # render: one lookup, not two (its bytecode is RAM)
        self.scores = [0] * _MAX_PLAYERS  # running totals (one round: the turn's score)
        self.log = []
        from array import array  # a local name: no module global for one use

        self.legal = array("H", [0] * _MAX_MOVES)
        need = parts(settings)
        if "computer" in need:
            from shutbox.computer import Computer

            self.cpu = Computer(self, settings.computer)
        if "coach" in need:
            from shutbox.coach import Coach

            self.coach = Coach(self)
        if "rounds" in need:
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
        r = self.engine.rules
        vals = (r.one_die, r.one_die_mode, r.moves, r.scoring, r.start)
        names = _RULE_NAMES.split("/")
        rules = {}
        for i in range(5):  # each option: its name, then its values' names
            w = names[i].split()
            rules[w[0]] = w[1 + vals[i]]
        self.log.append({"ev": "game", "v": _LOG_VERSION, "players": self.players,
                         "tiles": self.tiles, "rules": rules})
        if self.dice.code >= 0:  # a challenge (shutbox.challenge): its code, logged
            self.log[-1]["code"] = "%04d" % self.dice.code
        if self.cpu is not None:  # the seats the computer plays
            self.log[-1]["computer"] = tiles_of(self.cpu.seats)
        if self.match is not None:
            self.match.new(now)
        else:
            self.start_turn(0, now)

    def tiles_changed(self, levels, now):
        """Take new debounced tile levels (bit set = open; mirrored for Open the Box)."""
        self.phys = (levels ^ self.inv) & self.engine.full
        if self.cpu is not None and self.cpu.playing() and self.state != SETUP:
            return  # the computer plays on virtual tiles: the box's own wait for the next turn
        self.levels = self.phys
        self.check(now)

    def roll(self, long, now):
        """Take a Roll press: short (long=False) or long (held)."""
        st = self.state
        if self.cpu is not None and self.cpu.playing():
            self.melody(_SND_NO)  # the computer's turn: it throws by itself
            return
        if self.err and (st == SETUP or st == READY or st == MOVE):
            self.melody(_SND_NO)  # a mistake shows: no throw until it is undone
            self.log.append({"ev": "refused", "player": self.player + 1,
                             "why": _ERR_NAMES.split()[self.err],
                             "tiles": tiles_of(self.err_mask)})
        elif st == SETUP or st == READY:
            self.throw(long, now)
        elif st == MOVE:
            if self.pending:
                self.accept(self.shut, now)
                if self.state == READY:
                    self.throw(long, now)
            else:
                self.melody(_SND_NO)
        elif st == TURN_END:
            if ticks_diff(now, self.t_state) < _MIN_SHOW_MS:
                return
            if self.match is not None:
                self.match.after_turn(now)  # the next turn, round, or the end
                return
            last = self.over or self.player + 1 >= self.players
            self.log.append({"ev": "turn_end", "player": self.player + 1,
                             "next": 0 if last else self.player + 2})
            if not last:
                self.start_turn(self.player + 1, now)
                return
            # The end of the game: the lowest score among the players who played wins.
            best = -1
            self.winners = 0
            for p in range(self.players):
                if self.played >> p & 1:
                    if best < 0 or self.scores[p] < best:
                        best = self.scores[p]
                        self.winners = 0
                    if self.scores[p] == best:
                        self.winners |= 1 << p
            self.best_score = best
            self.page = 0
            self.log.append({"ev": "winner", "players": tiles_of(self.winners), "score": best,
                             "scores": self.scores[:self.players],
                             "tie": self.winners & (self.winners - 1) != 0})
            self.melody(_SND_WIN)
            self.enter(GAME_END, now)
        elif st == _ROLLOFF and self.match is not None:
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
            if ticks_diff(now, self.t_state) >= _ROLL_MS:  # the dice land: show the throw
                a = self.a
                b = self.b
                self.moves = self.engine.legal_into(self.open_, a, b, self.legal)
                self.best = 0
                if self.moves and self.coach is not None:
                    self.best = self.coach.best()  # for the lowest expected score, or a target
                if self.moves and self.match is not None:
                    self.moves = self.match.moves()  # unlucky-7, to-go, most-tiles
                self.log.append({"ev": "throw", "player": self.player + 1,
                                 "dice": [a, b] if b else [a], "total": a + b,
                                 "open": tiles_of(self.open_), "moves": self.moves})
                if self.moves == 0:
                    self.accept(0, now)  # the throw cannot be played: the turn ends
                else:
                    self.enter(MOVE, now)
        elif st == MOVE:
            if self.pending and ticks_diff(now, self.since) >= _SETTLE_MS:
                self.accept(self.shut, now)
        if self.cpu is not None:
            self.cpu.tick(now)

    # ----- the turn -----

    def start_turn(self, p, now):
        self.player = p
        self.levels = self.phys  # after a computer's turn: the box's own tiles again
        self.open_ = self.engine.start_open
        self.locked = False
        self.throws = 0
        self.shut_box = False
        self.score = 0
        self.pending = False
        self.shut = 0
        self.enter(SETUP, now)
        self.log.append({"ev": "turn", "player": p + 1, "open": tiles_of(self.open_)})
        if self.coach is not None:
            self.coach.turn()  # the score to beat, if there is one

    def enter(self, state, now):
        self.state = state
        self.transitions = (self.transitions + 1) & 0xFFFF
        self.t_state = now
        self.err = _ERR_NONE
        self.err_mask = 0
        self.since = now
        self.check(now)

    def one_die_choice(self):
        """Return 0 (two dice), 1 (one die only on a long press) or 2 (one die forced)."""
        if not self.engine.one_die_allowed(self.open_):
            return 0
        mode = self.engine.rules.one_die_mode
        if mode == _MODE_FORCED or (mode == _MODE_LOCKED and self.locked):
            return 2
        return 1

    def throw(self, long, now):
        if self.coach is not None:
            self.coach.dice(long)  # the analysis of a free one-die choice
        choice = self.one_die_choice()
        one = choice == 2 or (choice == 1 and long)
        if one and self.engine.rules.one_die_mode == _MODE_LOCKED:
            self.locked = True
        if self.dice.code >= 0:  # a challenge code: this throw's own bytes
            self.dice.seek(self)
        if self.settings.same_throws and self.match is not None:
            self.match.replay(one)
        else:
            self.a = self.dice.roll()
            self.b = 0 if one else self.dice.roll()
        self.throws += 1
        self.melody(_SND_ROLL)
        self.enter(ROLLING, now)  # t_state (its low byte) also seeds the dice animation

    def accept(self, mask, now):
        """Play the legal move *mask*; end the turn when it shut the box, or at once when
        *mask* is 0 (no legal move for the throw: a move is never empty)."""
        if mask:
            if self.coach is not None:
                self.coach.move(mask)  # the analysis of the move
            self.open_ &= ~mask  # mask is shut: in READY it flashes green, the move just made
            self.pending = False
            self.log.append({"ev": "move", "player": self.player + 1,
                             "dice": [self.a, self.b] if self.b else [self.a],
                             "shut": tiles_of(mask), "open": tiles_of(self.open_)})
            if self.open_:
                self.melody(_SND_ACCEPT)
                self.enter(READY, now)
                return
        # The end of the turn: its score (shutbox.rounds keeps totals and round scores).
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
        self.melody(_SND_SHUT if self.shut_box else _SND_TURN)
        self.enter(TURN_END, now)

    # ----- checking the tiles against the model -----

    def check(self, now):
        """Compare the tile levels with the model (SETUP, READY, MOVE): set ``err`` and
        ``err_mask`` (a new mistake buzzes and is logged); in MOVE light the tiles that can
        complete a legal move and accept one as soon as the tiles form it."""
        st = self.state
        lv = self.levels
        full = self.engine.full
        reopened = lv & ~self.open_ & full  # tiles shut earlier that are open again
        shut = self.open_ & ~lv  # tiles open at the turn's start or the throw, shut now
        kind = _ERR_NONE
        mask = 0
        exact = False
        wider = 0  # MOVE: every legal move that contains the tiles shut so far
        if st == SETUP:
            mask = (lv ^ self.open_) & full
            if mask:
                kind = _ERR_SETUP
        elif st == READY:
            if reopened:
                kind = _ERR_REOPENED
                mask = reopened
            elif shut:
                kind = _ERR_EARLY
                mask = shut
        elif st == MOVE:
            self.shut = shut
            self.pending = False
            if reopened:
                kind = _ERR_REOPENED
                mask = reopened
            else:
                buf = self.legal
                for i in range(self.moves):
                    m = buf[i]
                    if m & shut == shut:
                        if m == shut:
                            exact = True
                        else:
                            wider |= m
                if not exact and not wider:
                    kind = _ERR_TOO_HIGH if tile_sum(shut) > self.a + self.b else _ERR_NOT_LEGAL
                    mask = shut
        else:
            return
        if kind != self.err:
            self.err = kind
            self.since = now
            if kind != _ERR_NONE and kind != _ERR_SETUP:  # a mistake: buzz, and log it
                self.melody(_SND_ERROR)
                self.log.append({"ev": "error", "player": self.player + 1,
                                 "why": _ERR_NAMES.split()[kind], "tiles": tiles_of(mask)})
        self.err_mask = mask
        if st == MOVE and kind == _ERR_NONE:
            self.hint = wider & ~shut
            if exact:
                if wider:  # a longer legal move could still extend it: wait, or take Roll
                    self.pending = True
                    self.since = now
                else:
                    self.accept(shut, now)

    # ----- outputs -----

    def melody(self, sound):
        self.sound = sound  # a melody: (Hz / 10, ms / 10) byte pairs
        self.sound_seq = (self.sound_seq + 1) & 0xFFFF

    def would_throw(self):
        """Return True if a Roll press now throws the dice (on its release): the box shows
        them rolling from the press on, so that it answers at once."""
        st = self.state
        if self.err or self.cpu is not None and self.cpu.playing():
            return False
        return st == SETUP or st == READY or st == MOVE and self.pending and \
            self.open_ & ~self.shut != 0

    def moving(self, now):
        """Return the ms from *now* until time alone changes a view's frame (the score, the
        winner), True while time changes the frame or the state at the frame pace (a blink,
        the dice rolling, a move accepted after a pause, the computer's turn), or False when
        nothing changes until the tiles or Roll do. The app steps then (shutbox.app).

        A view's edges are render's: every second of its cycle (each part lasts whole
        seconds); every _FAST_MS, the grid of all of them, while the box shut celebrates, in a
        challenge (its code's digits) and where a number may be drawn digit by digit (a
        match, a scoring variant, a box of fewer than 9 tiles); else every _STATUS_MS while
        the winners' tiles blink (1 Hz: a waiting screen redraws twice a second at most)."""
        st = self.state
        if st == TURN_END or st == GAME_END:
            t = ticks_diff(now, self.t_state)
            if st == TURN_END and self.shut_box and t < _CELEBRATE_MS or \
                    self.dice.code >= 0 or self.tiles < 9 or self.match is not None or \
                    self.engine.rules.scoring:
                st = _FAST_MS
            else:  # the winners' tiles blink: every _STATUS_MS, half _LABEL_MS
                st = _LABEL_MS >> (st == GAME_END and not self.page and
                                   t % _CYCLE_MS < _LABEL_MS)
            return st - t % st
        if st == ROLLING or st > MOVE or self.err:  # the dice, a roll-off, a blinking mistake
            return True
        if self.cpu is not None and self.cpu.playing():
            return True
        if st == MOVE:
            return self.pending  # its tiles blink until it is accepted
        # SETUP, READY: die B's centre blinks when one die is there; a move flashes green
        return self.one_die_choice() == 1 or st == READY and ticks_diff(
            now, self.t_state) < _FLASH_MS

    def render(self, now):
        """Fill and return ``frame`` for the time *now* (allocates nothing).

        Its frame stays within 11 slots, locals and stack (four locals, the last two reused;
        frame.number called by its own name, one slot less than fr.number): a larger frame
        is allocated on the heap at every call on the Pico's build, and a waiting screen
        redraws at every edge of a blink or a view."""
        f = self.frame
        st = self.state
        fr.clear(f)
        if st == SETUP or st == READY or st == ROLLING:
            fr.tiles_mask(f, self.open_ & self.levels, _WHITE)
            if st == READY and ticks_diff(now, self.t_state) < _FLASH_MS:
                fr.tiles_mask(f, self.shut, _GREEN)  # the move just accepted
            if st == ROLLING:
                fr.rolling(f, self.tiles, now, self.t_state, self.b)
            else:
                if st == SETUP:
                    fr.die(f, self.tiles, 0, self.player + 1, _MAGENTA)
                if self.one_die_choice() == 1 and fr.blink(now, self.t_state):
                    # die B's centre pip (after die A's 7): one die is there for a long press
                    f[self.tiles + 10] = _CYAN if self.coach is not None and \
                        self.coach.one_die() else _AMBER
        elif st == MOVE:
            fr.die(f, self.tiles, 0, self.a, _WHITE)
            fr.die(f, self.tiles, 1, self.b, _WHITE)
            if not self.err:  # a mistake: only its tiles (below)
                st = self.settings.hints
                if st != _HINT_OFF:
                    fr.tiles_mask(f, self.hint, _WHITE)
                if st == _HINT_BEST and self.best & self.shut == self.shut:
                    fr.tiles_mask(f, self.best & ~self.shut, _CYAN)
                if self.pending and not fr.blink(now, self.since, _FAST_MS):
                    fr.tiles_mask(f, self.shut, _OFF)
                else:
                    fr.tiles_mask(f, self.shut, _GREEN)
        elif st == TURN_END or st == GAME_END:
            # the views: no mistake shows and the computer does not play (below); st and now
            # reused from here on
            st = ticks_diff(now, self.t_state)
            if self.state == TURN_END:
                if self.shut_box and st < _CELEBRATE_MS:  # the box shut: a celebration
                    st //= _FAST_MS
                    now = self.tiles
                    while now:  # colours running along the tiles: codes 1..7, all but off
                        now -= 1
                        f[now] = 1 + (now + st) % 7
                    st = 6 if st & 1 else 0  # both dice flashing six
                    fr.die(f, self.tiles, 0, st, _GREEN)
                    fr.die(f, self.tiles, 1, st, _GREEN)
                    return f
                # several rounds: then the running total
                st = 4 if self.match is not None and self.settings.format and \
                    not self.match.tiebreak else 0
                if self.coach is not None:  # -1: it showed the count of choices short
                    now = self.coach.view(f, now, st != 0)
                    if now < 0:
                        return f
                st |= self.player
            elif self.page:  # a player's score; with stakes, then the balance
                st = self.page - 1 | (4 if self.settings.stakes and self.match is not None
                                      else 0)
            else:  # who won: the winners' tiles, the first two winners' numbers on the dice
                st %= _CYCLE_MS if self.dice.code < 0 else _CODE_CYCLE_MS
                if st < _LABEL_MS:
                    st = _GREEN if fr.blink(now, self.t_state, _STATUS_MS) else _OFF
                    fr.tiles_mask(f, self.winners, st)
                    st = 0  # the dice drawn
                    now = 0  # the player
                    while now < self.players and st < 2:
                        if self.winners >> now & 1:
                            fr.die(f, self.tiles, st, now + 1, _GREEN)
                            st += 1
                        now += 1
                elif st < _CYCLE_MS:
                    number(f, self.tiles, self.best_score, _GREEN, now,
                              self.t_state)
                else:  # then a challenge's code (shutbox.challenge)
                    self.dice.draw(f, self.tiles, st - _CYCLE_MS)
                return f
            # player st & 3 + 1's view, repeating: their number, their score (green if they
            # won), then with bit 2 of st a second number (a match's running total in white;
            # with stakes the balance: green won, red owes); now: the view's clock from 0
            now = ticks_diff(now, self.t_state)
            if now % (_CYCLE2_MS if st & 4 else _CYCLE_MS) < _LABEL_MS:
                fr.player(f, self.tiles, (st & 3) + 1, _MAGENTA)
            elif now % (_CYCLE2_MS if st & 4 else _CYCLE_MS) < _CYCLE_MS:
                number(f, self.tiles, self.score if self.state == TURN_END
                          else self.scores[st & 3], _BLUE if self.state == TURN_END or
                          not self.winners >> (st & 3) & 1 else _GREEN, now, 0)
            else:
                number(f, self.tiles, self.scores[st & 3] if self.state == TURN_END
                          else abs(self.match.balance[st & 3]),  # type: ignore[union-attr]
                          _WHITE if self.state == TURN_END else _GREEN
                          if self.match.balance[st & 3] >= 0  # type: ignore[union-attr]
                          else _RED, now, 0)
            return f
        elif st == _ROLLOFF and self.match is not None:
            self.match.render(f, now)
        if self.err:  # over all (a move's green flash too): red, or SETUP's tiles amber
            st = (_AMBER if self.state == SETUP else _RED) if fr.blink(now, self.since) else _OFF
            fr.tiles_mask(f, self.err_mask, st)
        if self.cpu is not None and self.cpu.playing():
            self.cpu.draw(f, now)
        return f

# Stateful fuzzing of the box: hypothesis on CPython drives the firmware on the simulated board.
"""Random physical events against the real firmware under MicroPython, every log line checked.

One ``Box`` is one ``micropython boxrun --powerup`` process (the firmware as .mpy on the
simulated board, a flash folder, the guard and a watchdog), kept for many hypothesis examples.
Each example is a new box with its own settings: ``b ...`` wipes the flash, puts the clock
back 3 s before the tick wrap, drops the edges and µs left of the box before and reseeds the
dice (so examples replay and shrink); then the
settings are written to the flash as the menu saves them and the power comes on (the tiles
all up, or set up for the turn), so the box starts as app.main does (shutbox.powerup: the
settings file, the engine rules they make, the records, the saved game resumed). Every
option of ATTRS varies: players, the computer, hints, one-die and its mode, moves, scoring,
start, Open the Box, 2/3-to-go, Unlucky 7, most tiles, two tiles, the game format, shut-wins,
the tie rule, the same throws, stakes, real dice, the time limit and resigning (but the long
game for 2: ``UNFUZZED``).
``box_settings`` draws them (half the examples keep the standard round, without
shutbox.rounds; 2/3-to-go only with a start that has its tile in play, real dice without the
same throws or a code, as the menu allows); ``plan()`` gives rows that between them take
every value.

Events go in as boxrun's primitive lines (built with Script: flips, contact bounce,
glitches, Roll presses short, long and held about 5 s, several inputs in the same poll, power
cuts with tiles moved while off; with the time limit, a person who plays on to a decision and
then waits up to 66 s; with resigning, tile 1 out of its place and Roll held a second);
after every step the harness answers a ``z`` (the state, and with real dice the dice entered)
and hands over the firmware's JSON log, each record stamped with the end of the wait it came
in (the waits cut to STAMP_MS), which ``Checker`` replays against the rules on CPython:

* no crash: no ``fault`` or boot ``notice`` record, no watchdog reset, no hang, the process
  alive; after every power-up the ``settings`` record shows the settings drawn;
* every throw in range (one or two dice of 1..6, a roll-off die of 1..6), one die only where
  the variant allows it (never with the same throws), forced or locked in where it must be;
  with the same throws, every player of a round gets the round's throws;
* the legal moves, by brute force over subsets (and the engine's raw list), narrowed by
  Unlucky 7 (a 7 has none), 2/3-to-go (the first throw must shut the 2 / the 3), two tiles
  (at most two a move) and most tiles; the count the throw reports is that, and a rule
  record says why when one of these leaves none;
* every accepted move is one of those, at most one move per throw;
* every score is the open tiles under the active scoring rule (with Open the Box the tiles
  still face down: the game mirrors the levels, so its log's "open" tiles are the ones still
  to play), a turn ends only when the box is shut or the throw has no allowed move, the
  running totals add up (rounds, tie-break rounds adding nothing), Canoga balances sum to 0,
  and a one-round game's winners are the lowest scores;
* a new turn starts from the variant's start position; a resumed game carries on from the
  tiles and dice it logged;
* real dice: a person's throws are marked as entered (but a throw a resumed game logs again),
  no other throw is, and a throw the careful player entered (each die's tile down and up,
  then Roll) is thrown as entered, in order; Roll is refused for the dice only with real dice;
* the time limit: a ``timeout`` rule only in a person's decision (from the throw shown to the
  move, from a move to the next Roll, from a resume in READY), at the limit (within
  LATE_MS); no decision of a person's goes on past it; the turn's score is the open tiles;
* resigning: a ``resign`` rule only with the setting, in a person's turn before a throw, when
  tile 1 out of its place and Roll held a second ask for it; the score is every tile of the
  start; the player takes no more turns or rounds in that game and does not win; when every
  player resigned (every seat; in a match every player of a round) the game ends in a draw
  between every seat, its score the lowest total;
* the box's state agrees with the log (its open tiles), SETUP or READY without an error
  means the physical tiles are the game's (mirrored for Open the Box), and after a power cut
  the box waits for the physical tiles of the saved game.

At the end of each example a careful player takes over (``finish``): from whatever state the
fuzzing left, it must get the turn to its end (and play on to the game's end and a new game
if that comes first), then holding Roll 5 s must start a new game: no state is a dead end.
At its first throw the power is cut with the tiles as the game has them: the resumed game
must not ask for any tile to be moved.
``STATS`` counts examples, steps, physical events and log records checked; ``DRAWN`` the
examples per value of every setting. ``KNOWN_GAPS``: what the box does against its docs that
the model lets pass, each with a reproducer marked xfail in test_fuzz.py.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import time

import logschema  # tests/: the log's JSON Schema
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from shutbox import pins, setfile, setnames
from shutbox.engine import MAX_MOVES, Engine, Rules
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END
from shutbox.powerup import combination
from shutbox.settings import ATTRS, COUNTS, Settings
from shutbox.store import Store
from shutbox.variants import MOVES, ONE_DIE, ONE_DIE_MODE, SCORING, START
from shutbox_host.box.drive import SimBox
from shutbox_host.model.script import Script

TILES = pins.TILES
FULL = (1 << TILES) - 1
STAMP = "~"  # the stamps' marker (an echo)
HEAP = "256k"  # memory is the soak's business; here a MemoryError would hide the logic
TIMEOUT = 60.0  # seconds without an answer from the box: it is stuck
STATS = {"examples": 0, "steps": 0, "events": 0, "pin_changes": 0, "power_cuts": 0,
         "records": 0, "throws": 0, "moves": 0, "scores": 0, "resumes": 0, "games": 0,
         "finished": 0, "boots": 0, "sevens": 0, "to_go": 0, "narrowed": 0, "replayed": 0,
         "rolloff_dice": 0, "entered": 0, "timeouts": 0, "resigns": 0, "thinks": 0,
         "all_resigned": 0}
DRAWN = {a: [0] * COUNTS[i] for i, a in enumerate(ATTRS)}  # examples per value index
# The settings shutbox.rounds plays (Game.match); the box resumes a game only without them.
MATCH = ("format", "tie", "stakes", "same_throws", "unlucky7", "to_go", "most_tiles",
         "two_tiles")
# What the box does that its docs do not say, or say otherwise, and the model lets pass (each
# with a reproducer in test_fuzz.py, marked xfail until the firmware changes):
KNOWN_GAPS: dict[str, str] = {}
# Settings the fuzzer leaves at their defaults: its model does not play the long game for 2
# (tests/firmware/test_long.py, tests/solve/test_longgame.py have it).
UNFUZZED = ("long",)
PLAY = 0  # shutbox.powerup.combination(): no button combination, the game starts
SEQ = 16  # same throws: the throws of a round the box records (shutbox.rounds._SEQ)
LIMIT_MS = 30000  # the time limit's step: timeout 1 is 30 s, 2 is 60 s (shutbox.turn)
STAMP_MS = 250  # a record is stamped with the end of the wait it came in: waits are cut so
THINKS = 1  # waits at a decision an example (up to a minute each, virtual: the costliest step)
LATE_MS = STAMP_MS + 50  # a time-out's leeway: the stamps', and the loop's steps
ROLL_MS = 600  # from a Roll press to the throw's record (shutbox.game's dice animation)


class BoxDied(AssertionError):
    """The boxrun process ended or stopped answering."""


def reset_stats():
    """Zero STATS and DRAWN (a new campaign)."""
    for k in STATS:
        STATS[k] = 0
    for counts in DRAWN.values():
        counts[:] = [0] * len(counts)


def tiles_of(mask: int) -> list[int]:
    return [k + 1 for k in range(TILES) if mask >> k & 1]


def mask_of(tiles) -> int:
    m = 0
    for t in tiles:
        m |= 1 << (t - 1)
    return m


def ntiles(mask: int) -> int:
    return bin(mask).count("1")


# ----- the settings -----


def settings_of(**options) -> dict:
    """Return every setting as {attribute: int}: the box's defaults, then *options*."""
    cfg = {a: int(getattr(Settings, a)) for a in ATTRS}
    cfg["code"] = -1  # no challenge code: the dice are the box's random ones
    for k, v in options.items():
        if k not in cfg:
            raise ValueError("unknown setting " + k)
        cfg[k] = int(v)
    return cfg


def rules_of(cfg: dict) -> Rules:
    """The rules of a turn under *cfg*: with the same throws one die is never offered."""
    return Rules(TILES, 0 if cfg["same_throws"] else cfg["one_die"], cfg["one_die_mode"],
                 cfg["moves"], cfg["scoring"], cfg["start"])


def seats_of(cfg: dict) -> tuple[int, int]:
    """Return (seats in a game, mask of the computer's seats): it sits after the people."""
    people = cfg["players"]
    if not cfg["computer"]:
        return people, 0
    seat = people if people < 4 else 3
    return seat + 1, 1 << seat


def values_of(cfg: dict) -> list[int]:
    """The value indexes of *cfg* in page order, as the box logs them (players less one)."""
    return [cfg[a] - 1 if a == "players" else cfg[a] for a in ATTRS]


def describe(cfg: dict) -> str:
    """The settings in words, the ones off their defaults only (for failure messages)."""
    want, base = values_of(cfg), values_of(settings_of())
    words = ["%s=%s" % (setnames.OPTIONS[i], setnames.CHOICES[i][want[i]])
             for i in range(len(ATTRS)) if want[i] != base[i]]
    if cfg.get("code", -1) >= 0:
        words.append("code=" + setnames.code_name(cfg["code"]))
    return " ".join(words) or "defaults"


def save_settings(flash: str, cfg: dict):
    """Write *cfg* into the flash folder of a boxrun as the settings menu saves them."""
    os.makedirs(flash, exist_ok=True)
    status = setfile.save(Settings(**cfg), Store(flash + "/data"))
    if status != 0:
        raise OSError("cannot save the settings in %s: status %d" % (flash, status))


def rule_names(rules: Rules) -> dict:
    """The rules of a turn in words, as the game's "game" record gives them."""
    return {"one-die": ONE_DIE[rules.one_die], "one-die-mode": ONE_DIE_MODE[rules.one_die_mode],
            "moves": MOVES[rules.moves], "scoring": SCORING[rules.scoring],
            "start": START[rules.start]}


def fits(cfg: dict) -> bool:
    """True if the menu lets these settings be saved together (shutbox.setfile.conflict:
    2/3-to-go need their tile in play; real dice go with neither the same throws nor a
    challenge code)."""
    if cfg.get("real_dice") and (cfg.get("same_throws") or cfg.get("code", -1) >= 0):
        return False
    return not cfg["to_go"] or bool(brute_start(cfg["start"]) >> cfg["to_go"] & 1)


# ----- the rules, the slow obvious way (independent of the engine's tables) -----


def brute_legal(open_: int, moves: int, a: int, b: int) -> set[int]:
    """Every legal move mask for throw (a, b) by subset search over the open tiles."""
    out = set()
    sub = open_
    while sub:
        t = tiles_of(sub)
        total = a + b
        if moves == 0:  # any
            ok = sum(t) == total
        elif b == 0:
            ok = t == [a]
        elif moves == 1:  # dice-or-total
            ok = t == [total] or (a != b and t == sorted([a, b]))
        elif moves == 2:  # one-tile
            ok = len(t) == 1 and t[0] in (a, b, total)
        else:  # kids
            ok = t in ([total], [a], [b]) or (a != b and t == sorted([a, b]))
        if ok:
            out.add(sub)
        sub = (sub - 1) & open_
    return out


def brute_allowed(legal: set[int], a: int, b: int, cfg: dict, first: bool):
    """Narrow a throw's legal moves by the turn variants; return (moves, rule or None).

    Unlucky 7: a throw of 7 has no move. 2/3-to-go: the turn's *first* throw must shut the 2
    (the 3). Most tiles: only the moves with the most tiles. The rule is the name the box
    logs when one of the first two leaves no move where the rules had some.
    """
    if not legal:
        return legal, None
    if cfg["unlucky7"] and a + b == 7:
        return set(), "unlucky-7"
    if cfg["to_go"] and first:
        legal = {m for m in legal if m >> cfg["to_go"] & 1}
        if not legal:
            return legal, setnames.TO_GO[cfg["to_go"]]
    if cfg["two_tiles"]:  # at most two tiles a move; none left: the turn ends, no record
        legal = {m for m in legal if ntiles(m) <= 2}
        if not legal:
            return legal, None
    if cfg["most_tiles"]:
        most = max(ntiles(m) for m in legal)
        legal = {m for m in legal if ntiles(m) == most}
    return legal, None


def brute_score(open_: int, scoring: int) -> int:
    t = tiles_of(open_)
    if scoring == 0:
        return sum(t)
    if scoring == 2:
        return len(t)
    return int("".join(str(x) for x in t)) if t else 0


def brute_one_die(open_: int, one_die: int) -> bool:
    t = tiles_of(open_)
    return [False, all(x < 7 for x in t), sum(t) <= 6, sum(t) < 6][one_die]


def brute_start(start: int) -> int:
    every = range(1, TILES + 1)
    pick = [lambda k: True, lambda k: k > 3, lambda k: k % 2 == 1, lambda k: k % 2 == 0][start]
    return mask_of(k for k in every if pick(k))


class Checker:
    """Replays the firmware's log records against the rules of *cfg*; raises AssertionError."""

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.rules = rules_of(cfg)
        self.engine = Engine(self.rules)
        self.seats, self.cpu = seats_of(cfg)
        self.match = any(cfg[k] for k in MATCH)
        self.limit = cfg["timeout"] * LIMIT_MS  # a decision's time (0: no limit)
        self.player = 0  # the seat whose turn it is
        self.open = None  # the model's open tiles (None: not known yet)
        self.pending = None  # (a, b, allowed moves) of a throw not yet played
        self.last_moves = None  # allowed moves of the last throw
        self.locked = False  # one die chosen this turn (locked mode); None: unknown
        self.throws = None  # throws so far this turn (None: unknown, after a resume)
        self.rule = None  # a "rule" record waiting for its throw
        self.seq = None  # same throws: the round's throws (None: unknown)
        self.totals = None  # each seat's running total (None: unknown)
        self.tiebreak = None  # the round is a tie-break (adds nothing to the totals)
        self.played = None  # seats that have scored this game (one round; None: unknown)
        self.out: set[int] = set()  # seats that resigned this game (they cannot win)
        self.inround: set[int] | None = None  # the players of the round (a match; None: none)
        self.clock = None  # ms a person's decision began (time limit; None: no clock runs)
        self.ms = None  # the stamp of the record being checked (None: not known)
        self.entered = None  # real dice: the throw the careful player entered, not yet seen
        self.log: list[dict] = []
        self.failed = False

    def fail(self, why: str, rec: dict):
        self.failed = True
        tail = "\n".join(json.dumps(r) for r in self.log[-12:])
        raise AssertionError("%s: %s\nsettings: %s\nlast records:\n%s" % (
            why, json.dumps(rec), describe(self.cfg), tail))

    def check(self, rec: dict, ms: int | None = None):
        """Check one record against the rules, then against the log's schema; *ms*: the
        time it came at, to within STAMP_MS (None: not known)."""
        self.log.append(rec)
        STATS["records"] += 1
        self.ms = ms
        self.rules_check(rec)
        why = logschema.problem(rec)  # docs/log.schema.json
        if why is not None:
            self.fail("a record against the log's schema (%s)" % why, rec)

    def rules_check(self, rec: dict):
        ev = rec.get("ev")
        r = self.rules
        if ev == "fault":
            self.fail("the firmware raised", rec)
        elif ev == "notice":
            self.fail("the box reports a damaged file or a fault at power-up", rec)
        elif ev == "settings":
            STATS["boots"] += 1
            if rec.get("status") != 0 or rec.get("values") != values_of(self.cfg) \
                    or rec.get("code") != setnames.code_name(self.cfg["code"]):
                self.fail("the box runs other settings than the ones saved", rec)
        elif ev == "game":
            STATS["games"] += 1
            if rec.get("players") != self.seats:
                self.fail("a game of the wrong size", rec)
            if rec.get("computer", []) != tiles_of(self.cpu):
                self.fail("the computer in the wrong seat", rec)
            if rec.get("rules") != rule_names(r):
                self.fail("a game under other rules than the settings make", rec)
            if rec.get("code", "off") != setnames.code_name(self.cfg["code"]):
                self.fail("a game under another challenge code than the settings'", rec)
            self.open = None
            self.totals, self.played, self.tiebreak, self.seq = [0] * 4, set(), False, []
            self.out, self.inround, self.clock, self.entered = set(), None, None, None
        elif ev == "round":
            self.seq = []
            self.tiebreak = rec["tiebreak"] > 0
            self.inround = {p - 1 for p in rec["players"]}
            if self.out & {p - 1 for p in rec["players"]}:
                self.fail("a player who resigned plays another round", rec)
        elif ev == "turn":
            self.open = mask_of(rec["open"])
            self.pending, self.last_moves, self.locked = None, None, False
            self.throws, self.rule, self.clock = 0, None, None
            self.player = rec["player"] - 1
            if self.open != brute_start(r.start):
                self.fail("a turn that does not start from the start position", rec)
            if not 1 <= rec["player"] <= self.seats:
                self.fail("no such player", rec)
            if rec["player"] - 1 in self.out:
                self.fail("a player who resigned takes another turn", rec)
        elif ev == "resume":
            STATS["resumes"] += 1
            self.open = mask_of(rec["open"])
            self.pending, self.last_moves, self.locked = None, None, None
            self.throws, self.rule, self.played = None, None, None
            self.player, self.entered = rec["player"] - 1, None  # (self.out: the same game's)
            # the decision starts again (time limit); a throw shown is logged again, marked
            self.clock = self.ms if rec["state"] == "ready" and self.person() else None
            # a match's rounds are not in the record: its totals and throws are unknown
            self.totals = None if self.match else rec["scores"] + [0] * (4 - len(rec["scores"]))
            self.seq = self.tiebreak = None
        elif ev == "rule":
            if self.rule is not None:
                self.fail("two rule records for one throw", rec)
            self.rule = rec
            if rec["rule"] == "timeout":
                self._timeout(rec)
            elif rec["rule"] == "resign":
                self._resign(rec)
        elif ev == "refused":
            if rec["why"] == "dice" and not self.cfg["real_dice"]:
                self.fail("Roll refused for the dice entered, without real dice", rec)
        elif ev == "throw":
            STATS["throws"] += 1
            self._throw(rec)
        elif ev == "move":
            STATS["moves"] += 1
            self._move(rec)
        elif ev == "score":
            STATS["scores"] += 1
            self._score(rec)
        elif ev == "winner":
            self._winner(rec)
        elif ev == "stakes":
            if sum(rec["balance"]) != 0:
                self.fail("the stakes paid do not add up to what was won", rec)
        elif ev == "rolloff_die":
            STATS["rolloff_dice"] += 1
            if not 1 <= rec["die"] <= 6:
                self.fail("a roll-off die out of range", rec)

    def person(self) -> bool:
        """Whether a person (not the computer) has the turn."""
        return not self.cpu >> self.player & 1

    def late(self, why: str, rec: dict, at: int | None):
        """Fail if the decision that began at self.clock went on at *at* past the limit."""
        if self.limit and self.clock is not None and at is not None \
                and at - self.clock > self.limit + LATE_MS:
            self.fail("%s %d ms into a decision with a %d s limit" % (
                why, at - self.clock, self.limit // 1000), rec)

    def _timeout(self, rec: dict):
        """The time limit ended a person's decision: at the limit, counted from its start."""
        STATS["timeouts"] += 1
        if not self.limit:
            self.fail("a time-out without a time limit", rec)
        if rec["player"] - 1 != self.player or not self.person():
            self.fail("a time-out outside a person's turn", rec)
        if self.clock is None:
            self.fail("a time-out where no decision's clock runs", rec)
        if self.ms is not None and abs(self.ms - self.clock - self.limit) > LATE_MS:
            self.fail("a time-out %d ms into the decision, not at its %d s" % (
                self.ms - self.clock, self.limit // 1000), rec)

    def _resign(self, rec: dict):
        """A person resigned before a throw: they are out of this game."""
        STATS["resigns"] += 1
        if not self.cfg["resign"]:
            self.fail("a resignation without the resign setting", rec)
        if rec["player"] - 1 != self.player or not self.person():
            self.fail("a resignation outside a person's turn", rec)
        if self.pending is not None:
            self.fail("a resignation with a throw to play", rec)
        self.out.add(self.player)
        if self.all_out():
            STATS["all_resigned"] += 1

    def _throw(self, rec: dict):
        self.player = rec["player"] - 1
        self.late("a throw", rec, None if self.ms is None else self.ms - ROLL_MS)
        self._real(rec)
        dice = rec["dice"]
        if len(dice) not in (1, 2) or not all(1 <= d <= 6 for d in dice):
            self.fail("a throw out of range", rec)
        a, b = dice[0], dice[1] if len(dice) == 2 else 0
        if rec["total"] != a + b:
            self.fail("the throw's total is not its dice", rec)
        r = self.rules
        open_ = mask_of(rec["open"])
        if self.open is not None and open_ != self.open:
            self.fail("the throw's open tiles are not the box's", rec)
        self.open = open_
        one_ok = brute_one_die(open_, r.one_die)
        if b == 0 and not one_ok:
            self.fail("one die where the variant does not allow it", rec)
        if one_ok and b and (r.one_die_mode == 2 or (r.one_die_mode == 1 and self.locked)):
            self.fail("two dice where one die is forced", rec)
        if b == 0 and r.one_die_mode == 1 and self.locked is not None:
            self.locked = True
        legal = brute_legal(open_, r.moves, a, b)
        buf = [0] * MAX_MOVES
        n = self.engine.legal_into(open_, a, b, buf)
        if set(buf[:n]) != legal:
            self.fail("the engine's legal moves differ from brute force", rec)
        # the turn variants; after a resume the throw's place in the turn is not known
        firsts = (True, False) if self.throws is None else (self.throws == 0,)
        options = [brute_allowed(legal, a, b, self.cfg, f) for f in firsts]
        agree = [o for o in options if len(o[0]) == rec["moves"]]
        if not agree:
            self.fail("the throw reports %d allowed moves, not %d" % (
                rec["moves"], len(options[0][0])), rec)
        moves, why = agree[0]
        said = self.rule["rule"] if self.rule is not None else None
        if said != why and all(o[1] != said for o in agree):
            self.fail("the rule record (%s) is not the rule that applies (%s)" % (said, why),
                      rec)
        self.rule = None
        if why == "unlucky-7":
            STATS["sevens"] += 1
        elif why:
            STATS["to_go"] += 1
        elif moves != legal:
            STATS["narrowed"] += 1
        if self.cfg["same_throws"] and self.seq is not None and self.throws is not None:
            i = self.throws
            if i < len(self.seq):
                STATS["replayed"] += 1
                if dice != self.seq[i]:
                    self.fail("throw %d of the turn is not the round's %r" % (i + 1, self.seq[i]),
                              rec)
            elif i < SEQ:
                self.seq.append(dice)
        if self.throws is not None:
            self.throws += 1
        self.pending = (a, b, moves) if moves else None
        self.last_moves = len(moves)
        self.clock = self.ms if moves and self.person() else None  # the move's decision

    def _real(self, rec: dict):
        """Real dice: a person's throws are the ones entered, marked; no other throw is."""
        real = rec.get("real", False)
        entered = self.entered
        self.entered = None
        if real and not (self.cfg["real_dice"] and self.person()):
            self.fail("a throw marked as entered that the box threw", rec)
        if self.cfg["real_dice"] and self.person():
            STATS["entered"] += 1
            if not real:  # (a throw resumed rolling too)
                self.fail("a person's throw with real dice not marked as entered", rec)
            if entered is not None and rec["dice"] != entered:
                self.fail("the throw is not the dice entered, %r" % (entered,), rec)

    def _move(self, rec: dict):
        if self.pending is None:
            self.fail("a move with no throw to play", rec)
        a, b, moves = self.pending
        m = mask_of(rec["shut"])
        if rec["dice"] != ([a, b] if b else [a]):
            self.fail("a move for other dice than the throw's", rec)
        if m not in moves or not self.engine.is_legal(self.open, a, b, m):
            self.fail("an illegal move was accepted", rec)
        self.late("a move accepted", rec, self.ms)
        self.open &= ~m
        if mask_of(rec["open"]) != self.open:
            self.fail("the open tiles after the move are wrong", rec)
        self.pending = None
        self.clock = self.ms if self.open and self.person() else None  # the next Roll's

    def _score(self, rec: dict):
        why = self.rule["rule"] if self.rule is not None else None
        self.rule = None
        if why == "resign":  # every tile of the start scores
            self.open = brute_start(self.rules.start)
            if mask_of(rec["open"]) != self.open:
                self.fail("a resignation that does not score every tile of the start", rec)
        elif why != "timeout":
            self.late("a turn's end", rec, self.ms)
        self.clock = None
        if self.open is not None:
            if mask_of(rec["open"]) != self.open:
                self.fail("the score's open tiles are not the box's", rec)
            if self.open and self.last_moves not in (0, None) and why is None:
                self.fail("the turn ended with a legal move left", rec)
        score = rec["score"]
        if score != brute_score(mask_of(rec["open"]), self.rules.scoring):
            self.fail("the score is not the open tiles under the scoring rule", rec)
        if rec.get("shut_box") != (not rec["open"]):
            self.fail("shut_box does not match the open tiles", rec)
        self.pending = None
        p = rec["player"] - 1
        if self.totals is not None:
            if not self.match:
                self.totals[p] = score  # one round: the total is the turn's score
            elif self.tiebreak is None:
                self.totals = None
            elif not self.tiebreak:
                self.totals[p] += score
        if self.totals is not None and rec["total"] != self.totals[p]:
            self.fail("the running total is not the sum of the turns' scores", rec)
        if self.played is not None:
            self.played.add(p)

    def all_out(self) -> bool:
        """Whether every player resigned: every seat (one round), or every player of the
        round (a match): the game ends, a draw between every seat (docs/playing.md)."""
        if not self.match:
            return len(self.out) == self.seats
        return self.inround is not None and self.inround <= self.out

    def _winner(self, rec: dict):
        t = self.totals
        if t is not None and rec["scores"] != t[:self.seats]:
            self.fail("the game's scores are not the turns'", rec)
        if self.all_out():
            if rec["players"] != list(range(1, self.seats + 1)) \
                    or rec["tie"] != (self.seats > 1) or rec["score"] != min(rec["scores"]):
                self.fail("every player resigned, and not a draw between every seat", rec)
            return
        if self.out & {p - 1 for p in rec["players"]}:
            self.fail("a player who resigned wins", rec)
        # one round: the lowest score among the players who played and did not resign
        them = self.played and self.played - self.out
        if not self.match and them and t is not None:
            best = min(t[p] for p in them)
            if rec["players"] != sorted(p + 1 for p in them if t[p] == best) \
                    or rec["score"] != best:
                self.fail("the winners are not the lowest scores", rec)


# ----- the box process -----


class Box(SimBox):
    """One boxrun process under micropython, answering in lock step (send)."""

    Gone = BoxDied

    def __init__(self, heap: str = HEAP, tree=None):
        """Start boxrun from *tree* (a boxsim.build() folder; None: the firmware as it is).

        ``--powerup``: every boot reads the settings from the flash folder, as app.main does.
        """
        self.flash = tempfile.mkdtemp(prefix="shutbox-fuzz-")
        super().__init__("--flash", self.flash, "--quiet", "--wdt", "8000", "--powerup",
                         heapsize=heap, tree=tree, timeout=TIMEOUT, keep=False)
        self.send([])  # the first boot's records: not part of any example

    def save_settings(self, cfg: dict):
        save_settings(self.flash, cfg)

    def error_log(self) -> str:
        """The box's error log (shutbox.guard), or "" when there is none."""
        try:
            with open(os.path.join(self.flash, "error.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def close(self):
        super().close()
        shutil.rmtree(self.flash, ignore_errors=True)


_BOX: list[Box] = []


def shared_box(tree=None) -> Box:
    """The process shared by the examples (a new one if the last one died or *tree* changed)."""
    if not _BOX or not _BOX[0].alive() or _BOX[0].tree != tree:
        close_shared()
        _BOX.append(Box(tree=tree))
    return _BOX[0]


def close_shared():
    for b in _BOX:
        b.close()
    _BOX.clear()


# ----- the state machine -----

tile = st.integers(1, TILES)
short_ms = st.sampled_from([0, 1, 5, 20, 40, 80, 150, 300])
wait_ms = st.one_of(short_ms, st.integers(0, 3000))
# How each setting is drawn (the others: any value of their range). Fewer computer games
# and longer formats keep the people's turns, and the standard round, common.
_DRAW = {"players": st.integers(1, 4), "computer": st.sampled_from([0, 0, 1, 2, 3]),
         "format": st.sampled_from([0, 0, 1, 2, 3, 4])}


@st.composite
def box_settings(draw) -> dict:
    """Every setting the box offers, as the menu can save them ({attribute: int})."""
    plain = draw(st.booleans())  # the standard round: no shutbox.rounds, resumes after a cut
    cfg = {}
    for i, a in enumerate(ATTRS):
        if plain and a in MATCH or a in UNFUZZED or a == "real_dice" and cfg["same_throws"]:
            cfg[a] = 0
        elif a == "to_go":  # the menu refuses a to-go whose tile the start leaves shut
            ok = [v for v in range(COUNTS[i]) if fits(dict(cfg, to_go=v))]
            cfg[a] = draw(st.sampled_from(ok))
        else:
            cfg[a] = draw(_DRAW.get(a, st.integers(0, COUNTS[i] - 1)))
    # a challenge, or not (real dice are the players' own: no code)
    cfg["code"] = -1 if cfg["real_dice"] else draw(st.one_of(st.just(-1), st.integers(0, 9999)))
    return cfg


def plan() -> list[dict]:
    """Settings rows that between them take every value of every setting (``make test``).

    Row 0 is the standard game (alone: power cuts resume it); each other row turns on a few
    variants together, with one-die rules where they count (the same throws allow none).
    """
    return [
        settings_of(players=1),
        settings_of(players=2, computer=1, one_die=1, one_die_mode=1, moves=1, scoring=1,
                    start=1, open_box=1, unlucky7=1, most_tiles=1, format=1, shut_wins=1,
                    tie=1, stakes=1, sound=0, brightness=0, sleep=0, code=1234, timeout=2),
        settings_of(players=3, computer=2, hints=2, one_die=2, one_die_mode=2, moves=2,
                    scoring=2, start=2, to_go=2, format=2, tie=2, sound=1, brightness=2, sleep=1,
                    two_tiles=1, real_dice=1, timeout=1, resign=1),
        settings_of(players=4, computer=3, hints=0, one_die=3, moves=3, start=3, open_box=1,
                    to_go=1, unlucky7=1, format=3, shut_wins=1, stakes=1, sleep=3, code=0,
                    resign=1),
        settings_of(players=2, one_die=0, scoring=1, to_go=1, most_tiles=1, format=4, tie=1,
                    same_throws=1, sleep=4, code=9999),
    ]


class BoxMachine(RuleBasedStateMachine):
    """Random physical events; the log is checked after every step."""

    tree = None  # a firmware build other than the current one (the fuzzer's own tests)
    fixed: dict = {}  # settings every example takes (the fuzzer's own tests)
    calm = False  # no stray flips, bounces or presses: a person plays (the fuzzer's own tests)

    def __init__(self):
        super().__init__()
        self.box = shared_box(self.tree)
        self.s = Script()
        self.sent = 0
        self.roll = False
        self.z: list[int] = []
        self.checker: Checker | None = None
        self.failed = False  # a check failed: the example ends there
        self.cfg = settings_of()
        self.inv = 0  # Open the Box: the game's levels are the physical ones mirrored
        self.seats, self.cpu = seats_of(self.cfg)
        self.at = 0  # ms since the box began (the waits sent so far)
        self.stamp = 0  # the ms the records read now are stamped with
        self.rng = random.Random(0)  # the careful player's dice (real dice), from the seed
        self.thinks = 0  # the example's waits at a decision (they take the most time)

    # -- plumbing --

    def flush(self, *extra: str) -> list[str]:
        """Send the script's new lines and a ``z``; check every record that comes back."""
        try:
            return self._flush(extra)
        except BaseException:
            self.failed = True  # no careful player at the teardown: the failure stands
            raise

    def _flush(self, extra) -> list[str]:
        lines = self.s.lines[self.sent:] + list(extra)
        self.sent = len(self.s.lines)
        STATS["pin_changes"] += sum(1 for x in lines if x.startswith("p "))
        entered = self.checker.entered  # a throw the careful player entered and Rolled
        out = self.box.send(self.stamped(lines) + ["z"])
        for line in out:
            if line.startswith("{"):
                self.checker.check(json.loads(line), self.stamp)
            elif line.startswith(STAMP):
                self.stamp = int(line[len(STAMP):])
            elif line.startswith("Z "):
                self.z = [int(x) for x in line.split()[1:]]
            else:
                self.no_error(line)
        if self.z and self.z[0] == -1:
            raise AssertionError("the box shows a fault; its error.log ends:\n" +
                                 self.box.error_log()[-2000:])
        if entered is not None and self.checker.entered is not None:
            self.checker.entered = None  # not thrown: only a time-out or a cut may stop it
            if not any('"rule"' in x or '"score"' in x or x.startswith("RESET") for x in out):
                self.checker.fail("the dice %r entered as the rules allow and Roll pressed, but "
                                  "nothing thrown" % (entered,), {"z": self.z})
        self.verify()
        return out

    def stamped(self, lines: list[str]) -> list[str]:
        """*lines* with each wait after a marker naming the ms it ends at (the records
        printed during it are stamped with that end); with the time limit (the stamps
        count) the waits are cut to STAMP_MS at most."""
        out = []
        cut = STAMP_MS if self.cfg["timeout"] else 1 << 30
        for line in lines:
            if not line.startswith("w "):
                out.append(line)
                continue
            ms = int(line[2:])
            while ms > 0:
                w = min(ms, cut)
                ms -= w
                self.at += w
                out += ["e %s%d" % (STAMP, self.at), "w %d" % w]
        return out

    @staticmethod
    def no_error(line: str):
        if line.startswith(("RESET 3", "HUNG", "?")) or "Traceback" in line:
            raise AssertionError("the box: " + line)

    def event(self):
        STATS["events"] += 1

    # -- the box --

    @initialize(cfg=box_settings(), seed=st.integers(1, 2**31 - 1), set_up=st.booleans())
    def boot(self, cfg, seed, set_up):
        """A new box: the settings saved on its flash, then the power comes on.

        *set_up*: the tiles are in the turn's start position at power-on (for Open the Box
        every tile down), else every tile is up.
        """
        cfg = dict(cfg, **self.fixed)
        if cfg["real_dice"]:  # the menu refuses it with the same throws or a code
            cfg.update(same_throws=0, code=-1)
        if not fits(cfg):
            cfg["start"] = 0  # every tile in play: any to-go fits
        STATS["examples"] += 1
        for i, v in enumerate(values_of(cfg)):
            DRAWN[ATTRS[i]][v] += 1
        self.cfg = cfg
        self.rng = random.Random(seed)
        self.at = self.stamp = 0  # "b" puts the box's clock back
        self.thinks = 0
        self.inv = FULL if cfg["open_box"] else 0
        self.seats, self.cpu = seats_of(cfg)
        self.s = Script()  # every tile up, Roll released, as boxrun begins
        self.sent = 0
        self.roll = False
        lines = ["p %d %d" % (pins.TILE_PINS[k], 1 - pins.SWITCH_ACTIVE) for k in range(TILES)]
        lines += ["p %d %d" % (pins.ROLL_PIN, 1 - pins.SWITCH_ACTIVE), "b seed=%d" % seed]
        for line in self.box.send(lines):  # a wiped box, on its defaults: not played
            self.no_error(line)
            if '"fault"' in line:
                raise AssertionError("the box: " + line)
        self.box.save_settings(cfg)
        self.checker = Checker(cfg)
        if set_up:
            self._put(brute_start(cfg["start"]))
        self.s.lines.append("r")
        self.s.wait(100)
        self.flush()

    # -- tiles --

    @precondition(lambda self: not self.calm)
    @rule(k=tile, ms=wait_ms)
    def flip(self, k, ms):
        self.event()
        self.s.flip(k).wait(ms)

    @precondition(lambda self: not self.calm)
    @rule(k=tile, ms=st.integers(1, 25), after=short_ms)
    def bounce(self, k, ms, after):
        self.event()
        self.s.bounce(k, ms).wait(after)

    @precondition(lambda self: not self.calm)
    @rule(k=tile, us=st.integers(2, 999), after=short_ms)
    def glitch(self, k, us, after):
        self.event()
        self.s.glitch(k, us).wait(after)

    @precondition(lambda self: not self.calm)
    @rule(mask=st.integers(1, FULL), roll=st.booleans(), ms=wait_ms)
    def together(self, mask, roll, ms):
        """Several tiles (and maybe Roll) change in the same poll."""
        self.event()
        self.s.flip(*tiles_of(mask))
        if roll:
            self._roll(not self.roll)
        self.s.wait(ms)

    # -- Roll --

    def _roll(self, down: bool):
        (self.s.press if down else self.s.release)()
        self.roll = down

    def _let_go(self):
        """Release Roll if it is held, so that a new press can begin."""
        if self.roll:
            self._roll(False)
            self.s.wait(40)

    def _press(self, ms: int, after: int):
        """One press of Roll held *ms* ms, then *after* ms with it released."""
        self.event()
        self._let_go()
        self._roll(True)
        self.s.wait(ms)
        self._roll(False)
        self.s.wait(after)

    @precondition(lambda self: not self.calm)
    @rule(ms=st.integers(1, 650), after=wait_ms)
    def click(self, ms, after):
        self._press(ms, after)

    @precondition(lambda self: not self.calm)
    @rule(ms=st.one_of(st.integers(700, 2500), st.integers(4800, 5600)), after=wait_ms)
    def long_press(self, ms, after):
        """A long press (one die), or Roll held about 5 s (from 5 s on: a new game)."""
        self._press(ms, after)

    @precondition(lambda self: not self.calm)
    @rule(ms=st.integers(1, 30), after=short_ms)
    def roll_bounce(self, ms, after):
        self.event()
        self._let_go()
        self.s.rollbounce(ms)
        self.s.wait(after)

    @precondition(lambda self: not self.calm)
    @rule(down=st.booleans(), ms=wait_ms)
    def roll_edge(self, down, ms):
        """Roll pressed or released on its own (a press held across other events)."""
        self.event()
        self._roll(down)
        self.s.wait(ms)

    def new_game_hold(self):
        """Roll held 5 s: a new game, whatever the state."""
        self._press(5200, 100)

    @rule(ms=wait_ms)
    def wait(self, ms):
        self.s.wait(ms)

    def play_to(self, state: int, n: int = 6):
        """A careful player plays on until a person's turn shows *state* (at most *n*
        actions)."""
        for _ in range(n):
            self.flush()
            if self.z[0] == state and not self.cpu >> self.z[1] & 1:
                return
            self.event()
            self.careful_step()

    @precondition(lambda self: self.cfg["timeout"] and (self.thinks < THINKS or self.calm))
    @rule(state=st.sampled_from([READY, MOVE]), over=st.booleans(),
          part=st.sampled_from(range(1, 20)))
    def think(self, state, over, part):
        """A person plays on to a decision of theirs (*state*: the next Roll, or a move),
        then takes their time over it: 2 s past the time limit (*over*: its end), else *part*
        twentieths of it (its last ticks). (Drawn evenly: integers would mostly be small.)"""
        STATS["thinks"] += 1
        self.thinks += 1
        self.play_to(state)
        limit = self.cfg["timeout"] * LIMIT_MS
        self.s.wait(limit + 2000 if over else limit * part // 20)

    @precondition(lambda self: self.cfg["resign"])
    @rule(state=st.sampled_from([SETUP, READY]), after=wait_ms)
    def resign(self, state, after):
        """A person plays on to *state* (before the turn's first throw, or a later one); then
        tile 1 out of its place and Roll held a second: before a throw of a person's turn,
        with the tiles as the game has them, the player resigns."""
        self.play_to(state)
        self.event()
        self.flush()
        z = self.z
        clean = (len(z) > 9 and z[0] in (SETUP, READY) and z[7] == 0 and z[9] < 0
                 and not self.roll and not self.cpu >> z[1] & 1 and z[4] ^ self.inv == z[3]
                 and z[4] == self.s.open_)
        self._let_go()
        self.s.flip(1).wait(100)
        self._roll(True)
        self.s.wait(1200)
        self._roll(False)
        self.s.wait(max(after, 60))  # the release taken (a long press acts when Roll is up)
        if clean:
            n = STATS["resigns"]
            out = self.flush()
            if STATS["resigns"] == n and not any('"timeout"' in x for x in out):
                self.checker.fail("tile 1 out of its place and Roll held a second before a "
                                  "throw, but no resignation", {"z": self.z})

    # -- power --

    @rule(moved=st.integers(0, FULL), after=wait_ms)
    def power_cut(self, moved, after):
        """The power goes (tiles may be moved while it is off) and comes back.

        Roll held at power-up with tiles that make a button combination opens a screen
        (the menu, the records, the self-test) instead of the game: not fuzzed here, so
        Roll is let go while the power is off then.
        """
        self.event()
        STATS["power_cuts"] += 1
        if moved:
            self.s.flip(*tiles_of(moved))
        if self.roll and combination(self.s.open_, True, TILES) != PLAY:
            self._roll(False)
        self.s.lines.append("r")
        self.s.wait(max(after, 2))  # one poll at least: the boot's records come out

    # -- a careful player, so that games get somewhere --

    @rule(n=st.integers(1, 6))
    def careful(self, n):
        for _ in range(n):
            self.event()
            self.flush()
            self.careful_step()

    def careful_step(self) -> bool:
        """One action of a careful player for the state in self.z; True at a game's end."""
        z = self.z
        state, open_, err, expect = z[0], z[3], z[7], z[9]
        levels = z[4] ^ self.inv  # the tiles as the game reads them
        if self.roll:
            self._roll(False)
            self.s.wait(60)
            return False
        if z[4] != self.s.open_:  # a tile just moved: the box has not taken it yet
            self.s.wait(60)
            return False
        if expect >= 0:  # a resumed game waits for the tiles to match
            self._set(expect)
            self.s.wait(60)
            return False
        shut = open_ & ~levels
        moves = self._moves(open_, z[5], z[6])
        if state == MOVE and err == 0 and shut and levels & ~open_ == 0 and shut in moves:
            self.s.wait(1600)  # a legal move that a longer one could extend: it settles
            return False
        if state in (SETUP, READY, MOVE) and levels != open_:
            self._put(open_)  # undo whatever is wrong
            self.s.wait(60)
            return False
        if state == MOVE:
            m = self.checker.engine.greedy_move(open_, z[5], z[6])
            if moves and m not in moves:  # a turn variant rules the rule of thumb out
                m = max(moves)
            self._put(open_ & ~m)
            self.s.wait(100)
            return False
        if state == ROLLING:
            self.s.wait(300)
            return False
        if (state in (SETUP, READY) and z[12] >= 0 and err == 0 and not self.cpu >> z[1] & 1):
            self._enter(open_, z)  # real dice: the throw entered on the tiles, then Roll
            return False
        if state == GAME_END:
            self.s.hold(1000).wait(100)
            return True
        if state == TURN_END:
            self.s.wait(800)
        self.s.click(80).wait(100 if state == TURN_END else 700)
        return False

    def _enter(self, open_: int, z: list[int]):
        """Enter a throw on the tiles (each die: its tile down and up again), then Roll; the
        checker expects that throw. One die where it is forced, sometimes where it is allowed.
        With more dice entered than the throw takes, a tile above 6 clears them first."""
        r = self.checker.rules
        n, one = z[12], brute_one_die(open_, r.one_die)
        forced = one and (r.one_die_mode == 2 or r.one_die_mode == 1 and z[8])
        want = 1 if forced else self.rng.choice((1, 2, 2, 2)) if one else 2
        if n > want:
            self._die(TILES)
            return
        dice = [z[13], z[14]][:n] + [self.rng.randint(1, 6) for _ in range(want - n)]
        for d in dice[n:]:
            self._die(d)
        self.s.click(80).wait(700)
        self.checker.entered = dice

    def _die(self, k: int):
        """Tile *k* flipped and flipped back: a die of *k* entered (real dice)."""
        self.event()
        self.s.flip(k).wait(60).flip(k).wait(60)

    def _moves(self, open_: int, a: int, b: int) -> set[int]:
        """The moves the box allows for the throw on show (the checker's, else the rules')."""
        p = self.checker.pending
        if p is not None and p[:2] == (a, b):
            return p[2]
        return brute_legal(open_, self.checker.rules.moves, a, b)

    def _set(self, target: int):
        """Put the tiles physically in *target* (bit set = up)."""
        now = self.s.open_
        self.s.open(*tiles_of(target & ~now)).shut(*tiles_of(now & ~target))

    def _put(self, model: int):
        """Put the tiles where the game's *model* wants them (mirrored for Open the Box)."""
        self._set(model ^ self.inv)

    # -- checks --

    @invariant()
    def checked(self):
        if self.checker is None:
            return
        STATS["steps"] += 1
        self.flush()

    def verify(self):
        """Check the box's state (the ``z`` answer) against the log and the physical tiles."""
        z = self.z
        c = self.checker
        if len(z) < 12:
            c.fail("bad state line", {"z": z})
        state, player, players, open_, levels, err, expect = (z[0], z[1], z[2], z[3], z[4],
                                                              z[7], z[9])
        if (players != self.seats or not 0 <= player < players or open_ & ~FULL
                or state < 0 or not -1 <= z[12] <= 2 or not 0 <= z[13] <= 6):
            c.fail("an impossible state", {"z": z})
        if state in (READY, MOVE) and not self.cpu >> player & 1:  # the time limit
            c.late("still no decision", {"z": z}, self.at)
        if c.open is not None and open_ != c.open:
            c.fail("the box's open tiles (%r) are not the log's" % tiles_of(open_), {"z": z})
        if expect >= 0 and expect != open_ ^ self.inv:
            c.fail("after a power cut the box waits for tiles %r, not the game's %r" % (
                tiles_of(expect), tiles_of(open_ ^ self.inv)), {"z": z})
        # no error before a throw: the tiles are the game's (the computer's are virtual)
        if (err == 0 and expect < 0 and (state == SETUP or state == READY and not
                                         self.cpu >> player & 1)
                and levels ^ self.inv != open_):
            c.fail("no error shown, but the tiles up are %r" % tiles_of(levels), {"z": z})

    def teardown(self):
        if self.checker is None or self.failed or self.checker.failed or not self.box.alive():
            return
        try:
            self.finish()
        finally:
            self.checker = None

    def finish(self, limit: int = 200):
        """No dead end: a careful player gets the turn to its end, and a new game starts.

        The careful player plays until a turn ends (a score; or the game's end, where a long
        press starts a new game); a match of many rounds is then abandoned with the 5-second
        Roll hold, which must start a new game in any state. At the first throw it shows, with
        the tiles (and their debounced levels) as the game has them, the power is cut: the game
        resumes without asking for any tile to be moved.
        """
        games, scores = STATS["games"], STATS["scores"]
        cut = True
        for _ in range(limit):
            self.flush()
            z = self.z
            if (cut and z[0] == MOVE and self.s.open_ ^ self.inv == z[3] == z[4] ^ self.inv
                    and not self.roll and not self.cpu >> z[1] & 1):
                cut = False
                STATS["power_cuts"] += 1
                self.s.lines.append("r")
                self.s.wait(2)
                self.flush()
                if self.z[9] >= 0:
                    self.checker.fail("the tiles were left as they were, yet the resumed game "
                                      "waits for tiles %r" % tiles_of(self.z[9]), {"z": self.z})
                continue
            if self.careful_step():  # the game's end: a long press
                self.flush()
                assert STATS["games"] > games, "a long press at the game's end started nothing"
                STATS["finished"] += 1
                return
            if STATS["scores"] > scores and self.z[0] in (SETUP, TURN_END):
                break
        else:
            raise AssertionError("stuck: %d careful actions ended no turn (state %r, %s)" % (
                limit, self.z, describe(self.cfg)))
        games = STATS["games"]
        self.new_game_hold()
        self.flush()
        assert STATS["games"] > games, "Roll held 5 s started no new game (state %r)" % self.z
        assert self.z[0] == SETUP and self.z[1] == 0 and self.z[10] == 0, self.z
        STATS["finished"] += 1


def coverage() -> str:
    """Examples per value of every setting, in page order (``players 1:9 2:11 ...``)."""
    out = []
    for i, a in enumerate(ATTRS):
        names = setnames.CHOICES[i]
        out.append("%s %s" % (setnames.OPTIONS[i], " ".join(
            "%s:%d" % (names[v], n) for v, n in enumerate(DRAWN[a]))))
    return "; ".join(out)


def campaign(per_row: int, drawn: int, steps: int, **options):
    """Fuzz *per_row* examples on each row of plan(), then *drawn* with every setting drawn.

    *options* go to hypothesis' settings (max_examples and stateful_step_count are set here).
    """
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    base = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))
    base.update(options)
    for row in plan():
        class Row(BoxMachine):
            fixed = row

        run_state_machine_as_test(Row, settings=settings(
            max_examples=per_row, stateful_step_count=steps, **base))
    run_state_machine_as_test(BoxMachine, settings=settings(
        max_examples=drawn, stateful_step_count=steps, **base))


def run(examples: int, steps: int, seed: int | None = None) -> dict:
    """Run the fuzzer outside pytest (shutbox bench); return STATS and the time taken.

    *examples* with every setting drawn, after examples // 25 (at least 1) on each row of
    plan(), as the tests do.
    """
    reset_stats()
    t0 = time.perf_counter()
    try:
        campaign(max(1, examples // 25), examples, steps, derandomize=seed is not None)
    finally:
        close_shared()
    out = dict(STATS)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out

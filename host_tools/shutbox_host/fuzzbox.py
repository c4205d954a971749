# Stateful fuzzing of the box: hypothesis on CPython drives the firmware on the simulated board.
"""Random physical events against the real firmware under MicroPython, every log line checked.

One ``Box`` is one ``micropython boxrun`` process (the firmware as .mpy on the simulated
board, a flash folder, the guard and a watchdog), kept for many hypothesis examples: each
example starts with ``b ...``, a new box with random settings, a wiped flash, the clock back
3 s before the tick wrap and reseeded dice, so examples replay and shrink. Events go in as
boxrun's primitive lines (built with boxsim.Script: flips, contact bounce, glitches, Roll
presses short, long and very long, several inputs in the same poll, power cuts with tiles
moved while off); after every step the harness answers a ``z`` (the state) and hands over the
firmware's JSON log, which ``Checker`` replays against the rules on CPython:

* no crash: no ``fault`` record, no watchdog reset, no hang, the process alive;
* every throw in range (one or two dice of 1..6), one die only where the variant allows it,
  forced or locked in where it must be; the number of legal moves it reports is right;
* every accepted move legal for its throw under the active rule, checked by brute force
  (every subset of the open tiles) and by the engine, at most one move per throw;
* every score is the open tiles under the active scoring rule, and a turn ends only when the
  box is shut or the throw has no legal move;
* a new turn starts from the variant's start position; a resumed game carries on from the
  tiles and dice it logged.

At the end of each example a careful player takes over (``finish``): from whatever state the
fuzzing left, it must get the turn to its end (and play on to the game's end and a new game
if that comes first), then holding Roll 5 s must start a new game: no state is a dead end.
``STATS`` counts examples, steps, physical events and log records checked.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from shutbox import pins
from shutbox.engine import MAX_MOVES, Engine, Rules
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END
from shutbox_host import boxsim, mp

TILES = pins.TILES
FULL = (1 << TILES) - 1
HEAP = "256k"  # memory is the soak's business; here a MemoryError would hide the logic
TIMEOUT = 60.0  # seconds without an answer from the box: it is stuck
STATS = {"examples": 0, "steps": 0, "events": 0, "pin_changes": 0, "power_cuts": 0,
         "records": 0, "throws": 0, "moves": 0, "scores": 0, "resumes": 0, "games": 0,
         "finished": 0}


class BoxDied(AssertionError):
    """The boxrun process ended or stopped answering."""


def tiles_of(mask: int) -> list[int]:
    return [k + 1 for k in range(TILES) if mask >> k & 1]


def mask_of(tiles) -> int:
    m = 0
    for t in tiles:
        m |= 1 << (t - 1)
    return m


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
    """Replays the firmware's log records against the rules; raises AssertionError."""

    def __init__(self, rules: Rules, players: int, computer: int = 0):
        self.rules = rules
        self.engine = Engine(rules)
        self.players = players  # the people; the computer takes the next seat (at most 4)
        self.computer = computer
        self.open = None  # the model's open tiles (None: not known yet)
        self.pending = None  # (a, b, legal moves) of a throw not yet played
        self.last_moves = None  # legal moves of the last throw
        self.locked = False  # one die chosen this turn (locked mode); None: unknown
        self.log: list[dict] = []

    def fail(self, why: str, rec: dict):
        tail = "\n".join(json.dumps(r) for r in self.log[-12:])
        raise AssertionError("%s: %s\nlast records:\n%s" % (why, json.dumps(rec), tail))

    def check(self, rec: dict):
        self.log.append(rec)
        STATS["records"] += 1
        ev = rec.get("ev")
        r = self.rules
        if ev == "fault":
            self.fail("the firmware raised", rec)
        elif ev == "game":
            STATS["games"] += 1
            want = self.players + (1 if self.computer and self.players < 4 else 0)
            if rec.get("players") != want:
                self.fail("a game of the wrong size", rec)
            self.open = None
        elif ev == "turn":
            self.open = mask_of(rec["open"])
            if self.open != brute_start(r.start):
                self.fail("a turn that does not start from the start position", rec)
            if not 1 <= rec["player"] <= 4:
                self.fail("no such player", rec)
            self.pending, self.last_moves, self.locked = None, None, False
        elif ev == "resume":
            STATS["resumes"] += 1
            self.open = mask_of(rec["open"])
            self.pending, self.last_moves, self.locked = None, None, None
        elif ev == "throw":
            STATS["throws"] += 1
            self._throw(rec)
        elif ev == "move":
            STATS["moves"] += 1
            self._move(rec)
        elif ev == "score":
            STATS["scores"] += 1
            if self.open is not None:
                if mask_of(rec["open"]) != self.open:
                    self.fail("the score's open tiles are not the box's", rec)
                if self.open and self.last_moves not in (0, None):
                    self.fail("the turn ended with a legal move left", rec)
            if rec["score"] != brute_score(mask_of(rec["open"]), r.scoring):
                self.fail("the score is not the open tiles under the scoring rule", rec)
            if rec.get("shut_box") != (not rec["open"]):
                self.fail("shut_box does not match the open tiles", rec)
            self.pending = None

    def _throw(self, rec: dict):
        dice = rec["dice"]
        if len(dice) not in (1, 2) or not all(1 <= d <= 6 for d in dice):
            self.fail("a throw out of range", rec)
        a, b = dice[0], dice[1] if len(dice) == 2 else 0
        r = self.rules
        open_ = mask_of(rec["open"])
        if self.open is not None and open_ != self.open:
            self.fail("the throw's open tiles are not the box's", rec)
        self.open = open_
        allowed = brute_one_die(open_, r.one_die)
        if b == 0 and not allowed:
            self.fail("one die where the variant does not allow it", rec)
        if allowed and b and (r.one_die_mode == 2 or (r.one_die_mode == 1 and self.locked)):
            self.fail("two dice where one die is forced", rec)
        if b == 0 and r.one_die_mode == 1 and self.locked is not None:
            self.locked = True
        legal = brute_legal(open_, r.moves, a, b)
        if rec["moves"] != len(legal):
            self.fail("the throw reports %d legal moves, not %d" % (rec["moves"], len(legal)),
                      rec)
        buf = [0] * MAX_MOVES
        n = self.engine.legal_into(open_, a, b, buf)
        if set(buf[:n]) != legal:
            self.fail("the engine's legal moves differ from brute force", rec)
        self.pending = (a, b, legal) if legal else None
        self.last_moves = len(legal)

    def _move(self, rec: dict):
        if self.pending is None:
            self.fail("a move with no throw to play", rec)
        a, b, legal = self.pending
        m = mask_of(rec["shut"])
        if rec["dice"] != ([a, b] if b else [a]):
            self.fail("a move for other dice than the throw's", rec)
        if m not in legal or not self.engine.is_legal(self.open, a, b, m):
            self.fail("an illegal move was accepted", rec)
        self.open &= ~m
        if mask_of(rec["open"]) != self.open:
            self.fail("the open tiles after the move are wrong", rec)
        self.pending = None


# ----- the box process -----


class Box:
    """One boxrun process under micropython, answering in lock step."""

    def __init__(self, heap: str = HEAP, tree=None):
        """Start boxrun from *tree* (a boxsim.build() folder; None: the firmware as it is)."""
        self.tree = tree
        self.flash = tempfile.mkdtemp(prefix="shutbox-fuzz-")
        argv = [mp.micropython_exe(), "-X", "heapsize=" + heap, "-m", "boxrun",
                "--flash", self.flash, "--quiet", "--wdt", "8000"]
        env = dict(os.environ, MICROPYPATH=str(tree or boxsim.build()))
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.buf = b""
        self.sync = 0
        self.send([])  # the first boot's records: not part of any example

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, lines: list[str]) -> list[str]:
        """Send *lines*, then an echo; return every line printed before the echo."""
        self.sync += 1
        mark = "SYNC%d" % self.sync
        data = "\n".join(lines + ["e " + mark]) + "\n"
        try:
            self.proc.stdin.write(data.encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise BoxDied("the box is gone: " + self._stderr()) from e
        out: list[str] = []
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                text = line.decode(errors="replace")
                if text == mark:
                    return out
                out.append(text)
            left = deadline - time.monotonic()
            if left <= 0:
                raise BoxDied("no answer for %d s (stuck)" % TIMEOUT)
            if self.sel.select(left):
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    raise BoxDied("the box ended: " + self._stderr())
                self.buf += chunk

    def _stderr(self) -> str:
        try:
            self.proc.kill()
            return self.proc.communicate(timeout=5)[1].decode(errors="replace")[-3000:]
        except Exception as e:  # noqa: BLE001 - a report, whatever happens
            return repr(e)

    def close(self):
        if self.alive():
            try:
                self.proc.stdin.write(b"q\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except Exception:  # noqa: BLE001
                self.proc.kill()
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


class BoxMachine(RuleBasedStateMachine):
    """Random physical events; the log is checked after every step."""

    tree = None  # a firmware build other than the current one (the fuzzer's own tests)

    def __init__(self):
        super().__init__()
        self.box = shared_box(self.tree)
        self.s = boxsim.Script()
        self.sent = 0
        self.roll = False
        self.z: list[int] = []
        self.checker: Checker | None = None

    # -- plumbing --

    def flush(self, *extra: str) -> list[str]:
        lines = self.s.lines[self.sent:] + list(extra)
        self.sent = len(self.s.lines)
        STATS["pin_changes"] += sum(1 for x in lines if x.startswith("p "))
        out = self.box.send(lines + ["z"])
        for line in out:
            if line.startswith("{"):
                self.checker.check(json.loads(line))
            elif line.startswith("Z "):
                self.z = [int(x) for x in line.split()[1:]]
            elif line.startswith(("RESET 3", "HUNG", "?")) or "Traceback" in line:
                raise AssertionError("the box: " + line)
        if self.z and self.z[0] == -1:
            raise AssertionError("the box shows a fault")
        return out

    def event(self):
        STATS["events"] += 1

    # -- the box --

    @initialize(players=st.integers(1, 4), one_die=st.integers(0, 3),
                mode=st.integers(0, 2), moves=st.integers(0, 3), scoring=st.integers(0, 2),
                start=st.integers(0, 3), shut_wins=st.integers(0, 1), hints=st.integers(0, 2),
                extra=st.fixed_dictionaries({"computer": st.sampled_from([0, 0, 1, 2, 3]),
                                             "format": st.sampled_from([0, 0, 1, 2, 3, 4]),
                                             "tie": st.integers(0, 2),
                                             "stakes": st.integers(0, 1)}),
                seed=st.integers(1, 2**31 - 1))
    def boot(self, players, one_die, mode, moves, scoring, start, shut_wins, hints, extra,
             seed):
        STATS["examples"] += 1
        rules = Rules(TILES, one_die, mode, moves, scoring, start)
        self.checker = Checker(rules, players, extra["computer"])
        self.s = boxsim.Script()  # every tile up, Roll released, as boxrun begins
        self.sent = 0
        self.roll = False
        b = ("b players=%d one_die=%d one_die_mode=%d moves=%d scoring=%d start=%d "
             "shut_wins=%d hints=%d seed=%d" % (players, one_die, mode, moves, scoring, start,
                                                shut_wins, hints, seed))
        b += "".join(" %s=%d" % kv for kv in sorted(extra.items()))
        lines = ["p %d %d" % (pins.TILE_PINS[k], 1 - pins.SWITCH_ACTIVE) for k in range(TILES)]
        lines += ["p %d %d" % (pins.ROLL_PIN, 1 - pins.SWITCH_ACTIVE), b]
        self.flush(*lines)
        self.s.wait(100)
        self.flush()

    # -- tiles --

    @rule(k=tile, ms=wait_ms)
    def flip(self, k, ms):
        self.event()
        self.s.flip(k).wait(ms)

    @rule(k=tile, ms=st.integers(1, 25), after=short_ms)
    def bounce(self, k, ms, after):
        self.event()
        self.s.bounce(k, ms).wait(after)

    @rule(k=tile, ms=st.integers(1, 28), after=short_ms)
    def glitch(self, k, ms, after):
        self.event()
        self.s.glitch(k, ms).wait(after)

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

    @rule(ms=st.integers(1, 650), after=wait_ms)
    def click(self, ms, after):
        self.event()
        if self.roll:
            self._roll(False)
            self.s.wait(40)
        self._roll(True)
        self.s.wait(ms)
        self._roll(False)
        self.s.wait(after)

    @rule(ms=st.integers(700, 2500), after=wait_ms)
    def long_press(self, ms, after):
        self.event()
        if self.roll:
            self._roll(False)
            self.s.wait(40)
        self._roll(True)
        self.s.wait(ms)
        self._roll(False)
        self.s.wait(after)

    @rule(ms=st.integers(1, 30), after=short_ms)
    def roll_bounce(self, ms, after):
        self.event()
        if self.roll:
            self._roll(False)
            self.s.wait(40)
        self.s.rollbounce(ms)
        self.s.wait(after)

    @rule(down=st.booleans(), ms=wait_ms)
    def roll_edge(self, down, ms):
        """Roll pressed or released on its own (a press held across other events)."""
        self.event()
        self._roll(down)
        self.s.wait(ms)

    @rule()
    def new_game_hold(self):
        """Roll held 5 s: a new game, whatever the state."""
        self.event()
        if self.roll:
            self._roll(False)
            self.s.wait(40)
        self._roll(True)
        self.s.wait(5200)
        self._roll(False)
        self.s.wait(100)

    @rule(ms=wait_ms)
    def wait(self, ms):
        self.s.wait(ms)

    # -- power --

    @rule(moved=st.integers(0, FULL), after=wait_ms)
    def power_cut(self, moved, after):
        """The power goes (tiles may be moved while it is off) and comes back."""
        self.event()
        STATS["power_cuts"] += 1
        if moved:
            self.s.flip(*tiles_of(moved))
        self.s.lines.append("r")
        self.s.wait(after)

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
        state, open_, levels, err, expect = z[0], z[3], z[4], z[7], z[9]
        if self.roll:
            self._roll(False)
            self.s.wait(60)
            return False
        if expect >= 0:  # a resumed game waits for the tiles to match
            self._set(expect)
            self.s.wait(60)
            return False
        shut = open_ & ~levels
        if (state == MOVE and err == 0 and shut and levels & ~open_ == 0
                and shut in brute_legal(open_, self.checker.rules.moves, z[5], z[6])):
            self.s.wait(1600)  # a legal move that a longer one could extend: it settles
            return False
        if state in (SETUP, READY, MOVE) and levels != open_:
            self._set(open_)  # undo whatever is wrong
            self.s.wait(60)
            return False
        if state == MOVE:
            m = self.checker.engine.greedy_move(open_, z[5], z[6])
            self.s.shut(*tiles_of(m)).wait(100)
            return False
        if state == ROLLING:
            self.s.wait(300)
            return False
        if state == GAME_END:
            self.s.hold(1000).wait(100)
            return True
        if state == TURN_END:
            self.s.wait(800)
        self.s.click(80).wait(100 if state == TURN_END else 700)
        return False

    def _set(self, target: int):
        """Put the tiles physically in *target* (bit set = open)."""
        now = self.s.open_
        self.s.open(*tiles_of(target & ~now)).shut(*tiles_of(now & ~target))

    # -- checks --

    @invariant()
    def checked(self):
        if self.checker is None:
            return
        STATS["steps"] += 1
        self.flush()
        z = self.z
        if len(z) < 12:
            raise AssertionError("bad state line %r" % z)
        state, player, players, open_ = z[0], z[1], z[2], z[3]
        assert self.checker.players <= players <= 4, z
        assert 0 <= player < players, z
        assert open_ & ~FULL == 0, z
        assert state >= 0, z

    def teardown(self):
        if self.checker is None or not self.box.alive():
            return
        try:
            self.finish()
        finally:
            self.checker = None

    def finish(self, limit: int = 200):
        """No dead end: a careful player gets the turn to its end, and a new game starts.

        The careful player plays until a turn ends (a score; or the game's end, where a long
        press starts a new game); a match of many rounds is then abandoned with the 5-second
        Roll hold, which must start a new game in any state.
        """
        games, scores = STATS["games"], STATS["scores"]
        for _ in range(limit):
            self.flush()
            if self.careful_step():  # the game's end: a long press
                self.flush()
                assert STATS["games"] > games, "a long press at the game's end started nothing"
                STATS["finished"] += 1
                return
            if STATS["scores"] > scores and self.z[0] in (SETUP, TURN_END):
                break
        else:
            raise AssertionError("stuck: %d careful actions ended no turn (state %r)" % (
                limit, self.z))
        games = STATS["games"]
        self.new_game_hold()
        self.flush()
        assert STATS["games"] > games, "Roll held 5 s started no new game (state %r)" % self.z
        assert self.z[0] == SETUP and self.z[1] == 0 and self.z[10] == 0, self.z
        STATS["finished"] += 1


def run(examples: int, steps: int, seed: int | None = None) -> dict:
    """Run the fuzzer outside pytest (shutbox bench); return STATS and the time taken."""
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    for k in STATS:
        STATS[k] = 0
    t0 = time.perf_counter()
    cfg = settings(max_examples=examples, stateful_step_count=steps, deadline=None,
                   suppress_health_check=list(HealthCheck), derandomize=seed is not None,
                   database=None)
    try:
        run_state_machine_as_test(BoxMachine, settings=cfg)
    finally:
        close_shared()
    out = dict(STATS)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out

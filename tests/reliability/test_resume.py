# The game in progress survives a reboot: snapshot layout, restore checks, saves, the resumed box.
"""shutbox.resume on CPython (the game driven directly) and on the simulated board (power cuts).

On CPython, a game is played from random inputs; at a random safe point it is snapshotted and
restored into a fresh game, and both then get the same inputs and dice: the resumed game must
log exactly what the original logged. Damaged snapshots must be refused without touching the
game. Under MicroPython (boxsim, --flash), the power is cut at every safe point of a scripted
game, and the game must end with the same scores as without the cuts.
"""

from __future__ import annotations

import functools
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import pins, resume, rounds
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, Game, Settings
from shutbox.store import _BAD_CRC as BAD_CRC  # private: no name in the box's RAM
from shutbox.store import MISSING, OK, Store
from shutbox_host.box import boxsim
from shutbox_host.box.plan import plan_game
from shutbox_host.model.leds import face, tiles_lit
from shutbox_host.model.script import Script

ROLLOFF = rounds._ROLLOFF  # the game state (private: folded in on the box)
HEAP = "128k"  # the firmware with every feature (~95 KB live on the 64-bit port) and the board
T0 = 1 << 29  # the driver's clock starts here


class Stream:
    """Deterministic dice bytes (an LCG), restartable at any position."""

    def __init__(self, seed, pos=0):
        self.seed = seed
        self.pos = 0
        self.x = seed
        for _ in range(pos):
            self._next()

    def _next(self):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        self.pos += 1
        return (self.x >> 16) % 6  # faces only: no rejected bytes, so positions line up

    def __call__(self, n):
        return bytes(self._next() for _ in range(n))


def new_game(rules, players, shut_wins, stream, now=T0):
    eng = Engine(rules)
    game = Game(eng, Dice(stream, 1), Settings(players=players, shut_wins=int(shut_wins)),
                eng.start_open, now)
    return game


# One input: ("t", ms) time passes, ("r", long) a Roll press, ("l", mask) new tile levels,
# ("m", i) shut the i-th legal move (if the game is in MOVE), ("o", 0) the start position.
actions = st.lists(st.one_of(
    st.tuples(st.just("t"), st.sampled_from([10, 100, 400, 700, 1600])),
    st.tuples(st.just("r"), st.booleans()),
    st.tuples(st.just("l"), st.integers(0, 511)),
    st.tuples(st.just("m"), st.integers(0, 30)),
    st.tuples(st.just("o"), st.just(0)),
    st.tuples(st.just("p"), st.just(0)),  # a careful move: the greedy one
), min_size=5, max_size=120)

rules_st = st.builds(Rules, tiles=st.just(9), one_die=st.integers(0, 3),
                     one_die_mode=st.integers(0, 2), moves=st.integers(0, 3),
                     scoring=st.integers(0, 2), start=st.integers(0, 3))


def resolve(game, action, levels):
    """Turn an action into primitives (kind, arg) for *game* as it is now."""
    kind, arg = action
    if kind == "t":
        return [("t", 10)] * (arg // 10)
    if kind == "r":
        return [("r", arg), ("t", 10)]
    if kind == "l":
        return [("l", arg), ("t", 10)]
    if kind == "o":
        return [("l", game.engine.start_open), ("t", 10)]
    if game.state != MOVE:
        return [("t", 10)]
    buf = [0] * 64
    n = game.engine.legal_into(game.open_, game.a, game.b, buf)
    if game.match is not None:  # the moves the match allows (to-go, most-tiles)
        n = game.moves
        buf = game.legal
    if not n:
        return [("t", 10)]
    move = buf[arg % n] if kind == "m" else game.engine.greedy_move(game.open_, game.a, game.b)
    if move not in buf[:n]:
        move = buf[0]
    return [("l", game.open_ & ~move), ("t", 10)]


def apply(game, prim, now, levels):
    """Apply one primitive; return (now, levels)."""
    kind, arg = prim
    if kind == "t":
        now += arg
        game.tick(now)
    elif kind == "r":
        game.roll(arg, now)
    else:
        levels = arg
        game.tiles_changed(levels, now)
    return now, levels


def play(game, acts):
    """Run *acts*; return the primitives, and a checkpoint after every primitive where the game
    entered a state that the app saves: (index, now, levels, snapshot, dice position, log len).
    """
    now, levels = T0, game.engine.start_open
    prims, points = [], []
    seen = game.transitions
    for act in acts:
        now, levels, seen = play_act(game, act, now, levels, seen, prims, points)
    return prims, points


def play_act(game, act, now, levels, seen, prims, points):
    """Play *act*'s primitives, appending them to *prims*, and a checkpoint to *points* at each
    state the box saves (not MOVE): (primitives so far, now, levels, snapshot, dice read, log
    records). Return (now, levels, the transitions seen)."""
    for prim in resolve(game, act, levels):
        now, levels = apply(game, prim, now, levels)
        prims.append(prim)
        if game.transitions != seen:
            seen = game.transitions
            if game.state != MOVE:
                points.append((len(prims), now, levels, bytes(resume.snapshot(game)),
                               game.dice.urandom.pos, len(game.log)))
    return now, levels, seen


def visible(log):
    """The records a resumed game must repeat (errors are logged again at the resume)."""
    return [r for r in log if r["ev"] not in ("error", "refused", "resume")]


@settings(max_examples=150, deadline=None)
@given(rules=rules_st, players=st.integers(1, 4), shut_wins=st.booleans(), acts=actions,
       seed=st.integers(1, 2**31 - 1), pick=st.integers(0, 10**6))
def test_a_restored_game_goes_on_exactly_as_the_original(rules, players, shut_wins, acts, seed,
                                                        pick):
    a = new_game(rules, players, shut_wins, Stream(seed))
    prims, points = play(a, acts)
    if not points:
        return
    i, now, levels, snap, pos, nlog = points[pick % len(points)]
    b = new_game(rules, players, shut_wins, Stream(seed, pos), now)
    assert resume.restore(b, snap, now) == resume.OK
    assert b.log[0]["ev"] == "resume"
    assert bytes(resume.snapshot(b)) == snap  # the same game, byte for byte
    b.tiles_changed(levels, now)  # the app passes the tiles on once they match
    for prim in prims[i:]:
        now, levels = apply(b, prim, now, levels)
    assert visible(b.log) == visible(a.log[nlog:])
    assert (b.state, b.player, b.open_, b.scores, b.played, b.winners) == (
        a.state, a.player, a.open_, a.scores, a.played, a.winners)


def careful(g, now):
    """The next action of a careful player for *g* at *now*."""
    st = g.state
    if st == SETUP:
        return ("o", 0) if g.err else ("r", False)
    if st == READY:
        return ("r", False)
    if st == MOVE:
        return ("p", 0)
    if st == GAME_END:
        return ("r", True)
    if (st == TURN_END or st == ROLLOFF) and now - g.t_state >= 800:
        return ("r", False)
    return ("t", 100)


def some_game(state, players=2, rules=None, shut_wins=False):
    """Play seeded games with careful moves until the game reaches *state*."""
    for seed in range(1, 500):
        g = new_game(rules or Rules(), players, shut_wins, Stream(seed))
        now = T0
        for _ in range(400):
            if g.state == state and (state != READY or g.throws) and (
                    state != TURN_END or g.player == players - 1 or players == 1):
                return g, now
            for prim in resolve(g, careful(g, now), g.levels):
                now, _ = apply(g, prim, now, g.levels)
    raise AssertionError("no game reached state %d" % state)


def test_the_layout_is_the_documented_one():
    g, now = some_game(TURN_END, players=3)
    snap = resume.snapshot(g)
    assert len(snap) == resume._SIZE == 76 and snap[0] == resume.VERSION
    r = g.engine.rules
    assert list(snap[1:7]) == [9, r.one_die, r.one_die_mode, r.moves, r.scoring, r.start]
    assert int.from_bytes(snap[7:11], "little") == fingerprint(g.settings)
    assert snap[11] == 3 and snap[12] == TURN_END and snap[13] == g.player
    assert snap[14] == 4 * g.shut_box and snap[15] == g.played == 7 and snap[16] == 0
    assert (snap[17], snap[18], snap[19]) == (g.a, g.b, g.throws)
    assert int.from_bytes(snap[21:23], "little") == g.open_
    for p in range(4):
        assert int.from_bytes(snap[23 + 6 * p:29 + 6 * p], "little") == g.scores[p]
    assert int.from_bytes(snap[47:53], "little") == g.score == g.scores[2]
    assert snap[59] == 0
    assert snap[60:76] == bytes(16)  # no tally given: an empty one
    tally = [None, 0, 0, 70000, 5, 3, 513, 512]  # ..., turns, best, shut, began, games
    snap = resume.snapshot(g, tally=tally)
    assert [int.from_bytes(snap[i:i + 4], "little") for i in range(60, 76, 4)] == \
        [70000, 5, 3, 513]
    tally[4] = 1 << 40  # a digital score beyond the records' field: capped, as they cap it
    assert resume.snapshot(g, tally=tally)[64:68] == b"\xff" * 4


def test_a_throw_in_progress_is_saved_as_the_throw():
    """MOVE saves as ROLLING: the dice stand; the restored box shows the same throw."""
    g, now = some_game(MOVE)
    snap = resume.snapshot(g)
    assert snap[12] == ROLLING
    b = new_game(Rules(), 2, False, Stream(99), now)
    resume.restore(b, snap, now)
    assert b.state == ROLLING and (b.a, b.b) == (g.a, g.b)
    b.tick(now + 700)
    assert b.state in (MOVE, TURN_END) and b.log[-1]["ev"] in ("throw", "score")
    throw = [r for r in b.log if r["ev"] == "throw"][0]
    assert throw["dice"] == ([g.a, g.b] if g.b else [g.a])


def test_digital_scores_of_twelve_tiles_fit():
    """Digital scoring on 12 tiles reaches 123456789101112 (47 bits): six bytes a score."""
    eng = Engine(Rules(tiles=12, scoring=1))
    g = Game(eng, Dice(Stream(1), 1), Settings(players=2), eng.full, T0)
    g.scores[1] = eng.score(eng.full)
    assert g.scores[1] == 123456789101112
    b = Game(eng, Dice(Stream(1), 1), Settings(players=2), eng.full, T0)
    assert resume.restore(b, resume.snapshot(g), T0) == resume.OK
    assert b.scores[1] == 123456789101112


def untouched(g):
    return bytes(resume.snapshot(g)), list(g.log), g.state, g.levels


@pytest.mark.parametrize("what", ["rules", "players", "shut_wins"])
def test_a_game_of_other_settings_is_not_resumed(what):
    g, now = some_game(READY)
    snap = resume.snapshot(g)
    kw = {"rules": Rules(), "players": 2, "shut_wins": False}
    kw[what] = {"rules": Rules(moves=1), "players": 3, "shut_wins": True}[what]
    b = new_game(kw["rules"], kw["players"], kw["shut_wins"], Stream(1))
    before = untouched(b)
    assert resume.restore(b, snap, now) == resume._STALE
    assert untouched(b) == before


def fingerprint(settings, code=-1):
    """The settings that shape a game (the first 17 of ATTRS: not sound, not brightness), a
    byte each, and a challenge code's two bytes (little-endian) after them, if any."""
    from shutbox.settings import ATTRS

    raw = bytes(int(getattr(settings, a, 0)) & 0xFF for a in ATTRS[:17])
    return zlib.crc32(raw + (code.to_bytes(2, "little") if code >= 0 else b""))


def test_every_game_setting_and_the_code_are_in_the_fingerprint():
    """Any setting of the game changed (in the settings menu, say), or another challenge
    code, makes the saved game stale; sound, brightness, sleep and real-dice do not (they
    change no game); two-tiles is out of the fingerprint (the menu and `shutbox play` remove
    the saved game when it changes: tests/firmware/test_menu.py), but its game has a match
    (shutbox.rounds) a standard game's snapshot lacks: not resumed either."""
    from shutbox.challenge import Challenge
    from shutbox.settings import ATTRS

    eng = Engine(Rules())
    g = Game(eng, Dice(Stream(1), 1), Settings(players=2), eng.full, T0)
    snap = resume.snapshot(g)
    assert int.from_bytes(snap[7:11], "little") == fingerprint(g.settings)
    same = Game(eng, Dice(Stream(1), 1), Settings(players=2), eng.full, T0)
    assert resume.restore(same, snap, T0) == resume.OK
    for attr in ATTRS:
        if attr == "players":
            continue
        other = Settings(players=2)
        setattr(other, attr, int(getattr(other, attr)) ^ 1)
        b = Game(eng, Dice(Stream(1), 1), other, eng.full, T0)
        got = resume.restore(b, snap, T0)
        if attr == "two_tiles":  # its game has a match the saved one lacks: not resumed
            assert got != resume.OK
            continue
        if attr == "long":  # a game option after the box's: the menu and `shutbox play` end
            continue  # the saved game when it changes (tests/firmware/test_menu.py)
        want = resume.OK if attr in ("sound", "brightness", "sleep", "real_dice",
                                     "timeout", "resign") else resume._STALE
        assert got == want, attr
    coded = Game(eng, Challenge(42, 25), Settings(players=2, code=42), eng.full, T0)
    snap42 = resume.snapshot(coded)
    assert int.from_bytes(snap42[7:11], "little") == fingerprint(coded.settings, 42)
    for dice, want in ((Dice(Stream(1), 1), resume._STALE), (Challenge(43, 25), resume._STALE),
                       (Challenge(42, 25), resume.OK)):
        b = Game(eng, dice, Settings(players=2, code=dice.code), eng.full, T0)
        assert resume.restore(b, snap42, T0) == want, dice.code


BAD_FIELDS = [(0, 1), (12, 3), (12, 6), (12, 9), (13, 2), (14, 8), (15, 4), (16, 8), (17, 7),
              (18, 7), (20, 3), (22, 2), (59, 1)]


@pytest.mark.parametrize("index,value", BAD_FIELDS)
def test_impossible_fields_are_refused(index, value):
    g, now = some_game(READY)
    snap = bytearray(resume.snapshot(g))
    snap[index] = value
    b = new_game(Rules(), 2, False, Stream(1))
    before = untouched(b)
    assert resume.restore(b, bytes(snap), now) not in (resume.OK, resume._STALE)
    assert untouched(b) == before


def test_a_rolling_save_needs_a_throw_the_rules_allow():
    g, now = some_game(MOVE)
    snap = bytearray(resume.snapshot(g))
    snap[21:23] = (511).to_bytes(2, "little")  # every tile open: one die is not allowed ...
    snap[18] = 0  # ... but the save says one die
    b = new_game(Rules(), 2, False, Stream(1))
    assert resume.restore(b, bytes(snap), now) not in (resume.OK, resume._STALE)
    snap[17] = 0
    assert resume.restore(b, bytes(snap), now) not in (resume.OK, resume._STALE)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_mutated_snapshots_are_refused_or_playable(data):
    """Any change to a real snapshot: refused with the game untouched, or a game that plays."""
    state = data.draw(st.sampled_from([SETUP, READY, MOVE, TURN_END, GAME_END]))
    g, now = some_game(state)
    snap = bytearray(resume.snapshot(g))
    for _ in range(data.draw(st.integers(1, 4))):
        snap[data.draw(st.integers(0, len(snap) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.sampled_from([len(snap), len(snap), 0, 10, len(snap) - 1]))
    b = new_game(Rules(), 2, False, Stream(7))
    before = untouched(b)
    got = resume.restore(b, bytes(snap[:cut]), now)
    if got != resume.OK:
        assert untouched(b) == before
        return
    assert b.state in (SETUP, READY, ROLLING, TURN_END, GAME_END)
    assert 0 <= b.player < b.players and b.open_ & ~b.engine.full == 0
    for act in data.draw(actions):  # and it plays on without an exception
        for prim in resolve(b, act, b.levels):
            now, _ = apply(b, prim, now, b.levels)


# ----- Resume: saving at safe points through a real store -----


def test_saves_at_safe_points_only(tmp_path):
    store = Store(str(tmp_path / "data"))
    rs = resume.Resume(store)
    g = new_game(Rules(), 2, False, Stream(5))
    assert rs.load(g, g.levels, T0) == MISSING and rs.expect == -1
    now, states = T0, []
    for _ in range(200):
        if rs.poll(g):
            states.append(g.state)
            assert store.load(resume.NAME, resume.VERSION) == bytes(resume.snapshot(g))
        assert not rs.poll(g)  # a second poll with nothing new writes nothing
        for prim in resolve(g, careful(g, now), g.levels):
            now, _ = apply(g, prim, now, g.levels)
            if rs.poll(g):
                states.append(g.state)
        now, _ = apply(g, ("t", 700), now, g.levels)
        if rs.poll(g):
            states.append(g.state)
    assert MOVE not in states
    assert {SETUP, READY, ROLLING, TURN_END, GAME_END} <= set(states)
    assert rs.saves == len(states) and rs.failed == 0


def test_load_resumes_and_holds_until_the_tiles_match(tmp_path):
    store = Store(str(tmp_path / "data"))
    g, now = some_game(READY)
    store.save(resume.NAME, resume.snapshot(g), resume.VERSION)
    b = new_game(Rules(), 2, False, Stream(1))
    rs = resume.Resume(store)
    wrong = b.engine.full  # the tiles all up after the power cut
    assert rs.load(b, wrong, now) == OK
    assert b.state == READY and b.open_ == g.open_ and rs.expect == g.open_
    assert rs.hold(b, wrong, 1 | 8, now) == 0  # tiles and a short press are held back
    assert b.sound == b"\x1e\x0a"  # (the app blinks the tiles that differ: tested below)
    assert rs.hold(b, g.open_, 0, now) & 1 and rs.expect == -1  # they match: play goes on


def test_a_damaged_save_is_reported_and_replaced(tmp_path):
    store = Store(str(tmp_path / "data"))
    g, now = some_game(READY)
    store.save(resume.NAME, resume.snapshot(g), resume.VERSION)
    path = Path(store.root) / resume.NAME
    raw = bytearray(path.read_bytes())
    raw[20] ^= 0xFF
    path.write_bytes(bytes(raw))
    b = new_game(Rules(), 2, False, Stream(1))
    rs = resume.Resume(store)
    got = rs.load(b, b.levels, now)
    assert got == BAD_CRC and resume.was_damaged(got)
    assert b.state == SETUP and b.player == 0  # a new game
    assert rs.poll(b)  # saved at the first poll: the damage is gone
    assert store.load(resume.NAME, resume.VERSION) == bytes(resume.snapshot(b))
    assert not resume.was_damaged(MISSING) and not resume.was_damaged(OK)


def test_a_game_of_other_settings_loads_as_no_game(tmp_path):
    """Saved under other settings (changed in the settings menu): not damage, no notice."""
    store = Store(str(tmp_path / "data"))
    g, now = some_game(READY)
    store.save(resume.NAME, resume.snapshot(g), resume.VERSION)
    b = new_game(Rules(), 3, False, Stream(1))
    rs = resume.Resume(store)
    got = rs.load(b, b.levels, now)
    assert got == MISSING and not resume.was_damaged(got)
    assert b.state == SETUP and b.players == 3 and rs.expect == -1


def test_a_full_flash_does_not_stop_the_game(tmp_path):
    store = Store(str(tmp_path / "data"))
    rs = resume.Resume(store)
    g = new_game(Rules(), 2, False, Stream(5))
    rs.load(g, g.levels, T0)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "game.tmp").mkdir()  # open("game.tmp", "wb") fails: IO_ERROR
    g.tiles_changed(g.engine.full, T0)
    g.roll(False, T0 + 10)
    assert not rs.poll(g) and rs.failed == 1
    assert g.state == ROLLING


# ----- on the simulated board: power cuts, the tiles checked, the notice -----


def run(script: Script, *args: str, flash: Path, players: int = 1) -> boxsim.Run:
    r = boxsim.run(script, "--players", str(players), "--flash", str(flash), *args,
                   heapsize=HEAP)
    assert r.returncode == 0, r.stderr[-3000:]
    assert not any(line.startswith("?") for line in r.lines), r.lines
    assert not r.events("fault"), r.events("fault")
    return r


def cut(s: Script) -> Script:
    """A power cut and the power back on (the harness reboots the firmware)."""
    s.lines.append("r")
    return s


def test_power_cut_at_every_safe_point_changes_nothing(tmp_path):
    """A 2-player game planned on the host; the power is cut after every throw and move."""
    plain, expect = plan_game(2, seed=4, strategy="greedy")
    r0 = run(plain, flash=tmp_path / "a", players=2)
    cuts = Script()
    held = False
    for line in plain.lines:  # the same script, with a cut after every event's settling time
        cuts.lines.append(line)
        w = line.split()
        if w[0] == "p" and int(w[1]) == pins.ROLL_PIN:
            held = int(w[2]) == pins.SWITCH_ACTIVE
        if w[0] == "w" and int(w[1]) >= 100 and not held:  # (a press cut short is lost)
            cut(cuts).wait(700)  # a throw saved while rolling rolls again for 600 ms
    r1 = run(cuts, flash=tmp_path / "b", players=2)
    assert len([x for x in r1.lines if x.startswith("RESET 0")]) > 20
    assert [e["score"] for e in r1.events("score")] == expect["scores"]
    assert [m["shut"] for m in r1.events("move")] == expect["moves"]
    assert r1.events("winner") == r0.events("winner")
    assert len(r1.events("resume")) > 20 and not r1.events("notice")


def test_a_throw_survives_a_cut_during_the_roll(tmp_path):
    """Pulling the plug while the dice roll does not buy a new throw."""
    s = Script().wait(100).dice(6, 5).click(120).wait(200)  # rolling
    cut(s).dice(1, 1).wait(900).state()
    r = run(s, flash=tmp_path)
    throws = r.events("throw")
    assert [t["dice"] for t in throws] == [[6, 5]]
    assert r.events("resume")[0]["state"] == "rolling"
    st0 = r.states()[0]
    assert st0["state"] == MOVE and (st0["a"], st0["b"]) == (6, 5)
    f = r.frames[-1]
    assert (face(f[2]), face(f[3])) == (6, 5)


def test_tiles_moved_while_off_blink_amber_until_put_back(tmp_path):
    s = Script().wait(100).dice(5, 4).click(120).wait(800).shut(9).wait(200)
    s.dice(6, 6).click(120).wait(800).shut(8, 4).wait(300)  # open: 1-3, 5-7
    cut(s.open(8).shut(2))  # the power goes, and someone knocks the box while it is off
    s.wait(100)
    t = s.ms
    s.wait(600).click(120).wait(800).state()  # Roll does nothing yet
    s.open(2).wait(50)
    s.shut(8).wait(100).state()
    s.dice(1, 2).click(120).wait(800).state()
    r = run(s, flash=tmp_path)
    assert r.events("resume")[0]["open"] == [1, 2, 3, 5, 6, 7]
    amber = {tuple(tiles_lit(f[1], "Y")) for f in r.frames if t <= f[0] < t + 600}
    assert amber == {(2, 8), ()}
    st = r.states()
    assert st[0]["state"] == READY and st[1]["state"] == READY
    assert st[2]["state"] == MOVE and len(r.events("throw")) == 3
    assert not r.events("error")  # a mismatch after a resume is not a player's mistake


def damage(raw: bytes, how: str) -> bytes:
    """The saved game's file (12-byte store header + payload), damaged in one way."""
    import random
    import zlib as z

    rng = random.Random(how)
    if how == "flipped":
        b = bytearray(raw)
        b[-3] ^= 0x40
        return bytes(b)
    if how == "truncated":
        return raw[:30]
    if how == "empty":
        return b""
    if how == "random":
        return bytes(rng.randrange(256) for _ in range(len(raw)))
    if how == "version":  # a payload layout this firmware does not know
        b = bytearray(raw)
        b[5] = 99
        return bytes(b)
    if how == "oversized":
        return raw + bytes(40_000)
    # "impossible": a whole, checksummed file whose game cannot be (state 9)
    payload = bytearray(raw[12:])
    payload[12] = 9
    head = bytearray(raw[:12])
    crc = z.crc32(bytes(payload), z.crc32(bytes(head[:8])))
    head[8:12] = crc.to_bytes(4, "little")
    return bytes(head + payload)


@pytest.mark.parametrize("how", ["flipped", "truncated", "empty", "random", "version",
                                 "oversized", "impossible"])
def test_a_damaged_save_shows_the_notice_then_a_new_game(tmp_path, how):
    s = Script().wait(100).dice(5, 4).click(120).wait(800).shut(9).wait(200)
    run(s, flash=tmp_path)
    path = tmp_path / "data" / "game"
    path.write_bytes(damage(path.read_bytes(), how))
    r = run(Script().wait(300).state().wait(2200).state(), flash=tmp_path)
    assert r.events("notice")[0]["tiles"] == [3]
    assert not r.events("resume")
    f = r.frame_at(250)
    assert face(f[2]) == face(f[3]) == 5 and "Y" in f[2]
    assert {tuple(tiles_lit(x[1], "Y")) for x in r.frames if x[0] < 2000} == {(3,), ()}
    assert "Y" not in "".join(r.frame_at(2400)[1:])  # gone after 2 s
    assert r.states()[0]["state"] == SETUP and r.states()[0]["player"] == 1
    saved = Store(str(tmp_path / "data")).load(resume.NAME, resume.VERSION)
    assert saved is not None and len(saved) == resume._SIZE  # replaced by the new game


def test_a_game_of_other_settings_is_quietly_replaced(tmp_path):
    """A saved game under other settings (changed in the settings menu): no notice."""
    s = Script().wait(100).dice(5, 4).click(120).wait(800).shut(9).wait(200)
    run(s, flash=tmp_path, players=2)
    r = run(Script().wait(300).state(), flash=tmp_path, players=3)
    assert not r.events("notice") and not r.events("resume")
    assert r.states()[0]["state"] == SETUP


def test_holding_roll_five_seconds_starts_a_new_game(tmp_path):
    s = Script().wait(100).dice(5, 4).click(120).wait(800).shut(9).wait(200)
    s.dice(6, 6).click(120).wait(800).shut(8, 4).wait(300)
    cut(s.open(8))  # a mismatch: the resumed game is held ...
    s.wait(100)
    s.hold(5200).wait(100).state()  # ... and the hold abandons it anyway
    s.open(4, 9).wait(100).dice(2, 2).click(120).wait(800).state()
    r = run(s, flash=tmp_path, players=2)
    assert len(r.events("game")) == 2  # the first game, then the new one (the resume between)
    st = r.states()
    assert st[0]["state"] == SETUP and st[0]["player"] == 1 and st[0]["scores"] == [0, 0]
    assert st[1]["state"] == MOVE and (st[1]["a"], st[1]["b"]) == (2, 2)
    assert r.events("throw")[-1]["open"] == list(range(1, 10))


def test_the_new_paths_allocate_nothing_on_an_idle_poll(tmp_path):
    """Under heap_lock: a resumed box waiting for its tiles, the boot notice, Roll held."""
    s = Script().wait(100).dice(5, 4).click(120).wait(800).shut(9).wait(200)
    cut(s.open(9))  # resumed with tile 9 up: the hold
    s.wait(100).lockcheck(300)
    s.shut(9).wait(100).lockcheck(300)  # matched: play on, saving nothing while idle
    s.press().wait(100).lockcheck(300)  # Roll held: the 5-second timer runs
    s.release().wait(100)
    r = run(s, flash=tmp_path)
    locks = [line for line in r.lines if line.startswith("LOCK")]
    assert locks == ["LOCK 300 300"] * 3, locks
    path = tmp_path / "data" / "game"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 1
    path.write_bytes(bytes(raw))
    r = run(Script().wait(20).lockcheck(300), flash=tmp_path)  # the notice showing
    assert r.events("notice") and r.lines[-1] == "LOCK 300 300", r.lines


def test_a_computer_turn_resumes_without_waiting_for_the_tiles(tmp_path):
    """The computer plays on virtual tiles: after a cut in its turn the box's own don't count."""
    eng = Engine(Rules())
    settings_ = Settings(players=1, computer=2)
    g = Game(eng, Dice(Stream(3), 1), settings_, eng.full, T0)
    now = T0
    for _ in range(2000):  # the person's turn, played carefully, until the computer's turn
        if g.cpu.playing() and g.state == READY:
            break
        for prim in resolve(g, careful(g, now), g.levels):
            now, _ = apply(g, prim, now, g.levels)
    else:
        raise AssertionError("the computer's turn never came")
    store = Store(str(tmp_path / "data"))
    store.save(resume.NAME, resume.snapshot(g), resume.VERSION)
    b = Game(eng, Dice(Stream(4), 1), Settings(players=1, computer=2), eng.full, now)
    rs = resume.Resume(store)
    assert rs.load(b, 0, now) == resume.OK  # the box's tiles: all shut, say
    assert b.cpu.playing() and rs.expect == -1
    for _ in range(3000):  # the computer plays its turn by itself
        now += 10
        b.tick(now)
        if [r for r in b.log if r["ev"] == "score"]:
            break
    score = [r for r in b.log if r["ev"] == "score"]
    assert score and score[0]["player"] == 2


# ----- the match: rounds, totals, stakes, the roll-off and the turn variants -----

# Settings that keep state in shutbox.rounds.Match (formats, ties, stakes, turn variants).
MATCHES = [
    {"format": 1, "stakes": 1},
    {"format": 2, "same_throws": 1, "tie": 2},
    {"format": 3, "stakes": 1, "tie": 1},
    {"format": 4, "tie": 2, "unlucky7": 1, "stakes": 1},
    {"tie": 1, "to_go": 1, "most_tiles": 1},
    {"format": 1, "tie": 1, "stakes": 1, "same_throws": 1, "unlucky7": 1, "to_go": 2},
]


def match_game(kw, players, stream, now=T0):
    eng = Engine(Rules())
    return Game(eng, Dice(stream, 1), Settings(players=players, **kw), eng.start_open, now)


def match_state(g):
    """Everything a match keeps, beside the game's own fields."""
    m = g.match
    seq = rounds._SEQ + m.st[rounds._SEQ_N]
    return (g.state, g.player, g.open_, g.scores, g.played, g.winners, g.best_score, m.round,
            m.tiebreak, m.rscores, m.balance, bytes(m.st[:seq]))


def play_out(g, seed, limit=4000):
    """Play *g* to its end, carefully (some moves at random); return the primitives and the
    checkpoints where the app saves (as play())."""
    import random

    rng = random.Random(seed)
    now, levels = T0, g.engine.start_open
    prims, points = [], []
    seen = g.transitions
    for _ in range(limit):
        if g.state == GAME_END:
            break
        act = careful(g, now)
        if act[0] == "p" and rng.random() < 0.4:
            act = ("m", rng.randrange(30))
        now, levels, seen = play_act(g, act, now, levels, seen, prims, points)
    assert g.state == GAME_END, "the match did not end"
    return prims, points


@pytest.mark.parametrize("kw", MATCHES)
def test_a_restored_match_goes_on_exactly_as_the_original(kw):
    """A whole match (2 or 3 players), cut at checkpoints all through it: mid-round, between
    rounds, at the game's end. Restored into a new box with the same dice to come, it logs
    exactly what the original logged, and ends with the same totals, balances and rounds."""
    for players, seed in ((2, 11), (3, 12)):
        a = match_game(kw, players, Stream(seed))
        prims, points = play_out(a, seed)
        assert a.log[-1]["ev"] == "winner" and a.log[-1]["rounds"] == a.match.round
        assert sum(a.match.balance) == 0
        assert bool([r for r in a.log if r["ev"] == "stakes"]) == bool(kw.get("stakes"))
        step = max(1, len(points) // 25)
        for i, now, levels, snap, pos, nlog in points[::step] + points[-1:]:
            assert len(snap) > resume._SIZE and snap[59] == len(snap) - resume._SIZE
            b = match_game(kw, players, Stream(seed, pos), now)
            assert resume.restore(b, snap, now) == resume.OK
            assert bytes(resume.snapshot(b)) == snap  # the same match, byte for byte
            b.tiles_changed(levels, now)
            for prim in prims[i:]:
                now, levels = apply(b, prim, now, levels)
            assert visible(b.log) == visible(a.log[nlog:])
            assert match_state(b) == match_state(a)


def tied_for_a_roll_off(kw=None):
    """Two players both score 33 under unlucky-7, tie roll-off: the game enters ROLLOFF.
    Return the game, the clock, and the list of faces its dice take from (append to it)."""
    faces: list[int] = []
    eng = Engine(Rules())
    g = Game(eng, Dice(lambda n: bytes(faces.pop(0) - 1 for _ in range(n)), 1),
             Settings(players=2, tie=1, unlucky7=1, **(kw or {})), eng.full, T0)
    now = T0
    for _ in range(2):
        g.tiles_changed(eng.full, now)  # the box set up for the turn
        for a, b, shut in ((6, 6, (1 << 2) | (1 << 8)), (3, 4, 0)):
            faces += [a, b]
            g.roll(False, now)
            now += 700
            g.tick(now)
            if shut:
                g.tiles_changed(g.levels & ~shut, now)
        assert g.state == TURN_END and g.score == 33
        now += 800
        g.roll(False, now)
    assert g.state == ROLLOFF
    return g, now, faces


def test_a_roll_off_survives_a_power_cut():
    """Cut before any die, after one, and after a tie that throws again: the restored box
    shows the same LEDs and the roll-off ends the same way."""
    g, now, faces = tied_for_a_roll_off({"stakes": 1})
    # each Roll press: player 1 throws a 4, player 2 a 4, a tie (they throw again), 5, 2: the
    # lowest die, player 2, wins
    presses = [4, 4, None, 5, 2, None]
    snaps = []
    for i, d in enumerate(presses):
        frame = bytes(g.render(now + 100))
        snaps.append((bytes(resume.snapshot(g)), now, presses[i:], frame))
        now += 800
        if d is not None:
            faces.append(d)
        seen = g.transitions
        g.roll(False, now)
        assert g.transitions != seen  # each press is saved (shutbox.resume saves new states)
    assert g.state == GAME_END and g.winners == 2
    assert [r["die"] for r in g.log if r["ev"] == "rolloff_die"] == [4, 4, 5, 2]
    for snap, t, rest, frame in snaps:
        assert snap[12] == ROLLOFF
        b, _, bfaces = tied_for_a_roll_off({"stakes": 1})
        assert resume.restore(b, snap, t) == resume.OK
        assert b.log[0]["ev"] == "resume" and b.log[0]["state"] == "rolloff"
        assert b.state == ROLLOFF and bytes(b.render(t + 100)) == frame  # the same LEDs
        for d in rest:
            t += 800
            if d is not None:
                bfaces.append(d)
            b.roll(False, t)
        assert b.state == GAME_END and b.winners == 2
        assert b.log[-1] == g.log[-1]  # the winner record: scores, balance, rounds


SAME_THROWS = {"format": 1, "stakes": 1, "same_throws": 1}


@functools.cache
def _match_at(kw_items, state):
    kw = dict(kw_items)
    g = match_game(kw, 2, Stream(21))
    now = T0
    want = 2 if kw.get("format") else 1  # (a single round: the first)
    for _ in range(3000):
        if g.match.round == want and g.state == state and (state != READY or g.throws):
            return g, bytes(resume.snapshot(g)), now
        for prim in resolve(g, careful(g, now), g.levels):
            now, _ = apply(g, prim, now, g.levels)
    raise AssertionError("round 2 never came")


def match_snapshot(kw=None, state=SETUP):
    """A 2-player match under *kw* (3 rounds, stakes, same throws) in round 2 (1 for a single
    round), at *state*: the game (do not change it), its snapshot, the clock."""
    return _match_at(tuple(sorted((kw or SAME_THROWS).items())), state)


# The match's part of the snapshot, damaged: (what, a change to the payload).
def _set(i, v):
    def f(b):
        b[resume._SIZE + i] = v
    return f


_ST = resume._SIZE + rounds._NUMBERS + rounds._BALANCES  # with stakes
MATCH_DAMAGE = {
    "no match part": lambda b: b.__delitem__(slice(resume._SIZE, None)),
    "cut short": lambda b: b.__delitem__(slice(resume._SIZE + 20, None)),
    "recorded throws beyond their bytes": _set(rounds._NUMBERS + rounds._BALANCES
                                               + rounds._SEQ_N, 9),
    "first seat beyond the players": _set(rounds._NUMBERS + rounds._BALANCES, 2),
    "a player who is not in the game": _set(rounds._NUMBERS + rounds._BALANCES
                                            + rounds._IN_ROUND, 4),
    "a roll-off die of 7": _set(rounds._NUMBERS + rounds._BALANCES + rounds._DIES, 7),
    "a recorded throw of 7": lambda b: b.__setitem__(_ST + rounds._SEQ, 7 << 3 | 1),
    "a recorded throw of 0": lambda b: b.__setitem__(_ST + rounds._SEQ, 0 << 3 | 1),
}


@pytest.mark.parametrize("what", sorted(MATCH_DAMAGE))
def test_an_impossible_match_part_is_refused(what):
    g, snap, now = match_snapshot(state=READY)
    assert g.match.st[rounds._SEQ_N] >= 1  # same throws: the round's throws are recorded
    raw = bytearray(snap)
    MATCH_DAMAGE[what](raw)
    raw[59] = len(raw) - resume._SIZE
    b = match_game(SAME_THROWS, 2, Stream(1))
    before = untouched(b), match_state(b)
    assert resume.restore(b, bytes(raw), now) not in (resume.OK, resume._STALE)
    assert (untouched(b), match_state(b)) == before


def test_a_roll_off_of_one_player_is_refused():
    g, now, _ = tied_for_a_roll_off()
    raw = bytearray(resume.snapshot(g))
    b, _, _ = tied_for_a_roll_off()
    assert resume.restore(b, bytes(raw), now) == resume.OK
    i = resume._SIZE + rounds._NUMBERS + rounds._TIED
    for tied, roller in ((1, 0), (3, 1), (2, 0), (0, 0)):
        raw[i] = tied
        raw[i + 1] = roller
        ok = resume.restore(b, bytes(raw), now) == resume.OK
        assert ok == (tied == 3), (tied, roller)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_mutated_match_snapshots_are_refused_or_playable(data):
    """Any change to a match's snapshot: refused with the game untouched, or a match that
    plays on without an exception."""
    state = data.draw(st.sampled_from([SETUP, READY, MOVE, TURN_END]))
    kw = data.draw(st.sampled_from(MATCHES))
    g, snap, now = match_snapshot(kw, state)
    raw = bytearray(snap)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(resume._SIZE, len(raw) - 1))  # in the match's part
        raw[i] = data.draw(st.integers(0, 255))
    b = match_game(kw, 2, Stream(7))
    before = untouched(b), match_state(b)
    if resume.restore(b, bytes(raw), now) != resume.OK:
        assert (untouched(b), match_state(b)) == before
        return
    for _ in range(400):  # it plays on (a careful player) without an exception
        for prim in resolve(b, careful(b, now), b.levels):
            now, _ = apply(b, prim, now, b.levels)


def test_the_largest_match_part_fits():
    """12 tiles, digital scoring (47-bit scores), stakes with huge balances, same throws with
    every throw of a turn recorded: within the snapshot buffer, and read back exactly."""
    eng = Engine(Rules(tiles=12, scoring=1))
    kw = {"format": 3, "stakes": 1, "same_throws": 1, "tie": 1}
    g = Game(eng, Dice(Stream(3), 1), Settings(players=4, **kw), eng.full, T0)
    m = g.match
    m.round, m.tiebreak = 700, 3
    m.rscores[:] = [eng.score(eng.full)] * 4
    m.balance[:] = [-3 * 2 * eng.score(eng.full) * 40, 2 * 10**15, 5, 3 * 2 * eng.score(
        eng.full) * 40 - 2 * 10**15 - 5]
    m.st[rounds._SEQ_N] = 16
    for i in range(16):
        m.st[rounds._SEQ + i] = 6 << 3 | 6
    buf = bytearray(resume._SIZE + resume._EXTRA_MAX)
    snap = bytes(resume.snapshot(g, buf))
    assert len(snap) == resume._SIZE + 83 <= len(buf)
    b = Game(eng, Dice(Stream(3), 1), Settings(players=4, **kw), eng.full, T0)
    assert resume.restore(b, snap, T0) == resume.OK
    assert match_state(b) == match_state(g)


# ----- the match on the simulated board, booted as on the box (settings from flash) -----


def boot(flash: Path, script: Script, **kw) -> boxsim.Run:
    """Run *script* on the box whose flash is *flash*, booting as app.main does (powerup),
    with the settings *kw* saved there first (when given)."""
    from shutbox import setfile

    if kw:
        flash.mkdir(exist_ok=True)
        assert setfile.save(Settings(**kw), Store(str(flash / "data"))) == OK
    r = boxsim.run(script, "--flash", str(flash), "--powerup", heapsize="256k")
    assert r.returncode == 0, r.stderr[-3000:]
    assert not any(line.startswith("?") for line in r.lines), r.lines
    assert not r.events("fault"), r.events("fault")
    return r


THREE_ROUNDS = {"players": 2, "format": 1, "stakes": 1}


def test_power_cuts_all_through_a_match_change_nothing(tmp_path):
    """A 2-player, 3-round match with Canoga stakes: the power is cut after every throw,
    move and turn, mid-round and between rounds; the totals, the balances and the round
    number come out as without the cuts."""
    plain, expect = plan_game(6, seed=7, strategy="greedy")  # six turns: three rounds
    r0 = boot(tmp_path / "a", plain, **THREE_ROUNDS)
    cuts = Script()
    held = False
    for line in plain.lines:
        cuts.lines.append(line)
        w = line.split()
        if w[0] == "p" and int(w[1]) == pins.ROLL_PIN:
            held = int(w[2]) == pins.SWITCH_ACTIVE
        if w[0] == "w" and int(w[1]) >= 100 and not held:
            cut(cuts).wait(700)
    r1 = boot(tmp_path / "b", cuts, **THREE_ROUNDS)
    win = r0.events("winner")
    assert len(win) == 1 and win[0]["rounds"] == 3 and sum(win[0]["balance"]) == 0
    assert [e["score"] for e in r1.events("score")] == expect["scores"]
    assert r1.events("winner") == win
    assert r1.events("stakes") == r0.events("stakes")  # each round settled once, the same
    assert [e["round"] for e in r1.events("round")] == [1, 2, 3]
    resumes = r1.events("resume")
    assert len(resumes) > 40 and not r1.events("notice")
    assert len(r1.events("game")) == 1  # never a new game
    # cuts between rounds: the box resumed at the first turn of rounds 2 and 3
    firsts = [i for i, e in enumerate(r1.log) if e["ev"] == "round"]
    for i in firsts[1:]:
        after = [e for e in r1.log[i:] if e["ev"] in ("resume", "throw")][0]
        assert after["ev"] == "resume" and after["state"] == "setup"


def test_a_roll_off_resumes_on_the_box(tmp_path):
    s = Script().wait(100)
    for _ in range(2):  # both players: 6+6 (3 and 9), then a 7: 33 each
        s.dice(6, 6).click(120).wait(800).shut(9).wait(80).shut(3).wait(200)
        s.dice(3, 4).click(120).wait(800)
        s.wait(1000).click(120).wait(150).open(3, 9).wait(100)
    cut(s).wait(300)  # in the roll-off, before any die
    s.wait(600).dice(5).click(120).wait(300)
    cut(s).wait(300)  # after player 1's die: it stands (no new throw for the cut)
    t = s.ms
    s.state().wait(600).dice(2).click(120).wait(800).click(120).wait(300)
    r = boot(tmp_path, s, players=2, tie=1, unlucky7=1)
    assert [e["state"] for e in r.events("resume")] == ["rolloff", "rolloff"]
    assert [e["die"] for e in r.events("rolloff_die")] == [5, 2]
    win = r.events("winner")
    assert len(win) == 1 and win[0]["players"] == [2] and win[0]["scores"] == [33, 33]
    shown = r.frame_at(t)  # resumed: player 1 (die A) threw a 5 (die B); both tiles magenta
    assert face(shown[2]) == 1 and face(shown[3]) == 5
    assert {tuple(tiles_lit(f[1], "M")) for f in r.frames if t <= f[0] < t + 600} == {
        (1, 2), ()}


@pytest.mark.parametrize("what", ["recorded throws beyond their bytes", "no match part",
                                  "a roll-off die of 7"])
def test_a_damaged_match_part_shows_the_notice_then_a_new_game(tmp_path, what):
    kw = {"players": 2, "format": 1, "stakes": 1, "same_throws": 1, "unlucky7": 1}
    s = Script().wait(100)
    for p in range(2):  # round 1: 6+6 (3 and 9), then a 7; player 2 gets the same throws
        s.dice(*([6, 6] if p == 0 else [])).click(120).wait(800).shut(9).wait(80).shut(3)
        s.wait(200).dice(*([3, 4] if p == 0 else [])).click(120).wait(800)
        s.wait(1000).click(120).wait(150).open(3, 9).wait(100)
    s.dice(6, 6).click(120).wait(800).state()  # round 2: a throw, recorded
    r = boot(tmp_path, s, **kw)
    assert [e["round"] for e in r.events("round")] == [1, 2]
    assert r.events("throw")[1]["dice"] == [3, 4] and r.events("throw")[3]["dice"] == [3, 4]
    st0 = Store(str(tmp_path / "data"))
    raw = bytearray(st0.load(resume.NAME, resume.VERSION))
    assert len(raw) > resume._SIZE
    MATCH_DAMAGE[what](raw)
    raw[59] = len(raw) - resume._SIZE
    st0.save(resume.NAME, bytes(raw), resume.VERSION)  # whole, checksummed, impossible
    r = boot(tmp_path, Script().wait(300).state().wait(2200).state())
    assert r.events("notice")[0]["tiles"] == [3]
    assert not r.events("resume")
    assert r.events("round")[0]["round"] == 1 and r.states()[-1]["scores"] == [0, 0]
    assert r.states()[0]["state"] == SETUP and r.states()[0]["player"] == 1
    saved = st0.load(resume.NAME, resume.VERSION)
    assert saved is not None and saved != bytes(raw)  # replaced by the new game


def test_open_the_box_resumes_with_the_tiles_as_they_are(tmp_path):
    """Open the Box plays on mirrored levels (a tile down is one still to play): after a cut,
    the box waits for the physical tiles as the game left them, not for the mirrored ones."""
    s = Script().wait(100).shut(*range(1, 10)).wait(100)  # every tile face down to begin
    s.dice(3, 4).click(120).wait(800).open(7).wait(300)  # a 7: tile 7 opened, accepted
    cut(s).wait(300)
    t = s.ms
    s.wait(300).dice(5, 4).click(120).wait(800).state()  # Roll throws at once: no hold
    r = boot(tmp_path, s, players=1, open_box=1)
    assert [e["shut"] for e in r.events("move")] == [[7]]
    assert r.events("resume")[0]["state"] == "ready"
    assert not [f for f in r.frames if f[0] >= t and "Y" in f[1]]  # no tile blinks amber
    assert [e["dice"] for e in r.events("throw")] == [[3, 4], [5, 4]]
    assert r.states()[-1]["state"] == MOVE

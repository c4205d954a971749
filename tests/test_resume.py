# The game in progress survives a reboot: snapshot layout, restore checks, saves, the resumed box.
"""shutbox.resume on CPython (the game driven directly) and on the simulated board (power cuts).

On CPython, a game is played from random inputs; at a random safe point it is snapshotted and
restored into a fresh game, and both then get the same inputs and dice: the resumed game must
log exactly what the original logged. Damaged snapshots must be refused without touching the
game. Under MicroPython (boxsim, --flash), the power is cut at every safe point of a scripted
game, and the game must end with the same scores as without the cuts.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox import frame as fr
from shutbox import pins, resume
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, Game, Settings
from shutbox.store import BAD_CRC, MISSING, OK, Store
from shutbox_host import boxsim
from shutbox_host.boxsim import Script, face

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
    if not n:
        return [("t", 10)]
    move = buf[arg % n] if kind == "m" else game.engine.greedy_move(game.open_, game.a, game.b)
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
        for prim in resolve(game, act, levels):
            now, levels = apply(game, prim, now, levels)
            prims.append(prim)
            if game.transitions != seen:
                seen = game.transitions
                if game.state != MOVE:
                    points.append((len(prims), now, levels, bytes(resume.snapshot(game)),
                                   game.dice._urandom.pos, len(game.log)))
    return prims, points


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
    if st == TURN_END and now - g.t_state >= 800:
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
    assert len(snap) == resume.SIZE == 60 and snap[0] == resume.VERSION
    assert list(snap[1:7]) == [9, g.rules.one_die, g.rules.one_die_mode, g.rules.moves,
                               g.rules.scoring, g.rules.start]
    assert int.from_bytes(snap[7:11], "little") == fingerprint(g.settings)
    assert snap[11] == 3 and snap[12] == TURN_END and snap[13] == g.player
    assert snap[14] == 4 * g.shut_box and snap[15] == g.played == 7 and snap[16] == 0
    assert (snap[17], snap[18], snap[19]) == (g.a, g.b, g.throws)
    assert int.from_bytes(snap[21:23], "little") == g.open_
    for p in range(4):
        assert int.from_bytes(snap[23 + 6 * p:29 + 6 * p], "little") == g.scores[p]
    assert int.from_bytes(snap[47:53], "little") == g.score == g.scores[2]
    assert snap[59] == 0


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
    assert resume.restore(b, snap, now) == resume.STALE
    assert untouched(b) == before


def fingerprint(settings):
    from shutbox.settings import ATTRS

    return zlib.crc32(bytes(int(getattr(settings, a, 0)) & 0xFF for a in ATTRS))


def test_every_setting_is_in_the_fingerprint():
    """Any setting changed (in the settings menu, say) makes the saved game stale."""
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
        assert resume.restore(b, snap, T0) == resume.STALE, attr


BAD_FIELDS = [(0, 2), (12, 3), (12, 9), (13, 2), (14, 8), (15, 4), (16, 8), (17, 7), (18, 7),
              (20, 3), (22, 2), (59, 1)]


@pytest.mark.parametrize("index,value", BAD_FIELDS)
def test_impossible_fields_are_refused(index, value):
    g, now = some_game(READY)
    snap = bytearray(resume.snapshot(g))
    snap[index] = value
    b = new_game(Rules(), 2, False, Stream(1))
    before = untouched(b)
    assert resume.restore(b, bytes(snap), now) not in (resume.OK, resume.STALE)
    assert untouched(b) == before


def test_a_rolling_save_needs_a_throw_the_rules_allow():
    g, now = some_game(MOVE)
    snap = bytearray(resume.snapshot(g))
    snap[21:23] = (511).to_bytes(2, "little")  # every tile open: one die is not allowed ...
    snap[18] = 0  # ... but the save says one die
    b = new_game(Rules(), 2, False, Stream(1))
    assert resume.restore(b, bytes(snap), now) not in (resume.OK, resume.STALE)
    snap[17] = 0
    assert resume.restore(b, bytes(snap), now) not in (resume.OK, resume.STALE)


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
    assert b.sound == b"\x1e\x0a"
    f = bytearray(fr.size(9))
    rs.draw(f, wrong, 0)
    assert [k for k in range(9) if f[k] == fr.AMBER] == [k for k in range(9)
                                                          if (wrong ^ g.open_) >> k & 1]
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
    assert rs.load(b, b.levels, now) == BAD_CRC and resume.was_damaged(rs.status)
    assert b.state == SETUP and b.player == 0  # a new game
    assert rs.poll(b)  # saved at the first poll: the damage is gone
    assert store.load(resume.NAME, resume.VERSION) == bytes(resume.snapshot(b))
    assert not resume.was_damaged(resume.STALE) and not resume.was_damaged(MISSING)


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
    plain, expect = boxsim.plan_game(2, seed=4, strategy="greedy")
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
    amber = {tuple(boxsim.tiles_lit(f[1], "Y")) for f in r.frames if t <= f[0] < t + 600}
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
    assert {tuple(boxsim.tiles_lit(x[1], "Y")) for x in r.frames if x[0] < 2000} == {(3,), ()}
    assert "Y" not in "".join(r.frame_at(2400)[1:])  # gone after 2 s
    assert r.states()[0]["state"] == SETUP and r.states()[0]["player"] == 1
    saved = Store(str(tmp_path / "data")).load(resume.NAME, resume.VERSION)
    assert saved is not None and len(saved) == resume.SIZE  # replaced by the new game


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


def test_a_computer_turn_resumes_without_waiting_for_the_tiles():
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
    snap = bytes(resume.snapshot(g))
    b = Game(eng, Dice(Stream(4), 1), Settings(players=1, computer=2), eng.full, now)
    assert resume.restore(b, snap, now) == resume.OK
    assert b.cpu.playing() and resume.expected(b) == -1
    for _ in range(3000):  # the computer plays its turn by itself
        now += 10
        b.tick(now)
        if [r for r in b.log if r["ev"] == "score"]:
            break
    score = [r for r in b.log if r["ev"] == "score"]
    assert score and score[0]["player"] == 2

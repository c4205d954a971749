# Stateful fuzzing of the firmware through the simulated pins (shutbox_host.fuzzbox).
"""Hypothesis drives the real firmware under MicroPython with random physical events.

``make test`` runs a short campaign (about 40 s on one core); ``SHUTBOX_SLOW=1`` (make soak)
a long one. Both print the figures (examples, steps, events, records checked). The checker
itself is tested on fabricated logs, and the whole harness against a firmware with a planted
bug, so that a passing fuzz run means something.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from shutbox.engine import Rules
from shutbox_host import boxsim, fuzzbox
from shutbox_host.boxsim import mpy_cross_exe

SLOW = os.environ.get("SHUTBOX_SLOW") == "1"
QUICK = settings(max_examples=40, stateful_step_count=40, deadline=None, database=None,
                 print_blob=True,
                 suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=1000, stateful_step_count=60, deadline=None, database=None,
                print_blob=True,
                suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True, scope="module")
def _one_box():
    yield
    fuzzbox.close_shared()


def report(tag):
    s = fuzzbox.STATS
    print("\nFUZZ %s: %d examples, %d steps, %d physical events (%d pin changes, %d power "
          "cuts), %d log records checked (%d throws, %d moves, %d scores, %d resumes), "
          "%d games played to the end" % (tag, s["examples"], s["steps"], s["events"],
                                          s["pin_changes"], s["power_cuts"], s["records"],
                                          s["throws"], s["moves"], s["scores"],
                                          s["resumes"], s["finished"]))


def fresh_stats():
    for k in fuzzbox.STATS:
        fuzzbox.STATS[k] = 0


def test_fuzz_the_box():
    fresh_stats()
    run_state_machine_as_test(fuzzbox.BoxMachine, settings=QUICK)
    report("quick")
    s = fuzzbox.STATS
    assert s["examples"] >= 40 and s["finished"] == s["examples"]  # each ended in a new game
    # enough happened to mean something (the counts vary with the random settings)
    assert s["events"] > 1000 and s["moves"] > 40 and s["power_cuts"] > 10 and s["resumes"]


@pytest.mark.slow
def test_fuzz_the_box_long():
    fresh_stats()
    run_state_machine_as_test(fuzzbox.BoxMachine, settings=LONG)
    report("long")
    assert fuzzbox.STATS["finished"] == fuzzbox.STATS["examples"] >= 1000


# ----- the checker can fail -----


def rec(ev, **kw):
    return dict(ev=ev, **kw)


def started(rules=None, players=2):
    c = fuzzbox.Checker(rules or Rules(), players)
    c.check(rec("game", players=players))
    c.check(rec("turn", player=1, open=list(range(1, 10))))
    return c


def test_the_checker_passes_a_correct_turn():
    c = started()
    c.check(rec("throw", player=1, dice=[5, 4], total=9, open=list(range(1, 10)), moves=8))
    c.check(rec("move", player=1, dice=[5, 4], shut=[9], open=list(range(1, 9))))
    c.check(rec("throw", player=1, dice=[6, 6], total=12, open=list(range(1, 9)), moves=10))
    c.check(rec("move", player=1, dice=[6, 6], shut=[4, 8], open=[1, 2, 3, 5, 6, 7]))


BAD = {
    "an illegal move": [rec("throw", player=1, dice=[2, 1], total=3, open=list(range(1, 10)),
                            moves=2),
                        rec("move", player=1, dice=[2, 1], shut=[4], open=[1, 2, 3, 5, 6, 7,
                                                                            8, 9])],
    "two moves for one throw": [
        rec("throw", player=1, dice=[2, 1], total=3, open=list(range(1, 10)), moves=2),
        rec("move", player=1, dice=[2, 1], shut=[3], open=[1, 2, 4, 5, 6, 7, 8, 9]),
        rec("move", player=1, dice=[2, 1], shut=[1, 2], open=[4, 5, 6, 7, 8, 9])],
    "a throw out of range": [rec("throw", player=1, dice=[7, 1], total=8,
                                 open=list(range(1, 10)), moves=1)],
    "one die not allowed": [rec("throw", player=1, dice=[4], total=4, open=list(range(1, 10)),
                                moves=1)],
    "a wrong move count": [rec("throw", player=1, dice=[2, 1], total=3,
                               open=list(range(1, 10)), moves=3)],
    "a wrong score": [rec("throw", player=1, dice=[1, 1], total=2, open=[1, 3], moves=0),
                      rec("score", player=1, score=3, open=[1, 3], shut_box=False)],
    "a turn ended early": [rec("throw", player=1, dice=[1, 1], total=2,
                               open=list(range(1, 10)), moves=1),
                           rec("score", player=1, score=45, open=list(range(1, 10)),
                               shut_box=False)],
    "a fault": [rec("fault", n=1, error="RuntimeError", text="x", safe=False)],
}


@pytest.mark.parametrize("what", sorted(BAD))
def test_the_checker_catches(what):
    c = started()
    c.open = None if what == "a wrong score" else c.open
    with pytest.raises(AssertionError):
        for r in BAD[what]:
            c.check(r)


def test_the_checker_knows_the_scoring_rules():
    c = started(Rules(scoring=1))  # digital
    c.check(rec("resume", state="rolling", player=1, open=[1, 3], dice=[1, 1], scores=[0, 0]))
    c.check(rec("throw", player=1, dice=[1, 1], total=2, open=[1, 3], moves=0))
    with pytest.raises(AssertionError):
        c.check(rec("score", player=1, score=4, open=[1, 3], shut_box=False))
    c2 = started(Rules(scoring=1))
    c2.check(rec("resume", state="rolling", player=1, open=[1, 3], dice=[1, 1], scores=[0, 0]))
    c2.check(rec("throw", player=1, dice=[1, 1], total=2, open=[1, 3], moves=0))
    c2.check(rec("score", player=1, score=13, open=[1, 3], shut_box=False))


# ----- the whole harness catches a planted bug -----


def broken_tree(tmp_path, old, new):
    """A copy of the simulated board's build with game.py changed (old -> new)."""
    tree = tmp_path / "tree"
    shutil.copytree(boxsim.build(), tree, symlinks=True)
    src = (boxsim.mp.FIRMWARE / "shutbox" / "game.py").read_text()
    assert old in src
    (tmp_path / "game.py").write_text(src.replace(old, new))
    subprocess.run([mpy_cross_exe(), "-o", str(tree / "shutbox" / "game.mpy"),
                    str(tmp_path / "game.py")], check=True)
    return tree


def test_the_fuzzer_catches_a_score_that_ignores_the_scoring_rule(tmp_path):
    tree = broken_tree(tmp_path, "self.score = self.engine.score(self.open_)",
                       "self.score = tile_sum(self.open_)")

    class Broken(fuzzbox.BoxMachine):
        pass

    Broken.tree = tree
    cfg = settings(max_examples=30, stateful_step_count=10, deadline=None, database=None,
                   phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    with pytest.raises(AssertionError, match="scoring rule"):
        run_state_machine_as_test(Broken, settings=cfg)
    fuzzbox.close_shared()

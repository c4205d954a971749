# Whole games played by the firmware's own game on CPython: their log, for the bench and the tests.
"""Play whole games through ``shutbox.game.Game`` (the box's pure state machine, on CPython)
and return the log records it makes, as the box prints them.

The players' choices come from a *policy* per seat (the computer's seat, with the setting on,
plays itself through shutbox.computer, at its pace on the game's clock); the dice are the
box's own ``shutbox.dice.Dice`` on a seeded byte stream, so a seed gives the same games.
The records begin with the ``settings`` record the box prints at boot (shutbox.powerup's);
the rest is ``Game.log`` as the app prints it: ``game``, ``turn``, ``throw``, ``move``,
``score``, ``turn_end``, ``winner``, and those of rounds and rules (shutbox.rounds).

A policy has ``one_die(open_, locked) -> bool`` (asked only where the rules let the player
choose) and ``move(open_, a, b, locked, allowed) -> mask`` (one of *allowed*, the moves the
game accepts for the throw, b == 0 for one die). ``policy(name)`` makes the named ones.
"""

from __future__ import annotations

import json
import random

from shutbox import setfile
from shutbox.dice import Dice
from shutbox.engine import Engine
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, Game
from shutbox.settings import Settings

T0 = 1 << 29  # the game's clock starts here (the box's ticks: well inside the wrap)
POLICIES = ("best", "greedy", "random")


class Policy:
    """A player as the engine plays: ``best`` (the optimal-play table: the box's hard level),
    ``greedy`` (the solver's page's rule of thumb, docs/rules.md; one die when the open tiles
    add up to 6 or less) or ``random`` (any allowed move, a coin for the dice)."""

    def __init__(self, name: str, engine: Engine, rng: random.Random):
        if name not in POLICIES:
            raise ValueError("unknown policy %r: choose one of %s" % (name, ", ".join(POLICIES)))
        self.name = name
        self.engine = engine
        self.rng = rng

    def one_die(self, open_: int, locked: bool) -> bool:
        """One die (True) or two, where the rules let the player choose."""
        if self.name == "best":
            return self.engine.choose_one_die(open_, locked)
        if self.name == "greedy":
            return self.engine.computer_one_die(2, open_, locked, 0)  # LEVEL_MEDIUM
        return self.rng.random() < 0.5

    def move(self, open_: int, a: int, b: int, locked: bool, allowed: list[int]) -> int:
        """The move to make, one of *allowed*."""
        e = self.engine
        if self.name == "random":
            return self.rng.choice(allowed)
        m = e.best_move(open_, a, b, locked) if self.name == "best" else e.greedy_move(
            open_, a, b)
        if m in allowed:
            return m
        if self.name == "greedy":
            return allowed[0]  # a setting removed it: the first allowed (greedy order)
        return min(allowed, key=lambda x: e.expected(open_ & ~x, locked or b == 0))


def settings_record(s: Settings, status: int = 0) -> dict:
    """The ``settings`` record the box prints at boot under *s* (shutbox.powerup's)."""
    return {"ev": "settings", "v": 3, "status": status,
            "values": [setfile.index(s, i) for i in range(len(setfile.ATTRS))],
            "code": "%04d" % s.code if s.code >= 0 else "off"}


def play(games: int = 1, players: int = 1, policies=None, seed: int = 0, tiles: int = 9,
         **options) -> list[dict]:
    """Play *games* whole games of *players* people (and the computer with
    ``computer=LEVEL``) under the settings *options* (shutbox.settings attribute names);
    return every record of the log, the boot's ``settings`` record first.

    *policies*: a policy for every person's seat, a list of one per seat (seat 1 first), or
    a name (POLICIES); default ``best``.
    """
    s = Settings(players=players, **options)
    eng = Engine(setfile.rules(s, tiles))
    rng = random.Random(seed)
    if policies is None or isinstance(policies, str):
        policies = [Policy(policies or "best", eng, rng)] * 4
    elif not isinstance(policies, list):
        policies = [policies] * 4
    policies = [Policy(p, eng, rng) if isinstance(p, str) else p for p in policies]
    out = [settings_record(s)]
    now = T0
    g = Game(eng, Dice(rng.randbytes), s, eng.start_open, now)
    levels = eng.start_open  # the box's own tiles
    for n in range(games):
        if n:
            now += 800
            g.roll(True, now)  # a long press at the game's end: a new game
        steps = 0
        while g.state != GAME_END:
            steps += 1
            if steps > 100000:
                raise AssertionError("the game does not end: %s" % json.dumps(g.log[-5:]))
            st = g.state
            if st == SETUP and levels != g.open_:
                levels = g.open_  # the next player sets the box up
                g.tiles_changed(levels, now)
            if g.cpu is not None and g.cpu.playing():
                now += 100
                g.tick(now)
                continue
            if st == SETUP or st == READY:
                choice = g.one_die_choice()
                one = choice == 1 and policies[g.player].one_die(g.open_, g.locked)
                g.roll(one, now)
            elif st == ROLLING:
                now += 100
                g.tick(now)
            elif st == MOVE:
                if g.pending:  # an extendable move: accepted after a pause
                    now += 100
                    g.tick(now)
                    continue
                allowed = list(g.legal[:g.moves])
                m = policies[g.player].move(g.open_, g.a, g.b, g.locked, allowed)
                levels = g.open_ & ~m
                g.tiles_changed(levels, now)
            else:  # TURN_END, a roll-off: Roll, once the view has shown a while
                now += 800
                g.tick(now)
                g.roll(False, now)
            now += 10
            g.tick(now)
        out += g.log
        g.log.clear()
    return out


def write(records: list[dict], path) -> None:
    """Write *records* to *path* as the box prints them: one JSON object per line."""
    with open(path, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec) + "\n")


__all__ = ["GAME_END", "MOVE", "POLICIES", "READY", "ROLLING", "SETUP", "TURN_END", "Policy",
           "play", "settings_record", "write"]

# Whole games planned on the host, as a careful family would play them on the box.
"""A game's script and what the box must log of it (``plan_game``): the scenario suite, the
bench and the reliability tests replay it on the simulated board."""

from __future__ import annotations

import random

from shutbox import pins
from shutbox_host.model.script import ROLL_MS, Script


def plan_game(players: int, seed: int = 1, strategy: str = "best",
              code: int | None = None) -> tuple[Script, dict]:
    """Plan a whole game as a careful family would play it on the box.

    The dice come from a seeded generator and are fed to the box, or with a challenge *code*
    (the box's settings ``code``, the other settings the defaults) they are the code's
    (shutbox_host.box.daily.throws: what the box must throw) and are not fed; the moves come
    from the CPython engine (``best``, ``greedy`` or ``random`` legal moves, one die where
    the rules allow it and the strategy prefers it). Returns the script and what the box must
    log: ``{"scores": [...], "throws": [[a, b], ...], "moves": [[tiles], ...]}``.
    """
    from shutbox.engine import MAX_MOVES as _MAX
    from shutbox.engine import Engine, Rules

    rng = random.Random(seed)
    eng = Engine(Rules(tiles=pins.TILES))
    all_tiles = list(range(1, pins.TILES + 1))
    s = Script().wait(100)
    expect: dict = {"scores": [], "throws": [], "moves": []}
    buf = [0] * _MAX
    for player in range(players):
        s.open(*all_tiles).wait(150)
        open_, locked = eng.start_open, False
        if code is not None:
            from shutbox_host.box import daily

            coded = daily.throws(code, None, pins.TILES, player)
        j = 0  # the turn's throws so far
        while True:
            if eng.one_die_allowed(open_):
                if strategy == "random":
                    one = rng.random() < 0.5
                else:
                    one = eng.choose_one_die(open_, locked)
            else:
                one = False
            if code is None:
                a, b = rng.randint(1, 6), (0 if one else rng.randint(1, 6))
                s.dice(*([a] if one else [a, b]))
            else:  # the code's throw j (one die: its die A)
                a, b = coded[j]
                b = 0 if one else b
            j += 1
            (s.hold(900) if one else s.click(120)).wait(ROLL_MS)
            locked = locked or (one and eng.rules.one_die_mode == 1)
            expect["throws"].append([a, b] if b else [a])
            n = eng.legal_into(open_, a, b, buf)
            if n == 0:
                break
            if strategy == "best":
                move = eng.best_move(open_, a, b, locked)
            elif strategy == "greedy":
                move = eng.greedy_move(open_, a, b)
            else:
                move = buf[rng.randrange(n)]
            tiles = [k for k in all_tiles if move >> (k - 1) & 1]
            expect["moves"].append(tiles)
            for k in sorted(tiles, reverse=True):
                s.shut(k).wait(80)
            s.wait(120)
            open_ &= ~move
            if open_ == 0:
                break
        expect["scores"].append(eng.score(open_))
        s.wait(1000).click(120).wait(200)
    s.state()
    return s, expect

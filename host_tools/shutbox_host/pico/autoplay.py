# A careful player at the emulated box: reads the throws from the console, moves the tiles by pin.
"""Play the box on the emulated Pico through its GPIOs, checking every step with the engine.

The dice come from the chip (its os.urandom), so the player reads each ``throw`` record and
answers with the CPython engine's move (``best``, or ``greedy``), shutting the tiles one by
one; every throw's move count, every accepted move and every score is checked against the
engine on CPython as it happens (AssertionError otherwise).
"""

from __future__ import annotations

from shutbox import pins
from shutbox.engine import MAX_MOVES, Engine, Rules

_HOLD_MS = 900  # a long press of Roll (one die): the debouncer's long press is at 700 ms


def engine(rules: Rules | None = None) -> Engine:
    return Engine(rules or Rules(tiles=pins.TILES))


def shut_move(emu, move: int, gap_ms: float = 60) -> None:
    """Shut the tiles of *move* (a mask), the highest first, *gap_ms* apart."""
    for k in range(pins.TILES, 0, -1):
        if move >> (k - 1) & 1:
            emu.shut(k)
            emu.run(ms=gap_ms)


def play_turn(emu, eng: Engine, strategy: str = "best", gap_ms: float = 60,
              checks: list | None = None, after=None, open_: int | None = None,
              rolling: int | None = None) -> dict:
    """Play one whole turn from SETUP (tiles open) to its score; return the score record.
    *after*: called after each throw and each accepted move (the saves' safe points).
    A turn resumed after a power cut: *open_*, the tiles open (as the box shows them), and
    *rolling*, a throw under way (its record comes from that console line on)."""
    full = (1 << pins.TILES) - 1
    open_ = eng.start_open if open_ is None else open_
    locked = False
    buf = [0] * MAX_MOVES
    while True:
        one = eng.one_die_allowed(open_) and eng.choose_one_die(open_, locked)
        resumed = rolling is not None
        if rolling is None:
            n0 = len(emu.lines)
            emu.press()
            emu.run(ms=_HOLD_MS if one else 100)
            emu.release()
        else:
            n0, rolling = rolling, None
        throw = emu.wait_for(r'"ev": "(throw|refused)"', timeout_ms=3000, since=n0)
        assert throw["ev"] == "throw", throw
        a, b = (throw["dice"] + [0])[:2]
        if resumed:  # thrown before the cut, whatever this player would choose
            one = b == 0
        assert bool(b == 0) == bool(one), (throw, one)
        locked = locked or (one and eng.rules.one_die_mode == 1)
        n = eng.legal_into(open_, a, b, buf)
        assert throw["moves"] == n, (throw, n)
        assert throw["open"] == [k for k in range(1, pins.TILES + 1) if open_ >> (k - 1) & 1]
        if after is not None:
            after()
        if n == 0:
            break
        move = eng.best_move(open_, a, b, locked) if strategy == "best" else \
            eng.greedy_move(open_, a, b)
        tiles = [k for k in range(1, pins.TILES + 1) if move >> (k - 1) & 1]
        n0 = len(emu.lines)
        shut_move(emu, move, gap_ms)
        rec = emu.wait_for(r'"ev": "move"', timeout_ms=2000, since=n0)
        assert rec["shut"] == tiles, (rec, tiles)
        open_ &= ~move
        assert rec["open"] == [k for k in range(1, pins.TILES + 1) if open_ >> (k - 1) & 1]
        if checks is not None:
            checks.append((throw, rec))
        if after is not None:
            after()
        if open_ == 0:
            break
        emu.run(ms=gap_ms)
    score = emu.wait_for(r'"ev": "score"', timeout_ms=3000, since=n0)
    assert score["score"] == eng.score(open_ & full), (score, open_)
    return score


def play_game(emu, players: int = 2, strategy: str = "best", rules: Rules | None = None) -> dict:
    """Play a whole game from its first ``turn`` record; return the ``winner`` record."""
    eng = engine(rules)
    scores = []
    for p in range(players):
        score = play_turn(emu, eng, strategy)
        assert score["player"] == p + 1
        scores.append(score["score"])
        emu.run(ms=750)  # the score shows at least 700 ms before Roll passes the box on
        emu.set_open((1 << pins.TILES) - 1)
        emu.run(ms=60)
        n0 = len(emu.lines)
        emu.click(100)
        if p + 1 < players:
            turn = emu.wait_for(r'"ev": "turn"', timeout_ms=2000, since=n0)
            assert turn["player"] == p + 2
            emu.run(ms=100)
    win = emu.wait_for(r'"ev": "winner"', timeout_ms=2000, since=n0)
    best = min(scores)
    assert win["scores"] == scores and win["score"] == best
    assert win["players"] == [i + 1 for i, s in enumerate(scores) if s == best]
    return win

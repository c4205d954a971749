# Brute-force reference rules for the engine tests: plain subset search, no tables.
"""The rules of every variant written the slow, obvious way (subset search over open tiles)."""

from __future__ import annotations

# the variants' ints, read once here: shutbox.variants works each one out from its name at
# every access (its module __getattr__), and these rules run millions of times
from shutbox.variants import (
    MOVES_ANY,
    MOVES_DICE_OR_TOTAL,
    MOVES_ONE_TILE,
    ONE_DIE_HIGH_SHUT,
    ONE_DIE_NEVER,
    ONE_DIE_SUM_LE_6,
    SCORING_COUNT,
    SCORING_SUM,
    START_EVEN_OPEN,
    START_LOW_THREE_SHUT,
    START_ODD_OPEN,
)


def tiles_of(mask: int) -> list[int]:
    """Tile numbers of a mask, low to high."""
    return [k + 1 for k in range(mask.bit_length()) if mask >> k & 1]


def mask_of(tiles) -> int:
    """Mask of tile numbers."""
    m = 0
    for t in tiles:
        m |= 1 << (t - 1)
    return m


def submasks(open_: int):
    """Every non-empty subset of the open tiles."""
    sub = open_
    while sub:
        yield sub
        sub = (sub - 1) & open_


def allowed_by_rule(moves: int, sub: int, a: int, b: int) -> bool:
    """True when shutting exactly the tiles of *sub* is allowed for throw (a, b)."""
    tiles = sorted(tiles_of(sub))
    if moves == MOVES_ANY:
        return sum(tiles) == a + b
    if b == 0:
        return tiles == [a]
    total = a + b
    if moves == MOVES_DICE_OR_TOTAL:
        return tiles == [total] or (a != b and tiles == sorted([a, b]))
    if moves == MOVES_ONE_TILE:
        return len(tiles) == 1 and tiles[0] in (a, b, total)
    # kids: the total, one die, or both dice
    return tiles in ([total], [a], [b]) or (a != b and tiles == sorted([a, b]))


def legal(open_: int, moves: int, a: int, b: int) -> set[int]:
    """Every legal move mask, by subset search."""
    return {sub for sub in submasks(open_) if allowed_by_rule(moves, sub, a, b)}


def greedy(open_: int, moves: int, a: int, b: int) -> int:
    """Seed 001's rule of thumb: highest top tile, then fewest tiles, then higher tiles."""
    moves_ = legal(open_, moves, a, b)
    if not moves_:
        return 0
    return max(moves_, key=lambda m: (max(tiles_of(m)), -len(tiles_of(m)),
                                      sorted(tiles_of(m), reverse=True)))


def score(open_: int, scoring: int) -> int:
    """Final score: sum, digits read low to high, or the count of open tiles."""
    tiles = tiles_of(open_)
    if scoring == SCORING_SUM:
        return sum(tiles)
    if scoring == SCORING_COUNT:
        return len(tiles)
    return int("".join(str(t) for t in tiles)) if tiles else 0


def one_die_allowed(open_: int, one_die: int) -> bool:
    """The one-die rules, read from their names."""
    tiles = tiles_of(open_)
    if one_die == ONE_DIE_NEVER:
        return False
    if one_die == ONE_DIE_HIGH_SHUT:
        return all(t < 7 for t in tiles)
    if one_die == ONE_DIE_SUM_LE_6:
        return sum(tiles) <= 6
    return sum(tiles) < 6


def start_open(tiles: int, start: int) -> int:
    """Open tiles at the start of a turn."""
    every = range(1, tiles + 1)
    if start == START_LOW_THREE_SHUT:
        return mask_of(t for t in every if t > 3)
    if start == START_ODD_OPEN:
        return mask_of(t for t in every if t % 2)
    if start == START_EVEN_OPEN:
        return mask_of(t for t in every if t % 2 == 0)
    return mask_of(every)


def throws():
    """Every throw: two dice (a, b) and one die (a, 0)."""
    return [(a, b) for a in range(1, 7) for b in range(0, 7)]

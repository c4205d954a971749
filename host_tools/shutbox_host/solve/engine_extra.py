# Engine answers only the host asks for, computed from the firmware engine's own calls.
"""What the host tools and tests ask of shutbox.engine beyond what the box calls.

The box never needs these, so the firmware engine does not carry them: on the Pico every
function, method and name of an imported module costs heap (see docs/design.md). Each is
computed here from calls the engine does have, with the same answers as before.
"""

from __future__ import annotations

from array import array

from shutbox.engine import MAX_MOVES

LEVELS = ("off", "easy", "medium", "hard")  # the computer levels' names, by LEVEL_* int


def key(rules) -> tuple:
    """The variant as a tuple (tiles, one_die, one_die_mode, moves, scoring, start)."""
    return (rules.tiles, rules.one_die, rules.one_die_mode, rules.moves, rules.scoring,
            rules.start)


def has_move(eng, open_: int, a: int, b: int) -> bool:
    """False when throw (a, b) cannot be played: the turn is over (no greedy move)."""
    return eng.greedy_move(open_, a, b) != 0


def random_move(eng, open_: int, a: int, b: int, r: int) -> int:
    """The easy level's move: legal move number r % count in greedy order (0: none).

    *r* is a non-negative random int: uniform r over a range much larger than MAX_MOVES (or a
    multiple of the count) makes every legal move equally likely, as the solver's random
    policy assumes. The box's computer does the same over the moves its settings allow.
    """
    buf = array("H", [0] * MAX_MOVES)
    n = eng.legal_into(open_, a, b, buf)
    return buf[r % n] if n else 0


def table_bytes(eng) -> int:
    """Bytes of RAM the engine's optimal-play table takes (ranks and expected values of every
    layer; 0 without a table)."""
    return 2 * len(eng._ranks) + len(eng._exp)

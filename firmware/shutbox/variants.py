# The one variant vocabulary: the same names in the CLI, the box's settings and the docs.
"""Rule variants of Shut the Box as small ints, with their names.

Every option is stored as an int index into its tuple of names; the names are what the
CLI accepts (``--one-die high-shut``), what the docs use and what the settings file shows.
"""

from micropython import const

# one-die: when a player may throw a single die instead of two.
ONE_DIE_NEVER = const(0)  # always two dice (seed 001's standard rules and figures)
ONE_DIE_HIGH_SHUT = const(1)  # every tile of 7 and up is shut (7-8-9 on a nine-tile box)
ONE_DIE_SUM_LE_6 = const(2)  # the open tiles add up to 6 or less
ONE_DIE_SUM_LT_6 = const(3)  # the open tiles add up to less than 6
ONE_DIE = ("never", "high-shut", "sum-le-6", "sum-lt-6")

# one-die-mode: how the choice works once one die is allowed.
MODE_OPTIONAL = const(0)  # choose before each throw
MODE_LOCKED = const(1)  # once one die is chosen it stays for the rest of the turn
MODE_FORCED = const(2)  # one die must be thrown whenever it is allowed
ONE_DIE_MODE = ("optional", "locked", "forced")

# moves: which sets of open tiles a throw may shut.
MOVES_ANY = const(0)  # any open set adding up to the throw
MOVES_DICE_OR_TOTAL = const(1)  # the tile of the total, or the tiles of each die
MOVES_ONE_TILE = const(2)  # Jackpot / Thai style: one tile equal to a die or to the total
MOVES_KIDS = const(3)  # the total, one die, or both dice
MOVES = ("any", "dice-or-total", "one-tile", "kids")

# scoring: what the open tiles score when the turn ends (lowest wins).
SCORING_SUM = const(0)  # add the open tiles up
SCORING_DIGITAL = const(1)  # read the open tiles low to high as one number
SCORING_COUNT = const(2)  # count the open tiles (Missionary)
SCORING = ("sum", "digital", "count")

# start: which tiles are open when a turn begins.
START_ALL_OPEN = const(0)
START_LOW_THREE_SHUT = const(1)  # 1, 2 and 3 start shut
START_ODD_OPEN = const(2)  # only the odd tiles start open
START_EVEN_OPEN = const(3)  # only the even tiles start open
START = ("all-open", "low-three-shut", "odd-open", "even-open")

MIN_TILES = const(2)
MAX_TILES = const(12)
DEFAULT_TILES = const(9)

# Field order of a variant everywhere (CLI flags, settings file, table index).
FIELDS = ("one-die", "one-die-mode", "moves", "scoring", "start")
CHOICES = (ONE_DIE, ONE_DIE_MODE, MOVES, SCORING, START)


def index(names, name):
    """Return the index of *name* in *names*, or raise ValueError naming the choices."""
    for i in range(len(names)):
        if names[i] == name:
            return i
    raise ValueError("unknown %r: choose one of %s" % (name, ", ".join(names)))

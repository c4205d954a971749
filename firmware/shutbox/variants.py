# The one variant vocabulary: the same names in the CLI, the box's settings and the docs.
"""Rule variants of Shut the Box as small ints, with their names.

Every option is stored as an int: the index of its value's name in the option's tuple
below. The names are what the CLI accepts (``--one-die high-shut``), what the docs use, what
the settings file shows and what the game log writes.

The host tools and tests also use the ints by name: the option's prefix and the value's
name in capitals (``ONE_DIE_HIGH_SHUT`` is ``ONE_DIE.index("high-shut")``, 1). They are
answered by the module's __getattr__ rather than stored as globals: the box imports this
module only for the names the game log writes, and every global name would stay interned
in its RAM (the firmware modules keep private const copies of the ints they need).

  ONE_DIE_NEVER 0          always two dice (the standard rules and figures of the solver's page)
  ONE_DIE_HIGH_SHUT 1      every tile of 7 and up is shut (7-8-9 on a nine-tile box)
  ONE_DIE_SUM_LE_6 2       the open tiles add up to 6 or less
  ONE_DIE_SUM_LT_6 3       the open tiles add up to less than 6
  MODE_OPTIONAL 0          choose before each throw
  MODE_LOCKED 1            once one die is chosen it stays for the rest of the turn
  MODE_FORCED 2            one die must be thrown whenever it is allowed
  MOVES_ANY 0              any open set adding up to the throw
  MOVES_DICE_OR_TOTAL 1    the tile of the total, or the tiles of each die
  MOVES_ONE_TILE 2         Jackpot / Thai style: one tile equal to a die or to the total
  MOVES_KIDS 3             the total, one die, or both dice
  SCORING_SUM 0            add the open tiles up
  SCORING_DIGITAL 1        read the open tiles low to high as one number
  SCORING_COUNT 2          count the open tiles (Missionary)
  START_ALL_OPEN 0         every tile open
  START_LOW_THREE_SHUT 1   1, 2 and 3 start shut
  START_ODD_OPEN 2         only the odd tiles start open
  START_EVEN_OPEN 3        only the even tiles start open
  MIN_TILES 2, MAX_TILES 12, DEFAULT_TILES 9   the tile counts a box may have
"""

# one-die: when a player may throw a single die instead of two.
ONE_DIE = ("never", "high-shut", "sum-le-6", "sum-lt-6")

# one-die-mode: how the choice works once one die is allowed.
ONE_DIE_MODE = ("optional", "locked", "forced")

# moves: which sets of open tiles a throw may shut.
MOVES = ("any", "dice-or-total", "one-tile", "kids")

# scoring: what the open tiles score when the turn ends (lowest wins).
SCORING = ("sum", "digital", "count")

# start: which tiles are open when a turn begins.
START = ("all-open", "low-three-shut", "odd-open", "even-open")


def __getattr__(name):
    """The ints by name (see the module docstring); AttributeError for any other name.

    The prefixes and tile counts are constant tuples: their strings are not interned.
    """
    options = (ONE_DIE, ONE_DIE_MODE, MOVES, SCORING, START)
    prefixes = ("ONE_DIE_", "MODE_", "MOVES_", "SCORING_", "START_")
    for i in range(5):
        prefix = prefixes[i]
        value = name[len(prefix):].lower().replace("_", "-")
        if name.startswith(prefix) and value in options[i]:
            return options[i].index(value)
    tiles = (("MIN_TILES", 2), ("MAX_TILES", 12), ("DEFAULT_TILES", 9))
    for tiles_name, count in tiles:
        if name == tiles_name:
            return count
    raise AttributeError(name)

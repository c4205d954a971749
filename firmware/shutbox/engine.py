# Rules engine of Shut the Box: bitmask state, table-driven legal moves, scoring, best move.
"""Rules engine: the same code on the Pico (MicroPython) and on a PC (CPython).

State: an int mask of open tiles, tile k = bit k-1. A throw is (a, b): two dice, or one die
*a* with b == 0. Legal moves come from the generated candidate table (shutbox.movetab): a
candidate is legal when all its tiles are open. Nothing is searched at run time.

Optimal play comes from the generated table pack ``tables/nN.bin`` (see
host_tools/shutbox_host/tablegen.py for the format): per (open mask, locked flag) a uint16
dense rank of the exact expected final score (lower is better) with bit 15 set where one
die is the better choice, and the expected final score x 1000. The variant's table is read
once, with seek + readinto, into buffers made in __init__. Without a table for the variant
(another tile count, a missing file) best_move falls back to greedy_move.

The per-throw path (legal_into, best_move, greedy_move, has_move, is_legal and applying a
move as ``open_ & ~mask``) allocates nothing: only small ints and preallocated buffers.

Scores are ints. Digital scoring on 10 to 12 tiles exceeds MicroPython's small int (2**30):
score() and expected() then return a long int, which allocates; they are correct but are
not part of the allocation-free per-throw path (the rank is, and it stays small).
"""

from array import array

from micropython import const
from shutbox import movetab
from shutbox.variants import (
    DEFAULT_TILES,
    MAX_TILES,
    MIN_TILES,
    MODE_FORCED,
    MODE_LOCKED,
    MODE_OPTIONAL,
    MOVES,
    MOVES_ANY,
    ONE_DIE,
    ONE_DIE_HIGH_SHUT,
    ONE_DIE_MODE,
    ONE_DIE_NEVER,
    ONE_DIE_SUM_LE_6,
    SCORING,
    SCORING_COUNT,
    SCORING_DIGITAL,
    SCORING_SUM,
    START,
    START_ALL_OPEN,
    START_EVEN_OPEN,
    START_LOW_THREE_SHUT,
    START_ODD_OPEN,
)

MAX_MOVES = movetab.MAX_MOVES  # upper bound on the legal moves of any throw

_HEADER = const(8)  # b"STB1", tiles, count, 2 reserved
_ENTRY = const(16)  # one_die, mode, moves, scoring, layers, ewidth, 2 reserved, off0, off1
_ONE_DIE_FLAG = const(0x8000)
_RANK_MASK = const(0x3FFF)
_NO_RANK = const(0x4000)  # above every rank
_HIGH_TILES = const(0xFC0)  # tiles 7..12: shut for the high-shut one-die rule
_ODD_TILES = const(0x555)
_EVEN_TILES = const(0xAAA)
_GREEDY_ONE_DIE_SUM = const(6)  # without a table: one die when the open tiles add up to <= 6


class Rules:
    """One rule variant (ints from shutbox.variants); ValueError on a value out of range."""

    def __init__(self, tiles=DEFAULT_TILES, one_die=ONE_DIE_HIGH_SHUT,
                 one_die_mode=MODE_OPTIONAL, moves=MOVES_ANY, scoring=SCORING_SUM,
                 start=START_ALL_OPEN):
        if not MIN_TILES <= tiles <= MAX_TILES:
            raise ValueError("tiles must be 2..12")
        _check(one_die, ONE_DIE, "one-die")
        _check(one_die_mode, ONE_DIE_MODE, "one-die-mode")
        _check(moves, MOVES, "moves")
        _check(scoring, SCORING, "scoring")
        _check(start, START, "start")
        self.tiles = tiles
        self.one_die = one_die
        self.one_die_mode = one_die_mode
        self.moves = moves
        self.scoring = scoring
        self.start = start

    def key(self):
        """The variant as a tuple (tiles, one_die, one_die_mode, moves, scoring, start)."""
        return (self.tiles, self.one_die, self.one_die_mode, self.moves, self.scoring,
                self.start)

    def __eq__(self, other):
        return isinstance(other, Rules) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return "Rules(%d, %s, %s, %s, %s, %s)" % (
            self.tiles, ONE_DIE[self.one_die], ONE_DIE_MODE[self.one_die_mode],
            MOVES[self.moves], SCORING[self.scoring], START[self.start])


def _check(value, names, what):
    """Raise ValueError unless *value* indexes *names*."""
    if not (isinstance(value, int) and 0 <= value < len(names)):
        raise ValueError("bad %s: %r" % (what, value))


def tile_sum(open_):
    """Sum of the numbers of the open tiles."""
    total = 0
    k = 1
    while open_:
        if open_ & 1:
            total += k
        open_ >>= 1
        k += 1
    return total


def _u32(buf, i):
    """Little-endian uint32 at buf[i]."""
    return buf[i] | buf[i + 1] << 8 | buf[i + 2] << 16 | buf[i + 3] << 24


def _default_tables_dir():
    """The tables folder beside this module (``shutbox/tables`` when __file__ is unknown)."""
    try:
        here = __file__
    except NameError:
        return "shutbox/tables"
    i = here.rfind("/")
    return (here[:i] if i >= 0 else ".") + "/tables"


class Engine:
    """The rules of one variant: legal moves, end of turn, scoring and optimal play."""

    def __init__(self, rules=None, tables_dir=None):
        if rules is None:
            rules = Rules()
        self.rules = rules
        n = rules.tiles
        self.tiles = n
        self.full = (1 << n) - 1
        full = self.full
        start = rules.start
        if start == START_LOW_THREE_SHUT:
            self.start_open = full & ~7
        elif start == START_ODD_OPEN:
            self.start_open = full & _ODD_TILES
        elif start == START_EVEN_OPEN:
            self.start_open = full & _EVEN_TILES
        else:
            self.start_open = full
        self._one_die = rules.one_die
        self._mode = rules.one_die_mode
        self._scoring = rules.scoring
        self._high = full & _HIGH_TILES
        self._start = movetab.START[rules.moves]
        self._count = movetab.COUNT[rules.moves]
        self._masks = array("H", movetab.MASKS[rules.moves])
        self._size = 1 << n
        # optimal-play table; layers == 0 means none (greedy fallback)
        self._layers = 0
        self._ew = 0
        self._ranks = array("H")
        self._exp = bytearray(0)
        self.table_bytes = 0
        self._load(_default_tables_dir() if tables_dir is None else tables_dir)

    @property
    def has_table(self):
        """True when best_move and choose_one_die use the optimal-play table."""
        return self._layers != 0

    def _load(self, tables_dir):
        """Read this variant's table from the pack of its tile count, if there is one."""
        try:
            f = open("%s/n%d.bin" % (tables_dir, self.tiles), "rb")
        except OSError:
            return
        try:
            head = f.read(_HEADER)
            if len(head) != _HEADER or head[0:4] != b"STB1" or head[4] != self.tiles:
                raise ValueError("bad table pack for %d tiles" % self.tiles)
            directory = f.read(head[5] * _ENTRY)
            mode = self._mode if self._one_die != ONE_DIE_NEVER else MODE_OPTIONAL
            want = (self._one_die, mode, self.rules.moves, self._scoring)
            for i in range(0, len(directory), _ENTRY):
                if (directory[i], directory[i + 1], directory[i + 2],
                        directory[i + 3]) != want:
                    continue
                layers = directory[i + 4]
                ew = directory[i + 5]
                size = self._size
                # sized from range(): no temporary buffer as big as the table
                self._ranks = array("H", range(layers * size))
                self._exp = bytearray(ew * layers * size)
                ranks = memoryview(self._ranks)
                exp = memoryview(self._exp)
                for layer in range(layers):
                    f.seek(_u32(directory, i + 8 + 4 * layer))
                    got = f.readinto(ranks[layer * size:(layer + 1) * size])
                    got += f.readinto(exp[layer * size * ew:(layer + 1) * size * ew])
                    if got != (2 + ew) * size:
                        raise ValueError("short table pack for %d tiles" % self.tiles)
                self._layers = layers
                self._ew = ew
                self.table_bytes = (2 + ew) * layers * size
                return
        finally:
            f.close()

    # ----- rules -----

    def one_die_allowed(self, open_):
        """True when the rules allow one die now (whatever the mode)."""
        rule = self._one_die
        if rule == ONE_DIE_NEVER:
            return False
        if rule == ONE_DIE_HIGH_SHUT:
            return open_ & self._high == 0
        if rule == ONE_DIE_SUM_LE_6:
            return tile_sum(open_) <= 6
        return tile_sum(open_) < 6

    def legal_into(self, open_, a, b, buf):
        """Write the legal move masks of throw (a, b) into *buf*; return how many."""
        code = a * 7 + b
        i = self._start[code]
        end = i + self._count[code]
        masks = self._masks
        n = 0
        while i < end:
            m = masks[i]
            if m & open_ == m:
                buf[n] = m
                n += 1
            i += 1
        return n

    def is_legal(self, open_, a, b, mask):
        """True when shutting *mask* is a legal move for throw (a, b)."""
        if mask & open_ != mask:
            return False
        code = a * 7 + b
        i = self._start[code]
        end = i + self._count[code]
        masks = self._masks
        while i < end:
            if masks[i] == mask:
                return True
            i += 1
        return False

    def has_move(self, open_, a, b):
        """False when throw (a, b) cannot be played: the turn is over."""
        code = a * 7 + b
        i = self._start[code]
        end = i + self._count[code]
        masks = self._masks
        while i < end:
            m = masks[i]
            if m & open_ == m:
                return True
            i += 1
        return False

    def greedy_move(self, open_, a, b):
        """Seed 001's rule of thumb: the highest top tile, then the fewest tiles (0: none).

        The candidates are stored in that order, so the first legal one is the move.
        """
        code = a * 7 + b
        i = self._start[code]
        end = i + self._count[code]
        masks = self._masks
        while i < end:
            m = masks[i]
            if m & open_ == m:
                return m
            i += 1
        return 0

    def best_move(self, open_, a, b, locked=False):
        """The move minimising the expected final score (0: none); greedy without a table.

        *locked*: one die has been chosen earlier in the turn (locked mode). Among equally
        good moves the first in greedy order wins, as in the host solver.
        """
        layers = self._layers
        if layers == 0:
            return self.greedy_move(open_, a, b)
        base = 0
        if layers == 2 and (locked or b == 0):
            base = self._size
        ranks = self._ranks
        code = a * 7 + b
        i = self._start[code]
        end = i + self._count[code]
        masks = self._masks
        best = 0
        best_rank = _NO_RANK
        while i < end:
            m = masks[i]
            if m & open_ == m:
                r = ranks[base + (open_ ^ m)] & _RANK_MASK
                if r < best_rank:
                    best_rank = r
                    best = m
            i += 1
        return best

    def choose_one_die(self, open_, locked=False):
        """The optimal one-die decision before a throw (False where one die is not allowed)."""
        if not self.one_die_allowed(open_):
            return False
        mode = self._mode
        if mode == MODE_FORCED or (mode == MODE_LOCKED and locked):
            return True
        if self._layers == 0:
            return tile_sum(open_) <= _GREEDY_ONE_DIE_SUM
        return self._ranks[self._index(open_, locked)] & _ONE_DIE_FLAG != 0

    def _index(self, open_, locked):
        """Table index of (open_, locked)."""
        if locked and self._layers == 2:
            return self._size + open_
        return open_

    def score(self, open_):
        """Final score of the open tiles under the variant's scoring."""
        scoring = self._scoring
        value = 0
        k = 1
        if scoring == SCORING_COUNT:
            while open_:
                value += open_ & 1
                open_ >>= 1
            return value
        if scoring == SCORING_DIGITAL:
            # tiles read low to high as one number; 10..12 add two digits
            while open_:
                if open_ & 1:
                    value = value * (10 if k < 10 else 100) + k
                open_ >>= 1
                k += 1
            return value
        return tile_sum(open_)

    def expected(self, open_, locked=False):
        """Expected final score x 1000 under optimal play (table); -1 without a table."""
        if self._layers == 0:
            return -1
        ew = self._ew
        exp = self._exp
        j = self._index(open_, locked) * ew
        value = 0
        k = j + ew - 1
        while k >= j:
            value = value << 8 | exp[k]
            k -= 1
        return value

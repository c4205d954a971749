# Rules engine of Shut the Box: bitmask state, table-driven legal moves, scoring, best move.
"""Rules engine: the same code on the Pico (MicroPython) and on a PC (CPython).

State: an int mask of open tiles, tile k = bit k-1. A throw is (a, b): two dice, or one die
*a* with b == 0. Legal moves come from the generated candidate table (tables/moves.bin): a
candidate is legal when all its tiles are open. Nothing is searched at run time.

Optimal play comes from the generated table pack ``tables/nN.bin`` (see
host_tools/shutbox_host/solve/tablegen.py for the format): per (open mask, locked flag) a uint16
dense rank of the exact expected final score (lower is better) with bit 15 set where one
die is the better choice, and the expected final score x 1000. The variant's table is read
once, with seek + readinto, into buffers made in __init__. Without a table for the variant
(another tile count, a missing file) best_move falls back to greedy_move.

Beat-target hints come from ``tables/tN.bin`` (nine tiles: `any` moves, sum and count
scoring, every one-die rule and mode; format in tablegen.py), and so does the match-optimal
play of a round for the win (the pack's match situations: after a shut box on every variant,
seat 1 on the default one), read by set_target(-1 - situation) into the same buffer
(shutbox.target). set_target(T) reads the block
of target T (a final score strictly below T wins, one equal to T is half a win: a tie between
two players) into buffers made in __init__;
best_move_target, p_beat and choose_one_die_target then answer from it. Without a block for
the variant they fall back to min-expected play (p_beat says -1).

Post-turn analysis: move_loss and one_die_loss give what a choice cost in expected final
score x 1000 (0: optimal). Computer levels (LEVEL_*): easy = a random legal move (buf[r %
n] after legal_into), and a coin for the dice; medium = greedy_move, and one die when the
open tiles add up to 6 or less; hard = best_move and choose_one_die (computer_one_die gives
each level's dice; after set_target, hard plays best_move_target, the game's aim for the
turn). They are the host solver's policies "random" and "greedy" and its objectives
"min-expected", "beat-target" and "payout" (a match's), rule for rule.

The per-throw path (legal_into, best_move, greedy_move, is_legal, applying a move as
``open_ & ~mask``, best_move_target, p_beat, choose_one_die_target, move_loss,
one_die_loss and computer_one_die) allocates nothing: only small ints and preallocated
buffers. set_target opens the hint file, so it allocates: call it once a turn, not per
throw. A throw that cannot be played (the turn is over) has greedy_move == 0.

Shared tables: a second engine on the same tables (the Pico W companion's ranking of a
throw's moves, companion.moves, which reads the target-1 block into a buffer of its own) takes
``_mv``, ``_ranks``, ``_exp``, ``_lk`` and ``_hpath`` from the box's engine; shutbox.scores,
which patches the loaded block for a later seat of 3 or 4 players (code kept out of the
engine: it costs heap only in a round for the win), takes ``_open``, ``_hpath`` and ``_hp``;
shutbox.payout, which computes a seat's match play into the hint buffer, also ``_mv``,
``_dice`` and ``_hmode``: those names are that contract (tests/firmware/test_parts.py holds
other modules to it).

RAM: the box holds only what it calls (every function and name costs heap on the Pico);
the host's extras (has_move, random_move, table_bytes, key, LEVELS) are computed from
these calls in shutbox_host.solve.engine_extra.

Scores are ints. Digital scoring on 10 to 12 tiles exceeds MicroPython's small int (2**30):
score() and expected() then return a long int, which allocates; they are correct but are
not part of the allocation-free per-throw path (the rank is, and it stays small).
"""

from array import array

from micropython import const

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_MIN_TILES = const(2)  # the fewest tiles a box may have
_MAX_TILES = const(12)  # the most tiles a box may have
_DEFAULT_TILES = const(9)  # the tiles of the standard box
_ONE_DIE_NEVER = const(0)  # one-die never
_ONE_DIE_HIGH_SHUT = const(1)  # one-die high-shut
_ONE_DIE_SUM_LE_6 = const(2)  # one-die sum-le-6
_ONE_DIE_RULES = const(4)  # len(variants.ONE_DIE)
_MODE_OPTIONAL = const(0)  # one-die-mode optional
_MODE_LOCKED = const(1)  # one-die-mode locked
_MODE_FORCED = const(2)  # one-die-mode forced
_MODES = const(3)  # len(variants.ONE_DIE_MODE)
_MOVES_ANY = const(0)  # moves any
_MOVE_RULES = const(4)  # len(variants.MOVES)
_SCORING_SUM = const(0)  # scoring sum
_SCORING_DIGITAL = const(1)  # scoring digital
_SCORING_COUNT = const(2)  # scoring count
_SCORINGS = const(3)  # len(variants.SCORING)
_START_ALL_OPEN = const(0)  # start all-open
_START_LOW_THREE_SHUT = const(1)  # start low-three-shut
_START_ODD_OPEN = const(2)  # start odd-open
_START_EVEN_OPEN = const(3)  # start even-open
_STARTS = const(4)  # len(variants.START)
_LOW_THREE = const(7)  # tiles 1..3: shut at the start under low-three-shut
_ODD_TILES = const(0x555)  # the odd tiles: open at the start under odd-open
_EVEN_TILES = const(0xAAA)  # the even tiles: open at the start under even-open
MAX_MOVES = const(15)  # most legal moves of any throw (tablegen.max_moves(): test_tables)
P_SCALE = const(1000)  # p_beat() is P(score < target) + P(score = target) / 2, x P_SCALE
LEVEL_EASY = const(1)  # computer: a random legal move; one or two dice at random
LEVEL_MEDIUM = const(2)  # computer: the rule of thumb (docs/rules.md)
LEVEL_HARD = const(3)  # computer: exact optimal play for the lowest expected score
# END consts

_CODES = const(49)  # throw codes a * 7 + b; moves.bin: 49 starts, then 49 ends
_HEADER = const(8)  # b"STB1", tiles, count, 2 reserved
_ENTRY = const(16)  # one_die, mode, moves, scoring, layers, ewidth, 2 reserved, off0, off1
_ONE_DIE_FLAG = const(0x8000)
_RANK_MASK = const(0x3FFF)
_NO_RANK = const(0x4000)  # above every rank
_HIGH_TILES = const(0xFC0)  # tiles 7..12: shut for the high-shut one-die rule
_GREEDY_ONE_DIE_SUM = const(6)  # without a table: one die when the open tiles add up to <= 6
_HINT_ENTRY = const(12)  # one_die, mode, moves, scoring, layers, targets, situations, 0, index
_HINT_INDEX = const(4)  # block offset / 2 u16, cut << 10 | state count u16 (0xFFFF: none)
_HINT_COUNT = const(0x3FF)
_P_MASK = const(0x3FF)  # hint entry: P x 1000 (bits 0-9) ...
_HRANK = const(0x7C00)  # ... rank within the tile sum (bits 10-14), one-die flag (bit 15)
_TRIVIAL = const(0x3FF)  # P field of a state left out of the block
_TWO = const(0)  # _dice(): one die is not allowed
_ONE = const(1)  # _dice(): one die is imposed (forced mode, or locked in)
_FREE = const(2)  # _dice(): the player chooses
_H_NONE = const(0)  # no hint block for this variant / no target: min-expected play
_H_NEVER = const(1)  # target <= 0: never beaten, min-expected play
_H_ALWAYS = const(2)  # target above the highest score: always beaten, min-expected play
_H_TABLE = const(3)  # the target's block is loaded

# The computer's levels (LEVEL_*; the settings use the same ints, 0 = no computer): their
# names (off, easy, medium, hard) are not needed on the box: shutbox.setnames.COMPUTER
# and, for the host tools, shutbox_host.solve.engine_extra.LEVELS.


class Rules:
    """One rule variant (ints from shutbox.variants); ValueError on a value out of range.

    Only the attributes live on the box: the host's solver.Variant adds key(), equality,
    hashing and the names (shutbox_host.solve.engine_extra.key(rules) gives the tuple).
    """

    def __init__(self, tiles=_DEFAULT_TILES, one_die=_ONE_DIE_HIGH_SHUT,
                 one_die_mode=_MODE_OPTIONAL, moves=_MOVES_ANY, scoring=_SCORING_SUM,
                 start=_START_ALL_OPEN):
        if not _MIN_TILES <= tiles <= _MAX_TILES:
            raise ValueError("tiles must be 2..12")
        # each option is an int in 0..count-1 (checked in the order of the arguments)
        for value, count, what in ((one_die, _ONE_DIE_RULES, "one-die"),
                                   (one_die_mode, _MODES, "one-die-mode"),
                                   (moves, _MOVE_RULES, "moves"),
                                   (scoring, _SCORINGS, "scoring"),
                                   (start, _STARTS, "start")):
            if not (isinstance(value, int) and 0 <= value < count):
                raise ValueError("bad %s: %r" % (what, value))
        self.tiles = tiles
        self.one_die = one_die
        self.one_die_mode = one_die_mode
        self.moves = moves
        self.scoring = scoring
        self.start = start


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


class Engine:
    """The rules of one variant: legal moves, end of turn, scoring and optimal play.

    Attributes: rules, tiles, full (every tile), start_open, has_table (best_move and
    choose_one_die use the optimal-play table). The buffers: _mv (moves.bin's block of the
    moves rule), _ranks and _exp (the table, layer after layer), _hp (the hint block, empty
    without hints); _lk is the index of the second layer (locked in, or after one die),
    0 when the table has one layer.
    """

    def __init__(self, rules=None, tables_dir=None, hints=True):
        """Load the variant's tables from *tables_dir* (default: where the version's
        ``tables.idx`` says, else ``tables`` beside this module). *hints* False skips the
        beat-target buffer (1 KB a layer on nine tiles): set_target then returns False."""
        if rules is None:
            rules = Rules()
        self.rules = rules
        n = rules.tiles
        self.tiles = n
        full = (1 << n) - 1
        self.full = full
        start = rules.start
        if start == _START_LOW_THREE_SHUT:
            self.start_open = full & ~_LOW_THREE
        elif start == _START_ODD_OPEN:
            self.start_open = full & _ODD_TILES
        elif start == _START_EVEN_OPEN:
            self.start_open = full & _EVEN_TILES
        else:
            self.start_open = full
        # where the tables are: a box flashed by `shutbox flash` keeps each one once, shared
        # by its firmware versions under a name of its content, and the version's tables.idx
        # beside this module gives the paths of moves.bin, nN.bin and tN.bin, a line each
        # ("-": none); without an index (the repository's layout) they are in tables/ here
        try:
            here = __file__
        except NameError:  # frozen into the firmware: no __file__
            here = "shutbox/"
        here = here[:here.rfind("/") + 1]
        try:
            f = open(here + "tables.idx")
        except OSError:
            f = None
        paths = []
        for name in ("moves", "n%d" % n, "t%d" % n):
            paths.append(f.readline().rstrip() if f else here + "tables/" + name + ".bin")
        if f:
            f.close()
        if tables_dir is not None:  # the packs from there (moves.bin is always the index's)
            paths[1] = "%s/n%d.bin" % (tables_dir, n)
            paths[2] = "%s/t%d.bin" % (tables_dir, n)
        # the candidate moves (moves.bin: the rules need it, with or without packs): words
        # r and r + 1 bound this rule's block, read straight into its array (no module to
        # import, no temporary copy)
        try:
            f = open(paths[0], "rb")
        except OSError:  # a box flashed without its tables: say which file, not just ENOENT
            raise OSError("missing table file " + paths[0]) from None
        with f:
            mv = array("H", range(2))
            f.seek(2 * rules.moves)
            f.readinto(mv)
            lo = mv[0]
            # sized from range(): no temporary buffer as big as the block
            mv = array("H", range(mv[1] - lo))
            f.seek(2 * lo)
            if f.readinto(mv) != 2 * len(mv):
                raise ValueError("short move table")
        self._mv = mv
        # optimal-play table; without one, best_move falls back to greedy
        self.has_table = False
        self._lk = 0
        self._ranks = array("H")
        self._exp = bytearray(0)
        size = full + 1
        f, d = self._open(paths[1], b"STB1", _ENTRY)
        layers = d[4] if f else 0
        if f:
            try:
                ew = d[5]
                # sized from range(): no temporary buffer as big as the table
                self._ranks = array("H", range(layers * size))
                self._exp = bytearray(ew * layers * size)
                ranks = memoryview(self._ranks)
                exp = memoryview(self._exp)
                for layer in range(layers):
                    f.seek(int.from_bytes(d[8 + 4 * layer:12 + 4 * layer], "little"))
                    got = f.readinto(ranks[layer * size:(layer + 1) * size])
                    got += f.readinto(exp[layer * size * ew:(layer + 1) * size * ew])
                    if got != (2 + ew) * size:
                        raise ValueError("short table pack for %d tiles" % n)
                self.has_table = True
                self._lk = size if layers == 2 else 0
            finally:
                f.close()
        # beat-target hints: a buffer per layer and open mask (P, rank, one-die flag) when
        # the hint pack has this variant; empty otherwise (min-expected play)
        self._hmode = _H_NONE
        self._hp = array("H")
        self._hpath = paths[2]
        if hints and layers:
            f, d = self._open(self._hpath, b"STH1", _HINT_ENTRY)
            if f:
                f.close()
                if d[4] == layers:
                    self._hp = array("H", range(layers * size))

    def _open(self, path, magic, entry):
        """Open a table pack and find this variant in its directory: (file, the variant's
        entry); (None, b"") when the file or the entry is missing. ValueError when the
        file is not a pack for this tile count. The directory is read an entry at a time:
        no buffer as big as the directory (a big block is what a fragmented heap lacks)."""
        try:
            f = open(path, "rb")
        except OSError:
            return None, b""
        head = f.read(_HEADER)
        if len(head) != _HEADER or head[0:4] != magic or head[4] != self.tiles:
            f.close()
            raise ValueError("bad table pack " + path)
        d = bytearray(entry)
        r = self.rules
        # one-die `never` is stored once, under mode `optional`
        mode = r.one_die_mode if r.one_die != _ONE_DIE_NEVER else _MODE_OPTIONAL
        for _ in range(head[5]):
            if f.readinto(d) != entry:
                break
            if (d[0] == r.one_die and d[1] == mode and d[2] == r.moves
                    and d[3] == r.scoring):
                return f, d
        f.close()
        return None, b""

    def set_target(self, target):
        """Aim the *_target hints at beating *target* (a final score strictly below it wins,
        one equal to it is half a win).

        Loads that target's block (seek + readinto into the buffers made in __init__). True
        when the hints are exact for it: a loaded block, or a target every final score
        beats (above the highest score), where the best play is min-expected; 0 is no
        target (min-expected play, p_beat 0: after a shut box a tie is the pack's match
        situation, shutbox.target). False when the variant has no hint tables: the
        *_target calls then give min-expected play and p_beat gives -1. Allocates (opens a
        file and reads the pack's directory): call it when the target changes, not per
        throw.

        A *target* below 0 loads the match block of situation -target - 1 instead (the pack's
        numbering: tablegen; shutbox.target picks it): the match-optimal play of a seat in one
        round for the win, p_beat its chance to win x P_SCALE. False, and the hints as
        without a target, where the pack has no such block.
        """
        self._hmode = _H_NONE
        hp = self._hp
        if len(hp) == 0:
            return False
        if target == 0:
            self._hmode = _H_NEVER
            return True
        f, d = self._open(self._hpath, b"STH1", _HINT_ENTRY)
        if f is None:
            return False
        try:
            if target < 0:  # a match situation: its rows follow the targets'
                if -target > d[6]:
                    return False
                target = d[5] - target
            elif target > d[5]:  # the highest score: every final score beats the target
                self._hmode = _H_ALWAYS
                return True
            layers = d[4]
            size = self.full + 1
            idx = bytearray(2 * _HINT_INDEX)
            f.seek(int.from_bytes(d[8:12], "little")
                   + (target - 1) * layers * _HINT_INDEX)
            if f.readinto(idx) < layers * _HINT_INDEX:
                raise ValueError("short hint pack")
            if idx[3] == 0xFF:  # a match situation without a block (cut 63)
                return False
            for layer in range(layers):
                k = layer * _HINT_INDEX
                w = idx[k + 2] | idx[k + 3] << 8
                n = w & _HINT_COUNT
                cut = w >> 10
                base = layer * size
                j = base + size - n
                if n:
                    # the block goes to the buffer's tail, then spreads out to mask order
                    f.seek((idx[k] | idx[k + 1] << 8) << 1)
                    if f.readinto(memoryview(hp)[j:base + size]) != 2 * n:
                        raise ValueError("short hint pack")
                for s in range(size):
                    # j >= base + s throughout: nothing is overwritten before it is read
                    if tile_sum(s) >= cut:
                        hp[base + s] = hp[j]
                        j += 1
                    else:
                        hp[base + s] = _TRIVIAL
                if j != base + size:
                    raise ValueError("bad hint block")
        finally:
            f.close()
        self._hmode = _H_TABLE
        return True

    # ----- rules -----

    def one_die_allowed(self, open_):
        """True when the rules allow one die now (whatever the mode)."""
        rule = self.rules.one_die
        if rule == _ONE_DIE_NEVER:
            return False
        if rule == _ONE_DIE_HIGH_SHUT:
            return open_ & self.full & _HIGH_TILES == 0
        if rule == _ONE_DIE_SUM_LE_6:
            return tile_sum(open_) <= 6
        return tile_sum(open_) < 6

    def legal_into(self, open_, a, b, buf):
        """Write the legal move masks of throw (a, b) into *buf*; return how many.

        They come in greedy order (see greedy_move): a random legal move, as the easy
        computer level and the solver's random policy play it, is buf[r % n].
        """
        mv = self._mv
        code = a * 7 + b
        i = mv[code]
        end = mv[_CODES + code]
        n = 0
        while i < end:
            m = mv[i]
            if m & open_ == m:
                buf[n] = m
                n += 1
            i += 1
        return n

    def is_legal(self, open_, a, b, mask):
        """True when shutting *mask* is a legal move for throw (a, b)."""
        if mask & open_ != mask:
            return False
        mv = self._mv
        code = a * 7 + b
        i = mv[code]
        end = mv[_CODES + code]
        while i < end:
            if mv[i] == mask:
                return True
            i += 1
        return False

    def greedy_move(self, open_, a, b):
        """The rule of thumb of the solver's page (docs/rules.md): the highest top tile, then
        the fewest tiles (0: none, so the throw cannot be played and the turn is over).

        The candidates are stored in that order, so the first legal one is the move.
        """
        mv = self._mv
        code = a * 7 + b
        i = mv[code]
        end = mv[_CODES + code]
        while i < end:
            m = mv[i]
            if m & open_ == m:
                return m
            i += 1
        return 0

    def best_move(self, open_, a, b, locked=False):
        """The move minimising the expected final score (0: none); greedy without a table.

        *locked*: one die has been chosen earlier in the turn (locked mode). Among equally
        good moves the first in greedy order wins, as in the host solver.
        """
        if not self.has_table:
            return self.greedy_move(open_, a, b)
        base = self._lk if (locked or b == 0) else 0
        ranks = self._ranks
        mv = self._mv
        code = a * 7 + b
        i = mv[code]
        end = mv[_CODES + code]
        best = 0
        best_rank = _NO_RANK
        while i < end:
            m = mv[i]
            if m & open_ == m:
                r = ranks[base + (open_ ^ m)] & _RANK_MASK
                if r < best_rank:
                    best_rank = r
                    best = m
            i += 1
        return best

    def choose_one_die(self, open_, locked=False):
        """The optimal one-die decision before a throw (False where one die is not allowed)."""
        dice = self._dice(open_, locked)
        if dice != _FREE:
            return dice == _ONE
        if not self.has_table:
            return tile_sum(open_) <= _GREEDY_ONE_DIE_SUM
        return self._ranks[open_] & _ONE_DIE_FLAG != 0  # a free choice: layer 0

    def _dice(self, open_, locked):
        """_TWO (one die not allowed), _ONE (one die imposed) or _FREE (the player's choice)."""
        if not self.one_die_allowed(open_):
            return _TWO
        mode = self.rules.one_die_mode
        if mode == _MODE_FORCED or (mode == _MODE_LOCKED and locked):
            return _ONE
        return _FREE

    def score(self, open_):
        """Final score of the open tiles under the variant's scoring."""
        scoring = self.rules.scoring
        value = 0
        k = 1
        if scoring == _SCORING_COUNT:
            while open_:
                value += open_ & 1
                open_ >>= 1
            return value
        if scoring == _SCORING_DIGITAL:
            # tiles read low to high as one number; 10..12 add two digits
            while open_:
                if open_ & 1:
                    value = value * (10 if k < 10 else 100) + k
                open_ >>= 1
                k += 1
            return value
        return tile_sum(open_)

    def expected(self, open_, locked=False):
        """Expected final score x 1000 under optimal play (table); -1 without a table.

        *locked*: in the second layer (one die locked in, or the state after a one-die
        throw); the same as not locked when the table has one layer.
        """
        if not self.has_table:
            return -1
        exp = self._exp
        ew = len(exp) // len(self._ranks)  # bytes a value (the same count of each)
        j = (open_ + (self._lk if locked else 0)) * ew
        value = 0
        k = j + ew - 1
        while k >= j:
            value = value << 8 | exp[k]
            k -= 1
        return value

    # ----- beat-target hints (after set_target) -----

    def best_move_target(self, open_, a, b, locked=False):
        """The move with the best chance to win against the target, a tie half (0: none).

        Ties go to the lower expected score, then to the first move in greedy order, as
        in the host solver's beat-target objective. Without a block: best_move.
        """
        if self._hmode != _H_TABLE:
            return self.best_move(open_, a, b, locked)
        base = self._lk if (locked or b == 0) else 0
        hp = self._hp
        mv = self._mv
        code = a * 7 + b
        i = mv[code]
        end = mv[_CODES + code]
        best = 0
        best_rank = 0x8000
        while i < end:
            m = mv[i]
            if m & open_ == m:
                e = hp[base + (open_ ^ m)]
                if e & _P_MASK == _TRIVIAL:
                    # every move leads to the same tile sum, left out of the block: the
                    # target is beaten whatever happens and min-expected play decides
                    return self.best_move(open_, a, b, locked)
                if e & _HRANK < best_rank:
                    best_rank = e & _HRANK
                    best = m
            i += 1
        return best

    def p_beat(self, open_, locked=False):
        """The chance to win against the target x P_SCALE, P(final score < target) +
        P(final score = target) / 2, under best_move_target play, before the next throw
        (the one-die choice included); -1 without hint tables or a target."""
        mode = self._hmode
        if mode != _H_TABLE:
            return -1 if mode == _H_NONE else (0 if mode == _H_NEVER else P_SCALE)
        p = self._hp[open_ + (self._lk if locked else 0)] & _P_MASK
        return P_SCALE if p == _TRIVIAL else p

    def choose_one_die_target(self, open_, locked=False):
        """The one-die decision with the best chance to win against the target."""
        dice = self._dice(open_, locked)
        if dice != _FREE:
            return dice == _ONE
        e = self._hp[open_] if self._hmode == _H_TABLE else _TRIVIAL  # a free choice: layer 0
        if e & _P_MASK == _TRIVIAL:
            return self.choose_one_die(open_, locked)
        return e & _ONE_DIE_FLAG != 0

    # ----- post-turn analysis -----

    def move_loss(self, open_, a, b, mask, locked=False):
        """What shutting *mask* on throw (a, b) cost: 0 when it is a best move for the
        lowest expected score, else the expected final score it gave away x 1000 (at
        least 1: only optimal moves score 0). -1 without a table or for an illegal move.

        Read from the expected values of the moves' results (rounded to 1/1000 each, so
        the figure is within 1 of the exact cost x 1000).
        """
        if not self.has_table or not self.is_legal(open_, a, b, mask):
            return -1
        best = self.best_move(open_, a, b, locked)
        nxt = locked or b == 0  # the layer of the results
        base = self._lk if nxt else 0
        ranks = self._ranks
        if ranks[base + (open_ ^ mask)] & _RANK_MASK <= ranks[base + (open_ ^ best)] & _RANK_MASK:
            return 0
        d = self.expected(open_ ^ mask, nxt) - self.expected(open_ ^ best, nxt)
        return d if d > 0 else 1

    def one_die_loss(self, open_, chose_one, locked=False):
        """What the dice decision cost: 0 when it is optimal for the lowest expected score
        (or there was no choice), else the expected final score given away x 1000 (at
        least 1). -1 without a table.

        The value of the other option is summed over its throws from the table's expected
        values of the best moves (rounded to 1/1000 each: within 2 of the exact cost).
        """
        if not self.has_table:
            return -1
        if self._dice(open_, locked) != _FREE or chose_one == self.choose_one_die(open_, locked):
            return 0
        total = 0  # x 1000 x 36
        end = self.score(open_) * 1000
        if chose_one:  # one die: its results are in the second layer
            for a in range(1, 7):
                m = self.best_move(open_, a, 0, locked)
                total += 6 * (self.expected(open_ ^ m, True) if m else end)
        else:
            for a in range(1, 7):
                for b in range(a, 7):
                    m = self.best_move(open_, a, b, locked)
                    w = 1 if a == b else 2
                    total += w * (self.expected(open_ ^ m, locked) if m else end)
        d = (total + 18) // 36 - self.expected(open_, locked)
        return d if d > 0 else 1

    # ----- computer opponent -----

    def computer_one_die(self, level, open_, locked, r):
        """The dice a computer player of *level* (LEVEL_*) throws: True for one die.

        Where the player may choose: easy throws one die when *r* (a random int) is odd, a
        fair coin as in the solver's random policy; medium when the open tiles add up to 6
        or less (the solver's greedy policy); hard as choose_one_die_target (the aim
        set_target gave the turn; without one, choose_one_die). Otherwise the rules decide
        (one die where forced, or locked in). The moves: easy a random legal move (see
        legal_into), medium greedy_move, hard best_move_target.
        """
        dice = self._dice(open_, locked)
        if dice != _FREE:
            return dice == _ONE
        if level == LEVEL_EASY:
            return r & 1 == 1
        if level == LEVEL_MEDIUM:
            return tile_sum(open_) <= _GREEDY_ONE_DIE_SUM
        return self.choose_one_die_target(open_, locked)

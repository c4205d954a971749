# The settings in flash: 7 packed bytes, loading with checks, conflicts, the engine's Rules.
"""The settings' file. Imported at power-up, by the menu and by host tools; the box unloads it
before play (shutbox.settings is what stays in RAM; the names are in shutbox.setnames).

In flash (shutbox.store, file ``NAME``, payload version ``VERSION``) the settings are
``_SIZE`` (7) bytes: each option's value index in ``_BITS[i]`` bits, in page order
(settings.ATTRS), from bit 0 of byte 0 up, then the challenge code + 1 in 14 bits (0: none),
56 bits in all. A file that does not unpack to valid, consistent settings reads as damaged:
the box uses the defaults and says so on its LEDs (``load``). The layout's sizes and the
``_INVALID`` status are private constants (no names kept in RAM).

The firmware before wrote older versions, which ``load`` still reads, the options they lacked
at their defaults, the next save writing version 5: version 4 (before long) 7 bytes, the
first 24 options and the code (55 bits); version 3 (before real-dice, two-tiles, timeout
and resign) 7 bytes, the
first 20 options and the code (50 bits); version 2 (before sleep) 6 bytes, the first 19
options and the code (47 bits); version 1 (before sound, brightness and codes) 4 bytes, the
first 17 options (29 bits).
"""

from micropython import const
from shutbox.settings import ATTRS, COUNTS, Settings

NAME = "settings"  # the file in the store
VERSION = const(5)  # the payload layout; another version reads as damaged (defaults) ...
_V1 = const(1)  # ... but versions 1 to 4, which load() reads: their options and sizes
_V1_OPTIONS = const(17)
_V1_SIZE = const(4)
_V2_OPTIONS = const(19)
_V2_SIZE = const(6)
_V3_OPTIONS = const(20)
_V4_OPTIONS = const(24)
_SIZE = const(7)  # versions 3 to 5
_BITS = const(b"\x02\x02\x02\x02\x02\x02\x02\x02\x01\x02"
              b"\x01\x01\x03\x01\x02\x01\x01\x02\x02\x03\x01\x01\x02\x01\x01")
_CODE_BITS = const(14)  # the code + 1: 0 (none) .. 10000
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_START_LOW_THREE_SHUT = const(1)  # start low-three-shut
_START_ODD_OPEN = const(2)  # start odd-open
_START_EVEN_OPEN = const(3)  # start even-open
_LOW_THREE = const(7)  # tiles 1..3: shut at the start under low-three-shut
_ODD_TILES = const(0x555)  # the odd tiles: open at the start under odd-open
_EVEN_TILES = const(0xAAA)  # the even tiles: open at the start under even-open
_HINT_BEST = const(2)  # hints: also the optimal move in cyan
_TO_GO = const(9)  # the page of to-go (settings.ATTRS)
_SAME_THROWS = const(15)  # the page of same-throws (settings.ATTRS)
_REAL_DICE = const(20)  # the page of real-dice (settings.ATTRS)
_LONG = const(24)  # the page of long (settings.ATTRS)
_CODES = const(10000)  # challenge codes: 0000..9999
_BAD_VERSION = const(4)  # an unknown store format or payload version
# END consts
_INVALID = const(_BAD_VERSION)  # load(): the file checks out but its values do not

# pages per menu section: who plays, the turn, variants, the game, the box, ways to play (its
# last page, after the ATTRS pages, is the challenge code)
SECTIONS = b"\x03\x05\x04\x05\x03\x06"


def conflict(s, tiles=9):
    """Return the page of an option of *s* that does not fit the others, or -1.

    2-to-go and 3-to-go need their tile (2 or 3) in play at the start of a turn (the tiles
    in play then are shutbox.engine's start_open: every tile, or with the low three shut,
    or the odd ones, or the even ones). Real dice fit neither the same throws for every
    player nor a challenge code (both are the box's own dice): the page of same-throws, or
    of real-dice for a code. The long game (shutbox.long) is two people at one box under
    the rules of a turn: not with the computer, best-move hints (they aim at a score),
    Open the Box, a game of rounds or a turn variant (shutbox.rounds), real dice, the time
    limit, resigning or a code: the page of long.
    """
    if s.long and (s.players != 2 or s.computer or s.hints == _HINT_BEST or s.open_box or s.to_go
                   or s.unlucky7 or s.most_tiles or s.format or s.tie or s.same_throws
                   or s.stakes or s.real_dice or s.two_tiles or s.timeout or s.resign
                   or s.code >= 0):
        return _LONG
    if s.real_dice and (s.same_throws or s.code >= 0):
        return _SAME_THROWS if s.same_throws else _REAL_DICE
    if s.to_go:
        start = s.start
        in_play = ((1 << tiles) - 1) & (
            ~_LOW_THREE if start == _START_LOW_THREE_SHUT else _ODD_TILES
            if start == _START_ODD_OPEN else _EVEN_TILES if start == _START_EVEN_OPEN else -1)
        if not in_play & (1 << s.to_go):
            return _TO_GO
    return -1


def index(s, i):
    """Return the value index of option *i* (page order) of the settings *s*."""
    v = getattr(s, ATTRS[i])
    v = 1 if v is True else 0 if v is False else v
    return v - 1 if i == 0 else v


def rules(s, tiles):
    """Return the engine's Rules for a box of *tiles* tiles under the settings *s*.

    With the same throws for every player one die is not offered (the solver's page,
    docs/rules.md: choosing the number of dice would change the throws that follow), so the
    one-die rule is `never`.
    """
    from shutbox.engine import Rules

    return Rules(tiles=tiles, one_die=0 if s.same_throws else s.one_die,
                 one_die_mode=s.one_die_mode, moves=s.moves, scoring=s.scoring,
                 start=s.start)


# BEGIN variant_key: written by `shutbox consts`; edit its table, not this block
def variant_key(s, tiles):
    """Return the records' key of the variant of a turn under the settings *s* on *tiles*
    tiles (shutbox.records; the challenge codes key their dice with it).

    One die is off in same-throws games (shutbox.setfile.rules), so they count as one-die
    `never`. shutbox.setfile and shutbox.challenge each keep a copy (`shutbox consts`).
    """
    one = 0 if s.same_throws else s.one_die
    return (tiles | one << 4 | s.one_die_mode << 6 | s.moves << 8 | s.scoring << 10
            | s.start << 12 | (1 if s.open_box else 0) << 14 | s.to_go << 15
            | (1 if s.unlucky7 else 0) << 17 | (1 if s.most_tiles else 0) << 18
            | (1 if s.two_tiles else 0) << 19)
# END variant_key


def pack(s):
    """Return the settings *s* as _SIZE bytes (version 5)."""
    n = 0
    shift = 0
    for i in range(len(ATTRS)):
        n |= index(s, i) << shift
        shift += _BITS[i]
    n |= (s.code + 1) << shift
    return bytes([(n >> (8 * j)) & 0xFF for j in range(_SIZE)])


def unpack(data, tiles=9, version=VERSION):
    """Return the Settings packed in *data* (layout *version*: VERSION, or 4 to 1 for a
    file of the firmware before); ValueError unless valid and consistent."""
    old = version == _V1
    size = _V1_SIZE if old else _V2_SIZE if version == 2 else _SIZE
    if len(data) != size:
        raise ValueError("settings: %d bytes, not %d" % (len(data), size))
    n = 0
    for j in range(size):
        n |= data[j] << (8 * j)
    opts = {}
    for i in range(_V1_OPTIONS if old else _V2_OPTIONS if version == 2 else _V3_OPTIONS
                   if version == 3 else _V4_OPTIONS if version == 4 else len(ATTRS)):
        v = n & ((1 << _BITS[i]) - 1)
        n >>= _BITS[i]
        if v >= COUNTS[i]:
            raise ValueError("settings: bad " + ATTRS[i])
        opts[ATTRS[i]] = v + 1 if i == 0 else v
    if not old:
        code = (n & ((1 << _CODE_BITS) - 1)) - 1
        n >>= _CODE_BITS
        if code >= _CODES:
            raise ValueError("settings: bad code")
        opts["code"] = code
    if n:
        raise ValueError("settings: unknown bits set")
    s = Settings(**opts)
    if conflict(s, tiles) >= 0:
        raise ValueError("settings: options that do not fit together")
    return s


def load(store, tiles=9):
    """Return (settings, status): the saved settings, or the defaults and why not.

    status is the store's: OK (0), MISSING (first boot: quiet defaults), or a damaged code
    (shutbox.store.damaged); a whole file whose values do not check out is _INVALID. A file
    of version 4 to 1 loads with its values (OK); what it did not have takes the defaults.
    """
    version = VERSION
    data = store.load(NAME, VERSION)
    while data is None and store.status == _BAD_VERSION and version > _V1:  # older firmware?
        version -= 1
        data = store.load(NAME, version)
    if data is None:
        return Settings(), store.status
    try:
        return unpack(data, tiles, version), 0
    except ValueError:
        return Settings(), _INVALID


def save(s, store):
    """Write *s* to *store*; return the store's status (OK = 0)."""
    return store.save(NAME, pack(s), VERSION)

# The box's settings during play: every option as a small int, its defaults and range checks.
"""Settings of the box: one attribute per option, in the page order of ``ATTRS``.

Each option is an int index into its list of value names (``players`` is the count 1..4,
index + 1; on/off options are 0/1 or bools). The names, the flash layout, loading with checks,
the conflicts between options and the engine Rules they make live in shutbox.setfile, which
the box imports only at power-up and in the menu: this module is what stays in RAM during
play, so it is kept small.
``code`` is the challenge code (-1 or 0..9999), the one setting that is not a list of values.
The values' names and meanings are listed in docs/playing.md ("Settings and combinations") and on
the reference card (``shutbox card``), both generated from one table.
"""

from micropython import const

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_ONE_DIE_HIGH_SHUT = const(1)  # one-die high-shut
_HINT_OFF = const(0)  # hints (what the MOVE state lights): none
_HINT_LEGAL = const(1)  # hints: every tile that can take part in a legal move
_HINT_BEST = const(2)  # hints: also the optimal move in cyan
_GAME_OPTIONS = const(17)  # settings.ATTRS[:17] shape the game
_CODES = const(10000)  # challenge codes: 0000..9999
# END consts

# The values of format, tie, to-go and stakes (FORMAT_*, TIE_*, TO_GO_*, STAKES_*) are named
# in shutbox.rounds, which plays them and is loaded only when one is not at its default.

# Page order (the menu, the card, the packed bits). COUNTS: values per option. The options
# before _GAME_OPTIONS shape the game (a saved game is resumed only under the same ones, with
# the same code), and so do two-tiles and long (appended: the files of the firmware before
# are a prefix; the menu and `shutbox play` end a saved game when it changes, the resumed
# game's fingerprint covers only the first 17); sound, brightness, sleep and real-dice are
# the box's own and change no game (a saved game goes on under either dice).
ATTRS = ("players", "computer", "hints",
         "one_die", "one_die_mode", "moves", "scoring", "start",
         "open_box", "to_go", "unlucky7", "most_tiles",
         "format", "shut_wins", "tie", "same_throws", "stakes",
         "sound", "brightness", "sleep", "real_dice", "two_tiles", "timeout",
         "resign", "long")
COUNTS = (b"\x04\x04\x03\x04\x03\x04\x03\x04\x02\x03\x02\x02\x05\x02\x03\x02\x02\x03\x03\x05"
          b"\x02\x02\x03\x02\x02")
_PLAYERS = const(0)  # the page whose index is the value - 1


class Settings:
    """Every setting of the box; the class attributes are the defaults (``Settings()``)."""

    players = 2
    computer = 0  # shutbox.engine LEVEL_*: 0 off, 1 easy, 2 medium, 3 hard
    hints = _HINT_LEGAL
    one_die = _ONE_DIE_HIGH_SHUT
    one_die_mode = 0
    moves = 0
    scoring = 0
    start = 0
    open_box = 0  # tiles start shut and are opened
    to_go = 0  # rounds._TO_GO_*: the first throw must shut the 2 or the 3
    unlucky7 = 0  # a throw of 7 ends the turn at once
    most_tiles = 0  # a throw must shut as many tiles as any legal move does
    format = 0  # rounds._FORMAT_*
    shut_wins = 0  # shutting the box wins the game at once
    tie = 0  # rounds._TIE_*
    same_throws = 0  # every player of a round gets the first player's throws
    stakes = 0  # rounds._STAKES_*
    sound = 2  # the buzzer: 0 off, 1 soft, 2 loud (shutbox.board.Board.adjust)
    brightness = 1  # the LEDs: 0 low, 1 medium, 2 high (shutbox.board.Board.adjust)
    # idle minutes before the box sleeps (shutbox.sleep): off, 1, 5, 10, 30
    sleep = 2
    # the players throw their own dice and enter each throw on the tiles (shutbox.turn)
    real_dice = 0
    two_tiles = 0  # a move shuts at most two tiles (shutbox.rounds)
    timeout = 0  # a person's time for each decision: off, 30 s, 60 s (shutbox.turn)
    resign = 0  # a player may resign: tile 1 out of place, then Roll held (shutbox.turn)
    # the long game for 2: one shuts, the other reopens, in turns (shutbox.long); its name
    # is one the box already holds (an interned name stays in RAM for good)
    long = 0
    # A challenge code (shutbox.challenge.Challenge): the dice follow it, the same on every
    # box; -1: none. Not a page of values like ATTRS: the menu's last page enters it.
    code = -1

    def __init__(self, **options):
        """Set the options given by keyword (attribute names, and ``code``); ValueError if out
        of range."""
        for k in options:
            if k not in ATTRS and k != "code":
                raise ValueError("unknown setting " + k)
            if options[k] != getattr(Settings, k):  # a default stays the class's: less RAM
                setattr(self, k, options[k])
        c = self.code
        if isinstance(c, bool) or not isinstance(c, int) or not -1 <= c < _CODES:
            raise ValueError("bad code: %r" % (c,))
        for i in range(len(ATTRS)):
            v = getattr(self, ATTRS[i])
            if isinstance(v, bool):  # not an int on MicroPython
                v = 1 if v else 0
            elif not isinstance(v, int):
                v = -1
            if not 0 <= (v - 1 if i == _PLAYERS else v) < COUNTS[i]:
                raise ValueError("bad %s: %r" % (ATTRS[i], getattr(self, ATTRS[i])))


def needs_table(s):
    """Return True if a feature of the settings *s* needs the engine's optimal-play table
    (best-move hints, the hard computer; easy and medium play without it). A function, not a
    method: the class's dict is full at its size (one more entry and it grows by 128 bytes on
    the unix port)."""
    return s.hints == _HINT_BEST or s.computer == 3  # engine.LEVEL_HARD

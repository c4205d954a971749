# The settings in words: option and value names for the docs, the card, logs and host tools.
"""Names of every option and value, in the variant vocabulary of shutbox.variants (the same
words in README.md, on the reference card, in ``shutbox`` commands and for the game log's
``settings`` record, which shutbox.powerup makes at boot). Not imported during play.

The challenge code is ``code``: ``off`` or its four digits (``code=0042``); on the menu's
page its values are ``CODE`` (tile 1 off, tile 2 a code).
"""

from shutbox.setfile import conflict, index
from shutbox.settings import ATTRS, Settings
from shutbox.variants import MOVES, ONE_DIE, ONE_DIE_MODE, SCORING, START

OFF_ON = ("off", "on")
PLAYERS = ("1", "2", "3", "4")
COMPUTER = ("off", "easy", "medium", "hard")  # = shutbox_host.solve.engine_extra.LEVELS
HINTS = ("off", "legal", "best")
TO_GO = ("off", "2-to-go", "3-to-go")
FORMAT = ("one-round", "3-rounds", "5-rounds", "out-at-45", "to-100")
TIE = ("share", "roll-off", "replay")
STAKES = ("off", "canoga")
SOUND = ("off", "soft", "loud")
BRIGHTNESS = ("low", "medium", "high")
SLEEP = ("off", "1-min", "5-min", "10-min", "30-min")  # idle time before it sleeps
TIMEOUT = ("off", "30-s", "60-s")  # a person's time for each decision
CODE = ("off", "a code")  # the code page's values (the digits follow: see the module doc)

# Page order, as shutbox.settings.ATTRS: option names and value names.
OPTIONS = ("players", "computer", "hints",
           "one-die", "one-die-mode", "moves", "scoring", "start",
           "open-box", "to-go", "unlucky-7", "most-tiles",
           "format", "shut-wins", "tie", "same-throws", "stakes",
           "sound", "brightness", "sleep", "real-dice", "two-tiles", "timeout",
           "resign", "long-game")
CHOICES = (PLAYERS, COMPUTER, HINTS,
           ONE_DIE, ONE_DIE_MODE, MOVES, SCORING, START,
           OFF_ON, TO_GO, OFF_ON, OFF_ON,
           FORMAT, OFF_ON, TIE, OFF_ON, STAKES,
           SOUND, BRIGHTNESS, SLEEP, OFF_ON, OFF_ON, TIMEOUT, OFF_ON, OFF_ON)


def check(s, tiles=9):
    """Return *s*; ValueError in words when options do not fit together."""
    if conflict(s, tiles) == ATTRS.index("long"):
        raise ValueError("long-game is for 2 players, no computer, under the rules of a turn:"
                         " not with best hints, open-box, a game of rounds, a turn variant,"
                         " real-dice, two-tiles, timeout, resign or a code")
    if s.real_dice and (s.same_throws or s.code >= 0):
        raise ValueError("real-dice does not fit %s: the box's own dice" % (
            "same-throws" if s.same_throws else "a challenge code"))
    if conflict(s, tiles) >= 0:
        raise ValueError("%s needs tile %d in play at the start, and start is %s" % (
            TO_GO[s.to_go], s.to_go + 1, START[s.start]))
    return s


def code_name(code):
    """Return the name of challenge *code*: ``off`` (-1) or its four digits."""
    return "off" if code < 0 else "%04d" % code


def names(s):
    """Return {option: value name} for the settings *s*, the code last."""
    out = {OPTIONS[i]: CHOICES[i][index(s, i)] for i in range(len(ATTRS))}
    out["code"] = code_name(s.code)
    return out


def parse(text, tiles=9):
    """Return Settings from ``option=value,...`` in words (host tools); ValueError in words.

    Options not given keep their defaults.
    """
    opts = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise ValueError("%r: write option=value" % item)
        key, value = item.split("=", 1)
        key = key.strip()
        value = value.strip()
        if key == "code":
            if value != "off" and not (len(value) == 4 and value.isdigit()):
                raise ValueError("code %r: write four digits (0000 to 9999) or off" % value)
            opts["code"] = -1 if value == "off" else int(value)
            continue
        if key not in OPTIONS:
            raise ValueError("unknown option %r: choose one of %s" % (
                key, ", ".join(OPTIONS + ("code",))))
        i = OPTIONS.index(key)
        names_ = CHOICES[i]
        if value not in names_:
            raise ValueError("unknown %s %r: choose one of %s" % (key, value, ", ".join(names_)))
        v = names_.index(value)
        opts[ATTRS[i]] = v + 1 if i == 0 else v
    return check(Settings(**opts), tiles)

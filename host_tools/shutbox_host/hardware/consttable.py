# The firmware's shared constants: one table, written into each module by `shutbox consts`.
"""Every constant more than one firmware module needs, with the modules that keep a copy.

MicroPython folds ``const()`` only within a module, and a private name (``_NAME``) costs no
RAM, where a module global or an import would: so each module that needs one of these keeps
its own ``_NAME = const(value)`` copy. The copies are not written by hand: ``shutbox consts``
writes every module's block between its markers from this table, and ``shutbox consts
--check`` (run by the tests) fails when a block differs from it.

A Python table rather than JSON: many values are derived from the firmware's own vocabularies
(the variant ints from shutbox.variants, the option pages from shutbox.settings.ATTRS, the
sleep minutes from shutbox.setnames), from each other (a mask of states, an OR of event bits,
5 x the digit time) or are bytes; a JSON copy of them would be one more copy to keep.

Each entry: the constant's name without the underscore, its value (an int, ``Hex`` for one
written in hex, a str or bytes), a note written after it, and the modules that keep a copy,
as ``module`` (named ``_NAME`` there) or ``module:LOCAL`` (another name, or a public one in
the module the host tools read it from). Constants used by one module only stay in it.
A module's block lists its copies in the table's order.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

from shutbox import variants  # imports nothing, holds no block


def _literal(module: str, name: str):
    """The literal value assigned to *name* in firmware module *module*, read from its source
    (not imported: a module whose block is out of date may not import)."""
    path = Path(__file__).resolve().parents[3] / "firmware" / "shutbox" / (module + ".py")
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
                name]:
            return ast.literal_eval(node.value)
    raise LookupError("%s.%s: no such literal" % (module, name))


class Hex(int):
    """An int written in hex in the firmware."""


class Const(NamedTuple):
    """One shared constant: name (no underscore), value, note, users (``mod`` or
    ``mod:NAME``, space-separated)."""

    name: str
    value: int | str | bytes
    note: str
    users: str


C = Const
V = variants
ATTRS = _literal("settings", "ATTRS")

# the game's states, in order (shutbox.game; the saved game logs them by these names)
STATES = ("setup", "ready", "rolling", "move", "turn_end", "game_end", "rolloff")
_S = {name: i for i, name in enumerate(STATES)}

_OPTIONS = _literal("setnames", "OPTIONS")
_PREFIXES = (("ONE_DIE_", 3, V.ONE_DIE), ("MODE_", 4, V.ONE_DIE_MODE), ("MOVES_", 5, V.MOVES),
             ("SCORING_", 6, V.SCORING), ("START_", 7, V.START))


def _rule(name: str) -> str:
    """The note of a variant int: its option and value (``one-die high-shut``)."""
    for prefix, page, values in _PREFIXES:
        if name.startswith(prefix):
            return "%s %s" % (_OPTIONS[page], values[getattr(V, name)])
    raise LookupError(name)


# the rule names of the "game" log record: per option, its name and its values' names
_RULE_NAMES = "/".join(" ".join((key,) + names) for key, names in zip(
    _OPTIONS[3:8], (V.ONE_DIE, V.ONE_DIE_MODE, V.MOVES, V.SCORING, V.START),
    strict=True))

# the sleep setting's idle minutes, from its words (off, 1-min, 5-min, ...)
_MINUTES = bytes(0 if w == "off" else int(w.split("-")[0]) for w in _literal("setnames", "SLEEP"))

_DIGIT_MS = 900
_CODE_VIEW_MS = 5 * _DIGIT_MS  # a challenge code: 4 digits and a dark step
_CYCLE_MS = 3000
_EV = {"TILES": 1, "DOWN": 2, "UP": 4, "SHORT": 8, "LONG": 16}

TABLE = (
    # --- the rule variants (shutbox.variants: the ints are its tuples' indices) ---
    C("MIN_TILES", V.MIN_TILES, "the fewest tiles a box may have", "engine"),
    C("MAX_TILES", V.MAX_TILES, "the most tiles a box may have", "engine"),
    C("DEFAULT_TILES", V.DEFAULT_TILES, "the tiles of the standard box", "engine"),
    C("ONE_DIE_NEVER", V.ONE_DIE_NEVER, _rule("ONE_DIE_NEVER"), "engine"),
    C("ONE_DIE_HIGH_SHUT", V.ONE_DIE_HIGH_SHUT, _rule("ONE_DIE_HIGH_SHUT"), "engine settings"),
    C("ONE_DIE_SUM_LE_6", V.ONE_DIE_SUM_LE_6, _rule("ONE_DIE_SUM_LE_6"), "engine"),
    C("ONE_DIE_RULES", len(V.ONE_DIE), "len(variants.ONE_DIE)", "engine"),
    C("MODE_OPTIONAL", V.MODE_OPTIONAL, _rule("MODE_OPTIONAL"), "engine"),
    C("MODE_LOCKED", V.MODE_LOCKED, _rule("MODE_LOCKED"), "engine game"),
    C("MODE_FORCED", V.MODE_FORCED, _rule("MODE_FORCED"), "engine game"),
    C("MODES", len(V.ONE_DIE_MODE), "len(variants.ONE_DIE_MODE)", "engine"),
    C("MOVES_ANY", V.MOVES_ANY, _rule("MOVES_ANY"), "engine"),
    C("MOVE_RULES", len(V.MOVES), "len(variants.MOVES)", "engine"),
    C("SCORING_SUM", V.SCORING_SUM, _rule("SCORING_SUM"), "engine companion/moves"),
    C("SCORING_DIGITAL", V.SCORING_DIGITAL, _rule("SCORING_DIGITAL"), "engine companion/moves"),
    C("SCORING_COUNT", V.SCORING_COUNT, _rule("SCORING_COUNT"), "engine"),
    C("SCORINGS", len(V.SCORING), "len(variants.SCORING)", "engine"),
    C("START_ALL_OPEN", V.START_ALL_OPEN, _rule("START_ALL_OPEN"), "engine"),
    C("START_LOW_THREE_SHUT", V.START_LOW_THREE_SHUT, _rule("START_LOW_THREE_SHUT"),
      "engine setfile"),
    C("START_ODD_OPEN", V.START_ODD_OPEN, _rule("START_ODD_OPEN"), "engine setfile"),
    C("START_EVEN_OPEN", V.START_EVEN_OPEN, _rule("START_EVEN_OPEN"), "engine setfile"),
    C("STARTS", len(V.START), "len(variants.START)", "engine"),
    C("LOW_THREE", 7, "tiles 1..3: shut at the start under low-three-shut", "engine setfile"),
    C("ODD_TILES", Hex(0x555), "the odd tiles: open at the start under odd-open",
      "engine setfile"),
    C("EVEN_TILES", Hex(0xAAA), "the even tiles: open at the start under even-open",
      "engine setfile"),
    C("RULE_NAMES", _RULE_NAMES, "per option its name and its values' names (the game log)",
      "game"),
    # --- the engine ---
    C("MAX_MOVES", 15, "most legal moves of any throw (tablegen.max_moves(): test_tables)",
      "engine:MAX_MOVES game"),
    C("P_SCALE", 1000, "p_beat() is P(score < target) + P(score = target) / 2, x P_SCALE",
      "engine:P_SCALE coach"),
    C("LEVEL_EASY", 1, "computer: a random legal move; one or two dice at random",
      "engine:LEVEL_EASY computer:_EASY"),
    C("LEVEL_MEDIUM", 2, "computer: the rule of thumb (docs/rules.md)",
      "engine:LEVEL_MEDIUM computer:_MEDIUM"),
    C("LEVEL_HARD", 3, "computer: exact optimal play for the lowest expected score",
      "engine:LEVEL_HARD"),
    # --- the palette and the drawing (shutbox.frame; the board maps each code to a colour) ---
    C("OFF", 0, "palette codes (shutbox.frame; keep them < 8): dark", "frame:OFF game app"),
    C("WHITE", 1, "open tiles, dice pips", "frame:WHITE game"),
    C("GREEN", 2, "accepted, progress, the winner", "frame:GREEN game"),
    C("RED", 3, "an error on the tiles", "frame:RED game"),
    C("AMBER", 4, "attention: open this tile, one die available", "frame:AMBER game app"),
    C("BLUE", 5, "numbers: scores", "frame:BLUE game"),
    C("MAGENTA", 6, "a player's number", "frame:MAGENTA game"),
    C("CYAN", 7, "hints, the computer's moves, a challenge code's digits", "frame:CYAN game"),
    C("COLOURS", 8, "how many palette codes", "frame:COLOURS board"),
    C("PIPS", 7, "LEDs per die", "frame board"),
    C("BLINK_MS", 250, "shutbox.frame's slow blink (half-period)", "frame menu long"),
    C("FAST_MS", 100, "shutbox.frame's fast blink (half-period)", "frame game"),
    C("STATUS_MS", 500, "a waiting screen's 1 Hz blink (half-period; half LABEL_MS)",
      "game app"),
    C("DIGIT_MS", _DIGIT_MS, "one digit of a long number, of a challenge code",
      "frame menu challenge"),
    C("DIRECT_MAX", 129, "largest number drawn as tens-on-dice, units-on-tiles", "frame menu"),
    C("CODE_VIEW_MS", _CODE_VIEW_MS, "challenge.show: 4 digits and a dark step", "menu"),
    # --- the game (shutbox.game) ---
    C("MAX_PLAYERS", 4, "seats at the box", "game computer:_MAX_SEATS rounds:_MAX"),
    C("SETUP", _S["setup"], "game states (shutbox.game)", "game:SETUP computer turn long"),
    C("READY", _S["ready"], "a state", "game:READY computer turn long"),
    C("ROLLING", _S["rolling"], "a state", "game:ROLLING sleep turn"),
    C("MOVE", _S["move"], "a state", "game:MOVE computer turn companion/moves"),
    C("TURN_END", _S["turn_end"], "a state", "game:TURN_END long"),
    C("GAME_END", _S["game_end"], "a state",
      "game:GAME_END rounds long companion/live companion/names"),
    C("ROLLOFF", _S["rolloff"], "a state: the tied players throw one die each (tie rule roll-off)",
      "game rounds resume"),
    C("STATE_NAMES", " ".join(STATES), "the states' names, for the log", "resume:_NAMES"),
    C("SAVED", Hex(sum(1 << i for i in range(len(STATES)) if i != _S["move"])),
      "the states saved (bit per state): all but MOVE (saved as ROLLING)", "resume"),
    C("LABEL_MS", 1000, "a score view: the player's number this long ...", "game menu"),
    C("CYCLE_MS", _CYCLE_MS, "a score view: its label, then its number, this long",
      "game menu coach"),
    C("CYCLE2_MS", 5000, "a score view with a second number (a total, a balance)",
      "game coach"),
    C("CODE_CYCLE_MS", _CYCLE_MS + _CODE_VIEW_MS,
      "a score view, then a challenge's code (CYCLE_MS + CODE_VIEW_MS)", "game"),
    C("LOG_VERSION", 3, "the log format's \"v\" (docs/log-format.md)", "game powerup"),
    C("SND_ROLL", b"\x64\x03\x00\x02\x64\x03",
      "the dice: (frequency / 10 Hz, duration / 10 ms) pairs",
      "game rounds:_SND_DIE"),
    C("SND_NO", b"\x1e\x0a", "the game's low \"no\" buzz", "game resume turn"),
    C("ACTIVE", 1, "Match.st: players still in (out-at-45 drops them, and resigning)",
      "rounds turn"),
    C("IN_ROUND", 2, "Match.st: players taking a turn in this round", "rounds turn payout"),
    C("ERR_NONE", 0, "Game.err: the tiles are as the game wants them", "game turn"),
    C("ERR_SETUP", 1, "Game.err: a tile not in place yet (blinks amber, no mistake)",
      "game turn"),
    C("SND_WIN", b"\x4e\x0c\x4e\x0c\x4e\x0c\x69\x28", "the winner's tune", "game rounds long"),
    # --- the settings (shutbox.settings) ---
    C("HINT_OFF", 0, "hints (what the MOVE state lights): none", "settings game"),
    C("HINT_LEGAL", 1, "hints: every tile that can take part in a legal move", "settings"),
    C("HINT_BEST", 2, "hints: also the optimal move in cyan",
      "settings game setfile companion/moves"),
    C("GAME_OPTIONS", ATTRS.index("sound"), "settings.ATTRS[:17] shape the game",
      "settings menu resume"),
    C("SOUND", ATTRS.index("sound"), "the page of sound (settings.ATTRS)", "menu"),
    C("BRIGHTNESS", ATTRS.index("brightness"), "the page of brightness (settings.ATTRS)", "menu"),
    C("TO_GO", ATTRS.index("to_go"), "the page of to-go (settings.ATTRS)", "setfile"),
    C("SAME_THROWS", ATTRS.index("same_throws"), "the page of same-throws (settings.ATTRS)",
      "setfile"),
    C("REAL_DICE", ATTRS.index("real_dice"), "the page of real-dice (settings.ATTRS)",
      "setfile"),
    C("LONG", ATTRS.index("long"), "the page of long (settings.ATTRS)", "setfile"),
    C("CODES", 10000, "challenge codes: 0000..9999", "settings setfile"),
    C("MINUTES", _MINUTES, "settings.sleep: off, then idle minutes", "sleep"),
    # --- the inputs (shutbox.debounce's events, as bits) ---
    C("EV_TILES", _EV["TILES"], "the debounced tile levels changed", "debounce:EV_TILES resume"),
    C("EV_DOWN", _EV["DOWN"], "Roll went down", "debounce:EV_DOWN"),
    C("EV_UP", _EV["UP"], "Roll came up", "debounce"),
    C("EV_SHORT", _EV["SHORT"], "a short press (reported on release)", "debounce:EV_SHORT"),
    C("EV_LONG", _EV["LONG"], "a long press (reported while still held)", "debounce:EV_LONG"),
    C("EV_PRESSES", _EV["SHORT"] | _EV["LONG"], "EV_SHORT | EV_LONG", "resume"),
    C("EV_ROLL", _EV["DOWN"] | _EV["UP"],
      "EV_DOWN | EV_UP: passed on, so that a long hold still counts", "resume"),
    # --- the application shell (shutbox.app, powerup, guard, sleep, rescue, menu) ---
    C("NOTICE_SETTINGS", 1, "boot notice: the settings file was damaged", "app powerup"),
    C("NOTICE_RECORDS", 2, "boot notice: the records file was damaged", "app powerup"),
    C("NOTICE_GAME", 4, "boot notice: the saved game was damaged", "app"),
    C("NOTICE_FAULT", 8, "boot notice: restarted after an error or a watchdog reset",
      "app guard"),
    C("NOTICE_BATTERY", 16, "boot notice: the cells are low", "app sleep"),
    C("WATCHDOG_MS", 8000, "the hardware watchdog's timeout (the rp2 maximum is 8388)",
      "app rescue"),
    C("IDLE_MS", 60000, "wait(): the longest sleep reported when nothing is due", "app menu"),
    C("POLL_MS", 2, "the longest sleep between two readings of the switches",
      "guard powerup companion/live"),
    C("READ_US", 1010, "a reading this long after the last while a level settles",
      "guard companion/live"),
    C("FRAME_MS", 20, "LEDs redrawn 50 times a second while they move (and on an input)",
      "app guard"),
    C("RADIO_RUNS", 3, "Supply.wireless: the radio started", "supply companion/picow"),
    C("TIE_REPLAY", 2, "settings.tie: replay (one more round for the tied, its lowest wins)",
      "rounds target payout"),
    C("BOOT_SETTINGS", 0, "the boot list's slots (powerup.read): the settings", "powerup app"),
    C("BOOT_RULES", 1, "the boot list: the rules", "powerup app"),
    C("BOOT_NOTICES", 2, "the boot list: the boot notice's bits", "powerup app"),
    C("BOOT_TALLY", 3, "the boot list: the records' tally", "powerup app"),
    C("BOOT_ENGINE", 4, "the boot list: appended by shutbox.app (make_engine), kept from start "
      "to start", "powerup app"),
    C("PLAY", 0, "power-up mode: play", "powerup"),
    C("MENU", 1, "power-up mode: the menu", "powerup menu"),
    C("SELFTEST", 2, "power-up mode: the self-test", "powerup"),
    C("RECORDS", 3, "power-up mode: the records", "powerup menu"),
    C("RESET_RECORDS", 4, "power-up mode: reset the records", "powerup menu"),
    C("FACTORY", 5, "power-up mode: factory settings", "powerup menu"),
    C("GAUGE", 6, "power-up mode: the battery gauge", "powerup"),
    # --- the flash (shutbox.store's statuses, shutbox.records) ---
    C("OK", 0, "shutbox.store's statuses: read", "store:OK"),
    C("MISSING", 1, "no file (first boot, or after a reset)", "store:MISSING"),
    C("TRUNCATED", 2, "damaged (2 and up): the size does not match the header", "store records"),
    C("BAD_MAGIC", 3, "not one of our files", "store"),
    C("BAD_VERSION", 4, "an unknown store format or payload version", "store setfile"),
    C("TOO_BIG", 5, "larger than the cap: refused without reading it", "store"),
    C("BAD_CRC", 6, "bit rot or a torn write", "store"),
    C("IO_ERROR", 7, "the filesystem refused", "store"),
    C("GAME_FILE", "game", "the saved game's file in the store", "resume:NAME menu:_GAME"),
    C("T_STORE", 0, "a records' tally's slots (Records.tally): the store", "records app"),
    C("T_KEY", 1, "a tally: the variant's key", "records app companion/names"),
    C("T_SKIP", 2, "a tally: bit p, player p+1's turns do not count", "records app"),
    C("T_TURNS", 3, "a tally: the turns not merged yet (this and on: saved by shutbox.resume)",
      "records app resume"),
    C("T_BEST", 4, "a tally: their best score", "records app resume"),
    C("T_SHUT", 5, "a tally: their boxes shut", "records app resume"),
    C("T_BEGAN", 6, "a tally: the variant's game count when the game began",
      "records app resume companion/names"),
    C("T_GAMES", 7, "a tally: the variant's game count as the records last had it",
      "records app resume companion/names"),
    C("NONE", Hex(0xFFFFFFFF), "records: no best score yet",
      "records menu resume companion/names"),
)

# Code that two modules keep, each its own copy, for the same reason as the constants (the box
# loads neither module for the other): name -> (text, modules).
VARIANT_KEY = '''\
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
'''

CODE = {
    "variant_key": (VARIANT_KEY, ("setfile", "challenge")),
}

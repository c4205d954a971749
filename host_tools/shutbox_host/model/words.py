# The box in words: one vocabulary for the terminal box and the web page, and its reader.
"""What the box is doing, in players' words: the game log as sentences, the power-up screens
(settings menu, records, erase, self-test) read off the LEDs, and the LED colours' legend.

The words are data (``VOCABULARY``): sentence templates chosen by simple conditions on a
game-log record, the tables they look words up in, the settings' names. Two readers apply
them: this module (``say``, ``screen_lines``) for `shutbox play`, and
``web/static/words.js`` for the web page, which gets the same data in box.json
(``vocabulary``), so the page speaks as the terminal prints, word for word
(tests/model/test_words.py runs both readers on the same records and frames).

A template is text with fields: ``{player|who}`` is the record's ``player`` through the
filter ``who``. Filters apply to each item of a list, but ``join:SEP`` (a list joined with
SEP), and run left to right:

=============  ==========================================================================
``who``        a seat: "player N", or "computer" for the computer's seats
``join:SEP``   a list as one string, items separated by SEP
``map:TABLE``  a value looked up in ``tables[TABLE]`` (itself when it is not there)
``signed``     a number with its sign (+3, -2, +0)
``plural:W``   "1 W", "N Ws"
``minus:F``    the number less the record's F (a list: its length)
``settings``   a ``settings`` record's values: the players and every option not at its default
=============  ==========================================================================

A condition is words that must all hold: ``F`` (the field is there and not 0, false, "" or
[]), ``!F`` (it is not), ``F=V`` (its text is V), ``F@`` (seat F is the computer's), ``F#N``
(list F has N items); ``!`` negates any of them. The first entry of a kind whose condition
holds says the record. Fields of the controls (``{roll}``, ``{hold}``: how a player presses
Roll in the terminal or on the page) fill the screens' lines.
"""

from __future__ import annotations

import functools
import re

from shutbox import setnames
from shutbox.setfile import SECTIONS

# What every setting's values mean (docs/playing.md): `shutbox play --help` says them, the
# card (shutbox_host.hardware.cardgen) shows the names and its docs' table the meanings.
MEANINGS = {
    "players": "players taking turns on the box",
    "computer": "a computer opponent: a random legal move / a rule of thumb (the highest "
                "tiles first) / exact optimal play",
    "hints": "what lights after a throw: nothing / every tile of a legal move / also the "
             "best move, in cyan",
    "one-die": "when one die may be thrown: never / once every tile of 7 and up is shut / "
               "open tiles add up to 6 or less / less than 6",
    "one-die-mode": "choose before each throw / once chosen, for the rest of the turn / "
                    "one die whenever allowed",
    "moves": "any open tiles adding up to the throw / the total's tile or each die's / one "
             "tile: a die or the total (Jackpot) / the total, one die, or both dice (kids)",
    "scoring": "add up the open tiles / read them as one number / count them (Missionary)",
    "start": "tiles in play at the start: all / 4 to 9 / the odd ones / the even ones",
    "open-box": "tiles start shut and are opened; the tiles still face down score, lowest "
                "wins",
    "to-go": "the first throw must shut the 2 (a 4 loses at once) / the 3 (a 2 loses)",
    "unlucky-7": "a throw of 7 ends the turn at once; the open tiles score",
    "most-tiles": "a throw must shut as many tiles as any legal move can",
    "format": "one round / 3 or 5 rounds added up / a total of 45 is out, the last left wins "
              "/ until a total reaches 100, then the lowest total",
    "shut-wins": "shutting the box wins the game at once (off: it scores 0, play goes on)",
    "tie": "a tie for the win: shared / each throws one die, lowest wins / the tied "
           "players play another round",
    "same-throws": "every player of a round gets the first player's throws (one die is "
                   "not offered)",
    "stakes": "Canoga: each loser pays the winner the difference (twice: a shut box); the "
              "balance at the end",
    "sound": "the buzzer: silent / quiet / as loud as it goes",
    "brightness": "the LEDs: for a dark room / the standard box / for daylight",
    "sleep": "left alone so long the box sleeps; Roll wakes it: never / 1 / 5 / 10 / 30 min",
    "real-dice": "the box's dice / your own, each throw entered on the tiles (other side)",
    "two-tiles": "a move shuts at most two tiles (a throw that needs more ends the turn)",
    "timeout": "each throw and move: no limit / 30 s / 60 s (ticks its last 10 s; then the "
                  "open tiles score)",
    "resign": "before a throw, tile 1 out of its place and Roll held a second: the player is "
              "out, the others go on",
    "long-game": "2 players: 1 shuts, 2 reopens what adds up to each throw, and back; a "
                 "double: an extra turn; all shut or all open wins",
    "code": "random dice / a challenge code's dice, the same on every box (see the other "
            "side)",
}

# How each place names its controls: the terminal's keys, the page's buttons.
TERMINAL = {"roll": "space", "hold": "Enter", "latch": "r",
            "power": "p"}
PAGE = {"roll": "a click on Roll", "hold": "Roll held a second", "latch": "hold Roll",
        "power": "the power switch"}

# game-log kind -> [condition, template], the first that holds
SAY = {
    "game": [["computer", "new game: {players|minus:computer|plural:player} and the computer"],
             ["", "new game: {players|plural:player}"]],
    "settings": [["!code=off code", "switched on: {values|settings}; challenge code {code}"],
                 ["", "switched on: {values|settings}"]],
    "turn": [["player@", "computer: its turn; it plays by itself, on its LEDs (leave the "
                         "tiles up)"],
             ["reopen", "{player|who}: your turn to reopen (the box as it is: flip up shut "
                        "tiles that make each throw; press Roll)"],
             ["long", "{player|who}: your turn to shut (the box as it is; press Roll)"],
             ["", "{player|who}: your turn (every tile up, then press Roll)"]],
    "throw": [["reopen !moves", "{player|who} threw {dice|join: + } = {total}: nothing to "
                                "reopen fits, the turn is over"],
              ["reopen", "{player|who} threw {dice|join: + } = {total}: flip up shut tiles "
                         "that make {total}"],
              ["real !moves dice#1", "{player|who} entered {dice} (one die): nothing fits, "
                                     "the turn is over"],
              ["real !moves", "{player|who} entered {dice|join: + } = {total}: nothing fits, "
                              "the turn is over"],
              ["real dice#1", "{player|who} entered {dice} (one die): shut tiles that make "
                              "{total}"],
              ["real", "{player|who} entered {dice|join: + } = {total}: shut tiles that make "
                       "{total}"],
              ["!moves dice#1", "{player|who} threw {dice} (one die): nothing fits, the turn "
                                "is over"],
              ["!moves", "{player|who} threw {dice|join: + } = {total}: nothing fits, the "
                         "turn is over"],
              ["player@ dice#1", "{player|who} threw {dice} (one die)"],
              ["player@", "{player|who} threw {dice|join: + } = {total}"],
              ["dice#1", "{player|who} threw {dice} (one die): shut tiles that make {total}"],
              ["", "{player|who} threw {dice|join: + } = {total}: shut tiles that make "
                   "{total}"]],
    "move": [["reopen", "{player|who} reopened {shut|join: }"],
             ["", "{player|who} shut {shut|join: }"]],
    "error": [["", "mistake: {why|map:why} (tile {tiles|join: }): put it back"]],
    "refused": [["why=setup", "Roll refused: open the blinking tiles first (tile "
                              "{tiles|join: })"],
                ["why=dice", "Roll refused: {why|map:why}"],
                ["", "Roll refused: {why|map:why} (tile {tiles|join: })"]],
    "score": [["shut_box", "{player|who} SHUT THE BOX! score 0; Roll passes the box on"],
              ["", "{player|who} scored {score}; Roll passes the box on"]],
    "turn_end": [["long", "{next|who} next: the box as it is; press Roll"],
                 ["!next", "the game is over"],
                 ["next@", "computer next: open every tile and it plays"],
                 ["", "{next|who} next: open every tile and press Roll"]],
    "winner": [["long", "{players|who} wins the long game; hold Roll for a new game"],
               ["tie", "a tie: {players|who|join: and } with {score}; Roll shows every "
                       "score, hold Roll for a new game"],
               ["", "{players|who} wins with {score}; Roll shows every score, hold Roll "
                    "for a new game"]],
    "resume": [["state=game_end", "the saved game goes on: it is over; Roll shows every "
                                  "score, hold Roll for a new game"],
               ["state=setup", "the saved game goes on: {player|who}'s turn (every tile up, "
                               "then press Roll)"],
               ["state=turn_end", "the saved game goes on: {player|who}'s turn has ended; "
                                  "Roll passes the box on"],
               ["state=rolloff", "the saved game goes on: the roll-off"],
               ["", "the saved game goes on: {player|who}'s turn, tiles {open|join: } open "
                    "(a tile blinking amber is not as the game left it: flip it)"]],
    "notice": [["", "notice: {tiles|map:notice|join:, }"]],
    "round": [["tiebreak", "round {round} (a tie-break)"], ["", "round {round}"]],
    "out": [["", "out at 45: {players|who|join:, }"]],
    "rolloff": [["", "a roll-off: {players|who|join: and } each throw one die, the lowest "
                     "wins"]],
    "rolloff_die": [["", "{player|who} threw {die} in the roll-off"]],
    "stakes": [["", "stakes after round {round}: {balance|signed|join: }"]],
    "rule": [["rule=extra-turn", "{player|who} threw a double: an extra turn"],
             ["rule=resign", "{player|who} resigned: out of the game, the others go on"],
             ["", "{rule}: {player|who}'s turn ends"]],
    "fault": [["", "the box restarted after a fault ({error})"]],
    "sleep": [["why=battery", "the cells are flat: the game is saved and the box sleeps (new "
                              "cells, then Roll)"],
              ["", "asleep, left alone: Roll wakes it to the game"]],
    "wake": [["", "awake: the game goes on"]],
    "companion": [["", "the phones' page is off ({error}: {text}): the box plays on"]],
    "wifi": [["mode=ap", "the box's own network {ssid} is open: its page at http://{addr}/"],
             ["mode=home", "on {ssid}: the box's page at http://shutbox.local/ or "
                           "http://{addr}/"],
             ["", "joining the network {ssid}"]],
}
TABLES = {
    "why": {"too-high": "those tiles add up to more than the throw",
            "not-legal": "those tiles cannot make the throw",
            # in words for every game: Open the Box and the long game's reopening turns play
            # the tiles mirrored (a tile opened, not shut)
            "reopened": "a tile played earlier this turn was flipped back",
            "early": "a tile was flipped before the throw",
            "setup": "open the blinking tiles first",
            "dice": "enter the throw first (each die: flip its tile down and up; one die "
                    "only where the rules allow it)"},
    "notice": {"1": "the settings were damaged (defaults used)",
               "2": "the records were damaged (started again)",
               "3": "the saved game was damaged (a new game)", "4": "restarted after a fault",
               "5": "the batteries are low"},
}
UNKNOWN = "the box said: {ev}"  # a kind this vocabulary does not know

# The LED colours (palette letters, shutbox.frame.NAMES) in words.
LEGEND = [["W", "white", "tiles you may use; the dice"],
          ["G", "green", "shut this throw; accepted; the winner"],
          ["R", "red", "a mistake to undo"],
          ["Y", "amber", "open this tile; one die allowed"],
          ["M", "magenta", "a player's number"],
          ["B", "blue", "a score (tens on the dice, units as tiles)"],
          ["C", "cyan", "hints; the computer; a code's digits"]]

# The power-up screens (shutbox.powerup's modes), what the lines under the box say.
GAME, MENU, SELFTEST, RECORDS, ERASE, FACTORY = 0, 1, 2, 3, 4, 5
SCREENS = {
    "off": "The box is OFF: {power} switches it on. Power-up: hold Roll down ({latch}), then "
           "switch on: every tile up = the settings menu, tile 1 down = the self-test, 2 = "
           "the records, 2 and 9 = erase the records, 8 and 9 = factory reset",
    "game": "Power-up: hold Roll down ({latch}), then switch off and on ({power}): every tile "
            "up = the settings menu, tile 1 down = the self-test, 2 = the records",
    "held": "Roll is held down: {latch} lets it go",
    "selftest": "self-test: one LED at a time, red, green, blue, the dice faces; then every "
                "tile put down lights green and Roll lights the dice ({power}: off)",
    "records": "records page {page}: {name} (the number: tens on the dice, units on the "
               "tiles); {roll}: next page, {hold}: play",
    "records_label": "records: 1 the best score, 2 boxes shut, 3 games, 4 turns; {roll}: next "
                     "page, {hold}: play",
    "erase": "erase the records? {hold}: erase; {roll}: keep them",
    "factory": "erase the settings and the records? {hold}: erase; {roll}: keep them",
    "menu": "settings menu",
    "menu_page": "settings menu {section}.{number}: {option} = {value}",
    "menu_values": "tiles: {values}",
    "menu_players": "tile k: k players",
    "menu_bad": "{option} {value} does not fit the other settings (blinking red): choose "
                "another",
    "menu_code": "the challenge code, digit {digit}: {count}",
    "menu_code_help": "a digit: flip that many tiles, then {roll} (a new code: tile 2 on "
                      "page 6.6)",
    "menu_saved": "saved: the game starts",
    "menu_help": "flip tile k: value k | {roll}: next page | tile 9: back | {hold}: save "
                 "and play",
}
RECORD_PAGES = ["the best score", "boxes shut", "games played", "turns played"]


@functools.cache
def vocabulary() -> dict:
    """The words as data (JSON): what box.json carries to the page's reader (words.js)."""
    from shutbox.frame import _FACE_PIPS  # private: folded in on the box
    from shutbox.setfile import index
    from shutbox.settings import Settings

    defaults = Settings()
    return {
        "say": SAY, "tables": TABLES, "unknown": UNKNOWN, "legend": LEGEND,
        "screens": SCREENS, "recordPages": RECORD_PAGES,
        "options": list(setnames.OPTIONS) + ["code"],
        "choices": [list(c) for c in setnames.CHOICES] + [list(setnames.CODE)],
        "defaults": [index(defaults, i) for i in range(len(setnames.OPTIONS))],
        "sections": list(SECTIONS),
        "faces": list(_FACE_PIPS),  # the pips lit (bit i: pip i) of faces 0..6
        "controls": PAGE,
    }


# ----- the reader (web/static/words.js is the same, line for line) -----


def _truthy(v) -> bool:
    return v is not None and v is not False and v != 0 and v != "" and v != []


def _text(v) -> str:
    if isinstance(v, list):
        return " ".join(_text(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _holds(term: str, rec: dict, ctx: dict) -> bool:
    if term.startswith("!"):
        return not _holds(term[1:], rec, ctx)
    if term.endswith("@"):
        seat = rec.get(term[:-1])
        return isinstance(seat, int) and seat > 0 and bool(ctx.get("computer", 0) >> (seat - 1)
                                                            & 1)
    if "#" in term:
        name, n = term.split("#", 1)
        v = rec.get(name)
        return isinstance(v, list) and len(v) == int(n)
    if "=" in term:
        name, want = term.split("=", 1)
        return name in rec and _text(rec[name]) == want
    return _truthy(rec.get(term))


def holds(cond: str, rec: dict, ctx: dict) -> bool:
    """Whether every word of the condition *cond* holds for *rec*."""
    return all(_holds(t, rec, ctx) for t in cond.split())


def settings_text(values: list, voc: dict | None = None) -> str:
    """The players, then every option not at its default, as `option value` in the CLI's
    words (a ``settings`` record's values)."""
    voc = voc or vocabulary()
    parts = ["%d player%s" % (values[0] + 1, "" if values[0] == 0 else "s")]
    for i in range(1, min(len(values), len(voc["defaults"]))):
        if values[i] != voc["defaults"][i]:
            parts.append("%s %s" % (voc["options"][i], voc["choices"][i][values[i]]))
    return ", ".join(parts)


def _filter(v, name: str, arg: str, rec: dict, ctx: dict, voc: dict):
    if name == "join":
        return arg.join(_text(x) for x in v) if isinstance(v, list) else _text(v)
    if name == "settings":
        return settings_text(v, voc)
    if isinstance(v, list):
        return [_filter(x, name, arg, rec, ctx, voc) for x in v]
    if name == "who":
        return "computer" if ctx.get("computer", 0) >> (v - 1) & 1 else "player %d" % v
    if name == "map":
        return voc["tables"][arg].get(_text(v), _text(v))
    if name == "signed":
        return ("+" if v >= 0 else "") + str(v)
    if name == "plural":
        return "%d %s%s" % (v, arg, "" if v == 1 else "s")
    if name == "minus":
        other = rec.get(arg, 0)
        return v - (len(other) if isinstance(other, list) else other)
    raise ValueError("no filter %r" % name)


_FIELD = re.compile(r"\{([^{}]+)\}")


def fill(template: str, rec: dict, ctx: dict, voc: dict | None = None) -> str:
    """The template with its fields filled from *rec* ("?" for a field it lacks)."""
    voc = voc or vocabulary()

    def one(m):
        name, *filters = m.group(1).split("|")
        if name not in rec:
            return "?"
        v = rec[name]
        for f in filters:
            fname, _, arg = f.partition(":")
            v = _filter(v, fname, arg, rec, ctx, voc)
        return _text(v)

    return _FIELD.sub(one, template)


def track(rec: dict, ctx: dict) -> None:
    """Keep in *ctx* what later records are read with: the computer's seats (bit p-1)."""
    ev = rec.get("ev")
    if ev == "settings":
        values = rec.get("values") or [1, 0]
        players, level = values[0] + 1, values[1]
        ctx["computer"] = 1 << min(players, 3) if level else 0  # shutbox.computer's seat
    elif ev == "game":
        ctx["computer"] = sum(1 << (k - 1) for k in rec.get("computer", ()))


def say(rec: dict, ctx: dict, voc: dict | None = None) -> str:
    """One game-log record as a sentence (after ``track`` has read it)."""
    voc = voc or vocabulary()
    for cond, template in voc["say"].get(rec.get("ev"), ()):
        if holds(cond, rec, ctx):
            return fill(template, rec, ctx, voc)
    return fill(voc["unknown"], rec, ctx, voc)


def face(pips: str, voc: dict | None = None) -> int:
    """The die face (0..6) that 7 pip letters show, -1 if none (shutbox.frame's faces)."""
    faces = (voc or vocabulary())["faces"]
    lit = sum(1 << i for i, c in enumerate(pips) if c != ".")
    return faces.index(lit) if lit in faces else -1


def see(mode: int, tiles: str, die_a: str, die_b: str, mem: dict,
        voc: dict | None = None) -> None:
    """Keep in *mem* what a frame of power-up screen *mode* says that later frames do not:
    the records' page (its label: the page's number on die A, magenta)."""
    a = face(die_a, voc)
    if mode == RECORDS and set(die_a) <= {"M", "."} and a >= 1 and set(die_b) <= {"."}:
        mem["page"] = a


def screen_lines(mode: int, tiles: str, die_a: str, die_b: str, mem: dict,
                 controls: dict, voc: dict | None = None) -> list[str]:
    """What the power-up screen *mode* shows, in words, read off its LEDs (palette letters
    of the tiles and of each die) and *mem* (``see``)."""
    voc = voc or vocabulary()
    scr = voc["screens"]

    def line(key, **fields):
        return fill(scr[key], {**controls, **fields}, {}, voc)

    if mode == SELFTEST:
        return [line("selftest")]
    if mode in (ERASE, FACTORY):
        return [line("erase" if mode == ERASE else "factory")]
    if mode == RECORDS:
        page = mem.get("page", 0)
        if 1 <= page <= len(voc["recordPages"]):
            return [line("records", page=page, name=voc["recordPages"][page - 1])]
        return [line("records_label")]
    if mode != MENU:
        return []
    out = [line("menu")]
    a, b = face(die_a, voc), face(die_b, voc)
    sections = voc["sections"]
    if set(die_a) <= {"C", "."} and a >= 1:
        count = tiles.count("C")
        return [line("menu_code", digit=a, count=count), line("menu_code_help")]
    if set(tiles) <= {"G"} and tiles:
        return [line("menu_saved")]
    if 1 <= a <= len(sections) and 1 <= b <= sections[a - 1]:
        page = sum(sections[:a - 1]) + b - 1
        values = voc["choices"][page]
        lit = [k for k, c in enumerate(tiles) if c in "GR"]
        value = values[lit[0]] if lit and lit[0] < len(values) else "?"
        option = voc["options"][page]
        out = [line("menu_page", section=a, number=b, option=option, value=value)]
        if "R" in tiles:
            out.append(line("menu_bad", option=option, value=value))
        elif page == 0:
            out.append(line("menu_players"))
        else:
            out.append(line("menu_values", values=", ".join(
                "%d %s" % (k + 1, v) for k, v in enumerate(values))))
    out.append(line("menu_help"))
    return out

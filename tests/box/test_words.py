# The box in words (shutbox_host.box.words): the sentences the terminal box and the page print.
"""Each game-log kind has its sentence; the sentences say what is true of the box (no blinking
tiles at a game's end, a long press starts a new game, a throw says what to do with it)."""

from __future__ import annotations

import json

import pytest

from shutbox_host import mp
from shutbox_host.box import screen, words

RULES = {"one-die": "high-shut", "one-die-mode": "optional", "moves": "any", "scoring": "sum",
         "start": "all-open"}
LOG_SCHEMA = mp.ROOT / "docs" / "log.schema.json"


def say(rec: dict, computer: int = 0) -> str:
    """What the terminal box prints for *rec* (after a game whose *computer* seats are
    given, bit p-1)."""
    view = screen.Screen(color=False)
    seats = [p + 1 for p in range(4) if computer >> p & 1]
    view.feed(json.dumps({"ev": "game", "v": 1, "players": 2, "tiles": 9, "rules": RULES,
                          **({"computer": seats} if seats else {})}))
    view.feed(json.dumps(rec))
    return view.log[-1]


def test_every_kind_of_the_log_has_its_words():
    """Every record kind of docs/log.schema.json but the recorder's own has a sentence."""
    kinds = json.loads(LOG_SCHEMA.read_text())["properties"]["ev"]["enum"]
    assert sorted(k for k in kinds if k not in words.SAY) == ["link"]
    assert sorted(k for k in words.SAY if k not in kinds) == []


@pytest.mark.parametrize("state, says, never", [
    ("game_end", "it is over; Roll shows every score, hold Roll for a new game", "amber"),
    ("setup", "player 2's turn (every tile up, then press Roll)", "amber"),
    ("move", "a tile blinking amber is not as the game left it", "over"),
])
def test_a_resumed_game_says_what_the_box_shows(state, says, never):
    text = say({"ev": "resume", "state": state, "player": 2, "open": [1, 2], "dice": [0],
                "scores": [3, 0]})
    assert says in text and never not in text, text


def test_the_game_end_says_a_long_press_starts_a_new_game():
    """The app starts a new game on a long press at the game's end (1 s), not only at 5 s."""
    text = say({"ev": "winner", "players": [1], "score": 4, "scores": [4, 9], "tie": False})
    assert text == "player 1 wins with 4; Roll shows every score, hold Roll for a new game"
    assert "5 s" not in text


def test_a_throw_says_what_to_do_with_it():
    assert say({"ev": "throw", "player": 1, "dice": [5, 4], "total": 9, "moves": 7,
                "open": [1]}) == "player 1 threw 5 + 4 = 9: shut tiles that make 9"
    assert say({"ev": "throw", "player": 1, "dice": [3], "total": 3, "moves": 0,
                "open": [9]}) == "player 1 threw 3 (one die): nothing fits, the turn is over"
    # the computer's throw: it plays it itself, nobody is told to shut tiles
    assert say({"ev": "throw", "player": 2, "dice": [6, 2], "total": 8, "moves": 3,
                "open": [1]}, computer=2) == "computer threw 6 + 2 = 8"


def test_settings_and_the_computer_in_the_game_s_words():
    ctx: dict = {}
    values = [0, 3] + [0] * 17
    rec = {"ev": "settings", "v": 1, "status": 0, "values": values, "code": "0042"}
    words.track(rec, ctx)
    assert ctx["computer"] == 2  # one player: the computer takes seat 2
    text = words.say(rec, ctx)
    assert text.startswith("switched on: 1 player, computer hard") and "code 0042" in text
    game = {"ev": "game", "v": 1, "players": 2, "tiles": 9, "rules": RULES, "computer": [2]}
    words.track(game, ctx)
    assert words.say(game, ctx) == "new game: 1 player and the computer"
    assert words.say({"ev": "stakes", "round": 2, "balance": [3, 0, -3]}, ctx) == \
        "stakes after round 2: +3 +0 -3"
    assert words.say({"ev": "nonesuch"}, ctx) == "the box said: nonesuch"

# The box in words (shutbox_host.model.words): the sentences the terminal box and the page print.
"""Each game-log kind has its sentence; the sentences say what is true of the box (no blinking
tiles at a game's end, a long press starts a new game, a throw says what to do with it)."""

from __future__ import annotations

import json

import pytest

from shutbox_host import mp
from shutbox_host.box import screen
from shutbox_host.model import words

RULES = {"one-die": "high-shut", "one-die-mode": "optional", "moves": "any", "scoring": "sum",
         "start": "all-open"}
LOG_SCHEMA = mp.ROOT / "docs" / "log.schema.json"


def say(rec: dict, computer: int = 0) -> str:
    """What the terminal box prints for *rec* (after a game whose *computer* seats are
    given, bit p-1)."""
    view = screen.Screen(color=False)
    seats = [p + 1 for p in range(4) if computer >> p & 1]
    view.feed(json.dumps({"ev": "game", "v": 3, "players": 2, "tiles": 9, "rules": RULES,
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
    values = [0, 3] + [0] * 23
    rec = {"ev": "settings", "v": 3, "status": 0, "values": values, "code": "0042"}
    words.track(rec, ctx)
    assert ctx["computer"] == 2  # one player: the computer takes seat 2
    text = words.say(rec, ctx)
    assert text.startswith("switched on: 1 player, computer hard") and "code 0042" in text
    game = {"ev": "game", "v": 3, "players": 2, "tiles": 9, "rules": RULES, "computer": [2]}
    words.track(game, ctx)
    assert words.say(game, ctx) == "new game: 1 player and the computer"
    assert words.say({"ev": "stakes", "round": 2, "balance": [3, 0, -3]}, ctx) == \
        "stakes after round 2: +3 +0 -3"
    assert words.say({"ev": "nonesuch"}, ctx) == "the box said: nonesuch"


# ----- the page reads the same words the same way (web/static/words.js, under Node) -----

WORDS_JS = mp.ROOT / "host_tools" / "shutbox_host" / "web" / "static" / "words.js"
# Node reads the vocabulary and the cases on stdin and says each, as the page does (the
# repository's package.json makes .js files modules: words.js is run as the page runs it).
NODE_READER = r"""
const fs = require('fs');
const vm = require('vm');
const page = { self: {} }; // a classic script, as the page loads it: it sets self.shutboxWords
vm.runInNewContext(fs.readFileSync(process.argv[1], 'utf8'), page);
const W = page.self.shutboxWords;
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const { voc, records, frames } = JSON.parse(input);
  const ctx = {};
  const said = records.map((rec) => { W.track(rec, ctx); return W.say(rec, ctx, voc); });
  const mem = {};
  const screens = frames.map(([mode, t, a, b]) => {
    W.see(mode, t, a, b, mem, voc);
    return W.screenLines(mode, t, a, b, mem, voc.controls, voc);
  });
  process.stdout.write(JSON.stringify({ said, screens }));
});
"""


def corpus_records() -> list[dict]:
    """Real game logs of the firmware's game (shutbox_host.analysis.games: every kind a game
    makes, under settings that make rounds, stakes, roll-offs, the computer), and the kinds
    a game on CPython does not make, written as the box writes them."""
    from shutbox_host.analysis import games

    recs = games.play(2, 2, "greedy", seed=5)
    recs += games.play(1, 1, "random", seed=6, computer=3, hints=2)
    recs += games.play(1, 3, "greedy", seed=7, format=1, stakes=1, tie=1, unlucky7=1)
    recs += games.play(1, 2, "best", seed=8, format=3, to_go=1)
    recs += [{"ev": "resume", "state": st, "player": 2, "open": [1, 5], "dice": [3, 4],
              "scores": [3, 0]} for st in ("setup", "ready", "rolling", "move", "turn_end",
                                            "game_end", "rolloff")]
    recs += [{"ev": "rolloff", "players": [1, 3]}, {"ev": "rolloff_die", "player": 3, "die": 2},
             {"ev": "notice", "tiles": [1, 5]}, {"ev": "sleep", "why": "idle", "mv": 4100},
             {"ev": "sleep", "why": "battery", "mv": 2700}, {"ev": "wake", "mv": 4200},
             {"ev": "fault", "n": 1, "error": "MemoryError", "text": "x", "safe": True},
             {"ev": "companion", "error": "OSError", "text": "[Errno 98] EADDRINUSE"},
             {"ev": "wifi", "mode": "ap", "ssid": "shutbox-ab12", "addr": "192.168.4.1"},
             {"ev": "wifi", "mode": "joining", "ssid": "home", "addr": ""},
             {"ev": "wifi", "mode": "home", "ssid": "home", "addr": "192.168.1.20"},
             {"ev": "error", "player": 1, "why": "too-high", "tiles": [8, 9]},
             {"ev": "refused", "player": 1, "why": "setup", "tiles": [3]},
             {"ev": "refused", "player": 1, "why": "reopened", "tiles": [3]},
             {"ev": "refused", "player": 1, "why": "dice", "tiles": []},
             {"ev": "throw", "player": 1, "dice": [5, 2], "total": 7, "moves": 2,
              "open": [1, 2, 5, 7], "real": True},
             {"ev": "throw", "player": 1, "dice": [3], "total": 3, "moves": 0, "open": [4],
              "real": True},
             {"ev": "settings", "v": 3, "status": 0, "values": [3, 2] + [1] * 23,
              "code": "0042"}, {"ev": "nonesuch", "x": 1},
             # the long game (shutbox.long): player 2 reopens
             {"ev": "turn", "player": 1, "open": [3, 4], "long": True},
             {"ev": "turn", "player": 2, "open": [1, 2], "long": True, "reopen": True},
             {"ev": "throw", "player": 2, "dice": [1, 2], "total": 3, "moves": 1,
              "open": [1, 2], "reopen": True},
             {"ev": "move", "player": 2, "dice": [1, 2], "shut": [1, 2], "open": [],
              "reopen": True},
             {"ev": "throw", "player": 2, "dice": [6, 6], "total": 12, "moves": 0,
              "open": [5], "reopen": True},
             {"ev": "rule", "rule": "extra-turn", "player": 2},
             {"ev": "turn_end", "player": 2, "next": 1, "long": True},
             {"ev": "winner", "players": [2], "score": 0, "scores": [0, 0], "tie": False,
              "long": True}]
    return recs


def corpus_frames() -> list[list]:
    """LED frames of every power-up screen: each settings page with each value chosen (one
    shown red), a code being entered, the records' label and number, erase, the self-test."""
    from shutbox import frame as fr
    from shutbox import pins

    n = pins.TILES
    letters = fr.NAMES.decode()

    def frame(draw) -> list[str]:
        f = bytearray(fr.size(n))
        draw(f)
        text = "".join(letters[c] for c in f)
        return [text[:n], text[n:n + 7], text[n + 7:n + 14]]

    out = []
    voc = words.vocabulary()
    for sec, count in enumerate(voc["sections"], 1):
        for num in range(1, count + 1):
            page = sum(voc["sections"][:sec - 1]) + num - 1
            for v in range(len(voc["choices"][page])):
                def draw(f, sec=sec, num=num, v=v, page=page, bad=False):
                    fr.die(f, n, 0, sec, fr.WHITE)
                    fr.die(f, n, 1, num, fr.WHITE)
                    for k in range(len(voc["choices"][page])):
                        f[k] = fr.WHITE
                    f[v] = fr.RED if bad else fr.GREEN
                out.append([words.MENU, *frame(draw)])
            out.append([words.MENU, *frame(lambda f, d=draw: d(f, bad=True))])
    for digit in range(1, 5):
        out.append([words.MENU, *frame(lambda f, d=digit: (fr.die(f, n, 0, d, fr.CYAN),
                                                         fr.bar(f, n, d + 2, fr.CYAN)))])
    out.append([words.MENU, *frame(lambda f: fr.bar(f, n, n, fr.GREEN))])
    for page in range(1, 5):
        out.append([words.RECORDS, *frame(lambda f, p=page: fr.player(f, n, p, fr.MAGENTA))])
        out.append([words.RECORDS, *frame(lambda f: fr.number(f, n, 23, fr.BLUE, 0, 0))])
    out += [[mode, *frame(lambda f: None)] for mode in (words.ERASE, words.FACTORY,
                                                        words.SELFTEST, words.GAME)]
    return out


@pytest.mark.node
def test_the_page_says_what_the_terminal_prints():
    """words.js and words.py on the same records and frames: the same sentences and screen
    lines, word for word (the page's controls named as the page names them)."""
    import shutil
    import subprocess

    from needs import require

    node = shutil.which("node") or shutil.which("nodejs")
    require(None if node else "node not found (Debian: apt-get install nodejs)", "words.js")
    voc = words.vocabulary()
    records, frames = corpus_records(), corpus_frames()
    kinds = {r["ev"] for r in records}
    assert set(words.SAY) <= kinds  # every kind of sentence is tried
    p = subprocess.run([node, "-e", NODE_READER, str(WORDS_JS)], capture_output=True,
                       text=True, timeout=60, input=json.dumps({"voc": voc, "records": records,
                                                                "frames": frames}))
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    ctx: dict = {}
    want_said = []
    for rec in records:
        words.track(rec, ctx)
        want_said.append(words.say(rec, ctx, voc))
    assert got["said"] == want_said
    mem: dict = {}
    want_screens = []
    for mode, t, a, b in frames:
        words.see(mode, t, a, b, mem, voc)
        want_screens.append(words.screen_lines(mode, t, a, b, mem, words.PAGE, voc))
    assert got["screens"] == want_screens
    assert any("records page 4: turns played" in x for lines in want_screens for x in lines)
    assert any("does not fit the other settings" in x for lines in want_screens for x in lines)

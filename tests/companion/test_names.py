# The seats' names and each name's record: checked names, Elo with draws, exact through cuts.
"""companion.names on CPython: what a name may be, the rating's expectation table against
Elo's formula, and the whole box (shutbox.powerup.read and shutbox.app.start, as in
tests/reliability/test_records_cuts.py) playing two two-player games with named seats while
the power is cut before each save of the run in turn (the box's records', the names' and the
game's): the names' records must count each game once, as it ended."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time

import pytest
from backends import paired
from selection import sizes
from test_records_cuts import Box

from shutbox.game import GAME_END
from shutbox.store import Store
from shutbox_host import mp

# the companion is the Pico W's, not a host package: its package loaded from its folder
_DIR = mp.ROOT / "firmware" / "companion"
_SPEC = importlib.util.spec_from_file_location("companion", _DIR / "__init__.py",
                                               submodule_search_locations=[str(_DIR)])
assert _SPEC is not None and _SPEC.loader is not None
sys.modules["companion"] = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sys.modules["companion"])
nm = importlib.import_module("companion.names")
live_mod = importlib.import_module("companion.live")

def test_a_name_is_short_printable_text_and_not_the_computers():
    assert nm.check("ann") is None and nm.check(None) is None and nm.check("") is None
    assert nm.check("Zoë 2") is None and nm.check("x" * 16) is None
    assert "at most 16 bytes" in nm.check("x" * 17)
    assert "at most 16 bytes" in nm.check("é" * 9)  # 18 bytes of UTF-8
    assert "control" in nm.check("a\nb")
    assert "space" in nm.check(" ann")
    assert "text" in nm.check(3)
    assert "computer" in nm.check("Computer (hard)")


def test_the_expectation_follows_elos_formula_and_is_symmetric():
    for d in range(-1000, 1001, 7):
        want = 1000 / (1 + 10 ** (min(max(d, -800), 800) / 400))
        assert abs(nm.expect(d) - want) <= 2, d
        assert nm.expect(d) + nm.expect(-d) == 1000


def test_the_seats_take_names_and_refuse_bad_ones_with_nothing_changed(tmp_path):
    names = nm.Names(Store(str(tmp_path)))
    assert names.seats == ["", "", "", ""] and names.status == 1  # no file yet
    assert names.set_seats(["ann", "bob"]) is None
    assert "one seat only" in names.set_seats(["ann", None, "ann"])
    assert "seat 2" in names.set_seats(["ann", "\x00"])
    assert "list of 1 to 4" in names.set_seats(["a", "b", "c", "d", "e"])
    assert "list of 1 to 4" in names.set_seats("ann")
    again = nm.Names(Store(str(tmp_path)))
    assert again.seats == ["ann", "bob", "", ""] and again.status == 0
    assert again.set_seats([None, "cy"]) is None
    assert nm.Names(Store(str(tmp_path))).seats == ["", "cy", "", ""]


class NamedBox(Box):
    """The box of test_records_cuts with the companion beside it: after each of the app's
    steps its ``Live.count_game``, as its loop runs it (a cut in it: the power goes), and a
    new Live at each power-up (its RAM lost)."""

    def __init__(self, root, cut=0, seed=1):
        self.ends: dict[int, tuple[int, int, list[int]]] = {}  # game: winners, played, scores
        super().__init__(root, cut, seed)
        self._companion()
        box = self

        class Finals(dict):
            def __setitem__(self, k, v):
                g = box.app.game
                box.ends[k] = (g.winners, g.played, list(v))
                super().__setitem__(k, v)

        self.finals = Finals()

    def _companion(self):
        """The companion beside the app the box has just started."""
        live = self.live = live_mod.Live(out=lambda line: None)
        live.store = self.store
        app = self.app
        step = app.step

        def stepped(now, levels=-1):
            step(now, levels)
            live.count_game(app)

        app.step = stepped

    def powered_up(self):
        self._companion()

    def table(self):
        return {r["name"]: r for r in nm.Names(Store(self.root)).records()}

    def expected(self):
        """The records the games as they ended give, the rating by Elo's formula in floats."""
        want = {n: {"name": n, "games": 0, "wins": 0, "draws": 0, "best": None,
                    "boxes_shut": 0, "rating": 1500.0} for n in ("ann", "bob")}
        for k in sorted(self.ends):
            won, played, scores = self.ends[k]
            rows = [want["ann"], want["bob"]]
            e = 1 / (1 + 10 ** ((rows[1]["rating"] - rows[0]["rating"]) / 400))
            s = 0.5 if won == 3 else 1.0 if won == 1 else 0.0
            rows[0]["rating"] += 32 * (s - e)
            rows[1]["rating"] -= 32 * (s - e)
            for p, r in enumerate(rows):
                r["games"] += 1
                r["wins"] += won == 1 << p
                r["draws"] += won == 3
                if played >> p & 1:
                    r["best"] = scores[p] if r["best"] is None else min(r["best"], scores[p])
                    r["boxes_shut"] += scores[p] == 0
        return want


def _check(box: NamedBox):
    got, want = box.table(), box.expected()
    assert set(got) == {"ann", "bob"}, got
    for n in got:
        rating = got[n].pop("rating")
        assert abs(rating - want[n].pop("rating")) <= 1.5, (n, rating)  # rounded a game
        assert got[n] == want[n], (n, got[n], want[n])
    assert box.table()["ann"]["rating"] + box.table()["bob"]["rating"] == 3000  # zero-sum


def _named(root: str) -> str:
    assert nm.Names(Store(root)).set_seats(["ann", "bob"]) is None
    return root


@pytest.mark.parametrize("step", sizes(short=6, long=1))
def test_the_names_count_each_game_once_whatever_save_the_power_cuts(tmp_path, step):
    """Every cut point of two two-player games (short: every sixth, and every cut at and
    after the records' and the names' saves): the names' records as the games ended."""
    plain = NamedBox(_named(str(tmp_path / "plain")))
    plain.play()
    _check(plain)
    assert plain.table()["ann"]["games"] == 2
    saves = plain.store.names
    assert saves.count("names") == 2, saves  # once a game, at its end
    end = [i + 1 for i, name in enumerate(saves) if name in ("records", "names")]
    wrong = []
    for k in sorted(set(range(1, len(saves) + 1, step)) | set(end) | {e + 1 for e in end}):
        box = NamedBox(_named(str(tmp_path / ("cut%d" % k))), cut=k)
        box.play()
        assert box.cuts == 1, k
        try:
            _check(box)
        except AssertionError as e:
            wrong.append((k, saves[k - 1], str(e)))
    assert not wrong, "%d cuts of %d: %s" % (len(wrong), len(saves), wrong[:5])


def test_a_game_without_a_persons_name_saves_nothing(tmp_path):
    box = NamedBox(str(tmp_path / "box"))
    box.play(games=1)
    assert "names" not in box.store.names
    assert nm.Names(Store(box.root)).records() == []


# ----- on the unix port: the routes, a whole game, a restart -----


def _play(box, throws):
    """Throw each (faces, tiles) and shut its tiles."""
    for faces, tiles in throws:
        box.roll(faces)
        box.wait_state(lambda s: s["state"] == "move")
        for k in tiles:
            box.tile(k, True)
        box.wait_state(lambda s, t=tiles: s["state"] != "move" and t[0] not in s["open"])


def _press(box):
    """Press and release Roll (no dice queued)."""
    from shutbox import pins

    box.send("p %d %d" % (pins.ROLL_PIN, pins.SWITCH_ACTIVE))
    time.sleep(0.15)
    box.send("p %d %d" % (pins.ROLL_PIN, pins.SWITCH_ACTIVE ^ 1))


def test_names_set_after_pairing_count_a_game_and_outlive_a_restart(tmp_path):
    """Names refused unpaired and malformed (a clear error, nothing changed), then set; a
    game to its end (seat 1 shuts the box) counts in the names' records, shown by
    /api/names and the state; after a restart the box resumes at the game's end and the
    names and records are as they were (the game not counted again)."""
    from shutbox_host.box.webbox import WebBox

    box = WebBox(tmp_path / "flash", players=2)
    try:
        status, r = box.request("GET", "/api/names")
        assert status == 200 and r["seats"] == [None] * 4 and r["records"] == []
        assert box.request("POST", "/api/names", body={"seats": ["ann"]})[0] == 403
        token = paired(box)
        for body, words in [({"seats": "ann"}, "list of 1 to 4"),
                            ({"seats": ["x" * 17]}, "at most 16 bytes"),
                            ({"seats": ["ann", "ann"]}, "one seat only"),
                            ({"seats": ["a\tb"]}, "control"),
                            ({"seats": ["computer"]}, "named by the box"),
                            ({"seats": [1]}, "text"),
                            ({"names": ["ann"]}, "give the seats' names"),
                            ({}, "give the seats' names"),
                            ('["ann"]', "give the seats' names"),
                            ("{", "give the seats' names")]:
            status, r = box.request("POST", "/api/names", body=body, headers=token)
            assert status == 400 and words in r["error"], (body, status, r)
        status, r = box.request("POST", "/api/names", body='{"seats": ["%s"]}' % ("y" * 300),
                                headers=token)
        assert status == 413, (status, r)
        assert box.request("GET", "/api/names")[1]["seats"] == [None] * 4
        status, r = box.request("POST", "/api/names", body={"seats": ["ann", "bob"]},
                                headers=token)
        assert status == 200 and r["seats"] == ["ann", "bob", None, None], r
        box.wait_state(lambda s: s["names"] == ["ann", "bob"] and s["state"] in ("setup",
                                                                                 "ready"))
        turn = [((4, 5), (9,)), ((4, 4), (8,)), ((3, 4), (7,)), ((3, 3), (6,)),
                ((2, 3), (5,)), ((2, 2), (4,)), ((1, 2), (3,))]
        _play(box, turn + [((1, 2), (1, 2))])  # ann shuts the box: 0
        box.wait_state(lambda s: s["state"] == "turn-end" and s["scores"][0] == 0)
        time.sleep(1.0)  # the score shows before Roll passes on
        for k in range(1, 10):
            box.tile(k, False)
        _press(box)  # Roll passes the box on
        box.wait_state(lambda s: s["state"] in ("setup", "ready") and s["player"] == 2)
        _play(box, turn)  # bob leaves 1 and 2
        box.roll((6, 6))  # 12 from 1 and 2: the turn ends, 3 to score
        box.wait_state(lambda s: s["state"] == "turn-end" and s["scores"] == [0, 3])
        time.sleep(1.0)
        _press(box)
        s = box.wait_state(lambda s: s["state"] == "game-end")
        assert s["winners"] == [1] and s["names"] == ["ann", "bob"]
        table = {r["name"]: r for r in box.request("GET", "/api/names")[1]["records"]}
        assert table == {
            "ann": {"name": "ann", "games": 1, "wins": 1, "draws": 0, "best": 0,
                    "boxes_shut": 1, "rating": 1516},
            "bob": {"name": "bob", "games": 1, "wins": 0, "draws": 0, "best": 3,
                    "boxes_shut": 0, "rating": 1484}}, table
    finally:
        box.close()
    again = WebBox(tmp_path / "flash", players=2)
    try:
        again.wait_log("resume", timeout=10)
        s = again.wait_state(lambda s: s["state"] == "game-end")
        assert s["names"] == ["ann", "bob"]
        time.sleep(0.5)  # steps at the game's end: none counts it again
        r = again.request("GET", "/api/names")[1]
        assert r["seats"] == ["ann", "bob", None, None]
        assert {x["name"]: x["games"] for x in r["records"]} == {"ann": 1, "bob": 1}
        assert [x["name"] for x in r["records"]] == ["ann", "bob"]  # the highest rating first
    finally:
        again.close()


class _Game:
    """What Names.after reads of shutbox.game.Game at a game's end."""

    def __init__(self, scores, winners):
        self.state = GAME_END
        self.players = len(scores)
        self.scores = scores
        self.winners = winners
        self.played = (1 << len(scores)) - 1
        self.cpu = None

        class _S:
            computer = 0

        self.settings = _S()


class _App:
    def __init__(self, game, began, games):
        self.game = game
        self.tally = [None, 77, 0, 0, 0, 0, began, games]  # shutbox.records' _T_* slots


def test_a_game_the_records_did_not_count_is_told_from_the_next_by_its_end(tmp_path):
    """The variant's first game, which the box's records did not count (their count stays
    0): counted once, also when the box resumes at its end; the next game begins at the same
    count, ends otherwise, and counts too (told apart by the end's mark), once."""
    names = nm.Names(Store(str(tmp_path)))
    assert names.set_seats(["ann", "bob"]) is None
    first = _App(_Game([0, 9], 1), began=0, games=0)  # the records did not count it
    assert names.after(first, 0)
    again = nm.Names(Store(str(tmp_path)))  # a power cycle: resumed at its end
    assert not again.after(first, 0)
    second = _App(_Game([5, 2], 2), began=0, games=1)  # the records counted this one
    assert again.after(second, 0)
    assert not nm.Names(Store(str(tmp_path))).after(second, 0)
    got = {r["name"]: (r["games"], r["wins"]) for r in nm.Names(Store(str(tmp_path))).records()}
    assert got == {"ann": (2, 1), "bob": (2, 1)}

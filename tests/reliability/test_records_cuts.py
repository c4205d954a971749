# The box's records stay exact through power cuts: each finished game once, every turn kept.
"""The whole box on CPython (the CPython box: shutbox.powerup.read and shutbox.app.start, as
firmware/main.py boots it, with a store in a folder), two players playing two games to their
end; the power is cut before each save of the run in turn (the records' and the game's: a save
is atomic, so these are all the states a cut can leave), the box boots again from the folder,
the players put the tiles back and play on to the end. The records must then count each game
once, and every turn of the games as they ended, the best score and the boxes shut.
"""

from __future__ import annotations

import pytest
from selection import sizes

from shutbox import setfile
from shutbox.engine import Engine, Rules
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, Settings
from shutbox.records import Records
from shutbox.store import Store
from shutbox_host.box.drive import CpyBox

FULL = 0x1FF


class Cut(Exception):
    """The power goes."""


class CutStore(Store):
    """A store whose power goes before its save number *cut* (1-based; 0: never)."""

    def __init__(self, root, cut=0):
        super().__init__(root)
        self.cut = cut
        self.saves = 0
        self.names: list[str] = []

    def save(self, name, payload, version=0):
        self.saves += 1
        self.names.append(name)
        if self.saves == self.cut:
            raise Cut()
        return super().save(name, payload, version)


class Box:
    """The box (the CPython box with a flash: shutbox_host.box.drive.CpyBox, booting as
    main.py does) and its players: two games to their end, with one power cut at save
    *cut*."""

    def __init__(self, root, cut=0, seed=1, give_up=False):
        self.root = root
        self.give_up = give_up  # after the cut, give the game up (Roll held 5 s)
        self.eng = Engine(Rules())
        self.finals: dict[int, list[int]] = {}  # game number: the scores it ended with
        self.game_no = 0
        self.cuts = 0
        self.store = CutStore(root, cut)
        self.box = CpyBox(seed=seed, store=self.store, play=True)

    @property
    def app(self):
        return self.box.app

    def wait(self, ms):
        box = self.box
        end = box.ms + ms
        while box.ms < end:
            try:
                box.advance(end - box.ms)
            except Cut:  # the power went in a save, at the box's ms
                self.cuts += 1
                box.release()  # the player lets go; the tiles stay as they are
                self.store = box.store = CutStore(self.root)
                box.power_cut()
                self.powered_up()
                if self.app.game.state == GAME_END:  # the last game to end: the next not begun
                    self.game_no = len(self.finals) - 1
                if self.give_up:
                    self.give_up = False
                    g = self.app.game
                    self.finals[self.game_no] = g.scores[:g.players]  # as it was at the cut
                    self.game_no += 1
                    box.press()
                    self.wait(5500)
                    box.release()
                    self.wait(100)
                    return

    def powered_up(self):
        """The box has booted again after a cut (a subclass starts what runs beside it)."""

    def press(self, ms):
        self.box.press()
        self.wait(ms)
        self.box.release()
        self.wait(100)

    def play(self, games=2):
        """Play on until *games* games have ended (a long press starts each next one)."""
        box = self.box
        while True:
            app = self.app
            g = app.game
            if app.resume.expect >= 0:  # resumed: the tiles as the saved game had them
                box.set_open(app.resume.expect)
                self.wait(100)
                continue
            st = g.state
            if st == SETUP or st == READY:
                box.set_open(g.open_)
                self.press(100)
            elif st == ROLLING:
                self.wait(50)
            elif st == MOVE:
                move = self.eng.best_move(g.open_, g.a, g.b, g.locked)
                for k in range(9, 0, -1):
                    if move >> (k - 1) & 1:
                        box.shut(k)
                        self.wait(60)
                self.wait(200)
            elif st == TURN_END:
                self.wait(750)
                box.set_open(FULL)
                self.wait(60)
                self.press(100)
            else:
                assert st == GAME_END
                self.finals[self.game_no] = g.scores[:g.players]
                if self.game_no + 1 == games:
                    self.wait(500)  # its saves
                    return
                self.game_no += 1
                self.press(900)  # a long press: the next game

    def records(self):
        key = setfile.variant_key(Settings(), 9)
        return Records(Store(self.root), key).entry()

    def expected(self):
        scores = [s for game in self.finals.values() for s in game]
        return min(scores), len(scores), scores.count(0), len(self.finals)


@pytest.mark.parametrize("step", sizes(short=4, long=1))
def test_the_records_count_every_turn_and_game_once_whatever_save_the_power_cuts(tmp_path,
                                                                                 step):
    """Every cut point of two two-player games: before each save of the run (the records'
    save at each game's end among them) and so between each two (make check: every fourth,
    and the cuts at the records' saves)."""
    plain = Box(str(tmp_path / "plain"))
    plain.play()
    assert plain.records() == plain.expected()
    n = plain.store.saves
    assert n > 40, n  # the game's saves and the records' two
    wrong = []
    records = {i + 1 for i, name in enumerate(plain.store.names) if name == "records"}
    for k in sorted(set(range(1, n + 1, step)) | records | {r + 1 for r in records}):
        box = Box(str(tmp_path / ("cut%d" % k)), cut=k)  # the same run up to the cut
        box.play()
        assert box.cuts == 1, k
        if box.records() != box.expected():
            wrong.append((k, box.records(), box.expected()))
    assert not wrong, "%d of %d cuts: (cut, records, expected) %s" % (len(wrong), n, wrong)


def test_a_game_counted_before_a_cut_then_given_up_counts_once(tmp_path):
    """The power goes between the records' save and the game's at a game's end: the box
    resumes the game at its last turn's score; the players give it up (Roll held 5 s) and
    play a new game. The game given up was counted, once; the new one counts too."""
    probe = Box(str(tmp_path / "probe"))
    probe.play(games=1)
    end = probe.store.names.index("records") + 2  # the game's save after the records'
    assert probe.store.names[end - 1] == "game"
    box = Box(str(tmp_path / "box"), cut=end, give_up=True)
    box.play(games=2)
    assert box.cuts == 1 and not box.give_up
    assert box.records() == box.expected()
    assert box.records()[3] == 2

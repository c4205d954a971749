# The box's records stay exact through power cuts: each finished game once, every turn kept.
"""The whole box on CPython (shutbox.powerup.read and shutbox.app.start, as firmware/main.py
boots it, with a store in a folder), two players playing two games to their end; the power is
cut before each save of the run in turn (the records' and the game's: a save is atomic, so
these are all the states a cut can leave), the box boots again from the folder, the players
put the tiles back and play on to the end. The records must then count each game once, and
every turn of the games as they ended, the best score and the boxes shut.
"""

from __future__ import annotations

import random

import pytest
from selection import sizes

from shutbox import app as app_mod
from shutbox import frame as fr
from shutbox import powerup, setfile
from shutbox.engine import Engine, Rules
from shutbox.game import GAME_END, MOVE, READY, ROLLING, SETUP, TURN_END, Settings
from shutbox.records import Records
from shutbox.store import Store

FULL = 0x1FF
NAMES = fr.NAMES.decode()
STEP = 5  # ms a poll


class Cut(Exception):
    """The power goes."""


class Board:
    """The Board API the app uses: tile levels (bit set = open) and Roll set by the player."""

    tiles = 9

    def __init__(self):
        self.levels = FULL
        self.rolling = False

    def switches(self, levels=-1):  # Board.switches: the tiles now (no loop reading here)
        return self.levels

    def roll(self, levels=-1):
        return self.rolling

    def show(self, frame):
        pass

    def tone(self, hz, ms=0):
        pass

    def adjust(self, sound, brightness):
        pass


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
    """The box and its players: two games to their end, with one power cut at save *cut*."""

    def __init__(self, root, cut=0, seed=1, give_up=False):
        self.root = root
        self.give_up = give_up  # after the cut, give the game up (Roll held 5 s)
        self.board = Board()
        self.rng = random.Random(seed)
        self.now = 1000
        self.eng = Engine(Rules())
        self.finals: dict[int, list[int]] = {}  # game number: the scores it ended with
        self.game_no = 0
        self.cuts = 0
        self.store = CutStore(root, cut)
        self.boot()

    def boot(self):
        boot = powerup.read(self.board, self.store)
        self.app = app_mod.start(self.board, self.rng.randbytes, self.now, self.store, boot,
                                 out=lambda line: None)

    def wait(self, ms):
        for _ in range(ms // STEP):
            self.now += STEP
            try:
                self.app.step(self.now)
            except Cut:
                self.cuts += 1
                self.board.rolling = False  # the player lets go; the tiles stay as they are
                self.store = CutStore(self.root)
                self.boot()
                if self.app.game.state == GAME_END:  # the last game to end: the next not begun
                    self.game_no = len(self.finals) - 1
                if self.give_up:
                    self.give_up = False
                    g = self.app.game
                    self.finals[self.game_no] = g.scores[:g.players]  # as it was at the cut
                    self.game_no += 1
                    self.board.rolling = True
                    self.wait(5500)
                    self.board.rolling = False
                    self.wait(100)
                    return

    def press(self, ms):
        self.board.rolling = True
        self.wait(ms)
        self.board.rolling = False
        self.wait(100)

    def play(self, games=2):
        """Play on until *games* games have ended (a long press starts each next one)."""
        while True:
            app = self.app
            g = app.game
            if app.resume.expect >= 0:  # resumed: the tiles as the saved game had them
                self.board.levels = app.resume.expect
                self.wait(100)
                continue
            st = g.state
            if st == SETUP or st == READY:
                self.board.levels = g.open_
                self.press(100)
            elif st == ROLLING:
                self.wait(50)
            elif st == MOVE:
                move = self.eng.best_move(g.open_, g.a, g.b, g.locked)
                for k in range(9, 0, -1):
                    if move >> (k - 1) & 1:
                        self.board.levels &= ~(1 << (k - 1))
                        self.wait(60)
                self.wait(200)
            elif st == TURN_END:
                self.wait(750)
                self.board.levels = FULL
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

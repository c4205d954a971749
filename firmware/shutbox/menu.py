# The settings menu and the other power-up screens (records, erasing); loaded only for them.
"""Power-up screens, each a state machine driven by ``step(now) -> done`` (shutbox.powerup).

**Settings menu** (Roll held at power-up, every tile open). Each option is a page:

* die A shows the section (1 who plays, 2 the turn, 3 variants of a turn, 4 the game) and
  die B the page in it, both white: ``setfile.SECTIONS``; the card lists them;
* the tiles show the page's values: tile k is value k, the chosen one green, the others white;
* flip tile k (up or down) to choose value k; flip tile 9 (the highest tile of a smaller
  box) to go back a page; a short Roll goes to the next page (after the last, the first);
* hold Roll to save and play: the tiles flash green. If two settings do not fit together
  (2-to-go needs the 2 in play at the start), the box buzzes and shows the page to change,
  its value blinking red. If the flash refuses the save, the tiles flash red (the box plays
  with the settings it has). New settings end a game saved in progress.

**Records** (tile 2 shut): four pages, each the page number (die A and that tile, magenta),
then the number: 1 the best turn score (blue), 2 boxes shut (green), 3 games played (white),
4 turns played (white), for the variant the settings choose. A page with nothing to show yet
keeps its label. A short Roll: the next page; hold Roll to play.

**Erase** (tiles 2 and 9 shut: the records; tiles 8 and 9: settings and records). Every tile
blinks red and die A shows what goes, in red: 2 the records, 3 settings and records. Hold
Roll to erase (the tiles flash green); a short Roll or a flipped tile leaves it as it is.
"""

from micropython import const
from shutbox import frame as fr
from shutbox import records, setfile
from shutbox.debounce import EV_LONG, EV_SHORT, EV_TILES, Debouncer
from shutbox.settings import ATTRS, COUNTS, Settings
from shutbox.ticks import ticks_add, ticks_diff

_LEAVE_MS = const(600)  # the green (saved) or red (not saved) flash before play starts
_LABEL_MS = const(1000)
_CYCLE_MS = const(3000)
_BEEP = const(1320)  # Hz: a value chosen, a page turned
_BUZZ = const(200)  # Hz: refused
_NONE = const(0xFFFFFFFF)  # shutbox.records._NONE
_MENU = const(1)  # shutbox.powerup's modes (_MENU ...)
_RECORDS = const(3)
_RESET_RECORDS = const(4)
_FACTORY = const(5)
_GAME = const("game")  # shutbox.resume's file: the game in progress
_UNDRAWN = const(0xFF)  # no palette code: a frame compared with it is always shown


def screen(mode, board, settings, store, recs, now):
    """Return the screen of power-up *mode* (shutbox.powerup MENU, RECORDS, ...)."""
    if mode == _MENU:
        return Menu(board, settings, store, recs, now)
    if mode == _RECORDS:
        return RecordsView(board, settings, store, recs, now)
    return Erase(board, settings, store, recs, now, 3 if mode == _FACTORY else 2)


class Screen:
    """What every screen shares: debounced inputs, a frame shown when it changes, beeps.

    Each screen defines ``event(ev, now)``, which takes debounced events (EV_* bits), and
    ``draw(f, now)``, which draws the screen into the cleared frame *f*.
    """

    def __init__(self, board, settings, store, recs, now):
        self.board = board
        self.tiles = board.tiles
        self.deb = Debouncer(board.tiles, board.switches(), board.roll(), now)
        self.frame = bytearray(fr.size(board.tiles))
        self._shown = bytearray(len(self.frame))
        self._shown[0] = _UNDRAWN  # the first frame is shown even if it is dark
        self.settings = settings  # what the game will play (a new object when changed)
        self.changed = False
        self.store = store
        self.recs = recs
        self.t0 = now
        self.leaving = 0  # 0: running; fr.GREEN or fr.RED: the flash before the game
        self.leave_at = now
        self._tone_off = -1  # when the beep ends (-1: silent)

    def step(self, now):
        """One poll; return True when the screen is done."""
        b = self.board
        ev = self.deb.update(b.switches(), b.roll(), now)
        if ev and not self.leaving:
            self.event(ev, now)  # type: ignore[attr-defined]  # each screen defines it
        if self._tone_off >= 0 and ticks_diff(now, self._tone_off) >= 0:
            self._tone_off = -1
            b.tone(0, 0)
        f = self.frame
        fr.clear(f)
        if self.leaving:
            if ticks_diff(now, self.leave_at) >= _LEAVE_MS:
                b.tone(0, 0)
                return True
            fr.bar(f, self.tiles, self.tiles, self.leaving)
        else:
            self.draw(f, now)  # type: ignore[attr-defined]
        if f != self._shown:
            self._shown[:] = f
            b.show(f)
        return False

    def beep(self, hz, ms, now):
        """Sound *hz* for *ms* ms."""
        self.board.tone(hz, ms)
        self._tone_off = ticks_add(now, ms)

    def leave(self, code, now):
        """Flash the tiles in *code* (GREEN done, RED failed; OFF: at once), then finish."""
        self.leaving = code if code else fr.WHITE
        self.leave_at = ticks_add(now, 0 if code else -_LEAVE_MS)
        if code:
            self.beep(_BEEP if code == fr.GREEN else _BUZZ, 300, now)


class Menu(Screen):
    """The settings menu (see the module doc)."""

    def __init__(self, board, settings, store, recs, now):
        super().__init__(board, settings, store, recs, now)
        self.vals = bytearray(len(COUNTS))
        for i in range(len(COUNTS)):
            self.vals[i] = setfile.index(settings, i)
        self.page = 0
        self.bad = -1  # the page of a conflict found when saving
        self.levels = self.deb.levels

    def event(self, ev, now):
        """Tiles choose values, a short Roll turns the page, a long Roll saves."""
        pages = len(COUNTS)
        if ev & EV_TILES:
            flipped = self.deb.levels ^ self.levels
            self.levels = self.deb.levels
            k = 0
            while flipped and not flipped >> k & 1:
                k += 1
            if not flipped:
                pass
            elif k == (self.tiles if self.tiles < 9 else 9) - 1 and k >= 5:  # tile 9: back
                self.page = (self.page - 1) % pages
                self.beep(_BEEP, 40, now)
            elif k < COUNTS[self.page]:
                self.vals[self.page] = k
                self.bad = -1
                self.beep(_BEEP, 60, now)
            else:
                self.beep(_BUZZ, 150, now)  # no such value on this page
        if ev & EV_SHORT:
            self.page = (self.page + 1) % pages
            self.t0 = now
            self.beep(_BEEP, 40, now)
        if ev & EV_LONG:
            opts = {}
            for i in range(pages):
                v = self.vals[i]
                opts[ATTRS[i]] = v + 1 if i == 0 else v
            s = Settings(**opts)
            bad = setfile.conflict(s, self.tiles)
            if bad >= 0:
                self.page = bad
                self.bad = bad
                self.t0 = now
                self.beep(_BUZZ, 400, now)
                return
            self.changed = setfile.pack(s) != setfile.pack(self.settings)
            self.settings = s
            ok = True
            if self.changed:
                ok = setfile.save(s, self.store) == 0
                self.store.remove(_GAME)  # a game saved under the old settings is over
            self.leave(fr.GREEN if ok else fr.RED, now)

    def draw(self, f, now):
        """Die A the section, die B the page; the values on the tiles."""
        n = self.tiles
        i = self.page  # its section s and its number i in it, both from 0
        s = 0
        while i >= setfile.SECTIONS[s]:
            i -= setfile.SECTIONS[s]
            s += 1
        fr.die(f, n, 0, s + 1, fr.WHITE)
        fr.die(f, n, 1, i + 1, fr.WHITE)
        count = COUNTS[self.page]
        for k in range(count if count <= n else n):
            f[k] = fr.WHITE
        v = self.vals[self.page]
        if v < n:
            if self.bad == self.page:
                f[v] = fr.RED if fr.blink(now, self.t0) else fr.OFF
            else:
                f[v] = fr.GREEN


class RecordsView(Screen):
    """The records of the variant being played (see the module doc)."""

    def __init__(self, board, settings, store, recs, now):
        super().__init__(board, settings, store, recs, now)
        self.page = 0
        best, turns, shut, games = recs.entry()
        self.values = (best, shut, games, turns)

    def event(self, ev, now):
        """A short Roll: the next page; a long Roll: play."""
        if ev & EV_SHORT:
            self.page = (self.page + 1) % 4
            self.t0 = now
        if ev & EV_LONG:
            self.leave(fr.OFF, now)

    def draw(self, f, now):
        """The page's label, then its number."""
        n = self.tiles
        v = self.values[self.page]
        if ticks_diff(now, self.t0) % _CYCLE_MS < _LABEL_MS or v == _NONE:
            fr.player(f, n, self.page + 1, fr.MAGENTA)
        else:
            code = fr.BLUE if self.page == 0 else fr.GREEN if self.page == 1 else fr.WHITE
            fr.number(f, n, v, code, now, self.t0)


class Erase(Screen):
    """Erase the records (*what* 2) or settings and records (3), once Roll confirms it."""

    def __init__(self, board, settings, store, recs, now, what):
        super().__init__(board, settings, store, recs, now)
        self.what = what

    def event(self, ev, now):
        """A long Roll erases; a short Roll or a flipped tile keeps everything."""
        if ev & EV_LONG:
            self.store.remove(records.NAME)
            if self.what == 3:
                self.store.remove(setfile.NAME)
                self.store.remove(_GAME)
                self.settings = Settings()
            self.changed = True
            self.leave(fr.GREEN, now)
        elif ev & (EV_SHORT | EV_TILES):
            self.leave(fr.OFF, now)

    def draw(self, f, now):
        """Every tile blinking red, die A showing what would go."""
        n = self.tiles
        fr.bar(f, n, n, fr.RED if fr.blink(now, self.t0) else fr.OFF)
        fr.die(f, n, 0, self.what, fr.RED)

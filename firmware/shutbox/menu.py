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
  with the settings it has). New settings end a game saved in progress (sound and
  brightness do not: they change no game).
* sound and brightness (5.1, 5.2) take effect as their value is chosen: the beep sounds at
  the new volume, the LEDs show the new brightness; sleep (5.3) is the idle time before the
  box sleeps (shutbox.sleep). Section 6, ways to play: real-dice (6.1: the players throw
  their own dice and enter them on the tiles, shutbox.turn), two-tiles (6.2: a move shuts at
  most two tiles, shutbox.rounds), timeout (6.3: 30 or 60 s for each decision,
  shutbox.turn), resign (6.4: tile 1 out of place and Roll held, shutbox.turn), long (6.5:
  the long game for 2, shutbox.long) and the challenge code.

**The challenge code** (the last page, 6.6: tile 1 off, tile 2 a code; with a code set, the
page shows its four digits in turn after its label, as the game end does:
``shutbox.challenge.show``).
Flip tile 2 to enter a new code, four digits from the left. For each digit die A shows which
(1-4, cyan): flip as many tiles as the digit (any tiles, up or down; a tile flipped back
counts no more), the count lighting as a cyan bar, then a short Roll enters it (at once: 0).
More than 9 tiles flipped buzz and blink red. After the fourth digit the code is set (a
chirp) and shown; hold Roll to save it as ever. A long Roll before the fourth digit leaves
the code as it was. Tile 1 sets no code (the dice are random).

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
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_BLINK_MS = const(250)  # shutbox.frame's slow blink (half-period)
_DIGIT_MS = const(900)  # one digit of a long number, of a challenge code
_DIRECT_MAX = const(129)  # largest number drawn as tens-on-dice, units-on-tiles
_CODE_VIEW_MS = const(4500)  # challenge.show: 4 digits and a dark step
_LABEL_MS = const(1000)  # a score view: the player's number this long ...
_CYCLE_MS = const(3000)  # a score view: its label, then its number, this long
_GAME_OPTIONS = const(17)  # settings.ATTRS[:17] shape the game
_SOUND = const(17)  # the page of sound (settings.ATTRS)
_BRIGHTNESS = const(18)  # the page of brightness (settings.ATTRS)
_IDLE_MS = const(60000)  # wait(): the longest sleep reported when nothing is due
_MENU = const(1)  # power-up mode: the menu
_RECORDS = const(3)  # power-up mode: the records
_RESET_RECORDS = const(4)  # power-up mode: reset the records
_FACTORY = const(5)  # power-up mode: factory settings
_GAME = const("game")  # the saved game's file in the store
_NONE = const(0xFFFFFFFF)  # records: no best score yet
# END consts
_BEEP = const(1320)  # Hz: a value chosen, a page turned
_BUZZ = const(200)  # Hz: refused
_UNDRAWN = const(0xFF)  # no palette code: a frame compared with it is always shown
_DIGITS = const(4)  # a code's digits


def _count(m):
    """Return the number of bits set in *m*."""
    n = 0
    while m:
        n += m & 1
        m >>= 1
    return n


def screen(mode, board, settings, store, recs, now):
    """Return the screen of power-up *mode* (shutbox.powerup MENU, RECORDS, ...)."""
    if mode == _MENU:
        return Menu(board, settings, store, recs, now)
    if mode == _RECORDS:
        return RecordsView(board, settings, store, recs, now)
    return Erase(board, settings, store, recs, now, 3 if mode == _FACTORY else 2)


class Screen:
    """What every screen shares: debounced inputs, a frame shown when it changes, beeps.

    Each screen defines ``event(ev, now)``, which takes debounced events (EV_* bits),
    ``draw(f, now)``, which draws the screen into the cleared frame *f*, and ``edge(t)``,
    the ms until that drawing changes by itself, *t* ms after t0 (-1: not until an input).
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
        board.adjust(settings.sound, settings.brightness)  # the saved ones, from the first beep

    def step(self, now, levels=-1):
        """One poll of the switches' reading *levels* (Board.reader: the power-up loop reads
        them once a pass; -1: read here); return True when the screen is done."""
        # (few locals, shallow calls: a frame of at most 11 slots stays off the heap, so a
        # screen that waits allocates nothing at its picture's edges)
        ev = self.board.roll(levels)
        ev = self.deb.update(self.board.switches(levels), ev, now)
        if ev and not self.leaving:
            self.event(ev, now)  # type: ignore[attr-defined]  # each screen defines it
        if self._tone_off >= 0 and ticks_diff(now, self._tone_off) >= 0:
            self._tone_off = -1
            self.board.tone(0, 0)
        f = self.frame
        fr.clear(f)
        if self.leaving:
            if ticks_diff(now, self.leave_at) >= _LEAVE_MS:
                self.board.tone(0, 0)
                return True
            fr.bar(f, self.tiles, self.tiles, self.leaving)
        else:
            self.draw(f, now)  # type: ignore[attr-defined]
        if f != self._shown:
            self._shown[:] = f
            self.board.show(f)
        return False

    def wait(self, now):
        """Return the ms from *now* until the next step can change anything if no switch
        changes: a level settling, the beep's end, the flash before play ending, or the
        frame's next change (``edge``); the loop sleeps until then (shutbox.powerup)."""
        ms = self.deb.wait(now, _IDLE_MS)
        if self._tone_off >= 0:
            w = ticks_diff(self._tone_off, now)
            if w < ms:
                ms = w
        w = ticks_diff(ticks_add(self.leave_at, _LEAVE_MS), now) if self.leaving else \
            self.edge(ticks_diff(now, self.t0))  # type: ignore[attr-defined]
        if 0 <= w < ms:
            ms = w
        return ms if ms > 0 else 0

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
        self.code = settings.code  # the challenge code chosen (-1: none)
        self.page = 0  # ATTRS pages, then the code's (len(COUNTS))
        self.bad = -1  # the page of a conflict found when saving
        self.levels = self.deb.levels
        self.entry = -1  # entering a code: the digit being entered (0..3); -1: not
        self.digits = 0  # the digits entered so far, as a number
        self.base = 0  # the tile levels when the digit began

    def event(self, ev, now):
        """Tiles choose values, a short Roll turns the page, a long Roll saves."""
        pages = len(COUNTS) + 1
        if ev & EV_TILES:
            flipped = self.deb.levels ^ self.levels
            self.levels = self.deb.levels
            k = 0
            while flipped and not flipped >> k & 1:
                k += 1
            if self.entry >= 0:  # a digit: the tiles flipped since it began
                self.beep(_BEEP if _count(self.levels ^ self.base) <= 9 else _BUZZ, 40, now)
            elif not flipped:
                pass
            elif k == (self.tiles if self.tiles < 9 else 9) - 1 and k >= 5:  # tile 9: back
                self.page = (self.page - 1) % pages
                self.t0 = now
                self.beep(_BEEP, 40, now)
            elif self.page == len(COUNTS) and k < 2:  # the code: off, or enter a new one
                self.code = -1 if k == 0 else self.code
                if k == 1:
                    self.entry = 0
                    self.digits = 0
                    self.base = self.levels
                self.t0 = now
                self.beep(_BEEP, 60, now)
            elif self.page < len(COUNTS) and k < COUNTS[self.page]:
                self.vals[self.page] = k
                self.bad = -1
                if self.page == _SOUND or self.page == _BRIGHTNESS:  # heard and seen at once
                    self.board.adjust(self.vals[_SOUND], self.vals[_BRIGHTNESS])
                self.beep(_BEEP, 60, now)
            else:
                self.beep(_BUZZ, 150, now)  # no such value on this page
        if ev & EV_SHORT:
            if self.entry >= 0:
                d = _count(self.levels ^ self.base)
                if d > 9:
                    self.beep(_BUZZ, 150, now)
                else:
                    self.digits = self.digits * 10 + d
                    self.entry += 1
                    self.base = self.levels
                    self.beep(_BEEP, 60, now)
                    if self.entry == _DIGITS:  # the code is set: shown from its first digit
                        self.code = self.digits
                        self.entry = -1
                        self.t0 = ticks_add(now, -_LABEL_MS)
                        self.beep(_BEEP, 200, now)
            else:
                self.page = (self.page + 1) % pages
                self.t0 = now
                self.beep(_BEEP, 40, now)
        if ev & EV_LONG:
            self.entry = -1  # a code not finished: the one before stays
            opts = {"code": self.code}
            for i in range(len(COUNTS)):
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
            old = self.settings
            self.changed = setfile.pack(s) != setfile.pack(old)
            # a game saved under other game options is over (two-tiles and long are, after the
            # box's)
            game = s.code != old.code or s.two_tiles != old.two_tiles or s.long != old.long
            for i in range(_GAME_OPTIONS):
                game = game or setfile.index(s, i) != setfile.index(old, i)
            self.settings = s
            ok = True
            if self.changed:
                ok = setfile.save(s, self.store) == 0
                if game:
                    self.store.remove(_GAME)
            self.leave(fr.GREEN if ok else fr.RED, now)

    def draw(self, f, now):
        """Die A the section, die B the page; the values on the tiles (the code's page: see
        the module doc)."""
        n = self.tiles
        if self.entry >= 0:  # a digit of a new code: its place, and the tiles flipped
            d = _count(self.levels ^ self.base)
            fr.die(f, n, 0, self.entry + 1, fr.CYAN)
            if d > 9:
                fr.bar(f, n, n, fr.RED if fr.blink(now, self.t0) else fr.OFF)
            else:
                fr.bar(f, n, d, fr.CYAN)
            return
        t = ticks_diff(now, self.t0) % (_LABEL_MS + _CODE_VIEW_MS)
        if self.page == len(COUNTS) and self.code >= 0 and t >= _LABEL_MS:
            from shutbox.challenge import show  # only for a code (powerup unloads it)

            show(f, n, self.code, t - _LABEL_MS)
            return
        i = self.page  # its section s and its number i in it, both from 0
        s = 0
        while i >= setfile.SECTIONS[s]:
            i -= setfile.SECTIONS[s]
            s += 1
        fr.die(f, n, 0, s + 1, fr.WHITE)
        fr.die(f, n, 1, i + 1, fr.WHITE)
        if self.page == len(COUNTS):  # tile 1 off, tile 2 a code
            count = 2
            v = 0 if self.code < 0 else 1
        else:
            count = COUNTS[self.page]
            v = self.vals[self.page]
        for k in range(count if count <= n else n):
            f[k] = fr.WHITE
        if v < n:
            if self.bad == self.page:
                f[v] = fr.RED if fr.blink(now, self.t0) else fr.OFF
            else:
                f[v] = fr.GREEN


    def edge(self, t):
        """The ms until draw's picture changes by itself (a blink, the code's digits)."""
        if self.entry >= 0:
            if _count(self.levels ^ self.base) <= 9:
                return -1
        elif self.page == len(COUNTS) and self.code >= 0:
            t %= _LABEL_MS + _CODE_VIEW_MS
            return _LABEL_MS - t if t < _LABEL_MS else _DIGIT_MS - (t - _LABEL_MS) % _DIGIT_MS
        elif self.bad != self.page:
            return -1
        return _BLINK_MS - t % _BLINK_MS


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
        # (no local: a frame of at most 11 slots stays off the heap, as in Screen.step)
        if ticks_diff(now, self.t0) % _CYCLE_MS < _LABEL_MS or \
                self.values[self.page] == _NONE:
            fr.player(f, self.tiles, self.page + 1, fr.MAGENTA)
        else:
            fr.number(f, self.tiles, self.values[self.page],
                      fr.BLUE if self.page == 0 else fr.GREEN if self.page == 1 else fr.WHITE,
                      now, self.t0)


    def edge(self, t):
        """The ms until draw's picture changes by itself: the label, the number's digits."""
        v = self.values[self.page]
        if v == _NONE:
            return -1
        w = _LABEL_MS - t % _LABEL_MS  # the label 1 s, then the number until _CYCLE_MS
        if v > _DIRECT_MAX or self.tiles < 9:
            e = _DIGIT_MS - t % _DIGIT_MS
            if e < w:
                w = e
        return w


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

    def edge(self, t):
        """The ms until the blink's next edge."""
        return _BLINK_MS - t % _BLINK_MS

# The companion's side of the box: its loop beside the server, its state, its log, pairing.
"""The box as the companion sees it: on a Pico W only (a Pico never imports this package).

Sharing the CPU. The box's loop (shutbox.guard.Guard.forever) sleeps between readings of
the switches; here the same loop (``Live.box``: one reading a pass, a step only when it
changed or the app said something is due, the watchdog fed, the guard's steps and waits)
runs as an asyncio task whose sleep is ``asyncio.sleep_ms``, so the server's tasks (microdot
is asyncio) run only in the box's sleeps, and never in the middle of a step. A request is
handled in slices that each end at the next socket wait or at the turns companion.web gives
this loop (each line read, its route, its answer, each write; the state's JSON is made once
per change: ``state_body``), so the box's next reading is late by at most one slice, or by
a collection of the heap that a request's garbage brings on: ``Live.late`` keeps the worst
lateness of the loop's wake-ups and ``hist`` counts them by the ms, which the tests and
the benches read while phones poll and bad requests arrive (tests/companion,
shutbox_host.bench.companion and .picow). Measured so on a PC's unix port
(``shutbox bench --only companion``; a PC's figures, the Pico W's are a later bench's, and
a request costs its core far more): with four phones polling the state, about 2,500
answers a second, the loop still made its 500 passes a second, late by 4 ms at worst and
by 0 ms at the 99th percentile (idle: 5 and 2). On a machine busy with other work the PC's
own scheduling of processes shows: at a load of 3.9 on two cores, 1,350 answers a second,
400 passes, 14 ms at worst and 8 ms at the 99th percentile (once 105 ms at worst). A pass
late by a few ms delays what it reads by as much. The alternatives cost more: a thread
would need locks around the game on a core that runs one thread of Python anyway, and
polling the sockets from inside Guard.forever would change the Pico's loop, which must stay
as it is (its heap holds no margin for it). The server can fail in any way (no network, a
socket error, a bug): its tasks end, and this loop goes on (companion.web.run).

Pushed updates: after each step the few numbers the page shows are compared with the last
(``_sig``, no allocation); a change bumps ``version`` and sets ``changed``, which wakes the
page's event streams at once, so the page follows the LEDs by one step and one write.

Pairing: anyone on the network may watch; a change needs a token, which a pairing code
gives. The code (four faces, 1296 of them) shows on the dice for a minute when a phone asks
(two faces at a time, tile 1 or tile 2 lit for the first or second half), and three wrong
tries void it, after which no code shows for 10 s: a phone that guesses has 3 chances in
1296 per 10 s, every showing in plain sight of the players at the box. At most four tokens
are kept (the oldest goes).
"""

import asyncio
import json
import os
import time
from array import array

from micropython import const
from shutbox import frame as fr
from shutbox.guard import Guard

# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_GAME_END = const(5)  # a state
_POLL_MS = const(2)  # the longest sleep between two readings of the switches
_READ_US = const(1010)  # a reading this long after the last while a level settles
# END consts
_LOG_CAP = const(8192)  # the game log kept for the page: the latest lines, this many bytes
_PAIR_MS = const(60000)  # a pairing code shows this long
_HALF_MS = const(1000)  # each half of the code (two faces) shows this long
_TRIES = const(3)  # wrong codes before the code is void
_COOL_MS = const(10000)  # after a void code, no new one for this long
_TOKENS = const(4)  # paired phones remembered at once
_SIG = const(8)  # the numbers compared after each step
_COUNT_MAX = const(0x3FFFFFFF)  # the largest small int on the chip: the counts stop there
_HIST = const(32)  # the loop's lateness counted by the ms up to this (the last: this or more)
# the server's garbage (Live.spent, about a KB a unit) at which the loop collects the heap:
# less than a request's (companion.web's _SERVED), so the loop collects after each answer and
# the heap's sweep stays short (it runs to the highest block used: on the emulated Pico W,
# polled nonstop, a collection takes 7.9 ms so, 8.0 at 12, 8.2 at 24, 8.6 at 48: a press
# landing as one starts is shown 9.8, 10.0 and 10.2 ms after its edge at the first three), at
# the cost of more of them (the core's share in them: bench picow_inputs_*_gc_share_pct);
# and MicroPython never collects first (in a request: a rescan)
_SPEND = const(8)
_OWN = ("sound", "brightness")  # the settings the page may change (the box's own)
STATES = ("setup", "ready", "rolling", "move", "turn-end", "game-end", "roll-off")
# shutbox.game's _ERR_* in words: what the tiles' red LEDs say is wrong
ERRORS = ("none", "setup", "early", "reopened", "too-high", "not-legal")


def _bits(mask, n):
    """Return the tile numbers (1..n) of the bits set in *mask*."""
    return [k + 1 for k in range(n) if mask >> k & 1]


class Live:
    """The box's state, log and pairing for the server; the box's loop as a task."""

    def __init__(self, out=print, urandom=os.urandom):
        """*out*: where the box's log lines go besides the page (the USB console)."""
        self.guard: Guard = None  # type: ignore[assignment]  # set by box()
        self.settings = None  # the box's settings (shutbox.settings.Settings), when known
        self.store = None  # the box's flash store (shutbox.store.Store), for the records
        self.key = -1  # the records' variant key (shutbox.setfile.variant_key), or -1
        self.print = out
        self.urandom = urandom
        # the game log's latest lines (JSON lines), at most _LOG_CAP bytes: one object, not
        # a list of a hundred strings (more than the 64 a collection's mark stack holds:
        # each overflow rescans the whole heap, 8 ms on the Pico W)
        self.log = bytearray()
        self.version = 0  # bumped whenever what the page shows changed
        self.changed = asyncio.Event()
        self.late = 0  # the loop's worst lateness (ms past a wake-up it asked for)
        self.hist = array("I", [0] * (_HIST + 1))  # the passes by their lateness in ms
        self.passes = 0
        self.edge = 0  # when a switch last changed (ticks_us: time_edges)
        self.spent = 0  # the server's garbage since the last collection (about a KB a unit)
        self._sig = [-1] * _SIG
        self._body = b""  # the state as JSON (state_body), made for _body_at
        self._body_at = None  # (version, pairing) it was made at
        self.code = b""  # the pairing code showing (four faces 1..6), or b""
        self._pair_at = 0
        self.tries = 0
        self._void_at = -1  # when the last code was voided by wrong tries (-1: never)
        self.tokens = []
        self._frame = None  # the frame with the code drawn on it
        self._half = -1  # which half of the code it shows
        self.kick = False  # a change made from the page: the box steps at its next pass
        self.server = None  # the server (companion.web.Server) once companion.web.run made it
        self.wifi = None  # the networking (companion.wifi.Wifi) on a radio that runs
        self.names = None  # the seats' names and their records (companion.names), once needed
        self._ended = False  # the game's end was looked at for the names' records
        self._unnamed = False  # no names' file in the store (looked once; until one is set)

    def out(self, line):
        """The app's *out*: print the log line (as the box does) and keep it for the page."""
        self.print(line)
        self.keep(line)

    def keep(self, line):
        """Keep a log line for the page (printed already); the oldest whole lines go."""
        log = self.log
        log.extend(line.encode())
        log.append(10)
        n = len(log) - _LOG_CAP
        if n > 0:
            while log[n - 1] != 10:  # to the start of a line
                n += 1
            log[0:n] = b""

    def state(self):
        """Return the game as the page shows it (a dict for JSON)."""
        app = self.guard.app if self.guard is not None else None
        if app is None:
            return {"state": "fault", "version": self.version, "pairing": bool(self.code)}
        g = app.game
        n = g.engine.tiles
        won = g.state == 5 and g.winners
        return {"version": self.version, "state": STATES[g.state],
                "player": g.player + 1, "players": g.players,
                "throw": ([g.a, g.b] if g.b else [g.a]) if g.state in (3, 4) and g.a else [],
                "up": _bits(g.levels, n),
                "open": _bits(g.open_, n), "tiles": n,
                "scores": g.scores[:g.players], "turn": g.score,
                "winners": _bits(g.winners, g.players) if won else [],
                "error": ERRORS[g.err], "pairing": bool(self.code),
                "computer": g.cpu.seats if g.cpu is not None else 0,
                "names": self.seat_names(g)}

    def state_body(self):
        """Return the state as JSON bytes, made again only when the game changed (a new
        ``version``) or a pairing code began or ended: every phone polling and every event
        stream share it."""
        at = (self.version, bool(self.code))
        if at != self._body_at:
            self._body = json.dumps(self.state()).encode()
            self._body_at = at
        return self._body

    def log_text(self):
        """Return the kept game log: JSON lines, as ``shutbox log`` records them."""
        return bytes(self.log)

    def _after(self, now):
        """After a step: bump the version when anything the page shows changed (a few
        numbers compared with the last step's, allocating nothing)."""
        app = self.guard.app
        s = self._sig
        if app is None:  # the fault pattern
            new = s[0] != -2
            s[0] = -2
        else:
            g = app.game
            new = (s[0] != g.transitions or s[1] != g.levels or s[2] != g.open_
                   or s[3] != g.player or s[4] != g.err or s[5] != g.a or s[6] != g.b
                   or s[7] != g.err_mask)
            if new:
                s[0] = g.transitions
                s[1] = g.levels
                s[2] = g.open_
                s[3] = g.player
                s[4] = g.err
                s[5] = g.a
                s[6] = g.b
                s[7] = g.err_mask
        if new:
            self.version += 1
            self.changed.set()

    async def box(self, guard):
        """The box's loop (Guard.forever's, with asyncio's sleep): see the module's doc."""
        self.guard = guard
        try:  # the names' module, when the seats have names: now, not in a request mid-game
            self.names_file()
        except Exception:  # noqa: BLE001 - the page without names then
            pass
        from companion.sweep import collect

        timed = self.time_edges(guard.board)
        read = guard.board.reader()
        ticks_ms = time.ticks_ms
        ticks_us = time.ticks_us
        wdt = guard.wdt
        seen = -1
        due = wake = last = ticks_ms()
        while True:
            now = ticks_ms()
            late = time.ticks_diff(now, wake)
            if late > self.late:
                self.late = late
            # counts that stop short of a long int (an allocation a pass, on the chip)
            i = late if 0 <= late < _HIST else _HIST
            if self.hist[i] < _COUNT_MAX:
                self.hist[i] += 1
            if self.passes < _COUNT_MAX:
                self.passes += 1
            try:
                lv = read()
            except Exception as e:  # noqa: BLE001 - as Guard.forever
                if guard.app is not None:
                    guard.fault(e, now)
                lv = -1
            dt = time.ticks_diff(due, now)
            stepped = lv != seen or dt <= 0 or self.kick
            was, last = last, now  # this reading's time, and the one before's
            if stepped:
                moved = lv != seen
                held = False
                if moved:
                    t = ticks_us()
                    # the level read has held since the switches' last edge, a settle or
                    # more ago, and the last reading is 2 ms old or more (a poll's sleep, or
                    # the core held: a collection): a reading a ms ago, after that one, would
                    # have read it, so it is handed to the debouncer first, which then takes
                    # the level at this one (as at its second reading, a ms on)
                    # (when nothing else can come of that reading: nothing about to settle, no
                    # long press due: Debouncer.wait, so no event is lost without a step)
                    held = (timed and guard.app is not None and time.ticks_diff(now, was) >= 2
                            and time.ticks_diff(t, self.edge) >= _READ_US
                            and guard.app.deb.wait(time.ticks_add(now, -1), 2) >= 2)
                seen = lv
                self.kick = False
                try:  # as Guard.forever: the step's try in this frame
                    if held:  # (the debouncer alone: a step there costs 0.2 ms more)
                        guard.app.deb.update(guard.board.switches(lv), guard.board.roll(lv),
                                             time.ticks_add(now, -1))
                    guard.poll(now, lv)
                except Exception as e:  # noqa: BLE001 - as Guard.forever
                    guard.fault(e, now)
                    guard.tick(now)
                try:
                    self._after(now)
                except Exception:  # noqa: BLE001 - the page's view failing never stops the box
                    pass
                if guard.app is not None:
                    try:
                        self.count_game(guard.app)
                    except Exception:  # noqa: BLE001 - nor do the names' records
                        pass
                due = time.ticks_add(now, guard.wait(now))
                dt = time.ticks_diff(due, ticks_ms())
                if moved and dt <= 1:  # as Guard.forever: the next reading 1 ms on, to the µs
                    dt = _READ_US - time.ticks_diff(ticks_us(), t)
                    if dt > 0:
                        time.sleep_us(dt)
                    wake = ticks_ms()
                    continue
            elif wdt is not None:
                wdt.feed()
            if self.code:
                try:  # drawn again over whatever the step drew
                    self._show_code(now, stepped)
                except Exception:  # noqa: BLE001 - as above
                    self.code = b""
            if self.spent >= _SPEND and dt >= 2:
                # here, after a reading that showed the switches as the box has them, with no
                # level settling and nothing due for 2 ms, and just before the next reading:
                # a press the collection holds up is read as soon as it ends, and none is
                # held up that was read already (companion.sweep: no rescan of the heap)
                self.spent = 0
                wake = ticks_ms()
                collect()
                continue
            ms = 1 if dt < 1 else dt if dt < _POLL_MS else _POLL_MS
            wake = time.ticks_add(ticks_ms(), ms)
            await asyncio.sleep_ms(ms)

    def time_edges(self, board):
        """Keep the time of the switches' last edge in ``edge`` (ticks_us), from a hard
        interrupt on each tile's and Roll's pin: it runs even while a collection of the heap
        holds the core, and allocates nothing. Return False where the pins have none (a
        stand-in board, the unix port)."""
        try:  # (the pins' own constants: machine is the board's alone)
            for p in board.pins():
                p.irq(self._edge, p.IRQ_RISING | p.IRQ_FALLING, hard=True)
        except Exception:  # noqa: BLE001 - no interrupts here: the debouncer's settle then
            return False
        return True

    def _edge(self, pin):
        self.edge = time.ticks_us()  # type: ignore[assignment]  # (stubs: _TicksUs)

    # ----- pairing -----

    def pair(self, now):
        """Show a pairing code on the box (for _PAIR_MS); return 0, or the ms to wait first:
        while one shows, the same one goes on (its tries with it), and after one was voided
        by wrong tries no new one shows for _COOL_MS, so guesses come 3 at most per
        _COOL_MS however a phone asks."""
        if self.code:
            return 0
        wait = _COOL_MS - time.ticks_diff(now, self._void_at) if self._void_at >= 0 else 0
        if wait > 0:
            return wait
        r = self.urandom(4)
        self.code = bytes(1 + r[i] % 6 for i in range(4))
        self._pair_at = now
        self.tries = 0
        return 0

    def code_text(self):
        return "".join(str(c) for c in self.code)

    def _show_code(self, now, again):
        """Draw the code on the LEDs when it changes (every _HALF_MS) or *again* (the box's
        step may have drawn its own frame), and give the box its own frame back when the
        code ends."""
        guard = self.guard
        app = guard.app
        t = time.ticks_diff(now, self._pair_at)
        if t >= _PAIR_MS or app is None:
            self.end_pairing()
            return
        half = t // _HALF_MS & 1
        f = self._frame
        if f is None:
            f = self._frame = bytearray(fr.size(app.game.engine.tiles))
        elif self._half == half:
            if again:
                guard.board.show(f)
            return
        self._half = half
        n = app.game.engine.tiles
        fr.bar(f, n, 0, fr.OFF)
        f[half] = fr.CYAN
        fr.die(f, n, 0, self.code[2 * half], fr.CYAN)
        fr.die(f, n, 1, self.code[2 * half + 1], fr.CYAN)
        guard.board.show(f)

    def end_pairing(self):
        """Stop showing the code: the box's own frame again."""
        self.code = b""
        self._half = -1
        app = self.guard.app if self.guard is not None else None
        if app is not None:
            app.draw(time.ticks_ms())

    def check(self, code, now):
        """Return a new token for the right *code* (text of four digits), else None; three
        wrong tries void the code (at *now*)."""
        if not self.code:
            return None
        if code != self.code_text():
            self.tries += 1
            if self.tries >= _TRIES:
                self.end_pairing()
                self._void_at = now
            return None
        self.end_pairing()
        token = "".join("%02x" % b for b in self.urandom(16))
        self.tokens.append(token)
        if len(self.tokens) > _TOKENS:
            self.tokens.pop(0)
        return token

    def paired(self, token):
        """Whether *token* came from a pairing."""
        return bool(token) and token in self.tokens

    # ----- changes -----

    def new_game(self, now):
        """A new game, as holding Roll for 5 s starts one (App.step)."""
        app = self.guard.app
        if app is None:
            return False
        g = app.game
        g.new_game(now)
        rs = app.resume
        if rs is not None:
            rs.expect = -1
        g.tiles_changed(app.deb.levels, now)
        self.kick = True
        return True

    def change(self, words):
        """Change the box's own settings from {option: value name} (shutbox.setnames'
        words): sound and brightness, which shape no game, applied at once and saved as the
        menu saves them. Return None, or what is wrong in words (nothing changed then)."""
        from shutbox import setfile, setnames

        s = self.settings
        if s is None or self.guard.app is None:
            return "the box is restarting"
        new = {}
        for k in words:
            if k not in _OWN:
                return "%s cannot change from the page; %s can" % (k, " and ".join(_OWN))
            i = setnames.OPTIONS.index(k)
            names = setnames.CHOICES[i]
            if words[k] not in names:
                return "%s is one of %s" % (k, ", ".join(names))
            new[setnames.ATTRS[i]] = names.index(words[k])
        for a in new:
            setattr(s, a, new[a])
        self.guard.board.adjust(s.sound, s.brightness)
        setfile.save(s, self.store)
        self.guard.app.draw(time.ticks_ms())  # the LEDs again in the new brightness (a still
        self.kick = True  # picture is drawn only on an input) and a step for the page
        return None

    def records(self):
        """Return the box's records of the variant being played (shutbox.records), or {}."""
        if self.store is None or self.key < 0:
            return {}
        from shutbox import records

        best, turns, shut, games = records.Records(self.store, self.key).entry()
        return {"best": None if best == 0xFFFFFFFF else best, "turns": turns,
                "boxes_shut": shut, "games": games}

    def settings_words(self):
        """Return the settings in words (shutbox.setnames), or {}."""
        if self.settings is None:
            return {}
        from shutbox import setnames

        return setnames.names(self.settings)

    # ----- the seats' names and their records (companion.names) -----

    def names_file(self, make=False):
        """Return the names (companion.names.Names), loaded at the first need; None without
        the box's store, or without their file in it unless *make* (looked for once: a box
        whose seats were never named loads nothing for them, and a phone's state costs no
        look at the flash)."""
        if self.names is None and self.store is not None:
            if not make:
                if self._unnamed:
                    return None
                try:
                    os.stat(self.store.root + "/names")  # companion.names.NAME in the store
                except OSError:
                    self._unnamed = True
                    return None
            from companion.names import Names

            self.names = Names(self.store)
        return self.names

    def seat_names(self, game):
        """Return the names of *game*'s seats (None: no name), or [] without names."""
        n = self.names_file()
        return n.at_seats(game) if n is not None else []

    def count_game(self, app):
        """At a game's end (after the step that ended it, whose records the box saved): the
        names' records count it, once (companion.names); the page shows them then."""
        if app.game.state != _GAME_END:
            self._ended = False  # the next game's end counts (no allocation: every step)
            return
        if self._ended:  # looked at already: the steps at the game's end do nothing more
            return
        self._ended = True
        n = self.names_file()
        if n is not None and n.after(app, app.game.engine.score(0)):
            self.version += 1
            self.changed.set()

    def set_names(self, seats):
        """Name the seats from the page (a list: seat 1 first; null for none); return None,
        or what is wrong in words (nothing changed then)."""
        if self.store is None or self.guard is None or self.guard.app is None:
            return "the box is restarting"
        n = self.names_file(True)
        wrong = n.set_seats(seats)
        if wrong is None:
            self.version += 1  # every phone's page shows the names
            self.changed.set()
        return wrong

    def names_table(self):
        """Return the seats' names and every name's record (a dict for JSON)."""
        n = self.names_file()
        if n is None:
            return {"seats": [None] * 4, "records": [], "rating": {"start": 1500, "k": 32}}
        return {"seats": [x or None for x in n.seats], "records": n.records(),
                "rating": {"start": 1500, "k": 32}}

# Keeping the box alive: unexpected errors logged to flash and shown on the LEDs, clean restarts.
"""The supervisor around the app, on the Pico (app.main) and on the simulated board (boxrun).

``Guard(board, make, now, wdt)`` builds the app with ``make(now, safe)`` and runs one poll per
``step(now)``. An exception escaping the app (a bug, MemoryError, a driver's OSError) does not
freeze the box:

1. the broken app is dropped and the garbage collected;
2. the error and its traceback are appended to ``/error.log`` in flash (capped: past 4 KB the
   log is renamed over ``/error.old``, so the two never hold more than about 8 KB);
3. a JSON line ``{"ev": "fault", ...}`` goes to the console;
4. the LEDs show the fault pattern (``frame.fault``: tiles red, odd and even alternating, both
   dice a red X) and the watchdog is still fed: the box is in a safe state;
5. a Roll press, or 10 s, restarts the app, which resumes the saved game and shows the boot
   notice (tile 4: restarted after a fault). If the app failed within 5 s of its start
   without saving anything new, the next start is ``safe`` (a new game; the saved one is
   overwritten), so a saved game that makes the firmware fail cannot trap the box in a loop.

The watchdog (``machine.WDT``, started by ``app.main``) is fed by the app after every poll and
here in fault mode. A poll that never returns stops the feeding and the Pico reboots; the box
then resumes the saved game as after a power cut, logs "watchdog reset" and shows the notice.
KeyboardInterrupt (a developer's Ctrl-C) and SystemExit are not caught.
"""

import gc
import json
import os
import sys

from micropython import const
from shutbox import frame as fr
from shutbox.ticks import ticks_add, ticks_diff

_LOG_PATH = const("/error.log")
_LOG_CAP = const(4096)  # error.log grows to this, then becomes error.old
_FAULT_MS = const(10000)  # the fault pattern shows this long, then the box restarts itself
_QUICK_MS = const(5000)  # failing this soon after a start makes the next start a safe one
_PRESS_MS = const(30)  # Roll held this long (then released) restarts from the fault pattern
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_NOTICE_FAULT = const(8)  # boot notice: restarted after an error or a watchdog reset
_POLL_MS = const(2)  # the longest sleep between two readings of the switches
_READ_US = const(1010)  # a reading this long after the last while a level settles
_FRAME_MS = const(20)  # LEDs redrawn 50 times a second while they move (and on an input)
# END consts


def write_log(path, text, exc=None):
    """Append *text* (and *exc*'s traceback) to the log at *path*.

    Never raises: a full or failing flash must not turn one fault into two.
    """
    try:
        try:
            if os.stat(path)[6] > _LOG_CAP:
                old = path[:-4] + ".old" if path.endswith(".log") else path + ".old"
                os.rename(path, old)
        except OSError:
            pass  # no log yet
        with open(path, "a") as f:
            f.write(text)
            f.write("\n")
            if exc is not None:
                sys.print_exception(exc, f)  # MicroPython's (the box's) traceback
    except Exception:  # noqa: BLE001 - see above
        pass


class Guard:
    """Runs the app; turns an unexpected exception into a log entry, the fault LEDs, a restart."""

    def __init__(self, board, make, now, wdt=None, out=None, log_path=_LOG_PATH,
                 wdt_reset=False):
        """Build the first app with ``make(now, safe=False)``.

        *wdt_reset*: the box has just been rebooted by the watchdog (machine.reset_cause()):
        it is logged and the first app shows the boot notice.
        """
        self.board = board
        self.make = make
        self.wdt = wdt
        self.out = out if out is not None else print
        self.log_path = log_path
        self.frame = bytearray(fr.size(board.tiles))
        self.app = None
        self.faults = 0  # faults since power-up
        self.safe = False  # the next start ignores the saved game
        self.since = now  # when the app started; in fault mode, when the fault came
        # Roll in fault mode: -1 up, -2 held since before the fault (no press), else when it
        # went down (11 attributes: the dict stays at 11 slots)
        self._down_at = -1
        if wdt_reset:
            write_log(log_path, "watchdog reset: the box hung and was restarted")
        self._start(now, _NOTICE_FAULT if wdt_reset else 0)

    def _start(self, now, notice):
        self.since = now
        safe = self.safe
        self.safe = False
        gc.collect()  # the new app goes where the old one was, not among the fault's garbage
        try:
            app = self.make(now, safe)
            app.wdt = self.wdt
            if notice:
                app.notice(notice, now)
            self.app = app
        except Exception as e:  # noqa: BLE001 - a box that cannot start still must not freeze
            self.fault(e, now)

    def forever(self):
        """Poll the box forever (the Pico's main loop: shutbox.app.main, shutbox.rescue).

        The loop sleeps: it reads the switches every _POLL_MS (Board.reader: on an RP2040
        one read of the GPIO input register) and steps the app only when the reading changed
        or when the app said something is due (App.wait, ``wait`` here), handing the step
        that same reading, and feeds the watchdog in between. A wait with nothing due
        allocates nothing (its frame is this one's, made once) and costs a few µs. A reading
        that fails (a driver's error) is a fault like one in a step. Where littlefs is
        mounted on shutbox.ahead, its idle step (``shutbox.idle[0]``, set while it has
        work) takes each sleep: the flash erases ahead then, suspended before the next
        reading.

        A developer's Ctrl-C (mpremote) goes through: whoever started the watchdog stops it
        (app.main, rescue.run), from its start on, since the REPL cannot stop machine.WDT.
        """
        import time

        import shutbox

        idle = shutbox.idle  # the flash's erase ahead (shutbox.ahead): [its step] while it has
        # work, else [], or None without one
        step = idle[0] if idle else None  # its step while it has work, else None (a pass
        # then tests this local's truth alone, as a box without it: None's is the quickest);
        # littlefs erases only in a step (a save), so it is looked up again after one, and
        # when it did not erase (it may have run out of work)
        read = self.board.reader()
        ticks_ms = time.ticks_ms
        ticks_us = time.ticks_us
        sleep_ms = time.sleep_ms
        wdt = self.wdt
        seen = -1
        due = ticks_ms()
        while True:
            now = ticks_ms()
            try:
                lv = read()
            except Exception as e:  # noqa: BLE001 - as in a step: the box must not freeze
                if self.app is not None:  # in fault mode: its own reading retries
                    self.fault(e, now)
                lv = -1
            dt = ticks_diff(due, now)
            if lv != seen or dt <= 0:
                moved = lv != seen
                if moved:
                    t = ticks_us()
                seen = lv
                try:  # step(), its try in this frame, made once (step's own is made per call)
                    self.poll(now, lv)
                except Exception as e:  # noqa: BLE001 - as in step
                    self.fault(e, now)
                    self.tick(now)
                step = idle[0] if idle else None
                due = ticks_add(now, self.wait(now))
                dt = ticks_diff(due, ticks_ms())
                if moved and dt <= 1:
                    # a switch moved, its level due in 1 ms: the next reading 1 ms after this
                    # one, to the µs (sleep_ms(1) ends at the ms clock's next tick after the
                    # step, up to 1.9 ms after the reading); a busy wait only then, so a
                    # waiting screen's passes and edges stay asleep
                    dt = _READ_US - ticks_diff(ticks_us(), t)
                    if dt > 0:
                        time.sleep_us(dt)
                    continue
            elif wdt is not None:
                wdt.feed()
            # at least 1 ms between two readings: the debouncer's settle (a glitch under 1 ms
            # is never read twice) and a loop that never spins; the flash erases ahead in it
            # (a box without the erase ahead, or whose erase ahead has no work, tests one
            # local's truth: two bytecodes a pass)
            if not step:
                sleep_ms(1 if dt < 1 else dt if dt < _POLL_MS else _POLL_MS)
                continue
            dt = 1 if dt < 1 else dt if dt < _POLL_MS else _POLL_MS
            if not step(dt):
                sleep_ms(dt)
                step = idle[0] if idle else None

    def wait(self, now):
        """Return the ms until the next step is due if no switch changes: the app's
        (App.wait), or in fault mode the next frame of the fault pattern."""
        app = self.app
        if app is not None:
            return app.wait(now)
        return _FRAME_MS  # the fault pattern's next frame (tick draws one every poll)

    def step(self, now, levels=-1):
        """One poll of the switches' reading *levels* (Board.reader; -1: read anew): the
        app's, or the fault pattern's (Roll pressed, or 10 s: a restart); an exception
        escaping the app is a fault."""
        try:
            self.poll(now, levels)
        except Exception as e:  # noqa: BLE001 - anything at all: the box must not freeze
            self.fault(e, now)
            self.tick(now)

    def poll(self, now, levels=-1):
        """step() without its try (Guard.forever keeps the try in its own frame: a frame
        with a try and more than 7 slots is allocated on the heap at every call, 0.1-0.2 ms
        on the emulated RP2040 once the heap holds the game's garbage)."""
        if self.app is not None:
            self.app.step(now, levels)
        else:
            self.tick(now)

    def tick(self, now):
        """One poll in fault mode: the fault pattern; Roll pressed (then released), or 10 s,
        restarts the app."""
        board = self.board
        try:
            fr.fault(self.frame, board.tiles, now, self.since)
            board.show(self.frame)
            roll = board.roll()
        except Exception:  # noqa: BLE001 - the LEDs themselves failing: wait for the restart
            roll = False
        restart = ticks_diff(now, self.since) >= _FAULT_MS
        if roll:
            if self._down_at == -1:  # a press since the fault
                self._down_at = now
        elif self._down_at != -1:  # released: a press long enough to be no glitch
            if self._down_at >= 0 and ticks_diff(now, self._down_at) >= _PRESS_MS:
                restart = True
            self._down_at = -1
        if self.wdt is not None:
            self.wdt.feed()
        if restart:
            self._start(now, _NOTICE_FAULT)

    def fault(self, exc, now):
        """Take *exc*, an error the app did not catch (in a step, or in the loop's reading):
        log it, show the fault pattern, restart later (the module's docstring)."""
        app = self.app
        rs = getattr(app, "resume", None) if app is not None else None
        saved = rs is not None and rs.saves > 0  # the game moved on since the start
        app = rs = self.app = None  # the broken app and everything it holds become garbage
        gc.collect()
        self.faults += 1
        up = ticks_diff(now, self.since)
        self.safe = up < _QUICK_MS and not saved
        self.since = now
        write_log(self.log_path, "fault %d, %d ms after a start:" % (self.faults, up), exc)
        try:
            self.out(json.dumps({"ev": "fault", "n": self.faults, "error": type(exc).__name__,
                                 "text": str(exc), "safe": self.safe}))
        except Exception:  # noqa: BLE001 - a console that fails is no reason to stop
            pass
        try:
            self.board.tone(0, 0)
            self._down_at = -2 if self.board.roll() else -1  # a press under way: no press
        except Exception:  # noqa: BLE001
            self._down_at = -2

# The box on its cells: the battery gauge, the low-battery warning, sleeping and waking.
"""What the box does about its supply (hardware/README.md section 3: 3 x AA cells through D1
into the Pico's VSYS; the LEDs' supply, a 5 V boost behind the P-MOSFET Q2, switched by
``Supply.led_power``). On the chip only (its hardware is shutbox.supply): the simulated board
has no ADC and no sleep, and this module never loads there; the shared modules reach it by
names already interned (``sleep``, ``prelude``, ``main``), so it costs the simulated box's
heap nothing (a name more can cost a kilobyte: docs/performance.md).

**The gauge** reads VSYS (``Supply.vsys_mv``: the cells less D1's drop, or USB's 5 V less the
Pico's own diode) and lights a bar of tiles from tile 1: none at _STOP_MV, every tile at
_FULL_MV; green, amber under _HALF_MV, red under _LOW_MV; on USB the whole bar is blue. It
shows for _GAUGE_MS at power-up on the cells (``prelude``, from shutbox.powerup) and on
request: Roll held with tile 3 shut at power-up shows it until a press of Roll (or 10 s).

**During play** ``main`` runs the box under ``Sleeper``, a shutbox.guard.Guard whose
``poll`` (its step) first looks at the cells and the idle time when they are due (every
_CHECK_MS, and when the idle time runs out; ``wait`` makes the guard's loop step then) and
notes when a
switch or Roll last changed (the guard steps at every change). On the cells, VSYS under
_LOW_MV adds the battery reason to the boot notice (``App.notice``: tile 5 blinking amber,
both dice an amber X, 2 s) at every check; under _STOP_MV at two checks running, the box
stops safely: its game is already saved (shutbox.resume saves at every state), so it sleeps,
and a Roll press wakes it only once the cells read _LOW_MV again (new cells); until then a
press shows the empty gauge for a second.

**Sleep.** After ``settings.sleep`` idle minutes (no switch or Roll changed), never while
the dice roll or the computer plays, the box sleeps (``Sleeper.sleep``): the buzzer off,
the watchdog stopped, the LEDs' supply off, then on the cells the RP2040 DORMANT
(``Supply.dormant``: the crystal stopped, woken by Roll's falling edge) and on USB (or on an
RP2350) a poll of Roll every _POLL_MS (the USB console stays up; power costs nothing there).
A Roll press held _PRESS_MS wakes it; a shorter glitch or a bounce puts it back to sleep at
once. Awake again, the LEDs'
supply comes up (_RAMP_MS: C3 ramps Q2's gate), the watchdog starts again and the app is made
anew from the saved game, as after a power cut (its records' tally with it): tiles flipped while
it slept blink amber until they are put back (shutbox.resume). The log gets ``sleep`` and
``wake``.

Levels (VSYS, mV): fresh alkaline cells under the box's load give about 1.5 V each, less D1's
0.3 V: _FULL_MV; _LOW_MV is 1.1 V a cell; _STOP_MV about 1.03 V a cell, before the 0.9-1.0
V where alkaline cells are spent (the boost and the Pico, which runs from 1.8 V, would go on).
NiMH cells (1.2 V) read about a third of the bar when full. A Pico W reads VSYS only at
power-up (``Supply.vsys_mv``: its GPIO 29 is the radio's clock while the radio runs).
"""

from micropython import const
from shutbox import frame as fr
from shutbox.guard import Guard
from shutbox.ticks import ticks_add, ticks_diff

_FULL_MV = const(4200)
_HALF_MV = const(3500)
_LOW_MV = const(3000)
_STOP_MV = const(2800)
_STOPS = const(2)  # checks under _STOP_MV in a row before the safe stop
_CHECK_MS = const(20000)  # VSYS read this often during play
_GAUGE_MS = const(1500)  # the gauge at power-up
_ASKED_MS = const(10000)  # the gauge asked for by the combination, at most this long
_RAMP_MS = const(60)  # the LEDs' supply up (C3 and R5 ramp Q2's gate: about 3 x 10 ms)
_PRESS_MS = const(30)  # Roll held this long wakes the box (a bounce or a glitch does not)
_CHATTER_MS = const(500)  # a contact that settles in neither state this long: no press
_POLL_MS = const(20)  # asleep on USB: Roll read this often
_BUSY_MS = const(1000)  # idle long enough but the dice roll or the computer plays: ask again
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_ROLLING = const(2)  # a state
_MINUTES = const(b"\x00\x01\x05\x0a\x1e")  # settings.sleep: off, then idle minutes
_NOTICE_BATTERY = const(16)  # boot notice: the cells are low
# END consts


def level(mv, tiles):
    """Return the tiles the gauge lights for VSYS *mv* on a box of *tiles*: 0 at _STOP_MV or
    under, every tile from _FULL_MV, at least one in between."""
    if mv <= _STOP_MV:
        return 0
    n = ((mv - _STOP_MV) * tiles + _FULL_MV - _STOP_MV - 1) // (_FULL_MV - _STOP_MV)
    return n if n < tiles else tiles


def draw(f, tiles, mv, usb):
    """Draw the gauge for VSYS *mv* into the frame *f* (USB: the whole bar blue)."""
    fr.clear(f)
    if usb:
        fr.bar(f, tiles, tiles, fr.BLUE)
        return
    n = level(mv, tiles)
    fr.bar(f, tiles, n, fr.GREEN if mv >= _HALF_MV else fr.AMBER if mv >= _LOW_MV else fr.RED)
    if n == 0:
        f[0] = fr.RED  # empty: tile 1 red


def _held(board, ticks_ms, sleep_ms):
    """Return True once Roll has read pressed _PRESS_MS in a row, False once released that
    long or after _CHATTER_MS of bouncing (the count starts again at every change)."""
    t0 = last = ticks_ms()
    down = board.roll()
    while True:
        sleep_ms(1)
        now = ticks_ms()
        r = board.roll()
        if r != down:
            down = r
            last = now
        elif ticks_diff(now, last) >= _PRESS_MS:
            return down
        if ticks_diff(now, t0) >= _CHATTER_MS:
            return False


def _show(board, supply, mv, usb, ms, sleep_ms):
    """Light the gauge for *ms* (its own frame: this runs outside the app)."""
    f = bytearray(fr.size(board.tiles))
    draw(f, board.tiles, mv, usb)
    supply.led_power(True)
    sleep_ms(_RAMP_MS)
    board.show(f)
    sleep_ms(ms)


def hold(board, supply, ticks_ms, sleep_ms, flat=False):
    """Sleep until a Roll press wakes the box: the LEDs' supply off meanwhile, the chip
    DORMANT on the cells (Supply.dormant) or polling Roll on USB; then the supply on again.
    *flat*: a safe stop for flat cells: a press wakes the box only once VSYS reads _LOW_MV
    again (otherwise it shows the empty gauge a second and sleeps on)."""
    supply.led_power(False)
    while True:
        if supply.usb() or not supply.rp2040:
            while not board.roll():
                sleep_ms(_POLL_MS)
        else:
            supply.dormant(board.tiles)
        if not _held(board, ticks_ms, sleep_ms):
            continue
        if flat and not supply.usb():
            mv = supply.vsys_mv()
            if mv < _LOW_MV:
                _show(board, supply, mv, False, 1000, sleep_ms)
                supply.led_power(False)
                continue
        break
    supply.led_power(True)
    sleep_ms(_RAMP_MS)


def prelude(board, asked, ticks_ms, sleep_ms, out=print):
    """At power-up (shutbox.powerup): the gauge for _GAUGE_MS on the cells, or until a Roll
    press (at most _ASKED_MS) when *asked* (the combination); on flat cells the safe stop:
    the box sleeps until new cells (``hold``)."""
    from shutbox.supply import Supply

    supply = Supply()
    if not supply.ok:
        return
    mv = supply.vsys_mv(True)  # before usb(): on a Pico W that starts the radio
    usb = supply.usb()
    if usb and not asked:
        return
    _show(board, supply, mv, usb, 0 if asked else _GAUGE_MS, sleep_ms)
    if asked:
        t0 = ticks_ms()
        while board.roll() and ticks_diff(ticks_ms(), t0) < _ASKED_MS:  # the combination's
            sleep_ms(_POLL_MS)
        while not board.roll() and ticks_diff(ticks_ms(), t0) < _ASKED_MS:
            sleep_ms(_POLL_MS)
        while board.roll() and ticks_diff(ticks_ms(), t0) < _ASKED_MS:
            sleep_ms(_POLL_MS)
    if not usb and 0 <= mv < _STOP_MV:
        out('{"ev": "sleep", "why": "battery", "mv": %d}' % mv)
        hold(board, supply, ticks_ms, sleep_ms, True)
        out('{"ev": "wake", "mv": %d}' % supply.vsys_mv(True))
        while board.roll():  # the press that woke it is no combination
            sleep_ms(_POLL_MS)


class Sleeper(Guard):
    """The guard (shutbox.guard.Guard) of a box on cells: the checks, the warning, the safe
    stop and sleep, before each of its steps when they are due."""

    def __init__(self, board, make, now, wdt, wdt_reset, supply, settings, ticks_ms,
                 sleep_ms, watchdog_ms):
        """*supply* (shutbox.supply.Supply): the hardware; *settings*: the idle time
        (``sleep``); *ticks_ms*, *sleep_ms*: the clock; the watchdog (*watchdog_ms*, 0: none)
        is stopped while the box sleeps and started again."""
        self.supply = supply
        self.after = _MINUTES[settings.sleep] * 60000  # ms idle before sleeping (0: never)
        self._levels = -1
        self._quiet = now  # a switch or Roll last changed then
        self._due = now  # the cells or the idle time are due then
        self._check = now
        self._low = 0  # checks in a row under _STOP_MV
        self._ticks = ticks_ms
        self._sleep = sleep_ms
        self._wdt_ms = watchdog_ms
        self._asked = True  # the app stepped: ask it again when it is due
        self._app_due = now
        super().__init__(board, make, now, wdt=wdt, wdt_reset=wdt_reset)

    def wait(self, now):
        """The guard's wait, no later than the cells or the idle time are due. The app is
        asked (Guard.wait) only after it stepped: the debouncer's wait has a frame too large
        for the C stack, allocated at every call."""
        if self._asked:
            self._asked = False
            self._app_due = ticks_add(now, super().wait(now))
        ms = ticks_diff(self._app_due, now)
        w = ticks_diff(self._due, now)
        if w < ms:
            ms = w
        return ms if ms > 0 else 0

    def poll(self, now, levels=-1):
        """Note a change of the switches' reading *levels* (Board.reader; -1: none), or
        check the cells and the idle time when they are due (a sleep ends with the app made
        anew); then the guard's poll, if the app is due (Guard.step and Guard.forever call
        this under their try). (Its methods keep their frames small: a larger one is
        allocated at every call.)"""
        lv = levels
        if lv != self._levels:
            self._levels = lv
            self._quiet = now
        elif ticks_diff(now, self._due) >= 0:
            if self._cells(now) or self._idle(now):
                self._woke(self._ticks())
                return
            if ticks_diff(now, self._app_due) < 0:
                return  # only the cells were due, not the app: the guard would not step it
        self._asked = True
        super().poll(now, lv)

    def _woke(self, now):
        """After a sleep: the app made anew from the saved game, as after a power cut (the
        records' tally with it: shutbox.resume)."""
        self._quiet = now
        self._asked = True
        self.app = None
        self._start(now, 0)

    def _cells(self, now):
        """Every _CHECK_MS on the cells: the warning, the safe stop; True after a stop."""
        if ticks_diff(now, self._check) < 0:
            return False
        self._check = ticks_add(now, _CHECK_MS)
        mv = -1 if self.supply.usb() else self.supply.vsys_mv()
        if mv < 0 or mv >= _STOP_MV:
            self._low = 0
        else:
            self._low += 1
            if self._low >= _STOPS:
                self.sleep("battery", mv)
                return True
        if 0 <= mv < _LOW_MV and self.app is not None:
            self.app.notice(_NOTICE_BATTERY, now)
            self._app_due = now  # the notice is the app's to show: it steps now
        return False

    def _idle(self, now):
        """Sleep once idle long enough, never while the dice roll or the computer plays;
        True after a sleep. Sets when to look again."""
        due = self._check
        if self.after and self.app is not None:
            w = ticks_add(self._quiet, self.after)
            if ticks_diff(now, w) >= 0:
                g = self.app.game
                if g.state != _ROLLING and (g.cpu is None or not g.cpu.playing()):
                    self.sleep("idle", self.supply.vsys_mv())
                    return True
                w = ticks_add(now, _BUSY_MS)
            if ticks_diff(w, due) < 0:
                due = w
        self._due = due
        return False

    def sleep(self, why, mv):
        """Sleep until a Roll press (``hold``), the watchdog stopped meanwhile."""
        b = self.board
        sp = self.supply
        b.tone(0, 0)
        self.out('{"ev": "sleep", "why": "%s", "mv": %d}' % (why, mv))
        b.watchdog_stop()
        hold(b, sp, self._ticks, self._sleep, why == "battery")
        if self._wdt_ms:
            b.watchdog(self._wdt_ms)
        self._low = 0
        self._check = self._due = ticks_add(self._ticks(), _CHECK_MS)
        self.out('{"ev": "wake", "mv": %d}' % sp.vsys_mv())


def main(board, make, settings, wdt, watchdog_ms):
    """Run the box on the chip under the Sleeper (shutbox.app.main: *make* its apps; the
    *settings* give the idle time); never returns."""
    import time

    from shutbox.supply import Supply

    supply = Supply()
    now = time.ticks_ms()
    reset = board.watchdog_reset()
    if not supply.ok:  # a stand-in machine without sleep (the virtual Pico's): the plain guard
        Guard(board, make, now, wdt=wdt, wdt_reset=reset).forever()
    else:
        Sleeper(board, make, now, wdt, reset, supply, settings, time.ticks_ms, time.sleep_ms,
                watchdog_ms).forever()

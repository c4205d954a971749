# Debounced inputs: the tile switches as one bitmask, and the Roll button's short and long presses.
"""Switch debouncing by a short settle and a lock-out, per input, with a clock passed in.

The box hands the debouncer one reading of every input per step (the box's loop reads the
switches once, Board.reader, and the step decodes that same reading: tile k = bit k-1, Roll
the bit after the last tile); nothing else reads the pins, so its view can never part from
the level the pins settle on.

A new level is taken at a reading that reads it when an earlier reading read it too, at least
one tick of the ms clock before: the reading just before, however long ago (a loop held up
by a save, or one that reads every 10 ms), or one less than _WINDOW_MS before (the last one
that did), whatever was read between. The box's loop leaves at least 1 ms between two
readings (Guard.forever), so a glitch shorter than 1 ms (a spike on a long wire) is read once
at most and never taken (two spikes on one input within _WINDOW_MS would be); a clean flip is
taken at the reading after the one that saw it (the box reads every ms while an input reads
away from its level, or read away within _WINDOW_MS): the LED answers within a few ms.
Why not only two readings with no change read between: a contact bouncing open at the reading
after the first touch pushes the press to 1 ms past the end of its burst (up to 10 ms:
shutbox_host.contact's WORN), and the Roll press's answer past its 10 ms target (12.7 ms at
worst on the emulated RP2040, `shutbox bench`); taken in the burst, at its second reading
closed, the dice start rolling within 10 ms. The window (10 ms, a burst's length) keeps two
spikes far apart from making a change.
Contact bounce (a burst of edges for up to 10-15 ms after each press and release) so lets a
level through early, in the burst: that is the level the contact is going to, and for
_LOCK_MS after a level is taken the input's next change is held back (a reading within the
lock-out counts only as the reading before), so the burst cannot make a second flip or
press. Past the lock-out the input takes whatever level has settled: a tile flipped and
flipped back within the lock-out ends where it rests. Why not a long settle time (the old
30 ms): every flip would show 30 ms late; why not a lock-out alone: a glitch would be taken.

Roll gives a short press on release, or a long press as soon as it has been held _LONG_MS
on the debounced level (then its release is not a short press). Roll held when the
debouncer is built (a power-up combination) gives no press until it has been released once.
``wait`` says when the next reading can change anything: the box sleeps until then unless a
level changes.
"""

# ruff: noqa: F821 - viper's ptr32 (its compiler's cast; a builtin on CPython: micropython.py)
# mypy: disable-error-code="name-defined"

from array import array

import micropython
from micropython import const
from shutbox.ticks import ticks_add, ticks_diff

_SETTLE_MS = const(1)  # a level read at two readings this many ticks apart at least ...
_WINDOW_MS = const(10)  # ... and less than this: taken (a bounce back between them or not)
# after a level is taken the input's next change waits this long: longer than the bounce of
# a worn contact (shutbox_host.contact: bursts up to 15 ms), so a burst is one flip
_LOCK_MS = const(25)
_LONG_MS = const(700)  # Roll held this long is a long press (one die)
# The shortest press a host makes for a click, a tap or a key (the web page, the terminal box):
# held past the lock-out (taken at a reading 1 ms after the press's first, then _LOCK_MS) with
# a margin for the poll, so that both its edges count: 36 ms (the old debouncer's 30 ms
# settle needed 34.1 on the emulated RP2040, its poll 2.035 ms)
_PRESS_MS = const(36)

# Events returned by update(), as bits.
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
EV_TILES = const(1)  # the debounced tile levels changed
EV_DOWN = const(2)  # Roll went down
_EV_UP = const(4)  # Roll came up
EV_SHORT = const(8)  # a short press (reported on release)
EV_LONG = const(16)  # a long press (reported while still held)
# END consts

# Where a press of Roll is (t[_PRESS]): when it went down (debounced; ticks are never
# negative), for a press that started after the debouncer did (short on release, or long), or:
_IDLE = const(-1)  # no press under way (or Roll held since before the debouncer started)
_LONG = const(-2)  # its long press was reported: the release is not a short press
_TICK_BITS = const(30)  # a tick has no bit above these (they wrap at 2**30); _IDLE, _LONG do
_MASK = const(0x3FFFFFFF)  # time.ticks_diff's wrap (MICROPY_PY_TIME_TICKS_PERIOD - 1) ...
_HALF = const(0x20000000)  # ... and half of its period

# Slots of Debouncer._t: first these (fixed indices: the machine code's loads take them as
# offsets) ...
_AWAY = const(0)  # when an input past its lock-out was last read away from its level
_RAW = const(1)  # the raw levels of the last reading
_STABLE = const(2)  # the debounced levels (tiles and Roll)
_PRESS = const(3)  # where the press is
# ... then when input i was last read away from its level, t[_FIRST + i]; and when its level
# was last taken (its lock-out), t[-1 - i]: the last slots, indexed from the end
_FIRST = const(4)


class Debouncer:
    """Debounced tile levels (bit set = tile open) and Roll press events."""

    def __init__(self, tiles, switches, roll, now):
        """Start from the raw levels read at *now* (taken as already stable)."""
        self._rbit = 1 << tiles  # Roll's bit, after the tiles' (tile mask: _rbit - 1)
        raw = switches & (self._rbit - 1)
        if roll:
            raw |= self._rbit
        n = tiles + 1
        # One array for the whole state (fewer attributes): when any input was last read
        # away, the raw levels, the stable ones and where the press is (_AWAY etc.); then
        # per input when it was last read away from its level (from _FIRST), and when its
        # level was last taken (the lock-out: from the end)
        # every time _LOCK_MS ago: no lock-out at the start
        t = self._t = array("i", [ticks_add(now, -_LOCK_MS)] * (2 * n + _FIRST))
        t[_RAW] = raw
        t[_STABLE] = raw
        t[_PRESS] = _IDLE
        self.pressed = bool(roll)  # Roll is down (debounced)
        self.levels = raw & (self._rbit - 1)

    @micropython.viper
    def update(self, switches: int, roll, now: int) -> int:
        """Feed one reading of the raw levels, taken at *now*; return the EV_* bits of what
        happened."""
        # Machine code (viper: 0.1-0.2 ms of a step on the emulated RP2040 as bytecode; Python
        # on CPython). ticks_diff is inline (time.ticks_diff's wrap, in machine ints); where
        # a press is counts as a tick only with no bit from 30 up (_IDLE and _LONG have),
        # not by its sign: a 64-bit port reads ptr32's -1 as 2**32 - 1. r: the inputs read
        # away at the reading before (shifted with switches), then Roll's debounced level.
        t = ptr32(self._t)
        n = int(len(self._t)) - 1  # input i's lock-out: t[n - i]
        rb = int(self._rbit)
        switches &= rb - 1
        if roll:
            switches |= rb
        r = t[_RAW] ^ t[_STABLE]
        t[_RAW] = switches
        switches ^= t[_STABLE]
        i = 0
        while switches:
            # past its lock-out (a reading within it counts only as the reading before)
            if switches & 1 and ((now - t[n - i] + _HALF) & _MASK) - _HALF >= _LOCK_MS:
                # read away at an earlier reading too (the last: t[_FIRST + i]) a tick ago at
                # least: at the reading before (however long ago: a slow loop), or within
                # _WINDOW_MS (a bounce back read between): taken; else this reading is the
                # last read away (of any input: t[_AWAY])
                d = ((now - t[_FIRST + i] + _HALF) & _MASK) - _HALF
                if d >= _SETTLE_MS and (r & 1 or d < _WINDOW_MS):
                    t[_STABLE] ^= 1 << i
                    t[n - i] = now
                    t[_AWAY] = now - _WINDOW_MS  # (wrap-safe: masked) no more reads
                else:
                    t[_FIRST + i] = now
                    t[_AWAY] = now
            switches >>= 1
            r >>= 1
            i += 1
        i = 0
        switches = t[_STABLE]
        if (switches ^ int(self.levels)) & (rb - 1):
            self.levels = switches & (rb - 1)
            i = EV_TILES
        r = 1 if switches & rb else 0  # Roll down (debounced), against what pressed says
        d = 0
        if self.pressed:
            d = 1
        if r != d:
            self.pressed = r != 0
            if r:
                i |= EV_DOWN
                t[_PRESS] = now
            else:
                i |= _EV_UP
                if t[_PRESS] >> _TICK_BITS == 0:
                    i |= EV_SHORT
                t[_PRESS] = _IDLE
        r = t[_PRESS]
        if r >> _TICK_BITS == 0 and ((now - r + _HALF) & _MASK) - _HALF >= _LONG_MS:
            t[_PRESS] = _LONG
            i |= EV_LONG
        return i

    def wait(self, now, most):
        """Return the ms from *now* until the next reading can take a level or Roll's long
        press is due, at most *most* (0: due now): with no level changing, update() reports
        nothing before. While an input reads away from its level (past its lock-out), or one
        did within _WINDOW_MS (a contact bouncing back), it is 1 at most: the box reads every
        ms, to see the end of a bounce or the contact's next touch at once."""
        t = self._t
        if ticks_diff(now, t[_AWAY]) < _WINDOW_MS:
            most = 1  # an input read away lately: its contact may touch again (*most*: 2 up)
        diff = t[_RAW] ^ t[_STABLE]
        i = 0
        while diff:
            if diff & 1:  # (a shallow stack: a frame of 11 slots stays off the heap)
                w = ticks_diff(t[-1 - i], now) + _LOCK_MS
                if w < 1:
                    w = 1
                if w < most:
                    most = w
            diff >>= 1
            i += 1
        if t[_PRESS] >= 0:
            w = ticks_diff(t[_PRESS], now) + _LONG_MS
            if w < most:
                most = w
        return most if most > 0 else 0

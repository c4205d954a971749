# Debounced inputs: the tile switches as one bitmask, and the Roll button's short and long presses.
"""Switch debouncing by a short settle and a lock-out, per input, with a clock passed in.

The box hands the debouncer one reading of every input per step (the box's loop reads the
switches once, Board.reader, and the step decodes that same reading: tile k = bit k-1, Roll
the bit after the last tile); nothing else reads the pins, so its view can never part from
the level the pins settle on.

A new level is taken once two reads on different ticks of the ms clock have shown it with no
change read between. The box's loop leaves at least 1 ms between two readings
(Guard.forever), so a glitch shorter than 1 ms (a spike on a long wire) is never taken, and a
clean flip is taken at the next reading after the one that saw it (the box reads every ms
while a level is unsettled): the LED answers within a few ms.
Contact bounce (a burst of edges for up to 10-15 ms after each press and release) may let a
level through early, in the burst: that is the level the contact is going to, and for
_LOCK_MS after a level is taken the input's next change is held back, so the burst cannot
make a second flip or press. Past the lock-out the input takes whatever level has
settled: a tile flipped and flipped back within the lock-out ends where it rests. Why not a
long settle time (the old 30 ms): every flip would show 30 ms late; why not a lock-out
alone: a glitch would be taken.

Roll gives a short press on release, or a long press as soon as it has been held _LONG_MS
on the debounced level (then its release is not a short press). Roll held when the
debouncer is built (a power-up combination) gives no press until it has been released once.
``wait`` says when the next reading can change anything: the box sleeps until then unless a
level changes.
"""

from array import array

from micropython import const
from shutbox.ticks import ticks_add, ticks_diff

_SETTLE_MS = const(1)  # a level read twice this many ticks apart (no change between) is taken
# after a level is taken the input's next change waits this long: longer than the bounce of
# a worn contact (shutbox_host.contact: bursts up to 15 ms), so a burst is one flip
_LOCK_MS = const(25)
_LONG_MS = const(700)  # Roll held this long is a long press (one die)
# The shortest press a host makes for a click, a tap or a key (the web page, the terminal box):
# held past the lock-out (taken at the reading after the press's first, then _LOCK_MS) with
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

# Where a press of Roll is.
_IDLE = const(0)  # no press under way (or Roll held since before the debouncer started)
_DOWN = const(1)  # a press that started after the debouncer did: short on release, or long
_LONG = const(2)  # its long press was reported: the release is not a short press

# Slots of Debouncer._t counted from its end (t[-_RAW]), after the per-input times.
_RAW = const(4)  # the raw levels of the last reading
_STABLE = const(3)  # the debounced levels (tiles and Roll)
_DOWN_AT = const(2)  # when Roll went down (debounced)
_PRESS = const(1)  # where the press is
# when input i's level was last taken (its lock-out) is t[-_LOCKS - i], just before them:
# indexed from the end, the methods need no local for the number of inputs
_LOCKS = const(5)


class Debouncer:
    """Debounced tile levels (bit set = tile open) and Roll press events."""

    def __init__(self, tiles, switches, roll, now):
        """Start from the raw levels read at *now* (taken as already stable)."""
        self._rbit = 1 << tiles  # Roll's bit, after the tiles' (tile mask: _rbit - 1)
        raw = switches & (self._rbit - 1)
        if roll:
            raw |= self._rbit
        n = tiles + 1
        # One array for the whole state (fewer attributes): slot i < n is when input i's raw
        # level last changed, slot -_LOCKS - i when its level was last taken (the lock-out);
        # then the raw levels, the stable ones, when Roll went down and where the press is
        # (_IDLE, _DOWN, _LONG). Index from the end: -_RAW etc.
        # every time _LOCK_MS ago: no lock-out at the start
        t = self._t = array("i", [ticks_add(now, -_LOCK_MS)] * (2 * n + 4))
        t[-_RAW] = raw
        t[-_STABLE] = raw
        t[-_PRESS] = _IDLE
        self.pressed = bool(roll)  # Roll is down (debounced)
        self.levels = raw & (self._rbit - 1)

    def update(self, switches, roll, now):
        """Feed one reading of the raw levels, taken at *now*; return the EV_* bits of what
        happened."""
        # Few locals, each reused (a frame of at most 11 slots stays off the heap, whose
        # allocation costs the step 0.1-0.2 ms on the emulated RP2040 once the heap holds the
        # game's garbage): switches becomes the raw levels (tiles and Roll), then the inputs
        # apart from their taken level, then the taken levels; roll the inputs changed at this
        # reading, then those taken now; i an input's index, then the events.
        t = self._t
        switches &= self._rbit - 1
        if roll:
            switches |= self._rbit
        roll = switches ^ t[-_RAW]
        t[-_RAW] = switches
        i = 0
        while roll:
            if roll & 1:
                t[i] = now
            roll >>= 1
            i += 1
        switches ^= t[-_STABLE]
        i = 0
        while switches:
            if switches & 1 and ticks_diff(now, t[i]) >= _SETTLE_MS and \
                    ticks_diff(now, t[-_LOCKS - i]) >= _LOCK_MS:
                roll |= 1 << i
                t[-_LOCKS - i] = now
            switches >>= 1
            i += 1
        i = 0
        if roll:
            switches = t[-_STABLE] ^ roll
            t[-_STABLE] = switches
            if roll & (self._rbit - 1):
                self.levels = switches & (self._rbit - 1)
                i = EV_TILES
            if roll & self._rbit:
                self.pressed = switches & self._rbit != 0
                if self.pressed:
                    i |= EV_DOWN
                    t[-_DOWN_AT] = now
                    t[-_PRESS] = _DOWN
                else:
                    i |= _EV_UP
                    if t[-_PRESS] == _DOWN:
                        i |= EV_SHORT
                    t[-_PRESS] = _IDLE
        if t[-_PRESS] == _DOWN and ticks_diff(now, t[-_DOWN_AT]) >= _LONG_MS:
            t[-_PRESS] = _LONG
            i |= EV_LONG
        return i

    def wait(self, now, most):
        """Return the ms from *now* until the next reading can take a level or Roll's long
        press is due, at most *most* (0: due now): with no level changing, update() reports
        nothing before. While a level is unsettled it is 1 at most: the box reads every ms,
        to see the end of a bounce at once."""
        t = self._t
        diff = t[-_RAW] ^ t[-_STABLE]
        i = 0
        while diff:
            if diff & 1:  # (a shallow stack: a frame of 11 slots stays off the heap)
                w = ticks_diff(t[-_LOCKS - i], now) + _LOCK_MS
                if w < 1:
                    w = 1
                if w < most:
                    most = w
            diff >>= 1
            i += 1
        if t[-_PRESS] == _DOWN:
            w = ticks_diff(t[-_DOWN_AT], now) + _LONG_MS
            if w < most:
                most = w
        return most if most > 0 else 0

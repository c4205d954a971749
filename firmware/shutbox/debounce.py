# Debounced inputs: the tile switches as one bitmask, and the Roll button's short and long presses.
"""Switch debouncing by settle time, per input, with a clock passed in.

Every input (tile k = bit k-1, Roll = the bit after the last tile) keeps the time its raw
level last changed. A new level is accepted once it has held for 30 ms without a
change, so contact bounce (a burst of flips lasting 1 to 20 ms) or a glitch shorter than
30 ms never registers as an extra flip or press. A bouncing tile does not hold up the
others. Roll gives a short press on release, or a long press as soon as it has been held for
700 ms (then its release is not a short press). Roll held when the debouncer is built
(a power-up combination) gives no press until it has been released once. ``wait`` says
when the next poll can change anything: the box sleeps until then unless a level changes.
"""

from array import array

from micropython import const
from shutbox.ticks import ticks_diff

_SETTLE_MS = const(30)  # > the 20 ms worst-case bounce of a cheap microswitch
_LONG_MS = const(700)  # Roll held this long is a long press (one die)
# The shortest press a host makes for a click, a tap or a key (the web page, the terminal box):
# held past the settle time and two polls, so that every press counts. The loop first reads a
# press up to one poll after its edge, and the settle time is counted from that read to a read
# up to one poll past it; a poll is 2 ms of sleep and the loop (2.035 ms on the emulated
# RP2040): 30 + 2 x 2.035 = 34.1 ms, with a margin
_PRESS_MS = const(36)

# Events returned by update(), as bits.
EV_TILES = const(1)  # the debounced tile levels changed (see .levels)
EV_DOWN = const(2)  # Roll went down
_EV_UP = const(4)  # Roll came up (private: no module global; only the tests read it)
EV_SHORT = const(8)  # a short press (reported on release)
EV_LONG = const(16)  # a long press (reported while still held)

# Where a press of Roll is.
_IDLE = const(0)  # no press under way (or Roll held since before the debouncer started)
_DOWN = const(1)  # a press that started after the debouncer did: short on release, or long
_LONG = const(2)  # its long press was reported: the release is not a short press

# Slots of Debouncer._t counted from its end (t[-_RAW]), after the per-input change times.
_RAW = const(4)  # the raw levels of the last poll
_STABLE = const(3)  # the debounced levels (tiles and Roll)
_DOWN_AT = const(2)  # when Roll went down (debounced)
_PRESS = const(1)  # where the press is


class Debouncer:
    """Debounced tile levels (bit set = tile open) and Roll press events."""

    def __init__(self, tiles, switches, roll, now):
        """Start from the raw levels read at *now* (taken as already stable)."""
        self._rbit = 1 << tiles  # Roll's bit, after the tiles' (tile mask: _rbit - 1)
        raw = switches & (self._rbit - 1)
        if roll:
            raw |= self._rbit
        # One array for the whole state (fewer attributes): slot i < tiles + 1 is when input
        # i's raw level last changed; then the raw levels, the stable ones, when Roll went
        # down and where the press is (_IDLE, _DOWN, _LONG). Index from the end: -_RAW etc.
        t = self._t = array("i", [now] * (tiles + 5))
        t[-_RAW] = raw
        t[-_STABLE] = raw
        t[-_PRESS] = _IDLE
        self.pressed = bool(roll)  # Roll is down (debounced)
        self.levels = raw & (self._rbit - 1)

    def update(self, switches, roll, now):
        """Feed one poll of raw levels; return the EV_* bits of what happened."""
        rbit = self._rbit
        tmask = rbit - 1
        raw = switches & tmask
        if roll:
            raw |= rbit
        t = self._t
        changed = raw ^ t[-_RAW]
        if changed:
            t[-_RAW] = raw
            i = 0
            while changed:
                if changed & 1:
                    t[i] = now
                changed >>= 1
                i += 1
        ev = 0
        stable = t[-_STABLE]
        diff = raw ^ stable
        if diff:
            settled = 0
            i = 0
            while diff:
                if diff & 1 and ticks_diff(now, t[i]) >= _SETTLE_MS:
                    settled |= 1 << i
                diff >>= 1
                i += 1
            if settled:
                stable ^= settled
                t[-_STABLE] = stable
                if settled & tmask:
                    self.levels = stable & tmask
                    ev |= EV_TILES
                if settled & rbit:
                    self.pressed = stable & rbit != 0
                    if self.pressed:
                        ev |= EV_DOWN
                        t[-_DOWN_AT] = now
                        t[-_PRESS] = _DOWN
                    else:
                        ev |= _EV_UP
                        if t[-_PRESS] == _DOWN:
                            ev |= EV_SHORT
                        t[-_PRESS] = _IDLE
        if t[-_PRESS] == _DOWN and ticks_diff(now, t[-_DOWN_AT]) >= _LONG_MS:
            t[-_PRESS] = _LONG
            ev |= EV_LONG
        return ev

    def wait(self, now, most):
        """Return the ms from *now* until a raw level settles or Roll's long press is due, at
        most *most* (0: due now): with no level changing, update() reports nothing before."""
        t = self._t
        diff = t[-_RAW] ^ t[-_STABLE]
        i = 0
        while diff:
            if diff & 1:
                w = _SETTLE_MS - ticks_diff(now, t[i])
                if w < most:
                    most = w
            diff >>= 1
            i += 1
        if t[-_PRESS] == _DOWN:
            w = _LONG_MS - ticks_diff(now, t[-_DOWN_AT])
            if w < most:
                most = w
        return most if most > 0 else 0

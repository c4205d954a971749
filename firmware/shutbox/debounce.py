# Debounced inputs: the tile switches as one bitmask, and the Roll button's short and long presses.
"""Switch debouncing by settle time, per input, with a clock passed in.

Every input (tile k = bit k-1, Roll = the bit after the last tile) keeps the time its raw
level last changed. A new level is accepted once it has held for ``settle`` ms without a
change, so contact bounce (a burst of flips lasting 1 to 20 ms) or a glitch shorter than
``settle`` never registers as an extra flip or press. A bouncing tile does not hold up the
others. Roll gives a short press on release, or a long press as soon as it has been held for
``long_ms`` (then its release is not a short press). Roll held when the debouncer is built
(a power-up combination) gives no press until it has been released once.
"""

from array import array

from micropython import const
from shutbox.ticks import ticks_diff

SETTLE_MS = const(30)  # > the 20 ms worst-case bounce of a cheap microswitch
LONG_MS = const(700)  # Roll held this long is a long press (one die)

# Events returned by update(), as bits.
EV_TILES = const(1)  # the debounced tile levels changed (see .levels)
EV_DOWN = const(2)  # Roll went down
EV_UP = const(4)  # Roll came up
EV_SHORT = const(8)  # a short press (reported on release)
EV_LONG = const(16)  # a long press (reported while still held)


class Debouncer:
    """Debounced tile levels (bit set = tile open) and Roll press events."""

    def __init__(self, tiles, switches, roll, now, settle=SETTLE_MS, long_ms=LONG_MS):
        """Start from the raw levels read at *now* (taken as already stable)."""
        self.tiles = tiles
        self._tmask = (1 << tiles) - 1
        self._rbit = 1 << tiles
        self._settle = settle
        self._long = long_ms
        raw = switches & self._tmask
        if roll:
            raw |= self._rbit
        self._raw = raw
        self._stable = raw
        self._t = array("i", [now] * (tiles + 1))  # when each input's raw level last changed
        self._down_at = now
        self._armed = False  # a press that started after the debouncer did
        self._long_sent = False
        self.held_at_start = bool(roll)
        self.levels = raw & self._tmask

    @property
    def pressed(self):
        """Return True while Roll is down (debounced)."""
        return bool(self._stable & self._rbit)

    def update(self, switches, roll, now):
        """Feed one poll of raw levels; return the EV_* bits of what happened."""
        raw = switches & self._tmask
        if roll:
            raw |= self._rbit
        changed = raw ^ self._raw
        if changed:
            self._raw = raw
            i = 0
            while changed:
                if changed & 1:
                    self._t[i] = now
                changed >>= 1
                i += 1
        ev = 0
        diff = raw ^ self._stable
        if diff:
            settled = 0
            i = 0
            while diff:
                if diff & 1 and ticks_diff(now, self._t[i]) >= self._settle:
                    settled |= 1 << i
                diff >>= 1
                i += 1
            if settled:
                self._stable ^= settled
                if settled & self._tmask:
                    self.levels = self._stable & self._tmask
                    ev |= EV_TILES
                if settled & self._rbit:
                    if self._stable & self._rbit:
                        ev |= EV_DOWN
                        self._down_at = now
                        self._armed = True
                        self._long_sent = False
                    else:
                        ev |= EV_UP
                        if self._armed and not self._long_sent:
                            ev |= EV_SHORT
                        self._armed = False
        if (self._armed and not self._long_sent
                and ticks_diff(now, self._down_at) >= self._long):
            self._long_sent = True
            ev |= EV_LONG
        return ev

# Self-test mode of the box: LED sweep, colours, dice faces, then each switch echoed on its LED.
"""The wiring check a builder runs on a new box (hold Roll with tile 1 shut at power-up:
shutbox.powerup.screens runs it; the module is loaded only then).

Phases, timed from the first ``step``:

1. **sweep** - one LED at a time along the chain, in white: tile LEDs 1..N, then die A's pips,
   then die B's, in chain order. A dark LED, or a sweep that stops, marks a broken data link.
2. **colours** - the whole chain red, then green, then blue: a wrong colour everywhere means
   ``led_order`` in hardware/pinmap.json is wrong; one LED off in one colour is a bad LED.
3. **dice** - faces 1 to 6 on both dice together, tiles 1..face lit as a count.
4. **echo** (until power-off) - each tile's LED is lit green while that tile is SHUT (its
   switch closed to GND); holding Roll lights all 14 pips green and sounds the buzzer.
   Flip the tiles one by one: the LED that answers must be the tile's own.

A beep marks the start of phases 1 to 3, so a silent box has a buzzer fault. The module only uses
the Board API (switches, roll, show, tone) and shutbox.frame; ``step`` allocates nothing.
"""

from micropython import const
from shutbox import frame as fr
from shutbox.ticks import ticks_add, ticks_diff

SWEEP = const(1)
COLOURS = const(2)
DICE = const(3)
ECHO = const(4)

_SWEEP_MS = const(80)  # per LED in the sweep
_COLOUR_MS = const(600)  # per colour of the whole chain
_FACE_MS = const(600)  # per dice face
_BEEP_MS = const(80)  # the beep at the start of each phase
_BEEP_HZ = const(1000)
_ROLL_HZ = const(660)  # while Roll is held in echo mode
_POLL_MS = const(10)  # run(): time between steps


class SelfTest:
    """The self-test as a state machine driven by a clock: call ``step(now_ms)`` often."""

    def __init__(self, board):
        """Keep the board and make the one frame buffer."""
        self._board = board
        self.tiles = board.tiles
        self.leds = fr.size(board.tiles)
        self.frame = bytearray(self.leds)
        self._sweep_end = self.leds * _SWEEP_MS
        self._colours_end = self._sweep_end + 3 * _COLOUR_MS
        self._dice_end = self._colours_end + 6 * _FACE_MS
        self._t0 = 0
        self._started = False
        self.phase = 0
        self._beep_off = 0
        self._beeping = False
        self._roll = False

    def step(self, now):
        """Advance to *now* (ms ticks), draw the frame, show it; return the phase (1..4)."""
        if not self._started:
            self._t0 = now
            self._started = True
        t = ticks_diff(now, self._t0)
        f = self.frame
        tiles = self.tiles
        if t < self._sweep_end:
            phase = SWEEP
            fr.clear(f)
            f[t // _SWEEP_MS] = fr.WHITE
        elif t < self._colours_end:
            phase = COLOURS
            i = (t - self._sweep_end) // _COLOUR_MS
            code = fr.RED if i == 0 else fr.GREEN if i == 1 else fr.BLUE
            for k in range(self.leds):
                f[k] = code
        elif t < self._dice_end:
            phase = DICE
            face = (t - self._colours_end) // _FACE_MS + 1
            fr.bar(f, tiles, face, fr.BLUE)
            fr.die(f, tiles, 0, face, fr.WHITE)
            fr.die(f, tiles, 1, face, fr.WHITE)
        else:
            phase = ECHO
            self._echo(f, tiles)
        if phase != self.phase:
            self.phase = phase
            if phase != ECHO:  # the phase beep; silenced below after _BEEP_MS
                self._board.tone(_BEEP_HZ, _BEEP_MS)
                self._beep_off = ticks_add(now, _BEEP_MS)
                self._beeping = True
        if self._beeping and ticks_diff(now, self._beep_off) >= 0:
            self._beeping = False
            if not self._roll:
                self._board.tone(0, 0)
        self._board.show(f)
        return phase

    def _echo(self, f, tiles):
        """Draw the switch echo: shut tiles green, all pips green while Roll is held."""
        b = self._board
        levels = b.switches()
        for k in range(tiles):
            f[k] = fr.OFF if levels >> k & 1 else fr.GREEN
        roll = b.roll()
        code = fr.GREEN if roll else fr.OFF
        for i in range(tiles, self.leds):
            f[i] = code
        if roll != self._roll:
            self._roll = roll
            b.tone(_ROLL_HZ if roll else 0, 0)


def run(board, clock, sleep_ms=None, wdt=None, steps=-1):
    """Run the self-test until power-off (never returns on the box unless *steps* >= 0).

    *clock* returns ms ticks (``time.ticks_ms``); *wdt*, if the app started one, is fed.
    """
    if sleep_ms is None:
        from time import sleep_ms
    test = SelfTest(board)
    read = board.reader()
    seen = -1
    while steps != 0:
        lv = read()
        if test.phase != ECHO or lv != seen:  # the echo changes only when a switch does
            seen = lv
            test.step(clock())
        if wdt is not None:
            wdt.feed()
        sleep_ms(_POLL_MS)
        steps -= 1
    return test

# LED frames: palette codes, dice pip patterns, and numbers drawn on the tile LEDs and the dice.
"""What the LEDs show, as a bytearray of palette codes (one byte per LED).

Frame layout (docs/design.md): ``frame[0:tiles]`` tile LEDs, then 7 pips of die A, then 7 of
die B. Pip order: top-left, top-right, middle-left, centre, middle-right, bottom-left,
bottom-right. The board turns codes into colours; everything here is pure and allocation-free.

Numbers (scores, totals) are drawn as **tens on the dice, units on the tiles**:

* the dice show the tens digit as a throw: die A shows it up to 6, die B adds the rest
  (so 7 tens = 6 + 1); no pips means no tens;
* the tiles show the units as a bar: tiles 1..u lit, so the highest lit tile's own number is
  the units digit, and no lit tile means a units digit of 0.

So 23 is die A = 2, tiles 1-3 lit; 45 is die A = 4, tiles 1-5; 9 is tiles 1-9 with dark dice.
Zero (a shut box) lights all 14 pips with the tiles dark: no die face looks like that.
This covers 0..129 on a box of 9 or more tiles. Larger numbers (digital scoring, long
running totals) are shown one digit at a time: the tiles show the digit as a bar and die A
shows which digit it is, counted from the right (1 = units, 2 = tens, 3 = hundreds ...),
with a short dark gap before the sequence repeats.
"""

# ruff: noqa: F821 - viper's ptr8 (its compiler's cast; a builtin on CPython: micropython.py)
# mypy: disable-error-code="name-defined"

import micropython
from micropython import const
from shutbox.ticks import ticks_diff

# Palette codes. The board maps each to one dim colour (see board._PALETTE_RGB); keep them < 8.
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
OFF = const(0)  # palette codes (shutbox.frame; keep them < 8): dark
WHITE = const(1)  # open tiles, dice pips
GREEN = const(2)  # accepted, progress, the winner
RED = const(3)  # an error on the tiles
AMBER = const(4)  # attention: open this tile, one die available
BLUE = const(5)  # numbers: scores
MAGENTA = const(6)  # a player's number
CYAN = const(7)  # hints, the computer's moves, a challenge code's digits
COLOURS = const(8)  # how many palette codes
_PIPS = const(7)  # LEDs per die
_BLINK_MS = const(250)  # shutbox.frame's slow blink (half-period)
_FAST_MS = const(100)  # shutbox.frame's fast blink (half-period)
_DIGIT_MS = const(900)  # one digit of a long number, of a challenge code
_DIRECT_MAX = const(129)  # largest number drawn as tens-on-dice, units-on-tiles
# END consts
NAMES = b".WGRYBMC"  # one letter per code, for logs, the simulator and the tests

# Pip bits per face (index = face 0..6); bit i = pip i in the order above. Face 0 = dark.
# Private (no module global on the box); the host's simulator reads it on CPython.
_FACE_PIPS = const(b"\x00\x08\x41\x49\x63\x6b\x77")

_ANIM_MS = const(70)  # one frame of the dice rolling


def size(tiles):
    """Return the frame length for a box of *tiles* tiles."""
    return tiles + 2 * _PIPS


def blink(now, since, ms=_BLINK_MS):
    """Return 1 in the lit half of a blink that started at *since*, else 0.

    *ms* is the half-period: slow by default, 100 for a fast blink.
    """
    return (ticks_diff(now, since) // ms) & 1 ^ 1


@micropython.viper
def clear(frame):
    """Turn every LED off."""
    f = ptr8(frame)
    i = int(len(frame))
    while i:
        i -= 1
        f[i] = OFF


@micropython.viper
def tiles_mask(frame, mask: int, code: int):
    """Light tile k+1 in *code* for every bit k of *mask* (other tiles unchanged)."""
    f = ptr8(frame)
    n = int(len(frame))  # (a mask past the frame stops at its end)
    k = 0
    while mask and k < n:
        if mask & 1:
            f[k] = code
        mask >>= 1
        k += 1


@micropython.viper
def die(frame, tiles: int, which: int, face: int, code: int):
    """Draw *face* (0 = dark, 1..6) on die *which* (0 = A, 1 = B) in *code*."""
    f = ptr8(frame)
    p = ptr8(_FACE_PIPS)
    face = p[face] if face >= 0 and face <= 6 else 0  # its pips, bit i pip i
    which = tiles + which * _PIPS  # the die's first LED
    tiles = which + _PIPS
    while which < tiles:
        f[which] = code if face & 1 else OFF
        face >>= 1
        which += 1


def rolling(frame, tiles, now, since, two):
    """Draw the dice rolling since *since* (ticks_ms; its low byte seeds the faces): die A,
    and die B if *two*, in white."""
    now = ticks_diff(now, since) // _ANIM_MS + (since & 0xFF)  # (reused: few locals)
    die(frame, tiles, 0, (now * 5) % 6 + 1, WHITE)
    if two:
        die(frame, tiles, 1, (now * 7 + 3) % 6 + 1, WHITE)


def bar(frame, tiles, n, code):
    """Light tiles 1..n (clipped to the box) in *code*, the other tiles off."""
    for k in range(tiles):
        frame[k] = code if k < n else OFF


def number(frame, tiles, n, code, now, since):
    """Draw a non-negative number; see the module docstring for how to read it."""
    # (no local but the arguments: a frame of at most 11 slots stays off the heap, whose
    # allocation costs 0.1-0.2 ms on the emulated RP2040 once the heap holds garbage)
    if n <= 0:  # zero (a shut box): every pip lit, the tiles dark
        bar(frame, tiles, 0, OFF)
        now = 2 * _PIPS
        while now:
            now -= 1
            frame[tiles + now] = code
        return
    if n <= _DIRECT_MAX and tiles >= 9:
        bar(frame, tiles, n % 10, code)
        _throw(frame, tiles, n // 10, code)
        return
    # one digit at a time: the digit on the tiles, its place on the dice
    now = ticks_diff(now, since) // _DIGIT_MS  # the digits shown since *since*
    since = 1  # how many digits the number has
    while n >= 10 ** since:
        since += 1
    now %= since + 1
    if now == since:  # the gap before the sequence repeats: all dark
        bar(frame, tiles, 0, code)
        _throw(frame, tiles, 0, code)
        return
    since -= now  # the place shown (most significant digit first)
    n = n // 10 ** (since - 1) % 10  # its digit
    bar(frame, tiles, n, code)
    _throw(frame, tiles, since, MAGENTA)


def _throw(frame, tiles, n, code):
    """Show *n* on the dice as a throw: die A up to 6, die B the rest (0: both dark)."""
    a = n if n < 6 else 6
    die(frame, tiles, 0, a, code)
    die(frame, tiles, 1, n - a, code)


def player(frame, tiles, p, code):
    """Show player number *p* (1..4): that tile lit and die A showing p; the rest dark."""
    bar(frame, tiles, 0, OFF)
    if 1 <= p <= tiles:
        frame[p - 1] = code
    die(frame, tiles, 0, p, code)
    die(frame, tiles, 1, 0, OFF)


def notice(frame, tiles, reasons, now, since):
    """Draw the boot notice: something was wrong and the box carried on with safe defaults.

    Both dice show a steady amber X (face 5); tile k blinks amber fast for each bit k-1 of
    *reasons* (1 settings file damaged, 2 records damaged, 3 game in progress damaged,
    4 the box restarted after a fault). The app shows it for 2 s at boot (App.notice).
    """
    bar(frame, tiles, 0, OFF)
    tiles_mask(frame, reasons, AMBER if blink(now, since, _FAST_MS) else OFF)
    die(frame, tiles, 0, 5, AMBER)
    die(frame, tiles, 1, 5, AMBER)


def fault(frame, tiles, now, since):
    """Draw the fault pattern (an unexpected error): tiles red, odd and even ones alternating,
    both dice a steady red X. The box shows it until Roll is pressed or it restarts itself."""
    phase = blink(now, since)
    for k in range(tiles):
        frame[k] = RED if (k & 1) == phase else OFF
    die(frame, tiles, 0, 5, RED)
    die(frame, tiles, 1, 5, RED)

# The box's LEDs from the host: the palette at each brightness, and the LED bytes read back.
"""The LED palette as shutbox.board builds it, and its reader: from the bytes a chain is sent
(the simulated board's frames, the emulated chip's, the page's) to one palette letter per LED
(shutbox.frame's names), the brightness level they were drawn at, a die's face, the lit tiles.
"""

from __future__ import annotations

from shutbox import board as _board
from shutbox import pins
from shutbox.frame import _FACE_PIPS as FACE_PIPS  # private: folded in on the box
from shutbox.frame import NAMES

BRIGHTNESS = ("low", "medium", "high")  # shutbox.board.Board.adjust's levels (setnames)


def palette(order: str = pins.LED_ORDER, level: int = 1) -> bytes:
    """Return the box's palette in the chain's wire *order*, 3 bytes per palette code, as
    shutbox.board.Board builds it for brightness *level* (0 low, 1 medium, 2 high) from its
    private RGB table and scale."""
    rgb = _board._PALETTE_RGB
    k = _board._SCALE[level]
    return bytes(rgb[3 * code + "RGB".index(order[j])] * k >> 2
                 for code in range(len(rgb) // 3) for j in range(3))


def decoder(order: str = pins.LED_ORDER, levels=(0, 1, 2)):
    """Return a function from LED bytes to one palette letter per LED ('?' off-palette), at
    any of the brightness *levels* (their palettes share no colour but off)."""
    table: dict = {}
    for level in levels:
        pal = palette(order, level)
        for code in range(len(NAMES)):
            rgb = bytes(pal[3 * code:3 * code + 3])
            if table.setdefault(rgb, chr(NAMES[code])) != chr(NAMES[code]):
                raise AssertionError("two colours share %s" % rgb.hex())

    def decode(data: bytes) -> str:
        return "".join(table.get(data[i:i + 3], "?") for i in range(0, len(data), 3))

    return decode


def brightness_of(data: bytes, order: str = pins.LED_ORDER) -> int:
    """Return the brightness level (0..2) of the LED bytes *data*, -1 if every LED is off or
    they mix levels."""
    lit = {data[i:i + 3] for i in range(0, len(data), 3)} - {b"\0\0\0"}
    found = {level for level in range(3) for rgb in lit
             if rgb in {palette(order, level)[3 * c:3 * c + 3] for c in range(1, len(NAMES))}}
    return found.pop() if len(found) == 1 else -1


def face(pips: str) -> int:
    """Return the die face (0..6) that 7 pip letters show, or -1 if they are no face."""
    lit = sum(1 << i for i, c in enumerate(pips) if c != ".")
    return FACE_PIPS.find(bytes([lit]))


def tiles_lit(tiles: str, letter: str = "W") -> list[int]:
    """Return the tile numbers whose LED shows *letter*."""
    return [k + 1 for k, c in enumerate(tiles) if c == letter]

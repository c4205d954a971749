# GENERATED from hardware/pinmap.json by `shutbox board`; edit the JSON, not this file.
"""Pin map of the box: every GPIO number the firmware uses, in one place."""

from micropython import const

TILES = const(9)  # tiles on this box (2..12); tile k reads TILE_PINS[k - 1]
# tile GPIOs (bytes: one small object in RAM): 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
TILE_PINS = b"\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"
ROLL_PIN = const(14)
BUZZER_PIN = const(15)
LED_PIN = const(16)  # WS2812 chain: tile LEDs, then 7 pips of die A, then 7 of die B
LED_ORDER = "GRB"
SWITCH_ACTIVE = const(0)  # a shut tile or a pressed Roll button reads 0 (pull-ups)
LED_POWER_PIN = const(17)  # the LEDs' supply switch: high powers them (shutbox.supply)

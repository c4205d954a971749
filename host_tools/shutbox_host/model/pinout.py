# The box's pinout: hardware/pinmap.json read, checked against a Pico board, and as pins.py.
"""What the pin map says (``PinMap``: which GPIO each tile, Roll, the buzzer and the LED
chain use), read and checked (``load``, ``parse``: one-line errors) against the board it is
for (shutbox_host.model.boards), the Pico's header (``PICO_PINOUT``, ``PHYSICAL``) and the
firmware's view of it (``render_pins``: the text of firmware/shutbox/pins.py). `shutbox board`
(shutbox_host.hardware.boardgen) generates the box's other files from it.
"""

from __future__ import annotations

from shutbox_host.errors import UserError, read_json
from shutbox_host.model import boards

PINMAP = "hardware/pinmap.json"
MIN_TILES, MAX_TILES = 2, 12
PIPS = 7  # LEDs per die: top-left, top-right, middle-left, centre, middle-right, bottom-left, ...
DICE_LEDS = 2 * PIPS

# The Pico's 40 pins, physical pin 1 first (pin 1 is next to the USB socket, left when seen
# from above with USB up; pins 21..40 run back up the right side).
PICO_PINOUT = (
    "GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7",
    "GP8", "GP9", "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15",
    "GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN",
    "GP26", "GP27", "AGND", "GP28", "ADC_VREF", "3V3(OUT)", "3V3_EN", "GND", "VSYS", "VBUS",
)
PHYSICAL = {int(name[2:]): i + 1 for i, name in enumerate(PICO_PINOUT) if name.startswith("GP")}
USER_GPIOS = tuple(sorted(PHYSICAL))  # GP0-GP22, GP26-GP28
PIN_VBUS, PIN_VSYS, PIN_3V3, PIN_3V3_EN = 40, 39, 36, 37


class PinMap:
    """A validated pin map: GPIO numbers of every part of the box."""

    def __init__(self, tiles, tile_pins, roll_pin, buzzer_pin, led_pin, led_order="GRB",
                 led_power_pin=17):
        self.tiles = tiles
        self.tile_pins = tuple(tile_pins)
        self.roll_pin = roll_pin
        self.buzzer_pin = buzzer_pin
        self.led_pin = led_pin
        self.led_order = led_order
        self.led_power_pin = led_power_pin  # the LED supply's switch: high on, low asleep
        self.board = None  # the shutbox_host.model.boards.Board it was checked for (parse)

    @property
    def led_count(self) -> int:
        """LEDs on the chain: one per tile, then 7 pips per die."""
        return self.tiles + DICE_LEDS

    def roles(self) -> dict:
        """Return {gpio: (kind, number)}: kind tile/spare/roll/buzzer/led/led_power; number =
        tile k."""
        roles = {}
        for k, gpio in enumerate(self.tile_pins, 1):
            roles[gpio] = ("tile" if k <= self.tiles else "spare", k)
        roles[self.roll_pin] = ("roll", 0)
        roles[self.buzzer_pin] = ("buzzer", 0)
        roles[self.led_pin] = ("led", 0)
        roles[self.led_power_pin] = ("led_power", 0)
        return roles


# --- loading and validation -------------------------------------------------------------------

def _gpio(value, where, board):
    """Return *value* as a GPIO number *board* has on its header, or raise a one-line
    UserError naming *where*, the pin and why (shutbox_host.model.boards: what each board
    wires inside, the wireless chip's pins on the W boards)."""
    if isinstance(value, str) and value.upper().startswith("GP") and value[2:].isdigit():
        value = int(value[2:])
    if not isinstance(value, int) or isinstance(value, bool):
        raise UserError("%s: %r is not a GPIO number" % (where, value))
    why = boards.reserved_why(board, value)
    if why:
        raise UserError("%s: %s" % (where, why))
    return value


def board_of(data, board=None, source=PINMAP):
    """The Pico board a pin map is for: *board* (a name, --board), else its "board" key, else
    the Pico (shutbox_host.model.boards.get: an unknown name is a one-line error)."""
    name = board or (data.get("board") if isinstance(data, dict) else None) or boards.DEFAULT
    try:
        return boards.get(name)
    except UserError as exc:
        raise UserError("%s: %s" % (source, exc) if board is None else str(exc)) from None


def parse(data, source=PINMAP, board=None) -> PinMap:
    """Validate a pin map (the decoded JSON) for a Pico board (*board*, or the map's "board"
    key, or the Pico) and return it; errors are one-line UserErrors."""
    if not isinstance(data, dict):
        raise UserError("%s: expected a JSON object" % source)
    the_board = board_of(data, board, source)
    for key in ("tiles", "tile_pins", "roll_pin", "buzzer_pin", "led_pin", "led_power_pin"):
        if key not in data:
            raise UserError("%s: missing key %r" % (source, key))
    tiles = data["tiles"]
    if not isinstance(tiles, int) or isinstance(tiles, bool) or not (
            MIN_TILES <= tiles <= MAX_TILES):
        raise UserError("%s: tiles must be a whole number from %d to %d, not %r"
                        % (source, MIN_TILES, MAX_TILES, tiles))
    tile_pins = data["tile_pins"]
    if not isinstance(tile_pins, list):
        raise UserError("%s: tile_pins must be a list of GPIO numbers" % source)
    if len(tile_pins) < tiles:
        raise UserError("%s: too few tile pins: tiles is %d but tile_pins lists %d"
                        % (source, tiles, len(tile_pins)))
    if len(tile_pins) > MAX_TILES:
        raise UserError("%s: tile_pins lists %d pins; a box has at most %d tiles"
                        % (source, len(tile_pins), MAX_TILES))
    used = {}
    named = [("tile %d" % k, "tile_pins[%d]" % (k - 1), v) for k, v in enumerate(tile_pins, 1)]
    named += [(key.replace("_pin", ""), key, data[key])
              for key in ("roll_pin", "buzzer_pin", "led_pin", "led_power_pin")]
    gpios = []
    for label, key, value in named:
        gpio = _gpio(value, "%s: %s" % (source, key), the_board)
        if gpio in used:
            raise UserError("%s: duplicate pin GP%d (%s and %s)"
                            % (source, gpio, used[gpio], label))
        used[gpio] = label
        gpios.append(gpio)
    if data.get("led_type", "ws2812") != "ws2812":
        raise UserError("%s: led_type must be \"ws2812\" (the firmware drives a WS2812 chain)"
                        % source)
    order = data.get("led_order", "GRB")
    if not isinstance(order, str) or sorted(order) != ["B", "G", "R"]:
        raise UserError("%s: led_order must be an order of R, G and B such as \"GRB\", not %r"
                        % (source, order))
    if data.get("switch_active_level", 0) != 0 or data.get("switch_pull", "up") != "up":
        raise UserError("%s: switches must close to GND with pull-ups (switch_active_level 0, "
                        "switch_pull \"up\")" % source)
    n = len(tile_pins)
    pm = PinMap(tiles, gpios[:n], gpios[n], gpios[n + 1], gpios[n + 2], order, gpios[n + 3])
    pm.board = the_board
    return pm


def load(path, board=None) -> PinMap:
    """Read and validate a pin map file (for *board*: see parse)."""
    _, data = read_json(path)
    return parse(data, str(path), board)


# --- firmware/shutbox/pins.py -------------------------------------------------------------------

def render_pins(pm: PinMap) -> str:
    """Return the text of firmware/shutbox/pins.py."""
    return (
        "# GENERATED from hardware/pinmap.json by `shutbox board`; edit the JSON, not this file.\n"
        '"""Pin map of the box: every GPIO number the firmware uses, in one place."""\n'
        "\n"
        "from micropython import const\n"
        "\n"
        "TILES = const(%d)  # tiles on this box (2..12); tile k reads TILE_PINS[k - 1]\n"
        "# tile GPIOs (bytes: one small object in RAM): %s\n"
        "TILE_PINS = b\"%s\"\n"
        "ROLL_PIN = const(%d)\n"
        "BUZZER_PIN = const(%d)\n"
        "LED_PIN = const(%d)  # WS2812 chain: tile LEDs, then 7 pips of die A, then 7 of die B\n"
        'LED_ORDER = "%s"\n'
        "SWITCH_ACTIVE = const(0)  # a shut tile or a pressed Roll button reads 0 (pull-ups)\n"
        "LED_POWER_PIN = const(%d)  # the LEDs' supply switch: high powers them (shutbox.supply)\n"
    ) % (pm.tiles, ", ".join(str(p) for p in pm.tile_pins),
         "".join("\\x%02x" % p for p in pm.tile_pins), pm.roll_pin, pm.buzzer_pin, pm.led_pin,
         pm.led_order, pm.led_power_pin)

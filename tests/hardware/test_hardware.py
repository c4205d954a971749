# The pin map ties everything: pins.py, wiring diagram, BOM and Wokwi project, and the self-test.
"""Tests of hardware/ (shutbox board) and of the box's self-test mode.

The generated files must equal a fresh generation from hardware/pinmap.json; the Wokwi diagram
is read back as a netlist and every GPIO is followed to its part; the BOM's quantities are
recomputed from the pin map here; bad pin maps fail in one line. The self-test runs through the
real MicroPython on the simulated board (heap locked around every step), and on CPython.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shutbox_host import mp
from shutbox_host.hardware import boardgen
from shutbox_host.model import boards, pinout

ROOT = Path(__file__).resolve().parents[2]
PINMAP = json.loads((ROOT / "hardware" / "pinmap.json").read_text())
FACE_PIPS = b"\x00\x08\x41\x49\x63\x6b\x77"  # pips of faces 0..6 (bit i = pip i), as frame.py


def _map(**changes):
    """Return the committed pin map with *changes* applied (a new dict)."""
    data = dict(PINMAP)
    data.update(changes)
    return data


def _shutbox(*args):
    return subprocess.run([sys.executable, "-m", "shutbox_host.cli", *args],
                          capture_output=True, text=True, timeout=120)


# --- generated files ----------------------------------------------------------------------------

def test_committed_files_equal_a_fresh_generation():
    pm = pinout.load(ROOT / "hardware" / "pinmap.json")
    assert boardgen.stale(pm, ROOT) == [], "run `shutbox board` and commit the result"
    for rel, text in boardgen.generate(pm).items():
        assert (ROOT / rel).read_text(encoding="utf-8") == text, rel


def test_check_command_passes_on_the_repository():
    result = _shutbox("board", "--check")
    assert result.returncode == 0, result.stderr
    assert "5 generated files match" in result.stdout


def test_check_command_names_a_stale_file(tmp_path):
    (tmp_path / "hardware").mkdir()
    shutil.copy(ROOT / "hardware" / "pinmap.json", tmp_path / "hardware" / "pinmap.json")
    assert _shutbox("board", "--root", str(tmp_path)).returncode == 0
    assert _shutbox("board", "--check", "--root", str(tmp_path)).returncode == 0
    pins = tmp_path / "firmware" / "shutbox" / "pins.py"
    pins.write_text(pins.read_text().replace("ROLL_PIN = const(14)", "ROLL_PIN = const(22)"))
    result = _shutbox("board", "--check", "--root", str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.strip() == ("out of date: firmware/shutbox/pins.py "
                                     "(run `shutbox board`)")


def test_pins_py_reflects_the_pin_map():
    text = (ROOT / "firmware" / "shutbox" / "pins.py").read_text()
    assert "TILES = const(%d)" % PINMAP["tiles"] in text
    assert 'TILE_PINS = b"%s"' % "".join("\\x%02x" % p for p in PINMAP["tile_pins"]) in text
    for key in ("roll_pin", "buzzer_pin", "led_pin"):
        assert "%s = const(%d)" % (key.upper(), PINMAP[key]) in text


@pytest.mark.parametrize("tiles", [2, 10, 12])
def test_other_tile_counts_generate_valid_modules(tmp_path, tiles):
    """A 10- or 12-tile pin map gives a pins.py that imports and says so, and a full set."""
    pm = pinout.parse(_map(tiles=tiles))
    boardgen.write(pm, tmp_path)
    for rel in boardgen.OUTPUTS:
        assert (tmp_path / rel).is_file(), rel
    ns: dict = {}
    exec(compile((tmp_path / boardgen.PINS_PY).read_text(), "pins.py", "exec"), ns)
    assert ns["TILES"] == tiles
    assert list(ns["TILE_PINS"][:tiles]) == PINMAP["tile_pins"][:tiles]
    assert ns["LED_PIN"] == PINMAP["led_pin"]
    svg = (tmp_path / boardgen.WIRING_SVG).read_text()
    assert "%d-tile box" % tiles in svg
    assert svg.count(">Tile ") == 2 * tiles  # a switch label and a pin-table row per tile
    assert (">T%d<" % tiles) in svg and (">T%d<" % (tiles + 1)) not in svg


def test_wiring_svg_is_well_formed_and_shows_each_used_gpio():
    import xml.etree.ElementTree as ET

    text = (ROOT / boardgen.WIRING_SVG).read_text()
    root = ET.fromstring(text)
    assert root.tag.endswith("svg")
    labels = [t.text for t in root.iter() if t.tag.endswith("text")]
    keys = ("roll_pin", "buzzer_pin", "led_pin", "led_power_pin")
    for gpio in PINMAP["tile_pins"] + [PINMAP[k] for k in keys]:
        assert "GP%d" % gpio in labels
        # the pin table lists the physical pin next to the GPIO
        assert str(pinout.PHYSICAL[gpio]) in labels
    for part in ("74AHCT125", "330 Ω", "1000 µF", "100 nF", "NPN 2N3904",
                 "POWER ROCKER (DPDT, right wall), drawn ON", "OFF: to GND", "D1 1N5817",
                 "BAT+ (the cells)", "Q2", "U3 5 V boost", "Q3 2N3904", "R4 100 kΩ",
                 "C3 2.2 µF", "LED POWER GP17 (pin 22)"):
        assert part in labels, part


def test_physical_pin_numbers_follow_the_pico_pinout():
    assert pinout.PHYSICAL[0] == 1 and pinout.PHYSICAL[2] == 4
    assert pinout.PHYSICAL[15] == 20 and pinout.PHYSICAL[16] == 21
    assert pinout.PHYSICAL[22] == 29 and pinout.PHYSICAL[28] == 34
    assert sorted(pinout.PHYSICAL) == list(range(23)) + [26, 27, 28]
    assert pinout.PICO_PINOUT.count("GND") == 7 and len(pinout.PICO_PINOUT) == 40


# --- bad pin maps -------------------------------------------------------------------------------

BAD = [
    (_map(roll_pin=PINMAP["tile_pins"][0]), "duplicate pin GP2 (tile 1 and roll)"),
    (_map(led_pin=25), "led_pin: GP25 is wired inside the Pico (the on-board LED)"),
    (_map(buzzer_pin=23), "buzzer_pin: GP23 is wired inside the Pico"),
    (_map(roll_pin=30), "roll_pin: the Pico has no GP30"),
    (_map(tile_pins=PINMAP["tile_pins"][:8]), "too few tile pins: tiles is 9 but tile_pins "
                                              "lists 8"),
    (_map(tiles=13), "tiles must be a whole number from 2 to 12, not 13"),
    (_map(tiles=1), "tiles must be a whole number from 2 to 12, not 1"),
    (_map(tile_pins=[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17]), "at most 12 tiles"),
    (_map(led_order="GRX"), "led_order must be an order of R, G and B"),
    ({k: v for k, v in PINMAP.items() if k != "led_pin"}, "missing key 'led_pin'"),
    (_map(roll_pin=True), "roll_pin: True is not a GPIO number"),
    # the board the map names: on a Pico W the wireless chip has GP23-GP25 and GP29
    (_map(board="RPI_PICO_W", led_pin=25), "led_pin: GP25 is wired inside the Pico W (the "
                                           "wireless chip's chip select)"),
    (_map(board="Pico 2 W", buzzer_pin=29), "buzzer_pin: GP29 is wired inside the Pico 2 W "
                                            "(the wireless chip's clock, and VSYS sense)"),
    (_map(board="Pico 3"), "unknown board 'Pico 3': choose one of RPI_PICO, RPI_PICO_W"),
]


@pytest.mark.parametrize("data,message", BAD, ids=[m[:24] for _, m in BAD])
def test_bad_pin_map_is_one_line_exit_2(tmp_path, data, message):
    path = tmp_path / "pinmap.json"
    path.write_text(json.dumps(data))
    result = _shutbox("board", "--check", "--root", str(tmp_path), "--pinmap", str(path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("shutbox board: error: %s: " % path)
    assert message in lines[0]


@pytest.mark.parametrize("board", [b.name for b in boards.BOARDS])
def test_board_flag_checks_the_pins_against_that_board(tmp_path, board):
    """--board names the board (over the map's own "board"): a 12-tile map whose tiles 10-12
    went to GP23-GP25 is refused on every Pico, each saying what that pin is there; the
    repository's map (GP2-GP16) passes on all four."""
    path = tmp_path / "pinmap.json"
    path.write_text(json.dumps(_map(tiles=12, tile_pins=list(range(2, 11)) + [23, 24, 25])))
    result = _shutbox("board", "--check", "--root", str(tmp_path), "--pinmap", str(path),
                      "--board", board)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    b = boards.BY_NAME[board]
    assert ("tile_pins[9]: GP23 is wired inside the %s (%s)" % (b.short, b.reserved[23])
            in result.stderr)
    same = _shutbox("board", "--check", "--board", board)
    assert same.returncode == 0, same.stderr


def test_broken_json_is_one_line(tmp_path):
    path = tmp_path / "pinmap.json"
    path.write_text('{"tiles": 9,\n "tile_pins": [2, 3,]}')
    result = _shutbox("board", "--pinmap", str(path), "--root", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip() == ("shutbox board: error: %s: not valid JSON (line 2: "
                                     "Expecting value)" % path)
    assert not (tmp_path / "firmware").exists()  # nothing written


def test_gpio_names_are_accepted_as_strings():
    pm = pinout.parse(_map(roll_pin="GP22"))
    assert pm.roll_pin == 22


# --- the Wokwi project --------------------------------------------------------------------------

WOKWI_PINS = {
    "wokwi-pi-pico": {"GP%d" % g for g in pinout.USER_GPIOS}
    | {"GND.%d" % i for i in range(1, 9)} | {"3V3", "VBUS", "VSYS", "RUN", "ADC_VREF", "3V3_EN"},
    "wokwi-slide-switch": {"1", "2", "3"},
    "wokwi-pushbutton": {"1.l", "2.l", "1.r", "2.r"},
    "wokwi-neopixel": {"DIN", "DOUT", "VDD", "VSS"},
    "wokwi-buzzer": {"1", "2"},
}


class Netlist:
    """The nets of a Wokwi diagram: endpoints 'part:pin' joined by its connections."""

    def __init__(self, diagram):
        self.types = {}
        for part in diagram["parts"]:
            assert part["id"] not in self.types, "duplicate part id %s" % part["id"]
            self.types[part["id"]] = part["type"]
        self.parent: dict = {}
        for conn in diagram["connections"]:
            a, b, colour, hints = conn
            assert isinstance(colour, str) and isinstance(hints, list)
            for end in (a, b):
                self._check(end)
            self.parent.setdefault(a, a)
            self.parent.setdefault(b, b)
            self.parent[self.find(a)] = self.find(b)
        grounds = [e for e in self.parent if e.startswith("pico:GND.")]
        for g in grounds[1:]:  # the Pico's ground pins are one net on the board itself
            self.parent[self.find(g)] = self.find(grounds[0])

    def _check(self, end):
        part, pin = end.split(":")
        if part == "$serialMonitor":
            assert pin in ("RX", "TX")
            return
        assert part in self.types, "connection to unknown part %s" % end
        assert pin in WOKWI_PINS[self.types[part]], "no pin %s on %s" % (pin, self.types[part])

    def find(self, end):
        self.parent.setdefault(end, end)
        while self.parent[end] != end:
            end = self.parent[end]
        return end

    def net(self, end):
        root = self.find(end)
        return {e for e in self.parent if self.find(e) == root}


def _wokwi_maps():
    weird = _map(tiles=10, tile_pins=[2, 3, 4, 5, 17, 18, 19, 20, 21, 22, 26, 27], roll_pin=28,
                 buzzer_pin=6, led_pin=0, led_power_pin=8)
    return [("committed", None), ("12 tiles", _map(tiles=12)), ("moved pins", weird)]


@pytest.mark.parametrize("name,data", _wokwi_maps(), ids=[n for n, _ in _wokwi_maps()])
def test_wokwi_diagram_connects_each_gpio_to_its_part(name, data):
    if data is None:
        pm = pinout.load(ROOT / "hardware" / "pinmap.json")
        diagram = json.loads((ROOT / boardgen.WOKWI_DIAGRAM).read_text())
    else:
        pm = pinout.parse(data)
        diagram = json.loads(boardgen.render_wokwi_diagram(pm))
    assert diagram["version"] == 1 and diagram["editor"] == "wokwi"
    nl = Netlist(diagram)
    assert set(nl.types.values()) <= set(WOKWI_PINS)
    gnd = nl.net("pico:GND.1")
    assert "pico:GND.8" in gnd  # one ground
    gpio_of = {}
    for end in nl.parent:
        if end.startswith("pico:GP"):
            gpio_of[end] = int(end[7:])
    # No net joins two GPIOs, or a GPIO to ground or 5 V.
    for end in gpio_of:
        others = {e for e in nl.net(end) if e in gpio_of and e != end}
        assert not others, (end, others)
        assert end not in gnd and end not in nl.net("pico:VBUS")

    def part_pins(gpio):
        return {e for e in nl.net("pico:GP%d" % gpio) if not e.startswith("pico:")}

    for k in range(1, pm.tiles + 1):
        assert part_pins(pm.tile_pins[k - 1]) == {"tile%d:2" % k}, k
        assert nl.types["tile%d" % k] == "wokwi-slide-switch"
        assert "tile%d:3" % k in gnd
        assert "tile%d:1" % k not in nl.parent  # one throw only: slid right = shut
    for spare in pm.tile_pins[pm.tiles:]:
        assert "pico:GP%d" % spare not in nl.parent
    assert part_pins(pm.roll_pin) == {"roll:1.l"} and nl.types["roll"] == "wokwi-pushbutton"
    assert "roll:2.l" in gnd
    assert part_pins(pm.buzzer_pin) == {"buzzer:2"} and "buzzer:1" in gnd
    # The LED chain, followed DIN -> DOUT from the data pin.
    chain = []
    ends = part_pins(pm.led_pin)
    while ends:
        (din,) = ends
        part, pin = din.split(":")
        assert pin == "DIN" and nl.types[part] == "wokwi-neopixel"
        chain.append(part)
        assert part + ":VDD" in nl.net("pico:VBUS") and part + ":VSS" in gnd
        ends = {e for e in nl.net(part + ":DOUT") if e != part + ":DOUT"}
    expected = (["led%d" % k for k in range(1, pm.tiles + 1)]
                + ["pip_a%d" % i for i in range(1, 8)] + ["pip_b%d" % i for i in range(1, 8)])
    assert chain == expected
    assert sum(t == "wokwi-neopixel" for t in nl.types.values()) == pm.tiles + 14


def test_wokwi_toml_points_at_a_micropython_image():
    # Python 3.10 has no tomllib: the file is flat, and its strings and ints read as JSON.
    lines = [ln for ln in (ROOT / boardgen.WOKWI_TOML).read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines[0] == "[wokwi]"
    conf = {k.strip(): json.loads(v) for k, v in (ln.split("=", 1) for ln in lines[1:])}
    assert conf["version"] == 1
    assert conf["firmware"].endswith(".uf2") and conf["elf"] == conf["firmware"]
    assert conf["rfc2217ServerPort"] == 4000


# --- the bill of materials ----------------------------------------------------------------------

def _bom(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows and list(rows[0]) == ["part", "value", "quantity", "example part number",
                                      "notes", "model"]
    return rows


def _qty(rows, part, value_has=""):
    found = [r for r in rows if r["part"] == part and value_has in r["value"]]
    assert len(found) == 1, (part, value_has, found)
    return int(found[0]["quantity"])


@pytest.mark.parametrize("tiles", [None, 10, 12])
def test_bom_quantities_match_the_pin_map(tiles):
    if tiles is None:
        tiles = PINMAP["tiles"]
        rows = _bom((ROOT / boardgen.BOM_CSV).read_text())
    else:
        rows = _bom(boardgen.render_bom(pinout.parse(_map(tiles=tiles))))
    assert _qty(rows, "Tile switch") == tiles
    assert _qty(rows, "Tile") == tiles
    assert _qty(rows, "RGB LED", "WS2812B") == tiles + 14
    assert _qty(rows, "Microcontroller board", "Pico") == 1
    assert _qty(rows, "Roll button") == 1
    assert _qty(rows, "Level shifter", "74AHCT125") == 1
    assert _qty(rows, "Resistor", "330 ohm") == 1
    assert _qty(rows, "Capacitor", "1000 uF") == 1
    assert _qty(rows, "Capacitor", "100 nF") == 1
    assert _qty(rows, "Buzzer", "passive piezo") == 1
    assert _qty(rows, "Transistor", "NPN") == 2  # the buzzer's and the LED supply's drivers
    assert _qty(rows, "Battery holder", "3 x AA") == 1
    assert _qty(rows, "Battery", "AA cell") == 3
    assert _qty(rows, "Schottky diode") == 1
    assert _qty(rows, "P-MOSFET") == 1
    assert _qty(rows, "Step-up regulator", "5 V") == 1
    assert _qty(rows, "Resistor", "10 kohm") == 2
    assert _qty(rows, "Resistor", "100 kohm") == 2
    assert _qty(rows, "Capacitor", "2.2 uF") == 1
    for r in rows:
        assert int(r["quantity"]) >= 1 and r["example part number"], r


def test_guide_states_the_firmware_led_budget():
    """hardware/README.md's worst-case LED current follows board.py's palette and the pin map."""
    from shutbox import board

    pal = board._PALETTE_RGB
    brightest = max(sum(pal[i:i + 3]) for i in range(0, len(pal), 3))
    leds = PINMAP["tiles"] + 14
    per_led_ua = brightest * 20000 // 255  # 20 mA per channel at 255
    guide = (ROOT / "hardware" / "README.md").read_text()
    assert "brightest palette colour sums to %d" % brightest in guide
    assert "%d LEDs × %d.%d mA = %d mA" % (leds, per_led_ua // 1000, per_led_ua % 1000 // 100,
                                          leds * per_led_ua // 1000) in guide
    assert "%d LEDs × 60 mA = %d mA" % (leds, leds * 60) in guide
    # the table per brightness (setting brightness): the palette as Board.adjust scales it
    assert leds == 23
    for level, name in enumerate(("low", "medium", "high")):
        k = board._SCALE[level]
        top = max(sum(c * k >> 2 for c in pal[i:i + 3]) for i in range(0, len(pal), 3))
        ua = top * 20000 // 255
        row = "| %s | %d | %d.%d mA | %d mA | about %d mA | %d mA | about %d mA |" % (
            name, top, ua // 1000, ua % 1000 // 100, 23 * ua // 1000, 23 * ua // 1000 + 53,
            26 * ua // 1000, 26 * ua // 1000 + 56)
        assert row in guide, row
        # every level within the 250 mA MicroPython's USB descriptor declares to the host
        # (shared/tinyusb/tusb_config.h: USBD_MAX_POWER_MA 250), on 12 tiles
        assert 26 * ua // 1000 + 56 < 250, (name, 26 * ua // 1000 + 56)


def test_guide_pin_table_matches_the_pin_map():
    """The reference pin table in hardware/README.md lists the pin map's GPIOs and pins."""
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in (ROOT / "hardware" / "README.md").read_text().splitlines()
            if line.startswith("| tile") or line.startswith("| Roll") or line.startswith(
                "| buzzer") or line.startswith("| LED data")]
    tiles = [g for r in rows if r[0].startswith("tile") for g in r[1].split(", ")]
    pins = [p for r in rows if r[0].startswith("tile") for p in r[2].split(", ")]
    assert tiles == ["GP%d" % g for g in PINMAP["tile_pins"]]
    assert pins == [str(pinout.PHYSICAL[g]) for g in PINMAP["tile_pins"]]
    other = {r[0].split()[0]: r[1:] for r in rows if not r[0].startswith("tile")}
    for name, key in (("Roll", "roll_pin"), ("buzzer", "buzzer_pin"), ("LED", "led_pin")):
        gpio = PINMAP[key]
        assert other[name] == ["GP%d" % gpio, str(pinout.PHYSICAL[gpio])], name


# --- the self-test ------------------------------------------------------------------------------

# Drives a SelfTest through its whole timeline and reports what the LEDs and buzzer did. The
# same text runs under MicroPython (simulated board, heap locked around each step) and CPython.
TIMELINE = r'''
def timeline(board, io, t0, lock, unlock, ticks_add):
    from shutbox.selftest import SelfTest
    st = SelfTest(board)
    n = st.leds
    sweep = n * 80
    colours = sweep + 1800
    dice = colours + 3600
    marks = {0: "start", 100: "beep off", sweep + 10: "colours beep"}
    for i in range(n):
        marks[i * 80 + 40] = "sweep %d" % i
    for j in range(3):
        marks[sweep + j * 600 + 300] = "colour %d" % j
    for f in range(1, 7):
        marks[colours + (f - 1) * 600 + 300] = "face %d" % f
    marks[dice + 100] = "echo"
    out = []
    t = 0
    while t <= dice + 100:
        lock()
        phase = st.step(ticks_add(t0, t))
        unlock()
        if t in marks:
            out.append((marks[t], phase, io.codes(), io.tone()))
        t += 10
    for k in range(board.tiles):
        io.tile(k, True)
        lock()
        phase = st.step(ticks_add(t0, t))
        unlock()
        out.append(("tile %d" % (k + 1), phase, io.codes(), io.tone()))
        io.tile(k, False)
        t += 10
    for pressed in (True, False):
        io.roll(pressed)
        lock()
        phase = st.step(ticks_add(t0, t))
        unlock()
        out.append(("roll" if pressed else "release", phase, io.codes(), io.tone()))
        t += 10
    return out
'''

MP_SCRIPT = r'''
import gc
import json
import time
import micropython
import simbus
gc.collect()  # the sim's machine.py is big to compile: give the 64k heap its room first
import machine
''' + TIMELINE + r'''
from shutbox import pins, frame
from shutbox.board import Board
from shutbox.powerup import combination

simbus.buzzer_pin = pins.BUZZER_PIN
b = Board()
# Learn the wire bytes of each palette code by showing it (so the decoding needs no internals).
codes = {}
f = bytearray(frame.size(b.tiles))
for code in range(frame.COLOURS):
    for i in range(len(f)):
        f[i] = code
    b.show(f)
    codes[bytes(simbus.leds[0:3])] = chr(frame.NAMES[code])


class IO:
    def codes(self):
        d = simbus.leds
        return "".join(codes[bytes(d[i:i + 3])] for i in range(0, len(d), 3))

    def tone(self):
        return simbus.tone()

    def tile(self, k, shut):
        if shut:
            simbus.set_level(pins.TILE_PINS[k], 0)
        else:
            simbus.release(pins.TILE_PINS[k])

    def roll(self, pressed):
        if pressed:
            simbus.set_level(pins.ROLL_PIN, 0)
        else:
            simbus.release(pins.ROLL_PIN)


io = IO()
combos = []
for roll, tile1 in ((0, 0), (1, 0), (1, 1), (0, 1)):
    io.roll(roll)
    io.tile(0, tile1)
    combos.append(combination(b.switches(), b.roll(), b.tiles))  # the power-up mode
io.roll(False)
io.tile(0, False)
t0 = time.ticks_add(0, -3000)  # start just before the tick counter wraps
out = timeline(b, io, t0, micropython.heap_lock, micropython.heap_unlock, time.ticks_add)
print(json.dumps({"tiles": b.tiles, "modes": combos}))
for record in out:  # one line each: a single dump of everything needs too big a buffer
    print(json.dumps(record))
'''


def _check_timeline(tiles, timeline):
    """Assert what a self-test run showed: sweep, colours, dice, echo, beeps."""
    n = tiles + 14
    seen = {label: (phase, codes, tone) for label, phase, codes, tone in timeline}
    assert seen["start"][0] == 1 and seen["start"][2] == 1000  # beep at the start
    assert seen["beep off"][2] == 0
    for i in range(n):
        phase, codes, _ = seen["sweep %d" % i]
        assert phase == 1 and codes == "." * i + "W" + "." * (n - i - 1), (i, codes)
    assert seen["colours beep"][:1] == (2,) and seen["colours beep"][2] == 1000
    for j, letter in enumerate("RGB"):
        phase, codes, tone = seen["colour %d" % j]
        assert phase == 2 and codes == letter * n and tone == 0
    for f in range(1, 7):
        phase, codes, _ = seen["face %d" % f]
        pips = "".join("W" if FACE_PIPS[f] >> i & 1 else "." for i in range(7))
        assert phase == 3 and codes == "B" * f + "." * (tiles - f) + pips + pips, (f, codes)
    assert seen["echo"][:2] == (4, "." * n) and seen["echo"][2] == 0
    for k in range(1, tiles + 1):
        phase, codes, tone = seen["tile %d" % k]
        assert phase == 4 and codes == "." * (k - 1) + "G" + "." * (tiles - k) + "." * 14, k
    assert seen["roll"][1:] == ("." * tiles + "G" * 14, 660)
    assert seen["release"][1:] == ("." * n, 0)


def _firmware_with_tiles(tmp_path, tiles):
    """Copy firmware/ to tmp_path with pins.py generated for *tiles* tiles; return its path."""
    dest = tmp_path / "firmware"
    shutil.copytree(ROOT / "firmware", dest,
                    ignore=shutil.ignore_patterns("__pycache__", "*.mpy", "tables"))
    pm = pinout.parse(_map(tiles=tiles))
    (dest / "shutbox" / "pins.py").write_text(pinout.render_pins(pm))
    return dest


@pytest.mark.parametrize("tiles", [9, 10, 12])
def test_selftest_under_micropython_on_the_simulated_board(tmp_path, tiles):
    """The real firmware (board.py, frame.py, selftest.py) on the fake rp2 modules; no allocation
    in any step (heap locked); 10 and 12 tiles from a regenerated pins.py."""
    extra = () if tiles == PINMAP["tiles"] else (_firmware_with_tiles(tmp_path, tiles),)
    script = tmp_path / "selftest_run.py"
    script.write_text(MP_SCRIPT)
    # 96 KB: the simulated board and this script run as source (compiled here), the board's
    # watchdog and brightness code made 64 KB too tight; the steps are checked with the heap
    # locked, so the size is no part of what is tested
    result = mp.run(script, heapsize="96k", extra_path=extra, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    report = json.loads(lines[0])
    assert report["tiles"] == tiles
    # Only Roll held with tile 1 shut asks for the self-test (shutbox.powerup.screens runs it).
    from shutbox import powerup

    assert report["modes"] == [powerup._PLAY, powerup._MENU, powerup._SELFTEST, powerup._PLAY]
    _check_timeline(tiles, [tuple(json.loads(line)) for line in lines[1:]])


class FakeBoard:
    """The Board API on CPython: switch levels, Roll, the last frame shown, the buzzer."""

    def __init__(self, tiles):
        self.tiles = tiles
        self.levels = (1 << tiles) - 1  # all open
        self.pressed = False
        self.shown = ""
        self.freq = 0
        self.shows = 0

    def switches(self, levels=-1):  # Board.switches: of a reading (reader), or now
        return self.levels if levels < 0 else levels & ((1 << self.tiles) - 1)

    def roll(self, levels=-1):
        return self.pressed if levels < 0 else bool(levels >> self.tiles & 1)

    def reader(self):  # Board.reader: every switch's level as one int
        return lambda: self.levels | self.pressed << self.tiles

    def show(self, frame):
        assert len(frame) == self.tiles + 14
        self.shown = "".join(".WGRYBMC"[c] for c in frame)
        self.shows += 1

    def tone(self, freq_hz, ms=0):
        self.freq = freq_hz


class FakeIO:
    def __init__(self, board):
        self.b = board

    def codes(self):
        return self.b.shown

    def tone(self):
        return self.b.freq

    def tile(self, k, shut):
        self.b.levels = self.b.levels & ~(1 << k) if shut else self.b.levels | (1 << k)

    def roll(self, pressed):
        self.b.pressed = pressed


@pytest.mark.parametrize("tiles", [9, 12])
def test_selftest_on_cpython(tiles):
    from shutbox.ticks import ticks_add

    ns: dict = {}
    exec(TIMELINE, ns)
    board = FakeBoard(tiles)
    t0 = ticks_add(0, -3000)
    out = ns["timeline"](board, FakeIO(board), t0, lambda: None, lambda: None, ticks_add)
    _check_timeline(tiles, out)


def test_selftest_requested_and_run():
    from shutbox import powerup, selftest

    def requested(b):  # as shutbox.powerup.screens decides it, from the raw levels
        return powerup.combination(b.switches(), b.roll(), b.tiles) == powerup._SELFTEST

    board = FakeBoard(9)
    assert not requested(board)
    board.pressed = True
    assert not requested(board)  # Roll with every tile open is the settings mode
    board.levels &= ~1
    assert requested(board)

    class Wdt:
        feeds = 0

        def feed(self):
            self.feeds += 1

    now = [0]
    sleeps = []

    def sleep_ms(ms):
        sleeps.append(ms)
        now[0] += ms

    wdt = Wdt()
    test = selftest.run(board, lambda: now[0], sleep_ms, wdt, steps=50)
    assert wdt.feeds == 50 and board.shows == 50 and sum(sleeps) == 500
    assert test.phase == selftest.SWEEP and board.shown[6] == "W"  # LED 6 at 490 ms

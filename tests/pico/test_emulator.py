# The box's firmware on the real MicroPython rp2 build, on an emulated RP2040 (rp2040js).
"""Boot, a whole game, the power-up screens, the watchdog and a fault, through the chip's pins.

The firmware is laid out on the emulated flash's littlefs as `shutbox flash` leaves it
(shutbox_host.pico.fsimage); inputs are GPIO levels, outputs the WS2812 frames decoded from
the LED pin, the buzzer's PWM and the firmware's JSON log on the USB console.
"""

from __future__ import annotations

import pytest
from emu_skip import require_emulator

pytestmark = [pytest.mark.node]

require_emulator()

import ast  # noqa: E402
import subprocess  # noqa: E402

from shutbox import pins  # noqa: E402
from shutbox_host import mp  # noqa: E402
from shutbox_host.model.leds import face, tiles_lit  # noqa: E402
from shutbox_host.pico import autoplay, flash, fsimage, replay  # noqa: E402
from shutbox_host.pico.emulator import Emulator, node_exe  # noqa: E402

TURN = r'"ev": "turn"'
SETTINGS = r'"ev": "settings"'


@pytest.fixture
def emu(fw_image):
    with Emulator(fs=fw_image) as e:
        yield e


def booted(emu: Emulator) -> dict:
    """Run from power-up to the first turn's prompt; return the turn record."""
    return emu.wait_for(TURN, timeout_ms=5000)


@pytest.fixture(scope="module")
def _at_turn(fw_image):
    """One box booted to its first turn and run 100 ms more, kept (Emulator.snapshot)."""
    with Emulator(fs=fw_image) as e:
        booted(e)
        e.run(ms=100)
        yield e, e.snapshot()


@pytest.fixture
def at_turn(_at_turn) -> Emulator:
    """A box 100 ms into its first turn after power-up, every time the same (the tests that
    start there share one boot: the chip put back as it was then)."""
    e, snap = _at_turn
    e.restore(snap)
    return e


def test_boot_and_a_whole_game_checked_against_the_engine_and_game_render(emu):
    emu.trace(True)
    turn = booted(emu)
    assert turn["player"] == 1 and turn["open"] == list(range(1, pins.TILES + 1))
    assert emu.connects and emu.connects[0] < 100  # USB enumerated soon after reset
    emu.run(ms=100)
    win = autoplay.play_game(emu, players=2, strategy="best")
    emu.run(ms=1500)
    # the LEDs: every frame the chip sent is what Game.render gave for the same polls, in order
    start = next(ms for ms, line in emu.lines if '"ev": "settings"' in line)
    frames, log = replay.replay(emu.reads, emu.log, start)
    shown = [f.tiles + f.die_a + f.die_b for f in emu.frames]
    assert len(shown) > 50
    assert shown[:len(frames)] == frames[:len(shown)]
    assert abs(len(shown) - len(frames)) <= 1
    fw_log = [{k: v for k, v in r.items() if k != "_ms"} for r in emu.log
              if r["_ms"] >= start and r["ev"] != "settings"]
    assert fw_log[:len(log)] == log and len(log) >= len(fw_log) - 1
    # the winner shows: their tile blinks green, die A their number
    label = [f for f in emu.frames_since(win["_ms"]) if "G" in f.tiles]
    assert label and set(tiles_lit(label[0].tiles, "G")) <= set(win["players"])
    assert face(label[0].die_a) == win["players"][0]
    # the buzzer played the roll sound (1 kHz, half duty) at each throw
    notes = [hz for _, hz, duty in emu.tones if hz]
    assert notes.count(1000) >= 2 * len(emu.events("throw"))
    # the flash's erase ahead on the Pico's own chip (the emulated W25Q16JV, JEDEC id EF 40
    # 15): no save of the game erased (MicroPython's erase never ran), / is on shutbox.ahead
    assert emu.stats()["erases"] == 0
    out = emu.repl("import sys\nprint('AHEAD', sys.modules['shutbox.ahead'].mounted.waited, "
                   "hex(sys.modules['shutbox.ahead'].mounted.raw.jedec()))\n")
    assert "AHEAD 0 0xef4015" in out, out[-400:]


# Each 16-bit opcode (and the first halves of the 32-bit ones, with random second halves) in
# random states (registers random or pointing into SRAM, random flags), run by rp2040js's own
# decoder and by js/core.js's table: prints the runs and how many differed.
DECODER_CHECK = r"""
import { RP2040 } from 'rp2040js';
import { fastDecoder } from './host_tools/shutbox_host/pico/js/core.js';

console.log = console.warn = console.error = () => {}; // rp2040js's SIO logs bad addresses
const chips = [new RP2040(), new RP2040()];
const logs = [[], []];
chips.forEach((chip, i) => {
  chip.logger = { debug() {}, info() {}, warn() {}, error() {} };
  for (const name of ['writeUint32', 'writeUint16', 'writeUint8']) {
    const write = chip[name].bind(chip);
    chip[name] = (a, v) => {
      logs[i].push(name, a, v);
      write(a, v);
    };
  }
  chip.onBreak = (code) => logs[i].push('bkpt', code);
  chip.core.blTaken = (core, blx) => logs[i].push('bl', blx);
});
if (!fastDecoder(chips[1].core)) throw new Error('fastDecoder left the core as it was');
const FIELDS = ['N', 'Z', 'C', 'V', 'PM', 'waiting', 'eventRegistered', 'cycles', 'IPSR',
  'SPSEL', 'bankedSP', 'breakRewind', 'currentMode', 'pendingSVCall', 'pendingPendSV'];
let seed = 1;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
const RAM = 0x20000000;
let diffs = 0;
let runs = 0;
for (let op = 0; op < 65536; op++) {
  for (let trial = 0; trial < 2; trial++) {
    const regs = new Uint32Array(16);
    // random values, or addresses in SRAM (loads and stores land there)
    for (let r = 0; r < 13; r++) regs[r] = trial ? RAM + 0x1000 + (rnd() & 0xfffc) : rnd();
    regs[13] = RAM + 0x20000;
    regs[14] = rnd() | 1;
    regs[15] = RAM + 0x100;
    const flags = rnd();
    const op2 = rnd() & 0xffff;
    const got = chips.map((chip, i) => {
      const core = chip.core;
      logs[i].length = 0;
      chip.sramView.setUint16(0x100, op, true);
      chip.sramView.setUint16(0x102, op2, true);
      core.registers.set(regs);
      [core.N, core.Z, core.C, core.V] = [1, 2, 4, 8].map((b) => !!(flags & b));
      core.waiting = false;
      core.cycles = 0;
      let cycles;
      try {
        cycles = core.executeInstruction();
      } catch (err) {
        cycles = String(err);
      }
      return JSON.stringify([cycles, [...core.registers], FIELDS.map((f) => core[f]), logs[i]]);
    });
    runs += 1;
    if (got[0] !== got[1] && diffs++ < 3) process.stdout.write(`0x${op.toString(16)} ${got}\n`);
  }
}
process.stdout.write(`${runs} ${diffs}\n`);
"""


def test_the_table_decoder_runs_every_opcode_as_rp2040js_does():
    out = subprocess.run([node_exe(), "--input-type=module", "-e", DECODER_CHECK],
                         cwd=str(mp.ROOT), capture_output=True, text=True, timeout=600,
                         check=True).stdout.split()
    assert out[-2:] == ["131072", "0"], out[-20:]


# The same loop timed by the chip's own timer (µs, from its 1 MHz tick, not clk_sys) at each
# system clock machine.freq sets: rp2's set_sys_clock_khz through the PLL and CLK_SYS
CLOCKED = """
import machine, time
def work():
    t = time.ticks_us()
    for i in range(3000):
        pass
    return time.ticks_diff(time.ticks_us(), t)
got = []
for hz in (125_000_000, 133_000_000, 48_000_000):
    machine.freq(hz)
    got.append((machine.freq(), work()))
print('CLK', got)
"""


def test_a_cycle_lasts_as_long_as_the_system_clock_the_firmware_sets():
    """A cycle follows clk_sys: the same instructions take 125/133 of the time at 133 MHz
    and 125/48 at 48 MHz (a fixed 8 ns a cycle would time them alike)."""
    with Emulator() as emu:
        emu.run(ms=300)
        emu.write(b"\r\n")
        emu.prompt(since=0)
        out = emu.exec(CLOCKED)
    got = ast.literal_eval(next(x for x in out.splitlines() if x.startswith("CLK"))[4:])
    (f0, us0), (f1, us1), (f2, us2) = got
    assert (f0, f1, f2) == (125_000_000, 133_000_000, 48_000_000)
    for hz, us in ((f1, us1), (f2, us2)):
        assert abs(us * hz / (us0 * f0) - 1) < 0.01, got


def test_the_settings_menu_and_a_setting_kept_through_a_power_cycle(emu):
    emu.press()  # Roll held at power-up: the settings menu
    emu.run(ms=600)
    emu.release()
    emu.run(ms=200)
    menu = emu.frames[-1]
    assert face(menu.die_a) == 1 and face(menu.die_b) == 1  # page 1.1: players
    assert tiles_lit(menu.tiles, "G") == [2]  # 2 players, the default
    emu.shut(3)  # tile 3: 3 players
    emu.run(ms=200)
    assert tiles_lit(emu.frames[-1].tiles, "G") == [3]
    n = len(emu.lines)
    emu.press()
    emu.run(ms=1000)  # hold: save and play
    emu.release()
    st = emu.wait_for(SETTINGS, timeout_ms=3000, since=n)
    assert st["values"][0] == 2  # players: index 2 = 3 players
    emu.open(3)
    game = emu.wait_for(r'"ev": "game"', timeout_ms=3000, since=n)
    assert game["players"] == 3
    emu.run(ms=300)
    n = len(emu.lines)
    emu.power_cycle()
    st = emu.wait_for(SETTINGS, timeout_ms=5000, since=n)
    assert st["values"][0] == 2 and st["status"] == 0  # read back from flash (1: missing)
    rec = emu.wait_for(r'"ev": "resume"', timeout_ms=3000, since=n)  # the game in progress
    assert len(rec["scores"]) == 3 and rec["state"] == "setup"


def test_the_self_test_by_its_power_up_combination(emu):
    emu.shut(1)
    emu.press()  # Roll + tile 1 at power-up: the self-test
    emu.run(ms=2000)
    emu.release()
    sweep = [f for f in emu.frames if (f.tiles + f.die_a + f.die_b).count("W") == 1]
    lit = []
    for f in sweep:  # each LED lit for 80 ms: several frames
        i = (f.tiles + f.die_a + f.die_b).index("W")
        if not lit or lit[-1] != i:
            lit.append(i)
    assert lit[:pins.TILES + 8] == list(range(pins.TILES + 8))  # one LED at a time, in order
    emu.run(ms=3000)
    colours = {f.tiles + f.die_a + f.die_b for f in emu.frames}
    for c in "RGB":  # the whole chain red, green, blue: the byte order decodes
        assert c * (pins.TILES + 14) in colours
    emu.run(ms=3500)  # the dice faces, then echo
    emu.shut(5)
    emu.run(ms=200)
    assert tiles_lit(emu.frames[-1].tiles, "G") == [1, 5]
    emu.press()
    emu.run(ms=200)
    assert emu.frames[-1].die_a == "G" * 7 and emu.buzzer()[0] == pytest.approx(660, rel=0.02)
    assert not emu.events("game")  # the game never started


def test_a_hang_is_rebooted_by_the_real_watchdog_and_the_game_resumes(at_turn):
    emu = at_turn
    eng = autoplay.engine()
    n = len(emu.lines)
    emu.click(100)
    throw = emu.wait_for(r'"ev": "throw"', timeout_ms=3000, since=n)
    # a poll that never returns: Ctrl-C (the firmware stops its watchdog), then the
    # firmware's own main again with a switch read that blocks, the 8 s watchdog running
    # (the loop's read of the switches, Board.reader's: the box polls them every 2 ms)
    emu.repl("import shutbox.board as B\n"
                   "_r = B.Board.reader\n"
                   "_n = [0]\n"
                   "def _reader(self):\n"
                   "    read = _r(self)\n"
                   "    def _hang():\n"
                   "        _n[0] += 1\n"
                   "        if _n[0] > 50:\n"
                   "            import time\n"
                   "            time.sleep(60)\n"
                   "        return read()\n"
                   "    return _hang\n"
                   "B.Board.reader = _reader\n"
                   "import main\n", wait=False)
    t0 = emu.now_ms
    notice = emu.wait_for(r'"ev": "notice"', timeout_ms=12000)
    assert [why for _, why in emu.resets] == ["watchdog"]
    reset_at = emu.resets[0][0]
    assert 8000 <= reset_at - t0 <= 10000  # the 8 s timeout, from the last feed
    assert notice["_ms"] > reset_at and 4 in notice["tiles"]  # the notice: a watchdog reset
    log = fsimage.read_tree(emu.flash_image()).get("/error.log", b"")
    assert log.count(b"watchdog reset: the box hung and was restarted") == 1, log
    # the saved game resumes: the throw saved before it was shown lands again, the same
    again = emu.wait_for(r'"ev": "throw"', timeout_ms=2000)
    assert again["dice"] == throw["dice"] and again["_ms"] > reset_at
    emu.run(until_ms=notice["_ms"] + 2100)  # the boot notice (dice an amber X) lasts 2 s
    a, b = (throw["dice"] + [0])[:2]
    f = emu.frames[-1]
    assert (face(f.die_a), face(f.die_b)) == (a, b) and "Y" not in f.die_a + f.die_b
    move = eng.best_move(eng.start_open, a, b)
    n = len(emu.lines)
    autoplay.shut_move(emu, move)
    rec = emu.wait_for(r'"ev": "move"', timeout_ms=2000, since=n)
    assert rec["dice"] == throw["dice"]


def test_a_reset_as_a_flash_makes_it_boots_with_no_notice_and_logs_nothing(at_turn):
    """Issue 17: on rp2 machine.reset() goes through the watchdog (REASON FORCE, reset_cause
    WDT_RESET); after the reset `shutbox flash` makes (its own code, the mark in SCRATCH3
    first) the box starts its game with no fault notice and writes no /error.log."""
    emu = at_turn
    n = len(emu.lines)
    emu.repl(flash._RESET + "\n", wait=False)
    turn = emu.wait_for(r'"ev": "(turn|resume)"', timeout_ms=5000, since=n)  # (saved: resumes)
    emu.run(ms=2500)  # the boot notice would show (and be logged) for 2 s from the start
    assert [why for _, why in emu.resets] == ["force"], emu.resets
    assert turn["_ms"] > emu.resets[0][0]
    assert not [r for r in emu.log if r["_ms"] > emu.resets[0][0]
                and r["ev"] in ("notice", "fault")], emu.log
    assert "/error.log" not in fsimage.read_tree(emu.flash_image())


def test_an_injected_fault_shows_the_pattern_and_roll_recovers(at_turn):
    emu = at_turn
    # (the first poll's: a waiting box polls its app only when a switch changes or
    # something is due, and at its start)
    emu.repl("import shutbox.game as G\n"
                   "_t = G.Game.tick\n"
                   "_n = [0]\n"
                   "def _tick(self, now):\n"
                   "    _n[0] += 1\n"
                   "    if _n[0] == 1:\n"
                   "        raise RuntimeError('injected')\n"
                   "    _t(self, now)\n"
                   "G.Game.tick = _tick\n"
                   "import main\n", wait=False)
    fault = emu.wait_for(r'"ev": "fault"', timeout_ms=5000)
    assert fault["error"] == "RuntimeError" and fault["text"] == "injected"
    emu.run(ms=300)
    pattern = {f.tiles for f in emu.frames_since(fault["_ms"])}
    assert {"R.R.R.R.R", ".R.R.R.R."} <= pattern  # every other tile red, alternating
    n = len(emu.lines)
    emu.click(100)
    turn = emu.wait_for(TURN, timeout_ms=3000, since=n)
    assert turn["player"] == 1
    assert 4 in emu.wait_for(r'"ev": "notice"', timeout_ms=1000, since=n)["tiles"]
    assert not emu.resets  # recovered without a reboot
    # and the game plays on
    score = autoplay.play_turn(emu, autoplay.engine())
    assert score["player"] == 1


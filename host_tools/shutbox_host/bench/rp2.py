# Figures of the firmware on the real MicroPython rp2 build, from the emulated RP2040's clock.
"""figures(soak) -> the rp2_* figures (shutbox_host.pico.emulator; rp2040js at 125 MHz).

Every figure comes from the emulated clock, so it is the same run after run; the emulator
charges no flash wait states, cache misses or bus contention, so a real chip is somewhat
slower: read them as lower bounds.

- rp2_boot_to_play_ms: power-up to the first turn's ``turn`` record on the USB console.
- rp2_flip_to_led_ms_p50/_max: a tile switch edge (the GPIO level set) to the start of the
  first WS2812 frame in which that tile's LED changed (the frame itself takes 0.7 ms more),
  for every tile shut in two turns.
- rp2_flip_to_led_ms_{clean,bounced}_{p50,p99,max}, rp2_roll_to_throw_ms_{p50,max},
  rp2_lost_inputs, rp2_bounced_edges and the other rp2_bounced_*/late/wrong/phantom/unintended
  counts: shutbox_host.pico.bounce on a box at a turn's start, seeded, at least 2,000 edges
  (20,000 with soak) of contacts bouncing as shutbox_host.contact's NEW and WORN profiles,
  each landed on its pin at its emulated ns: from an input's first edge to the start of the
  first frame showing the tile's settled level (clean: one edge; bounced: bursts up to 10 ms,
  two tiles together included), or to the first frame of rolling dice (a Roll press whose
  press and release both bounce); lost: not shown within 50 ms of the last edge.
- rp2_poll_us_p50/_max: the core's busy span (from a wake-up to its next WFE) holding each
  idle poll's reads of the switches (Emulator.trace), nothing pressed, 2 s, from the end of
  the power-up's settle second (shutbox_host.bench.idle: the flash's erase ahead walks then).
- rp2_idle_busy_fraction: time executing / time, over the same 2 s.
- rp2_idle_allocs_per_s: entries into MicroPython's gc_alloc, over the same 2 s. The
  firmware.elf symbols are not shipped, so gc_alloc is found on the chip: BL targets entered
  with r0 == 1234 while ``bytearray(1234)`` runs 100 times are m_malloc and gc_alloc; the one
  entered with r1 in {0, 1} only, and r1 == 1 for objects with a finaliser (open files), is
  gc_alloc (``find_gc_alloc``; its entries are then counted by PC, tail calls included).
- rp2_decision_us_*: on the board through the console (time.ticks_us), per call averaged over
  the positions of a game: ``legal_best`` = legal_into + best_move, ``hard`` = the hard
  computer's move (computer_one_die + best_move), ``beat_target`` = a beat-target hint
  (best_move_target + p_beat, target 12).
- rp2_payout_play_ms, rp2_payout_play_locked_ms, rp2_payout_play_alloc_bytes,
  rp2_payout_play_heap_bytes, rp2_payout_play_p_beat: shutbox.payout.best for seat 1 of 2
  players (the match's play computed from its vector, which 0 choices of the host solver's
  differ from: tests/firmware/test_payout_play.py) on a one-layer variant (never/optional/sum)
  and the locked mode's two layers (high-shut/locked/sum), on the emulated clock; what it
  allocates on its way (the most of the two) and keeps, its working memory made before
  (rp2_payout_play_buf_bytes: shutbox.payout.load, which the box calls once at boot: the
  locked mode's, which the one-layer run reuses); seat 1's chance to win x 1000 (the chip's
  hint buffer checked against CPython's, entry for entry through a hash).
  rp2_payout_play_code_bytes: the heap the module takes once imported (its bytecode and
  its viper pass's machine code, both in RAM), beside what best() allocates.
- rp2_set_target_ms, rp2_later_patch_ms: a turn's start for seat 4 of 4 players after three
  scores of 3 (the most states a later-seat patch of tables/t9.bin re-ranks: 396, in 21 tile
  sums): set_target(3) alone (open the pack, read and spread the target's block), and
  shutbox.target's whole aim (the same, then the situation's row, list and tile sums'
  patches read and their states re-ranked), on the emulated clock.
- rp2_heap_free_min_bytes: the least gc.mem_free() after a gc.collect() every 100 ms (a
  machine.Timer probe from the console, itself ~4 KB) over an all-features game: 1 player and
  the hard computer, best-move hints, Canoga stakes, ties by roll-off.
- rp2_ahead_*: the flash's erase ahead (shutbox.ahead on firmware/shutbox/chip.py, the
  emulated W25Q16JV) over a game of two seats at the chip's datasheet worst case (sector erase
  400 ms, page program 3 ms), flashed as `shutbox flash` leaves a board (its metadata pairs'
  stale halves still to erase), then 3 s of its winner's screen: ``erases_waited`` (littlefs's
  erases done in a save: MicroPython's own erase, the core stopped), ``erases_skipped``
  (littlefs's erases of blocks already erased), ``erases`` (sectors erased ahead, in the
  loop's sleeps); ``slices`` and ``irq_off_ms_{p50,max}``: the erase ahead's slices (code in
  RAM with interrupts off: USB and the timer's alarms wait) and their time with interrupts
  off, against ``irq_off_other_ms_max``, the longest of MicroPython's own interrupts-off
  spans in the same run; ``flip_in_erase_ms`` and ``flip_in_save_ms``: a tile shut half way
  through the game's last erase ahead, and 0.1 ms into the first page program of a move's
  save, to the LED frame showing it (the same game replayed to that instant: the chip is
  deterministic).
- rp2_flash_s: emulated seconds of a full `shutbox flash` through the pty bridge (mpremote),
  onto a blank MicroPython board; the bridge runs the chip at about real time, so this
  includes the host's own time (mpy-cross, mpremote) on this machine. rp2_flash_board_s is
  the board's share: its CPU busy time plus the flash erases and programs it waited for.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from shutbox import pins
from shutbox_host import mp
from shutbox_host.bench import idle
from shutbox_host.pico import autoplay, bounce, emu_cli, fsimage
from shutbox_host.pico.emulator import Emulator, EmulatorError

_TURN = r'"ev": "turn"'


def find_gc_alloc(emu: Emulator) -> int:
    """Return gc_alloc's address in the running MicroPython (at its REPL prompt)."""
    emu.exec("def _f(n):\n    for i in range(n):\n        bytearray(1234)\n")
    emu.bl_trace(True, 1234)
    emu.exec("_f(100)\n")
    found = emu.bl_trace(False)
    cands = sorted({int(k.split(":")[0], 16) for k, v in found.items() if v == 100})
    emu.bl_trace(True, pcs=cands)
    emu.exec("import os\nfor i in range(10):\n    open('/_gc', 'w').close()\n"
             "os.remove('/_gc')\n")
    flags: dict[int, set] = {c: set() for c in cands}
    for k in emu.bl_trace(False):
        pc, r1 = k.split(":")
        flags[int(pc, 16)].add(int(r1))
    hits = [c for c in cands if flags[c] and flags[c] <= {0, 1} and 1 in flags[c]]
    if len(hits) != 1:
        raise EmulatorError("gc_alloc not found: candidates %s" % flags)
    return hits[0]


def _pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _idle(emu: Emulator, gc_alloc: int) -> dict:
    emu.trace(True)
    emu.count_entries([gc_alloc])
    emu.spans(True)
    st0 = emu.stats()
    n0 = len(emu.reads)
    emu.run(ms=2000)
    spans = emu.spans(False)
    st1 = emu.stats()
    emu.trace(False)
    polls = sorted(ms * 1e6 for kind, ms, _ in emu.reads[n0:] if kind == "T")
    # the busy span holding each poll's first read of the switches
    durations = []
    j = 0
    for t in polls:
        while j < len(spans) and spans[j][1] < t:
            j += 1
        if j < len(spans) and spans[j][0] <= t:
            durations.append((spans[j][1] - spans[j][0]) / 1000)
    elapsed = st1["now"] - st0["now"]
    allocs = st1["counts"][str(gc_alloc)] - st0["counts"].get(str(gc_alloc), 0)
    return {
        "rp2_idle_busy_fraction": round((st1["busy_ns"] - st0["busy_ns"]) / elapsed, 4),
        "rp2_idle_allocs_per_s": round(allocs / (elapsed / 1e9), 1),
        "rp2_poll_us_p50": round(statistics.median(durations), 1),
        "rp2_poll_us_max": round(max(durations), 1),
        "rp2_idle_polls_per_s": round(len(durations) / (elapsed / 1e9), 1),
    }


def play_turns(emu: Emulator, turns: int = 2) -> list[tuple[int, int]]:
    """Play *turns* turns by the tables on *emu* (autoplay), each passed on with Roll after
    its tiles are set open again; return each turn's span of emu.inputs (start, end)."""
    eng = autoplay.engine()
    spans = []
    for _ in range(turns):
        a = len(emu.inputs)
        autoplay.play_turn(emu, eng, gap_ms=150)
        spans.append((a, len(emu.inputs)))
        emu.run(ms=750)
        emu.set_open((1 << pins.TILES) - 1)
        emu.run(ms=100)
        n = len(emu.lines)
        emu.click(100)
        emu.wait_for(r'"ev": "(turn|winner)"', timeout_ms=3000, since=n)
        emu.run(ms=100)
    return spans


def _flip_to_led(emu: Emulator) -> dict:
    n_in = len(emu.inputs)
    play_turns(emu)  # two turns: every tile shut during them is a sample
    delays = []
    gpio_tile = {pins.TILE_PINS[k]: k for k in range(pins.TILES)}
    for t_ns, levels in emu.inputs[n_in:]:
        for g, level in levels.items():
            if g not in gpio_tile or level != pins.SWITCH_ACTIVE:
                continue
            k = gpio_tile[g]
            t = t_ns / 1e6
            before = emu.frame_at(t)
            for f in emu.frames_since(t):
                if before is None or f.tiles[k] != before.tiles[k]:
                    delays.append(f.ms - t)
                    break
    return {"rp2_flip_to_led_ms_p50": round(statistics.median(delays), 2),
            "rp2_flip_to_led_ms_max": round(max(delays), 2),
            "rp2_flip_to_led_samples": len(delays)}


_DECISION = """\
import time, array
from shutbox.engine import Engine, Rules, MAX_MOVES, LEVEL_HARD
_e = Engine(Rules(), hints=True)
_b = array.array('H', [0] * MAX_MOVES)
_pos = [(0x1ff, 4, 3), (0x1fe, 6, 5), (0x0f7, 2, 1), (0x1c3, 5, 5), (0x03d, 3, 2),
        (0x1ff, 6, 6), (0x0b5, 4, 1), (0x16e, 1, 2)]
def _t(fn, reps=25):
    t = time.ticks_us()
    for _ in range(reps):
        for o, a, b in _pos:
            fn(o, a, b)
    return time.ticks_diff(time.ticks_us(), t) * 10 // (reps * len(_pos))
def _lb(o, a, b):
    _e.legal_into(o, a, b, _b)
    _e.best_move(o, a, b)
def _hard(o, a, b):
    _e.computer_one_die(LEVEL_HARD, o, False, 0)
    _e.best_move(o, a, b)
_e.set_target(12)
def _hint(o, a, b):
    _e.best_move_target(o, a, b)
    _e.p_beat(o)
print('DECISION', _t(_lb), _t(_hard), _t(_hint))
"""


def _decision(emu: Emulator) -> dict:
    out = emu.repl(_DECISION, timeout_ms=60000)
    line = next(x for x in out.splitlines() if x.startswith("DECISION"))
    lb, hard, hint = (int(v) / 10 for v in line.split()[1:])
    return {"rp2_decision_us_legal_best": lb, "rp2_decision_us_hard": hard,
            "rp2_decision_us_beat_target": hint}


_PAYOUT_PLAY = """\
import time, gc, sys
from array import array
from shutbox.engine import Engine, Rules
sys.modules.pop('shutbox.payout', None)
gc.collect()
_c = gc.mem_alloc()
from shutbox.payout import best
from shutbox import payout as _po
gc.collect()
print('PAYOUTCODE', gc.mem_alloc() - _c)
def _hash(b):
    h = 0
    for i in b:
        h = (h * 31 + i) & 0xFFFFFF
    return h
_kept = _free = _used = _t = _r = _b = _got = 0  # the globals' dict at its size
_e = Engine(Rules(9, *%r))
gc.collect()
_w = gc.mem_alloc()
_po.load(_e)  # the working memory, as the box makes it at boot: the largest (locked) first
gc.collect()
print('PAYOUTBUF', gc.mem_alloc() - _w)
_e = None
for _k, _pay in %r:
    _e = Engine(Rules(9, *_k))
    _pay = array('i', _pay)
    gc.collect()
    _free = gc.mem_free()
    _used = gc.mem_alloc()
    _t = time.ticks_us()
    _r = best(_e, _pay)
    _b = time.ticks_diff(time.ticks_us(), _t)
    _got = gc.mem_alloc() - _used
    gc.collect()
    _kept = _free - gc.mem_free()
    print('PAYOUTPLAY', _b, _got, _kept, int(_r), _e.p_beat(_e.full), _hash(_e._hp))
    _e = None
    gc.collect()
"""


def _payout_play(emu: Emulator) -> dict:
    """shutbox.payout.best for seat 1 of 2 players (ties shared, shut-wins off: its vector
    from tablegen.match_vectors) on a one-layer variant (never/optional/sum) and the locked
    mode's two layers (high-shut/locked/sum), on the emulated clock (the box's t9.bin holds
    no vectors yet: the bench hands the payout over)."""
    from array import array

    from shutbox.engine import Engine, Rules
    from shutbox.payout import best
    from shutbox_host.solve import solver, tablegen

    runs = []
    want = []  # the hint buffer's hash as CPython fills it: the chip's machine code must too
    for key in ((0, 0, 0, 0), (1, 1, 0, 0)):
        rows = tablegen.match_vectors(solver.Variant(9, *key))[0][1]
        runs.append((key, rows[tablegen.vec_row(1, 1)]))
        e = Engine(Rules(9, *key))
        best(e, array("i", runs[-1][1]))
        h = 0
        for i in e._hp:
            h = (h * 31 + i) & 0xFFFFFF
        want.append(h)
    out = emu.repl(_PAYOUT_PLAY % (runs[-1][0], runs), timeout_ms=600000)
    got = [[int(v) for v in x.split()[1:]] for x in out.splitlines()
           if x.startswith("PAYOUTPLAY")]
    assert len(got) == 2 and all(r[3] == 1 for r in got), out
    if [r[5] for r in got] != want:
        raise EmulatorError("the chip's payout pass filled another hint buffer than CPython's")
    code = next(int(x.split()[1]) for x in out.splitlines() if x.startswith("PAYOUTCODE"))
    return {"rp2_payout_play_ms": round(got[0][0] / 1000),
            "rp2_payout_play_code_bytes": code,
            "rp2_payout_play_locked_ms": round(got[1][0] / 1000),
            "rp2_payout_play_alloc_bytes": max(r[1] for r in got),
            "rp2_payout_play_heap_bytes": max(r[2] for r in got),
            "rp2_payout_play_buf_bytes": next(int(x.split()[1]) for x in out.splitlines()
                                              if x.startswith("PAYOUTBUF")),
            "rp2_payout_play_p_beat": [r[4] for r in got]}


_LATER = """\
import time
from shutbox.engine import Engine, Rules
from shutbox.settings import Settings
from shutbox.target import target
class _G:
    pass
_g = _G()
_g.engine = Engine(Rules())
_g.settings = Settings()
_g.players, _g.played, _g.scores, _g.match = 4, 7, [3, 3, 3, 0], None
_t = time.ticks_us()
_g.engine.set_target(3)
_a = time.ticks_diff(time.ticks_us(), _t)
_t = time.ticks_us()
_r = target(_g)
_b = time.ticks_diff(time.ticks_us(), _t)
print('LATER', _a, _b, _r)
"""


def _later(emu: Emulator) -> dict:
    out = emu.repl(_LATER, timeout_ms=60000)
    line = next(x for x in out.splitlines() if x.startswith("LATER"))
    plain, patched, aimed = (int(v) for v in line.split()[1:])
    assert aimed == 3, line
    return {"rp2_set_target_ms": round(plain / 1000, 1),
            "rp2_later_patch_ms": round(patched / 1000, 1)}


_PROBE = """\
import gc, machine
_lo = [1 << 30]
def _probe(t):
    gc.collect()
    f = gc.mem_free()
    if f < _lo[0]:
        _lo[0] = f
_tm = machine.Timer(period=100, callback=_probe, hard=False)
import main
"""


def settings_file(**options) -> bytes:
    """The bytes of the settings file that saving Settings(**options) writes."""
    from shutbox import setfile
    from shutbox.settings import Settings
    from shutbox.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        setfile.save(Settings(**options), Store(tmp))
        return (Path(tmp) / setfile.NAME).read_bytes()


def play_to_winner(emu) -> dict:
    """Play the 1-player game against the hard computer (the all-features game's settings)
    on *emu*, at a turn's start, to its end: the player's turn played best (autoplay), the
    computer's, then Roll to the winner (or the roll-off); return that record, a second on."""
    autoplay.play_turn(emu, autoplay.engine())
    emu.run(ms=2500)  # the score, then the analysis count
    emu.set_open((1 << pins.TILES) - 1)  # the computer's turn starts on open tiles
    emu.run(ms=100)
    n = len(emu.lines)
    emu.click(100)
    emu.wait_for(r'"ev": "score".*"player": 2|"player": 2.*"ev": "score"',
                 timeout_ms=60000, since=n)
    emu.run(ms=1500)
    n = len(emu.lines)
    emu.click(100)
    win = emu.wait_for(r'"ev": "(winner|rolloff)"', timeout_ms=10000, since=n)
    emu.run(ms=1000)
    return win


def _heap(uf2, bootrom) -> dict:
    data = settings_file(players=1, computer=3, hints=2, stakes=1, tie=1)
    fs = fsimage.build(extra={"/data/settings": data})
    with Emulator(uf2, bootrom, fs=fs) as emu:
        emu.wait_for(_TURN, timeout_ms=5000)
        n = len(emu.lines)
        emu.repl(_PROBE, wait=False)
        emu.wait_for(r'"ev": "(turn|resume)"', timeout_ms=5000, since=n)
        emu.run(ms=100)
        win = play_to_winner(emu)
        out = emu.repl("_tm.deinit()\nprint('LO', _lo[0], gc.mem_free() + gc.mem_alloc())\n")
    lo, total = (int(v) for v in next(x for x in out.splitlines()
                                      if x.startswith("LO")).split()[1:])
    return {"rp2_heap_free_min_bytes": lo, "rp2_heap_bytes": total,
            "rp2_heap_game_end": win["ev"]}


def _flash_s(uf2, bootrom) -> dict:
    with Emulator(uf2, bootrom) as emu:
        bridge = emu_cli.Bridge(emu)
        port = bridge.start()
        shutbox = Path(sys.executable).with_name("shutbox")
        t0 = emu.now_ms
        st0 = emu.stats()
        try:
            p = subprocess.run([str(shutbox), "flash", "--port", port, "--firmware",
                                str(mp.FIRMWARE)], capture_output=True, text=True, timeout=600,
                               **mp.tied())
        finally:
            bridge.pause()
        if p.returncode != 0:
            raise EmulatorError("shutbox flash failed: %s" % (p.stderr or p.stdout)[-300:])
        st = emu.stats()
        board = (st["busy_ns"] - st0["busy_ns"] + st["stall_ns"] - st0["stall_ns"]) / 1e9
        return {"rp2_flash_s": round((emu.now_ms - t0) / 1000, 1),
                "rp2_flash_board_s": round(board, 1),
                "rp2_flash_erases": st["erases"] - st0["erases"],
                "rp2_flash_programs": st["programs"] - st0["programs"]}


def _bounced(uf2, bootrom, soak: bool) -> dict:
    with Emulator(uf2, bootrom, fs=fsimage.build()) as emu:
        emu.wait_for(_TURN, timeout_ms=5000)
        emu.run(ms=300)
        res = bounce.run(emu, seed=21, edges=20000 if soak else 2000)
    return res.figures()


AHEAD_NS = (400_000_000, 3_000_000)  # W25Q16JV datasheet maxima: 4 KB erase, 256-byte program


def flip_at(emu: Emulator, inputs, at_ns: int) -> float:
    """Replay *inputs* on *emu* (a box as the one that took them) up to *at_ns*, shut an open
    tile then: the ms to the LED frame that shows it (the emulator's clock)."""
    emu.replay_inputs(inputs, at_ns)
    before = emu.frame_at(at_ns / 1e6)
    k = next(k for k in range(1, pins.TILES + 1) if emu.open_mask() >> (k - 1) & 1)
    emu.shut(k)
    emu.run(ms=200)
    if emu.errors:
        raise EmulatorError("; ".join(emu.errors))
    shown = next(f for f in emu.frames_since(at_ns / 1e6)
                 if f.tiles[k - 1] != before.tiles[k - 1])
    return shown.ms - at_ns / 1e6


def _ahead(uf2, bootrom) -> dict:
    fs = fsimage.build(erased=False)  # as a flash through the board leaves it: erases ahead
    # from power-up, during play
    with Emulator(uf2, bootrom, fs=fs, flash_ns=AHEAD_NS) as emu:
        emu.wait_for(_TURN, timeout_ms=10000)
        emu.run(ms=300)
        st0 = emu.stats()
        n_in = len(emu.inputs)
        emu.irq_off(True)
        play_turns(emu)
        end = max(ms for ms, line in emu.lines if '"ev": "turn"' in line) * 1e6
        emu.run(ms=3000)
        spans = emu.irq_off(False)
        st1 = emu.stats()
        inputs, ops = list(emu.inputs), list(emu.flash_ops)
        out = emu.repl("import sys\nd = sys.modules['shutbox.ahead'].mounted\n"
                       "print('DEV', d.skipped, d.waited)\n")
        if emu.errors:
            raise EmulatorError("; ".join(emu.errors))
    skipped, waited = (int(x) for x in next(
        x for x in out.splitlines() if x.startswith("DEV")).split()[1:])
    slices = [(t1 - t0) / 1e6 for t0, t1, mark in spans if mark]
    other = [(t1 - t0) / 1e6 for t0, t1, mark in spans if not mark]
    # what a flip may land in: the game's erases ahead and its moves' saves, up to its last
    # turn (then the score and winner screens show no flip at once)
    ahead = [op for op in ops if op[2] and op[1] < end and op[1] - op[0] >= AHEAD_NS[0]]
    shuts = [t for t, lv in inputs[n_in:] if pins.ROLL_PIN not in lv and 0 in lv.values()]
    saves = [op for op in ops if not op[2] and op[1] < end
             and any(0 <= op[0] - t < 50e6 for t in shuts)]
    fig = {"rp2_ahead_erases_waited": waited, "rp2_ahead_erases_skipped": skipped,
           "rp2_ahead_erases": st1["erases_ahead"] - st0["erases_ahead"],
           "rp2_ahead_slices": len(slices),
           "rp2_ahead_irq_off_ms_p50": round(statistics.median(slices), 3) if slices else 0,
           "rp2_ahead_irq_off_ms_max": round(max(slices), 3) if slices else 0,
           "rp2_ahead_irq_off_other_ms_max": round(max(other), 3) if other else 0}
    if ahead:
        t0, t1 = ahead[-1][:2]
        with Emulator(uf2, bootrom, fs=fs, flash_ns=AHEAD_NS) as emu:
            fig["rp2_ahead_flip_in_erase_ms"] = round(flip_at(emu, inputs, (t0 + t1) // 2), 2)
    if saves:
        with Emulator(uf2, bootrom, fs=fs, flash_ns=AHEAD_NS) as emu:
            fig["rp2_ahead_flip_in_save_ms"] = round(
                flip_at(emu, inputs, saves[0][0] + 100_000), 2)
    return fig


def figures(soak=False, uf2=None, bootrom=None):
    """Measure the rp2_* figures; {} with a note when the emulator cannot run here."""
    from shutbox_host.pico import emulator

    why = emulator.missing()
    if why is not None:
        return {"rp2_skipped": why}
    out: dict = {}
    with Emulator(uf2, bootrom) as emu:
        emu.run(ms=300)
        emu.write(b"\r\n")
        emu.prompt(since=0)
        gc_alloc = find_gc_alloc(emu)
    out["rp2_gc_alloc_address"] = "0x%08x" % gc_alloc
    with Emulator(uf2, bootrom, fs=fsimage.build()) as emu:
        turn = emu.wait_for(_TURN, timeout_ms=5000)
        out["rp2_boot_to_play_ms"] = round(turn["_ms"], 1)
        emu.run(ms=idle.SETTLE_MS)  # past the power-up's own work (bench idle's settle)
        out.update(_idle(emu, gc_alloc))
        out.update(_flip_to_led(emu))
        out.update(_decision(emu))
        out.update(_payout_play(emu))
        out.update(_later(emu))
    out.update(_bounced(uf2, bootrom, soak))
    out.update(_heap(uf2, bootrom))
    out.update(_ahead(uf2, bootrom))
    out.update(_flash_s(uf2, bootrom))
    return out

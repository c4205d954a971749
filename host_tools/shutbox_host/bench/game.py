# `shutbox bench --only game`: the heap a whole 4-player game takes on the simulated box.
"""Memory of the game, measured under the MicroPython unix port (64-bit). Most of the heap is
the firmware's bytecode, its function objects and its interned names, which take about the
same room on the Pico's 32-bit port.

Method: a whole 4-player game (plan_game: seeded dice, optimal moves, one die where
it pays) runs through the simulated pins, the firmware loaded as the .mpy files that go onto
the Pico. After every LED write (several a second: the dice roll, tiles blink), sim/boxrun.py
runs ``gc.collect()`` and reads ``gc.mem_alloc()``; the largest reading is:

- game_peak_heap_bytes: everything live on the heap at the game's peak: the firmware's
  code and objects, plus the simulated board (fake machine/neopixel) and the harness;
- game_firmware_peak_heap_bytes: the same minus the base, what the simulated board (fake
  machine/neopixel: C modules that take no heap on the Pico) and the harness (boxrun) hold
  before the first firmware module is imported (boxrun prints it as BASE);
- game_min_heapsize_bytes: the smallest ``-X heapsize`` (bisected to 256 bytes) on which the
  whole game still completes: the peak plus fragmentation and the GC's own tables;
- game_polls, game_log_records: the size of the game measured;
- all_features_*: the same for a game with every feature on (ALL_FEATURES, booted through
  shutbox.powerup with the flash, guard and watchdog; see all_features()); all_features_names:
  the interned names (qstrs) at its end, the harness's included;
- match_beside_*: the firmware's peak, the interned names and the smallest room (-X heapsize,
  to 256 bytes, minus the harness's base: against FIRMWARE_ROOM) of the games where the
  match's play runs beside a tie rule's rounds, shutbox.turn's game or both, or where the box
  computes it (shutbox.payout: a variant without the pack's match blocks), each by game
  (MATCH_BESIDE: match_beside()).
- later_seats_firmware_peak_heap_bytes: the firmware's peak of one round for the win of 3
  and 4 players with the hard computer (the last seat) and best-move hints, where every
  later seat reads its match play's patch (later_seats()).
- long_game_peak_heap_bytes, long_game_firmware_peak_heap_bytes: the same for a whole long
  game for 2 (shutbox.long: long_game_script), booted from its settings file at the
  all-features cap (long_game()).
Soak mode adds nothing here (the long runs live in bench.reliability).
"""

from __future__ import annotations

from shutbox_host import mp
from shutbox_host.box import boxsim
from shutbox_host.box.plan import plan_game
from shutbox_host.model.script import ROLL_MS, Script

_PLAYERS = 4
_SEED = 1


def _game_script() -> Script:
    script, _ = plan_game(_PLAYERS, _SEED, "best")
    return script.heap()


def _completes(script: Script, heap: int) -> bool:
    r = boxsim.run(script, "--players", str(_PLAYERS), heapsize=str(heap))
    return r.returncode == 0 and bool(r.events("winner"))


def min_heapsize(script: Script, lo: int = 16 * 1024, hi: int = 512 * 1024) -> int:
    """Smallest -X heapsize (to 256 bytes) on which the game completes."""
    return mp.smallest_heap(lambda heap: _completes(script, heap), lo, hi, what="the game")


# ----- every feature on -----

# Settings of the all-features game: 2 people + the hard computer, best-move hints (the
# beat-target tables, the post-turn analysis), Canoga stakes (shutbox.rounds), with the
# box's flash (settings and records files, the game saved at every step), the guard and
# the watchdog, booted through shutbox.powerup as app.main does.
ALL_FEATURES = {"players": 2, "computer": 3, "hints": 2, "stakes": 1}
HUMAN_TURN = (((6, 6), (9, 3)), ((1, 1), (2,)), ((1, 1), ()))  # 12: 3 9, 2: 2, 2: none = 31
CPU_DICE = (4, 4, 6, 6, 5, 3, 2, 1, 1, 1, 1, 1, 1, 1)  # the computer's throws, in order


def all_features_script() -> Script:
    """The all-features game: two people's turns, the computer's, the end (records saved)."""
    s = Script().wait(300)
    for _seat in range(2):
        for dice, tiles in HUMAN_TURN:
            s.dice(*dice).click(120).wait(ROLL_MS)
            for k in tiles:
                s.shut(k).wait(80)
            s.wait(200)
        s.wait(1000).open(2, 3, 9).wait(100).click(120).wait(300)  # the next seat
    s.dice(*CPU_DICE).wait(40000)  # the computer's turn, at its own pace
    return s.click(120).wait(3000).heap()


# The games where the hard computer and the best hints play the match's move (shutbox.target,
# loaded by app.prelude) beside features it once did not fit with: a tie rule's rounds
# (roll-off, replay: the computer's seat 2 computed by shutbox.payout), shutbox.turn's game
# (real dice, the time limit, resigning) and both; and the variants without the pack's match
# blocks, whose seats' play shutbox.payout computes from the pack's vectors at each turn's
# start (loaded by app.prelude too, its working memory made there): one die never and
# count scoring (one layer), the locked mode (two layers); one person's turn, then the
# computer's (person_then_computer).
_TURN = {"players": 1, "computer": 3, "hints": 2, "real_dice": 1, "timeout": 2, "resign": 1}
MATCH_BESIDE = {"roll-off": {"players": 1, "computer": 3, "hints": 2, "tie": 1},
                "replay": {"players": 1, "computer": 3, "hints": 2, "tie": 2},
                "turn": _TURN, "turn-roll-off": {**_TURN, "tie": 1},
                "variant": {"players": 1, "computer": 3, "hints": 2, "one_die": 0, "scoring": 2},
                "locked": {"players": 1, "computer": 3, "hints": 2, "one_die_mode": 1}}


def person_then_computer(real: bool = False) -> Script:
    """A person's turn (the all-features game's; *real*: its throws entered on the tiles, as
    with real dice), Roll, then the computer's whole turn."""
    s = Script().wait(300)
    for dice, tiles in HUMAN_TURN:
        if real:
            for k in dice:  # a die entered: its tile flipped down and up
                s.flip(k).wait(80).flip(k).wait(80)
            s.click(120).wait(ROLL_MS + 100)
        else:
            s.dice(*dice).click(120).wait(ROLL_MS)
        for k in tiles:
            s.shut(k).wait(80)
        s.wait(200)
    s.wait(1000).open(2, 3, 9).wait(100).click(120).wait(300)
    return s.dice(*CPU_DICE).wait(40000)


def boot_run(flash, settings: dict | None, script: Script, heap: int | str,
             *args: str, source: bool = False) -> boxsim.Run:
    """Boot the box as the Pico does and run *script*: a fresh flash folder *flash* laid out
    as ``shutbox flash`` leaves it (boxsim.pico_flash; *source*: the .py fallback) holding
    the settings file the menu writes for *settings* (Settings attributes; None: no file),
    then ``boxrun --main``: the launcher, firmware/main.py, the power-up, app.main (the guard
    and its 8 s watchdog)."""
    import shutil
    from pathlib import Path

    from shutbox import setfile
    from shutbox.settings import Settings
    from shutbox.store import Store

    flash = Path(flash)
    shutil.rmtree(flash, ignore_errors=True)
    (flash / "data").mkdir(parents=True)
    if settings is not None and setfile.save(Settings(**settings), Store(str(flash / "data"))):
        raise RuntimeError("cannot write the settings in " + str(flash))
    with boxsim.pico_flash(flash, source=source) as pico:
        return boxsim.run(script, *pico, *args, heapsize=str(heap))


def trouble(r: boxsim.Run) -> list[str]:
    """What went wrong in a run booted with boot_run: faults, resets, a dark box (main.py
    failed outside the guard), a hang, an interpreter that died; [] for none."""
    out = ["fault %s: %s" % (e["error"], e["text"]) for e in r.events("fault")]
    out += [x for x in r.lines if x.startswith(("RESET", "HUNG", "DARK", "?"))]
    if r.returncode != 0:
        out.append("exit %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
    return out


def boot_base() -> int:
    """The heap boxrun --main holds before the first firmware module (its BASE): the
    simulated board, the harness and its stand-ins for the Pico's time and os."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="shutbox-base-") as d:
        r = boot_run(d, None, Script().wait(10), "1m", "--peak")
    return r.answer("BASE")[0]


# The firmware's room on the unix port, on top of the harness's base: the project's own guard
# against the heap growing, not the chip's limit (the emulated Pico has about 180 KB free at
# the least, docs/performance.md). The all-features game's live heap must stay within 64 KB
# (tests/firmware/test_memory.py: FIRMWARE_CAP). The room is 73 KB: the replay and the locked
# mode's games, whose match play the box computes (shutbox.payout: its code, and its pass's
# arrays made once at boot; the most of MATCH_BESIDE's games, match_beside_min_room_bytes),
# play on 70.5 KB (72,160 bytes) and restart after a fault at their five points on 73 KB:
# 2.5 KB of margin (it was 66 KB: 64 KB and 2 KB for the fragmentation of this 64-bit port,
# where the harness's blocks and names share the firmware's heap and qstr pool). A fixed
# room: taken to the next KB, the room moved by up to 1 KB with a few bytes of harness.
FIRMWARE_ROOM = 73 * 1024


def boot_cap(base: int | None = None) -> int:
    """-X heapsize that leaves the firmware its room booting as the Pico does: FIRMWARE_ROOM
    on top of the base (boot_base), as tests/firmware/test_memory.py counts."""
    base = boot_base() if base is None else base
    return base + FIRMWARE_ROOM


def all_features_run(flash: str, heap: str, *args: str) -> boxsim.Run:
    """The all-features game, booted as the Pico does from the settings file (boot_run)."""
    return boot_run(flash, ALL_FEATURES, all_features_script(), heap, *args)


def all_features_completes(flash: str, heap: int) -> bool:
    """The all-features game reaches its winner, untroubled, on a heap of *heap* bytes."""
    r = all_features_run(flash, str(heap))
    return bool(r.events("winner")) and not trouble(r)


# ----- the memory scenarios, booted as the Pico does (tests/firmware/test_memory.py) -----

HARD_BEST = {"computer": 3, "hints": 2}  # the hard computer (a third seat), best-move hints
RECOVERIES = 10  # fault points over the all-features game
_FAULT_MEMORY = 3  # simbus.FAULT_MEMORY: a MemoryError out of a pin read


def hard_best_run(flash, heap) -> boxsim.Run:
    """(a) Boot with the hard computer and best hints; the first player throws 6 6 and shuts
    9 and 3."""
    s = Script().wait(300).dice(6, 6).click(120).wait(ROLL_MS).shut(9, 3)
    return boot_run(flash, HARD_BEST, s.wait(300), heap)


def hard_best_starts(r: boxsim.Run) -> bool:
    return not trouble(r) and [e["shut"] for e in r.events("move")] == [[3, 9]]


def fault_points() -> list[int]:
    """RECOVERIES points spread over the all-features game's script: after one of its waits."""
    lines = all_features_script().lines
    waits = [i + 1 for i, x in enumerate(lines) if x.startswith("w ")]
    return [waits[(len(waits) - 1) * k // (RECOVERIES - 1)] for k in range(RECOVERIES)]


def recovery_run(flash, heap, at: int) -> boxsim.Run:
    """(c) The all-features game up to line *at* of its script, a MemoryError, then Roll (let
    go first: a press under way at the fault does not restart), then 2 s."""
    s = Script()
    s.lines = all_features_script().lines[:at]
    s.lines.append("x %d 0" % _FAULT_MEMORY)
    s.wait(500).release().wait(100).click(120).wait(2000)
    return boot_run(flash, ALL_FEATURES, s, heap)


def recovered(r: boxsim.Run) -> bool:
    """One fault (the injected one), then the box running again: the notice of a restart."""
    if trouble(r) != ["fault MemoryError: injected fault"]:
        return False
    after = r.log[r.log.index(r.events("fault")[0]) + 1:]
    return any(e["ev"] == "notice" and 4 in e["tiles"] for e in after)


def recoveries(heap: int) -> int:
    """How many of the RECOVERIES fault points the box recovers from on *heap*."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="shutbox-recover-") as d:
        return sum(recovered(recovery_run(d, heap, at)) for at in fault_points())


def py_fallback_run(flash, heap) -> boxsim.Run:
    """(d) Boot from the .py files (the flash's fallback when the board's bytecode version
    differs): compiling them needs far more heap than the bytecode; 12 s."""
    return boot_run(flash, None, Script().wait(12000), heap, source=True)


def shows_the_fault(r: boxsim.Run, flash) -> bool:
    """The fault pattern blinking on the LEDs, the MemoryError in /error.log, and a restart
    (a reset) 10 s later."""
    from pathlib import Path

    shown = [f for f in r.frames if f[2] == f[3] == "RR.R.RR"]
    log = Path(flash) / "error.log"
    resets = [x for x in r.lines if x.startswith("RESET ")]
    return (bool(shown) and {f[1][0] for f in shown} == {"R", "."} and log.exists()
            and "MemoryError" in log.read_text()
            and bool(resets) and 10000 <= int(resets[0].split()[2]) < 11000)


def never_dark(flash, heap) -> tuple[bool, list[str]]:
    """The all-features game on *heap*: whatever runs out (a MemoryError anywhere, in the
    guard or outside it), the box never ends dark, and a fault shows the fault pattern.
    Returns (held, trouble)."""
    r = all_features_run(str(flash), str(heap))
    t = trouble(r)
    shown = any(f[2] == f[3] == "RR.R.RR" for f in r.frames)
    return not any(x.startswith("DARK") for x in t) and (shown or not r.events("fault")), t


def scenarios() -> dict:
    """The smallest -X heapsize (to 256 bytes) for each scenario, booted as the Pico does:

    - hard_best_min_heapsize_bytes: (a) the hard computer and best hints start, a turn plays;
    - recovery_min_heapsize_bytes: (c) Roll recovers from a fault at each of the RECOVERIES
      points of the all-features game;
    - py_fallback_fault_min_heapsize_bytes: (d) the .py firmware, which cannot fit, shows the
      fault pattern, logs and restarts; py_fallback_plays_min_heapsize_bytes: the .py firmware
      starts and plays a turn (a Pico's heap is about 240 KB);
    - boot_harness_heap_bytes: boxrun --main's base (the firmware's heap is a -X heapsize
      minus it), boot_cap_heapsize_bytes: the cap of the tests (the base + FIRMWARE_ROOM).
    """
    import tempfile

    base = boot_base()
    cap = boot_cap(base)
    with tempfile.TemporaryDirectory(prefix="shutbox-scenario-") as d:
        hard = mp.smallest_heap(lambda h: hard_best_starts(hard_best_run(d, h)), 32 * 1024,
                                512 * 1024, what="the hard computer with best hints")
        rec = mp.smallest_heap(lambda h: recoveries(h) == RECOVERIES, hard - 8 * 1024,
                               cap + 16 * 1024, what="the recoveries")
        py = mp.smallest_heap(lambda h: shows_the_fault(py_fallback_run(d, h), d), base,
                              cap, what="the .py fallback's fault")
        plays = mp.smallest_heap(lambda h: py_fallback_plays(d, h), cap, 512 * 1024,
                                 what="the .py fallback")
    return {"hard_best_min_heapsize_bytes": hard, "recovery_min_heapsize_bytes": rec,
            "py_fallback_fault_min_heapsize_bytes": py,
            "py_fallback_plays_min_heapsize_bytes": plays, "boot_harness_heap_bytes": base,
            "boot_cap_heapsize_bytes": cap}


def py_fallback_plays(flash, heap) -> bool:
    """The .py firmware boots (default settings) and plays the first turn's throw."""
    s = Script().wait(300).dice(6, 6).click(120).wait(ROLL_MS).shut(9, 3)
    r = boot_run(flash, None, s.wait(300), heap, source=True)
    return not trouble(r) and [e["shut"] for e in r.events("move")] == [[3, 9]]


def _names(r: boxsim.Run) -> int:
    """The interned names (qstrs) a run's last ``i`` command counted: the firmware's and the
    harness's."""
    got = [x for x in r.lines if x.startswith("qstr pool:")]
    return int(got[-1].split("n_qstr=")[1].split(",")[0])


def beside_script(want: dict) -> Script:
    """The script of a game of MATCH_BESIDE: person_then_computer, the person's
    throws entered on the tiles with real dice."""
    return person_then_computer(bool(want.get("real_dice")))


def _least_room(flash, want: dict, base: int, name: str) -> int:
    """The smallest -X heapsize (to 256 bytes) on which the game of *want* plays both turns,
    booted as the Pico does, minus the harness's *base*."""
    s = beside_script(want)

    def plays(h: int) -> bool:
        r = boot_run(flash, want, s, h)
        return not trouble(r) and len(r.events("score")) == 2

    return mp.smallest_heap(plays, base + 32 * 1024, base + 128 * 1024, what=name) - base


def match_beside() -> dict:
    """Heap figures of the games of MATCH_BESIDE (beside_script, booted from their settings
    file at the cap, their peak sampled), as the all-features game's:
    match_beside_firmware_peak_heap_bytes, match_beside_names (the interned names at its
    end, the harness's included) and match_beside_min_room_bytes (the
    smallest heap it plays both turns on, minus the base: booting makes the game's largest
    block after the modules' code and the engine's tables, and shutbox.payout's pass needs
    its arrays in one piece each, so it needs kilobytes above the peak), each by game."""
    import shutil
    import tempfile

    peak, names, room = {}, {}, {}
    flash = tempfile.mkdtemp(prefix="shutbox-beside-")
    base = boot_base()
    try:
        for name, want in MATCH_BESIDE.items():
            s = beside_script(want)
            s.lines.append("i")
            r = boot_run(flash, want, s, boot_cap(base), "--peak")
            if trouble(r) or len(r.events("score")) != 2:
                raise RuntimeError("the %s game failed: %s" % (name, trouble(r)))
            peak[name] = r.answer("PEAK")[0] - r.answer("BASE")[0]
            names[name] = _names(r)
            room[name] = _least_room(flash, want, base, "the %s game" % name)
    finally:
        shutil.rmtree(flash, ignore_errors=True)
    return {"match_beside_firmware_peak_heap_bytes": peak, "match_beside_names": names,
            "match_beside_min_room_bytes": room}


def all_features(min_heap: bool = True) -> dict:
    """Heap figures of the all-features game (see ALL_FEATURES), measured as the game's:

    - all_features_peak_heap_bytes: everything live at the peak (firmware, simulated board,
      harness), sampled after every LED write;
    - all_features_firmware_peak_heap_bytes: the peak minus what the simulated board and the
      harness held before the first firmware module was imported (boxrun's BASE);
    - all_features_harness_heap_bytes: that BASE;
    - all_features_min_heapsize_bytes: the smallest -X heapsize (to 256 bytes) on which the
      whole game completes (with *min_heap*).
    """
    import tempfile

    flash = tempfile.mkdtemp(prefix="shutbox-allfeat-")
    try:
        script = all_features_script()
        script.lines.append("i")
        r = boot_run(flash, ALL_FEATURES, script, "1m", "--peak")
        if r.returncode != 0 or not r.events("winner"):
            raise RuntimeError("the all-features game failed: " + r.stderr.strip()[-300:])
        peak = r.answer("PEAK")[0]
        base = r.answer("BASE")[0]
        out = {
            "all_features_peak_heap_bytes": peak,
            "all_features_firmware_peak_heap_bytes": peak - base,
            "all_features_harness_heap_bytes": base,
            "all_features_log_records": len(r.log),
            "all_features_names": _names(r),
        }
        if min_heap:
            least = mp.smallest_heap(lambda heap: all_features_completes(flash, heap),
                                     32 * 1024, 512 * 1024, what="the all-features game")
            out["all_features_min_heapsize_bytes"] = least
            out["all_features_firmware_min_heap_bytes"] = least - base
        return out
    finally:
        import shutil

        shutil.rmtree(flash, ignore_errors=True)


def people_script(people: int) -> Script:
    """The all-features game's turn (HUMAN_TURN) for each of *people* seats, Roll after
    each."""
    s = Script().wait(300)
    for _seat in range(people):
        for dice, tiles in HUMAN_TURN:
            s.dice(*dice).click(120).wait(ROLL_MS)
            for k in tiles:
                s.shut(k).wait(80)
            s.wait(200)
        s.wait(1000).open(2, 3, 9).wait(100).click(120).wait(300)
    return s


def later_seats_script(people: int) -> Script:
    """The all-features game's turns for *people* seats, then the hard computer's."""
    s = people_script(people)
    s.dice(*CPU_DICE).wait(40000)
    return s.click(120).wait(3000).heap()


def later_seats() -> dict:
    """later_seats_firmware_peak_heap_bytes: {players: the firmware's peak}, booted as the
    Pico does, of one round for the win of 3 and 4 players, the last the hard computer, with
    best-move hints: every later seat reads its later-seat patch (shutbox.target); each game
    must also complete on the cap (boot_cap) untroubled."""
    import tempfile

    out = {}
    cap = boot_cap()
    for people in (2, 3):
        want = {"players": people, "computer": 3, "hints": 2}
        with tempfile.TemporaryDirectory(prefix="shutbox-later-") as d:
            r = boot_run(d + "/a", want, later_seats_script(people), "1m", "--peak")
            if not r.events("winner") or trouble(r):
                raise RuntimeError("the later seats' game failed: " + r.stderr.strip()[-300:])
            out[str(people + 1)] = r.answer("PEAK")[0] - r.answer("BASE")[0]
            r = boot_run(d + "/b", want, later_seats_script(people), cap)
            if not r.events("winner") or trouble(r):
                raise RuntimeError("the later seats' game fails on the cap")
    return {"later_seats_firmware_peak_heap_bytes": out}


# ----- the long game for 2 (shutbox.long) -----

# Player 1 shuts six tiles and is stopped; player 2 reopens the 9 and is stopped; player 1
# shuts the last four and wins. (dice, tiles) per throw, the tiles shut or (player 2) opened.
_LONG_TURNS = ((((6, 3), (9,)), ((5, 3), (8,)), ((3, 4), (7,)), ((5, 1), (6,)),
                ((2, 3), (5,)), ((3, 1), (4,)), ((6, 5), ())),
               (((4, 5), (9,)), ((1, 2), ())),
               (((6, 6), (9, 3)), ((1, 2), (1, 2))))


def long_game_script() -> Script:
    """A whole long game for 2 (_LONG_TURNS): the box passes twice."""
    s = Script().wait(300)
    for i, turn in enumerate(_LONG_TURNS):
        if i:
            s.wait(1000).click(120).wait(300)  # the box passes
        for dice, tiles in turn:
            s.dice(*dice).click(120).wait(ROLL_MS + 100)
            if tiles:
                (s.open if i == 1 else s.shut)(*tiles).wait(200)
    return s.wait(2000)


def long_game_run(flash) -> boxsim.Run:
    """The long game booted as the Pico does from its settings file, at the all-features
    cap (64 KB + the harness' base: boot_cap), its peak sampled."""
    return boot_run(flash, {"long": 1}, long_game_script(), boot_cap(), "--peak")


def long_game() -> dict:
    """Heap figures of the long game (shutbox.long, with shutbox.turn that makes it), as
    the all-features game's: long_game_firmware_peak_heap_bytes (the peak less the
    harness' base) and long_game_peak_heap_bytes."""
    import shutil
    import tempfile

    flash = tempfile.mkdtemp(prefix="shutbox-long-")
    try:
        r = long_game_run(flash)
        if trouble(r) or not r.events("winner"):
            raise RuntimeError("the long game failed: %s" % (trouble(r),))
        peak = r.answer("PEAK")[0]
        return {"long_game_peak_heap_bytes": peak,
                "long_game_firmware_peak_heap_bytes": peak - r.answer("BASE")[0]}
    finally:
        shutil.rmtree(flash, ignore_errors=True)


def figures(soak: bool = False) -> dict:
    """Return the game's heap figures (see the module docstring)."""
    script = _game_script()
    r = boxsim.run(script, "--players", str(_PLAYERS), "--peak", heapsize="1m")
    if r.returncode != 0 or not r.events("winner"):
        raise RuntimeError("the bench game failed: " + r.stderr.strip()[-300:])
    peak = r.answer("PEAK")[0]
    base = r.answer("BASE")[0]
    return {
        "game_peak_heap_bytes": peak,
        "game_firmware_peak_heap_bytes": peak - base,
        "game_harness_heap_bytes": base,
        "game_min_heapsize_bytes": min_heapsize(script),
        "game_log_records": len(r.log),
        "game_throws": len(r.events("throw")),
        **all_features(),
        **match_beside(),
        **later_seats(),
        **long_game(),
        **scenarios(),
    }

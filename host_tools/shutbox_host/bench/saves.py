# `shutbox bench --only saves`: tile flips and Roll presses that land while the box saves.
"""Inputs during saves, on the simulated board with its files on littlefs over a timed NOR flash.

The box (the real firmware, sim/boxrun.py under sim/norflash.py, booted through the power-up
as on the Pico: its settings' two players, its records) plays games: the dice seeded, the
moves the engine's best. Its files are on MicroPython's littlefs over a NOR
chip whose erases and programs keep the core busy for the W25Q16JV's times (``typ``: 45 ms a
4 KB sector erase, 0.4 ms a page program; ``max``, the datasheet's worst case: 400 ms, 3 ms;
cited figures). Two kinds of input land at random instants inside saves:

- a Roll press (the next throw) inside the save of the move just accepted: from its edge to
  the first LED frame whose dice differ from the frame before the edge (the dice rolling);
- a tile flip (an open tile that is in no legal move shut while the dice roll, then lifted)
  inside the save of the throw just made: from its edge to the first frame in which that
  tile's LED changed.

A game's end (Roll after the last turn: the records and the game saved) is timed too: how long
the step that takes that Roll keeps the core on the flash (``game_end_ms_max``) and the page
programs in it (``game_end_programs_max``).

The ``typ-ahead`` and ``max-ahead`` profiles are the same chip with littlefs on the
firmware's erase ahead (shutbox.ahead: littlefs's erases skipped on erased blocks, the blocks
it will erase next erased in the loop's sleeps, suspended at each pass), so that no save
erases. ``max-ahead-aged`` is ``max-ahead`` on an aged flash (sim/norflash.py's age():
littlefs mounted eight times, the firmware's files written over at each, files of the box's
sizes saved and an error log appended: stale data in every free block, the allocator round
the whole flash several times; the box's folder's pair three erases from littlefs moving
it), where littlefs allocates blocks that hold stale data; its figures add the flash's
``blocks``, the ``allocations`` littlefs made while it aged (at least) and ``wraps``, those
over the blocks: how many times at least its allocator went round the whole flash.

Where a save's erase falls is found by a first run with the inputs late (after every save);
the second run puts each input at a random instant inside its save's busy span (inside the
erase when that save erases; inside an erase ahead when one is under way within 400 ms of
its trigger), then every sample is classed by the flash operations that run actually
logged: ``erase`` (a save was under way at its edge, or began within 2 ms after it, with an
erase still to do), ``program`` (a save without one), ``background`` (no save in its way, an
erase ahead under way), ``after`` (neither). Figures (``saves_<profile>_...``, the profile's
dash an underscore): the latency p50/max and samples per class, the flash bursts (a step's
saves, back to back), erases (``held_erases``: those the core waited for, in saves;
``erases_ahead``) and programs per burst, erases per turn (both kinds: the flash's wear), the
longest burst (ms), the game end's step (ms, programs), and ``beyond_flash_ms_max``: the most
an input during a save waited beyond what the flash had left to do when it came (the box's
own part of the wait).
"""

from __future__ import annotations

import random
import statistics

from shutbox import pins
from shutbox_host.box import boxsim
from shutbox_host.model.script import Script

PROFILES = ("typ", "max", "typ-ahead", "max-ahead", "max-ahead-aged")
PROFILES_US = {"typ": (45_000, 400), "max": (400_000, 3_000)}  # sim/norflash.py: erase, program
CLASSES = ("erase", "program", "background", "after")
_ALL = list(range(1, pins.TILES + 1))
_PLAYERS = 2  # the settings' default: the box boots as the Pico does (--powerup), records on
_ON = pins.SWITCH_ACTIVE
# the first run's inputs, from their trigger: Roll after any save of the move (two 400 ms
# erases and their programs), a tile while the dice roll (where it changes no save)
_LATE_US = {"roll": 900_000, "tile": 250_000}
_STEP_US = 2_000  # an edge this close before a save's first operation waits for it too
_AFTER_US = 3_500  # an input's earliest offset from its trigger (see measure)
_AHEAD_US = 400_000  # an input's latest offset from its trigger inside an erase ahead
_HOLD_US = 60_000  # an input is held at least this long after its save's busy span ends
_LAND_MS = 1300  # from a throw to its move: the dice land (600 ms after the save) and a margin


def _engine():
    from shutbox.engine import Engine, Rules

    return Engine(Rules(tiles=pins.TILES))


def script(seed: int, games: int, place) -> tuple[Script, list]:
    """Return the games' script and its inputs: (kind, trigger G index, probe G index), the
    indexes counting the G lines (scheduled edges) in order. *place(i, kind)* gives input
    i's offset from its trigger and how long it is held (µs)."""
    from shutbox.engine import MAX_MOVES

    rng = random.Random(seed)
    eng = _engine()
    buf = [0] * MAX_MOVES
    s = Script()
    g = 0  # G lines so far
    inputs: list = []
    roll = pins.ROLL_PIN

    def edges(gpio, pairs):
        nonlocal g
        s.lines.append("E %d %s" % (gpio, " ".join("%d %d" % p for p in pairs)))
        g += len(pairs)
        return g - len(pairs)

    for game in range(games):
        for player in range(_PLAYERS):
            # the first throw waits for the boot's first save (the game's file created on a
            # new flash, its folder's first erase: a press inside it would be lost)
            s.open(*_ALL).wait(300 if game or player else 1000)
            open_ = eng.start_open
            trigger = -1  # the G line of the last shut tile (the move's save follows it)
            while True:
                a, b = rng.randint(1, 6), rng.randint(1, 6)
                s.dice(a, b)
                if trigger < 0:
                    r = 120_000  # the release (the throw), µs from now
                    up = edges(roll, [(0, _ON), (r, 1 - _ON)]) + 1
                else:  # the next throw, pressed inside the move's save
                    u, hold = place(len(inputs), "roll")
                    r = u + max(hold, 120_000)
                    first = edges(roll, [(u, _ON), (r, 1 - _ON)])
                    inputs.append(("roll", trigger, first))
                    up = first + 1
                end = r
                n = eng.legal_into(open_, a, b, buf)
                used = 0
                for i in range(n):
                    used |= buf[i]
                spare = [k for k in _ALL if (open_ & ~used) >> (k - 1) & 1]
                if spare:  # an open tile in no move shut inside the throw's save, then lifted
                    k = rng.choice(spare)
                    u, hold = place(len(inputs), "tile")
                    flip = edges(pins.TILE_PINS[k - 1], [(r + u, _ON), (r + u + hold, 1 - _ON)])
                    inputs.append(("tile", up, flip))
                    end = r + u + hold
                s.wait(max(r // 1000 + _LAND_MS, end // 1000 + 100))
                if n == 0:
                    break
                move = eng.best_move(open_, a, b, False)
                tiles = [k for k in _ALL if move >> (k - 1) & 1]
                for k in sorted(tiles, reverse=True):
                    s.shut(k).wait(80)
                open_ &= ~move
                if open_ == 0:
                    break
                s.lines.pop()  # the last shut's wait: the marker comes at the shut's instant
                s.ms -= 80
                last = pins.TILE_PINS[min(tiles) - 1]
                trigger = edges(last, [(0, _ON)])  # no change: its instant only
            # the turn ends; Roll passes the box on, or after the last turn ends the game
            # (the records and the game saved); a long press starts the next game
            s.wait(2000)
            up = edges(roll, [(0, _ON), (120_000, 1 - _ON)]) + 1
            if player == _PLAYERS - 1:
                inputs.append(("end", up, -1))  # its save: the longest step of a game
            s.wait(2000)
        s.hold(900).wait(1000)
    s.lines.append("q")
    return s, inputs


def _parse(lines: list[str]):
    """Return the run's G edges [(µs, gpio, level)], frames [(µs, bytes)], flash
    operations that held the core [(start µs, µs, erase)] and erases ahead [(start µs, end
    µs)] (the loop's sleeps in between)."""
    gs, frames, ops, ahead = [], [], [], []
    for line in lines:
        w = line.split()
        if w[0] == "G":
            gs.append((int(w[1]) * 1000 + int(w[2]), int(w[3]), int(w[4])))
        elif w[0] == "L":
            frames.append((int(w[1]) * 1000 + int(w[2]), bytes.fromhex(w[3])))
        elif w[0] == "W":
            ops.append((int(w[1]) * 1000 + int(w[2]), int(w[3]), bool(int(w[4]))))
        elif w[0] == "A":
            t = int(w[1]) * 1000 + int(w[2])
            if w[4] == "0":
                ahead.append([t, None])
            else:
                ahead[-1][1] = t
    return gs, frames, ops, [tuple(a) for a in ahead if a[1] is not None]


def _bursts(ops):
    """Group back-to-back flash operations (one step's saves): [(start, end, [ops])]."""
    out: list = []
    for op in ops:
        if out and op[0] - out[-1][1] < 1000:
            out[-1][1] = op[0] + op[1]
            out[-1][2].append(op)
        else:
            out.append([op[0], op[0] + op[1], [op]])
    return out


def _run(s: Script, profile: str):
    r = boxsim.run(s, "--flash", "/nor", "--powerup", "--quiet", heapsize="4m",
                   nor=profile, timeout=1800)
    if r.returncode != 0:
        raise RuntimeError("the simulated box failed: %s" % r.stderr.strip()[-500:])
    return r, _parse(r.lines)


def _aged(lines: list[str]) -> dict | None:
    """The aged flash's N and M lines (sim/norflash.py): its blocks, the blocks littlefs
    allocated while it aged (at least), those free at its end, its box's folder's pair's
    erases left before littlefs moves it; the pairs' halves it allocated while the box
    played (``moved``)."""
    out = None
    for line in lines:
        w = line.split()
        if w[0] == "N":
            keys = ("blocks", "allocations", "free", "before")
            out = dict(zip(keys, map(int, w[1:5]), strict=True))
        elif w[0] == "M" and out is not None:
            out["moved"] = int(w[1])
    return out


def measure(profile: str, seed: int = 1, games: int = 12) -> dict:
    """Run the two passes on *profile*; return the samples and the flash's counts."""
    def place_late(i, kind):
        return _LATE_US[kind], 100_000

    s, inputs = script(seed, games, place_late)
    _, (gs, _, ops, ahead) = _run(s, profile)
    bursts = _bursts(ops)
    rng = random.Random(seed + 1000)
    where = {}  # input -> (offset from its trigger, hold) inside its save
    for i, (_kind, trig, probe) in enumerate(inputs):
        if probe < 0:
            continue
        t = gs[trig][0]
        b = next((b for b in bursts if b[0] >= t), None)
        if b is None or b[0] - t > 50_000:
            continue
        erases = [op for op in b[2] if op[2]]
        # an erase ahead under way within 400 ms of the trigger (the one its save's
        # compaction left, or another still going): the input lands inside it
        a = next((a for a in ahead if a[1] > t + _AFTER_US and a[0] < t + _AHEAD_US), None)
        if a is not None:
            lo = max(a[0], t + _AFTER_US)
            u = lo - t + rng.randrange(min(a[1], t + _AHEAD_US) - lo)
        elif erases:
            op = rng.choice(erases)
            u = op[0] - t + rng.randrange(op[1])
        else:
            u = b[0] - t + rng.randrange(b[1] - b[0])
        # never before the step that takes the trigger (at most 3 ms after it: the loop's
        # 2 ms poll and the debouncer's 1 ms settle): a tile shut before the throw is a
        # mistake the box refuses the throw for, not an input during a save
        u = max(u, _AFTER_US)
        where[i] = (u, max(100_000, max(b[1], a[1] if a else 0) - t - u + _HOLD_US))

    def place(i, kind):
        return where.get(i, (_LATE_US[kind], 100_000))

    s2, inputs2 = script(seed, games, place)
    r, (gs, frames, ops, ahead) = _run(s2, profile)
    bursts = _bursts(ops)
    samples = []
    ends = []  # the game ends' steps: (ms busy with the flash, page programs)
    for kind, trig, probe in inputs2:
        if probe < 0:
            t = gs[trig][0]
            b = next((b for b in bursts if b[0] >= t), None)
            if b is not None and b[0] - t < 50_000:
                ends.append(((b[1] - b[0]) / 1000, sum(1 for op in b[2] if not op[2])))
            continue
        t = gs[probe][0]
        before = None
        for f in frames:
            if f[0] > t:
                break
            before = f[1]
        k = None
        if kind != "roll":
            k = pins.TILE_PINS.index(gs[probe][1])
        answer = None
        for f in frames:
            if f[0] <= t or before is None:
                continue
            if (f[1][3 * k:3 * k + 3] != before[3 * k:3 * k + 3] if k is not None
                    else f[1][3 * pins.TILES:] != before[3 * pins.TILES:]):
                answer = f[0]
                break
        # the save in its way: a burst under way at its edge, or starting within the step
        # that had read the pins just before it (the step's frame comes first: 2 ms)
        cls = "after"
        wait = 0
        for b in bursts:
            if b[0] - _STEP_US <= t < b[1]:
                cls = "erase" if any(op[2] and op[0] + op[1] > t for op in b[2]) else \
                    "program"
                wait = b[1] - max(t, b[0])  # what the flash had left to do
                break
        else:
            if any(a[0] <= t < a[1] for a in ahead):
                cls = "background"  # an erase ahead under way: it holds nothing
        samples.append((kind, cls, None if answer is None else (answer - t) / 1000,
                        wait / 1000))
    turns = sum(1 for rec in r.log if rec.get("ev") == "turn")
    held = sum(1 for op in ops if op[2])  # erases the core waited for
    return {"samples": samples, "erases": held + len(ahead), "held_erases": held,
            "aged": _aged(r.lines),
            "ahead_erases": len(ahead), "ends": ends,
            "programs": sum(1 for op in ops if not op[2]),
            "bursts": len(bursts), "turns": turns,
            "longest_burst_ms": max((b[1] - b[0]) / 1000 for b in bursts),
            "calibrated": len(where), "inputs": len(inputs2)}


def summary(profile: str, m: dict) -> dict:
    """The figures of one profile's measure()."""
    p = "saves_%s_" % profile.replace("-", "_")
    out = {p + "erases_per_burst": round(m["erases"] / m["bursts"], 3),
           p + "held_erases": m["held_erases"], p + "erases_ahead": m["ahead_erases"],
           p + "erases_per_turn": round(m["erases"] / max(1, m["turns"]), 2),
           p + "longest_burst_ms": round(m["longest_burst_ms"], 1),
           p + "bursts": m["bursts"], p + "turns": m["turns"],
           p + "game_end_ms_max": round(max(ms for ms, _ in m["ends"]), 1),
           p + "game_end_programs_max": max(n for _, n in m["ends"]),
           p + "programs_per_burst": round(m["programs"] / m["bursts"], 2)}
    if m.get("aged"):  # how aged the flash was
        a = m["aged"]
        out[p + "blocks"] = a["blocks"]
        out[p + "allocations"] = a["allocations"]
        out[p + "wraps"] = round(a["allocations"] / a["blocks"], 1)
        out[p + "moved"] = a.get("moved", 0)
    for cls in CLASSES:
        got = [ms for _, c, ms, _ in m["samples"] if c == cls]
        shown = [ms for ms in got if ms is not None]
        out[p + cls + "_samples"] = len(got)
        out[p + cls + "_unanswered"] = len(got) - len(shown)
        if shown:
            out[p + cls + "_latency_ms_p50"] = round(statistics.median(shown), 2)
            out[p + cls + "_latency_ms_max"] = round(max(shown), 2)
    # beyond the flash's own time: what the box added to the wait the save imposed
    over = [ms - w for _, c, ms, w in m["samples"] if c in ("erase", "program")
            and ms is not None]
    if over:
        out[p + "beyond_flash_ms_max"] = round(max(over), 2)
    return out


def figures(soak: bool = False) -> dict:
    """The saves_* figures of the flash profiles: 12 games each, 40 with *soak*."""
    out: dict = {}
    for profile in PROFILES:
        out.update(summary(profile, measure(profile, games=40 if soak else 12)))
    return out

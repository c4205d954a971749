# Bench: the Pico W with its companion, on the emulated RP2040 (its real MicroPython, no radio).
"""figures(soak) -> the picow_* figures: MicroPython v1.28's RPI_PICO_W build on rp2040js
(shutbox_host.pico.emulator, ``board="RPI_PICO_W"``), its flash laid out as `shutbox flash`
leaves a Pico W (the firmware and the companion: shutbox_host.pico.fsimage). rp2040js has no
CYW43: the radio never starts, so these are the heap and flash of the box and the companion's
code without the radio's own (lwIP's pools, the CYW43 driver's buffers: docs/companion.md
gives them from MicroPython's sources, cited). The heap is MicroPython's GC heap on the
32-bit chip, read with gc.mem_free() after gc.collect().

- picow_boot_to_play_ms: power-up to the first turn's ``turn`` record (the radio's failed
  first start included).
- picow_heap_bytes: the GC heap (free + allocated) on the Pico W build;
  picow_heap_free_repl_bytes: free at its REPL, nothing loaded.
- picow_companion_import_bytes: the heap ``import companion.web, companion.live`` holds at a
  fresh REPL (microdot's four modules, asyncio, the companion's two); of which
  picow_microdot_import_bytes is ``import microdot, microdot.sse`` alone (asyncio with it);
  picow_wifi_import_bytes: ``import companion.wifi`` alone (the networking, loaded once the
  radio runs: asyncio, socket and select with it); picow_names_import_bytes: ``import
  companion.names`` alone (the seats' names and their records, loaded when a phone shows the
  game or at a game's end once a seat has been named).
- picow_heap_free_min_bytes: the least gc.mem_free() after a gc.collect() every 100 ms (a
  machine.Timer probe started by a boot.py, itself a few KB) over an all-features game (1
  player and the hard computer, best-move hints, Canoga stakes, ties by roll-off) with the
  companion on and its seat named (the players' names: companion.names counts the game at
  its end and saves); picow_heap_live_max_bytes = picow_heap_bytes - that. The probe also
  asks for the throw's moves ranked (companion.moves, as a phone's page does at each throw)
  before each reading: picow_moves_ranked probes had a ranking; picow_moves_held_bytes is
  what the ranking keeps between requests (its chance-to-shut buffer), freed at the end.
- picow_inputs_{alone,page,polled,paced}_*: the box's input latency on the emulated clock
  in a 2-player game played by autoplay (shutbox_host.pico.autoplay), each tile shut to the
  start of the first frame showing it (or the shut-the-box show, for the last tile) and each
  Roll press of a turn to the first frame of rolling dice (p50, worst, how many over the
  box's 10 ms, samples, lost: never shown; over_10_in_gc: of those over 10 ms, the ones
  during which a collection of the heap held the core); the box's loop over the whole run
  (companion.live: late_ms_max, its worst lateness past a wake-up, the longest the core was
  held from it; late_over_2_ms, its passes late by 3 ms or more, of its passes); the
  collections of the heap during the game (a hook on MicroPython's gc_collect, found by
  find_gc_collect: collections, gc_ms_p50 and gc_ms_max, what each held the core for, and
  gc_share_pct, the share of the game's time the core spent in them: the chance that a
  press lands in one; gc_mark_ms_p50, the mark's part, up to gc_collect_end; gc_end_ms_min
  and _max, the rest: the sweep, after a rescan of the whole heap when the mark's stack
  overflowed): alone; with a phone's page open (its event stream, ``page``); with
  four phones asking ``/api/state`` again as soon as they are answered (``polled``: each
  address held to the server's rate, limited counts the 429s) or at the rate (``paced``:
  one request every 50 ms from the four in turn, each answered). No radio: the phones are a
  task in the chip handing the server requests on streams that never wait (PHONE), so a
  whole request runs in one slice of the box's loop, where a socket's waits would cut it in
  a few: a bound on what the requests cost the box's inputs, not the radio's own cost.
  And the worst instant (polled and paced: in_gc_flip_ms_min/max of in_gc_flip_samples):
  tile 1 flipped exactly as a collection starts (the pin driven from the hook), to the
  first frame showing it; in_gc_gc_ms_max, the longest of those collections; and the same
  polled with the page's log full (picow_inputs_polled_full_log_in_gc_*: its 8 KB, as after
  a long game, marked and swept too; the others measure at the first turn). A Roll press
  at a turn's start landing as a collection starts, polled (roll_in_collection: one press a
  boot, its release throws): picow_inputs_polled_in_gc_roll_* with the log nearly empty,
  picow_inputs_polled_full_log_in_gc_roll_* with it full (ms_min/max to the first frame of
  rolling dice, gc_ms_max, samples).
- picow_flash_blocks_used: 4 KB littlefs blocks in use on the Pico W's filesystem after the
  boot (os.statvfs on the chip) of picow_fs_blocks; picow_companion_blocks: the blocks the
  companion's files take (the release with it less the release without, as `shutbox flash`
  counts them).
"""

from __future__ import annotations

TURN = r'"ev": "turn"'
_PROBE = """\
import gc, machine, sys
_lo = [1 << 30]
_asked = [0]
def _probe(t):
    c = sys.modules.get("companion.picow")
    if c is not None and c.live is not None and c.live.guard is not None:
        from companion import moves
        if moves.answer(c.live)[0].get("moves"):
            _asked[0] += 1
    gc.collect()
    f = gc.mem_free()
    if f < _lo[0]:
        _lo[0] = f
_tm = machine.Timer(period=100, callback=_probe, hard=False)
"""
_IMPORT = """\
import gc, sys
sys.path.insert(0, %r)
gc.collect()
a = gc.mem_free()
import %s
gc.collect()
print("COST", a - gc.mem_free(), gc.mem_free() + gc.mem_alloc(), a)
"""


_CODE = """\
import gc, machine
def _hw(f):
    print('HW', f, ' '.join('%04x' % machine.mem16[f + 2 * i] for i in range(24)))
_hw(machine.mem32[id(gc.collect) + 4] & ~1)
"""


def _bl(at: int, h1: int, h2: int) -> int:
    """The target of the Thumb BL whose halfwords *h1*, *h2* are at *at* (ARMv6-M: T1)."""
    s = h1 >> 10 & 1
    i1 = 1 - (h2 >> 13 & 1 ^ s)
    i2 = 1 - (h2 >> 11 & 1 ^ s)
    off = s << 24 | i1 << 23 | i2 << 22 | (h1 & 0x3FF) << 12 | (h2 & 0x7FF) << 1
    return at + 4 + off - (s << 25)


def _bls(line: str) -> list[int]:
    """The BL targets in an ``HW addr halfwords...`` line, in order."""
    f, *hw = line.split()[1:]
    at, words = int(f), [int(x, 16) for x in hw]
    return [_bl(at + 2 * k, words[k], words[k + 1]) for k in range(len(words) - 1)
            if words[k] >> 11 == 0x1E and words[k + 1] >> 14 == 3 and words[k + 1] >> 12 & 1]


def find_gc_collect(emu) -> tuple[int, int]:
    """Return the addresses of MicroPython's gc_collect and of gc_collect_end (its sweep) in
    the running build (at its REPL prompt): gc.collect's C function (a builtin object's
    second word) calls gc_collect first, and the rp2 port's gc_collect calls
    gc_collect_start, the stack's scan and gc_collect_end, in that order (ports/rp2/main.c)."""
    from shutbox_host.pico.emulator import EmulatorError

    out = emu.exec(_CODE)
    first = _bls(next(x for x in out.splitlines() if x.startswith("HW")))
    if not first:
        raise EmulatorError("gc_collect not found: gc.collect calls nothing")
    out = emu.exec("_hw(%d)\n" % first[0])
    inner = _bls(next(x for x in out.splitlines() if x.startswith("HW")))
    if len(inner) < 3:
        raise EmulatorError("gc_collect_end not found: gc_collect calls %s" % inner)
    return first[0], inner[2]


def _import_cost(uf2, tree: dict, version: str, modules: str) -> tuple[int, int, int]:
    """Boot a Pico W holding *tree* but no launcher (its REPL), import *modules* from the
    version folder; return (bytes they hold, the heap, free before)."""
    from shutbox_host.pico import fsimage
    from shutbox_host.pico.emulator import Emulator

    tree = {p: d for p, d in tree.items() if p != "/main.py"}
    fs = fsimage.image_of(tree, fsimage.boards.BY_NAME["RPI_PICO_W"].fs_blocks)
    with Emulator(uf2=uf2, fs=fs, board="RPI_PICO_W") as emu:
        emu.run(ms=300)
        emu.write(b"\r\n")
        emu.prompt(since=0)
        out = emu.exec(_IMPORT % ("/.shutbox/" + version, modules))
    cost, heap, free = (int(v) for v in next(
        x for x in out.splitlines() if x.startswith("COST")).split()[1:])
    return cost, heap, free


def _game(uf2) -> dict:
    """The all-features game with the companion on, the heap probed (rp2's, from boot.py)."""
    from shutbox_host.bench.rp2 import play_to_winner, settings_file
    from shutbox_host.pico import fsimage
    from shutbox_host.pico.companion import names_file
    from shutbox_host.pico.emulator import Emulator

    data = settings_file(players=1, computer=3, hints=2, stakes=1, tie=1)
    fs = fsimage.build(board="RPI_PICO_W", extra={"/data/settings": data,
                                                  "/data/names": names_file(["ann"]),
                                                  "/boot.py": _PROBE.encode()})
    with Emulator(uf2=uf2, fs=fs, board="RPI_PICO_W") as emu:
        turn = emu.wait_for(TURN, timeout_ms=8000)
        emu.run(ms=300)
        win = play_to_winner(emu)
        said = emu.events("companion")
        faults = emu.events("fault")
        out = emu.repl("_tm.deinit()\nimport os, sys\nst = os.statvfs('/')\n"
                       "from companion import picow\nn = picow.live.names\n"
                       "print('LO', _lo[0], gc.mem_free() + gc.mem_alloc(), st[2] - st[3], "
                       "st[2], int('companion.web' in sys.modules), _asked[0], "
                       "n.entry(n.find('ann'))[0] if n else -1)\n"
                       "from companion import moves\ngc.collect()\n_a = gc.mem_free()\n"
                       "moves._kept[0] = moves._kept[1] = None\ngc.collect()\n"
                       "print('MV', gc.mem_free() - _a)\n")
    lo, total, used, blocks, served, asked, named = (int(v) for v in next(
        x for x in out.splitlines() if x.startswith("LO")).split()[1:])
    if win["ev"] == "winner" and named != 1:
        raise AssertionError("the names' records did not count the game: %d" % named)
    if faults or not served or [s for s in said if s.get("error") != "radio"]:
        raise AssertionError("the Pico W's companion did not run as it should: %s %s"
                             % (said, faults))
    if not asked:
        raise AssertionError("the probe never had the throw's moves ranked")
    held = int(next(x for x in out.splitlines() if x.startswith("MV")).split()[1])
    return {"picow_boot_to_play_ms": round(turn["_ms"], 1), "picow_heap_free_min_bytes": lo,
            "picow_heap_bytes": total, "picow_heap_live_max_bytes": total - lo,
            "picow_heap_game_end": win["ev"], "picow_flash_blocks_used": used,
            "picow_fs_blocks": blocks, "picow_moves_ranked": asked,
            "picow_moves_held_bytes": held}


# Four phones inside the chip (the emulator has no radio): boot.py wraps
# companion.picow.prepare so that the box's loop beside the server (companion.live's
# Live.box, run by companion.web.run, which the box imports after the game's modules as it
# does without these phones: the heap's layout, on which a collection's sweep depends, is a
# box's) also starts a task that hands the server one request after another, from four
# addresses in turn (each held to the server's rate: the rest get 429), on streams that
# never wait (the whole request in one slice: a real socket's waits cut it up), with a pause
# of the second % between two (0: none; 50: each address asks at the rate, 5 a second)
PHONE = r"""
import sys
with open('/.shutbox/current') as _f:
    sys.path.insert(0, '/.shutbox/' + _f.read().strip())
from companion import picow as _pw
_served = [0, 0, 0]
class _R:
    def __init__(self, d):
        self.d = d
    async def read(self, n=-1):
        d = self.d[:n] if n >= 0 else self.d
        self.d = self.d[len(d):]
        return d
class _W:
    def __init__(self, k):
        self.k = k
    async def awrite(self, b):
        _served[1] += len(b)
        if b.startswith(b'HTTP/1.0 429'):
            _served[2] += 1
    async def aclose(self):
        pass
    def get_extra_info(self, what):
        return ('192.168.4.%%d' %% (2 + self.k %% 4), 1234)
async def _phone(live):
    import asyncio
    while live.server is None:
        await asyncio.sleep_ms(10)
    while True:
        await live.server.handle_request(_R(b'GET %s HTTP/1.0\r\nHost: box\r\n\r\n'),
                                         _W(_served[0]))
        _served[0] += 1
        await asyncio.sleep_ms(%d)
_prep = _pw.prepare
def _prepare(board, make, settings, supply, wdt=None):
    made, run = _prep(board, make, settings, supply, wdt)
    live = _pw.live
    if run is not None:
        box = live.box
        async def _box(guard):
            import asyncio
            asyncio.create_task(_phone(live))
            await box(guard)
        live.box = _box
    return made, run
_pw.prepare = _prepare
"""
_IN_GC = 12  # flips landed at the start of a collection (polled and paced)


def gc_addrs(uf2) -> tuple[int, int]:
    """gc_collect's and gc_collect_end's addresses in *uf2*'s MicroPython (find_gc_collect
    at the REPL of a Pico W with an empty flash); kept per uf2."""
    from shutbox_host.pico.emulator import Emulator

    key = str(uf2)
    if key not in _GC_AT:
        with Emulator(uf2=uf2, board="RPI_PICO_W") as emu:
            emu.run(ms=300)
            emu.write(b"\r\n")
            emu.prompt(since=0)
            _GC_AT[key] = find_gc_collect(emu)
    return _GC_AT[key]


_GC_AT: dict = {}


def _in_collection(emu, levels: dict) -> int:
    """Set the pins to *levels* as the next collection of the heap starts (the emulator's
    hook), run 80 ms on; return that instant (ns). AssertionError if none came in 5 s."""
    emu.gc_arm(levels)
    end = emu.now_ms + 5000
    while (at := emu.gc_armed()) is None:
        if emu.now_ms > end:
            raise AssertionError("no collection of the heap in 5 s of polling")
        emu.run(ms=5)
    emu.run(ms=80)
    return at


def in_collection(emu, gc_at, n: int) -> list[tuple[float | None, float]]:
    """Before a turn's first throw, tile 1 flipped *n* times (down, up ...: the box shows
    it at once), each flip landing exactly as a collection of the heap starts (the emulator
    drives the pin at gc_collect's entry, *gc_at*: find_gc_collect); for each, the ms from
    it to the first frame showing it (None: none within 80 ms) and the ms that collection
    held the core."""
    from shutbox import pins

    t1 = pins.TILE_PINS[0]
    out = []
    emu.gc_watch(True, *gc_at)
    for i in range(n):
        down = i % 2 == 0
        at = _in_collection(emu, {t1: pins.SWITCH_ACTIVE if down else 1 - pins.SWITCH_ACTIVE})
        t = at / 1e6
        was = emu.frame_at(t)
        f = next((f for f in emu.frames_since(t) if f.tiles[0] != was.tiles[0]), None)
        held = next(((b - a) / 1e6 for a, b, _m in emu.gc_watch(False) if a == at), -1.0)
        emu.gc_watch(True, *gc_at)
        out.append((None if f is None else f.ms - t, held))
        emu.run(ms=40)
    emu.gc_watch(False)
    return out


def _apart(f, was) -> int:
    """The tiles whose colours differ in two frames: a flip changes its own, the last tile
    shut begins the shut-the-box show (a colour on every tile, the shut one's maybe as it
    was)."""
    return sum(a != b for a, b in zip(f.tiles, was.tiles, strict=True))


def _inputs(uf2, path: str | None, pause: int = 0) -> dict:
    """A 2-player game played by autoplay on the emulated Pico W (its default settings), a
    phone asking for *path* without a pause (None: no phone): each tile shut to the start of
    the first frame showing it, each Roll press of a turn to the first frame of rolling
    dice, on the emulated clock; and what the phone got (requests answered, bytes)."""
    import statistics

    from shutbox import pins
    from shutbox_host.bench import rp2
    from shutbox_host.pico import fsimage
    from shutbox_host.pico.emulator import Emulator

    gc_at = gc_addrs(uf2)
    extra = {"/boot.py": (PHONE % (path, pause)).encode()} if path else {}
    fs = fsimage.build(board="RPI_PICO_W", extra=extra)
    in_gc: list = []
    in_gc_held = 0.0
    with Emulator(uf2=uf2, fs=fs, board="RPI_PICO_W") as emu:
        emu.wait_for(TURN, timeout_ms=8000)
        emu.run(ms=300)
        if path == "/api/state":
            got = in_collection(emu, gc_at, _IN_GC)
            in_gc = [ms for ms, _held in got]
            in_gc_held = max(held for _ms, held in got)
            emu.run(ms=300)
        t0 = emu.now_ms
        emu.gc_watch(True, *gc_at)
        spans = rp2.play_turns(emu)
        watched = emu.gc_watch(False)
        collections = [(b - a) / 1e6 for a, b, _m in watched]
        # the mark (to gc_collect_end) and the rest (a rescan when the mark stack
        # overflowed, then the sweep)
        marks = sorted((m - a) / 1e6 for a, _b, m in watched if m >= 0)
        ends = sorted((b - m) / 1e6 for _a, b, m in watched if m >= 0)
        rescans = sum(b - m > m - a for a, b, m in watched if m >= 0)
        span_ms = emu.now_ms - t0
        # what the phones got, and the box's loop: its worst lateness, its passes late by
        # more than 2 ms (over its own 1-2 ms sleep: the core held by something else)
        out = emu.repl("import sys\nc = sys.modules['companion.picow'].live\n"
                       "print('SV', %s, c.late, sum(c.hist[3:]), c.passes)\n"
                       % ("_served[0], _served[1], _served[2]" if path else "0, 0, 0"))
        served = [int(v) for v in next(
            x for x in out.splitlines() if x.startswith("SV")).split()[1:]]
        if emu.events("fault"):
            raise AssertionError("the box faulted: %s" % emu.events("fault"))
        flips, rolls, lost = [], [], 0
        holds = [(a / 1e6, b / 1e6) for a, b, _m in watched]
        held = {"flip": 0, "roll": 0}  # of those over 10 ms, the ones a collection held

        def during_gc(t0, t1):
            return any(a < t1 and b > t0 for a, b in holds)

        tile_of = {pins.TILE_PINS[k]: k for k in range(pins.TILES)}
        for t_ns, levels in [x for a, b in spans for x in emu.inputs[a:b]]:
            for g, level in levels.items():
                if level != pins.SWITCH_ACTIVE or not (g in tile_of or g == pins.ROLL_PIN):
                    continue
                t = t_ns / 1e6
                was = emu.frame_at(t)
                for f in emu.frames_since(t):
                    if g in tile_of and (was is None or f.tiles[tile_of[g]]
                                         != was.tiles[tile_of[g]] or _apart(f, was) > 1):
                        flips.append(f.ms - t)
                        held["flip"] += f.ms - t > 10 and during_gc(t, f.ms)
                        break
                    if g == pins.ROLL_PIN and (was is None or (f.die_a, f.die_b)
                                               != (was.die_a, was.die_b)):
                        rolls.append(f.ms - t)
                        held["roll"] += f.ms - t > 10 and during_gc(t, f.ms)
                        break
                else:
                    lost += 1
    name = "picow_inputs_" + {None: "alone", "/api/state": "paced" if pause else "polled",
                              "/api/events": "page"}[path]
    collections.sort()
    out = {name + "_lost": lost, name + "_requests": served[0],
           name + "_bytes_sent": served[1], name + "_span_ms": round(span_ms),
           name + "_limited": served[2],
           name + "_late_ms_max": served[3], name + "_late_over_2_ms": served[4],
           name + "_passes": served[5], name + "_collections": len(collections),
           name + "_gc_ms_p50": round(statistics.median(collections), 2) if collections else 0,
           name + "_gc_ms_max": round(collections[-1], 2) if collections else 0,
           name + "_gc_share_pct": round(100 * sum(collections) / span_ms, 2)}
    if marks:
        out.update({name + "_gc_rescans": rescans,
                    name + "_gc_mark_ms_p50": round(statistics.median(marks), 2),
                    name + "_gc_end_ms_min": round(ends[0], 2),
                    name + "_gc_end_ms_max": round(ends[-1], 2)})
    if in_gc:
        if None in in_gc:
            raise AssertionError("a flip landed in a collection was never shown: %s" % in_gc)
        out.update({name + "_in_gc_flip_ms_max": round(max(in_gc), 2),
                    name + "_in_gc_gc_ms_max": round(in_gc_held, 2),
                    name + "_in_gc_flip_ms_min": round(min(in_gc), 2),
                    name + "_in_gc_flip_samples": len(in_gc)})
    for kind, ms in (("flip", flips), ("roll", rolls)):
        out.update({"%s_%s_ms_p50" % (name, kind): round(statistics.median(ms), 2),
                    "%s_%s_ms_max" % (name, kind): round(max(ms), 2),
                    "%s_%s_over_10_ms" % (name, kind): sum(x > 10 for x in ms),
                    "%s_%s_over_10_in_gc" % (name, kind): held[kind],
                    "%s_%s_samples" % (name, kind): len(ms)})
    return out


# the page's log full (companion.live's _LOG_CAP of JSON lines, as after a long game): the
# phones' task fills it before its first request
_FULL_LOG = ("""    for i in range(200):
        live.keep('{"ev": "score", "player": 1, "score": 12, "ms": %d}' % (1000000 + i))
    print('LOG', len(live.log))
""")


def _full_log_phone() -> str:
    """PHONE polling /api/state nonstop, its task filling the page's log first."""
    phone = PHONE % ("/api/state", 0)
    at = "    while True:\n        await live.server"
    if at not in phone:
        raise AssertionError("the phones' task changed: no place for the log's filling")
    return phone.replace(at, _FULL_LOG + at)


def full_log_in_collection(uf2, n: int) -> list[tuple[float | None, float]]:
    """in_collection (*n* flips) on a box polled nonstop whose page's log is full."""
    from shutbox_host.pico import fsimage
    from shutbox_host.pico.emulator import Emulator

    fs = fsimage.build(board="RPI_PICO_W", extra={"/boot.py": _full_log_phone().encode()})
    with Emulator(uf2=uf2, fs=fs, board="RPI_PICO_W") as emu:
        emu.wait_for(TURN, timeout_ms=8000)
        emu.run(ms=300)
        _log_full(emu)
        got = in_collection(emu, gc_addrs(uf2), n)
        if emu.events("fault"):
            raise AssertionError("the box faulted: %s" % emu.events("fault"))
    return got


def _in_gc_full_log(uf2) -> dict:
    """The worst instant (in_collection, polled) with the page's log full: the collection
    marks and sweeps its 8 KB too."""
    got = full_log_in_collection(uf2, _IN_GC)
    if any(ms is None for ms, _held in got):
        raise AssertionError("a flip landed in a collection was never shown: %s" % got)
    name = "picow_inputs_polled_full_log_in_gc_"
    return {name + "flip_ms_min": round(min(ms for ms, _h in got), 2),
            name + "flip_ms_max": round(max(ms for ms, _h in got), 2),
            name + "gc_ms_max": round(max(h for _ms, h in got), 2),
            name + "flip_samples": len(got)}


def _log_full(emu) -> None:
    """Check that the phones' task filled the page's log (its LOG line)."""
    kept = int(emu.wait_for(r"^LOG \d+$", timeout_ms=1000, since=0).split()[1])
    if kept < 8000:
        raise AssertionError("the page's log holds %d bytes, not its 8 KB" % kept)


def roll_in_collection(uf2, full_log: bool = False,
                       after_ms: int = 300) -> tuple[float | None, float]:
    """One Roll press at a turn's start landing exactly as a collection of the heap starts,
    four phones polling /api/state nonstop (the page's log full or nearly empty), on a box
    booted for it (its release throws the dice: one press a boot), the first collection
    *after_ms* after the turn's record (the emulator is deterministic: another *after_ms*,
    another instant): the ms from the press to the first frame of rolling dice (None: none
    within 80 ms) and the ms the collection held the core."""
    from shutbox import pins
    from shutbox_host.pico import fsimage
    from shutbox_host.pico.emulator import Emulator

    gc_at = gc_addrs(uf2)
    phone = _full_log_phone() if full_log else PHONE % ("/api/state", 0)
    fs = fsimage.build(board="RPI_PICO_W", extra={"/boot.py": phone.encode()})
    with Emulator(uf2=uf2, fs=fs, board="RPI_PICO_W") as emu:
        emu.wait_for(TURN, timeout_ms=8000)
        emu.run(ms=after_ms)
        if full_log:
            _log_full(emu)
        emu.gc_watch(True, *gc_at)
        at = _in_collection(emu, {pins.ROLL_PIN: pins.SWITCH_ACTIVE})
        t = at / 1e6
        was = emu.frame_at(t)
        f = next((f for f in emu.frames_since(t)
                  if was is None or (f.die_a, f.die_b) != (was.die_a, was.die_b)), None)
        held = next(((b - a) / 1e6 for a, b, _m in emu.gc_watch(False) if a == at), -1.0)
        if emu.events("fault"):
            raise AssertionError("the box faulted: %s" % emu.events("fault"))
    return (None if f is None else f.ms - t), held


_ROLLS_IN_GC = 3  # Roll presses landed at the start of a collection (a boot each)


def _rolls_in_gc(uf2) -> dict:
    """roll_in_collection, _ROLLS_IN_GC times with the page's log nearly empty and as many
    with it full."""
    out = {}
    for full, name in ((False, "picow_inputs_polled_in_gc_roll_"),
                       (True, "picow_inputs_polled_full_log_in_gc_roll_")):
        got = [roll_in_collection(uf2, full, 300 + 37 * k) for k in range(_ROLLS_IN_GC)]
        if any(ms is None for ms, _held in got):
            raise AssertionError("a Roll press landed in a collection was never shown: %s"
                                 % got)
        out.update({name + "ms_min": round(min(ms for ms, _h in got), 2),
                    name + "ms_max": round(max(ms for ms, _h in got), 2),
                    name + "gc_ms_max": round(max(h for _ms, h in got), 2),
                    name + "samples": len(got)})
    return out


def figures(soak=False, uf2=None):
    """Measure the picow_* figures; {} with a note when the emulator cannot run here."""
    from shutbox_host.pico import emulator, flash, fsimage

    why = emulator.missing()
    uf2 = uf2 or emulator.picow_uf2()
    if why is None and uf2 is None:
        why = "no RPI_PICO_W uf2 (../shared/rp2040/ or $SHUTBOX_UF2_PICO_W)"
    if why is not None:
        return {"picow_skipped": why}
    with_c = flash.prepare(flash.mp.FIRMWARE, fsimage.BOARD_MPY, companion=True)
    without = flash.prepare(flash.mp.FIRMWARE, fsimage.BOARD_MPY)
    out = {"picow_companion_blocks": with_c.blocks() - without.blocks(),
           "picow_companion_files": len(with_c.files) - len(without.files)}
    tree = with_c.tree()
    cost, heap, free = _import_cost(uf2, tree, with_c.version, "companion.web, companion.live")
    out.update(picow_companion_import_bytes=cost, picow_heap_free_repl_bytes=free)
    out["picow_microdot_import_bytes"] = _import_cost(uf2, tree, with_c.version,
                                                      "microdot, microdot.sse")[0]
    out["picow_wifi_import_bytes"] = _import_cost(uf2, tree, with_c.version,
                                                  "companion.wifi")[0]
    out["picow_names_import_bytes"] = _import_cost(uf2, tree, with_c.version,
                                                   "companion.names")[0]
    out.update(_game(uf2))
    for path, pause in ((None, 0), ("/api/events", 0), ("/api/state", 0), ("/api/state", 50)):
        out.update(_inputs(uf2, path, pause))
    out.update(_in_gc_full_log(uf2))
    out.update(_rolls_in_gc(uf2))
    return out

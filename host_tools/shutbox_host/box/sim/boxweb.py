# The real firmware and its companion on the simulated board, in real time, on real sockets.
"""Run under micropython: ``micropython boxweb.py PORT FLASH [PLAYERS [DNS]]`` with MICROPYPATH
holding the companion's build (shutbox_host.pico.companion), then the simulated board and
the firmware (shutbox_host.box.boxsim.build).

The box's App under shutbox.guard.Guard, as app.main makes it (app.start from the settings
and the records' key shutbox.powerup.read finds in FLASH/data; its game saved there), on
the fake rp2 board (machine, neopixel, simbus) with the real clock; the companion's loop and
server (companion.live, companion.web) on 127.0.0.1:PORT. PLAYERS other than the default:
saved in the settings first, as the box's menu does. Its networking (companion.wifi) runs
on the simulated radio (sim/network.py), its DNS on 127.0.0.1:DNS (UDP; DNS 0: none). The
box's inputs come from stdin, one command a line:

  p GPIO LEVEL  drive an input          d F..  the next dice faces (else seeded dice)
  s             print the state line    n      the loop's figures    q  quit
  z             the loop's figures from zero (its passes and its worst lateness)
  t GPIO LEVEL FIRST COUNT  drive an input as p, and time it: from the level set to the
                start of the first LED write in which LEDs FIRST..FIRST+COUNT-1 differ
                from what they showed (the PC's µs clock; ``r`` prints ``R us``, -1: none yet)
  w SSID [PW]   a network in the simulated radio's range (no PW: an open one)
  k             print ``K passphrase ap-name`` (the box's own access point)
  l MS          an address's requests: one every MS ms on average (companion.web's rate;
                0: none, for the harnesses that load the box harder than the rate lets)

Output: ``READY PORT`` once serving (``UNSERVED PORT``: the server could not start, and
the box plays on); ``F <ms> <hex>`` when the LEDs were written (ms of the
box's clock); the box's JSON log lines; ``S`` and ``N`` lines (the answers: ``N passes
worst-lateness-ms served refused dropped clients free-heap p99-lateness-ms limited``).
"""

import sys

if "" in sys.path:
    sys.path.remove("")

import time as realtime  # noqa: E402 - the PC's µs, for the latency probe (t, r below)

import machine  # noqa: F401 - the simulated board
import neopixel  # noqa: F401
import simbus
import simtime

simbus.rp2040()
sys.modules["time"] = simtime  # rp2's ticks on the real clock, before asyncio takes them

import asyncio  # noqa: E402
import gc  # noqa: E402

from companion import web  # noqa: E402
from companion.live import Live  # noqa: E402

from shutbox import pins  # noqa: E402
from shutbox.app import start  # noqa: E402
from shutbox.board import Board  # noqa: E402
from shutbox.guard import Guard  # noqa: E402
from shutbox.settings import Settings  # noqa: E402
from shutbox.store import Store  # noqa: E402

port = int(sys.argv[1])
flash = sys.argv[2]
players = int(sys.argv[3]) if len(sys.argv) > 3 else 2
dns_port = int(sys.argv[4]) if len(sys.argv) > 4 else 0
queue = []  # scripted dice faces
seed = [1]


def urandom(n):
    """The dice's bytes: queued faces first (byte f-1 rolls face f), then a seeded xorshift
    (the pairing codes' and tokens' bytes too: a test reads the code from the LEDs)."""
    out = bytearray(n)
    for i in range(n):
        if queue:
            out[i] = queue.pop(0) - 1
            continue
        x = seed[0]
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        seed[0] = x
        out[i] = x & 0xFF
    return bytes(out)


for _k in range(pins.TILES):  # every tile up, Roll released
    simbus.set_level(pins.TILE_PINS[_k], pins.SWITCH_ACTIVE ^ 1)
simbus.set_level(pins.ROLL_PIN, pins.SWITCH_ACTIVE ^ 1)
simbus.buzzer_pin = pins.BUZZER_PIN
try:
    import os

    os.mkdir(flash)
except OSError:
    pass

board = Board()
store = Store(flash + "/data")
live = Live(urandom=urandom)
if players != Settings.players:  # a box set up for them in its menu, before this power-up
    from shutbox import setfile

    setfile.save(Settings(players=players), store)
# as main.py: the saved settings and the records' key (shutbox.powerup.read), its settings
# record into the companion's log as well as the console
from shutbox import powerup  # noqa: E402

powerup.print = live.out
boot = powerup.read(board, store)
powerup.unload("powerup")
live.settings = boot[0]  # powerup's _BOOT_SETTINGS (the boot list's slots: powerup.read)
live.store = store
live.key = boot[3][1]  # _BOOT_TALLY's variant key (records' _T_KEY: Records.tally)


# the latency probe (command t): watched LEDs (first, count), the µs the input came, what
# they showed then, the µs to the first write that changed them (-1: none yet)
probe = [0, 0, 0, b"", -1]
_record = simbus.record_bitstream


def _recorded(gpio, data):
    """simbus.record_bitstream, timing the first write that changes the watched LEDs."""
    if probe[4] < 0 and probe[1]:
        i = 3 * probe[0]
        if bytes(data[i:i + 3 * probe[1]]) != probe[3]:
            probe[4] = realtime.ticks_diff(realtime.ticks_us(), probe[2])
    _record(gpio, data)


simbus.record_bitstream = _recorded


def make(now, safe):
    return start(board, urandom, now, store, boot, safe, out=live.out)


t0 = simtime.ticks_ms()
guard = Guard(board, make, t0, log_path=flash + "/error.log")
app = live.server = web.make(live)
if dns_port:
    import network  # the simulated radio
    from companion import wifi

    live.wifi = wifi.Wifi(network, machine.unique_id(), flash + "/data", live.out,
                          dns_host="127.0.0.1", dns_port=dns_port)


async def leds():
    """Print the LEDs whenever the firmware wrote them (polled each ms: the harness's)."""
    seen = simbus.writes
    while True:
        if simbus.writes != seen:
            seen = simbus.writes
            print("F %d %s" % (simtime.ticks_diff(simtime.ticks_ms(), t0), simbus.leds.hex()))
        await asyncio.sleep_ms(1)


async def commands():
    """Obey stdin's commands (see the module's doc)."""
    stdin = asyncio.StreamReader(sys.stdin)
    while True:
        line = await stdin.readline()
        w = line.split()
        if not line or w and w[0] == b"q":
            raise SystemExit(0)
        if not w:
            continue
        c = w[0]
        if c == b"p":
            simbus.set_level(int(w[1]), int(w[2]))
        elif c == b"t":
            i = 3 * int(w[3])
            probe[3] = bytes(simbus.leds[i:i + 3 * int(w[4])])
            probe[0] = int(w[3])
            probe[1] = int(w[4])
            probe[4] = -1
            probe[2] = realtime.ticks_us()
            simbus.set_level(int(w[1]), int(w[2]))
        elif c == b"r":
            print("R %d" % probe[4])
        elif c == b"d":
            queue.extend(int(f) for f in w[1:])
            if guard.app is not None:
                guard.app.dice.flush()
        elif c == b"s":
            print("S " + web.json.dumps(live.state()))
        elif c == b"n":
            gc.collect()
            h = live.hist
            k = 0
            seen = h[0]
            while k + 1 < len(h) and seen * 100 < live.passes * 99:  # the 99th percentile
                k += 1
                seen += h[k]
            print("N %d %d %d %d %d %d %d %d %d" % (live.passes, live.late, app.served,
                                                    app.refused, app.dropped, app.clients,
                                                    gc.mem_free(), k, app.limited))
        elif c == b"w":
            network.networks[w[1].decode()] = w[2].decode() if len(w) > 2 else ""
        elif c == b"k":
            uid = machine.unique_id()
            print("K %s %s" % (wifi.passphrase(uid), wifi.ap_name(uid)))
        elif c == b"l":
            app.every = int(w[1])
        elif c == b"z":
            live.passes = live.late = 0
            for i in range(len(live.hist)):
                live.hist[i] = 0
        else:
            print("? %s" % c)


async def main():
    asyncio.create_task(leds())
    asyncio.create_task(commands())
    serving = asyncio.create_task(web._serve(app, "127.0.0.1", port, print))
    # the box plays from the start; the harness is told once the socket is bound, or not
    asyncio.create_task(ready(serving))
    if live.wifi is not None:
        asyncio.create_task(live.wifi.run())
    await live.box(guard)


async def ready(serving):
    """Print READY PORT once the server listens, or UNSERVED PORT when it could not."""
    while app.server is None and not serving.done():
        await asyncio.sleep_ms(5)
    print("%s %d" % ("READY" if app.server is not None else "UNSERVED", port))


asyncio.run(main())

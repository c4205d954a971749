# A box on the simulated board with its companion serving on 127.0.0.1: the tests' and bench's.
"""Start sim/boxweb.py under the real MicroPython (the companion's .mpy build, the firmware's
and the simulated board's), read its output in a thread, drive its inputs, talk HTTP to it
(tests/companion; the bench's companion part).

``WebBox`` is a backend of shutbox_host.model.drive's protocol on the wall clock (the box
serves real sockets, so its time is real): pins driven (``levels``), the dice's next faces
(``dice``), time let pass (``advance``: a sleep), what it showed (``shown``: its LED frames
and log records, stamped on arrival in ms since it was ready). A contact's µs edges, a power
cut and boxrun's questions it cannot do (Unsupported)."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from shutbox import pins
from shutbox_host import mp
from shutbox_host.box import boxsim
from shutbox_host.model.drive import Driver, Shown, Unsupported
from shutbox_host.model.leds import decoder, face, tiles_lit
from shutbox_host.pico import companion

HEAP = "256k"  # the unix port's heap for the box and the companion (a Pico W has 205 KB free)


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebBox(Driver):
    """The box and its companion, running; ``lines`` holds (monotonic time, line)."""

    name = "web box"

    def __init__(self, flash: Path | None = None, players: int = 2, port: int | None = None,
                 wifi: bool = False, rate: bool = False):
        """Start the box with its flash in the folder *flash* (None: a new one of its own,
        removed when it closes); its server on *port* (None: a free one, another if it was
        taken meanwhile). ``serving``: the server listens. *wifi*: its networking on the
        simulated radio, its DNS on ``dns_port`` (UDP). *rate*: the server keeps its rate
        per address (companion.web: 429 beyond 5 requests a second); else none, as the
        tests' own polls (``wait_state``: 20 a second) and the benches' phones ask far more
        often from the one address 127.0.0.1."""
        self._own = tempfile.TemporaryDirectory(prefix="shutbox-webbox-") if flash is None \
            else None
        self.flash = Path(self._own.name if self._own is not None else flash)
        flash = self.flash
        path = ":".join([str(companion.build()), str(boxsim.build()), ".frozen"])
        env = dict(os.environ, MICROPYPATH=path)
        for _ in range(5):
            self.port = port or free_port()
            self.dns_port = free_port(socket.SOCK_DGRAM) if wifi else 0
            self.proc = subprocess.Popen(
                [mp.micropython_exe(), "-X", "heapsize=" + HEAP, str(mp.SIM / "boxweb.py"),
                 str(self.port), str(flash), str(players), str(self.dns_port)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                env=env, text=True, bufsize=1, **mp.tied())
            self.lines: list[tuple[float, str]] = []
            self._cv = threading.Condition()
            threading.Thread(target=self._read, daemon=True).start()
            self.serving = self.wait_line(("READY", "UNSERVED"), 20).startswith("READY")
            self._t0 = time.monotonic()
            if not rate:
                self.rate(0)
            if self.serving or port:
                return
            self.close()  # the free port was taken before the box bound it: another
        raise AssertionError("the companion found no free port")

    def _read(self):
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cv:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self._cv.notify_all()

    def wait_line(self, prefix: str | tuple[str, ...], timeout: float = 5,
                  after: int = 0) -> str:
        """The first output line from index *after* on that starts with *prefix* (or one
        of them)."""
        end = time.monotonic() + timeout
        with self._cv:
            while True:
                for _, line in self.lines[after:]:
                    if line.startswith(prefix):
                        return line
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError("no %r from the box; it said:\n%s" % (
                        prefix, "\n".join(x for _, x in self.lines[-30:])))
                self._cv.wait(left)

    def wait_log(self, ev: str, timeout: float = 5, after: int = 0) -> dict:
        """The first record of the box's log (its JSON lines) from index *after* on whose
        ``ev`` is *ev*."""
        end = time.monotonic() + timeout
        with self._cv:
            while True:
                for _, line in self.lines[after:]:
                    if line.startswith("{"):
                        rec = json.loads(line)
                        if rec.get("ev") == ev:
                            return rec
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError("no %r record from the box; it said:\n%s" % (
                        ev, "\n".join(x for _, x in self.lines[-30:])))
                self._cv.wait(left)

    def send(self, cmd: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()

    def ask(self, cmd: str, prefix: str | None = None) -> str:  # type: ignore[override]
        """Send boxweb's command *cmd*; return its answer, the first line after it that
        starts with *prefix* (None: boxrun's questions, which it cannot answer)."""
        if prefix is None:
            raise Unsupported("%s: cannot answer %r (the simulated board's question)"
                              % (self.name, cmd.split()[0]))
        n = len(self.lines)
        self.send(cmd)
        return self.wait_line(prefix, after=n)

    def figures(self) -> dict:
        """The loop's figures: passes, worst lateness (ms), requests served, refused, dropped,
        clients now, free heap, the 99th percentile of the lateness (ms), requests refused
        for their address's rate (429)."""
        keys = ("passes", "late_ms", "served", "refused", "dropped", "clients", "free",
                "p99_ms", "limited")
        return dict(zip(keys, map(int, self.ask("n", "N ").split()[1:]), strict=True))

    def rate(self, every_ms: int) -> None:
        """An address's requests: one every *every_ms* on average (companion.web's rate, 0:
        none; the harnesses that load the box harder than the rate would let through)."""
        self.send("l %d" % every_ms)

    def alive(self) -> bool:
        return self.proc.poll() is None

    # ----- the protocol's verbs (shutbox_host.model.drive) -----

    @property
    def ms(self) -> float:  # type: ignore[override]
        return (time.monotonic() - self._t0) * 1000

    def levels(self, levels: dict[int, int]) -> None:
        for g, v in levels.items():
            self.send("p %d %d" % (g, v))

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        raise Unsupported("%s: no µs edges on the wall clock (the simulated board's)"
                          % self.name)

    def advance(self, ms: float) -> None:
        if ms > 0:
            time.sleep(ms / 1000)

    def power_cut(self) -> None:
        raise Unsupported("%s: no power cut while it serves (the simulated board's)"
                          % self.name)

    def dice(self, faces: list[int]) -> None:
        self.send("d " + " ".join(str(f) for f in faces))

    def shown(self) -> Shown:
        """Its LED frames and log records so far, in ms since it was ready."""
        out = Shown()
        for t, x in self.led_lines(0):
            out.frames.append(((t - self._t0) * 1000, x[:pins.TILES], x[pins.TILES:pins.TILES + 7],
                               x[pins.TILES + 7:pins.TILES + 14]))
        for t, x in list(self.lines):
            if x.startswith("{"):
                out.log.append(dict(json.loads(x), _ms=(t - self._t0) * 1000))
        return out

    # ----- the box's inputs, as the companion's tests play them -----

    def tile(self, k: int, shut: bool) -> None:
        if shut:
            self.shut(k)
        else:
            self.open(k)

    def roll(self, faces: tuple[int, int], ms: float = 0.15) -> None:
        """Press and release Roll (held *ms* s), the dice to show *faces*."""
        self.dice(list(faces))
        self.click(ms * 1000)

    # ----- the box's LEDs -----

    def led_lines(self, since: float) -> list[tuple[float, str]]:
        """The LED writes since *since* (monotonic): (when, palette letters: the tiles, die
        A's 7 pips, die B's)."""
        decode = decoder()
        return [(t, decode(bytes.fromhex(x.split()[2]))) for t, x in list(self.lines)
                if t >= since and x.startswith("F ")]

    def pairing_code(self, since: float, timeout: float = 5) -> str:
        """The pairing code as the box shows it from *since* on: tile 1 lit cyan with the
        first two faces on the dice, tile 2 with the last two."""
        halves: dict[int, str] = {}
        end = time.monotonic() + timeout
        while len(halves) < 2 and time.monotonic() < end:
            for _, x in self.led_lines(since):
                lit = tiles_lit(x[:pins.TILES], "C")
                if lit in ([1], [2]):
                    dice = x[pins.TILES:]
                    a, b = face(dice[:7]), face(dice[7:14])
                    assert set(dice) <= {".", "C"} and a > 0 and b > 0, x
                    halves[lit[0]] = "%d%d" % (a, b)
            time.sleep(0.1)
        assert len(halves) == 2, "no pairing code on the LEDs: %r" % halves
        return halves[1] + halves[2]

    # ----- HTTP -----

    def request(self, method: str, path: str, body=None, headers=None, timeout=5):
        """(status, decoded JSON or text)."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = json.dumps(body) if isinstance(body, dict) else body
            c.request(method, path, body=data, headers=headers or {})
            r = c.getresponse()
            text = r.read().decode()
            ctype = r.getheader("Content-Type") or ""
            return r.status, json.loads(text) if ctype.startswith("application/json") else text
        finally:
            c.close()

    def state(self) -> dict:
        """The box's state; asked again while the box is busy (503: every slot taken)."""
        end = time.monotonic() + 10
        while True:
            try:
                status, s = self.request("GET", "/api/state")
            except OSError:
                status, s = 0, "dropped"
            if status == 200 or time.monotonic() > end:
                break
            time.sleep(0.02)
        assert status == 200, (status, s)
        return s

    def wait_state(self, pred, timeout: float = 5) -> dict:
        end = time.monotonic() + timeout
        while True:
            s = self.state()
            if pred(s):
                return s
            if time.monotonic() > end:
                raise AssertionError("the state never came: %r" % s)
            time.sleep(0.05)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("q")
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self._own is not None:
            self._own.cleanup()


class Events:
    """The page's event stream (/api/events) read in a thread: (monotonic time, state)."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: box\r\n"
                          b"Accept: text/event-stream\r\n\r\n")
        self.events: list[tuple[float, dict]] = []
        self._cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        f = self.sock.makefile("rb")
        try:
            for raw in f:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("data: "):
                    with self._cv:
                        self.events.append((time.monotonic(), json.loads(line[6:])))
                        self._cv.notify_all()
        except OSError:
            pass

    def wait(self, pred, timeout: float = 5) -> tuple[float, dict]:
        end = time.monotonic() + timeout
        with self._cv:
            while True:
                for t, s in self.events:
                    if pred(s):
                        return t, s
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError("no such event: %r" % self.events[-3:])
                self._cv.wait(left)

    def close(self):
        """Hang up (the reader's file holds the socket open: shut it down first)."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

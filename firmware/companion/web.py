# The companion's web server: one page and the box's game as JSON, for the phones at the table.
"""microdot (its published package, built by shutbox_host.pico.companion) on the box's loop.

Routes: ``/`` the page (page.html, beside this module); ``/api/state`` the game (whose turn,
the throw, the tiles up and in play, the scores, the winners); ``/api/events`` the same
pushed as server-sent events at every change (shutbox's loop wakes them: companion.live);
``/api/moves`` the throw's moves ranked by the box's tables (best-move hints only, else
403: companion.moves); ``/api/settings`` the settings in words; ``/api/records`` the box's
records of the variant played; ``/api/names`` the seats' names and each name's record
(``POST`` paired, with ``{"seats": [...]}``: companion.names); ``/api/log`` the game log as
JSON lines (what ``shutbox report`` reads); ``POST /api/pair`` shows a pairing code on the
box (no body), or trades the code for a token (``{"code": "1234"}``); the changes need the
token (``X-Pair-Token``), else 403:
``POST /api/new-game``, ``POST /api/settings`` with the box's own settings in words
(``{"brightness": "high"}``: sound and brightness, applied at once and saved), and ``POST
/api/wifi`` with a home network (``{"ssid": ..., "password": ...}``: saved, then joined;
``GET /api/wifi`` says the networking's state, no password). On the box's own access point
any other page redirects to ``/`` (the captive portal: companion.wifi).

Bounded, because the box must play on whatever arrives: an address may ask once every _EVERY_MS
on average, _BURST at once (more get 429 and are closed: a phone polling nonstop is held to 5
requests a second; the page asks for 7 as it opens, then holds its event stream), at most
_CLIENTS connections at once (one more gets 503 and is closed), a request's line and headers
within _HEAD_MS (else it is dropped), lines of _LINE bytes and _HEADERS of them (else 400),
bodies of _BODY bytes (413), a write that a client does not take within _WRITE_MS drops it, an
event stream ends after _STREAM_MS (the page's EventSource reconnects): a stalled phone frees
its slot. Malformed requests get 400, unknown paths 404, wrong methods 405; none is printed on
the box's console, which carries the game log.

The box's inputs first: a request gives the box's loop its turn (``asyncio.sleep_ms(0)``:
the loop runs then if its next reading is due) before each line it reads, after its parse
and route (a before-request handler), after its answer is made (an after-request handler)
and before each write, so no piece of it holds the core for long even when its bytes never
make it wait (a socket's waits cut it more). The state is made into JSON once per change of
the game (``Live.state_body``), not at each request or event.

The heap: each request adds its garbage to ``Live.spent`` (_SERVED, _TURNED, _EVENT: about a
KB a unit, measured on the Pico W), and the box's loop collects the heap once it reaches
a request's (companion.live's _SPEND), between two readings of the switches that it made
with nothing to take, from companion.sweep (a collection started anywhere else,
MicroPython's own in a request included, overflows the mark's stack and rescans the whole
heap: twice as long).
"""

import asyncio
import json
import time

import microdot.microdot as _md
from microdot import Microdot, Request, Response
from microdot.sse import with_sse

from micropython import const

_CLIENTS = const(4)  # connections served at once
_HEAD_MS = const(3000)  # a request's line and headers arrive within this, or it is dropped
_WRITE_MS = const(3000)  # a write the client does not take within this drops it
_STREAM_MS = const(60000)  # an event stream ends after this; the page reconnects
# an idle event stream gets a comment this often: a phone gone frees its slot by then
_KEEP_MS = const(5000)
_QUEUED_MS = const(20)  # an event stream whose last state is not sent yet looks again after
_LINE = const(256)  # bytes in the request line or a header line
_HEADERS = const(24)  # header lines in a request
_BODY = const(256)  # bytes in a request's body
_CHUNK = const(128)  # bytes read from a client at a time
_EPIPE = const(32)  # an errno microdot takes as a client gone (its MUTED_SOCKET_ERRORS)
# the garbage a request leaves, in Live.spent's units (about a KB: measured on the Pico W,
# /api/state 8.9 KB, /api/settings 10, the page 24.7, one turned away 0.3)
_SERVED = const(10)
_TURNED = const(1)
_EVENT = const(4)  # an event sent on a stream (with the box's own garbage of the step)
_PAGE = const(15)  # the page, beyond a request's _SERVED
_BUSY_MS = const(100)  # a client turned away: the time to take its 503 and send its request
_DRAIN = const(2048)  # bytes of a turned-away client's request read before the close
_JSON = "application/json; charset=UTF-8"  # as microdot's own for a dict
_BUSY = b"HTTP/1.0 503 Busy\r\nContent-Length: 0\r\nRetry-After: 2\r\n\r\n"
_EVERY_MS = const(200)  # an address's requests: one this often on average ...
_BURST = const(10)  # ... and this many at once (the page asks for 7 as it opens)
_KNOWN = const(8)  # addresses whose rate is kept at once (past ones are forgotten)
_SLOW = (b"HTTP/1.0 429 Too Many Requests\r\nContent-Type: application/json; charset=UTF-8\r\n"
         b"Content-Length: 85\r\nRetry-After: 1\r\n\r\n{\"error\": \"over 5 requests a "
         b"second from this address: wait a second\", \"status\": 429}")

Request.max_readline = _LINE
Request.max_content_length = _BODY
Request.max_body_length = _BODY


def _quiet(exc):
    """microdot prints a request it cannot parse; the box's console carries the game log."""


_md.print_exception = _quiet


class _Reader:
    """A client's request, bounded: lines of at most _LINE bytes, at most _HEADERS + 1 of
    them, the line and headers within _HEAD_MS of the connection (asyncio's own readline
    reads a line of any length)."""

    def __init__(self, r):
        self.r = r
        self.buf = b""
        self.lines = 0
        self.end = time.ticks_add(time.ticks_ms(), _HEAD_MS)

    async def _more(self):
        left = time.ticks_diff(self.end, time.ticks_ms())
        if left <= 0:
            raise OSError(_EPIPE)  # too slow: dropped
        try:
            data = await asyncio.wait_for_ms(self.r.read(_CHUNK), left)
        except asyncio.TimeoutError:
            raise OSError(_EPIPE) from None
        self.buf += data
        return len(data)

    async def readline(self):
        await asyncio.sleep_ms(0)  # the box's loop first, when its reading is due (_turn)
        self.lines += 1
        if self.lines > _HEADERS + 1:
            raise ValueError("too many header lines")
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = self.buf[:i + 1]
                self.buf = self.buf[i + 1:]
                return line
            if len(self.buf) > _LINE:
                raise ValueError("line too long")
            if not await self._more():  # the end of the stream: what came, or b""
                line = self.buf
                self.buf = b""
                return line

    async def readexactly(self, n):
        while len(self.buf) < n:
            if not await self._more():
                raise EOFError
        data = self.buf[:n]
        self.buf = self.buf[n:]
        return data

    async def read(self, n=-1):
        if not self.buf:
            await self._more()
        n = len(self.buf) if n < 0 else n
        data = self.buf[:n]
        self.buf = self.buf[n:]
        return data


class _Writer:
    """A client's side of the connection: a write it does not take in _WRITE_MS drops it
    (as an error microdot takes for a client gone: an event stream then ends too)."""

    def __init__(self, w):
        self.w = w

    async def awrite(self, data):
        await asyncio.sleep_ms(0)  # as the reader's lines: the box's loop first, when due
        try:
            await asyncio.wait_for_ms(self.w.awrite(data), _WRITE_MS)
        except asyncio.TimeoutError:
            raise OSError(_EPIPE) from None

    async def aclose(self):
        await self.w.aclose()

    def get_extra_info(self, what):
        return self.w.get_extra_info(what)


class Server(Microdot):
    """microdot with the box's bounds (see the module's doc) and counters for the tests:
    requests served, refused (busy) and dropped (an error on the connection)."""

    def __init__(self, live):
        super().__init__()
        self.live = live
        self.clients = 0
        self.served = 0
        self.refused = 0
        self.dropped = 0
        self.limited = 0  # requests refused for their address's rate (429)
        self.every = _EVERY_MS  # the rate: one request an address this often (0: none)
        self.due = {}  # address -> when its requests so far are paid for (ticks_ms)

    def over(self, writer):
        """Whether the client's address asks more often than its rate (a generic cell rate:
        each request is paid for _EVERY_MS after the last one's due time, and a request
        whose address is due more than _BURST - 1 of them ahead is refused); addresses paid
        up are forgotten, so the table holds the ones that asked within _BURST * _EVERY_MS
        (_KNOWN at most: beyond, one goes)."""
        if not self.every:
            return False
        try:
            addr = writer.get_extra_info("peername")
            # lwIP's (address, port); the unix port's sockaddr: family, port, IPv4 address
            addr = addr[0] if isinstance(addr, tuple) else bytes(addr[4:8])
        except Exception:  # noqa: BLE001 - no address known: no rate kept
            return False
        now = time.ticks_ms()
        due = self.due
        for a in [a for a in due if time.ticks_diff(due[a], now) <= 0]:
            del due[a]
        t = due.get(addr, now)
        if time.ticks_diff(t, now) > (_BURST - 1) * self.every:
            return True
        if addr not in due and len(due) >= _KNOWN:
            del due[next(iter(due))]
        due[addr] = time.ticks_add(t, self.every)
        return False

    async def handle_request(self, reader, writer):
        slow = self.over(writer)
        if slow or self.clients >= _CLIENTS:
            if slow:
                self.limited += 1
            else:
                self.refused += 1
            try:
                await asyncio.wait_for_ms(writer.awrite(_SLOW if slow else _BUSY), _BUSY_MS)
                # what the client sent, read before the close (a phone's request is often
                # more than one read): a socket closed on unread data resets the connection,
                # and the client loses its 429 or 503. Up to _DRAIN bytes, until its headers'
                # end or its own end, within _BUSY_MS; what came while the box held the core
                # past that (a long step, a loaded host) is taken all the same
                end = time.ticks_add(time.ticks_ms(), _BUSY_MS)
                left = _DRAIN
                data = b""
                while left > 0:
                    got = reader.s.read(_CHUNK)  # what is there already: no wait
                    if got is None:
                        if data.endswith(b"\r\n\r\n") or \
                                time.ticks_diff(end, time.ticks_ms()) <= 0:
                            break
                        try:
                            got = await asyncio.wait_for_ms(
                                reader.read(_CHUNK), time.ticks_diff(end, time.ticks_ms()))
                        except asyncio.TimeoutError:
                            continue  # the time is up: what came meanwhile, once more
                    if not got:
                        break  # the client's end: all it sent is read
                    left -= len(got)
                    data = got
            except Exception:  # noqa: BLE001 - it is being turned away anyway
                pass
            await _close(writer)
            self.live.spent += _TURNED
            return
        self.clients += 1
        try:
            await Microdot.handle_request(self, _Reader(reader), _Writer(writer))
            self.served += 1
        except Exception:  # noqa: BLE001 - a client's trouble never reaches the box
            self.dropped += 1
        finally:
            self.clients -= 1
            await _close(writer)
            self.live.spent += _SERVED  # the box's loop collects it (companion.sweep)


async def _close(writer):
    try:
        await writer.aclose()
    except Exception:  # noqa: BLE001 - closed already
        pass


def _error(status, text):
    return {"error": text, "status": status}, status


def _body(req):
    """The request's JSON object, {} without a body, or None when it is not one."""
    if not req.body:
        return {}
    try:
        obj = json.loads(req.body)
    except (ValueError, UnicodeError):
        return None
    return obj if isinstance(obj, dict) else None


def make(live):
    """Return the companion's microdot app for the box *live* (companion.live.Live)."""
    app = Server(live)
    page = __file__[:__file__.rfind("/") + 1] + "page.html"

    @app.before_request
    async def routed(req):
        await asyncio.sleep_ms(0)  # parsed and routed: the box's loop, when due

    @app.after_request
    async def answered(req, res):
        await asyncio.sleep_ms(0)  # the answer made: the box's loop, when due

    @app.errorhandler(400)
    async def bad(req):
        return _error(400, "malformed request")

    @app.errorhandler(404)
    async def missing(req):
        wifi = live.wifi
        if wifi is not None and wifi.mode == "ap" and not req.path.startswith("/api/"):
            # a phone's captive-portal check (any name resolves to the box): the page
            return Response.redirect("http://%s/" % wifi.addr)
        return _error(404, "no such page")

    @app.errorhandler(405)
    async def method(req):
        return _error(405, "method not allowed here")

    @app.errorhandler(413)
    async def large(req):
        return _error(413, "request body over %d bytes" % _BODY)

    @app.errorhandler(500)
    async def failed(req):
        return _error(500, "the companion failed; the box plays on")

    @app.get("/")
    async def index(req):
        live.spent += _PAGE
        return Response.send_file(page, content_type="text/html; charset=utf-8")

    @app.get("/api/state")
    async def state(req):
        return Response(live.state_body(), headers={"Content-Type": _JSON})

    @app.get("/api/settings")
    async def settings(req):
        return live.settings_words()

    @app.get("/api/records")
    async def records(req):
        return live.records()

    @app.get("/api/log")
    async def log(req):
        return Response(live.log_text(), headers={"Content-Type": "application/x-ndjson"})

    # ----- the moves ranked (companion.moves: best-move hints only; loaded at first use) -----

    @app.get("/api/moves")
    async def moves(req):
        from companion import moves

        return moves.answer(live)

    # -----

    @app.get("/api/events")
    @with_sse
    async def events(req, sse):
        end = time.ticks_add(time.ticks_ms(), _STREAM_MS)
        sent = -1
        first = True
        while time.ticks_diff(end, time.ticks_ms()) > 0:
            if sse.queue:  # the phone has not taken the last one: the latest goes after it
                await asyncio.sleep_ms(_QUEUED_MS)  # (one state queued at most, not a backlog)
                continue
            if live.version != sent:
                sent = live.version
                await sse.send(live.state_body(), retry=1 if first else None)
                live.spent += _EVENT
                first = False
                continue
            live.changed.clear()
            try:
                await asyncio.wait_for_ms(live.changed.wait(), _KEEP_MS)
            except asyncio.TimeoutError:
                await sse.send("", comment=True)

    @app.post("/api/pair")
    async def pair(req):
        body = _body(req)
        if body is None:
            return _error(400, "the body is not a JSON object")
        code = body.get("code")
        if code is None:
            wait = live.pair(time.ticks_ms())
            if wait:
                return {"error": "too many wrong codes: ask again in %d s" % (wait // 1000 + 1),
                        "status": 429}, 429, {"Retry-After": str(wait // 1000 + 1)}
            return {"showing": True}, 202
        token = live.check(str(code), time.ticks_ms())
        if token is None:
            return _error(403, "wrong code, or none showing: ask for a new one")
        return {"token": token}

    @app.post("/api/settings")
    async def change(req):
        if not live.paired(req.headers.get("X-Pair-Token")):
            return _error(403, "pair with the box first (POST /api/pair)")
        body = _body(req)
        if not body:
            return _error(400, "give the settings to change: {\"sound\": \"soft\"}")
        wrong = live.change(body)
        if wrong is not None:
            return _error(400, wrong)
        return live.settings_words()

    @app.get("/api/wifi")
    async def wifi_state(req):
        return live.wifi.state() if live.wifi is not None else {"mode": "none"}

    @app.post("/api/wifi")
    async def wifi_join(req):
        if not live.paired(req.headers.get("X-Pair-Token")):
            return _error(403, "pair with the box first (POST /api/pair)")
        if live.wifi is None:
            return _error(503, "the box's radio is not running")
        body = _body(req)
        if not body:
            return _error(400, "give the network: {\"ssid\": \"home\", \"password\": \"...\"}")
        from companion import wifi

        ssid = body.get("ssid")
        password = body.get("password", "")
        wrong = wifi.save(live.wifi.folder, ssid, password)
        if wrong is not None:
            return _error(400, wrong)
        live.wifi.join(ssid, password)
        return {"joining": ssid, "then": "http://shutbox.local/"}, 202

    _names_routes(app, live)

    @app.post("/api/new-game")
    async def new_game(req):
        if not live.paired(req.headers.get("X-Pair-Token")):
            return _error(403, "pair with the box first (POST /api/pair)")
        if not live.new_game(time.ticks_ms()):
            return _error(503, "the box is restarting")
        return {"new_game": True}

    return app


def _names_routes(app, live):
    """The seats' names and each name's record (companion.names): ``GET /api/names``, and
    ``POST /api/names`` (paired) with ``{"seats": ["ann", "bob"]}`` (seat 1 first; null or ""
    for no name)."""

    @app.get("/api/names")
    async def names(req):
        return live.names_table()

    @app.post("/api/names")
    async def set_names(req):
        if not live.paired(req.headers.get("X-Pair-Token")):
            return _error(403, "pair with the box first (POST /api/pair)")
        body = _body(req)
        if not body or "seats" not in body or len(body) != 1:
            return _error(400, "give the seats' names: {\"seats\": [\"ann\", \"bob\"]}")
        wrong = live.set_names(body["seats"])
        if wrong is not None:
            return _error(503 if wrong.startswith("the box ") else 400, wrong)
        return live.names_table()


async def _serve(app, host, port, out):
    try:
        await app.start_server(host=host, port=port)
    except Exception as e:  # noqa: BLE001 - no network, a socket error: the box plays on
        out(json.dumps({"ev": "companion", "error": type(e).__name__, "text": str(e)}))


def run(live, guard, host="0.0.0.0", port=80, tasks=()):
    """Run the box (*guard*, shutbox.guard.Guard) and the server on *host*:*port* until a
    Ctrl-C, and the coroutines *tasks* (the networking: companion.wifi); the server failing
    leaves the box's loop running (companion.live)."""
    app = live.server = make(live)
    # what only the start runs goes, so that no collection of the heap marks its code again
    # (companion.picow); a value is set to None before its key is deleted: MicroPython
    # leaves a deleted key's value in its slot of the dict
    g = globals()
    for k in ("make", "_names_routes"):
        g[k] = None
        del g[k]
    # and microdot's own that only the routes' making runs, or that the companion never calls
    # (the classes' other methods serve the requests)
    for c, names in ((Microdot, ("__init__", "route", "get", "post", "put", "patch", "delete",
                                 "query", "before_request", "after_request",
                                 "after_error_request", "errorhandler", "mount", "run",
                                 "shutdown")),
                     (Request, ("form", "files", "after_request")),
                     (Response, ("set_cookie", "delete_cookie"))):
        for k in names:
            setattr(c, k, None)
            delattr(c, k)

    async def main():
        asyncio.create_task(_serve(app, host, port, live.print))
        for t in tasks:
            asyncio.create_task(t)
        await live.box(guard)

    asyncio.run(main())
    return app

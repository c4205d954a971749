# Under the real micropython: a request gives the box's loop its turns, on streams that never wait.
"""Run under micropython: companion_turns.py (MICROPYPATH: the companion's build, the
firmware, .frozen).

The companion's server (companion.web) handles requests handed to it on streams whose
reads and writes never wait (a whole request arrives at once, the phone takes every byte),
beside a task standing for the box's loop that counts its turns; prints, for each request,
"TURNS <path> <status> <turns>": how often that task ran while the request was handled,
and for the first state "PARSED <turns>": how often from its bytes read to its state made
(its lines parsed and its route found, else in one slice). Then checks the
state's JSON is made once per change of the game and prints "BODY OK".
"""

import asyncio
import json

from companion import web
from companion.live import Live

_turns = [0]
_marks = {}  # the box task's turns when the request's bytes were read, its state made


class _R:
    def __init__(self, data):
        self.d = data

    async def read(self, n=-1):
        d = self.d[:n] if n >= 0 else self.d
        self.d = self.d[len(d):]
        if d:
            _marks["read"] = _turns[0]
        return d


class _W:
    def __init__(self):
        self.out = b""

    async def awrite(self, b):
        self.out += b

    async def aclose(self):
        pass

    def get_extra_info(self, what):
        return ("127.0.0.1", 1234)


async def _box():
    while True:
        _turns[0] += 1
        await asyncio.sleep_ms(0)


async def main():
    live = Live(out=lambda line: None)
    app = web.make(live)
    state = live.state

    def marked():
        _marks["state"] = _turns[0]
        return state()

    live.state = marked
    asyncio.create_task(_box())
    await asyncio.sleep_ms(0)
    for path in ("/api/state", "/api/settings", "/nowhere", "/api/state"):
        n = _turns[0]
        w = _W()
        req = "GET %s HTTP/1.0\r\nHost: box\r\nAccept: */*\r\n\r\n" % path
        await app.handle_request(_R(req.encode()), w)
        print("TURNS", path, w.out.split(b" ")[1].decode(), _turns[0] - n)
        if path == "/api/state" and "state" in _marks:
            # from the request's bytes read to its state made: its parse and route
            print("PARSED", _marks.pop("state") - _marks["read"])
    body = live.state_body()
    same = live.state_body() is body and json.loads(body) == live.state()
    live.version += 1
    print("BODY", "OK" if same and live.state_body() is not body else "STALE")


asyncio.run(main())

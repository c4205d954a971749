# The Pico W companion on the unix port: real sockets on 127.0.0.1, the firmware on the sim board.
"""The companion's server (firmware/companion/, microdot built from its published package)
beside the real firmware on the simulated board (sim/boxweb.py): the state it serves and
pushes follows the game, a change needs the code the box shows, and bad requests get an
error or are dropped while the box plays on."""

from __future__ import annotations

import json
import random
import socket
import threading
import time

import logschema
import pytest

from shutbox_host.box.webbox import Events, WebBox
from shutbox_host.model.leds import palette, tiles_lit

PUSH_S = 0.3  # the page's promise: a flip shows within 300 ms of the LEDs


@pytest.fixture
def box(tmp_path):
    b = WebBox(tmp_path / "flash")
    yield b
    b.close()


def _turn_to_move(box: WebBox, faces=(3, 4)) -> dict:
    box.wait_state(lambda s: s["state"] in ("setup", "ready"))
    box.roll(faces)
    return box.wait_state(lambda s: s["state"] == "move")


def test_the_state_follows_the_game_and_a_flip_is_pushed_within_300_ms_of_the_leds(box):
    ev = Events(box.port)
    try:
        s = _turn_to_move(box)
        assert (s["throw"], s["player"], s["players"], s["up"]) == ([3, 4], 1, 2,
                                                                    list(range(1, 10)))
        before = box.led_lines(0)[-1][1][6]  # tile 7's LED before the flip
        sent = time.monotonic()
        box.tile(7, True)
        seen, pushed = ev.wait(lambda x: 7 not in x["up"])
        assert seen >= sent
        # the first LED write after the flip that changed tile 7's LED
        end = time.monotonic() + 2
        while not (after := [t for t, x in box.led_lines(sent) if x[6] != before]):
            assert time.monotonic() < end, "tile 7's LED never changed"
            time.sleep(0.01)
        led = after[0]
        assert seen - led <= PUSH_S, (seen - led, seen - sent)
        assert pushed["open"] == [1, 2, 3, 4, 5, 6, 8, 9]
        s = box.state()
        assert s["version"] >= pushed["version"] and 7 not in s["up"]
        status, log = box.request("GET", "/api/log")
        assert status == 200
        recs = [json.loads(x) for x in log.splitlines()]
        assert [r["ev"] for r in recs][:5] == ["settings", "game", "turn", "throw", "move"]
        assert recs[4]["shut"] == [7]
    finally:
        ev.close()


def test_a_change_needs_the_pairing_code_the_box_shows_at_that_moment(box):
    s = _turn_to_move(box)
    assert box.request("POST", "/api/new-game")[0] == 403
    assert box.request("POST", "/api/new-game", headers={"X-Pair-Token": "0" * 32})[0] == 403
    assert box.request("POST", "/api/pair", body={"code": "1234"})[0] == 403  # none showing
    t = time.monotonic()
    status, r = box.request("POST", "/api/pair")
    assert status == 202 and r["showing"]
    code = box.pairing_code(t)
    assert box.state()["pairing"]
    box.tile(7, True)  # the game goes on under the code: its step draws, the code stays
    box.wait_state(lambda x: 7 not in x["up"])
    time.sleep(0.05)
    last = box.led_lines(t)[-1][1]
    assert tiles_lit(last[:9], "C") in ([1], [2]) and set(last[9:]) <= {".", "C"}, last
    wrong = "".join(str(int(c) % 6 + 1) for c in code)  # every digit another face
    for _ in range(3):  # three wrong tries void the code
        assert box.request("POST", "/api/pair", body={"code": wrong})[0] == 403
    assert not box.state()["pairing"]
    assert box.request("POST", "/api/pair", body={"code": code})[0] == 403  # void now
    voided = time.monotonic()
    status, r = box.request("POST", "/api/pair")  # and no new code for 10 s
    assert status == 429 and "ask again in" in r["error"], (status, r)
    time.sleep(10.2 - (time.monotonic() - voided))
    t = time.monotonic()
    assert box.request("POST", "/api/pair")[0] == 202
    assert box.request("POST", "/api/pair")[0] == 202  # the same code goes on
    code = box.pairing_code(t)
    status, r = box.request("POST", "/api/pair", body={"code": code})
    assert status == 200 and len(r["token"]) == 32
    assert not box.state()["pairing"]  # the box's own frame again
    token = r["token"]
    assert s["throw"] == [3, 4]
    paired = {"X-Pair-Token": token}
    # the box's own settings: applied at once (the LEDs' palette), saved; others refused
    assert box.request("POST", "/api/settings", body={"brightness": "high"})[0] == 403
    assert box.request("POST", "/api/settings", body={"players": "3"}, headers=paired)[0] == 400
    status, r = box.request("POST", "/api/settings", body={"brightness": "dazzling"},
                            headers=paired)
    assert status == 400 and "low, medium, high" in r["error"]
    t = time.monotonic()
    status, r = box.request("POST", "/api/settings", body={"brightness": "high"},
                            headers=paired)
    assert status == 200 and r["brightness"] == "high" and r["sound"] == "loud"
    assert box.request("GET", "/api/settings")[1]["brightness"] == "high"
    high = palette(level=2)
    white = high[3 * 1:3 * 2]  # palette code 1: an open tile's white, at high brightness
    end = time.monotonic() + 2
    while not any(line.split()[2][:6] == white.hex() for _, line in list(box.lines)
                  if line.startswith("F ") and _ >= t):
        assert time.monotonic() < end, "the LEDs never took the new brightness"
        time.sleep(0.02)
    assert white != palette(level=1)[3:6]
    status, r = box.request("POST", "/api/new-game", headers=paired)
    assert (status, r) == (200, {"new_game": True})
    s = box.wait_state(lambda x: x["throw"] == [] and x["state"] in ("setup", "ready"))
    assert s["scores"] == [0, 0] and s["player"] == 1
    end = time.monotonic() + 3
    while True:  # the new game's records, printed by the box's next step
        log = box.request("GET", "/api/log")[1].splitlines()
        evs = [json.loads(x)["ev"] for x in log]
        if evs.count("game") == 2 or time.monotonic() > end:
            break
        time.sleep(0.05)
    assert evs[-2:] == ["game", "turn"] and evs.count("game") == 2, evs
    assert evs[0] == "settings"
    box.close()  # a power cut: the box comes back with the brightness saved
    again = WebBox(box.flash)
    try:
        assert again.request("GET", "/api/settings")[1]["brightness"] == "high"
        assert json.loads(again.request("GET", "/api/log")[1].splitlines()[0])["values"][18] == 2
    finally:
        again.close()


# ----- fuzzing -----

_PATHS = ["/", "/api/state", "/api/events", "/api/pair", "/api/new-game", "/api/log",
          "/api/names", "/x"]
# malformed names for the seats, sent with a pairing's token (TOKEN: the test's): each a 400
_BAD_NAMES = [b'{"seats": "ann"}', b'{"seats": []}', b'{"seats": ["a", "b", "c", "d", "e"]}',
              b'{"seats": ["%s"]}' % (b"x" * 17), b'{"seats": ["ann", "ann"]}',
              b'{"seats": ["a\\u0000b"]}', b'{"seats": ["\xff\xfe"]}', b'{"seats": [7]}',
              b'{"seats": ["computer (hard)"]}', b'{"seats": [" ann"]}', b'{"names": ["a"]}',
              b'{"seats": ["a"], "x": 1}', b'["ann"]', b'{"seats": [["a"]]}', b"{",
              b'{"seats": ["\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9'
              b'\xc3\xa9\xc3\xa9"]}']


def _bad_request(rng: random.Random) -> tuple[str, bytes, bool]:
    """One bad request: (kind, bytes, whether to hold the connection open unfinished)."""
    # a few slow ones: each holds its slot for the box's 3 s limit
    kind = rng.choices(["garbage", "long-line", "headers", "big-body", "bad-json", "method",
                        "missing", "no-version", "binary", "unpaired", "bad-names", "half"],
                       [10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 1])[0]
    if kind == "garbage":
        return kind, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))), False
    if kind == "long-line":
        return kind, b"GET /" + b"a" * rng.randrange(300, 3000) + b" HTTP/1.1\r\n\r\n", False
    if kind == "headers":
        return kind, b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * rng.randrange(30, 200) + b"\r\n", \
            False
    if kind == "big-body":
        n = rng.randrange(300, 5000)
        path = rng.choice([b"/api/pair", b"/api/names"])
        return kind, (b"POST %s HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % (path, n)
                      + b"{" * n), False
    if kind == "bad-json":
        body = rng.choice([b"{", b"[1]", b"\xff\xfe", b"null", b'{"code": [1, 2]}'])
        return kind, (b"POST /api/pair HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % len(body)
                      + body), False
    if kind == "method":
        return kind, b"DELETE /api/state HTTP/1.1\r\n\r\n", False
    if kind == "missing":
        return kind, b"GET /%d HTTP/1.1\r\n\r\n" % rng.randrange(10 ** 6), False
    if kind == "no-version":
        return kind, b"GET " + rng.choice(_PATHS).encode() + b"\r\n\r\n", False
    if kind == "binary":
        return kind, b"GET / HTTP/1.1\r\nX: \xff\xfe\x00\r\n\r\n", False
    if kind == "unpaired":
        path = rng.choice([b"/api/new-game", b"/api/names"])
        return kind, b"POST %s HTTP/1.1\r\nX-Pair-Token: x\r\n\r\n" % path, False
    if kind == "bad-names":
        body = rng.choice(_BAD_NAMES)
        return kind, (b"POST /api/names HTTP/1.1\r\nX-Pair-Token: TOKEN\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body), False
    return kind, b"GET /api/state HTTP/1.1\r\nHost: b", True  # slow: never finished


def _send(port: int, data: bytes, hold: bool) -> str:
    """Send one request; return the status line's code, or 'dropped'."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(data)
            if not hold:
                s.shutdown(socket.SHUT_WR)
            got = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
                if b"\r\n" in got and not got.startswith(b"HTTP/1.0 200"):
                    break
    except OSError:
        return "dropped"
    if not got:
        return "dropped"
    return got.split(b" ", 2)[1].decode()


def test_a_thousand_bad_requests_get_errors_or_are_dropped_while_the_box_plays_on(box):
    rng = random.Random(25)
    t = time.monotonic()
    assert box.request("POST", "/api/pair")[0] == 202
    token = box.request("POST", "/api/pair", body={"code": box.pairing_code(t)})[1]["token"]
    reqs = [(k, d.replace(b"TOKEN", token.encode()), h)
            for k, d, h in (_bad_request(rng) for _ in range(1000))]
    results: list[tuple[str, str]] = []
    lock = threading.Lock()

    flipped = threading.Event()

    def worker(chunk):  # its share, and round again till the box's flip is seen
        i = 0
        while i < len(chunk) or not flipped.is_set():
            kind, data, hold = chunk[i % len(chunk)]
            r = _send(box.port, data, hold)
            with lock:
                results.append((kind, r))
            i += 1

    ev = Events(box.port)  # a phone following the game: one slot of four
    box.roll((6, 2))
    ev.wait(lambda x: x["state"] == "move" and x["throw"] == [6, 2])
    # four clients at once besides: one more than the box has slots left
    threads = [threading.Thread(target=worker, args=(reqs[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    # the box plays meanwhile: a flip, pushed within the promise of its LEDs
    before = box.led_lines(0)[-1][1][7]
    sent = time.monotonic()
    box.tile(8, True)
    seen, _ = ev.wait(lambda x: 8 not in x["up"])
    end = time.monotonic() + 2
    while not (after := [t for t, x in box.led_lines(sent) if x[7] != before]):
        assert time.monotonic() < end, "tile 8's LED never changed"
        time.sleep(0.01)
    flip_s = seen - after[0]
    assert flip_s <= PUSH_S, flip_s
    flipped.set()
    ev.close()
    for t in threads:
        t.join(300)
    assert len(results) >= 1000
    allowed = {"garbage": {"400", "dropped"}, "long-line": {"400", "dropped"},
               "headers": {"400", "dropped"}, "big-body": {"413", "dropped"},
               "bad-json": {"400", "403"}, "method": {"405"}, "missing": {"404"},
               "no-version": {"400"}, "binary": {"400", "200"}, "unpaired": {"403"},
               "bad-names": {"400"}, "half": {"dropped", "400"}}
    # any may be turned away (503: four at once) or reset by a close racing the client's
    bad = [(k, r) for k, r in results if r not in allowed[k] | {"503", "dropped"}]
    assert not bad, bad[:10]
    answered = [(k, r) for k, r in results if k != "half" and r != "dropped"]
    for k in allowed:  # every kind met its own answer, not only the busy one
        assert [r for kk, r in results if kk == k and r in allowed[k] - {"dropped"}] or \
            k == "half" and any(kk == k for kk, _ in results), k
    tally: dict[tuple[str, str], int] = {}
    for kr in results:
        tally[kr] = tally.get(kr, 0) + 1
    assert len(answered) >= 0.9 * len([k for k, _ in results if k != "half"]), sorted(
        tally.items())
    counts: dict[str, int] = {}
    for _, r in results:
        counts[r] = counts.get(r, 0) + 1
    # the last ones end; the event stream's at its next write to the phone gone (a change,
    # or the keep-alive every 5 s: the second write after a close fails)
    end = time.monotonic() + 12
    while (f := box.figures())["clients"] and time.monotonic() < end:
        time.sleep(0.1)
    print("statuses", sorted(counts.items()), "flip seen after %.3f s" % flip_s, f)
    assert box.alive() and f["clients"] == 0
    assert counts.get("503", 0) <= f["refused"]  # (and the test's own polls turned away)
    # and plays on: the turn's next throw and move; no fault
    box.wait_state(lambda x: x["state"] == "ready" and 8 not in x["open"])
    box.roll((5, 1))
    box.wait_state(lambda x: x["state"] == "move" and x["throw"] == [5, 1])
    box.tile(6, True)
    box.wait_state(lambda x: x["state"] in ("ready", "turn-end") and 6 not in x["open"])
    assert not any('"ev": "fault"' in x for _, x in box.lines)
    assert box.request("GET", "/api/names")[1]["seats"] == [None] * 4  # no name got through


def test_more_clients_than_four_are_turned_away_and_the_slots_come_back(box):
    socks = []
    for _ in range(4):  # four event streams: every slot taken
        s = socket.create_connection(("127.0.0.1", box.port), timeout=5)
        s.sendall(b"GET /api/events HTTP/1.1\r\n\r\n")
        assert s.recv(64).startswith(b"HTTP/1.0 200")
        socks.append(s)
    assert _send(box.port, b"GET /api/state HTTP/1.1\r\n\r\n", False) == "503"
    for s in socks:
        s.close()
    box.tile(5, True)  # a change: the streams' next write finds them gone, their slots free
    assert _send(box.port, b"GET /api/state HTTP/1.1\r\n\r\n", False) in ("200", "503")
    box.wait_state(lambda x: 5 not in x["up"])


def test_slow_clients_are_dropped_and_their_slots_come_back(box):
    """Four requests that never finish their headers take every slot; the box drops them
    after its time for a request's head, and serves again."""
    slow = []
    t = time.monotonic()
    for _ in range(4):
        s = socket.create_connection(("127.0.0.1", box.port), timeout=10)
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: b")
        slow.append(s)
    time.sleep(0.2)
    assert _send(box.port, b"GET /api/state HTTP/1.1\r\n\r\n", False) == "503"
    for s in slow:
        got = s.recv(64)  # the box hangs up on it: an error, or nothing
        assert got == b"" or got.startswith(b"HTTP/1.0 400"), got
        s.close()
    waited = time.monotonic() - t
    assert 2.5 < waited < 6, waited  # the box's 3 s for a request's head
    assert box.state()["tiles"] == 9


def test_a_whole_game_gives_its_log_to_shutbox_report_and_its_records(tmp_path):
    """One player's game to its end, played on the box: the log downloaded from the page is
    what `shutbox report` reads; the records and the settings in words follow the box's."""
    import subprocess
    import sys

    box = WebBox(tmp_path / "flash", players=1)
    try:
        assert box.request("GET", "/api/settings")[1]["players"] == "1"
        assert box.request("GET", "/api/records")[1] == {"best": None, "turns": 0,
                                                         "boxes_shut": 0, "games": 0}
        box.wait_state(lambda s: s["state"] in ("setup", "ready"))
        for faces, tile in [((4, 5), 9), ((4, 4), 8), ((3, 4), 7), ((3, 3), 6), ((2, 3), 5),
                            ((2, 2), 4), ((1, 2), 3)]:
            box.roll(faces)
            box.wait_state(lambda s: s["state"] == "move")
            box.tile(tile, True)
            box.wait_state(lambda s, t=tile: s["state"] == "ready" and t not in s["open"])
        box.roll((6, 6))  # 12 from 1 and 2: the turn ends, 3 to score
        s = box.wait_state(lambda s: s["state"] == "turn-end", timeout=8)
        assert s["scores"] == [3]
        time.sleep(1.0)  # the score shows before Roll passes on
        box.roll((1, 1))
        s = box.wait_state(lambda s: s["state"] == "game-end")
        assert s["winners"] == [1]
        status, log = box.request("GET", "/api/log")
        assert status == 200
        evs = [json.loads(x)["ev"] for x in log.splitlines()]
        assert evs[0] == "settings" and evs[-1] == "winner" and evs.count("score") == 1
        path = tmp_path / "game.jsonl"
        path.write_text(log)
        r = subprocess.run([sys.executable, "-m", "shutbox_host.cli", "report", str(path)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "1 game, 1 whole turn" in r.stdout
        assert box.request("GET", "/api/records")[1] == {"best": 3, "turns": 1,
                                                         "boxes_shut": 0, "games": 1}
    finally:
        box.close()


def test_a_server_that_cannot_start_leaves_the_box_playing(tmp_path):
    """The port taken (as a network that fails): one line says so, and the box plays on."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        box = WebBox(tmp_path / "flash", port=taken.getsockname()[1])
        try:
            assert not box.serving
            rec = box.wait_log("companion")
            assert rec["error"] == "OSError"
            logschema.check(rec)  # a record of the box's log (docs/log-format.md)
            box.wait_log("turn")
            n = len(box.lines)
            box.roll((2, 5))
            assert box.wait_log("throw", after=n)["dice"] == [2, 5]
            box.tile(7, True)
            assert box.wait_log("move", after=n)["shut"] == [7]
            assert box.alive()
        finally:
            box.close()

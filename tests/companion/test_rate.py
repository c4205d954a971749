# The companion's rate per address: a phone that asks nonstop gets 429, others are served.
"""companion.web keeps each address to one request every 200 ms on average, ten at once
(the page asks for seven as it opens): beyond, a ``429 Too Many Requests`` with a one-line
reason and ``Retry-After``, and the connection closed, before the request takes one of the
four slots; another address is served all along, and the box plays on. On the unix port with
real sockets on 127.0.0.1 (a second client from 127.0.0.2: Linux routes the whole 127/8 to
the loopback)."""

from __future__ import annotations

import json
import socket
import time

import pytest

from shutbox_host.box.webbox import WebBox

_EVERY_S = 0.2  # companion.web's _EVERY_MS
_BURST = 10  # its _BURST


@pytest.fixture
def box(tmp_path):
    b = WebBox(tmp_path / "flash", rate=True)
    yield b
    b.close()


def _get(port: int, source: str = "127.0.0.1") -> tuple[int, dict, bytes]:
    """GET /api/state from *source*: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10,
                                  source_address=(source, 0)) as s:
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: box\r\n\r\n")
        s.shutdown(socket.SHUT_WR)
        got = b""
        while chunk := s.recv(4096):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(x.split(": ", 1) for x in lines[1:])
    assert int(headers["Content-Length"]) == len(body), got
    return int(lines[0].split()[1]), headers, body


def test_a_phone_polling_nonstop_is_held_to_its_rate_with_a_clear_429(box):
    box.wait_state(lambda s: s["state"] in ("setup", "ready"))  # (the harness: no rate yet)
    f0 = box.figures()
    time.sleep(_EVERY_S * _BURST)  # the harness's own polls paid for
    t0 = time.monotonic()
    codes = []
    other = t0
    while time.monotonic() - t0 < 3:
        status, headers, body = _get(box.port)
        codes.append(status)
        if status == 429:
            assert headers["Retry-After"] == "1"
            err = json.loads(body)
            assert err["status"] == 429 and "\n" not in err["error"], err
            assert err["error"] == ("over 5 requests a second from this address: wait a "
                                    "second")
        else:
            assert status == 200 and json.loads(body)["tiles"] == 9
        # another address meanwhile, twice a second: its own rate, served
        if time.monotonic() - other > 0.5:
            other = time.monotonic()
            assert _get(box.port, "127.0.0.2")[0] == 200
    span = time.monotonic() - t0
    ok = codes.count(200)
    # the burst at once, then one every 200 ms (a request's own time besides: 1 more)
    assert codes[:_BURST] == [200] * _BURST, codes[:20]
    assert _BURST + span / _EVERY_S - 2 <= ok <= _BURST + span / _EVERY_S + 1, (ok, span)
    assert codes.count(429) == len(codes) - ok > 50  # (it asked hundreds of times)
    f = box.figures()
    assert f["limited"] - f0["limited"] == codes.count(429)
    assert f["refused"] == f0["refused"]  # none was turned away for a slot
    # paused for its Retry-After, it is served again; and the box plays on
    time.sleep(1)
    assert _get(box.port)[0] == 200
    box.tile(5, True)
    box.wait_state(lambda s: 5 not in s["up"])


# a phone's GET as browsers send it: its line and headers, some 600 bytes (more than one read)
_PHONE = (b"GET /api/state HTTP/1.1\r\nHost: 192.168.4.1\r\nConnection: keep-alive\r\n"
          b"User-Agent: Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, "
          b"like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36\r\nAccept: */*\r\n"
          b"Referer: http://192.168.4.1/\r\nAccept-Encoding: gzip, deflate\r\n"
          b"Accept-Language: en-GB,en-US;q=0.9,en;q=0.8,fr;q=0.7,de;q=0.6,es;q=0.5\r\n"
          b"X-Requested-With: shutbox\r\nSec-CH-UA: \"Chromium\";v=\"131\", "
          b"\"Not_A Brand\";v=\"24\", \"Google Chrome\";v=\"131\"\r\nSec-CH-UA-Mobile: ?1\r\n"
          b"Sec-CH-UA-Platform: \"Android\"\r\nDNT: 1\r\nCache-Control: no-cache\r\n\r\n")


def _held(box):
    """Spend 127.0.0.1's burst and more: its next request is over the rate."""
    box.wait_state(lambda s: s["state"] in ("setup", "ready"))
    for _ in range(_BURST + 2):
        _get(box.port)


def _answer(s: socket.socket) -> bytes:
    got = b""
    while chunk := s.recv(4096):
        got += chunk
    return got


def test_a_phone_held_to_its_rate_gets_its_429_whatever_the_size_of_its_request(box):
    """A phone's request is some 600 bytes; the server reads it all before the close (a
    socket closed on unread data resets the connection: the phone would get a reset, not
    its 429). It keeps its connection open, as browsers do: the server stops at its
    headers' end."""
    assert len(_PHONE) > 512
    _held(box)
    with socket.create_connection(("127.0.0.1", box.port), timeout=10) as s:
        s.sendall(_PHONE)
        got = _answer(s)  # (the server closes: no shutdown of ours)
    assert got.startswith(b"HTTP/1.0 429 Too Many Requests\r\n"), got
    assert got.endswith(b"wait a second\", \"status\": 429}"), got

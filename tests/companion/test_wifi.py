# The companion's networking on the unix port: the simulated radio, a real DNS socket on 127.0.0.1.
"""companion.wifi with sim/network.py (the Pico W's network.WLAN, simulated): without a known
network the box opens its own WPA2 access point, named and keyed from its chip id, and its DNS
answers every A query with the box's address (real UDP on 127.0.0.1); a page that is not the
box's redirects to it (the captive portal); a paired page gives it a home network, which it
joins (a wrong password: its own network again), keeps in its flash and joins at the next
power-up."""

from __future__ import annotations

import json
import random
import re
import socket
import struct
import time

import pytest
from backends import paired

from shutbox_host.box.webbox import WebBox


@pytest.fixture
def box(tmp_path):
    b = WebBox(tmp_path / "flash", wifi=True)
    yield b
    b.close()


def _query(name: str, qtype: int = 1, qid: int = 0x1234) -> bytes:
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\x00"
    return struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + q + struct.pack(">HH", qtype, 1)


def _ask(port: int, packet: bytes, timeout: float = 1.0) -> bytes | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(packet, ("127.0.0.1", port))
        try:
            return s.recv(512)
        except TimeoutError:
            return None


def test_without_a_known_network_the_box_opens_its_own_and_answers_every_name(box):
    rec = box.wait_log("wifi")
    key, name = box.ask("k", "K ").split()[1:]
    assert re.fullmatch(r"[1-6]{10}", key) and re.fullmatch(r"shutbox-[0-9a-f]{4}", name)
    assert rec == {"ev": "wifi", "mode": "ap", "ssid": name, "addr": "192.168.4.1"}
    status, st = box.request("GET", "/api/wifi")
    assert status == 200 and st["mode"] == "ap" and st["host"] == "shutbox.local"
    assert key not in json.dumps(st)  # the passphrase is the box's to show, on its dice
    # every A query: the box's address, the question echoed, the id kept
    for name_asked in ("connectivitycheck.gstatic.com", "captive.apple.com", "shutbox.local"):
        ans = _ask(box.dns_port, _query(name_asked, qid=0xBEEF))
        assert ans is not None
        qid, flags, qd, an = struct.unpack(">HHHH", ans[:8])
        assert (qid, flags & 0x8000, flags & 0xF, qd, an) == (0xBEEF, 0x8000, 0, 1, 1)
        assert ans[-4:] == bytes([192, 168, 4, 1])
        assert _query(name_asked)[12:] in ans
    # AAAA: no record (NOERROR); not a question (an answer, garbage): nothing
    ans = _ask(box.dns_port, _query("example.com", qtype=28))
    assert ans is not None and struct.unpack(">H", ans[6:8])[0] == 0
    rnd = random.Random(25)
    for _ in range(200):
        junk = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 40)))
        junk = junk[:2] + bytes([0x80 | (junk[2] if len(junk) > 2 else 0)]) + junk[3:]
        assert _ask(box.dns_port, junk, timeout=0.02) is None
    assert _ask(box.dns_port, _query("still.answers")) is not None
    # the captive portal: a phone's check lands on the page
    status, body = box.request("GET", "/generate_204")
    assert status == 302, (status, body)
    assert box.request("GET", "/api/nothing")[0] == 404  # the API's own errors stay
    assert box.state()["state"] in ("setup", "ready")  # the box plays on


def test_a_paired_page_gives_it_a_home_network_which_it_joins_and_keeps(box, tmp_path):
    box.wait_log("wifi")
    home = {"ssid": "home", "password": "correct-horse"}
    assert box.request("POST", "/api/wifi", body=home)[0] == 403  # not paired
    token = paired(box)
    for bad in ({"ssid": "x" * 33, "password": "12345678"}, {"ssid": "home", "password": "short"},
                {"password": "12345678"}):
        status, r = box.request("POST", "/api/wifi", body=bad, headers=token)
        assert status == 400 and r["error"], (bad, status, r)
    box.send("w home another-password")  # in range, with another password
    n = len(box.lines)
    status, r = box.request("POST", "/api/wifi", body=home, headers=token)
    assert status == 202 and r["joining"] == "home", r
    assert box.wait_log("wifi", after=n)["mode"] == "joining"
    err = box.wait_log("companion", after=n)
    assert err["error"] == "wifi" and "could not join home (status -3)" in err["text"], err
    back = box.wait_log("wifi", after=len(box.lines) - 1)
    assert back["mode"] == "ap"
    box.send("w home correct-horse")
    n = len(box.lines)
    status, r = box.request("POST", "/api/wifi", body=home, headers=token)
    assert status == 202
    deadline = time.monotonic() + 5
    while (st := box.request("GET", "/api/wifi")[1])["mode"] != "home":
        assert time.monotonic() < deadline, st
        time.sleep(0.05)
    assert st["ssid"] == "home" and st["addr"].startswith("192.168.1.")
    saved = json.loads((tmp_path / "flash" / "data" / "wifi").read_text())
    assert saved == home
    # the access point and its DNS closed
    assert _ask(box.dns_port, _query("example.com"), timeout=0.5) is None
    assert box.request("GET", "/generate_204")[0] == 404
    box.close()
    # the next power-up joins it (the network still in range: the harness's radio forgets
    # its range with the process, so this one has none: the join fails, its own network)
    again = WebBox(tmp_path / "flash", wifi=True)
    try:
        first = again.wait_log("wifi")
        assert first == {"ev": "wifi", "mode": "joining", "ssid": "home", "addr": ""}
        err = again.wait_log("companion")
        assert "could not join home (status -2)" in err["text"], err  # not in range here
    finally:
        again.close()

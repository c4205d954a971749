# The simulated radio (sim/network.py) against MicroPython v1.28's network.WLAN, on the unix port.
"""What the companion's tests rely on of sim/network.py, checked under MicroPython itself: one
object per interface, the link's STAT_* values through a join (found, wrong password, no
such network), the access point's addresses and default security (cyw43-driver's), config's
reads and writes (the password never read back), ipconfig, and the errors the rp2 port gives
(extmod/network_cyw43.c): an unknown interface, param or status query."""

from __future__ import annotations

import json

from shutbox_host import mp

_SCRIPT = """
import json, time, network
out = {}
sta = network.WLAN(network.STA_IF)
ap = network.WLAN(network.AP_IF)
out["same"] = sta is network.WLAN(network.STA_IF) and ap is network.WLAN(network.AP_IF)
out["idle"] = [sta.active(), sta.status(), sta.isconnected(), list(sta.ifconfig())]
try:
    sta.connect("home", "correct-horse")
    out["inactive"] = "no error"
except OSError as e:
    out["inactive"] = e.args[0]
sta.active(True)
network.networks["home"] = "correct-horse"
for key in ("wrong-password", "correct-horse"):
    sta.connect("home", key)
    first = sta.status()
    time.sleep_ms(network.JOIN_MS + 20)
    out[key] = [first, sta.status(), sta.isconnected()]
sta.connect("elsewhere", "whatever1")
time.sleep_ms(network.JOIN_MS + 20)
out["elsewhere"] = sta.status()
sta.connect("home", "correct-horse")
time.sleep_ms(network.JOIN_MS + 20)
out["joined"] = [list(sta.ifconfig()), list(sta.ipconfig("addr4")), sta.config("essid")]
ap.config(essid="shutbox-ab12", password="12345678", security=network.WLAN.SEC_WPA_WPA2)
ap.active(True)
out["ap"] = [list(ap.ifconfig()), ap.config("essid"), ap.config("security"), ap.isconnected(),
             ap.status("stations")]
network.stations[0] = 1
out["ap_station"] = ap.isconnected()
errs = []
for f in (lambda: ap.config("password"), lambda: ap.config("nonsense"),
          lambda: sta.status("stations"), lambda: ap.status("rssi"),
          lambda: network.WLAN(7), lambda: ap.config("essid", channel=1)):
    try:
        f()
        errs.append("no error")
    except (ValueError, TypeError) as e:
        errs.append(type(e).__name__)
out["errors"] = errs
network.hostname("shutbox")
out["host"] = [network.hostname(), sta.config("hostname")]
sta.active(False)
out["down"] = [sta.status(), sta.isconnected()]
print(json.dumps(out))
"""


def test_the_simulated_radio_keeps_the_rp2_ports_wlan_api():
    r = mp.run(_SCRIPT, heapsize="256k")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["same"]
    assert out["idle"] == [False, 0, False, ["0.0.0.0"] * 4]
    assert out["inactive"] == 1  # OSError(1), as the chip without its radio
    assert out["wrong-password"] == [1, -3, False]  # STAT_CONNECTING, STAT_WRONG_PASSWORD
    assert out["correct-horse"] == [1, 3, True]  # STAT_GOT_IP
    assert out["elsewhere"] == -2  # STAT_NO_AP_FOUND
    ip, mask, gw, dns = out["joined"][0]
    assert ip.startswith("192.168.1.") and mask == "255.255.255.0" and gw == dns == "192.168.1.1"
    assert out["joined"][1] == [ip, mask] and out["joined"][2] == "home"
    assert out["ap"] == [["192.168.4.1", "255.255.255.0", "192.168.4.1", "8.8.8.8"],
                         "shutbox-ab12", 0x00400006, False, []]
    assert out["ap_station"]
    assert out["errors"] == ["ValueError", "ValueError", "ValueError", "ValueError",
                             "ValueError", "TypeError"]
    assert out["host"] == ["shutbox", "shutbox"]
    assert out["down"] == [0, False]

# The companion's Wi-Fi: the home network the box knows, else its own access point and a DNS.
"""Networking a player can set up, on a Pico W whose radio runs (companion.picow).

At power-up the box joins the home network saved in ``/data/wifi`` (by the page's ``POST
/api/wifi`` or ``shutbox wifi`` over USB: ``save``). Without one, or when the join fails
(no such network, a wrong password, _JOIN_MS without an address), it opens its own access
point: WPA2 (AES), named ``shutbox-XXXX`` and with a passphrase of ten dice faces, both
derived from the chip's id (``machine.unique_id()``: ``ap_name``, ``passphrase``), so every
box has its own and shows it on its dice when asked (a power-up combination: companion.picow).
There a DNS server answers every A query with the box's address (``dns``; MicroPython's DHCP
server on the access point names the box as the phones' DNS server), so a phone that joins
lands on the page (its captive-portal check opens it). Either way the host name is
``shutbox``: the rp2 port's lwIP mDNS responder answers for it in the ``.local`` domain on
every interface the radio brings up. Each change of state is one log line, ``{"ev": "wifi", ...}``
with the mode (``home``, ``ap``, ``joining``), the network's name and the box's address.
"""

import asyncio
import json
import socket  # type: ignore[import-not-found]  # the Pico W's (not in the rp2 stubs)
import time

from micropython import const

_HOST = const("shutbox")  # network.hostname, and the mDNS name (in .local)
_JOIN_MS = const(20000)  # a join that has no address after this fails
_STEP_MS = const(250)  # the state of the join looked at this often
_DNS_MS = const(50)  # the DNS socket looked at this often while nothing comes
_DNS_BURST = const(8)  # queries answered in one slice of the box's time
_FACES = const(10)  # the access point's passphrase: this many dice faces
_WPA2_AES = const(0x00400004)  # cyw43-driver's CYW43_AUTH_WPA2_AES_PSK
_TTL = const(60)  # seconds a phone may keep the DNS answer
_FILE = const("/wifi")  # in the box's data folder, beside its settings


def passphrase(uid):
    """The access point's WPA2 passphrase for a chip id: _FACES dice faces (1-6), from a
    SHA-256 of the id (the same box, the same passphrase; another box, another)."""
    import hashlib

    h = hashlib.sha256(b"shutbox wifi " + bytes(uid)).digest()
    return "".join(str(1 + h[i] % 6) for i in range(_FACES))


def ap_name(uid):
    """The access point's name: shutbox- and four hex digits of a hash of the chip id."""
    import hashlib

    h = hashlib.sha256(b"shutbox name " + bytes(uid)).digest()
    return "shutbox-%02x%02x" % (h[0], h[1])


def check(ssid, password):
    """What is wrong with a home network's name and password in words, or None."""
    if not isinstance(ssid, str) or not 1 <= len(ssid.encode()) <= 32:
        return "the network's name is 1 to 32 bytes"
    if not isinstance(password, str) or password and not 8 <= len(password.encode()) <= 63:
        return "the password is 8 to 63 characters (none for an open network)"
    return None


def save(folder, ssid, password):
    """Save the home network for the next join (*folder*: the box's data folder); return
    what is wrong in words, or None."""
    wrong = check(ssid, password)
    if wrong is None:
        with open(folder + _FILE, "w") as f:
            f.write(json.dumps({"ssid": ssid, "password": password}))
    return wrong


def load(folder):
    """The saved home network (ssid, password), or None."""
    try:
        with open(folder + _FILE) as f:
            d = json.loads(f.read())
        if check(d["ssid"], d["password"]) is None:
            return d["ssid"], d["password"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def reply(query, ip):
    """The DNS answer to *query* (a packet): every A question answered with *ip* (4 bytes),
    any other with no record; None for what is no question (dropped)."""
    if len(query) < 17 or query[2] & 0x80 or query[4:6] != b"\x00\x01":
        return None
    i = 12
    while query[i]:  # the name's labels
        if query[i] & 0xC0:
            return None
        i += query[i] + 1
        if i >= len(query):
            return None
    end = i + 5
    if end > len(query):
        return None
    qtype = query[i + 1] << 8 | query[i + 2]
    a = qtype in (1, 255) and query[i + 3:i + 5] == b"\x00\x01"
    head = query[:2] + bytes((0x84 | query[2] & 1, 0x80, 0, 1, 0, 1 if a else 0, 0, 0, 0, 0))
    out = head + query[12:end]
    if a:
        out += b"\xc0\x0c\x00\x01\x00\x01\x00\x00" + bytes((0, _TTL, 0, 4)) + ip
    return out


async def dns(host, port, ip, out=None):
    """Answer DNS queries on *host*:*port* (UDP) with *ip* (text) forever; a socket that
    cannot be made is one log line through *out* and ends this task."""
    import select

    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(socket.getaddrinfo(host, port)[0][-1])
        s.setblocking(False)
    except OSError as e:
        if out is not None:
            out(json.dumps({"ev": "companion", "error": "dns", "text": str(e)}))
        return
    addr = bytes(int(x) for x in ip.split("."))
    p = select.poll()
    p.register(s, select.POLLIN)
    try:
        while True:
            n = 0
            while n < _DNS_BURST:  # a few at a time, then the box's turn
                for _ in p.ipoll(0):  # (ipoll: no list made while nothing comes)
                    n += 1
                    try:
                        data, client = s.recvfrom(512)
                        r = reply(data, addr)
                        if r is not None:
                            s.sendto(r, client)
                    except (OSError, IndexError):
                        pass  # a bad packet or a client gone: the next
                    break
                else:
                    break
            await asyncio.sleep_ms(0 if n else _DNS_MS)
    finally:
        s.close()


class Wifi:
    """The box's networking: the home network, else its access point (see the module)."""

    def __init__(self, network, uid, folder, out, dns_host="0.0.0.0", dns_port=53):
        self.net = network
        self.uid = uid
        self.folder = folder
        self.out = out
        self.dns_host = dns_host
        self.dns_port = dns_port
        self.mode = ""  # "joining", "home" or "ap"
        self.ssid = ""
        self.addr = ""
        self._since = time.ticks_ms()
        self._dns = None

    def _say(self):
        self.out(json.dumps({"ev": "wifi", "mode": self.mode, "ssid": self.ssid,
                             "addr": self.addr}))

    def start(self):
        """Set the host name; join the saved home network, or open the access point."""
        self.net.hostname(_HOST)
        known = load(self.folder)
        if known is None:
            self.open_ap()
        else:
            self.join(*known)

    def join(self, ssid, password):
        """Join *ssid* (the access point stays up until the join is done)."""
        sta = self.net.WLAN(self.net.STA_IF)
        sta.active(True)
        sta.connect(ssid, password)
        self.mode = "joining"
        self.ssid = ssid
        self._since = time.ticks_ms()
        self._say()

    def open_ap(self):
        """Open the box's own access point, and its DNS (the captive portal)."""
        sta = self.net.WLAN(self.net.STA_IF)
        if sta.active():
            sta.active(False)
        ap = self.net.WLAN(self.net.AP_IF)
        ap.config(essid=ap_name(self.uid), password=passphrase(self.uid), security=_WPA2_AES)
        ap.active(True)
        self.mode = "ap"
        self.ssid = ap_name(self.uid)
        self.addr = ap.ifconfig()[0]
        self._say()
        if self._dns is None:
            self._dns = asyncio.create_task(dns(self.dns_host, self.dns_port, self.addr,
                                                self.out))

    def _joined(self):
        """A join that got its address: the access point and its DNS close."""
        self.mode = "home"
        self.addr = self.net.WLAN(self.net.STA_IF).ifconfig()[0]
        ap = self.net.WLAN(self.net.AP_IF)
        if ap.active():
            ap.active(False)
        if self._dns is not None:
            self._dns.cancel()
            self._dns = None
        self._say()

    async def run(self):
        """Start (``start``), then follow each join to its end (home, or the access point
        again). A failure is one log line and ends the networking, never the box."""
        try:
            self.start()
            while True:
                if self.mode == "joining":
                    self._follow()
                await asyncio.sleep_ms(_STEP_MS)
        except Exception as e:  # noqa: BLE001 - the box plays on without its network
            self.out(json.dumps({"ev": "companion", "error": type(e).__name__,
                                 "text": str(e)}))

    def _follow(self):
        st = self.net.WLAN(self.net.STA_IF).status()
        if st == self.net.STAT_GOT_IP:
            self._joined()
        elif st < 0 or time.ticks_diff(time.ticks_ms(), self._since) > _JOIN_MS:
            self.out(json.dumps({"ev": "companion", "error": "wifi",
                                 "text": "could not join %s (status %d): the box's own network "
                                         "is open" % (self.ssid, st)}))
            self.open_ap()

    def state(self):
        """The networking for the page (no password)."""
        return {"mode": self.mode, "ssid": self.ssid, "addr": self.addr, "host": _HOST + ".local"}

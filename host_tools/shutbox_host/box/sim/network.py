# A stand-in for the Pico W's network module on MicroPython's unix port: the radio, simulated.
"""network.WLAN as MicroPython v1.28's rp2 port has it (extmod/network_cyw43.c and
extmod/modnetwork.c, with cyw43-driver 055d642's defaults), for the companion's tests: no
radio, no packets. What it keeps of the real one:

- ``WLAN(interface=STA_IF)``: one object per interface (the real ones are static);
  ``active()`` / ``active(bool)``; ``connect(ssid, key=None, *, security=-1, bssid=None,
  channel=0)``, ``disconnect()``, ``isconnected()``, ``status()`` (the link: ``STAT_IDLE`` 0,
  ``STAT_CONNECTING`` 1, 2 joined without an address yet, ``STAT_GOT_IP`` 3,
  ``STAT_CONNECT_FAIL`` -1, ``STAT_NO_AP_FOUND`` -2, ``STAT_WRONG_PASSWORD`` -3),
  ``status("stations")`` (the access point's, else ValueError), ``ifconfig()`` /
  ``ifconfig(tuple)``, ``ipconfig("addr4")``, ``config(name)`` (essid / ssid, security, mac,
  hostname, channel, pm, txpower; the password cannot be read back: ValueError, as on the
  chip) and ``config(essid=, password= / key=, security=, hostname=, channel=, pm=)``;
  the constants ``WLAN.SEC_OPEN``, ``SEC_WPA_WPA2``, ``SEC_WPA3``, ``SEC_WPA2_WPA3``,
  ``PM_*``, ``IF_STA``, ``IF_AP``; ``network.hostname()``.
- The addresses cyw43-driver gives: the access point at 192.168.4.1/24 (its gateway too;
  MicroPython's DHCP server on it names 192.168.4.1 as the DNS server); a station joined
  here gets 192.168.1.<n>; its default security is WPA2-AES (0x00400004).

What differs (docs/companion.md says it too): the networks in range are ``networks``
({ssid: password}), set by the harness; a join takes ``JOIN_MS`` of the clock and then is
up, or fails with the reason the real driver would give (no such network, wrong password);
nothing is ever sent or received (the server and the DNS listen on the PC's own sockets);
``connect`` on an interface that is not active raises OSError(1), as the chip without its
radio does (the real error on an inactive radio differs); ``stations`` is a count the
harness sets; scan() returns the networks in range, each as one tuple with made-up
BSSID, channel and RSSI.
"""

import time

STA_IF = 0
AP_IF = 1
STAT_IDLE = 0
STAT_CONNECTING = 1
STAT_GOT_IP = 3
STAT_CONNECT_FAIL = -1
STAT_NO_AP_FOUND = -2
STAT_WRONG_PASSWORD = -3
JOIN_MS = 300  # a join's time here
networks = {}  # the networks in range: {ssid: password ("" for an open one)}
stations = [0]  # phones joined to the access point
_host = ["PicoW"]  # MICROPY_PY_NETWORK_HOSTNAME_DEFAULT of RPI_PICO_W
_WPA2_AES = 0x00400004  # cyw43-driver's CYW43_AUTH_WPA2_AES_PSK: the access point's default
_ZERO = ("0.0.0.0", "0.0.0.0", "0.0.0.0", "0.0.0.0")


def hostname(name=None):
    """The host name the DHCP client and the mDNS responder use (network.hostname)."""
    if name is None:
        return _host[0]
    _host[0] = name
    return None


class WLAN:
    IF_STA = STA_IF
    IF_AP = AP_IF
    SEC_OPEN = 0
    SEC_WPA_WPA2 = 0x00400006
    SEC_WPA3 = 0x01000004
    SEC_WPA2_WPA3 = 0x01400004
    PM_NONE = 16
    PM_PERFORMANCE = 10555714
    PM_POWERSAVE = 17
    _all = {}

    def __new__(cls, interface=STA_IF):
        if interface not in (STA_IF, AP_IF):
            raise ValueError("invalid interface")
        w = cls._all.get(interface)
        if w is None:
            w = cls._all[interface] = object.__new__(cls)
            w._init(interface)
        return w

    def __init__(self, interface=STA_IF):
        pass

    def _init(self, itf):
        self.itf = itf
        self._active = False
        self._ssid = "PicoW" if itf == AP_IF else ""
        self._key = "picoW123" if itf == AP_IF else ""
        self._security = _WPA2_AES
        self._status = STAT_IDLE
        self._joined = 0
        self._want = None
        self._ip = _ZERO
        self._channel = 1
        self._pm = self.PM_PERFORMANCE

    def __repr__(self):
        return "<CYW43 %s %s %s>" % ("STA" if self.itf == STA_IF else "AP",
                                     "up" if self._active else "down", self.ifconfig()[0])

    def active(self, value=None):
        if value is None:
            return self._active
        value = bool(value)
        if not value and self.itf == STA_IF:
            self.disconnect()
        self._active = value
        if self.itf == AP_IF:
            self._ip = ("192.168.4.1", "255.255.255.0", "192.168.4.1", "8.8.8.8") if value \
                else _ZERO
        return None

    def connect(self, ssid=None, key=None, *, security=-1, bssid=None, channel=0):
        if self.itf != STA_IF:
            raise OSError(1)
        if not self._active or ssid is None:
            raise OSError(1)
        self._want = (ssid, key or "")
        self._status = STAT_CONNECTING
        self._joined = time.ticks_ms()
        self._ip = _ZERO

    def disconnect(self):
        self._want = None
        self._status = STAT_IDLE
        self._ip = _ZERO

    def _link(self):
        if self.itf == STA_IF and self._status == STAT_CONNECTING and self._want is not None:
            if time.ticks_diff(time.ticks_ms(), self._joined) >= JOIN_MS:
                ssid, key = self._want
                if ssid not in networks:
                    self._status = STAT_NO_AP_FOUND
                elif networks[ssid] != key:
                    self._status = STAT_WRONG_PASSWORD
                else:
                    self._status = STAT_GOT_IP
                    self._ssid = ssid
                    n = 10 + sum(ssid.encode()) % 200
                    self._ip = ("192.168.1.%d" % n, "255.255.255.0", "192.168.1.1",
                                "192.168.1.1")
        return self._status

    def status(self, param=None):
        if param is None:
            if self.itf == AP_IF:
                return STAT_GOT_IP if self._active else STAT_IDLE
            return self._link()
        if param == "stations":
            if self.itf != AP_IF:
                raise ValueError("AP required")
            return [(bytes(6),)] * stations[0]
        if param == "rssi":
            if self.itf != STA_IF:
                raise ValueError("STA required")
            return -50
        raise ValueError("unknown status param")

    def isconnected(self):
        if self.itf == AP_IF:
            return self._active and stations[0] > 0
        return self._link() == STAT_GOT_IP

    def ifconfig(self, config=None):
        if config is None:
            self._link()
            return self._ip
        self._ip = tuple(config)
        return None

    def ipconfig(self, *names, **kw):
        if kw:
            return None
        if len(names) != 1:
            raise TypeError("must query one param")
        if names[0] == "addr4":
            return self.ifconfig()[:2]
        if names[0] == "gw4":
            return self.ifconfig()[2]
        raise ValueError("unexpected key")

    def scan(self):
        return [(s.encode(), bytes(6), 6, -50, 0 if not k else 5, 1)
                for s, k in networks.items()]

    def config(self, *args, **kw):
        if args and kw:
            raise TypeError("can't specify pos and kw args")
        if args:
            if len(args) != 1:
                raise TypeError("must query one param")
            q = args[0]
            if q in ("essid", "ssid"):
                return self._ssid if self.itf == AP_IF or self._status == STAT_GOT_IP else ""
            if q == "security":
                return self._security
            if q == "mac":
                return b"\x28\xcd\xc1\x00\x00\x01"
            if q == "hostname":
                return _host[0]
            if q == "channel":
                return self._channel
            if q == "pm":
                return self._pm
            if q == "txpower":
                return 31
            raise ValueError("unknown config param")
        for k, v in kw.items():
            if k in ("essid", "ssid"):
                self._ssid = str(v)
            elif k in ("password", "key"):
                self._key = str(v)
            elif k == "security":
                self._security = int(v)
            elif k == "hostname":
                _host[0] = str(v)
            elif k == "channel":
                self._channel = int(v)
            elif k == "pm":
                self._pm = int(v)
            elif k not in ("antenna", "trace", "monitor", "txpower"):
                raise ValueError("unknown config param")
        return None

# `shutbox log`: record the box's game log from its USB serial port, with this PC's timestamps.
"""Record what the box prints (one JSON object per line: docs/log-format.md) into a file.

``shutbox log [--port P] [-o FILE]`` opens the box's serial port (the one Pico on USB, or
*P*), and appends every record the box prints to FILE (or writes it to stdout), one line
each, with ``"t"``: this PC's UTC time when the line arrived. Each line is flushed as it is
written, so nothing recorded is lost whatever ends the recorder. A ``settings`` record of a
format this PC knows also gets ``"names"``: its values by name (shutbox.setnames, the
firmware's own vocabulary). When the box resets or is unplugged the port goes away: the
recorder writes a ``link`` record (``lost``), waits for the port to come back (a replugged
Pico may come back under another name: without --port it is found again by its USB vendor
id), writes ``link`` ``open`` and goes on. Ctrl-C ends it cleanly.

What the box prints that is not a record (MicroPython's banner after a reset, a traceback, a
line cut short by a reset) is not recorded: one line on stderr says so. A record of a newer
format than this PC reads (its ``v``) is recorded as it came, with one warning line.

``read(path)`` (and ``shutbox log --check FILE...``) reads a recorded log back, refusing, in
one line naming the file and line, a line that is not a JSON record or a format newer than
``FORMAT``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from shutbox_host.errors import UserError
from shutbox_host.model.boards import PICO_VID

FORMAT = 3  # the newest log format (docs/log-format.md) this PC reads: the box's "v"
BAUD = 115200  # any: the Pico's port is USB, not a UART
_POLL_S = 0.2  # how often a missing port is looked for, and a read's timeout
_GONE_S = 2.0  # after a port was lost: how long its name may take to go away


def now_utc() -> str:
    """This PC's UTC time, to the millisecond, as the log's "t" (2026-05-01T12:00:00.123Z)."""
    t = _dt.datetime.now(_dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def settings_names(rec: dict) -> dict | None:
    """Return the settings record *rec*'s values by name (shutbox.setnames: every option,
    then ``code``), or None if this PC does not know its format."""
    from shutbox import setnames

    values = rec.get("values")
    # version 1 had every option before sleep (19), version 2 those before real-dice (20),
    # version 3 all of them: 23 before resign, 24 before the long game (the options
    # appended since: not named)
    n = {1: 19, 2: 20, 3: len(setnames.OPTIONS)}.get(rec.get("v"))
    if n is None or not isinstance(values, list) or len(values) != n and not (
            rec.get("v") == 3 and 23 <= len(values) < n):
        return None
    n = len(values)
    out = {}
    for option, choices, v in zip(setnames.OPTIONS[:n], setnames.CHOICES[:n], values,
                                  strict=True):
        if not isinstance(v, int) or not 0 <= v < len(choices):
            return None
        out[option] = choices[v]
    out["code"] = rec.get("code", "off")
    return out


def parse_line(text: str) -> dict:
    """Return the record a line of the log holds; ValueError (why, in words) if it holds
    none: not JSON, not an object, no "ev", or a format newer than FORMAT."""
    try:
        rec = json.loads(text)
    except ValueError:
        raise ValueError("not a JSON record") from None
    if not isinstance(rec, dict) or not isinstance(rec.get("ev"), str):
        raise ValueError("JSON, but not a record (an object with \"ev\")")
    v = rec.get("v")
    if v is not None and (not isinstance(v, int) or v > FORMAT):
        raise ValueError("log format %s, newer than this shutbox reads (%d): update shutbox"
                         % (v, FORMAT))
    return rec


def read(path: str | Path) -> list[dict]:
    """Return the records of the log file *path* (recorded by `shutbox log`, or the box's
    lines as they came); UserError in one line at the first line that is not a record."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise UserError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    return list(records(lines, str(path)))


def records(lines: Iterable[str], name: str = "log") -> Iterator[dict]:
    """Yield the records of *lines* (blank ones skipped); UserError naming *name* and the
    line number at the first one that is not a record of a format this PC reads."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield parse_line(line)
        except ValueError as exc:
            raise UserError("%s:%d: %s: %s" % (name, n, exc, _clip(line))) from None


def _clip(text: str, n: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= n else text[:n] + "...")


# ----- the recorder -----


def find_pico() -> str | None:
    """Return the serial port of the one Pico on USB, None if there is none; UserError if
    there are several (the recorder cannot choose)."""
    import serial.tools.list_ports

    found = [p.device for p in serial.tools.list_ports.comports() if p.vid == PICO_VID]
    if len(found) > 1:
        raise UserError("several Picos found (%s): choose one with --port" % ", ".join(found))
    return found[0] if found else None


def _open(path: str, first: bool):
    """Open the serial port *path*; return it, or None while it is not there (or, after the
    first time, busy). UserError when it can never work: not a serial port, no permission,
    or (the first time) another program has it."""
    import serial

    posix = path.startswith("/")
    if posix and not os.path.exists(path):
        return None
    if posix and not os.access(path, os.R_OK | os.W_OK):
        raise UserError("no permission to open %s (on Linux: add yourself to the dialout "
                        "group, then log in again)" % path)
    if posix:
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return None  # going away as we look
        try:
            tty = os.isatty(fd)
        finally:
            os.close(fd)
        if not tty:
            raise UserError("%s is not a serial port (a Pico's is /dev/ttyACM0 on Linux, "
                            "/dev/cu.usbmodem... on macOS)" % path)
    try:
        return serial.Serial(path, BAUD, timeout=_POLL_S, exclusive=True)
    except serial.SerialException as exc:
        if "lock" in str(exc).lower():
            if first:
                raise UserError("cannot open %s: another program is using it (Thonny, "
                                "mpremote, screen?)" % path) from None
        return None
    except OSError:
        return None


class Recorder:
    """The recorder's state: where records go, what it has said, what it has written."""

    def __init__(self, out, err=sys.stderr):
        self.out = out
        self.err = err
        self.written = 0  # records written (the box's and the link records)
        self.newer: set = set()  # formats newer than FORMAT already warned about

    def say(self, text: str) -> None:
        """One line for the person at the PC (stderr)."""
        print("shutbox log: " + text, file=self.err, flush=True)

    def write(self, rec: dict) -> None:
        """Write one record with this PC's time, at once (flushed: never lost)."""
        self.out.write(json.dumps({"t": now_utc(), **rec}) + "\n")
        self.out.flush()
        self.written += 1

    def line(self, raw: bytes) -> None:
        """Take one line the box printed."""
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            return
        if not text.startswith("{"):
            self.say("not a log record, not recorded: %s" % _clip(text))
            return
        try:
            rec = parse_line(text)
        except ValueError as exc:
            v = _version_of(text)
            if v is None:
                self.say("a line from the box that is not a record (%s), not recorded: %s"
                         % (exc, _clip(text)))
                return
            rec = json.loads(text)  # a newer format: recorded as it came
            if v not in self.newer:
                self.newer.add(v)
                self.say("the box writes log format %s, newer than this shutbox reads (%d): "
                         "recorded as it comes; update shutbox to read it" % (v, FORMAT))
        if rec.get("ev") == "settings" and "names" not in rec:
            names = settings_names(rec)
            if names is not None:
                rec["names"] = names
        self.write(rec)


def _version_of(text: str):
    """The "v" of a JSON record of a newer format, else None."""
    try:
        rec = json.loads(text)
    except ValueError:
        return None
    if isinstance(rec, dict) and isinstance(rec.get("ev"), str):
        v = rec.get("v")
        if isinstance(v, int) and v > FORMAT:
            return v
    return None


def record(port: str | None, rec: Recorder, should_stop=lambda: False) -> None:
    """Record from *port* (None: the one Pico on USB) into *rec* until Ctrl-C (or
    *should_stop*()); reconnect whenever the port goes away and comes back."""
    import serial

    first = True
    waiting = False
    while not should_stop():
        path = port if port else find_pico()
        ser = _open(path, first) if path else None
        first = False
        if ser is None:
            if not waiting:
                waiting = True
                rec.say("waiting for %s (Ctrl-C to stop)" % (
                    path or "a Pico on USB (vendor 2E8A)"))
            time.sleep(_POLL_S)
            continue
        waiting = False
        rec.say("recording from %s (Ctrl-C to stop)" % path)
        rec.write({"ev": "link", "state": "open", "port": path})
        buf = b""
        try:
            while not should_stop():
                data = ser.read(4096)
                if not data:
                    continue
                buf += data
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    rec.line(raw)
        except (serial.SerialException, OSError):
            if buf.strip():
                rec.say("a line cut short when the port went away, not recorded: %s"
                        % _clip(buf.decode("utf-8", errors="replace")))
            rec.write({"ev": "link", "state": "lost", "port": path})
            rec.say("%s went away (the box reset or was unplugged): waiting for it" % path)
            waiting = True
            # the port's name lingers a moment after its device is gone (a symbolic link, a
            # device node being removed): give it time to go, or the name could be opened
            # again before the box is back, onto nothing (or, for a pty, onto another's)
            gone_by = time.monotonic() + _GONE_S
            while os.path.exists(path) and time.monotonic() < gone_by and not should_stop():
                time.sleep(_POLL_S)
        finally:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass


class _CtrlC(threading.Event):
    """Set by Ctrl-C (SIGINT) while the recorder runs; ``restore`` puts the handler back.

    The recorder looks at it between two lines (within _POLL_S): Ctrl-C as an exception
    wherever it lands would, mid-record, leave a record written but not counted ("stopped: N
    records" one short) and, mid-message, a line on stderr without its end."""

    def __init__(self):
        super().__init__()
        self._old = None
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._old = signal.signal(signal.SIGINT, lambda *_: self.set())

    def restore(self) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of `shutbox log`."""
    parser.add_argument("--port", help="the box's serial port (default: the one Pico on USB)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="append the records to FILE (default: write them to stdout)")
    parser.add_argument("--check", nargs="+", metavar="LOG",
                        help="record nothing: read these logs and say whether this shutbox "
                        "reads them (every line a record of a format it knows)")


def run(args: argparse.Namespace) -> int:
    """Record until Ctrl-C (or check logs with --check)."""
    if args.check:
        for path in args.check:
            recs = read(path)
            versions = sorted({r["v"] for r in recs if "v" in r})
            print("%s: %d records, format %s" % (path, len(recs), ", ".join(
                str(v) for v in versions) or "unstated"))
        return 0
    if args.output:
        try:
            out = open(args.output, "a", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise UserError("cannot write %s: %s" % (args.output, exc.strerror or exc)) from None
    else:
        out = sys.stdout
    rec = Recorder(out)
    stop = _CtrlC()
    try:
        record(args.port, rec, stop.is_set)
    except KeyboardInterrupt:  # Ctrl-C where no flag could be set (not the main thread)
        pass
    finally:
        stop.restore()
        if out is not sys.stdout:
            out.close()
    rec.say("stopped: %d records %s" % (rec.written, "in " + args.output if args.output
                                        else "written"))
    return 0

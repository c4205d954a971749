# `shutbox wifi`: give a Pico W box its home network over USB, as its page's Wi-Fi form does.
"""Save a home network on a Pico W flashed with the companion (companion.wifi.save, run on the
board through mpremote's raw REPL: shutbox_host.pico.flash's Board), then restart the box, which
joins it (else it opens its own network again: docs/companion.md). Every error is one line:
no board, not a Pico W, no companion on it, a name or password the radio cannot take."""

from __future__ import annotations

from shutbox_host.errors import UserError

# On the board: the version the launcher starts, its companion's save; prints its answer
_SAVE = """\
import os, sys
try:
    with open('/.shutbox/current') as f:
        sys.path.insert(0, '/.shutbox/' + f.read().strip())
    from companion import wifi
except (OSError, ImportError):
    print(repr('no companion'))
else:
    try:
        os.mkdir('/data')
    except OSError:
        pass
    print(repr(wifi.save('/data', %r, %r)))
"""


def check(ssid: str, password: str) -> str | None:
    """What the radio cannot take, in words (companion.wifi.check's rules), or None."""
    if not 1 <= len(ssid.encode()) <= 32:
        return "the network's name is 1 to 32 bytes"
    if password and not 8 <= len(password.encode()) <= 63:
        return "the password is 8 to 63 characters (none for an open network)"
    return None


def save(port: str | None, ssid: str, password: str, out=print) -> None:
    """Save the network on the board at *port* (None: the one Pico on USB) and restart it."""
    from shutbox_host.model import boards
    from shutbox_host.pico import flash

    wrong = check(ssid, password)
    if wrong is not None:
        raise UserError(wrong)
    port = port or flash.find_port()
    board = flash.Board(port)
    try:
        platform, _name, _version, _mpy, machine, build = board.eval(flash._IDENTIFY)
        found = boards.identify(machine, build)
        if platform != "rp2" or found is None or not found.wireless:
            raise UserError("the board on %s is %s: it has no radio (a Pico W or a Pico 2 W "
                            "has)" % (port, "a " + found.product if found else repr(machine)))
        said = board.eval(_SAVE % (ssid, password))
        if said == "no companion":
            raise UserError("the box on %s has no companion: run `shutbox flash` first" % port)
        if said is not None:
            raise UserError("the box refused the network: %s" % said)
        board.reset()
    finally:
        board.close()
    out("the %s on %s keeps %s and restarts to join it; then open http://shutbox.local/ "
        "(or the address its log gives). If the join fails it opens its own network again."
        % (found.short, port, ssid))


def configure(parser):
    """Add the wifi flags."""
    parser.add_argument("ssid", help="the home network's name")
    parser.add_argument("--password", default=None,
                        help="its password, 8 to 63 characters (default: asked for, unseen)")
    parser.add_argument("--open", action="store_true", help="an open network: no password")
    parser.add_argument("--port", help="serial port of the Pico W (default: find it on USB)")


def run(args):
    password = args.password
    if args.open:
        password = ""
    elif password is None:
        import getpass
        import sys

        if not sys.stdin.isatty():
            raise UserError("give the network's password (--password PW) or --open")
        password = getpass.getpass("password of %s: " % args.ssid)
    save(args.port, args.ssid, password)
    return 0

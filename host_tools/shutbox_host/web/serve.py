# `shutbox web`: build the box's web page if needed and serve it on this machine (127.0.0.1).
"""Serve build/web/ (shutbox_host.web.build) on 127.0.0.1 and print its address.

A plain static server from the standard library: the page needs nothing else (no CDN, no
network). It serves on the loopback address only and sends ``Cache-Control: no-cache`` so a
rebuilt page is picked up by a reload. The browser keeps the box (IndexedDB, localStorage)
per address, port included: so the port is PORT (8940) when it is free, the same box every
time, else a free one (a box of its own, and it says so); ``--port N`` insists on N, ``--port
0`` takes any free port. ``--build-only`` (``make web``) builds the folder and exits.
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
import webbrowser
from pathlib import Path

from shutbox_host.errors import UserError

PORT = 8940  # the usual port: a browser keeps a box per address


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, not cached, quiet (one line per error only)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".json": "application/json",
                      ".uf2": "application/octet-stream", ".img": "application/octet-stream",
                      ".bin": "application/octet-stream"}

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass

    def log_error(self, format, *args):  # noqa: A002
        sys.stderr.write("shutbox web: %s\n" % (format % args))


def server(root: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """Return a server of *root* bound to 127.0.0.1:*port* (0: a free port); UserError when
    the port cannot be had."""
    handler = functools.partial(_Handler, directory=str(root))
    try:
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        raise UserError("cannot serve on 127.0.0.1:%d: %s" % (port, exc.strerror or exc)) \
            from None
    srv.daemon_threads = True
    return srv


class Served:
    """build/web served in a background thread (the tests and the bench): ``url``, ``stop()``."""

    def __init__(self, root: Path, port: int = 0):
        self.srv = server(root, port)
        self.url = "http://127.0.0.1:%d/" % self.srv.server_address[1]
        self._thread = threading.Thread(target=self.srv.serve_forever, name="web", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def configure(parser):
    """Add the web flags."""
    parser.add_argument("--port", type=int, default=None,
                        help="serve on this port of 127.0.0.1 (default: %d if free, else any "
                             "free one; 0: any free one)" % PORT)
    from shutbox_host.pico import inputs

    inputs.arguments(parser)
    parser.add_argument("--out", help="the page's folder (default: build/web)")
    parser.add_argument("--build-only", action="store_true",
                        help="build the folder (if its inputs changed) and exit")
    parser.add_argument("--rebuild", action="store_true", help="build even if up to date")
    parser.add_argument("--open", action="store_true", help="open it in the web browser")


def run(args):
    """Build the page if needed; serve it until Ctrl-C."""
    from shutbox_host.web import build

    if args.port is not None and not 0 <= args.port <= 65535:
        raise UserError("--port %d: a port is 0 to 65535" % args.port)
    out = Path(args.out) if args.out else build.OUT
    build.build(out, args.uf2, args.bootrom, force=args.rebuild, fetch=True,
                log=lambda m: print("shutbox web: " + m, file=sys.stderr))
    if args.build_only:
        print(out)
        return 0
    if args.port is None:
        try:
            srv = server(out, PORT)
        except UserError:
            srv = server(out, 0)
            print("shutbox web: port %d is taken: on another port the browser keeps another "
                  "box (its settings, records and game)" % PORT, file=sys.stderr)
    else:
        srv = server(out, args.port)
    url = "http://127.0.0.1:%d/" % srv.server_address[1]
    print("the box is at %s (Ctrl-C stops it)" % url, flush=True)
    if args.open:
        webbrowser.open(url)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0

# `shutbox daily`: the challenge code of a date, the same on every PC, and the throws of a code.
"""The daily challenge: one 4-digit code a day for every box (docs/design.md, "Challenge
codes").

The code of a date is the first 8 bytes of SHA-256 of the ASCII text ``shutbox daily
YYYY-MM-DD`` (the date in UTC) read as a big-endian integer, modulo 10000 (the bias of the
modulo is below 10^4 / 2^64: none that matters), written with four digits. Every PC prints the
same code for a date; on the box, entered in the settings menu (6.6), it makes every box
throw the same dice (shutbox.challenge). ``--throws N`` prints the first throws a code gives
each seat, computed with the firmware's own shutbox.challenge on this PC.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib

from shutbox_host.errors import UserError


def code_of(date: _dt.date) -> int:
    """Return the daily code (0..9999) of *date*."""
    digest = hashlib.sha256(b"shutbox daily " + date.isoformat().encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") % 10000


def today() -> _dt.date:
    """Return today's date in UTC (the same date on every PC at the same moment)."""
    return _dt.datetime.now(_dt.timezone.utc).date()


class _Turn:
    """What shutbox.challenge.Challenge.seek reads of a game: the round, seat and throw."""

    def __init__(self, round_: int, tiebreak: int, seat: int):
        self.match = self  # its own match: the round and the tie-break round
        self.round = round_
        self.tiebreak = tiebreak
        self.player = seat
        self.throws = 0


def throws(code: int, settings=None, tiles: int = 9, seat: int = 0, round_: int = 1,
           tiebreak: int = 0, n: int = 13) -> list[tuple[int, int]]:
    """Return the first *n* throws (die A, die B) of *seat*'s turn (0..3) in round *round_*
    under challenge *code* and *settings* (shutbox.settings.Settings; the defaults if None)
    on a box of *tiles* tiles: what the box throws, computed by the firmware's own code.

    One die is die A of the throw (its die B is not thrown)."""
    from shutbox.challenge import Challenge, variant_key
    from shutbox.settings import Settings

    s = settings if settings is not None else Settings()
    dice = Challenge(code, variant_key(s, tiles))
    turn = _Turn(round_, tiebreak, seat)
    out = []
    for j in range(n):
        turn.throws = j
        dice.seek(turn)
        out.append((dice.roll(), dice.roll()))
    return out


def parse_date(text: str) -> _dt.date:
    """Return the date *text* names (YYYY-MM-DD); UserError in one line if it names none."""
    try:
        if len(text) != 10:
            raise ValueError(text)
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise UserError("--date %s: not a date; write YYYY-MM-DD (e.g. 2026-05-01)"
                        % text) from None


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of `shutbox daily`."""
    parser.add_argument("--date", metavar="YYYY-MM-DD",
                        help="the date (UTC) whose code to print (default: today)")
    parser.add_argument("--throws", type=int, default=None, metavar="N",
                        help="also print the first N throws of each seat's first turn")
    parser.add_argument("--settings", default="", metavar="WORDS",
                        help="the box's settings for --throws, as option=value,... "
                        "(e.g. one-die=never,players=3; default: the defaults)")


def run(args: argparse.Namespace) -> int:
    """Print the daily code (and, with --throws, what it throws)."""
    date = parse_date(args.date) if args.date is not None else today()
    code = code_of(date)
    print("daily code for %s (UTC): %04d" % (date.isoformat(), code))
    if args.throws is not None:
        if not 1 <= args.throws <= 255:
            raise UserError("--throws %d: give 1 to 255 throws" % args.throws)
        from shutbox import pins, setnames

        try:
            s = setnames.parse(args.settings, pins.TILES)
        except ValueError as exc:
            raise UserError("--settings: %s" % exc) from None
        for seat in range(s.players):
            shown = ["%d+%d" % t for t in throws(code, s, pins.TILES, seat, n=args.throws)]
            print("player %d, round 1: %s" % (seat + 1, " ".join(shown)))
    return 0

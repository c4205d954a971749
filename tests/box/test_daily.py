# `shutbox daily`: one challenge code a day, the same on every PC; bad dates are one line.
"""The daily code of a date (shutbox_host.box.daily) against its documented hash, its
independence of the PC's time zone, its spread over the days, and the command's errors."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shutbox import setnames
from shutbox_host.box import daily

SHUTBOX = Path(sys.executable).with_name("shutbox")


def shutbox(*args, tz="UTC"):
    return subprocess.run([str(SHUTBOX), "daily", *args], capture_output=True, text=True,
                          timeout=30, env=dict(os.environ, TZ=tz))


def test_the_code_of_a_date_is_the_documented_hash():
    for date in ("2026-05-01", "2026-12-31", "2027-01-01", "2000-02-29"):
        digest = hashlib.sha256(("shutbox daily " + date).encode()).digest()
        want = int.from_bytes(digest[:8], "big") % 10000
        assert daily.code_of(dt.date.fromisoformat(date)) == want
        r = shutbox("--date", date)
        assert r.returncode == 0 and r.stdout == "daily code for %s (UTC): %04d\n" % (date, want)


def test_today_is_the_utc_date_whatever_the_pc_s_time_zone():
    far_east = shutbox(tz="Pacific/Kiritimati")  # UTC+14
    far_west = shutbox(tz="Etc/GMT+12")  # UTC-12: a day apart from the one above, locally
    assert far_east.returncode == far_west.returncode == 0
    utc = dt.datetime.now(dt.timezone.utc).date()
    assert far_east.stdout == far_west.stdout == "daily code for %s (UTC): %04d\n" % (
        utc, daily.code_of(utc)) or dt.datetime.now(dt.timezone.utc).date() != utc


def test_the_days_get_codes_spread_over_the_10000():
    codes = [daily.code_of(dt.date(2026, 1, 1) + dt.timedelta(days=d)) for d in range(3650)]
    # 3,650 draws from 10,000 give about 3,058 distinct codes
    assert 2900 < len(set(codes)) <= 3650
    assert min(codes) < 100 and max(codes) > 9900
    assert sum(c < 5000 for c in codes) in range(1700, 1950)


@pytest.mark.parametrize("date", ["2026-13-01", "2026-02-30", "tomorrow", "2026-5-1", ""])
def test_a_date_that_is_none_is_one_line(date):
    r = shutbox("--date", date)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert "not a date; write YYYY-MM-DD" in r.stderr and "Traceback" not in r.stderr


def test_the_throws_of_the_day_for_each_player():
    r = shutbox("--date", "2026-05-01", "--throws", "4", "--settings", "players=2,one-die=never")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    s = setnames.parse("players=2,one-die=never")
    code = daily.code_of(dt.date(2026, 5, 1))
    assert lines[0].endswith("%04d" % code) and len(lines) == 3
    for seat in range(2):
        want = " ".join("%d+%d" % t for t in daily.throws(code, s, 9, seat, n=4))
        assert lines[1 + seat] == "player %d, round 1: %s" % (seat + 1, want)
    assert daily.throws(code, s, n=4) != daily.throws(code, None, n=4)  # the variant counts


@pytest.mark.parametrize("args,why", [
    (("--throws", "-1"), "give 1 to 255 throws"),
    (("--throws", "0"), "give 1 to 255 throws"),
    (("--throws", "3", "--settings", "colour=red"), "--settings: unknown option 'colour'"),
])
def test_bad_throws_options_are_one_line(args, why):
    r = shutbox("--date", "2026-05-01", *args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and why in r.stderr

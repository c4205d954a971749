# Fair dice: rejection sampling proven exactly, chi-square and runs tests, on both interpreters.
"""shutbox.dice has no modulo bias, its throws fit the uniform laws, and the statistics work."""

from __future__ import annotations

import hashlib
import math
import os
import random
import re
from pathlib import Path

import pytest

from shutbox import challenge, setfile, setnames
from shutbox.dice import Dice
from shutbox.settings import ATTRS, COUNTS, Settings
from shutbox_host import mp
from shutbox_host.bench.reliability import (
    TOTAL_WAYS,
    chi2_gof,
    chi2_sf,
    mp_throws,
    p_values,
    runs_p,
)
from shutbox_host.box import daily
from shutbox_host.box.sim.dicecount import CodeThrows, HashBytes, throw_counts

ROOT = Path(__file__).resolve().parents[2]
MP_DIR = ROOT / "tests" / "mp"
THROWS = 60_000
ALPHA = 1e-4
SEED = "shutbox-dice-1"


class Dry(Exception):
    """The scripted source has handed out every byte."""


def one_of_each(order):
    """Return a urandom that hands out the bytes of *order* once (short last draw), then Dry."""
    pos = [0]

    def urandom(n):
        if pos[0] >= len(order):
            raise Dry()
        out = bytes(order[pos[0] : pos[0] + n])
        pos[0] += len(out)
        return out

    return urandom


def faces_over_one_pass(dice_cls, order, pool):
    """Roll until every byte of *order* is used; return (faces 1..6 counts, dice)."""
    dice = dice_cls(one_of_each(order), pool)
    faces = [0] * 6
    try:
        while True:
            faces[dice.roll() - 1] += 1
    except Dry:
        pass
    return faces, dice


ORDERS = {
    "ascending": list(range(256)),
    "descending": list(range(255, -1, -1)),
    "stride 101": [(i * 101 + 7) % 256 for i in range(256)],
    "rejects first": [(i + 252) % 256 for i in range(256)],
}


@pytest.mark.parametrize("pool", [1, 5, 32, 256])
@pytest.mark.parametrize("order", sorted(ORDERS))
def test_every_byte_once_gives_each_face_42_times(order, pool):
    """256 = 6 * 42 + 4: each face exactly 42 times and exactly 4 bytes rejected."""
    faces, dice = faces_over_one_pass(Dice, ORDERS[order], pool)
    assert faces == [42] * 6
    assert dice.rejected == 4


def test_each_byte_maps_to_its_face_or_is_rejected():
    """Byte b < 252 gives b % 6 + 1; 252..255 are skipped (the next byte decides)."""
    for b in range(256):
        dice = Dice(one_of_each([b, 0]), 1)
        assert dice.roll() == (b % 6 + 1 if b < 252 else 1)
        assert dice.rejected == (1 if b >= 252 else 0)


class ModuloDice:
    """The biased way: b % 6 + 1 for every byte (faces 1-4 come 43 times in 256)."""

    def __init__(self, urandom, pool=32):
        self.urandom, self.pool, self.buf, self.i, self.rejected = urandom, pool, b"", 0, 0

    def roll(self):
        if self.i >= len(self.buf):
            self.buf, self.i = self.urandom(self.pool), 0
        self.i += 1
        return self.buf[self.i - 1] % 6 + 1


def test_the_exhaustive_check_catches_modulo_bias():
    """The same one-pass count exposes the naive b % 6 + 1 exactly."""
    faces, _ = faces_over_one_pass(ModuloDice, ORDERS["ascending"], 32)
    assert faces == [43, 43, 43, 43, 42, 42]


# --- the statistics themselves ---------------------------------------------------------


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 7.5, 20.0, 60.0])
def test_chi2_sf_matches_closed_forms(x):
    """df 1: erfc(sqrt(x/2)); df 2: exp(-x/2); df 4: exp(-x/2) (1 + x/2)."""
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-15)
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)
    assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-9)


def test_chi2_sf_table_values():
    """Critical values from the chi-square table: 5 % and 1 % at 5, 10 and 35 df."""
    for x, df, p in ((11.0705, 5, 0.05), (15.0863, 5, 0.01), (18.3070, 10, 0.05),
                     (23.2093, 10, 0.01), (49.8018, 35, 0.05), (57.3421, 35, 0.01)):
        assert chi2_sf(x, df) == pytest.approx(p, rel=1e-4)


def test_runs_test_flags_streaks_and_alternation():
    """Too few runs (streaks) and too many (alternation) both give tiny p; random does not."""
    n = 10_000
    assert runs_p(n // 2, n // 2, 2) < 1e-12  # all above, then all below
    assert runs_p(n // 2, n // 2, n) < 1e-12  # perfectly alternating
    assert runs_p(n // 2, n // 2, n // 2 + 1) > 0.9  # exactly the expected number


def test_chi_square_flags_a_loaded_die():
    """A source where one byte in 20 is forced to a six is caught at THROWS throws."""
    src = HashBytes(SEED)

    def loaded(n):
        b = bytearray(src(n))
        for i in range(0, n, 20):
            b[i] = 5  # face 6
        return bytes(b)

    p = p_values(throw_counts(Dice(loaded), THROWS))
    assert p["die_a"] < ALPHA and p["die_b"] < ALPHA and p["total"] < ALPHA


# --- the real Dice class, fit tests ------------------------------------------------------


def test_throws_fit_the_uniform_laws_cpython():
    """60,000 seeded throws: each die, the totals, the pairs and the runs pass at p > 1e-4."""
    counts = throw_counts(Dice(HashBytes(SEED)), THROWS)
    p = p_values(counts)
    assert min(p.values()) > ALPHA, p
    assert sum(counts["TOTALS"]) == THROWS and len(TOTAL_WAYS) == len(counts["TOTALS"])


def test_micropython_throws_the_same_dice_as_cpython():
    """The same seeded bytes give the very same counts under micropython and CPython."""
    host = throw_counts(Dice(HashBytes(SEED)), THROWS)
    board = mp_throws(THROWS, "hash:" + SEED)
    for key in host:
        assert board[key] == host[key], key


def test_micropython_os_urandom_throws_are_fair():
    """Under micropython with the real os.urandom (unseeded: a false alarm is ~1 in 10,000)."""
    p = p_values(mp_throws(THROWS))
    assert min(p.values()) > ALPHA / 5, p


def test_cpython_os_urandom_feeds_the_same_class():
    """The firmware's Dice takes os.urandom directly; faces stay in 1..6."""
    dice = Dice(os.urandom)
    assert {dice.roll() for _ in range(2000)} == {1, 2, 3, 4, 5, 6}
    assert chi2_gof([1000] * 6, [1] * 6)[2] == 1.0


def test_rejection_proven_under_micropython():
    """dice_exhaustive.py: 16 pool/order cases of one pass each, and roll() allocates nothing."""
    r = mp.run(MP_DIR / "dice_exhaustive.py", extra_path=[MP_DIR])
    assert r.returncode == 0 and not r.stderr, r.stderr
    m = re.search(r"CASES (\d+) FAIL (\d+)", r.stdout)
    assert m and m.group(1) == "17" and m.group(2) == "0", r.stdout


def test_the_micropython_check_catches_modulo_bias(tmp_path):
    """dice_exhaustive.py run against a modulo-biased Dice reports failures: it can fail."""
    src = (ROOT / "firmware" / "shutbox" / "dice.py").read_text()
    old = "            if b < limit:\n"
    assert old in src
    (tmp_path / "shutbox").mkdir()
    (tmp_path / "shutbox" / "__init__.py").write_text("")
    (tmp_path / "shutbox" / "dice.py").write_text(src.replace(old, "            if True:\n"))
    r = mp.run(MP_DIR / "dice_exhaustive.py", extra_path=[tmp_path, MP_DIR])
    m = re.search(r"CASES (\d+) FAIL (\d+)", r.stdout)
    assert m and int(m.group(2)) >= 16, r.stdout + r.stderr


@pytest.mark.slow
def test_a_million_throws_under_micropython():
    """The bench's million throws with os.urandom, as a slow test."""
    p = p_values(mp_throws(1_000_000))
    assert min(p.values()) > ALPHA / 5, p


# --- challenge codes (shutbox.challenge): a documented stream, fair, the same everywhere --------


def documented_throws(code, key, seat, n, round_=1, tiebreak=0):
    """The throws of docs/design.md's algorithm, written out here from the text alone:
    SHA-256 of b"STB1" | code | key | round | tie-break | seat | throw | block, little-endian,
    bytes 252..255 skipped, b % 6 + 1."""
    out = []
    for throw in range(n):
        faces = []
        block = 0
        while len(faces) < 2:
            msg = (b"STB1" + code.to_bytes(2, "little") + key.to_bytes(4, "little")
                   + round_.to_bytes(2, "little") + bytes([tiebreak, seat, throw, block]))
            for b in hashlib.sha256(msg).digest():
                if b < 252 and len(faces) < 2:
                    faces.append(b % 6 + 1)
            block += 1
        out.append(tuple(faces))
    return out


@pytest.mark.parametrize("code", [0, 1, 42, 1234, 9999])
@pytest.mark.parametrize("words", ["", "one-die=never,scoring=digital", "start=odd-open"])
def test_the_firmware_throws_the_documented_sequence(code, words):
    s = setnames.parse(words)
    key = challenge.variant_key(s, 9)
    for seat in range(4):
        assert daily.throws(code, s, 9, seat, n=13) == documented_throws(code, key, seat, 13)
    assert daily.throws(code, s, 9, 1, 3, 2, n=5) == documented_throws(code, key, 1, 5, 3, 2)


def test_each_code_variant_seat_round_and_throw_has_its_own_dice():
    base = daily.throws(1234, None, 9, 0, n=13)
    assert len(set(base)) > 6  # the throws of a turn differ from each other
    others = [daily.throws(1235, None), daily.throws(1234, setnames.parse("moves=kids")),
              daily.throws(1234, None, 10), daily.throws(1234, None, 9, 1),
              daily.throws(1234, None, 9, 0, 2), daily.throws(1234, None, 9, 0, 1, 1)]
    for other in others:
        assert other != base
    assert daily.throws(1234, setnames.parse("players=4,format=3-rounds,sound=off")) == base


def test_the_challenge_and_the_records_key_the_variant_alike():
    rng = random.Random(7)
    for _ in range(3000):
        opts = {a: rng.randrange(c) for a, c in zip(ATTRS, COUNTS, strict=True)}
        opts["players"] += 1
        s = Settings(**opts)
        for tiles in (9, 10, 12):
            assert challenge.variant_key(s, tiles) == setfile.variant_key(s, tiles)


def test_a_throw_is_the_same_whatever_came_before_it():
    """Rolls drawn between throws (a computer's picks) and one die instead of two change no
    later throw: each throw seeks its own stream."""
    dice = challenge.Challenge(77, 25)
    turn = _Turn(0)
    clean = []
    for j in range(13):
        turn.throws = j
        dice.seek(turn)
        clean.append((dice.roll(), dice.roll()))
    dice = challenge.Challenge(77, 25)
    for j in range(13):
        turn.throws = j
        dice.seek(turn)
        a = dice.roll()
        if j % 3 == 0:
            assert a == clean[j][0]  # one die: die A of the throw
            dice.below(7)  # and a pick after it
            continue
        assert (a, dice.roll()) == clean[j]


class _Turn:
    def __init__(self, seat):
        self.match = self
        self.round, self.tiebreak, self.player = 1, 0, seat
        self.throws = 0


def test_code_throws_fit_the_uniform_laws_over_many_codes():
    """60,000 throws of 1,154 codes (4 seats, 13 throws each, as the box seeks them): each die,
    the totals, the pairs and the runs pass at p > 1e-4."""
    counts = throw_counts(CodeThrows(0), THROWS)
    p = p_values(counts)
    assert min(p.values()) > ALPHA, p


def test_micropython_throws_the_same_codes_as_cpython():
    """The same codes give the very same counts (and so throws) under micropython."""
    host = throw_counts(CodeThrows(5000), THROWS)
    board = mp_throws(THROWS, "code:5000")
    for key in host:
        assert board[key] == host[key], key


def test_micropython_throws_a_code_s_sequence_exactly(run_mp):
    """Throw for throw: the box's interpreter and this PC's, for a few codes and variants."""
    cases = [(0, 25, 0), (1234, 25, 3), (9999, challenge.variant_key(
        setnames.parse("one-die=never,moves=kids"), 12), 1)]
    code = ("from shutbox.challenge import Challenge\n"
            "class T:\n    pass\n"
            "t = T()\nt.match = t\nt.round = 1\nt.tiebreak = 0\n"
            "for c, k, seat in %r:\n"
            "    d = Challenge(c, k)\n    t.player = seat\n    out = []\n"
            "    for j in range(13):\n"
            "        t.throws = j\n        d.seek(t)\n        out.append((d.roll(), d.roll()))\n"
            "    print(out)\n" % cases)
    r = run_mp(code)
    assert r.returncode == 0, r.stderr
    got = [line.strip() for line in r.stdout.splitlines() if line.strip()]
    want = [str(documented_throws(c, k, seat, 13)).replace(" ", "") for c, k, seat in cases]
    assert [g.replace(" ", "") for g in got] == want


def test_the_fit_tests_catch_codes_that_forget_the_throw():
    """Control: a stream that ignores the throw number (every throw of a turn the same) fails."""

    class Stuck(_Turn):
        throws = property(lambda self: 0, lambda self, v: None)  # the bug: always the first

    forgetful = CodeThrows(0)
    forgetful.turn = Stuck(0)
    p = p_values(throw_counts(forgetful, THROWS))
    assert p["runs"] < ALPHA or min(p.values()) < ALPHA, p

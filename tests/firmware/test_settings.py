# Settings and records on CPython (and the packing under MicroPython): values, bits, files.
"""shutbox.settings, shutbox.setfile, shutbox.setnames and shutbox.records."""

from __future__ import annotations

import itertools
import random
import struct
from types import SimpleNamespace

import pytest

from shutbox import menu, resume, rounds, setfile, setnames, settings
from shutbox import records as rec_mod
from shutbox.app import App
from shutbox.records import Records
from shutbox.settings import _HINT_BEST as HINT_BEST
from shutbox.settings import _HINT_LEGAL as HINT_LEGAL
from shutbox.settings import _HINT_OFF as HINT_OFF
from shutbox.settings import ATTRS, COUNTS, Settings, needs_table
from shutbox.store import _BAD_CRC as BAD_CRC  # private: no name in the box's RAM
from shutbox.store import MISSING, OK, Store, damaged
from shutbox_host.solve import engine_extra
from shutbox_host.solve.engine_extra import LEVELS  # moved off the box (RAM)


def store(tmp_path):
    return Store(str(tmp_path / "data"))


# ----- the options -----


def test_defaults():
    s = Settings()
    assert setnames.names(s) == {
        "players": "2", "computer": "off", "hints": "legal", "one-die": "high-shut",
        "one-die-mode": "optional", "moves": "any", "scoring": "sum", "start": "all-open",
        "open-box": "off", "to-go": "off", "unlucky-7": "off", "most-tiles": "off",
        "format": "one-round", "shut-wins": "off", "tie": "share", "same-throws": "off",
        "stakes": "off", "sound": "loud", "brightness": "medium", "sleep": "5-min",
        "real-dice": "off", "two-tiles": "off", "timeout": "off", "resign": "off",
        "long-game": "off", "code": "off"}
    assert not needs_table(s)


def test_the_tables_agree():
    assert len(ATTRS) == len(COUNTS) == len(setnames.OPTIONS) == len(setnames.CHOICES)
    # the menu's pages: every option, then the challenge code
    assert len(setfile._BITS) == len(ATTRS) and sum(setfile.SECTIONS) == len(ATTRS) + 1
    assert ATTRS[:settings._GAME_OPTIONS][-1] == "stakes"  # then the box's own
    assert ATTRS.index("sound") == menu._SOUND and ATTRS.index("brightness") == menu._BRIGHTNESS
    assert settings._GAME_OPTIONS == resume._GAME_OPTIONS == menu._GAME_OPTIONS
    assert setfile._V1_OPTIONS == settings._GAME_OPTIONS  # version 1 had every game option
    for i, names in enumerate(setnames.CHOICES):
        assert COUNTS[i] == len(names) and len(set(names)) == len(names)
        assert 1 << setfile._BITS[i] >= COUNTS[i]
        # the long game's attribute is a name the box already holds (an interned name stays
        # in RAM for good)
        assert setnames.OPTIONS[i].replace("-", "_").replace("unlucky_7", "unlucky7") \
            .replace("long_game", "long") == ATTRS[i]
    assert sum(setfile._BITS) + setfile._CODE_BITS <= 8 * setfile._SIZE
    assert 1 << setfile._CODE_BITS > setfile._CODES == settings._CODES == 10000
    assert sum(setfile._BITS[:setfile._V1_OPTIONS]) <= 8 * setfile._V1_SIZE
    assert sum(setfile._BITS[:setfile._V2_OPTIONS]) + setfile._CODE_BITS <= 8 * setfile._V2_SIZE
    assert ATTRS[setfile._V2_OPTIONS:setfile._V3_OPTIONS] == ("sleep",)  # version 2: those before
    assert ATTRS[setfile._V3_OPTIONS:setfile._V4_OPTIONS] == ("real_dice", "two_tiles",
                                                              "timeout", "resign")
    assert ATTRS[setfile._V4_OPTIONS:] == ("long",)
    assert setnames.COMPUTER == LEVELS
    assert (setnames.HINTS[HINT_OFF], setnames.HINTS[HINT_LEGAL],
            setnames.HINTS[HINT_BEST]) == ("off", "legal", "best")
    # rounds' constants are private (folded in on the box): module attributes on CPython
    assert setnames.FORMAT[rounds._FORMAT_ONE_ROUND] == "one-round"
    assert setnames.FORMAT[rounds._FORMAT_3_ROUNDS] == "3-rounds"
    assert setnames.FORMAT[rounds._FORMAT_5_ROUNDS] == "5-rounds"
    assert setnames.FORMAT[rounds._FORMAT_OUT_AT_45] == "out-at-45"
    assert setnames.FORMAT[rounds._FORMAT_TO_100] == "to-100"
    assert setnames.TIE[rounds._TIE_SHARE] == "share"
    assert setnames.TIE[rounds._TIE_ROLL_OFF] == "roll-off"
    assert setnames.TIE[rounds._TIE_REPLAY] == "replay"
    assert setnames.TO_GO[rounds._TO_GO_OFF] == "off"
    assert setnames.TO_GO[rounds._TO_GO_2] == "2-to-go"
    assert setnames.TO_GO[rounds._TO_GO_3] == "3-to-go"
    assert setnames.STAKES[rounds._STAKES_OFF] == "off"
    assert setnames.STAKES[rounds._STAKES_CANOGA] == "canoga"
    assert rounds._OUT_AT == 45 and rounds._GAME_TO == 100


@pytest.mark.parametrize("i", range(len(ATTRS)))
def test_every_value_is_accepted_and_the_next_refused(i):
    for v in range(COUNTS[i]):
        value = v + 1 if i == 0 else v
        s = Settings(**{ATTRS[i]: value})
        assert setfile.index(s, i) == v
    bad = COUNTS[i] + (1 if i == 0 else 0)
    with pytest.raises(ValueError, match=ATTRS[i]):
        Settings(**{ATTRS[i]: bad})
    with pytest.raises(ValueError):
        Settings(**{ATTRS[i]: 0 if i == 0 else -1})
    with pytest.raises(ValueError):
        Settings(**{ATTRS[i]: "1"})


@pytest.mark.parametrize("code", [-2, 10000, "1234", True, 12.0])
def test_a_code_out_of_range_is_refused(code):
    with pytest.raises(ValueError, match="code"):
        Settings(code=code)


def test_codes_from_none_to_9999():
    assert Settings().code == -1
    assert Settings(code=0).code == 0 and Settings(code=9999).code == 9999


def test_unknown_options_and_bools():
    with pytest.raises(ValueError, match="unknown setting"):
        Settings(colour=1)
    s = Settings(shut_wins=True, open_box=False)
    assert setfile.index(s, ATTRS.index("shut_wins")) == 1


def test_rules_follow_the_settings():
    s = Settings(one_die=3, one_die_mode=1, moves=2, scoring=1, start=2)
    r = setfile.rules(s, 10)
    assert engine_extra.key(r) == (10, 3, 1, 2, 1, 2)  # the rules' key is the host's
    assert setfile.rules(Settings(same_throws=True), 9).one_die == 0  # seed 001


def test_needs_table():
    assert needs_table(Settings(hints=HINT_BEST))
    assert needs_table(Settings(computer=3))


# ----- packed bits -----


def _every_single_change():
    for i in range(len(ATTRS)):
        for v in range(COUNTS[i]):
            yield {ATTRS[i]: v + 1 if i == 0 else v}


def test_pack_unpack_every_value():
    seen = set()
    for opts in _every_single_change():
        s = Settings(**opts)
        if setfile.conflict(s) >= 0:
            continue
        data = setfile.pack(s)
        assert len(data) == setfile._SIZE
        assert setnames.names(setfile.unpack(data)) == setnames.names(s)
        seen.add(data)
    assert len(seen) == sum(COUNTS) - len(COUNTS) + 1  # every change packs differently


@pytest.mark.parametrize("code", [-1, 0, 1, 42, 1000, 9998, 9999])
def test_pack_unpack_codes(code):
    s = Settings(code=code, players=4, brightness=2)
    back = setfile.unpack(setfile.pack(s))
    assert back.code == code and setnames.names(back) == setnames.names(s)


def test_pack_unpack_random_combinations():
    rng = random.Random(4)
    for _ in range(2000):
        opts = {a: rng.randrange(c) for a, c in zip(ATTRS, COUNTS, strict=True)}
        opts["players"] += 1
        opts["code"] = rng.choice((-1, rng.randrange(10000)))
        s = Settings(**opts)
        if setfile.conflict(s) >= 0:
            with pytest.raises(ValueError):
                setfile.unpack(setfile.pack(s))
            continue
        assert setnames.names(setfile.unpack(setfile.pack(s))) == setnames.names(s)


def test_the_bit_layout():
    offsets = [sum(setfile._BITS[:i]) for i in range(len(ATTRS))]
    assert offsets[ATTRS.index("start")] == 14 and offsets[ATTRS.index("to_go")] == 17
    assert offsets[ATTRS.index("format")] == 21 and offsets[ATTRS.index("stakes")] == 28
    assert offsets[ATTRS.index("sound")] == 29 and offsets[ATTRS.index("brightness")] == 31
    assert offsets[ATTRS.index("sleep")] == 33 and offsets[ATTRS.index("real_dice")] == 36
    assert offsets[ATTRS.index("two_tiles")] == 37
    assert offsets[ATTRS.index("timeout")] == 38 and offsets[ATTRS.index("resign")] == 40
    assert offsets[ATTRS.index("long")] == 41
    # players 2, hints legal, one-die high-shut; sound loud (bits 29-30), brightness medium
    # (31-32), sleep 5 minutes (33-35: 2), real dice off (36), two-tiles off (37), no time
    # limit (38-39), no resigning (40), no long game (41); no code (0 at bits 42-55)
    assert setfile.pack(Settings()) == (0x51 | 2 << 29 | 1 << 31 | 2 << 33).to_bytes(7, "little")
    s = Settings(players=4, stakes=1, code=1234, sleep=0)
    n = int.from_bytes(setfile.pack(s), "little")
    assert n & 3 == 3 and n >> 28 & 1 == 1 and n >> 33 & 7 == 0 and n >> 42 == 1235
    n = int.from_bytes(setfile.pack(Settings(real_dice=1, two_tiles=1, timeout=2)), "little")
    assert n >> 36 == 3 | 2 << 2
    n = int.from_bytes(setfile.pack(Settings(long=1, hints=0)), "little")
    assert n >> 41 == 1 and n & 0x30 == 0


DEFAULTS = 0x51 | 2 << 29 | 1 << 31 | 2 << 33


@pytest.mark.parametrize("data,why", [
    (DEFAULTS.to_bytes(6, "little"), "bytes"),
    (DEFAULTS.to_bytes(8, "little"), "bytes"),
    ((DEFAULTS | 0x30).to_bytes(7, "little"), "hints"),  # hints = 3
    ((DEFAULTS | 1 << 55 | 1 << 54).to_bytes(7, "little"), "code"),  # code over 10000
    ((DEFAULTS | 3 << 38).to_bytes(7, "little"), "timeout"),  # timeout 3
    ((DEFAULTS | 2 << 14 | 1 << 17).to_bytes(7, "little"), "fit"),  # odd-open, 2-to-go
    ((DEFAULTS | 7 << 21).to_bytes(7, "little"), "format"),  # format 7
    ((DEFAULTS | 3 << 29).to_bytes(7, "little"), "sound"),  # sound 3
    ((DEFAULTS & ~(3 << 31) | 3 << 31).to_bytes(7, "little"), "brightness"),
    ((DEFAULTS | 5 << 33).to_bytes(7, "little"), "sleep"),  # sleep 5
    ((DEFAULTS | 10001 << 42).to_bytes(7, "little"), "code"),  # code 10000
    ((DEFAULTS | 1 << 41 | 1 << 27).to_bytes(7, "little"), "fit"),  # long, same throws
    ((DEFAULTS | 1 << 36 | 1 << 27).to_bytes(7, "little"), "fit"),  # real dice, same throws
])
def test_unpack_refuses(data, why):
    with pytest.raises(ValueError, match=why if why != "fit" else "fit together"):
        setfile.unpack(data)


@pytest.mark.parametrize("data,why", [
    (b"\x51\x00\x00", "bytes"),
    (bytes([0x51, 0, 0, 0x20]), "unknown bits"),  # bit 29: nothing in version 1
    ((0x51 | 7 << 21).to_bytes(4, "little"), "format"),
])
def test_unpack_of_version_1_refuses(data, why):
    with pytest.raises(ValueError, match=why):
        setfile.unpack(data, version=1)


# ----- the settings file -----


def test_load_missing_gives_quiet_defaults(tmp_path):
    s, status = setfile.load(store(tmp_path))
    assert status == MISSING and not damaged(status)
    assert setfile.pack(s) == setfile.pack(Settings())


def test_save_then_load(tmp_path):
    st = store(tmp_path)
    s = setnames.parse("players=3, format=to-100, tie=roll-off, stakes=canoga, open-box=on")
    assert setfile.save(s, st) == OK
    got, status = setfile.load(st)
    assert status == OK and setnames.names(got) == setnames.names(s)
    assert (tmp_path / "data" / "settings").stat().st_size == 12 + setfile._SIZE


def test_a_damaged_file_gives_defaults_and_says_so(tmp_path):
    st = store(tmp_path)
    setfile.save(Settings(players=4), st)
    path = tmp_path / "data" / "settings"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0x40
    path.write_bytes(bytes(raw))
    s, status = setfile.load(st)
    assert status == BAD_CRC and damaged(status) and s.players == 2


def test_a_whole_file_with_bad_values_gives_defaults_and_says_so(tmp_path):
    st = store(tmp_path)
    st.save(setfile.NAME, bytes([0xFF, 0xFF, 0xFF, 0xFF]), setfile.VERSION)
    s, status = setfile.load(st)
    assert status == setfile._INVALID and damaged(status) and s.players == 2


def test_a_newer_layout_reads_as_damaged(tmp_path):
    st = store(tmp_path)
    st.save(setfile.NAME, setfile.pack(Settings(players=4)), setfile.VERSION + 1)
    s, status = setfile.load(st)
    assert damaged(status) and s.players == 2


# Settings files as the firmware before sound, brightness and codes wrote them (commit
# 0b24a5c, setfile VERSION 1: 4 bytes of settings), whole: the store's 12-byte header and the
# payload, bytes as they were on its flash. Made by that commit's
# setfile.save(setnames.parse(...), Store(...)) with the words given.
V1_FILES = {
    "players=3,computer=hard,hints=best,one-die=sum-le-6,one-die-mode=locked,"
    "moves=dice-or-total,scoring=count,start=odd-open,to-go=3-to-go,unlucky-7=on,"
    "most-tiles=on,format=to-100,shut-wins=on,tie=replay,same-throws=on,stakes=canoga":
        "53484258010104008493c732aea59c1d",
    "open-box=on": "53484258010104007092989451000100",
}


# Settings files as the firmware before sleep wrote them (commit 428ccea, setfile VERSION 2:
# 6 bytes), whole, made by that commit's setfile.save(setnames.parse(...), Store(...)).
V2_FILES = {
    "players=3,computer=hard,hints=best,sound=soft,brightness=high,code=0042":
        "53484258010206002f69688b6e0000205700",
    "open-box=on,sound=off": "5348425801020600c12d7aea510001800000",
}


# Settings files as the firmware before real dice wrote them (commit b0bf4fe, setfile VERSION 3:
# 7 bytes), whole, made by that commit's setfile.save(setnames.parse(...), Store(...)).
V3_FILES = {
    "players=3,computer=hard,hints=best,sound=soft,brightness=high,sleep=30-min,code=0042":
        "5348425801030700e85aab106e000020b90200",
    "open-box=on,stakes=canoga,sleep=off": "534842580103070059173f0d510001d0000000",
}


# Settings files as the firmware before the long game wrote them (commit 9ee9f21, setfile
# VERSION 4: 7 bytes), whole, made by that commit's setfile.save(setnames.parse(...), Store(...)).
V4_FILES = {
    "players=3,computer=hard,hints=best,sound=soft,brightness=high,sleep=30-min,real-dice=on,"
    "two-tiles=on,timeout=60-s,resign=on": "534842580104070052125ad96e000020b90100",
    "open-box=on,stakes=canoga,timeout=30-s,code=0042": "5348425801040700eed39174510001d0445600",
}


# {version: (its files, what it lacked: the values those settings load with)}
OLD_FILES = {
    1: (V1_FILES, {"sound": "loud", "brightness": "medium", "code": "off"}),
    2: (V2_FILES, {"sleep": "5-min"}),
    3: (V3_FILES, {"real-dice": "off", "two-tiles": "off", "timeout": "off", "resign": "off"}),
    4: (V4_FILES, {"long-game": "off"}),
}


@pytest.mark.parametrize("version,words", [(v, w) for v, (files, _) in OLD_FILES.items()
                                           for w in sorted(files)])
def test_a_file_of_an_older_version_loads_with_its_values(tmp_path, version, words):
    """A box upgraded keeps its settings: every value the older file held is kept, the code
    too; what that version lacked: its default. The next save writes the new layout, which
    reads back the same."""
    files, lacked = OLD_FILES[version]
    raw = bytes.fromhex(files[words])
    assert raw[5] == version  # the table holds what it says
    path = tmp_path / "data" / "settings"
    path.parent.mkdir()
    path.write_bytes(raw)
    st = store(tmp_path)
    s, status = setfile.load(st)
    assert status == OK
    got = setnames.names(s)
    assert got == setnames.names(setnames.parse(words))
    assert {k: got[k] for k in lacked} == lacked
    assert setfile.save(s, st) == OK
    assert path.read_bytes()[5] == setfile.VERSION == 5
    assert setnames.names(setfile.load(st)[0]) == got


def test_a_damaged_file_of_the_version_before_still_reads_as_damaged(tmp_path):
    path = tmp_path / "data" / "settings"
    path.parent.mkdir()
    raw = bytearray(bytes.fromhex(V1_FILES["open-box=on"]))
    raw[-2] ^= 0x04
    path.write_bytes(bytes(raw))
    s, status = setfile.load(store(tmp_path))
    assert damaged(status) and s.open_box == 0


# ----- names for people -----


def test_parse_in_words():
    s = setnames.parse("players=1,computer=hard,hints=best,one-die=never,format=5-rounds")
    assert (s.players, s.computer, s.hints, s.one_die, s.format) == (1, 3, 2, 0, 2)
    assert setfile.pack(setnames.parse("")) == setfile.pack(Settings())


def test_parse_codes_and_the_box_options():
    s = setnames.parse("code=0042, sound=soft, brightness=high")
    assert (s.code, s.sound, s.brightness) == (42, 1, 2)
    assert setnames.names(s)["code"] == "0042"
    assert setnames.parse("code=1234,code=off").code == -1


@pytest.mark.parametrize("text,msg", [
    ("code=42", "four digits"),
    ("code=12345", "four digits"),
    ("code=on", "four digits"),
    ("sound=max", "unknown sound 'max': choose one of off, soft, loud"),
    ("colour=red", "unknown option 'colour'"),
    ("format=forever", "unknown format 'forever': choose one of one-round"),
    ("players", "write option=value"),
    ("to-go=2-to-go,start=odd-open", "2-to-go needs tile 2"),
])
def test_parse_mistakes_in_words(text, msg):
    with pytest.raises(ValueError, match=msg):
        setnames.parse(text)


# ----- records -----


def test_variant_keys():
    keys = {setfile.variant_key(Settings(**o), 9) for o in _every_single_change()
            if not set(o) & {"players", "computer", "hints", "format", "shut_wins", "tie",
                             "stakes", "same_throws", "sound", "brightness"}}
    # each turn rule its own variant (two-tiles too, the last option)
    assert len(keys) == sum(COUNTS[3:12]) - 9 + 1 + 1
    same = {setfile.variant_key(Settings(format=f, tie=t, stakes=k), 9)
            for f, t, k in itertools.product(range(5), range(3), range(2))}
    assert len(same) == 1  # the game format shares the turn's records
    assert setfile.variant_key(Settings(), 9) != setfile.variant_key(Settings(), 12)
    assert setfile.variant_key(Settings(same_throws=1), 9) == \
        setfile.variant_key(Settings(one_die=0), 9)


def _score(score, shut=False, player=1):
    return {"ev": "score", "score": score, "shut_box": shut, "player": player}


GAME = {"ev": "game"}  # a new game: it takes the records' game count it begins with


# The records' format and sizes are private constants of shutbox.records (no names in RAM).
FORMAT, NONE, MAX = rec_mod._FORMAT, rec_mod._NONE, rec_mod._MAX


def _note(st, key, recs, skip=0):
    """Feed game-log records through the box's App log writer, counting for the records as
    on the box (App.tally from shutbox.powerup.read; shutbox.records at each winner)."""
    app = App.__new__(App)  # only the log writer: no board, no game
    app.game = SimpleNamespace(log=list(recs))
    app.out = lambda line: None
    app.tally = Records(st, key).tally(skip)
    app._write_log()
    assert app.game.log == []
    return app.tally


def test_records_count_turns_boxes_best_and_games(tmp_path):
    st = store(tmp_path)
    r = Records(st, 77)
    assert r.status == MISSING and r.at < 0 and r.entry() == (NONE, 0, 0, 0)
    tally = _note(st, 77, (GAME, _score(12), _score(0, True), _score(30), {"ev": "winner"},
                           GAME, _score(5), _score(1, player=2), {"ev": "winner"}),
                  skip=0b10)  # player 2 is the computer
    assert tally[3:] == [0, NONE, 0, 1, 2]  # counted into flash at each winner; the counts
    again = Records(st, 77)
    assert again.status == OK
    assert struct.unpack_from(FORMAT, again.buf, 0) == (77, 0, 4, 1, 2)
    assert again.entry() == (0, 4, 1, 2)
    other = Records(st, 78)
    assert other.at < 0 and other.n == 1


def test_records_wait_for_a_turn_and_count_every_game_after(tmp_path):
    st = store(tmp_path)
    _note(st, 9, (GAME, {"ev": "winner"}, GAME, _score(4, player=2), {"ev": "winner"}),
          skip=0b10)
    assert st.load(rec_mod.NAME, rec_mod.VERSION) is None  # no turn of the variant: no entry
    _note(st, 9, (GAME, _score(4), _score(6)))  # the tally alone (the saved game keeps it)
    assert st.load(rec_mod.NAME, rec_mod.VERSION) is None
    # a game abandoned (Roll held): its turns count at the next game's end
    _note(st, 9, (GAME, _score(8), GAME, _score(9), {"ev": "winner"}, GAME, {"ev": "winner"}))
    assert Records(st, 9).entry() == (8, 2, 0, 2)
    _note(st, 9, (GAME, {"ev": "winner"}))  # a game of the computer's turns only still counts
    assert Records(st, 9).entry() == (8, 2, 0, 3)


def test_a_game_the_records_counted_is_not_counted_again(tmp_path):
    """A game that ends again (resumed from before its end after a power cut) began with a
    game count the records have moved on from: not counted again, its turns neither."""
    st = store(tmp_path)
    tally = _note(st, 9, (GAME, _score(8), {"ev": "winner"}))
    assert Records(st, 9).entry() == (8, 1, 0, 1) and tally[6:] == [0, 1]
    again = Records(st, 9).tally(0)
    assert again[6:] == [1, 1]
    again[6] = 0  # the count the saved game began with, as shutbox.resume gives it back
    app = App.__new__(App)
    app.game = SimpleNamespace(log=[_score(8), {"ev": "winner"}])  # its last turn, again
    app.out = lambda line: None
    app.tally = again
    app._write_log()
    assert Records(st, 9).entry() == (8, 1, 0, 1)  # once
    assert again[3:] == [0, NONE, 0, 0, 1]
    app.game.log[:] = [GAME, _score(3, True), {"ev": "winner"}]  # the next game counts
    app._write_log()
    assert Records(st, 9).entry() == (3, 2, 1, 2)


def test_records_keep_16_variants_replacing_the_least_played(tmp_path):
    st = store(tmp_path)
    for k in range(MAX):
        _note(st, k, [GAME] + [_score(k)] * (k + 1) + [{"ev": "winner"}])
    _note(st, 1000, (GAME, _score(3), {"ev": "winner"}))
    got = Records(st, 1000)
    keys = [struct.unpack_from("<I", got.buf, i * 16)[0] for i in range(got.n)]
    assert got.n == 16 and 0 not in keys and 1000 in keys and got.at == 0


def test_records_counts_stop_at_their_maximum(tmp_path):
    st = store(tmp_path)
    r = Records(st, 5)
    r.buf[:16] = struct.pack(FORMAT, 5, 7, NONE, 0xFFFF, 0xFFFF)
    r.n = 1
    r.save()
    _note(st, 5, (GAME, _score(2 ** 40, True), {"ev": "winner"}))  # digital, 12 tiles
    assert struct.unpack_from(FORMAT, Records(st, 5).buf, 0) == (5, 7, NONE, 0xFFFF, 0xFFFF)
    _note(st, 6, (GAME, _score(2 ** 40), {"ev": "winner"}))
    assert Records(st, 6).entry() == (NONE - 1, 1, 0, 1)


@pytest.mark.parametrize("payload", [b"\x01" * 15, b"\x01" * 17])
def test_damaged_records_start_empty_and_say_so(tmp_path, payload):
    st = store(tmp_path)
    st.save(rec_mod.NAME, payload, rec_mod.VERSION)
    r = Records(st, 1)
    assert damaged(r.status) and r.n == 0


def test_settings_module_keeps_little_in_ram():
    """What stays in RAM during play: no names, no file code (those are in setfile/setnames)."""
    public = [n for n in dir(settings) if not n.startswith("_")]
    assert "CHOICES" not in public and "pack" not in public and "load" not in public


def test_packing_is_the_same_under_micropython(run_mp):
    rng = random.Random(9)
    cases = []
    for _ in range(40):
        opts = {a: rng.randrange(c) for a, c in zip(ATTRS, COUNTS, strict=True)}
        opts["players"] += 1
        opts["to_go"] = 0
        opts["code"] = rng.randrange(-1, 10000)
        if opts["code"] >= 0 or opts["same_throws"]:
            opts["real_dice"] = 0  # they do not fit (the box's own dice)
        if setfile.conflict(Settings(**opts)) == setfile._LONG:
            opts["long"] = 0  # the long game goes with few others
        cases.append(opts)
    cases.append({"long": 1, "hints": 0})
    n = len(ATTRS)
    code = ("from shutbox.settings import Settings\nfrom shutbox import setfile\n"
            "for o in %r:\n    d = setfile.pack(Settings(**o))\n"
            "    s = setfile.unpack(d)\n"
            "    print(d.hex(), [setfile.index(s, i) for i in range(%d)], s.code)\n"
            "print(setfile.unpack(bytes.fromhex('51000100'), 9, 1).open_box)\n" % (cases, n))
    out = run_mp(code, heapsize="256k")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    for opts, line in zip(cases, lines, strict=False):
        s = Settings(**opts)
        want = "%s %s %d" % (setfile.pack(s).hex(), [setfile.index(s, i) for i in range(n)],
                             s.code)
        assert line.strip() == want
    assert lines[len(cases)].strip() == "1"  # a version 1 file, as on CPython

# `shutbox wifi`: a home network given to a Pico W box over USB (a virtual Pico W, mpremote).
"""The command saves the network where the box's companion reads it (/data/wifi, through the
companion's own save on the board) and restarts the box; every refusal is one line, exit 2:
a password the radio cannot take, a Pico (no radio), a Pico W flashed without the companion
(`shutbox flash --no-companion`; a plain `shutbox flash` of a Pico W puts it there)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from shutbox_host.pico import flash, vpico

SHUTBOX = [sys.executable, "-m", "shutbox_host.cli", "wifi"]


def _wifi(*args):
    return subprocess.run([*SHUTBOX, *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def _one_line(r, text):
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r
    assert text in r.stderr, r.stderr


@pytest.fixture
def picow(tmp_path):
    vp = vpico.VirtualPico(tmp_path / "flash", board="RPI_PICO_W")
    vp.start()
    yield vp
    vp.stop()


def test_shutbox_wifi_gives_a_flashed_pico_w_its_home_network(picow, tmp_path):
    r = _wifi("home", "--password", "correct-horse", "--port", picow.path)
    _one_line(r, "has no companion: run `shutbox flash` first")
    done = flash.flash(picow.path, out=lambda line: None, companion=False)
    version = tmp_path / "flash" / ".shutbox" / done["version"]
    assert (version / "shutbox").is_dir() and not (version / "companion").exists()
    _one_line(_wifi("home", "--password", "correct-horse", "--port", picow.path),
              "has no companion: run `shutbox flash` first")
    done = flash.flash(picow.path, out=lambda line: None)  # a Pico W: with its companion
    assert done["board"] == "RPI_PICO_W"
    version = tmp_path / "flash" / ".shutbox" / done["version"]
    assert (version / "companion" / "picow.mpy").is_file()
    assert (version / "microdot" / "microdot.mpy").is_file()
    r = _wifi("home", "--password", "correct-horse", "--port", picow.path)
    assert r.returncode == 0, r.stderr
    assert "keeps home and restarts to join it" in r.stdout
    saved = json.loads((tmp_path / "flash" / "data" / "wifi").read_text())
    assert saved == {"ssid": "home", "password": "correct-horse"}
    _one_line(_wifi("home", "--password", "short", "--port", picow.path),
              "the password is 8 to 63 characters")
    _one_line(_wifi("x" * 33, "--open", "--port", picow.path),
              "the network's name is 1 to 32 bytes")
    _one_line(_wifi("home", "--port", picow.path),  # no terminal to ask on
              "give the network's password (--password PW) or --open")


def test_a_pico_has_no_radio(tmp_path):
    vp = vpico.VirtualPico(tmp_path / "flash", board="RPI_PICO")
    port = vp.start()
    try:
        _one_line(_wifi("home", "--password", "correct-horse", "--port", port),
                  "is a Raspberry Pi Pico: it has no radio")
    finally:
        vp.stop()
    assert not (tmp_path / "flash" / "data" / "wifi").exists()

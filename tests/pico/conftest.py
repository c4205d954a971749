# Fixtures for the emulated Pico's tests: the firmware's littlefs image, and skipping cleanly.
"""The emulated RP2040 needs Node, rp2040js (make: npm ci), the uf2 and the bootrom.

Without them these tests skip with one line saying what is missing; with
SHUTBOX_REQUIRE_EMU=1 (.ci/run) that is a failure instead, so CI never skips them.
"""

from __future__ import annotations

import os

import pytest

from shutbox_host.pico import emulator


def require_emulator() -> None:
    """Skip the calling test module (or fail on CI) when the emulator cannot run here."""
    why = emulator.missing()
    if why is None:
        return
    if os.environ.get("SHUTBOX_REQUIRE_EMU") == "1":
        pytest.fail("the emulated Pico cannot run: %s" % why, pytrace=False)
    pytest.skip("emulated Pico: %s" % why, allow_module_level=True)


@pytest.fixture(scope="session")
def fw_image():
    """The littlefs image of a Pico flashed with firmware/ (as `shutbox flash` leaves it)."""
    from shutbox_host.pico import fsimage

    return fsimage.build()

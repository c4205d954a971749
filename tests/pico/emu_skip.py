# Skipping the emulated Pico's tests cleanly where it cannot run (and never on CI).
"""The emulated RP2040 needs Node, rp2040js (make: npm ci), the uf2 and the bootrom.

Without them these tests skip with one line saying what is missing; with
SHUTBOX_REQUIRE_EMU=1 (.ci/run) that is a failure instead, so CI never skips them.
"""

from __future__ import annotations

from needs import require

from shutbox_host.pico import emulator


def require_emulator() -> None:
    """Skip the calling test module (or fail on CI) when the emulator cannot run here."""
    require(emulator.missing(), "emulated Pico")

# Fixtures for the emulated Pico's tests: the firmware's littlefs image.
"""Shared by tests/pico: the image of a Pico flashed with firmware/."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def fw_image():
    """The littlefs image of a Pico flashed with firmware/ (as `shutbox flash` leaves it)."""
    from shutbox_host.pico import fsimage

    return fsimage.build()

# shutbox: the Shut the Box firmware package, the same files on the Pico and on a PC.
"""Shut the Box for a Raspberry Pi Pico: rules engine, game, drivers."""

__version__ = "0.1.0"

# The Pico runs this at power-up: the Shut the Box firmware.
"""Entry point of the box."""

from shutbox import app

app.main()

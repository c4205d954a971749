# The Pico runs this at power-up: the Shut the Box firmware.
"""Entry point of the box: a power-up screen first while little is loaded, then the game."""

from shutbox import powerup

# Roll held at power-up: the settings menu, records, erasing (shutbox.menu); then the saved
# settings and the records' key are read, before the game's modules take the heap
boot = powerup.screens()
powerup.unload("powerup")
del powerup
from shutbox import app  # noqa: E402

app.main(boot)

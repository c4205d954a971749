"""The simulated box: the firmware on a simulated board under MicroPython, and shutbox play."""

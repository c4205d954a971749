# Fake rp2 `neopixel` for the simulated box: micropython-lib's driver over machine.bitstream.
"""NeoPixel(pin, n, bpp=3, timing=1), as the frozen driver on the Pico: pixels live in
``buf`` in GRB order and ``write`` sends it with machine.bitstream (here: to simbus)."""

from machine import bitstream


class NeoPixel:
    ORDER = (1, 0, 2, 3)  # G R B W

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.pin.init(pin.OUT)
        self.timing = timing

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for i in range(self.bpp):
            self.buf[offset + self.ORDER[i]] = v[i]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[i]] for i in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        bitstream(self.pin, 0, self.timing, self.buf)

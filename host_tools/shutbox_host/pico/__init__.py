"""A Raspberry Pi Pico from the host: flashing, the virtual Pico, the emulated RP2040, images."""

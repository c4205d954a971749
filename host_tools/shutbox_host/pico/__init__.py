"""The Raspberry Pi Pico from the host: the emulated RP2040, littlefs images."""

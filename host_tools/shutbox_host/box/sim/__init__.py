# Simulated Raspberry Pi Pico hardware: fake rp2 modules that shadow the built-ins.

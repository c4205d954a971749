"""The box model, the floor of the host tools: what every one of them knows about a box.

The Pico boards, the pin map, the LEDs' palette and how to read them, the layout a flash
leaves on a board, the box's words and the scenario language; it imports only the firmware
and the shared helpers (errors, mp, contact), and every other sub-package may import it.
"""

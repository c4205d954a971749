# Fast-forward games for boxrun: the computer plays every seat, thousands of turns in seconds.
"""Loaded by boxrun only for its ``a TURNS MS`` command (so it costs no heap otherwise).

The computer (Settings.computer on) takes every seat of a 4-seat game; the app is polled every
MS ms of boxrun's virtual clock instead of every 2 ms. Nothing else changes: the debouncer,
the game's own timing (the computer's pace, the dice animation) and the LEDs run as usual,
and Roll is pressed through its simulated pin to pass the box on after each score (held, at
the end of a game, to start the next). Only the score records are printed, then AUTO <n>.
"""

import simbus

from shutbox import pins
from shutbox.ticks import ticks_add, ticks_diff


def auto(app, now, turns, ms):
    """Play until *turns* turns have scored; *now* is boxrun's one-item clock list."""
    game = app.game
    cpu = game.cpu
    cpu.seats = 15
    cpu.players = 4
    done = [0]

    def out(line):
        if '"ev": "score"' in line:
            done[0] += 1
            print(line)

    app.out = out
    game.new_game(now[0])
    pin = pins.ROLL_PIN
    up = pins.SWITCH_ACTIVE ^ 1
    held = 0
    while done[0] < turns:
        now[0] = ticks_add(now[0], ms)
        app.step(now[0])
        if held:
            held -= 1
            if not held:
                simbus.set_level(pin, up)
        elif game.state >= 4 and ticks_diff(now[0], game.t_state) >= 1000:  # a score, the end
            simbus.set_level(pin, up ^ 1)
            held = 2 + (800 // ms + 1 if game.state == 5 else 0)  # held: a new game
    print("AUTO %d" % done[0])

# Fast-forward games for boxrun: the computer plays every seat, thousands of turns in seconds.
"""Loaded by boxrun only for its ``a TURNS MS`` and ``z`` commands (so it costs no heap
otherwise: the memory tests' runs never load it).

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


def model(app, guard):
    """Print boxrun's Z line for the fuzzer: the model (state, player, players, open tiles),
    the debounced levels, the throw, the error, the lock, the hold after a resume, who has
    played, the faults, and the dice entered (real dice: shutbox.turn.Dice; else -1)."""
    if app is None:
        print("Z -1")
        return
    game = app.game
    rs = app.resume
    d = game.dice
    n = d.throws if game.settings.real_dice else -1
    print("Z %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d" % (
        game.state, game.player, game.players, game.open_, app.deb.levels, game.a, game.b,
        game.err, 1 if game.locked else 0, rs.expect if rs else -1, game.played,
        guard.faults if guard else 0, n, d.a if n > 0 else 0, d.b if n > 1 else 0))

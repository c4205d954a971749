# Proof under the real micropython that the computer's and the coach's steps allocate nothing.
"""Run under micropython: computer_heaplock.py LEVEL TURNS

Builds the engine (hint tables on), a Game with the computer at LEVEL (1 easy, 2 medium,
3 hard) and best-move hints, the computer playing every seat. A virtual clock drives it; at
every state the computer or the coach acts in, its step functions run between
micropython.heap_lock() and heap_unlock(): the computer's dice and move choices
(Computer.tick deciding them; easy draws from the Dice byte pool), its drawing,
the coach's hints (best, one_die) and its analysis of a move and of the dice (move, dice). Prints
"STEPS <n> TURNS <n>" then "OK", or "ALLOC <where>" and exits 1.
"""

import sys

import micropython
from shutbox.dice import Dice
from shutbox.engine import Engine, Rules
from shutbox.game import Game
from shutbox.settings import Settings

_MOVE = 3
_READY = 1


_POOL = bytearray(32)  # the byte source refills this one buffer: refills allocate nothing


def urandom(n, x=[12345]):  # noqa: B006 - the xorshift state
    out = _POOL if n == 32 else bytearray(n)
    for i in range(n):
        v = x[0]
        v ^= (v << 13) & 0xFFFFFFFF
        v ^= v >> 17
        v ^= (v << 5) & 0xFFFFFFFF
        x[0] = v
        out[i] = v & 0xFF
    return out


def locked(where, fn, x=None, y=None, n=0):
    """Call fn with n of the arguments x, y, the heap locked; exit with ALLOC <where> if it
    allocates. (No *args: a star call allocates by itself.)"""
    micropython.heap_lock()
    try:
        if n == 0:
            r = fn()
        elif n == 1:
            r = fn(x)
        else:
            r = fn(x, y)
    except MemoryError:
        micropython.heap_unlock()
        print("ALLOC", where)
        sys.exit(1)
    micropython.heap_unlock()
    return r


def main():
    level = int(sys.argv[1])
    turns = int(sys.argv[2])
    eng = Engine(Rules(), None, hints=True)
    game = Game(eng, Dice(urandom), Settings(players=1, computer=level, hints=2), eng.full, 0)
    cpu = game.cpu
    coach = game.coach
    cpu.seats = 1  # seat 1: the computer; seat 2: a person the coach watches
    cpu.players = 2
    game.new_game(0)
    now = 0
    steps = 0
    seen = -1
    done = 0
    while done < turns:
        now += 10
        game.tick(now)
        st = game.state
        if game.transitions != seen and st in (_MOVE, _READY):
            seen = game.transitions
            if game.player == 0:  # the computer's turn
                if st == _MOVE:  # its move, chosen as it enters the state: chosen again
                    cpu._seen = game.transitions - 1  # not -1: a resumed game
                    locked("choose", cpu.tick, now, None, 1)
                    m = cpu.plan
                    if not eng.is_legal(game.open_, game.a, game.b, m):
                        print("ILLEGAL", m)
                        sys.exit(1)
                else:  # its choice of dice, made as it enters the state: made again
                    cpu._seen = game.transitions - 1  # not -1: a resumed game
                    locked("dice", cpu.tick, now, None, 1)
                locked("draw", cpu.draw, game.frame, now, 2)
            else:  # a person's turn: the hints and the analysis the coach gives
                if st == _MOVE:
                    locked("best", coach.best)
                    locked("move", coach.move, game.legal[game.moves - 1], None, 1)
                    locked("render", game.render, now, None, 1)
                    game.tiles_changed(game.levels & ~game.best, now)
                else:
                    locked("one_die", coach.one_die)
                    locked("analysis of the dice", coach.dice, False, None, 1)
                    game.roll(False, now)
            steps += 1
        if game.player == 1 and st == 0 and not game.err:  # SETUP: the person throws
            game.roll(False, now)
        if st >= 4 and now - game.t_state >= 1000:
            done += 1
            if st == 4:
                game.tiles_changed(eng.full, now)  # the box reopened for the next turn
            game.roll(st == 5, now)
            game.tiles_changed(eng.full, now)
        if len(game.log) > 50:
            del game.log[:]
    print("STEPS", steps, "TURNS", done)
    print("OK")


main()

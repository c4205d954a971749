# Challenge codes: dice that a 4-digit code decides, the same on every box (loaded only for one).
"""Challenge codes: with a code (0000..9999, setting ``code``) the dice follow it, so every box
with the same code and the same variant throws the same dice.

``Challenge(code, key)`` is a shutbox.dice.Dice whose bytes come from SHA-256 instead of
os.urandom; the faces come from them by Dice's own rejection sampling (a byte of 252..255 is
skipped, b gives b % 6 + 1). Each throw has its own stream, positioned by ``seek`` before it
(shutbox.game's throw calls ``seek(game)``)::

    M = b"STB1" | code (2 bytes) | key (4) | round (2) | tie-break (1) | seat (1)
        | throw (1) | block (1)                        16 bytes, integers little-endian
    stream = SHA-256(M, block 0) | SHA-256(M, block 1) | ...     32 bytes a block

* key: ``variant_key`` of the settings: the tile count and the rules of a turn (one-die,
  its mode, moves, scoring, start, open-box, to-go, unlucky-7, most-tiles), as the box's
  records key them;
* round: the round of the game (1 in a game of one round), tie-break: the replay round of a
  tie (0 otherwise), seat: the player (0..3), throw: the throw of the turn (0 the first).

Die A is the stream's first accepted byte, die B the next (two dice). So throw j of a seat's
turn is the same whatever happened before it (one die or two, other players, a power cut, a
game abandoned, another box); what else the turn draws (the computer's random picks, a
roll-off's dice) comes after it in the same stream. A code is one game: played again, it
throws the same dice again (a course to replay, as in golf); another code, other dice.

The host computes the same in shutbox_host.box.daily (``shutbox daily`` prints the code of a
date, ``--throws`` the throws of a code); tests/firmware/test_dice.py checks that both
interpreters throw the same, and the fairness of the faces over many codes.

Loaded by shutbox.app only when the settings have a code (and by the menu to show one,
unloaded before play).
"""

import hashlib

from micropython import const
from shutbox import frame as fr
from shutbox.dice import Dice

_MSG = const(16)  # the message (see the module doc); its last byte is the block
_BLOCK = const(15)
# BEGIN consts: written by `shutbox consts`; edit its table, not this block
_DIGIT_MS = const(900)  # one digit of a long number, of a challenge code
# END consts


# BEGIN variant_key: written by `shutbox consts`; edit its table, not this block
def variant_key(s, tiles):
    """Return the records' key of the variant of a turn under the settings *s* on *tiles*
    tiles (shutbox.records; the challenge codes key their dice with it).

    One die is off in same-throws games (shutbox.setfile.rules), so they count as one-die
    `never`. shutbox.setfile and shutbox.challenge each keep a copy (`shutbox consts`).
    """
    one = 0 if s.same_throws else s.one_die
    return (tiles | one << 4 | s.one_die_mode << 6 | s.moves << 8 | s.scoring << 10
            | s.start << 12 | (1 if s.open_box else 0) << 14 | s.to_go << 15
            | (1 if s.unlucky7 else 0) << 17 | (1 if s.most_tiles else 0) << 18
            | (1 if s.two_tiles else 0) << 19)
# END variant_key


def show(f, tiles, code, ms):
    """Draw challenge *code* into frame *f*, *ms* ms into its view: its four digits one at a
    time from the left, each for 900 ms (die A shows which, 1-4, and the tiles the digit as
    a bar, both cyan; a 0 lights no tile), then a dark gap (4.5 s in all; repeating)."""
    step = (ms // _DIGIT_MS) % 5
    fr.clear(f)
    if step < 4:
        d = code
        for _ in range(3 - step):
            d //= 10
        fr.bar(f, tiles, d % 10, fr.CYAN)
        fr.die(f, tiles, 0, step + 1, fr.CYAN)


class Challenge(Dice):
    """Dice that challenge *code* (0..9999) decides for the variant *key* (see the module
    doc); the game calls ``seek`` before each throw."""

    def __init__(self, code, key):
        super().__init__(self._block)
        self.code = code
        m = self._msg = bytearray(_MSG)
        m[0:4] = b"STB1"
        m[4:6] = code.to_bytes(2, "little")
        m[6:10] = key.to_bytes(4, "little")

    def _block(self, n):
        """The stream's next 32 bytes (Dice asks for its pool size; a block is what it gets)."""
        m = self._msg
        out = hashlib.sha256(m).digest()
        m[_BLOCK] = (m[_BLOCK] + 1) & 0xFF
        return out

    def seek(self, game):
        """Before a throw of shutbox.game.Game *game*: the next bytes are those of its throw
        (game.throws) of the seat's (game.player) turn in this round (game.match's round and
        tie-break round; 1 and 0 without a match)."""
        m = self._msg
        match = game.match
        m[10:12] = ((match.round if match is not None else 1) & 0xFFFF).to_bytes(2, "little")
        m[12] = (match.tiebreak if match is not None else 0) & 0xFF
        m[13] = game.player & 0xFF
        m[14] = game.throws & 0xFF
        m[_BLOCK] = 0
        self.flush()

    def draw(self, f, tiles, ms):
        """The game end's view of the challenge, *ms* ms into it: its code (``show``)."""
        show(f, tiles, self.code, ms)

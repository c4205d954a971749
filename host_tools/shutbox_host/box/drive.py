# The simulated board driven live: shutbox_host.model.drive's verbs on one boxrun process.
"""``SimBox``: the real firmware on the unix-port simulated board (sim/boxrun.py, virtual
clock), driven verb by verb through shutbox_host.model.drive's protocol.

The verbs become boxrun's primitive lines (``p``, ``E``, ``w``, ``d``, ``r``, ``R`` and the
questions), sent when something is read back (``shown``), each batch followed by an echoed
marker up to which the output is read, so the process lives between two calls and the pipes
never fill both ways. A wait is preceded by a marker naming the ms it ends at: a log record
printed during it is stamped with that end (boxrun's records carry no time; the frames and
tones carry their own ms).
"""

from __future__ import annotations

import subprocess
import tempfile

from shutbox_host.box import boxsim
from shutbox_host.model.drive import Driver, Shown

_CHUNK = 256  # lines sent before reading the output back: well under a pipe's buffer
_MARK = "@@"


class SimBox(Driver):
    """One simulated box (boxrun under micropython), from its power-up on."""

    name = "simulated board"

    def __init__(self, *args: str, heapsize: str = "256k", levels: int = -1):
        """*args*: boxrun's options (--players N, --flash DIR, ...); *levels*: the tiles
        open at power-up (bit k-1: tile k; -1: all)."""
        if levels != -1:
            args = (*args, "--levels", str(levels))
        argv, env = boxsim.command(*args, heapsize=heapsize)
        self._err = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._err, text=True, env=env, **boxsim.tied())
        self.ms = 0
        self.returncode: int | None = None
        self._out = Shown()
        self._todo: list[str] = []
        self._stamp = 0  # the ms the records read now are stamped with

    # ---- the verbs ----

    def levels(self, levels: dict[int, int]) -> None:
        self._todo += ["p %d %d" % (g, v) for g, v in levels.items()]

    def edges(self, gpio: int, edges: list[tuple[int, int]]) -> None:
        self._todo.append("E %d %s" % (gpio, " ".join("%d %d" % e for e in edges)))

    def advance(self, ms: int) -> None:
        if ms > 0:
            self.ms += ms
            self._todo += ["e %s%d" % (_MARK, self.ms), "w %d" % ms]

    def power_cut(self) -> None:
        self._todo.append("r")

    def reset(self) -> None:
        self._todo.append("R")

    def dice(self, faces: list[int]) -> None:
        self._todo.append("d " + " ".join(str(f) for f in faces))

    def ask(self, line: str) -> None:
        self._todo.append(line)

    def shown(self) -> Shown:
        while self._todo:
            chunk, self._todo = self._todo[:_CHUNK], self._todo[_CHUNK:]
            self._exchange(chunk)
        return self._out

    def close(self) -> None:
        """Send what is left and quit; ``returncode``, ``stderr``: how it ended."""
        if self.returncode is not None:
            return
        try:
            self.shown()
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write("q\n")
            self.proc.stdin.close()
            self._take(self.proc.stdout.read().splitlines())
        except (OSError, RuntimeError):
            self.proc.kill()
        self.returncode = self.proc.wait()

    @property
    def stderr(self) -> str:
        self._err.seek(0)
        return self._err.read()

    # ---- the pipes ----

    def _exchange(self, chunk: list[str]) -> None:
        """Send *chunk* and a marker; read the output up to the marker."""
        p = self.proc
        assert p.stdin is not None and p.stdout is not None
        end = _MARK + "sync"
        try:
            p.stdin.write("\n".join(chunk) + "\ne %s\n" % end)
            p.stdin.flush()
        except OSError:
            raise RuntimeError("the simulated board ended: %s" % self.stderr[-500:]) from None
        lines = []
        while True:
            line = p.stdout.readline()
            if not line:
                self._take(lines)
                raise RuntimeError("the simulated board ended: %s" % self.stderr[-500:])
            line = line.rstrip("\n")
            if line == end:
                break
            lines.append(line)
        self._take(lines)

    def _take(self, lines: list[str]) -> None:
        """Add boxrun's output *lines* to what was shown, the records stamped."""
        block: list[str] = []
        for line in [*lines, None]:
            if line is not None and not line.startswith(_MARK):
                block.append(line)
                continue
            frames, tones, log, other = boxsim.parse("\n".join(block))
            for rec in log:
                rec["_ms"] = self._stamp
            self._out.frames += frames
            self._out.tones += tones
            self._out.log += log
            self._out.lines += other
            block = []
            if line is not None:
                self._stamp = int(line[len(_MARK):])

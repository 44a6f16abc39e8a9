"""Which openings an event plays, and in what order: ``--openings FILE [order=...] [start=K]``.

``FILE`` is an openings file (:mod:`arbiter.openings.positions`) or the name of a suite shipped with the
package: ``balanced`` is, for each of the six variants (Dipole's and Impasse's), a file written
by ``dipole-arbiter openings`` (:mod:`arbiter.openings.generate`) whose positions the project's
own engine scores close to equal; the event's ``--variant`` picks the file.  ``dipole-balanced``,
its first name, stays an alias, so old commands work as they did; an event stores its openings
themselves (and a game's PGN ``Opening`` tag the file and line), never the name, so resuming an
event never looks the name up again.  A file of the given name in the working directory wins
over the shipped suite.

``order=sequential`` (the default) takes the lines in file order; ``order=random`` shuffles them
with ``random.Random(seed)`` (the event's ``--seed``, printed when not given).  ``start=K``
begins with the K-th line of that order (from 1) and goes on from there, wrapping round, so a
long test can be split into parts, or repeated exactly, by giving each part its start.  The
words are cutechess-cli's (``-openings file=FILE order=random start=K``; ``file=`` is accepted
too).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..errors import ArbiterError

SUITES_DIR = Path(__file__).parent / "suites"
SHIPPED = {"balanced": "balanced", "dipole-balanced": "balanced"}  # name (and alias) -> each variant's file stem
ORDERS = ("sequential", "random")

T = TypeVar("T")


def shipped_suite(name: str, variant: str) -> Path:
    """The file of shipped suite ``name`` for ``variant``."""
    return SUITES_DIR / f"{variant}.{SHIPPED[name]}.txt"


@dataclass(frozen=True)
class OpeningsChoice:
    """The parsed ``--openings`` words: a file (or shipped suite name), the order, the start (1-based)."""

    path: str
    order: str = "sequential"
    start: int = 1

    @classmethod
    def parse(cls, words: list[str]) -> OpeningsChoice:
        """``["book.txt", "order=random", "start=5"]`` (or ``file=book.txt`` as the first word)."""
        if not words:
            raise ArbiterError("--openings: give a file or a shipped suite (balanced)")
        path: str | None = None
        order, start = "sequential", 1
        for position, word in enumerate(words):
            key, sep, value = word.partition("=")
            if position == 0 and (not sep or key not in ("file", "order", "start")):
                path = word
            elif key == "file" and sep:
                path = value
            elif key == "order" and sep:
                if value not in ORDERS:
                    raise ArbiterError(f"--openings: order must be sequential or random, not {value!r}")
                order = value
            elif key == "start" and sep:
                if not value.isdigit() or not 1 <= int(value) <= 10**9:
                    raise ArbiterError(f"--openings: start must be a line number from 1, not {value!r}")
                start = int(value)
            else:
                raise ArbiterError(f"--openings: expected FILE [order=random|sequential] [start=K], found {word!r}")
        if not path:
            raise ArbiterError("--openings: no file given (FILE or file=FILE)")
        return cls(path, order, start)

    def resolve(self, variant: str) -> str:
        """The file to read: the path itself, or the shipped suite it names for ``variant``."""
        if self.path in SHIPPED and not os.path.exists(self.path):
            return str(shipped_suite(self.path, variant))
        return self.path

    def arrange(self, openings: list[T], seed: int | None) -> list[T]:
        """``openings`` in this order, starting at ``start`` (wrapping round)."""
        arranged = list(openings)
        if self.order == "random":
            random.Random(seed).shuffle(arranged)
        if self.start > len(arranged):
            raise ArbiterError(f"--openings: start={self.start} but the suite has {len(arranged)} openings")
        first = self.start - 1
        return arranged[first:] + arranged[:first]

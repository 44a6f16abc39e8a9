"""Which openings an event plays, and in what order: ``--openings FILE [format=...] [order=...]
[start=K] [plies=N]``.

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
too).  ``format=epd`` or ``format=pgn`` reads an EPD or PGN book (also known by the file's
suffix, ``.epd`` or ``.pgn``: :mod:`arbiter.openings.books`), and ``plies=N`` plays only the
first N book moves of each opening, as fastchess's ``-openings file= format= order= plies=``.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..errors import ArbiterError
from ..records.game import Opening
from .positions import load_openings

SUITES_DIR = Path(__file__).parent / "suites"
SHIPPED = {"balanced": "balanced", "dipole-balanced": "balanced"}  # name (and alias) -> each variant's file stem
ORDERS = ("sequential", "random")
FORMATS = ("epd", "pgn", "lines")  # the books of arbiter.openings.books, and the one-a-line format
KEYS = ("file", "format", "order", "start", "plies")

T = TypeVar("T")


def shipped_suite(name: str, variant: str) -> Path:
    """The file of shipped suite ``name`` for ``variant``."""
    return SUITES_DIR / f"{variant}.{SHIPPED[name]}.txt"


@dataclass(frozen=True)
class OpeningsChoice:
    """The parsed ``--openings`` words: a file (or shipped suite name), its format (None: by the
    file's suffix), the order, the start (1-based), the book moves kept of each (None: all)."""

    path: str
    order: str = "sequential"
    start: int = 1
    form: str | None = None
    plies: int | None = None

    @classmethod
    def parse(cls, words: list[str]) -> OpeningsChoice:
        """``["book.txt", "order=random", "start=5"]`` (or ``file=book.txt`` as the first word)."""
        if not words:
            raise ArbiterError("--openings: give a file or a shipped suite (balanced)")
        path: str | None = None
        order, start, form, plies = "sequential", 1, None, None
        for position, word in enumerate(words):
            key, sep, value = word.partition("=")
            if position == 0 and (not sep or key not in KEYS):
                path = word
            elif key == "file" and sep:
                path = value
            elif key == "order" and sep:
                if value not in ORDERS:
                    raise ArbiterError(f"--openings: order must be sequential or random, not {value!r}")
                order = value
            elif key == "format" and sep:
                if value not in FORMATS:
                    raise ArbiterError(f"--openings: format must be epd, pgn or lines, not {value!r}")
                form = value
            elif key == "start" and sep:
                start = _count(key, value, "a line number from 1")
            elif key == "plies" and sep:
                plies = _count(key, value, "a number of moves from 1")
            else:
                raise ArbiterError(
                    "--openings: expected FILE [format=epd|pgn] [order=random|sequential] [start=K] [plies=N], "
                    f"found {word!r}"
                )
        if not path:
            raise ArbiterError("--openings: no file given (FILE or file=FILE)")
        return cls(path, order, start, form, plies)

    def resolve(self, variant: str) -> str:
        """The file to read: the path itself, or the shipped suite it names for ``variant``."""
        if self.path in SHIPPED and not os.path.exists(self.path):
            return str(shipped_suite(self.path, variant))
        return self.path

    def load(self, variant: str) -> list[Opening]:
        """The openings of the file chosen (:meth:`resolve`), in file order."""
        return load_openings(self.resolve(variant), variant, self.form, self.plies)

    def arrange(self, openings: list[T], seed: int | None) -> list[T]:
        """``openings`` in this order, starting at ``start`` (wrapping round)."""
        arranged = list(openings)
        if self.order == "random":
            random.Random(seed).shuffle(arranged)
        if self.start > len(arranged):
            raise ArbiterError(f"--openings: start={self.start} but the suite has {len(arranged)} openings")
        first = self.start - 1
        return arranged[first:] + arranged[:first]


def _count(key: str, value: str, what: str) -> int:
    """The whole number ``value`` of the word ``key=value``, from 1."""
    if not value.isdigit() or not 1 <= int(value) <= 10**9:
        raise ArbiterError(f"--openings: {key} must be {what}, not {value!r}")
    return int(value)

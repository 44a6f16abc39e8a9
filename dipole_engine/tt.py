"""The transposition table: search results remembered by Zobrist key, plus the score scale.

Scores are integers in centipawn-like units from the side to move's point of view.  A won or
lost game is a *mate score*: ``MATE - p`` when the side to move wins ``p`` plies from the root
of the search, ``-(MATE - p)`` when it loses.  Every other score stays strictly inside
``(-MATE_BOUND, MATE_BOUND)``, so ``abs(score) >= MATE_BOUND`` means "a forced result".

Table entries
-------------
The table is a preallocated list of ``2**n`` slots; a position with key ``k`` lives in slot
``k & mask`` (one entry per slot, newer results replace older ones, see :meth:`store`).
A slot holds ``None`` or a tuple ``(key, depth, score, bound, move, generation)``:

* ``key``: the full 64-bit key, compared on probe, so a slot shared by two positions never
  answers for the wrong one (only a true 64-bit key collision could, which is negligible).
* ``depth``: the remaining depth (plies) of the search that produced the entry.
* ``score`` with ``bound``: ``EXACT`` means the true minimax value at that depth is ``score``;
  ``LOWER`` means it is at least ``score`` (the search failed high, ``score >= beta``);
  ``UPPER`` means it is at most ``score`` (it failed low, ``score <= alpha``).
* ``move``: the best (or refuting) move found, or None; searched first when the position
  comes back.
* ``generation``: the number of the search that stored it (for ``hashfull``).

Mate scores are stored relative to the entry's own position, not to the root: a mate found
``p`` plies below the root at a node ``ply`` plies deep is ``p - ply`` plies from that node.
:meth:`TranspositionTable.store` converts on store and :func:`score_from_tt` back on probe, so the same
entry is right wherever in the tree (at whatever ply) the position is met again.
"""

from __future__ import annotations

from typing import Any, Final

MAX_PLY: Final = 256
"""No search line is ever longer than this (mate scores rely on it)."""

MATE: Final = 32000
MATE_BOUND: Final = MATE - MAX_PLY
"""Scores at or beyond +-MATE_BOUND are mate scores; evaluations always stay inside."""

INFINITE: Final = MATE + 1

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2

Entry = tuple[int, int, int, int, Any, int]

ENTRY_BYTES: Final = 128
"""What one filled slot costs in CPython: the slot itself, the 6-tuple and its 64-bit key int
(small ints and the moves are shared).  The Hash option is divided by this to size the table."""

MIN_ENTRIES: Final = 1024


def score_from_tt(score: int, ply: int) -> int:
    """A stored score as a search score at ``ply``: mate distances counted from the root."""
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


def entries_for(mb: int) -> int:
    """The number of slots that ``mb`` megabytes hold: a power of two, at least MIN_ENTRIES."""
    budget = max(1, mb) * 1024 * 1024 // ENTRY_BYTES
    return max(MIN_ENTRIES, 1 << (budget.bit_length() - 1))


class TranspositionTable:
    """A fixed-size table of search results keyed by Zobrist key.

    ``table`` and ``mask`` are public so that the search can probe inline (``table[key &
    mask]``) in its hot path; everything else goes through the methods.
    """

    def __init__(self, mb: int = 16) -> None:
        self.generation = 0
        self.table: list[Entry | None] = []
        self.mask = 0
        self.resize(mb)

    @property
    def size(self) -> int:
        return len(self.table)

    def resize(self, mb: int) -> None:
        """Reallocate for ``mb`` megabytes; forgets everything."""
        if mb < 1:
            raise ValueError(f"hash size must be at least 1 MB, got {mb}")
        count = entries_for(mb)
        self.table = [None] * count
        self.mask = count - 1

    def clear(self) -> None:
        """Forget every entry (a new game)."""
        self.table[:] = [None] * len(self.table)
        self.generation = 0

    def new_search(self) -> None:
        """Start a new search: entries stored from now on count for ``hashfull``."""
        self.generation = (self.generation + 1) & 0xFFFF

    def probe(self, key: int) -> Entry | None:
        """The entry for ``key``, or None."""
        entry = self.table[key & self.mask]
        if entry is not None and entry[0] == key:
            return entry
        return None

    def store(self, key: int, depth: int, score: int, bound: int, move: Any, ply: int) -> None:
        """Remember a result for ``key`` found at ``ply`` with ``depth`` plies left.

        Replacement: a slot holding another position is always overwritten (recent results
        are the useful ones); for the same position a shallower result does not replace a
        deeper one.  A result without a move keeps the move already known.
        """
        index = key & self.mask
        table = self.table
        old = table[index]
        if old is not None and old[0] == key:
            if depth < old[1]:
                return
            if move is None:
                move = old[4]
        if score >= MATE_BOUND:  # mate distances from this node (see the module docstring)
            score += ply
        elif score <= -MATE_BOUND:
            score -= ply
        table[index] = (key, depth, score, bound, move, self.generation)

    def hashfull(self) -> int:
        """Per mille of the first 1000 slots filled by the current search (UCI ``hashfull``)."""
        sample = self.table[:1000]
        generation = self.generation
        used = sum(1 for entry in sample if entry is not None and entry[5] == generation)
        return used * 1000 // len(sample)

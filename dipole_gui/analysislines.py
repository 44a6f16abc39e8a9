"""What the analysis board shows of an engine's search beyond one line: its several principal
variations (MultiPV), the arrow of each line's first move, and the score found for each ply.

An engine that declares ``option name MultiPV type spin`` may be asked for up to
:data:`MAX_LINES` lines; each of its ``info`` lines then names its line (``multipv k``, 1 the
best).  :class:`AnalysisLines` keeps the latest of each line of the position analysed and the
``thinking`` message every page gets::

    {"type": "thinking", "source": "analysis", "ply": 12,   # the ply analysed
     ...the best line (arbiter/searchline.py's JSON, White's view)...,
     "arrow": {"from": "c1", "to": "c3" | null, "kind": "move" | "exit" | ...} | null,
     "lines": [{"multipv": 1, ...search line..., "arrow": ...}, ...]}   # best first

The arrow is read from the line's first move by the rules (:func:`move_arrow`); the page only
draws it (``to`` is null for a move that leaves the board: an exit or an Impasse removal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arbiter.board import move_ends
from arbiter.live.searchline import search_line
from dipole_engine.rules import Board, Color, RulesError
from protocol import Info, OptionSpec

MAX_LINES = 5  # the most lines the page offers to show at once
MULTIPV_OPTION = "MultiPV"
KIND_WORDS = {  # the move kinds of both games, as the page's target markers and arrows name them
    "BASIC": "move",
    "MERGE": "merge",
    "CAPTURE": "capture",
    "EXIT": "exit",
    "PASS": "pass",
    "SLIDE": "move",
    "TRANSPOSE": "merge",
    "REMOVE": "remove",
}


def move_arrow(board: Board[Any], text: str) -> dict[str, Any] | None:
    """The arrow of the move ``text`` in ``board``: its origin, target and kind; None for a
    pass or text that names no legal move there (an engine's line is not trusted)."""
    try:
        move = board.parse_move(text)
    except RulesError:
        return None
    kind = KIND_WORDS[move.kind.name]
    origin, target = move_ends(board, move)
    if kind == "pass" or origin is None:
        return None
    return {"from": origin, "to": target, "kind": kind}


def multipv_range(options: Mapping[str, OptionSpec]) -> int:
    """How many lines an engine with ``options`` may be asked for (1: it declares no MultiPV)."""
    spec = next((option for name, option in options.items() if name.lower() == MULTIPV_OPTION.lower()), None)
    if spec is None or spec.type != "spin":
        return 1
    return max(1, min(MAX_LINES, spec.max if spec.max is not None else MAX_LINES))


class AnalysisLines:
    """The lines of the position analysed now (see the module docstring)."""

    def __init__(self, board: Board[Any], ply: int, wanted: int) -> None:
        self.board = board
        self.ply = ply
        self.wanted = wanted
        self.lines: dict[int, dict[str, Any]] = {}

    def add(self, info: Info, mover: Color) -> dict[str, Any]:
        """Take ``info`` (searched by ``mover``) and return the ``thinking`` message of all lines."""
        number = info.multipv or 1
        if number <= self.wanted:  # a line beyond those asked for (an engine's own idea) is not shown
            line = search_line(info, mover)
            line["multipv"] = number
            line["arrow"] = move_arrow(self.board, line["pv"][0]) if line["pv"] else None
            self.lines[number] = line
        best = self.lines.get(1) or next(iter(self.lines.values()), None) or {}
        return {
            "type": "thinking",
            "source": "analysis",
            "ply": self.ply,
            **best,
            "lines": [self.lines[k] for k in sorted(self.lines)],
        }

    def best_score(self) -> dict[str, int] | None:
        """The best line's exact score (White's view), when there is one."""
        best = self.lines.get(1)
        if best is None or best["bound"] is not None:
            return None
        score: dict[str, int] | None = best["score"]
        return score

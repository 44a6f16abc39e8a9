"""What the analysis board shows of an engine's search beyond one line: its several principal
variations (MultiPV), the arrow of each line's first move, and the score found for each ply.

An engine that declares ``option name MultiPV type spin`` may be asked for up to
:data:`MAX_LINES` lines; each of its ``info`` lines then names its line (``multipv k``, 1 the
best).  :class:`AnalysisLines` keeps the latest of each line of the position analysed and the
``thinking`` message every page gets::

    {"type": "thinking", "source": "analysis", "ply": 12,   # the ply analysed
     ...the best line (arbiter/searchline.py's JSON, White's view)...,
     "arrow": {"from": "c1" | null, "target": {"kind": "move", "square": "c3", "edge": null}} | null,
     "shown": ["Nf3", "..."],                                 # the line in the game's notation
     "lines": [{"multipv": 1, ...search line..., "arrow": ..., "shown": ...}, ...]}   # best first

The arrow is the line's first move as the game describes it (:func:`move_arrow`: its origin and
its marker, as ``board.js`` draws them); the page only draws it.  ``shown`` is the line as the
move list writes moves (:func:`line_notation`: SAN in chess), while ``pv`` keeps the engine's
protocol texts, which a click on the line sends back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arbiter.board import move_json
from arbiter.live.searchline import search_line
from gameplug import GameError, Side, State
from protocol import Info, OptionSpec

MAX_LINES = 5  # the most lines the page offers to show at once
MULTIPV_OPTION = "MultiPV"


def move_arrow(state: State[Any], text: str) -> dict[str, Any] | None:
    """The arrow of the move ``text`` at ``state``: where the game draws it; None for a move
    with no place on the board (a pass) or text that names no legal move there (an engine's
    line is not trusted)."""
    try:
        choice = state.describe_move(state.read_move(text))
    except GameError:
        return None
    return None if choice.target is None else move_json(choice)


def legal_notation(state: State[Any], pv: Sequence[str]) -> list[str]:
    """The moves of an engine's line ``pv`` (protocol texts, from ``state``) in the game's
    notation, up to the first that is not legal there (an engine's line is not trusted)."""
    shown: list[str] = []
    after = state.copy()
    for text in pv:
        try:
            move = after.read_move(text)
        except GameError:
            break
        shown.append(after.notation(move))
        after.play(move)
    return shown


def line_notation(state: State[Any], pv: Sequence[str]) -> list[str]:
    """An engine's line ``pv`` (from ``state``) in the game's notation, as far as its moves are
    legal; the rest as the engine wrote it."""
    shown = legal_notation(state, pv)
    return [*shown, *pv[len(shown) :]]


def carries_line(info: Info) -> bool:
    """Whether an ``info`` line carries a search line to show (a score or moves), not just the
    search's progress: Stockfish, past 3 s of search, also says which move it searches (``info
    depth 19 currmove e2e4 currmovenumber 3``), which would blank the line shown."""
    return bool(info.pv) or info.score_cp is not None or info.score_mate is not None


def multipv_range(options: Mapping[str, OptionSpec]) -> int:
    """How many lines an engine with ``options`` may be asked for (1: it declares no MultiPV)."""
    spec = next((option for name, option in options.items() if name.lower() == MULTIPV_OPTION.lower()), None)
    if spec is None or spec.type != "spin":
        return 1
    return max(1, min(MAX_LINES, spec.max if spec.max is not None else MAX_LINES))


class AnalysisLines:
    """The lines of the position analysed now (see the module docstring)."""

    def __init__(self, state: State[Any], ply: int, wanted: int) -> None:
        self.state = state
        self.ply = ply
        self.wanted = wanted
        self.lines: dict[int, dict[str, Any]] = {}

    def add(self, info: Info, mover: Side) -> dict[str, Any]:
        """Take ``info`` (searched by ``mover``) and return the ``thinking`` message of all lines."""
        number = info.multipv or 1
        if number <= self.wanted:  # a line beyond those asked for (an engine's own idea) is not shown
            line = search_line(info, mover)
            line["multipv"] = number
            line["arrow"] = move_arrow(self.state, line["pv"][0]) if line["pv"] else None
            line["shown"] = line_notation(self.state, line["pv"])
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

"""An engine's search line as every page shows it: one JSON shape, scores from White's side.

An ``info`` line's score is the mover's (the protocol's convention, and the PGN record's:
``arbiter/NOTATION.md``).  A page that shows both engines of a game side by side, or a score
graph over a whole game, needs one side for all of them: White's, as analysis programs and
Lichess show it.  :func:`search_line` turns an :class:`~protocol.codec.Info` and the side
that searched into that view; the live file (:mod:`arbiter.live.livefiles`, read by the GUI's
watch page) and the GUI's play page both send it, and one JavaScript module of the GUI formats
it for both.

The JSON (:data:`POINT_OF_VIEW` is stated in it, so a reader never has to guess)::

    {"pov": "white", "depth": 12, "seldepth": 18,
     "score": {"cp": 35} | {"mate": -2} | null,   # White's view; mate in moves, < 0: White is mated
     "bound": "lower" | "upper" | null,           # also White's view: a bound flips with the sign
     "nodes": 123456, "nps": 400000, "time": 308, # time in ms; any of these may be null
     "pv": ["c1-c3", "..."]}
"""

from __future__ import annotations

from typing import Any, Literal

from gameplug import Side
from protocol.codec import Info

POINT_OF_VIEW = "white"  # every score a page gets is from this side


def white_score(cp: int | None, mate: int | None, mover: Side) -> dict[str, int] | None:
    """A score from ``mover``'s view as White's: ``{"cp": n}``, ``{"mate": n}`` or None."""
    if mate is not None:
        return {"mate": mate * mover}
    if cp is not None:
        return {"cp": cp * mover}
    return None


def white_bound(bound: Literal["lower", "upper"] | None, mover: Side) -> str | None:
    """A score bound from ``mover``'s view as White's (Black's lower bound is White's upper)."""
    if bound is None or mover == Side.FIRST:
        return bound
    return "upper" if bound == "lower" else "lower"


def shows_search(info: Info) -> bool:
    """Whether an info line reports the search (depth, score or line), not just the move being
    searched or a string: only those replace the line a page shows."""
    return info.depth is not None or info.score_cp is not None or info.score_mate is not None or bool(info.pv)


def search_line(info: Info, mover: Side) -> dict[str, Any]:
    """The JSON of ``info``, searched by ``mover`` (see the module docstring)."""
    return {
        "pov": POINT_OF_VIEW,
        "depth": info.depth,
        "seldepth": info.seldepth,
        "score": white_score(info.score_cp, info.score_mate, mover),
        "bound": white_bound(info.score_bound, mover),
        "nodes": info.nodes,
        "nps": info.nps,
        "time": info.time,
        "pv": list(info.pv),
    }

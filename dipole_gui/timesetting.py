"""The time control of a game, as the page chooses it, and the error a page request can meet."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arbiter.play.timecontrol import SearchLimits, TimeControl

MOVETIME_GRACE = 1.0  # seconds an engine may overrun a fixed time per move
CLOCK_GRACE = 0.2  # seconds an engine may overrun its clock (a GUI, not a tournament)


class PageError(Exception):
    """A request the page made that cannot be done; its text is shown to the user as is."""


@dataclass(frozen=True)
class TimeSetting:
    """The time control of a game chosen on the page."""

    kind: str  # "clock", "movetime" or "depth"
    base: float = 300.0  # clock: seconds for the game
    increment: float = 0.0  # clock: seconds added after each move
    seconds: float = 1.0  # movetime: seconds per engine move
    depth: int = 4  # depth: plies per engine move

    @classmethod
    def from_page(cls, data: Any) -> TimeSetting:
        """The setting the page sent (``{"kind": "clock", "base": 300, "increment": 3}``,
        ``{"kind": "movetime", "seconds": 1}`` or ``{"kind": "depth", "depth": 4}``); raises
        PageError for anything else."""
        if not isinstance(data, dict):
            raise PageError("time control: expected an object")
        kind = data.get("kind")
        if kind == "clock":
            base = _number(data.get("base"), "clock minutes", 1, 36000)
            increment = _number(data.get("increment", 0), "clock increment", 0, 600)
            if base <= 0:
                raise PageError("time control: the clock must give some time")
            return cls("clock", base=base, increment=increment)
        if kind == "movetime":
            return cls("movetime", seconds=_number(data.get("seconds"), "seconds per move", 0.01, 3600))
        if kind == "depth":
            return cls("depth", depth=int(_number(data.get("depth"), "depth", 1, 99)))
        raise PageError(f"time control: unknown kind {str(kind)[:20]!r}; expected clock, movetime or depth")

    def control(self) -> TimeControl | None:
        return TimeControl(0, self.base, self.increment) if self.kind == "clock" else None

    def limits(self, caps: SearchLimits | None) -> SearchLimits:
        """What binds a seat in the referee: for an engine (``caps``: its configured limits, of
        which ``depth``, ``nodes`` and the margin cap it in every game) the page's setting with
        the GUI's grace, for a human (None) its clock alone, without grace (a time per move is
        only written in the record)."""
        if caps is None:
            return SearchLimits(clock=self.control(), movetime=self.seconds if self.kind == "movetime" else None)
        if self.kind == "clock":
            return SearchLimits(
                clock=self.control(), depth=caps.depth, nodes=caps.nodes, margin=max(CLOCK_GRACE, caps.margin)
            )
        if self.kind == "movetime":
            return SearchLimits(
                movetime=self.seconds, depth=caps.depth, nodes=caps.nodes, margin=max(MOVETIME_GRACE, caps.margin)
            )
        depth = self.depth if caps.depth is None else min(self.depth, caps.depth)
        return SearchLimits(depth=depth, nodes=caps.nodes)

    def to_page(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "base": self.base,
            "increment": self.increment,
            "seconds": self.seconds,
            "depth": self.depth,
        }


def _number(value: Any, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PageError(f"time control: {what} must be a number")
    if not low <= value <= high:
        raise PageError(f"time control: {what} must be between {low:g} and {high:g}")
    return float(value)


FREE = TimeSetting("depth")  # the setting of a game with no clock (set-up positions, records)

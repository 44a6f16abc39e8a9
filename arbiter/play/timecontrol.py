"""Time controls and the arbiter's clocks.

A :class:`TimeControl` is cutechess-cli's ``[moves/]time[+increment]`` (time in seconds or
``minutes:seconds``): ``40/60`` gives 60 s for every 40 moves, ``10+0.1`` gives 10 s for the
game plus 0.1 s after each move, ``inf`` means no clock.  :class:`SearchLimits` is everything
that bounds one engine's thinking (clock, fixed time per move, depth, nodes, margin), and
:class:`Clock` is the running clock of one side in one game.

The arbiter measures time itself: a move costs the monotonic seconds from writing ``go`` to
reading ``bestmove``, counted in whole milliseconds (rounded down: engines are told whole
milliseconds, and cutechess-cli and fastchess charge so).  A side's increment is on its clock
from its first move, as fastchess and Fischer clocks give it.  A side has lost on time when a
move costs more than the time it had left plus its margin (``timemargin``); a move that overruns
by less than the margin leaves 0.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from mypy_extensions import mypyc_attr

from ..errors import ArbiterError

MAX_SECONDS = 10**7
"""The longest time the arbiter accepts anywhere (about 115 days): longer cannot be waited for."""
MAX_DEPTH = 2**31 - 1  # what any engine can read as a 32-bit integer
MAX_NODES = 2**63 - 1  # ... as a 64-bit integer

_NUMBER = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
_TC_TEXT = re.compile(
    rf"(?:(?P<moves>[0-9]+)/)?(?:(?P<minutes>[0-9]+):)?(?P<seconds>{_NUMBER})(?:\+(?P<inc>{_NUMBER}))?"
)


def _format_seconds(seconds: float) -> str:
    """``60.0`` -> ``60``, ``0.1`` -> ``0.1``: the shortest text that reads back the same."""
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


@mypyc_attr(native_class=False)  # pickled to game processes and workers (README: Builds)
@dataclass(frozen=True)
class TimeControl:
    """``moves`` per period (0: the whole game is one period), ``base`` seconds per period,
    ``increment`` seconds added after each move."""

    moves: int
    base: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl | None:
        """Read ``[moves/]time[+increment]``; ``inf`` gives None (no clock)."""
        token = text.strip()
        if token == "inf":
            return None
        match = _TC_TEXT.fullmatch(token)
        if match is None:
            raise ArbiterError(
                f"time control {text!r}: expected [moves/]seconds[+increment] such as 40/60, 10+0.1, 2:30+1 or inf"
            )
        moves = int(match.group("moves") or 0)
        base = float(match.group("seconds")) + 60 * int(match.group("minutes") or 0)
        increment = float(match.group("inc") or 0)
        if match.group("moves") is not None and moves == 0:
            raise ArbiterError(f"time control {text!r}: the number of moves per period must be at least 1")
        if base <= 0 and increment <= 0:
            raise ArbiterError(f"time control {text!r}: gives no time at all")
        if max(base, increment) > MAX_SECONDS or moves > MAX_DEPTH:
            raise ArbiterError(f"time control {text!r}: too large (at most {MAX_SECONDS} seconds)")
        return cls(moves, base, increment)

    def __str__(self) -> str:
        text = _format_seconds(self.base)
        if self.moves:
            text = f"{self.moves}/{text}"
        if self.increment:
            text += f"+{_format_seconds(self.increment)}"
        return text


def _number(
    text: str, what: str, kind: type[int] | type[float], low: float, strict: bool, expected: str, high: float
) -> float:
    """``text`` read as ``kind``, above ``low`` (``strict``) or at least ``low``, and at most
    ``high``; else ArbiterError."""
    try:
        value = kind(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ArbiterError(f"{what} {text!r}: expected {expected}")
    if value < low or (strict and value == low):
        bound = f"more than {low:g}" if strict else f"at least {low:g}"
        raise ArbiterError(f"{what} {text!r}: must be {bound}")
    if value > high:
        raise ArbiterError(f"{what} {text!r}: must be at most {high:,.0f}")
    return value


def parse_seconds(text: str, what: str) -> float:
    """A positive number of seconds (``st=0.5``); ``what`` names the setting in errors."""
    return _number(text, what, float, 0, True, "a number of seconds such as 0.5", MAX_SECONDS)


def parse_count(text: str, what: str, high: int = MAX_NODES) -> int:
    """A positive whole number (``depth=3``, ``nodes=10000``), at most ``high``."""
    return int(_number(text, what, int, 1, False, "a whole number", high))


def parse_switch(text: str, what: str) -> bool:
    """``true`` or ``false`` (``ponder=true``); ``what`` names the setting in errors."""
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise ArbiterError(f"{what}={text!r}: expected true or false")
    return value == "true"


def parse_margin(text: str) -> float:
    """``timemargin`` in milliseconds (cutechess-cli's unit), returned in seconds."""
    return _number(text, "timemargin", int, 0, False, "a whole number of milliseconds", MAX_SECONDS * 1000) / 1000


@mypyc_attr(native_class=False)  # pickled to game processes and workers (README: Builds)
@dataclass(frozen=True)
class SearchLimits:
    """What bounds one engine's search: ``clock`` (None: no clock), ``movetime`` seconds per
    move, ``depth`` and ``nodes`` (sent to the engine, not enforced), and ``margin``, the
    seconds an engine may overrun its time before it loses on time; ``ponder``, whether it
    thinks on its opponent's time (cutechess-cli's pondering: not a limit, but part of how the
    engine is timed).  ``infinite`` is ``tc=inf``:
    no clock; as the only limit, each move is ``go infinite`` ended by the arbiter's ``stop``
    after the stall timeout (so that timeout is then the time per move)."""

    clock: TimeControl | None = None
    movetime: float | None = None
    depth: int | None = None
    nodes: int | None = None
    margin: float = 0.0
    infinite: bool = False
    ponder: bool = False  # think on the opponent's time (``go ponder``), if the engine has a Ponder option

    @property
    def bounded(self) -> bool:
        """True when something makes the engine answer (an unbounded ``go`` never returns)."""
        return self.infinite or any(x is not None for x in (self.clock, self.movetime, self.depth, self.nodes))

    @property
    def stopped_by_host(self) -> bool:
        """True when ``tc=inf`` is the only limit: the arbiter ends each search with ``stop``."""
        return self.infinite and all(x is None for x in (self.clock, self.movetime, self.depth, self.nodes))

    def describe(self) -> str:
        """The PGN ``TimeControl`` value: ``40/60+0.5``, ``0.5/move``, or ``-`` for none."""
        if self.clock is not None:
            return str(self.clock)
        if self.movetime is not None:
            return f"{_format_seconds(self.movetime)}/move"
        return "-"

    def summary(self) -> str:
        """Every limit, for the match header: ``tc=10+0.1 depth=4``."""
        parts = []
        if self.clock is not None:
            parts.append(f"tc={self.clock}")
        elif self.infinite:
            parts.append("tc=inf")
        if self.movetime is not None:
            parts.append(f"st={_format_seconds(self.movetime)}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        if self.margin:
            parts.append(f"timemargin={round(self.margin * 1000)}")
        if self.ponder:
            parts.append("ponder=true")
        return " ".join(parts) or "none"


def charged(seconds: float) -> float:
    """What a move that took ``seconds`` costs on a clock: whole milliseconds, rounded down
    (a time read back from a record, ``0.029``, is 29 ms however the float falls)."""
    return math.floor(max(0.0, seconds) * 1000 + 1e-6) / 1000


TICK = 0.001
"""The clock's unit: a move is late once it has run a whole millisecond past its time."""


@mypyc_attr(native_class=False)  # copied (the GUI's take-backs)
class Clock:
    """One side's clock in one game.

    ``remaining`` is the seconds left in the current period (never negative: an overrun
    inside the margin leaves 0); ``moves_to_go`` is the moves left until the next period's
    time is added (None with a single-period control or no clock).
    """

    def __init__(self, control: TimeControl | None) -> None:
        self.control = control
        self.remaining = control.base + control.increment if control else 0.0
        self.moves_to_go: int | None = control.moves if control and control.moves else None

    def spend(self, seconds: float, margin: float) -> bool:
        """Charge a move that took ``seconds``; False when that loses on time."""
        control = self.control
        if control is None:
            return True
        seconds = charged(seconds)
        # (compared in whole milliseconds: ``remaining`` drifts below them as floats add up)
        if round(seconds * 1000) > round((self.remaining + margin) * 1000):
            self.remaining -= seconds
            return False
        self.remaining = max(0.0, self.remaining - seconds) + control.increment
        if self.moves_to_go is not None:
            self.moves_to_go -= 1
            if self.moves_to_go == 0:
                self.moves_to_go = control.moves
                self.remaining += control.base
        return True

    def credit_forced_move(self) -> None:
        """A move the arbiter played for this side (a forced pass) takes no time but is a move."""
        self.spend(0.0, 0.0)

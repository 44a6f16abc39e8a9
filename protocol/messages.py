"""The messages of the protocol: every command and response of protocol/SPEC.md as a typed value.

Frozen value objects (hashable, compared by value), with :class:`ProtocolError`, the error every
reading and writing of a line raises.  :mod:`protocol.reading` reads lines into them and
:mod:`protocol.codec` writes them (and is where a program imports all three from).  They are
ordinary Python classes, also in the compiled build: a value with a field of the wrong type
(``Limit(nodes=True)``) must be made, and refused by the writer with a ProtocolError that says
which field, not by its constructor.  The two a host makes at every move (:class:`Limit`,
:class:`BestMove`) are made in one write of their fields
(:func:`dipole_runtime.values.quick_init`); an :class:`Info` is made by the reader from the
dict it parsed the line into.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Literal

from dipole_runtime.values import quick_init


class ProtocolError(ValueError):
    """A line (or value) that does not follow the protocol; ``str()`` is one line saying why."""


# ====================================================================================
# Commands: GUI -> engine
# ====================================================================================


@dataclass(frozen=True, slots=True)
class Uci:
    """``uci``: start the UCI handshake (the engine answers id, options, ``uciok``)."""


@dataclass(frozen=True, slots=True)
class Ugi:
    """``ugi``: start the UGI handshake (as ``uci``, ending with ``ugiok``)."""


@dataclass(frozen=True, slots=True)
class IsReady:
    """``isready``: the engine answers ``readyok`` once it has processed every earlier command."""


@dataclass(frozen=True, slots=True)
class SetOption:
    """``setoption name <name> [value <value>]``; ``value`` None for a button."""

    name: str
    value: str | None = None


@dataclass(frozen=True, slots=True)
class UciNewGame:
    """``ucinewgame``: the next position is from a different game."""


@dataclass(frozen=True, slots=True)
class UgiNewGame:
    """``uginewgame``: UGI's ``ucinewgame``."""


@dataclass(frozen=True, slots=True)
class Position:
    """``position startpos|fen <FEN> [moves <m1> ...]``; ``fen`` None means the start position."""

    fen: str | None = None
    moves: tuple[str, ...] = ()


@quick_init
@dataclass(frozen=True)
class Limit:
    """The limits of a search, the parameters of ``go``; times in milliseconds.

    ``wtime``/``btime`` are the clocks of White (p1, who moves first) and Black (p2); they may
    be zero or negative (a flagged clock).  No limiting field set at all means ``infinite`` (a
    bare ``go`` searches until ``stop``, SPEC.md 4.6), so ``Limit() == Limit(infinite=True)``;
    ``searchmoves`` and ``ponder`` do not limit a search.  ``mate`` asks for a win in at most
    that many moves; ``searchmoves`` restricts the root moves (the codec does not check them:
    moves are the engine's); ``ponder`` searches the position after the predicted move,
    untimed until ``ponderhit`` (SPEC.md 4.6, 4.12).
    """

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.infinite is False and _limit_numbers(self) == _NO_NUMBERS:
            object.__setattr__(self, "infinite", True)


LIMIT_NUMBERS = tuple(spec.name for spec in fields(Limit) if spec.type == "int | None")
"""The fields of a :class:`Limit` that take a number, in the order ``go`` writes them."""
_limit_numbers = attrgetter(*LIMIT_NUMBERS)
_NO_NUMBERS = (None,) * len(LIMIT_NUMBERS)


@dataclass(frozen=True, slots=True)
class Go:
    """``go [wtime N] [btime N] [winc N] [binc N] [movestogo N] [movetime N] [depth N] [nodes N]
    [mate N] [infinite] [ponder] [searchmoves M1 M2 ...]``; UGI's ``p1time p2time p1inc p2inc`` are read as wtime btime winc binc."""

    limit: Limit = field(default_factory=Limit)


@dataclass(frozen=True, slots=True)
class GoPerft:
    """``go perft <depth>``: count the move sequences ``depth`` plies deep."""

    depth: int


@dataclass(frozen=True, slots=True)
class Stop:
    """``stop``: finish the running search now and send its ``bestmove``."""


@dataclass(frozen=True, slots=True)
class PonderHit:
    """``ponderhit``: the opponent played the move the ``go ponder`` search predicted; the same
    search goes on, now on the clock."""


@dataclass(frozen=True, slots=True)
class Quit:
    """``quit``: stop any search and exit."""


QUERY_ITEMS = ("gameover", "p1turn", "result", "fen", "moves", "size", "startpos")
"""UGI's three items, then protocol 1.1's four for GUIs that know no rules (SPEC.md 4.9)."""


@dataclass(frozen=True, slots=True)
class Query:
    """``query <item>``: the engine answers ``response <value>``.  UGI's items are ``gameover``,
    ``p1turn`` and ``result``; protocol 1.1 adds ``fen`` (the current position), ``moves`` (its
    legal moves), ``size`` (the board, ``<files>x<ranks>``) and ``startpos`` (the variant's
    start FEN)."""

    item: Literal["gameover", "p1turn", "result", "fen", "moves", "size", "startpos"]


Command = (
    Uci
    | Ugi
    | IsReady
    | SetOption
    | UciNewGame
    | UgiNewGame
    | Position
    | Go
    | GoPerft
    | Stop
    | PonderHit
    | Quit
    | Query
)


# ====================================================================================
# Responses: engine -> GUI
# ====================================================================================


@dataclass(frozen=True, slots=True)
class Id:
    """``id <field> <value>``: ``id name ...`` and ``id author ...`` during the handshake."""

    field: str
    value: str


@dataclass(frozen=True, slots=True)
class UciOk:
    """``uciok``: the end of the UCI handshake."""


@dataclass(frozen=True, slots=True)
class UgiOk:
    """``ugiok``: the end of the UGI handshake."""


@dataclass(frozen=True, slots=True)
class ReadyOk:
    """``readyok``: the answer to ``isready``."""


OPTION_TYPES = ("check", "spin", "combo", "button", "string")


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """``option name <name> type <type> [default <x>] [min <x>] [max <x>] [var <x>]...``.

    ``default`` is an ``int`` for spin, a ``bool`` for check, a ``str`` for combo and string
    (``<empty>`` on the wire is the empty string) and None for button or when not given.
    ``min``/``max`` belong to spin, ``vars`` (the allowed values) to combo.
    """

    name: str
    type: Literal["check", "spin", "combo", "button", "string"]
    default: str | int | bool | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()


@quick_init
@dataclass(frozen=True)
class BestMove:
    """``bestmove <move> [ponder <move>]``; ``move`` None is ``bestmove (none)`` (no legal move)."""

    move: str | None
    ponder: str | None = None


@dataclass(frozen=True)
class Info:
    """One ``info`` line; every field optional.  Times in ms; ``score_mate`` counts moves to
    mate, negative when the engine is being mated; ``score_bound`` is "lower" or "upper" for
    a score that is only a bound; ``wdl`` is the side to move's chances of a win, a draw and a
    loss in per mille (UCI's ``wdl``, which Stockfish sends with ``UCI_ShowWDL``).  ``string``
    (free text) is always the last field."""

    depth: int | None = None
    seldepth: int | None = None
    multipv: int | None = None
    score_cp: int | None = None
    score_mate: int | None = None
    score_bound: Literal["lower", "upper"] | None = None
    wdl: tuple[int, int, int] | None = None
    nodes: int | None = None
    nps: int | None = None
    time: int | None = None
    hashfull: int | None = None
    tbhits: int | None = None
    cpuload: int | None = None
    currmove: str | None = None
    currmovenumber: int | None = None
    pv: tuple[str, ...] = ()
    string: str | None = None

    @property
    def error(self) -> str | None:
        """The reason of an error report ``info string error <reason>``, else None."""
        text = self.string
        if text is not None and text.startswith("error ") and len(text) > 6:
            return text[6:]
        return None


def error_info(reason: str) -> Info:
    """The ``info string error <reason>`` value reporting bad input (reason made one line)."""
    return Info(string="error " + (" ".join(str(reason).split()) or "unknown error"))


@dataclass(frozen=True, slots=True)
class QueryResponse:
    """``response <value>``: ``true``/``false``, ``p1win``/``p2win``/``draw``/``none``, a FEN,
    a size such as ``8x8``, or (for ``query moves``) the moves separated by single spaces, or
    ``(none)`` when there is none."""

    value: str

    @property
    def words(self) -> tuple[str, ...]:
        """The value's tokens: the moves of an answer to ``query moves`` (none for ``(none)``)."""
        return () if self.value == "(none)" else tuple(self.value.split())


@dataclass(frozen=True, slots=True)
class PerftMove:
    """``<move> <count>``: one root move's count in the answer to ``go perft``."""

    move: str
    count: int


@dataclass(frozen=True, slots=True)
class PerftTotal:
    """``Nodes searched: <count>``: the last line of the answer to ``go perft``."""

    nodes: int


Response = Id | UciOk | UgiOk | ReadyOk | OptionSpec | BestMove | Info | QueryResponse | PerftMove | PerftTotal

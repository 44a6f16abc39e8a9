"""The protocol codec: every command and response of protocol/SPEC.md as a typed value.

One codec serves both sides.  An engine reads commands with :func:`parse_command` and writes
responses with :func:`format_response`; a host (GUI, arbiter) writes commands with
:func:`format_command` and reads responses with :func:`parse_response`.

Guarantees, for every ``str`` input:

* parsing either returns a value or raises :class:`ProtocolError` (a ``ValueError`` whose
  message is one line naming what is wrong), never anything else;
* ``format(parse(line))`` is the canonical spelling of ``line`` (single spaces, fields in a
  fixed order, UGI clock words written as their UCI equivalents), and for every value ``v``
  the formatter accepts, ``parse(format(v)) == v``.  The formatters raise ProtocolError for a
  value that cannot be written so that it reads back as itself (a field with whitespace, a
  name containing a keyword, a number out of range).

Lines are split on whitespace, so ``\\r\\n`` endings and repeated blanks are accepted.  The codec
knows nothing of any game: FENs and moves are opaque tokens that the engine checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Literal

__all__ = [
    "BestMove",
    "Command",
    "Go",
    "GoPerft",
    "Id",
    "Info",
    "IsReady",
    "Limit",
    "OptionSpec",
    "OPTION_TYPES",
    "PerftMove",
    "PerftTotal",
    "PonderHit",
    "Position",
    "ProtocolError",
    "Query",
    "QUERY_ITEMS",
    "QueryResponse",
    "Quit",
    "ReadyOk",
    "Response",
    "SetOption",
    "Stop",
    "Uci",
    "UciNewGame",
    "UciOk",
    "Ugi",
    "UgiNewGame",
    "UgiOk",
    "error_info",
    "extend_position",
    "format_command",
    "format_go",
    "format_response",
    "parse_command",
    "parse_int",
    "parse_response",
]

# Numbers on the wire are at most 18 digits, so they always fit a signed 64-bit integer.
_MAX_DIGITS = 18
_SHOW_LIMIT = 40


class ProtocolError(ValueError):
    """A line (or value) that does not follow the protocol; ``str()`` is one line saying why."""


def _show(text: str) -> str:
    """``text`` quoted for an error message: one line, at most about 40 characters."""
    if len(text) > _SHOW_LIMIT:
        text = text[:_SHOW_LIMIT] + "..."
    return repr(text)


def parse_int(text: str, what: str, low: int | None = None, high: int | None = None) -> int:
    """The decimal integer ``text`` (ASCII digits, optional leading '-') in ``low..high``;
    ProtocolError naming ``what`` otherwise.  Engines use it for option values too."""
    digits = text[1:] if text[:1] == "-" else text
    if not (digits.isdigit() and digits.isascii()):
        raise ProtocolError(f"{what}: expected an integer, found {_show(text)}")
    if len(digits) > _MAX_DIGITS:
        raise ProtocolError(f"{what}: {_show(text)} is out of range (at most {_MAX_DIGITS} digits)")
    value = int(text)
    if low is not None and value < low:
        raise ProtocolError(f"{what}: must be at least {low}, found {value}")
    if high is not None and value > high:
        raise ProtocolError(f"{what}: must be at most {high}, found {value}")
    return value


def _check_int(value: object, what: str, low: int | None = None) -> int:
    """``value`` checked to be an int the wire can carry (the formatters' guard)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"{what}: expected an integer, found {value!r}")
    if abs(value) >= 10**_MAX_DIGITS:
        raise ProtocolError(f"{what}: {value} is out of range (at most {_MAX_DIGITS} digits)")
    if low is not None and value < low:
        raise ProtocolError(f"{what}: must be at least {low}, found {value}")
    return value


def _check_token(value: object, what: str) -> str:
    """``value`` checked to be one non-empty token (no whitespace)."""
    if not isinstance(value, str) or not value or value.split() != [value]:
        raise ProtocolError(f"{what}: expected one token without spaces, found {value!r}")
    return value


def _check_words(value: object, what: str, keywords: frozenset[str] = frozenset(), allow_empty: bool = False) -> str:
    """``value`` checked to be words separated by single spaces, none of them a keyword."""
    if not isinstance(value, str):
        raise ProtocolError(f"{what}: expected text, found {value!r}")
    words = value.split()
    if " ".join(words) != value or (not words and not allow_empty):
        raise ProtocolError(f"{what}: expected words separated by single spaces, found {value!r}")
    for word in words:
        if word in keywords:
            raise ProtocolError(f"{what}: {value!r} contains the keyword {word!r}")
    return value


def _no_arguments(tokens: list[str]) -> None:
    if len(tokens) > 1:
        raise ProtocolError(f"{tokens[0]!r} takes no arguments, found {_show(' '.join(tokens[1:]))}")


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


@dataclass(frozen=True, slots=True)
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

# The go parameters that take a number: wire word -> (Limit field, smallest value).
_GO_NUMBERS: dict[str, tuple[str, int | None]] = {
    "wtime": ("wtime", None),
    "btime": ("btime", None),
    "winc": ("winc", 0),
    "binc": ("binc", 0),
    "movestogo": ("movestogo", 1),
    "movetime": ("movetime", 0),
    "depth": ("depth", 1),
    "nodes": ("nodes", 1),
    "mate": ("mate", 1),
    "p1time": ("wtime", None),
    "p2time": ("btime", None),
    "p1inc": ("winc", 0),
    "p2inc": ("binc", 0),
}
_UCI_CLOCK_WORDS = ("wtime", "btime", "winc", "binc")
_UGI_CLOCK_WORDS = ("p1time", "p2time", "p1inc", "p2inc")
_LIMIT_FIELDS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
_GO_FLAGS = ("infinite", "ponder")
_GO_KEYWORDS = frozenset(_GO_NUMBERS) | {*_GO_FLAGS, "searchmoves", "perft"}
"""The words that end a ``searchmoves`` list (no move text of these games is one of them)."""
_LIMIT_LOW = {name: low for name, low in _GO_NUMBERS.values()}
_limit_numbers = attrgetter(*_LIMIT_FIELDS)
_NO_NUMBERS = (None,) * len(_LIMIT_FIELDS)
_MAX_VALUE = 10**_MAX_DIGITS
# Per field of a go line: its name, its word on the wire (UCI's, UGI's) and the least value a
# check passes without a closer look (a number of at most _MAX_DIGITS digits, not below its low).
_LEAST = {name: 1 - _MAX_VALUE if low is None else low for name, low in _LIMIT_LOW.items()}
_GO_WIRE = {
    ugi: tuple((name, wire.get(name, name), _LEAST[name]) for name in _LIMIT_FIELDS)
    for ugi, wire in ((False, {}), (True, dict(zip(_UCI_CLOCK_WORDS, _UGI_CLOCK_WORDS))))
}


def _parse_go(tokens: list[str]) -> Go | GoPerft:
    if len(tokens) >= 2 and tokens[1] == "perft":
        if len(tokens) != 3:
            raise ProtocolError("'go perft' takes exactly one argument, the depth: go perft <depth>")
        return GoPerft(parse_int(tokens[2], "go perft", 0))
    values: dict[str, int | bool | tuple[str, ...]] = {}
    uci_clock = ugi_clock = False
    i, count = 1, len(tokens)
    while i < count:
        word = tokens[i]
        if word in _GO_FLAGS:
            if word in values:
                raise ProtocolError(f"go: {word!r} is given twice")
            values[word] = True
            i += 1
            continue
        if word == "searchmoves":
            if word in values:
                raise ProtocolError("go: 'searchmoves' is given twice")
            i += 1
            start = i
            while i < count and tokens[i] not in _GO_KEYWORDS:
                i += 1
            if i == start:
                raise ProtocolError("go: 'searchmoves' needs at least one move")
            values[word] = tuple(tokens[start:i])
            continue
        spec = _GO_NUMBERS.get(word)
        if spec is None:
            raise ProtocolError(f"go: unknown parameter {_show(word)}")
        name, low = spec
        if name in values:
            raise ProtocolError(f"go: {name!r} is given twice")
        if i + 1 >= count:
            raise ProtocolError(f"go: {word!r} needs a value")
        values[name] = parse_int(tokens[i + 1], f"go {word}", low)
        if word in _UGI_CLOCK_WORDS:
            ugi_clock = True
        elif word in _UCI_CLOCK_WORDS:
            uci_clock = True
        i += 2
    if uci_clock and ugi_clock:
        raise ProtocolError(
            "go: do not mix UCI clock words (wtime btime winc binc) with UGI ones (p1time p2time p1inc p2inc)"
        )
    return Go(Limit(**values))  # type: ignore[arg-type]


def _format_go(limit: Limit, ugi: bool) -> str:
    if not isinstance(limit, Limit):
        raise ProtocolError(f"go: expected a Limit, found {limit!r}")
    parts = ["go"]
    for (name, wire, least), value in zip(_GO_WIRE[ugi], _limit_numbers(limit)):
        if value is not None:
            if type(value) is not int or not least <= value < _MAX_VALUE:
                _check_int(value, f"go {name}", _LIMIT_LOW[name])  # says what is wrong
            parts.append(f"{wire} {value}")
    for flag in _GO_FLAGS:
        value = getattr(limit, flag)
        if value is True:
            parts.append(flag)
        elif value is not False:
            raise ProtocolError(f"go: {flag} must be True or False, found {value!r}")
    if not isinstance(limit.searchmoves, tuple):
        raise ProtocolError(f"go: searchmoves must be a tuple, found {limit.searchmoves!r}")
    if limit.searchmoves:
        for move in limit.searchmoves:
            if _check_token(move, "go searchmoves move") in _GO_KEYWORDS:
                raise ProtocolError(f"go: searchmoves move {move!r} is a go keyword")
        parts.append("searchmoves " + " ".join(limit.searchmoves))
    return " ".join(parts)


def _parse_setoption(tokens: list[str]) -> SetOption:
    if len(tokens) < 3 or tokens[1] != "name":
        raise ProtocolError("setoption: expected 'setoption name <name> [value <value>]'")
    try:
        split = tokens.index("value", 2)
    except ValueError:
        return SetOption(" ".join(tokens[2:]))
    if split == 2:
        raise ProtocolError("setoption: the option name is missing before 'value'")
    return SetOption(" ".join(tokens[2:split]), " ".join(tokens[split + 1 :]))


def _format_setoption(command: SetOption) -> str:
    name = _check_words(command.name, "setoption name", frozenset({"value"}))
    if command.value is None:
        return f"setoption name {name}"
    value = _check_words(command.value, "setoption value", allow_empty=True)
    return f"setoption name {name} value {value}".rstrip()


def _parse_position(tokens: list[str]) -> Position:
    if len(tokens) < 2:
        raise ProtocolError("position: expected 'position startpos|fen <FEN> [moves <move> ...]'")
    kind = tokens[1]
    try:
        split = tokens.index("moves", 2)
    except ValueError:
        split = len(tokens)
    moves = tuple(tokens[split + 1 :])
    if kind == "startpos":
        if split != 2:
            raise ProtocolError(f"position: expected 'moves' after 'startpos', found {_show(tokens[2])}")
        return Position(None, moves)
    if kind == "fen":
        if split == 2:
            raise ProtocolError("position: the FEN is missing after 'fen'")
        return Position(" ".join(tokens[2:split]), moves)
    raise ProtocolError(f"position: expected 'startpos' or 'fen', found {_show(kind)}")


def _format_position(command: Position) -> str:
    if command.fen is None:
        head = "position startpos"
    else:
        head = "position fen " + _check_words(command.fen, "position fen", frozenset({"moves"}))
    if not isinstance(command.moves, tuple):
        raise ProtocolError(f"position: moves must be a tuple, found {command.moves!r}")
    if not command.moves:
        return head
    for move in command.moves:
        _check_token(move, "position move")
    return head + " moves " + " ".join(command.moves)


def extend_position(line: str, previous: int, added: Sequence[str]) -> str:
    """The ``position`` line ``line`` (one :func:`format_command` wrote, with ``previous``
    moves) followed by the moves ``added``: only the added moves are checked, so a game's
    lines cost the host the same at every ply instead of a check of the whole game each time."""
    for move in added:
        _check_token(move, "position move")
    if not added:
        return line
    return line + (" " if previous else " moves ") + " ".join(added)


def _parse_query(tokens: list[str]) -> Query:
    if len(tokens) != 2 or tokens[1] not in QUERY_ITEMS:
        raise ProtocolError(f"query: expected 'query {'|'.join(QUERY_ITEMS)}'")
    return Query(tokens[1])  # type: ignore[arg-type]


def _simple(kind: type) -> Callable[[list[str]], object]:
    instance = kind()

    def parse(tokens: list[str]) -> object:
        _no_arguments(tokens)
        return instance

    return parse


_COMMAND_PARSERS: dict[str, Callable[[list[str]], object]] = {
    "uci": _simple(Uci),
    "ugi": _simple(Ugi),
    "isready": _simple(IsReady),
    "setoption": _parse_setoption,
    "ucinewgame": _simple(UciNewGame),
    "uginewgame": _simple(UgiNewGame),
    "position": _parse_position,
    "go": _parse_go,
    "stop": _simple(Stop),
    "ponderhit": _simple(PonderHit),
    "quit": _simple(Quit),
    "query": _parse_query,
}
_COMMAND_WORDS: dict[type, str] = {
    Uci: "uci",
    Ugi: "ugi",
    IsReady: "isready",
    UciNewGame: "ucinewgame",
    UgiNewGame: "uginewgame",
    Stop: "stop",
    PonderHit: "ponderhit",
    Quit: "quit",
}


def parse_command(line: str) -> Command:
    """The command on ``line`` (one line, with or without its line ending)."""
    if not isinstance(line, str):
        raise ProtocolError(f"a command must be text, found {type(line).__name__}")
    tokens = line.split()
    if not tokens:
        raise ProtocolError("empty command")
    parser = _COMMAND_PARSERS.get(tokens[0])
    if parser is None:
        raise ProtocolError(f"unknown command {_show(tokens[0])}")
    return parser(tokens)  # type: ignore[return-value]


def format_go(limit: Limit) -> str:
    """The ``go`` line for ``limit``: ``format_command(Go(limit))`` without the command object
    (a host writes one at every move)."""
    return _format_go(limit, False)


def format_command(command: Command, *, ugi: bool = False) -> str:
    """The canonical line (without line ending) for ``command``.

    ``ugi=True`` writes a ``go``'s clocks with UGI's words (p1time p2time p1inc p2inc), for
    hosts that drive engines which speak only UGI.
    """
    kind = type(command)
    word = _COMMAND_WORDS.get(kind)
    if word is not None:
        return word
    if kind is Go:
        return _format_go(command.limit, ugi)  # type: ignore[union-attr]
    if kind is Position:
        return _format_position(command)  # type: ignore[arg-type]
    if kind is SetOption:
        return _format_setoption(command)  # type: ignore[arg-type]
    if kind is GoPerft:
        return f"go perft {_check_int(command.depth, 'go perft', 0)}"  # type: ignore[union-attr]
    if kind is Query:
        if command.item not in QUERY_ITEMS:  # type: ignore[union-attr]
            raise ProtocolError(f"query: item must be one of {', '.join(QUERY_ITEMS)}, found {command.item!r}")  # type: ignore[union-attr]
        return f"query {command.item}"  # type: ignore[union-attr]
    raise ProtocolError(f"not a command: {command!r}")


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


@dataclass(frozen=True, slots=True)
class BestMove:
    """``bestmove <move> [ponder <move>]``; ``move`` None is ``bestmove (none)`` (no legal move)."""

    move: str | None
    ponder: str | None = None


@dataclass(frozen=True, slots=True)
class Info:
    """One ``info`` line; every field optional.  Times in ms; ``score_mate`` counts moves to
    mate, negative when the engine is being mated; ``score_bound`` is "lower" or "upper" for
    a score that is only a bound.  ``string`` (free text) is always the last field."""

    depth: int | None = None
    seldepth: int | None = None
    multipv: int | None = None
    score_cp: int | None = None
    score_mate: int | None = None
    score_bound: Literal["lower", "upper"] | None = None
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

# Info fields: wire word -> (Info field, smallest value).  Keywords end a pv and the words of
# unknown fields, which a reader skips.
_INFO_NUMBERS: dict[str, int] = {
    "depth": 0,
    "seldepth": 0,
    "multipv": 1,
    "nodes": 0,
    "nps": 0,
    "time": 0,
    "hashfull": 0,
    "tbhits": 0,
    "cpuload": 0,
    "currmovenumber": 1,
}
_INFO_KEYWORDS = frozenset(_INFO_NUMBERS) | {"score", "pv", "currmove", "string", "refutation", "currline"}
_SCORE_BOUNDS = {"lowerbound": "lower", "upperbound": "upper"}
_INFO_ORDER_HEAD = ("depth", "seldepth", "multipv")
_INFO_ORDER_TAIL = ("nodes", "nps", "time", "hashfull", "tbhits", "cpuload")


def _parse_info(tokens: list[str]) -> Info:
    values: dict[str, object] = {}
    i, count = 1, len(tokens)
    while i < count:
        word = tokens[i]
        if word in _INFO_NUMBERS:
            if i + 1 >= count:
                raise ProtocolError(f"info: {word!r} needs a value")
            values[word] = parse_int(tokens[i + 1], f"info {word}", _INFO_NUMBERS[word])
            i += 2
        elif word == "score":
            i = _parse_score(tokens, i + 1, values)
        elif word == "pv":
            i += 1
            start = i
            while i < count and tokens[i] not in _INFO_KEYWORDS:
                i += 1
            values["pv"] = tuple(tokens[start:i])
        elif word == "currmove":
            if i + 1 >= count:
                raise ProtocolError("info: 'currmove' needs a move")
            values["currmove"] = tokens[i + 1]
            i += 2
        elif word == "string":
            values["string"] = " ".join(tokens[i + 1 :])
            break
        else:  # a field this protocol does not define (refutation, currline, wdl...): skip it
            i += 1
            while i < count and tokens[i] not in _INFO_KEYWORDS:
                i += 1
    return Info(**values)  # type: ignore[arg-type]


def _parse_score(tokens: list[str], i: int, values: dict[str, object]) -> int:
    if i + 1 >= len(tokens) or tokens[i] not in ("cp", "mate"):
        raise ProtocolError("info: expected 'score cp <centipawns>' or 'score mate <moves>'")
    values.pop("score_cp", None)
    values.pop("score_mate", None)
    values.pop("score_bound", None)
    values["score_" + tokens[i]] = parse_int(tokens[i + 1], f"info score {tokens[i]}")
    i += 2
    if i < len(tokens) and tokens[i] in _SCORE_BOUNDS:
        values["score_bound"] = _SCORE_BOUNDS[tokens[i]]
        i += 1
    return i


def _format_info(info: Info) -> str:
    parts = ["info"]
    for name in _INFO_ORDER_HEAD:
        value = getattr(info, name)
        if value is not None:
            parts.append(f"{name} {_check_int(value, 'info ' + name, _INFO_NUMBERS[name])}")
    if info.score_cp is not None or info.score_mate is not None:
        if info.score_cp is not None and info.score_mate is not None:
            raise ProtocolError("info: a score is either cp or mate, not both")
        if info.score_cp is not None:
            parts.append(f"score cp {_check_int(info.score_cp, 'info score cp')}")
        else:
            parts.append(f"score mate {_check_int(info.score_mate, 'info score mate')}")
        if info.score_bound is not None:
            if info.score_bound not in ("lower", "upper"):
                raise ProtocolError(f"info: score_bound must be 'lower' or 'upper', found {info.score_bound!r}")
            parts.append(info.score_bound + "bound")
    elif info.score_bound is not None:
        raise ProtocolError("info: score_bound without a score")
    for name in _INFO_ORDER_TAIL:
        value = getattr(info, name)
        if value is not None:
            parts.append(f"{name} {_check_int(value, 'info ' + name, _INFO_NUMBERS[name])}")
    if info.currmove is not None:
        parts.append("currmove " + _check_token(info.currmove, "info currmove"))
    if info.currmovenumber is not None:
        parts.append(f"currmovenumber {_check_int(info.currmovenumber, 'info currmovenumber', 1)}")
    if info.pv:
        if not isinstance(info.pv, tuple):
            raise ProtocolError(f"info: pv must be a tuple, found {info.pv!r}")
        for move in info.pv:
            if _check_token(move, "info pv move") in _INFO_KEYWORDS:
                raise ProtocolError(f"info: pv move {move!r} is an info keyword")
        parts.append("pv " + " ".join(info.pv))
    if info.string is not None:
        parts.append("string " + _check_words(info.string, "info string", allow_empty=True))
    return " ".join(parts).rstrip()


_OPTION_KEYWORDS = frozenset({"name", "type", "default", "min", "max", "var"})
_EMPTY = "<empty>"


def _parse_option(tokens: list[str]) -> OptionSpec:
    if len(tokens) < 2 or tokens[1] != "name":
        raise ProtocolError("option: expected 'option name <name> type <type> ...'")
    try:
        split = tokens.index("type", 2)
    except ValueError:
        raise ProtocolError("option: 'type' is missing") from None
    if split == 2:
        raise ProtocolError("option: the option name is missing before 'type'")
    name = " ".join(tokens[2:split])
    if split + 1 >= len(tokens) or tokens[split + 1] not in OPTION_TYPES:
        found = tokens[split + 1] if split + 1 < len(tokens) else ""
        raise ProtocolError(f"option {name!r}: type must be one of {', '.join(OPTION_TYPES)}, found {_show(found)}")
    kind = tokens[split + 1]
    fields: dict[str, str] = {}
    options: list[str] = []
    i = split + 2
    while i < len(tokens):
        word = tokens[i]
        if word not in ("default", "min", "max", "var"):
            raise ProtocolError(f"option {name!r}: unexpected {_show(word)}")
        i += 1
        start = i
        while i < len(tokens) and tokens[i] not in _OPTION_KEYWORDS:
            i += 1
        value = " ".join(tokens[start:i])
        if word == "var":
            options.append(value)
        elif word in fields:
            raise ProtocolError(f"option {name!r}: {word!r} is given twice")
        else:
            fields[word] = value
    return _option_value(name, kind, fields, tuple(options))


def _option_value(name: str, kind: str, fields: dict[str, str], options: tuple[str, ...]) -> OptionSpec:
    where = f"option {name!r}"
    if kind != "spin" and ("min" in fields or "max" in fields):
        raise ProtocolError(f"{where}: only a spin option has min and max")
    if kind != "combo" and options:
        raise ProtocolError(f"{where}: only a combo option has var values")
    raw = fields.get("default")
    default: str | int | bool | None = None
    low = high = None
    if kind == "spin":
        low = parse_int(fields["min"], f"{where} min") if "min" in fields else None
        high = parse_int(fields["max"], f"{where} max") if "max" in fields else None
        default = parse_int(raw, f"{where} default") if raw is not None else None
    elif kind == "check" and raw is not None:
        if raw not in ("true", "false"):
            raise ProtocolError(f"{where}: a check default must be 'true' or 'false', found {_show(raw)}")
        default = raw == "true"
    elif kind in ("combo", "string") and raw is not None:
        default = "" if raw == _EMPTY else raw
    elif kind == "button" and raw is not None:
        raise ProtocolError(f"{where}: a button has no default")
    spec = OptionSpec(name, kind, default, low, high, options)  # type: ignore[arg-type]
    _check_option_consistent(spec, where)
    return spec


def _check_option_consistent(spec: OptionSpec, where: str) -> None:
    if spec.type == "spin":
        if spec.min is not None and spec.max is not None and spec.min > spec.max:
            raise ProtocolError(f"{where}: min {spec.min} is above max {spec.max}")
        if isinstance(spec.default, int) and (
            (spec.min is not None and spec.default < spec.min) or (spec.max is not None and spec.default > spec.max)
        ):
            raise ProtocolError(f"{where}: default {spec.default} is outside min..max")
    if spec.type == "combo" and spec.default is not None and spec.vars and spec.default not in spec.vars:
        raise ProtocolError(f"{where}: default {spec.default!r} is not one of the var values")


def _format_option(spec: OptionSpec) -> str:
    name = _check_words(spec.name, "option name", frozenset({"type"}))
    where = f"option {name!r}"
    if spec.type not in OPTION_TYPES:
        raise ProtocolError(f"{where}: type must be one of {', '.join(OPTION_TYPES)}, found {spec.type!r}")
    parts = [f"option name {name} type {spec.type}"]
    default = spec.default
    if default is not None:
        if spec.type == "spin":
            parts.append(f"default {_check_int(default, where + ' default')}")
        elif spec.type == "check":
            if not isinstance(default, bool):
                raise ProtocolError(f"{where}: a check default must be True or False, found {default!r}")
            parts.append("default " + ("true" if default else "false"))
        elif spec.type in ("combo", "string"):
            if default == _EMPTY:
                raise ProtocolError(f"{where}: the default {_EMPTY!r} cannot be written")
            text = _check_words(default, where + " default", _OPTION_KEYWORDS, allow_empty=True)
            parts.append("default " + (text or _EMPTY))
        else:
            raise ProtocolError(f"{where}: a button has no default")
    for bound in ("min", "max"):
        value = getattr(spec, bound)
        if value is not None:
            if spec.type != "spin":
                raise ProtocolError(f"{where}: only a spin option has min and max")
            parts.append(f"{bound} {_check_int(value, f'{where} {bound}')}")
    if not isinstance(spec.vars, tuple):
        raise ProtocolError(f"{where}: vars must be a tuple, found {spec.vars!r}")
    if spec.vars and spec.type != "combo":
        raise ProtocolError(f"{where}: only a combo option has var values")
    for value in spec.vars:
        text = _check_words(value, where + " var", _OPTION_KEYWORDS, allow_empty=True)
        parts.append(f"var {text}".rstrip())
    _check_option_consistent(spec, where)
    return " ".join(parts)


def _parse_id(tokens: list[str]) -> Id:
    if len(tokens) < 2:
        raise ProtocolError("id: expected 'id name <name>' or 'id author <author>'")
    return Id(tokens[1], " ".join(tokens[2:]))


def _parse_bestmove(tokens: list[str]) -> BestMove:
    count = len(tokens)
    if count == 2 or (count == 4 and tokens[2] == "ponder"):
        move = None if tokens[1] == "(none)" else tokens[1]
        return BestMove(move, tokens[3] if count == 4 else None)
    raise ProtocolError("bestmove: expected 'bestmove <move> [ponder <move>]' or 'bestmove (none)'")


def _format_bestmove(response: BestMove) -> str:
    if response.move is None:
        if response.ponder is not None:
            raise ProtocolError("bestmove (none) has no ponder move")
        return "bestmove (none)"
    move = _check_token(response.move, "bestmove")
    if response.ponder is None:
        return f"bestmove {move}"
    return f"bestmove {move} ponder {_check_token(response.ponder, 'bestmove ponder')}"


def _parse_response_value(tokens: list[str]) -> QueryResponse:
    if len(tokens) < 2:
        raise ProtocolError("response: expected 'response <value>'")
    return QueryResponse(" ".join(tokens[1:]))


def _parse_perft_total(tokens: list[str]) -> PerftTotal:
    if len(tokens) != 3 or tokens[1] != "searched:":
        raise ProtocolError("expected 'Nodes searched: <count>'")
    return PerftTotal(parse_int(tokens[2], "Nodes searched", 0))


_RESPONSE_PARSERS: dict[str, Callable[[list[str]], object]] = {
    "info": _parse_info,
    "bestmove": _parse_bestmove,
    "readyok": _simple(ReadyOk),
    "id": _parse_id,
    "option": _parse_option,
    "uciok": _simple(UciOk),
    "ugiok": _simple(UgiOk),
    "response": _parse_response_value,
    "Nodes": _parse_perft_total,
}
_RESPONSE_WORDS: dict[type, str] = {UciOk: "uciok", UgiOk: "ugiok", ReadyOk: "readyok"}


def parse_response(line: str) -> Response:
    """The response on ``line`` (one line, with or without its line ending)."""
    if not isinstance(line, str):
        raise ProtocolError(f"a response must be text, found {type(line).__name__}")
    tokens = line.split()
    if not tokens:
        raise ProtocolError("empty response")
    parser = _RESPONSE_PARSERS.get(tokens[0])
    if parser is not None:
        return parser(tokens)  # type: ignore[return-value]
    if len(tokens) == 2 and tokens[1].isdigit():
        return PerftMove(tokens[0], parse_int(tokens[1], f"perft count of {_show(tokens[0])}", 0))
    raise ProtocolError(f"unknown response {_show(tokens[0])}")


def format_response(response: Response) -> str:
    """The canonical line (without line ending) for ``response``."""
    kind = type(response)
    if kind is Info:
        return _format_info(response)  # type: ignore[arg-type]
    if kind is BestMove:
        return _format_bestmove(response)  # type: ignore[arg-type]
    word = _RESPONSE_WORDS.get(kind)
    if word is not None:
        return word
    if kind is OptionSpec:
        return _format_option(response)  # type: ignore[arg-type]
    if kind is Id:
        key = _check_token(response.field, "id field")  # type: ignore[union-attr]
        return f"id {key} {_check_words(response.value, 'id value', allow_empty=True)}".rstrip()  # type: ignore[union-attr]
    if kind is QueryResponse:
        return f"response {_check_words(response.value, 'response')}"  # type: ignore[union-attr]
    if kind is PerftMove:
        move = _check_token(response.move, "perft move")  # type: ignore[union-attr]
        if move in _RESPONSE_PARSERS:
            raise ProtocolError(f"perft move {move!r} is a response keyword")
        return f"{move} {_check_int(response.count, 'perft count', 0)}"  # type: ignore[union-attr]
    if kind is PerftTotal:
        return f"Nodes searched: {_check_int(response.nodes, 'Nodes searched', 0)}"  # type: ignore[union-attr]
    raise ProtocolError(f"not a response: {response!r}")

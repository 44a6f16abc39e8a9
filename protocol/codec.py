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

The messages are :mod:`protocol.messages`' value objects, read by :mod:`protocol.reading`
(compiled in the compiled build: every line of every search goes through it); this module
writes them, but for the lines a host writes at every move (:mod:`protocol.writing`, compiled
too), and is where all four are imported from.

Lines are split on whitespace, so ``\\r\\n`` endings and repeated blanks are accepted.  The codec
knows nothing of any game: FENs and moves are opaque tokens that the engine checks.
"""

from __future__ import annotations

from .messages import (
    OPTION_TYPES,
    QUERY_ITEMS,
    BestMove,
    Command,
    Go,
    GoPerft,
    Id,
    Info,
    IsReady,
    Limit,
    OptionSpec,
    PerftMove,
    PerftTotal,
    PonderHit,
    Position,
    ProtocolError,
    Query,
    QueryResponse,
    Quit,
    ReadyOk,
    Response,
    SetOption,
    Stop,
    Uci,
    UciNewGame,
    UciOk,
    Ugi,
    UgiNewGame,
    UgiOk,
    error_info,
)
from .reading import (
    EMPTY,
    INFO_KEYWORDS,
    INFO_NUMBERS,
    OPTION_KEYWORDS,
    RESPONSE_PARSERS,
    check_option_consistent,
    parse_int,
    read_command,
    read_response,
)
from .writing import check_int, check_token, extend_position, format_go, write_go

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


def _check_words(
    value: object,
    what: str,
    keywords: frozenset[str] = frozenset(),
    allow_empty: bool = False,
) -> str:
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


def _format_setoption(command: SetOption) -> str:
    name = _check_words(command.name, "setoption name", frozenset({"value"}))
    if command.value is None:
        return f"setoption name {name}"
    value = _check_words(command.value, "setoption value", allow_empty=True)
    return f"setoption name {name} value {value}".rstrip()


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
        check_token(move, "position move")
    return head + " moves " + " ".join(command.moves)


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
    return read_command(line)


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
        return write_go(command.limit, ugi)  # type: ignore[union-attr]
    if kind is Position:
        return _format_position(command)  # type: ignore[arg-type]
    if kind is SetOption:
        return _format_setoption(command)  # type: ignore[arg-type]
    if kind is GoPerft:
        return f"go perft {check_int(command.depth, 'go perft', 0)}"  # type: ignore[union-attr]
    if kind is Query:
        if command.item not in QUERY_ITEMS:  # type: ignore[union-attr]
            raise ProtocolError(f"query: item must be one of {', '.join(QUERY_ITEMS)}, found {command.item!r}")  # type: ignore[union-attr]
        return f"query {command.item}"  # type: ignore[union-attr]
    raise ProtocolError(f"not a command: {command!r}")


_INFO_ORDER_HEAD = ("depth", "seldepth", "multipv")
_INFO_ORDER_TAIL = ("nodes", "nps", "time", "hashfull", "tbhits", "cpuload")


def _format_info(info: Info) -> str:
    parts = ["info"]
    for name in _INFO_ORDER_HEAD:
        value = getattr(info, name)
        if value is not None:
            parts.append(f"{name} {check_int(value, 'info ' + name, INFO_NUMBERS[name])}")
    if info.score_cp is not None or info.score_mate is not None:
        if info.score_cp is not None and info.score_mate is not None:
            raise ProtocolError("info: a score is either cp or mate, not both")
        if info.score_cp is not None:
            parts.append(f"score cp {check_int(info.score_cp, 'info score cp')}")
        else:
            parts.append(f"score mate {check_int(info.score_mate, 'info score mate')}")
        if info.score_bound is not None:
            if info.score_bound not in ("lower", "upper"):
                raise ProtocolError(f"info: score_bound must be 'lower' or 'upper', found {info.score_bound!r}")
            parts.append(info.score_bound + "bound")
    elif info.score_bound is not None:
        raise ProtocolError("info: score_bound without a score")
    if info.wdl is not None:
        if not isinstance(info.wdl, tuple) or len(info.wdl) != 3:
            raise ProtocolError(f"info: wdl must be a tuple of three counts, found {info.wdl!r}")
        parts.append("wdl " + " ".join(str(check_int(count, "info wdl", 0)) for count in info.wdl))
    for name in _INFO_ORDER_TAIL:
        value = getattr(info, name)
        if value is not None:
            parts.append(f"{name} {check_int(value, 'info ' + name, INFO_NUMBERS[name])}")
    if info.currmove is not None:
        parts.append("currmove " + check_token(info.currmove, "info currmove"))
    if info.currmovenumber is not None:
        parts.append(f"currmovenumber {check_int(info.currmovenumber, 'info currmovenumber', 1)}")
    if info.pv:
        if not isinstance(info.pv, tuple):
            raise ProtocolError(f"info: pv must be a tuple, found {info.pv!r}")
        for move in info.pv:
            if check_token(move, "info pv move") in INFO_KEYWORDS:
                raise ProtocolError(f"info: pv move {move!r} is an info keyword")
        parts.append("pv " + " ".join(info.pv))
    if info.string is not None:
        parts.append("string " + _check_words(info.string, "info string", allow_empty=True))
    return " ".join(parts).rstrip()


def _format_option(spec: OptionSpec) -> str:
    name = _check_words(spec.name, "option name", frozenset({"type"}))
    where = f"option {name!r}"
    if spec.type not in OPTION_TYPES:
        raise ProtocolError(f"{where}: type must be one of {', '.join(OPTION_TYPES)}, found {spec.type!r}")
    parts = [f"option name {name} type {spec.type}"]
    default = spec.default
    if default is not None:
        if spec.type == "spin":
            parts.append(f"default {check_int(default, where + ' default')}")
        elif spec.type == "check":
            if not isinstance(default, bool):
                raise ProtocolError(f"{where}: a check default must be True or False, found {default!r}")
            parts.append("default " + ("true" if default else "false"))
        elif spec.type in ("combo", "string"):
            if default == EMPTY:
                raise ProtocolError(f"{where}: the default {EMPTY!r} cannot be written")
            text = _check_words(default, where + " default", OPTION_KEYWORDS, allow_empty=True)
            parts.append("default " + (text or EMPTY))
        else:
            raise ProtocolError(f"{where}: a button has no default")
    for bound in ("min", "max"):
        value = getattr(spec, bound)
        if value is not None:
            if spec.type != "spin":
                raise ProtocolError(f"{where}: only a spin option has min and max")
            parts.append(f"{bound} {check_int(value, f'{where} {bound}')}")
    if not isinstance(spec.vars, tuple):
        raise ProtocolError(f"{where}: vars must be a tuple, found {spec.vars!r}")
    if spec.vars and spec.type != "combo":
        raise ProtocolError(f"{where}: only a combo option has var values")
    for value in spec.vars:
        text = _check_words(value, where + " var", OPTION_KEYWORDS, allow_empty=True)
        parts.append(f"var {text}".rstrip())
    check_option_consistent(spec, where)
    return " ".join(parts)


def _format_bestmove(response: BestMove) -> str:
    if response.move is None:
        if response.ponder is not None:
            raise ProtocolError("bestmove (none) has no ponder move")
        return "bestmove (none)"
    move = check_token(response.move, "bestmove")
    if response.ponder is None:
        return f"bestmove {move}"
    return f"bestmove {move} ponder {check_token(response.ponder, 'bestmove ponder')}"


_RESPONSE_WORDS: dict[type, str] = {UciOk: "uciok", UgiOk: "ugiok", ReadyOk: "readyok"}


def parse_response(line: str) -> Response:
    """The response on ``line`` (one line, with or without its line ending)."""
    if not isinstance(line, str):
        raise ProtocolError(f"a response must be text, found {type(line).__name__}")
    return read_response(line)


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
        key = check_token(response.field, "id field")  # type: ignore[union-attr]
        return f"id {key} {_check_words(response.value, 'id value', allow_empty=True)}".rstrip()  # type: ignore[union-attr]
    if kind is QueryResponse:
        return f"response {_check_words(response.value, 'response')}"  # type: ignore[union-attr]
    if kind is PerftMove:
        move = check_token(response.move, "perft move")  # type: ignore[union-attr]
        if move in RESPONSE_PARSERS:
            raise ProtocolError(f"perft move {move!r} is a response keyword")
        return f"{move} {check_int(response.count, 'perft count', 0)}"  # type: ignore[union-attr]
    if kind is PerftTotal:
        return f"Nodes searched: {check_int(response.nodes, 'Nodes searched', 0)}"  # type: ignore[union-attr]
    raise ProtocolError(f"not a response: {response!r}")

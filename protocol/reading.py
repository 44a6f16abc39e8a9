"""Reading the protocol's lines: :func:`read_command` and :func:`read_response` turn one line of
text into its message (:mod:`protocol.messages`) or raise :class:`~protocol.messages.ProtocolError`.

The hosts' and the engine's hot path (every ``info`` line of every search, every ``go``):
compiled with the rules in the compiled build.  :func:`protocol.codec.parse_command` and
:func:`~protocol.codec.parse_response` are these with a check that the line is text; a caller
that holds text (the engine client, the engine's loop) calls these.  The tables of the wire's
words are here, and :mod:`protocol.codec`'s writers share them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

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
)

# Numbers on the wire are at most 18 digits, so they always fit a signed 64-bit integer.
MAX_DIGITS: Final = 18
_SHOW_LIMIT: Final = 40


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
    if len(digits) > MAX_DIGITS:
        raise ProtocolError(f"{what}: {_show(text)} is out of range (at most {MAX_DIGITS} digits)")
    value = int(text)
    if low is not None and value < low:
        raise ProtocolError(f"{what}: must be at least {low}, found {value}")
    if high is not None and value > high:
        raise ProtocolError(f"{what}: must be at most {high}, found {value}")
    return value


def _read_number(text: str, where: str, word: str, low: int | None) -> int:
    """``parse_int(text, f"{where} {word}", low)`` for the numbers read most (every info line's,
    every go's): a plain count is taken at once, and the message text is only built for the
    rest (a sign, or something wrong), which parse_int reads or refuses."""
    if text.isdigit() and text.isascii() and len(text) <= MAX_DIGITS:
        value = int(text)
        if low is None or value >= low:
            return value
    return parse_int(text, f"{where} {word}", low)


def _no_arguments(tokens: list[str]) -> None:
    if len(tokens) > 1:
        raise ProtocolError(f"{tokens[0]!r} takes no arguments, found {_show(' '.join(tokens[1:]))}")


# The go parameters that take a number: wire word -> (Limit field, smallest value).
GO_NUMBERS: Final[dict[str, tuple[str, int | None]]] = {
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
UCI_CLOCK_WORDS: Final = ("wtime", "btime", "winc", "binc")
UGI_CLOCK_WORDS: Final = ("p1time", "p2time", "p1inc", "p2inc")
GO_FLAGS: Final = ("infinite", "ponder")
GO_KEYWORDS: Final = frozenset(GO_NUMBERS) | {*GO_FLAGS, "searchmoves", "perft"}
"""The words that end a ``searchmoves`` list (no move text of these games is one of them)."""


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
        if word in GO_FLAGS:
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
            while i < count and tokens[i] not in GO_KEYWORDS:
                i += 1
            if i == start:
                raise ProtocolError("go: 'searchmoves' needs at least one move")
            values[word] = tuple(tokens[start:i])
            continue
        spec = GO_NUMBERS.get(word)
        if spec is None:
            raise ProtocolError(f"go: unknown parameter {_show(word)}")
        name, low = spec
        if name in values:
            raise ProtocolError(f"go: {name!r} is given twice")
        if i + 1 >= count:
            raise ProtocolError(f"go: {word!r} needs a value")
        values[name] = _read_number(tokens[i + 1], "go", word, low)
        if word in UGI_CLOCK_WORDS:
            ugi_clock = True
        elif word in UCI_CLOCK_WORDS:
            uci_clock = True
        i += 2
    if uci_clock and ugi_clock:
        raise ProtocolError(
            "go: do not mix UCI clock words (wtime btime winc binc) with UGI ones (p1time p2time p1inc p2inc)"
        )
    return Go(Limit(**values))  # type: ignore[arg-type]


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


_COMMAND_PARSERS: Final[dict[str, Callable[[list[str]], object]]] = {
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


def read_command(line: str) -> Command:
    """The command on ``line`` (one line, with or without its line ending)."""
    tokens = line.split()
    if not tokens:
        raise ProtocolError("empty command")
    parser = _COMMAND_PARSERS.get(tokens[0])
    if parser is None:
        raise ProtocolError(f"unknown command {_show(tokens[0])}")
    return parser(tokens)  # type: ignore[return-value]


# Info fields: wire word -> (Info field, smallest value).  Keywords end a pv and the words of
# unknown fields, which a reader skips.
INFO_NUMBERS: Final[dict[str, int]] = {
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
INFO_KEYWORDS: Final = frozenset(INFO_NUMBERS) | {
    "score",
    "wdl",
    "lowerbound",
    "upperbound",
    "pv",
    "currmove",
    "string",
    "refutation",
    "currline",
}
_SCORE_BOUNDS: Final = {"lowerbound": "lower", "upperbound": "upper"}


# An Info is made for every info line of every search: its fields' defaults, then what the line
# gives, set as its attributes' dict at once (as unpickling makes one), not by its constructor,
# whose keywords cost 11,000 instructions a line more: 35% more a ply against an engine that
# writes 8 info lines a move (callgrind, benchmarks/ply_floor.py).  test_codec checks that what
# is read equals the Info made by hand.
_INFO_DEFAULTS: Final[dict[str, object]] = dict(vars(Info()))
_NEW: Final = object.__new__
_SET: Final = object.__setattr__


def _parse_info(tokens: list[str]) -> Info:
    values = _INFO_DEFAULTS.copy()
    i, count = 1, len(tokens)
    while i < count:
        word = tokens[i]
        if word in INFO_NUMBERS:
            if i + 1 >= count:
                raise ProtocolError(f"info: {word!r} needs a value")
            values[word] = _read_number(tokens[i + 1], "info", word, INFO_NUMBERS[word])
            i += 2
        elif word == "score":
            i = _parse_score(tokens, i + 1, values)
        elif word == "pv":
            i += 1
            start = i
            while i < count and tokens[i] not in INFO_KEYWORDS:
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
        elif word in _SCORE_BOUNDS:  # after the score, or after its wdl (where Stockfish writes it)
            if values["score_cp"] is None and values["score_mate"] is None:
                raise ProtocolError(f"info: {word!r} without a score before it")
            values["score_bound"] = _SCORE_BOUNDS[word]
            i += 1
        elif word == "wdl":
            if i + 3 >= count:
                raise ProtocolError("info: 'wdl' needs three counts: wdl <wins> <draws> <losses>")
            values["wdl"] = tuple(_read_number(tokens[i + k], "info", "wdl", 0) for k in (1, 2, 3))
            i += 4
        else:  # a field this protocol does not define (refutation, currline...): skip it
            i += 1
            while i < count and tokens[i] not in INFO_KEYWORDS:
                i += 1
    info: Info = _NEW(Info)
    _SET(info, "__dict__", values)
    return info


def _parse_score(tokens: list[str], i: int, values: dict[str, object]) -> int:
    if i + 1 >= len(tokens) or tokens[i] not in ("cp", "mate"):
        raise ProtocolError("info: expected 'score cp <centipawns>' or 'score mate <moves>'")
    values["score_cp"] = values["score_mate"] = values["score_bound"] = None
    values["score_" + tokens[i]] = _read_number(tokens[i + 1], "info score", tokens[i], None)
    return i + 2


OPTION_KEYWORDS: Final = frozenset({"name", "type", "default", "min", "max", "var"})
EMPTY: Final = "<empty>"


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
        while i < len(tokens) and tokens[i] not in OPTION_KEYWORDS:
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
        default = "" if raw == EMPTY else raw
    elif kind == "button" and raw is not None:
        raise ProtocolError(f"{where}: a button has no default")
    spec = OptionSpec(name, kind, default, low, high, options)  # type: ignore[arg-type]
    check_option_consistent(spec, where)
    return spec


def check_option_consistent(spec: OptionSpec, where: str) -> None:
    if spec.type == "spin":
        if spec.min is not None and spec.max is not None and spec.min > spec.max:
            raise ProtocolError(f"{where}: min {spec.min} is above max {spec.max}")
        if isinstance(spec.default, int) and (
            (spec.min is not None and spec.default < spec.min) or (spec.max is not None and spec.default > spec.max)
        ):
            raise ProtocolError(f"{where}: default {spec.default} is outside min..max")
    if spec.type == "combo" and spec.default is not None and spec.vars and spec.default not in spec.vars:
        raise ProtocolError(f"{where}: default {spec.default!r} is not one of the var values")


def _parse_id(tokens: list[str]) -> Id:
    if len(tokens) < 2:
        raise ProtocolError("id: expected 'id name <name>' or 'id author <author>'")
    return Id(tokens[1], " ".join(tokens[2:]))


def _parse_bestmove(tokens: list[str]) -> BestMove:
    count = len(tokens)
    if count == 2 or (count == 4 and tokens[2] == "ponder"):
        return BestMove(None if tokens[1] == "(none)" else tokens[1], tokens[3] if count == 4 else None)
    raise ProtocolError("bestmove: expected 'bestmove <move> [ponder <move>]' or 'bestmove (none)'")


def _parse_response_value(tokens: list[str]) -> QueryResponse:
    if len(tokens) < 2:
        raise ProtocolError("response: expected 'response <value>'")
    return QueryResponse(" ".join(tokens[1:]))


def _parse_perft_total(tokens: list[str]) -> PerftTotal:
    if len(tokens) != 3 or tokens[1] != "searched:":
        raise ProtocolError("expected 'Nodes searched: <count>'")
    return PerftTotal(parse_int(tokens[2], "Nodes searched", 0))


RESPONSE_PARSERS: Final[dict[str, Callable[[list[str]], object]]] = {
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


def read_response(line: str) -> Response:
    """The response on ``line`` (one line, with or without its line ending)."""
    tokens = line.split()
    if not tokens:
        raise ProtocolError("empty response")
    parser = RESPONSE_PARSERS.get(tokens[0])
    if parser is not None:
        return parser(tokens)  # type: ignore[return-value]
    if len(tokens) == 2 and tokens[1].isdigit():
        return PerftMove(tokens[0], parse_int(tokens[1], f"perft count of {_show(tokens[0])}", 0))
    raise ProtocolError(f"unknown response {_show(tokens[0])}")

"""What a host writes at every move: the search's :class:`~protocol.messages.Limit`
(:func:`move_limit`), its ``go`` line (:func:`format_go`) and the ``position`` line grown by the
moves played since the last one (:func:`extend_position`); with the checks every writer of
:mod:`protocol.codec` makes of a number or a token.

Compiled with the rules in the compiled build, as :mod:`protocol.reading` is: a host does this
at every ply of every game.  A writer takes values of any type and refuses, with a
:class:`~protocol.messages.ProtocolError`, one it cannot write so that it reads back as itself;
so every field of a message is read here typed ``Any`` (no check of its type on the way in,
which in compiled code would raise a ``TypeError`` first) and checked by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .messages import _LIMIT_FIELDS, Limit, ProtocolError
from .reading import _GO_FLAGS, _GO_KEYWORDS, _GO_NUMBERS, _MAX_DIGITS, _NEW, _SET, _UCI_CLOCK_WORDS, _UGI_CLOCK_WORDS

_MAX_VALUE: Final = 10**_MAX_DIGITS

# A host makes a Limit at every move: not by its dataclass __init__ (twelve calls of
# object.__setattr__, frozen as it is, and a __post_init__) but with its dict at once, as the
# reader makes an Info (test_codec checks that the two make equal values).


def move_limit(
    wtime: int | None = None,
    btime: int | None = None,
    winc: int | None = None,
    binc: int | None = None,
    movestogo: int | None = None,
    movetime: int | None = None,
    depth: int | None = None,
    nodes: int | None = None,
) -> Limit:
    """``Limit(wtime=wtime, btime=btime, ...)``, the same value, made in a fraction of the time:
    the limit of one move's search, with the fields a host sets for it (no ``mate``, ``ponder``
    or ``searchmoves``; none set at all is ``infinite``, as for :class:`Limit`)."""
    limit: Limit = _NEW(Limit)
    infinite = (
        wtime is None
        and btime is None
        and winc is None
        and binc is None
        and movestogo is None
        and movetime is None
        and depth is None
        and nodes is None
    )
    _SET(
        limit,
        "__dict__",
        {
            "wtime": wtime,
            "btime": btime,
            "winc": winc,
            "binc": binc,
            "movestogo": movestogo,
            "movetime": movetime,
            "depth": depth,
            "nodes": nodes,
            "mate": None,
            "infinite": infinite,
            "ponder": False,
            "searchmoves": (),
        },
    )
    return limit


def _check_int(value: object, what: str, low: int | None = None) -> int:
    """``value`` checked to be an int the wire can carry (the formatters' guard)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"{what}: expected an integer, found {value!r}")
    if abs(value) >= _MAX_VALUE:
        raise ProtocolError(f"{what}: {value} is out of range (at most {_MAX_DIGITS} digits)")
    if low is not None and value < low:
        raise ProtocolError(f"{what}: must be at least {low}, found {value}")
    return value


def _check_token(value: object, what: str) -> str:
    """``value`` checked to be one non-empty token (no whitespace)."""
    if not isinstance(value, str) or not value or value.split() != [value]:
        raise ProtocolError(f"{what}: expected one token without spaces, found {value!r}")
    return value


_LIMIT_LOW: Final = {name: low for name, low in _GO_NUMBERS.values()}
# Per field of a go line: its name, its word on the wire (UCI's, UGI's) and the least value a
# check passes without a closer look (a number of at most _MAX_DIGITS digits, not below its low).
_LEAST: Final = {name: 1 - _MAX_VALUE if low is None else low for name, low in _LIMIT_LOW.items()}
_ALL_FIELDS: Final = (*_LIMIT_FIELDS, *_GO_FLAGS, "searchmoves")
_GO_WIRE: Final[dict[bool, list[tuple[str, str, int]]]] = {
    ugi: [(name, wire.get(name, name), _LEAST[name]) for name in _LIMIT_FIELDS]
    for ugi, wire in (
        (False, {}),
        (True, dict(zip(_UCI_CLOCK_WORDS, _UGI_CLOCK_WORDS))),
    )
}


def write_go(limit: object, ugi: bool) -> str:
    """The ``go`` line for ``limit`` (a :class:`~protocol.messages.Limit`), with UGI's clock
    words when ``ugi``."""
    if not isinstance(limit, Limit):
        raise ProtocolError(f"go: expected a Limit, found {limit!r}")
    # A Limit keeps its fields in its dict: read at once there, not by a lookup each (a subclass
    # may compute one: read one by one).
    fields: dict[str, Any] = (
        limit.__dict__ if type(limit) is Limit else {name: getattr(limit, name) for name in _ALL_FIELDS}
    )
    words = ["go"]
    for name, wire, least in _GO_WIRE[ugi]:
        value = fields[name]
        if value is not None:
            if type(value) is not int or not least <= value < _MAX_VALUE:
                _check_int(value, f"go {name}", _LIMIT_LOW[name])  # says what is wrong
            words.append(wire)
            words.append(str(value))
    for flag in _GO_FLAGS:
        value = fields[flag]
        if value is True:
            words.append(flag)
        elif value is not False:
            raise ProtocolError(f"go: {flag} must be True or False, found {value!r}")
    searchmoves = fields["searchmoves"]
    if not isinstance(searchmoves, tuple):
        raise ProtocolError(f"go: searchmoves must be a tuple, found {searchmoves!r}")
    if searchmoves:
        for move in searchmoves:
            if _check_token(move, "go searchmoves move") in _GO_KEYWORDS:
                raise ProtocolError(f"go: searchmoves move {move!r} is a go keyword")
        words.append("searchmoves " + " ".join(searchmoves))
    return " ".join(words)


def format_go(limit: Limit) -> str:
    """The ``go`` line for ``limit``: ``format_command(Go(limit))`` without the command object
    (a host writes one at every move)."""
    return write_go(limit, False)


def extend_position(line: str, previous: int, added: Sequence[object]) -> str:
    """The ``position`` line ``line`` (one :func:`~protocol.codec.format_command` wrote, with
    ``previous`` moves) followed by the moves ``added``: only the added moves are checked, so a
    game's lines cost the host the same at every ply instead of a check of the whole game each
    time."""
    moves = [_check_token(move, "position move") for move in added]
    if not moves:
        return line
    return line + (" " if previous else " moves ") + " ".join(moves)

"""What a host writes at every move: the ``go`` line of a search's
:class:`~protocol.messages.Limit` (:func:`format_go`) and the ``position`` line grown by the
moves played since the last one (:func:`extend_position`); with the checks every writer of
:mod:`protocol.codec` makes of a number or a token (:func:`check_int`, :func:`check_token`).

Compiled with the rules in the compiled build, as :mod:`protocol.reading` is: a host does this
at every ply of every game.  A writer takes values of any type and refuses, with a
:class:`~protocol.messages.ProtocolError`, one it cannot write so that it reads back as itself;
so every field of a message is read here typed ``Any`` (no check of its type on the way in,
which in compiled code would raise a ``TypeError`` first) and checked by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .messages import LIMIT_NUMBERS, Limit, ProtocolError
from .reading import GO_FLAGS, GO_KEYWORDS, GO_NUMBERS, MAX_DIGITS, UCI_CLOCK_WORDS, UGI_CLOCK_WORDS

_MAX_VALUE: Final = 10**MAX_DIGITS


def check_int(value: object, what: str, low: int | None = None) -> int:
    """``value`` checked to be an int the wire can carry (the formatters' guard)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"{what}: expected an integer, found {value!r}")
    if abs(value) >= _MAX_VALUE:
        raise ProtocolError(f"{what}: {value} is out of range (at most {MAX_DIGITS} digits)")
    if low is not None and value < low:
        raise ProtocolError(f"{what}: must be at least {low}, found {value}")
    return value


def check_token(value: object, what: str) -> str:
    """``value`` checked to be one non-empty token (no whitespace)."""
    if not isinstance(value, str) or not value or value.split() != [value]:
        raise ProtocolError(f"{what}: expected one token without spaces, found {value!r}")
    return value


_LOWEST: Final = {name: low for name, low in GO_NUMBERS.values()}  # a Limit field's least value
# The least number of each field that passes without a closer look (a number of at most
# MAX_DIGITS digits): check_int, and its message, only for one that does not.
_LEAST: Final = {name: 1 - _MAX_VALUE if low is None else low for name, low in _LOWEST.items()}
_UGI_WORDS: Final = dict(zip(UCI_CLOCK_WORDS, UGI_CLOCK_WORDS))
_ALL_FIELDS: Final = (*LIMIT_NUMBERS, *GO_FLAGS, "searchmoves")


def write_go(limit: object, ugi: bool) -> str:
    """The ``go`` line for ``limit`` (a :class:`~protocol.messages.Limit`), with UGI's clock
    words when ``ugi``."""
    if not isinstance(limit, Limit):
        raise ProtocolError(f"go: expected a Limit, found {limit!r}")
    # A Limit's fields read from its dict at once, not by a lookup each; a subclass may compute
    # one: read one by one.  (With the check above: 2,500 instructions a ply of the referee's
    # 64,700, callgrind, benchmarks/ply_floor.py.)
    fields: dict[str, Any] = (
        vars(limit) if type(limit) is Limit else {name: getattr(limit, name) for name in _ALL_FIELDS}
    )
    words = ["go"]
    for name in LIMIT_NUMBERS:
        value = fields[name]
        if value is not None:
            if type(value) is not int or not _LEAST[name] <= value < _MAX_VALUE:
                check_int(value, f"go {name}", _LOWEST[name])  # says what is wrong
            words.append(_UGI_WORDS.get(name, name) if ugi else name)
            words.append(str(value))
    for flag in GO_FLAGS:
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
            if check_token(move, "go searchmoves move") in GO_KEYWORDS:
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
    moves = [check_token(move, "position move") for move in added]
    if not moves:
        return line
    return line + (" " if previous else " moves ") + " ".join(moves)

"""An engine for any gameplug game on ``protocol.loop``: the loop's hooks made from the interface.

``protocol.loop`` knows no game: it takes functions that make a position, play a move text, say
whose turn it is, answer ``query`` and count ``go perft``.  :func:`serve_game` makes them from a
:class:`~gameplug.game.Game`, so an engine for a plug-in is only its search::

    from gameplug.serve import serve_game

    def search(job):                     # job.position is a gameplug State
        moves = job.position.legal_moves()
        return job.position.move_text(moves[0]) if moves else None

    raise SystemExit(serve_game(GAME, search, name="first"))

The engine offers the game's variants as ``UCI_Variant`` values (the variant names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .game import Game, State
from .outcome import Side
from .perft import divide

_RESULTS = {"1-0": "p1win", "0-1": "p2win", "1/2-1/2": "draw", "*": "none"}  # protocol/SPEC.md 4.9


def query_answer(game: Game, state: State[Any], item: str) -> str | None:
    """The value of the ``response`` to ``query <item>`` (protocol/SPEC.md 4.9) at ``state``, or
    None for an item the spec does not define."""
    outcome = state.outcome()
    if item == "gameover":
        return "true" if outcome.over else "false"
    if item == "p1turn":
        return "true" if state.turn is Side.FIRST else "false"
    if item == "result":
        return _RESULTS[outcome.result]
    if item == "fen":
        return state.position_text()
    if item == "moves":
        return " ".join(state.move_text(move) for move in state.legal_moves()) or "(none)"
    if item == "size":
        picture = state.picture()
        return f"{picture.width}x{picture.height}"
    if item == "startpos":
        return game.start(state.variant).position_text()
    return None


def serve_game(
    game: Game,
    search: Callable[[Any], str | None],
    *,
    name: str,
    author: str = "",
    options: Iterable[Any] = (),
    new_game: Callable[[], object] | None = None,
) -> int:
    """Run ``protocol.loop.serve`` for ``game`` on this process's stdin and stdout (see the module
    docstring); ``search`` gets a ``protocol.loop.SearchJob`` whose ``position`` is a State of
    the game.  The exit status."""
    from protocol.loop import serve

    def new_position(variant: str, text: str | None) -> State[Any]:
        return game.start(variant) if text is None else game.read_position(variant, text)

    def play(state: State[Any], text: str) -> None:
        state.play(state.read_move(text))

    return serve(
        search,
        name=name,
        author=author,
        variants=[variant.name for variant in game.variants],
        options=options,
        new_position=new_position,
        play=play,
        turn=lambda state: state.turn is Side.FIRST,
        answer=lambda state, item: query_answer(game, state, item),
        perft=divide,
        new_game=new_game,
    )

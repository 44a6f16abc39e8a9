"""The engine's protocol (``dipole-engine``): protocol/SPEC.md on stdin/stdout, spoken by
:mod:`protocol.loop` with this engine's search and hooks.

The loop does the protocol (handshake, options, positions, the search thread, the time plan,
one ``bestmove`` per ``go``, error lines); this module names the engine and gives the loop
what only the engine knows: the :class:`~dipole_engine.engine.Engine` (the search and its
transposition table, resized by ``Hash`` and cleared by ``ucinewgame``), ``go perft`` and
the ``query`` answers from the rules.
"""

from __future__ import annotations

import sys
from typing import Any

from dipole_runtime.build import VERSION, build_name
from protocol import OptionSpec
from protocol.loop import MULTI_PV, PONDER, EngineLoop
from protocol.timeman import MOVE_OVERHEAD

from .engine import HASH, Engine
from .evaluate import evaluates
from .rules import WHITE, Board, all_variants, divide, new_board

ENGINE_NAME = "Dipole Engine"
ENGINE_AUTHOR = "the dipole-engine authors"
VARIANT_PLACE = OptionSpec("UCI_Variant", "combo")
"""Where the loop's ``UCI_Variant`` goes in the handshake: after ``Hash`` and ``MoveOverhead``."""


def searchable_variants() -> list[str]:
    """The variants whose game the search can evaluate, in registration order (no board is
    built: an engine starts many times for each game it plays)."""
    return [variant.name for variant in all_variants() if evaluates(variant.game)]


def answer(board: Board[Any], item: str) -> str:
    """The ``response`` to ``query <item>`` (every item of SPEC.md 4.9)."""
    if item == "gameover":
        return _bool(board.is_game_over())
    if item == "p1turn":
        return _bool(board.turn == WHITE)
    if item == "result":
        winner = board.winner()
        return "none" if winner is None else ("p1win" if winner == WHITE else "p2win")
    if item == "fen":
        return board.fen()
    if item == "moves":
        return " ".join(str(move) for move in board.legal_moves()) or "(none)"
    if item == "size":
        return f"{board.variant.width}x{board.variant.height}"
    return board.variant.start_fen


def _bool(value: bool) -> str:
    return "true" if value else "false"


def engine_loop(engine: Engine) -> EngineLoop[Board[Any]]:
    """A protocol session of ``engine`` (``run`` it, or drive it in process with ``handle``)."""
    return EngineLoop(
        engine.search,
        name=f"{ENGINE_NAME} {VERSION} ({build_name()})",
        author=ENGINE_AUTHOR,
        variants=searchable_variants(),
        options=(HASH, MOVE_OVERHEAD, MULTI_PV, PONDER, VARIANT_PLACE),
        new_position=new_board,
        play=Board.push_text,
        turn=lambda board: board.turn == WHITE,
        answer=answer,
        perft=lambda board, depth: divide(board.copy(), depth),
        new_game=engine.new_game,
        on_option=engine.set_option,
        analysis=True,
    )


SWITCH_INTERVAL = 0.0001
"""Seconds a thread waits for the interpreter lock before it asks the holder to hand it over
(Python's default is 0.005).  The protocol thread takes and gives up the lock several times to
answer one command while the search thread holds it.  The compiled search gives the lock up
only at its checks, every CHECK_EVERY nodes (under a millisecond), and takes it straight back;
a waiting thread asks for a hand-over only after a whole interval in which the lock did not
change hands, so the interval must be shorter than the time between those checks, or the
protocol thread is left to win races for the lock and ``isready`` can wait for seconds.  It
costs nothing while nothing else waits."""


def run_loop() -> int:
    """Run the protocol on this process's stdin and stdout; the exit status."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    return engine_loop(Engine()).run(sys.stdin.buffer, sys.stdout)

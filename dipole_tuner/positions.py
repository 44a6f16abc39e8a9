"""Labelled positions for tuning: the quiet positions of finished games, each with its game's
result from White's side.

A position is kept when the game was decided on the board (a normal end or the resign rule:
not a time forfeit, a crash or an illegal move, whose result says nothing of the position), it
comes after the opening (the book moves, then ``skip_plies`` more: the suite's openings are
balanced by design and say little about who wins), the game is not over in it, and it is quiet:
the side to move has no tactical move (no capture in Dipole, no move that takes a checker off
in Impasse), so that the static evaluation, which leaves those to the quiescence search, is a
fair judge of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arbiter.records.game import BLACK_WINS, WHITE_WINS, GameRecord, MoveSource, Termination
from dipole_engine.evaluate import hooks_for
from dipole_engine.rules import WHITE, Board, RulesError, new_board, variant_by_name

DECIDED_ON_THE_BOARD = (Termination.NORMAL, Termination.ADJUDICATION)


@dataclass(frozen=True)
class LabelledPosition:
    """A quiet position and its game's result: ``white_result`` 1.0 when White won, 0.0 when
    Black did."""

    board: Board[Any]
    white_result: float


@dataclass
class Harvest:
    """What reading the games gave: the positions, and the games left out and why."""

    positions: list[LabelledPosition]
    games_used: int = 0
    other_game: int = 0
    not_decided_on_the_board: int = 0


def harvest(records: Iterable[GameRecord], game: str, skip_plies: int = 8) -> Harvest:
    """The labelled quiet positions of ``records``' games of ``game`` (``dipole`` or
    ``impasse``, any of its variants).  Raises RulesError for a game whose moves do not replay."""
    found = Harvest([])
    for record in records:
        if variant_by_name(record.variant).game != game:
            found.other_game += 1
            continue
        if record.termination not in DECIDED_ON_THE_BOARD or record.result not in (WHITE_WINS, BLACK_WINS):
            found.not_decided_on_the_board += 1
            continue
        found.games_used += 1
        white_result = 1.0 if record.result == WHITE_WINS else 0.0
        board = new_board(record.variant, record.fen)
        from_ply = next((ply for ply, move in enumerate(record.moves) if move.source is not MoveSource.BOOK), 0)
        for ply, move in enumerate(record.moves):
            if ply >= from_ply + skip_plies and not board.is_game_over() and not hooks_for(board).tactical_moves():
                found.positions.append(LabelledPosition(board.copy(), white_result))
            try:
                board.push_text(move.text)
            except RulesError as error:
                raise RulesError(
                    f"game {record.number} ({record.white} vs {record.black}), ply {ply + 1}: {error}"
                ) from None
    return found


def white_score(board: Board[Any], score: int) -> int:
    """``score`` (the side to move's view, as the evaluation gives it) from White's side."""
    return score if board.turn == WHITE else -score

"""Checking game records: replay every move through the game's rules (its plug-in, found by the
``Variant`` tag) and test the result against them.

A game holds when its variant and start position are valid, every move is legal in turn (read
in the game's notation), the movetext's result equals the ``Result`` tag, ``PlyCount`` (if
present) counts the moves, and the result fits how the game ended:

- a game whose final position is over must have the rules' result (a win for the rules' winner
  or the rules' draw; termination normal);
- a game that is not over cannot have ended normally; after a time forfeit or an illegal
  move the side to move (the one that was thinking) must be the loser; a crash or stall may
  have been either side's; an adjudication must follow from the recorded scores by the rule
  its closing comment names; a resignation's closing comment names the loser (who may resign
  on either side's turn); ``*`` is only for a game that is not over;
- a draw (``1/2-1/2``) in a position the rules do not call over must be an adjudication by the
  draw rule or the game length its closing comment names, ending the game at its last move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gameplug
from gameplug import GameError, Outcome, Side

from ..records.game import BLACK_WINS, DRAW, RESULTS, UNFINISHED, WHITE_WINS, MoveRecord, Termination
from ..records.pgn import PgnGame, parse_move_comment
from .adjudication import check_adjudication, check_draw_adjudication


@dataclass(frozen=True)
class Problem:
    """What does not hold in a game; ``ply`` counts from 1 (None: not tied to one move)."""

    game: PgnGame
    ply: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.game.label()}"
        if self.ply is not None:
            where += f", ply {self.ply}"
        return f"{where}: {self.message}"


def check_game(game: PgnGame) -> Problem | None:
    """The first thing that does not hold in ``game``, or None when it all holds."""
    tags = game.tags
    variant = game.variant
    setup = tags.get("SetUp", "1" if "FEN" in tags else "0")
    if setup not in ("0", "1"):
        return Problem(game, None, f"SetUp tag must be 0 or 1, found {setup!r}")
    if setup == "1" and "FEN" not in tags:
        return Problem(game, None, "SetUp is 1 but there is no FEN tag")
    try:
        played = gameplug.variant(variant)
        state = played.read_position(tags["FEN"]) if setup == "1" else played.start()
    except GameError as error:
        return Problem(game, None, str(error))
    side_name = played.game.side_name
    for ply, move in enumerate(game.moves, 1):
        mover = side_name(state.turn)
        try:
            state.play(state.read_notation(move.text))
        except GameError as error:
            return Problem(game, ply, f"{mover}'s move {move.text!r} (line {move.line}) does not hold: {error}")
    tag_result = tags.get("Result")
    if tag_result != game.result:
        return Problem(game, None, f"the Result tag says {tag_result!r} but the moves end with {game.result!r}")
    plies = len(game.moves)
    if "PlyCount" in tags and tags["PlyCount"] != str(plies):
        return Problem(game, None, f"PlyCount is {tags['PlyCount']} but the game has {plies} plies")
    return _check_result(game, state.outcome(), state.turn, plies, side_name)


def _check_result(
    game: PgnGame, outcome: Outcome, turn: Side, plies: int, side_name: Callable[[Side], str]
) -> Problem | None:
    result = game.result
    termination_tag = game.tags.get("Termination", "normal")
    termination = Termination.from_tag(termination_tag)
    if outcome.over:
        if result != outcome.result:
            said = f"{side_name(outcome.winner)} has won" if outcome.winner is not None else "the game is drawn"
            return Problem(game, None, f"{said} after ply {plies} ({outcome.reason}) but the result is {result}")
        if termination not in (None, Termination.NORMAL):
            return Problem(game, None, f"the game is over after ply {plies}, so it cannot end by {termination_tag!r}")
        return None
    if result not in RESULTS:
        return Problem(game, None, f"result {result!r} is not one of {', '.join(RESULTS)}")
    if result == UNFINISHED:
        return None
    if result == DRAW:  # the game goes on by the rules: only an adjudication may draw it
        if termination is not Termination.ADJUDICATION:
            return Problem(
                game,
                None,
                f"a draw after ply {plies}, where the rules do not end the game, must be adjudicated, "
                f"not {termination_tag!r}",
            )
        wrong = check_draw_adjudication(game.reason(), _scored_moves(game))
        return Problem(game, None, f"adjudication: {wrong}") if wrong is not None else None
    if termination in (None, Termination.NORMAL):
        return Problem(
            game,
            None,
            f"the game is not over after ply {plies} ({side_name(turn)} to move) but the result is "
            f"{result} with termination {termination_tag!r}",
        )
    if termination is Termination.UNTERMINATED:
        return Problem(game, None, f"an unterminated game must have the result *, not {result}")
    if termination is Termination.ADJUDICATION:
        first = turn if plies % 2 == 0 else turn.other
        loser = Side.FIRST if result == BLACK_WINS else Side.SECOND
        wrong = check_adjudication(game.reason(), _scored_moves(game), first, loser, side_name)
        if wrong is not None:
            return Problem(game, None, f"adjudication: {wrong}")
    if termination is Termination.RESIGNATION:
        loser_name = side_name(Side.FIRST if result == BLACK_WINS else Side.SECOND)
        if game.reason() != f"{loser_name} resigns":
            return Problem(
                game,
                None,
                f"a resignation that {result} records must say {loser_name + ' resigns'!r}, not {game.reason()!r}",
            )
    if termination.mover_loses:
        mover_lost = BLACK_WINS if turn is Side.FIRST else WHITE_WINS
        if result != mover_lost:
            return Problem(
                game,
                None,
                f"{side_name(turn)} was to move when the game ended by {termination_tag!r}, "
                f"so the result must be {mover_lost}, not {result}",
            )
    return None


def check_games(games: list[PgnGame]) -> list[Problem]:
    """The problems of every game that does not hold, in file order."""
    return [problem for problem in map(check_game, games) if problem is not None]


def _scored_moves(game: PgnGame) -> list[MoveRecord]:
    """The game's moves with the scores their comments record."""
    return [parse_move_comment(move.text, move.comments[0] if move.comments else "") for move in game.moves]

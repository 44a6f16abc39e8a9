"""The game interface's contract, checked alike for every installed game (Dipole, Impasse) and for
the example plug-in, Connect Four (taken from examples/connect_four when it is not installed)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import gameplug
from gameplug import Game, GameError, GameVariant, OutcomeKind, Side, State, choice_json, picture_json

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "connect_four"


def games() -> list[Game]:
    found = dict(gameplug.installed_games())
    if "connect-four" not in found:  # not installed here: the example's own package, from its folder
        sys.path.insert(0, str(EXAMPLE))
        from connect_four_plug import GAME

        found[GAME.name] = GAME
    return list(found.values())


VARIANTS = [variant for game in games() for variant in game.variants]
BAD_POSITIONS = ["", "x", "W:W99z99:B", "7/7/7:q", "rrrr/" * 6 + ":r", ":" * 500, "a\nb", "W:W12c1:B12d8" * 50]
BAD_MOVES = ["", "zz", "z9-z11", "pass pass", "\n", "é", "x" * 10_000, "a1-a1=a1"]


def test_every_game_is_found_with_connect_four_among_them() -> None:
    names = {game.name for game in games()}
    assert {"dipole", "impasse", "connect-four"} <= names
    assert not gameplug.broken_plugins()


def assert_one_line(error: GameError) -> None:
    text = str(error)
    assert text and "\n" not in text and len(text) <= 400, text


def assert_moves_round_trip(state: State[Any]) -> None:
    """Each legal move reads back from its protocol text (strictly) and its notation, and is
    described for the board; the forced move, if any, is one of them."""
    legal = state.legal_moves()
    for move in legal:
        text = state.move_text(move)
        assert text and not any(c.isspace() for c in text), text
        assert state.read_move(text) == move
        assert state.read_notation(state.notation(move)) == move
        choice = state.describe_move(move)
        assert choice.move == text
    forced = state.forced_move()
    assert forced is None or list(legal) == [forced]
    choices = state.move_choices()
    assert {c.move for c in choices} == {state.move_text(m) for m in legal if m != forced}
    json.dumps([choice_json(choice) for choice in choices])


def assert_outcome_fits(state: State[Any]) -> None:
    outcome = state.outcome()
    assert outcome.over == (not state.legal_moves())
    assert (
        outcome.result
        == {
            OutcomeKind.ONGOING: "*",
            OutcomeKind.DRAW: "1/2-1/2",
            OutcomeKind.WIN: "1-0" if outcome.winner is Side.FIRST else "0-1",
        }[outcome.kind]
    )
    assert (outcome.reason != "") == outcome.over and "\n" not in outcome.reason


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_start_position_round_trips_through_its_text(variant: GameVariant) -> None:
    start = variant.start()
    text = start.position_text()
    again = variant.read_position(text)
    assert again.position_text() == text and again.key() == start.key() and again.turn is start.turn
    assert start.turn is Side.FIRST and not start.outcome().over and not start.history
    if variant.game.name in gameplug.installed_games():  # (the example may come from its folder)
        assert gameplug.variant(variant.name) == variant
    assert variant.engine_variant is None or isinstance(variant.engine_variant, str)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_random_playouts_round_trip_every_move_and_end_with_an_outcome(variant: GameVariant) -> None:
    rng = random.Random(f"playout {variant.name}")
    ended = 0
    for _ in range(3):
        state = variant.start()
        for ply in range(3000):
            assert_outcome_fits(state)
            if ply % 4 == 0:
                assert_moves_round_trip(state)
                copied = variant.read_position(state.position_text())
                assert copied.position_text() == state.position_text() and copied.key() == state.key()
            legal = state.legal_moves()
            if not legal:
                ended += 1
                break
            before = (state.position_text(), state.key())
            move = rng.choice(legal)
            state.play(move)
            if ply % 7 == 0:  # undo restores the position; the copy keeps the history and is apart
                copy = state.copy()
                assert copy.history == state.history and copy.position_text() == state.position_text()
                assert state.undo() == move and (state.position_text(), state.key()) == before
                state.play(move)
                copy.undo()
                assert len(copy.history) == len(state.history) - 1
        assert_moves_round_trip(state)
        picture = state.picture()
        assert len({square.name for square in picture.squares}) == len(picture.squares)
        json.dumps(picture_json(picture))
    assert ended == 3, "every random playout ends within 3000 plies"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_bad_text_is_refused_in_one_line(variant: GameVariant) -> None:
    for text in BAD_POSITIONS:
        with pytest.raises(GameError) as refused:
            variant.read_position(text)
        assert_one_line(refused.value)
    with pytest.raises(GameError) as refused:
        variant.read_position(None)  # type: ignore[arg-type]
    assert_one_line(refused.value)
    state = variant.start()
    bad_moves: list[Any] = [*BAD_MOVES, None, 3]
    for text in bad_moves:
        for read in (state.read_move, state.read_notation):
            with pytest.raises(GameError) as refused:
                read(text)
            assert_one_line(refused.value)
    with pytest.raises(GameError) as refused:
        variant.game.variant("no-such-variant")
    assert_one_line(refused.value)
    assert variant.name in str(refused.value)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_random_openings_are_reproducible_by_seed(variant: GameVariant) -> None:
    first = gameplug.random_openings(variant, 4, 5, seed=7)
    again = gameplug.random_openings(variant, 4, 5, seed=7)
    other = gameplug.random_openings(variant, 4, 5, seed=8)
    assert [line.moves for line in first] == [line.moves for line in again]
    assert [line.moves for line in first] != [line.moves for line in other]
    assert len({line.state.key() for line in first}) == 5  # distinct positions
    for line in first:
        state = variant.start()
        for text in line.moves:
            state.play(state.read_move(text))
        assert state.position_text() == line.state.position_text()
        assert variant.game.good_opening(state) and not state.outcome().over


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_check_positions_hold_under_the_rules(variant: GameVariant) -> None:
    positions = variant.check_positions()
    assert positions and positions[0].start is None and not positions[0].moves
    for position in positions:
        assert position.variant == variant.name
        state = variant.start() if position.start is None else variant.read_position(position.start)
        for text in position.moves:
            state.play(state.read_move(text))
        assert position.legal == tuple(sorted(state.move_text(m) for m in state.legal_moves()))
        assert set(position.answers) <= set(position.legal)

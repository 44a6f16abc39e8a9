"""Dipole and Impasse through the game interface agree with the rules and with what the host
does with the rules today: perft, outcomes and the referee's result sentences, random openings,
the board's picture, the page's move kinds and chooser labels, the referee's forced pass, strict and
lenient move text."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

import gameplug
from arbiter.openings.positions import generate_openings
from dipole_engine.plugin import DIPOLE, IMPASSE, RulesState
from dipole_engine.rules import BLACK, PASS, WHITE, all_variants, color_name, new_board
from gameplug import GameError, Side
from gameplug.serve import query_answer

pytestmark = pytest.mark.build  # the adapter reads the rules' move objects, which the build compiles

RULES_VARIANTS = [variant.name for variant in all_variants()]
KIND_WORDS = {  # the rules' move kinds as the board drawing's marker kinds
    "BASIC": "move",
    "MERGE": "merge",
    "CAPTURE": "capture",
    "EXIT": "exit",
    "PASS": "pass",
    "SLIDE": "move",
    "TRANSPOSE": "merge",
    "REMOVE": "remove",
}


def test_both_games_are_installed_through_their_entry_points() -> None:
    games = gameplug.installed_games()
    assert games["dipole"] is DIPOLE and games["impasse"] is IMPASSE
    assert [v.name for v in gameplug.all_variants() if v.game.name in ("dipole", "impasse")] == RULES_VARIANTS


@pytest.mark.parametrize("variant", RULES_VARIANTS)
def test_perft_through_the_interface_equals_the_engine_command(variant: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "dipole_engine", "perft", "--variant", variant, "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    expected = re.search(r"Nodes searched: (\d+)", run.stdout)
    assert expected is not None, run.stdout + run.stderr
    state = gameplug.variant(variant).start()
    assert gameplug.perft(state, 3) == int(expected.group(1))
    assert state.position_text() == new_board(variant).fen() and not state.history


@pytest.mark.parametrize("variant", RULES_VARIANTS)
def test_outcomes_and_reasons_agree_with_the_rules_and_the_referee(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(4):
        state = gameplug.variant(variant).start()
        assert isinstance(state, RulesState)
        board = new_board(variant)
        while True:
            outcome, winner = state.outcome(), board.winner()
            assert state.position_text() == board.fen() and state.key() == board.key
            if winner is None:
                assert not outcome.over
            else:
                emptied = WHITE if board.checkers(WHITE) == 0 else BLACK
                sentence = f"{color_name(emptied)} has no checkers left" + (", and wins" if emptied == winner else "")
                assert outcome.winner is Side(winner) and outcome.reason == sentence
                assert outcome.result == ("1-0" if winner > 0 else "0-1")
                break
            assert (state.forced_move() is not None) == board.must_pass()  # the referee's pass, declared
            move = rng.choice(board.legal_moves())
            board.push(move)
            state.play(state.read_move(str(move)))


@pytest.mark.parametrize("variant", ["dipole", "dipole-10s", "impasse", "impasse-singles"])
def test_random_openings_are_the_arbiters(variant: str) -> None:
    ours = gameplug.random_openings(gameplug.variant(variant), 6, 20, seed=11)
    theirs = generate_openings(variant, 6, 20, 11)
    assert [line.moves for line in ours] == [opening.moves for opening in theirs]


@pytest.mark.parametrize("variant", ["dipole", "dipole-10", "impasse"])
def test_picture_and_choices_carry_the_rules_stacks_and_moves(variant: str) -> None:
    rng = random.Random(variant)
    state = gameplug.variant(variant).start()
    assert isinstance(state, RulesState)
    for _ in range(60):
        board = state.board
        name = board.geometry.name
        picture = state.picture()
        assert (picture.width, picture.height) == (board.geometry.width, board.geometry.height)
        assert [(p.square, p.colour, p.count) for p in picture.pieces] == [
            (name(sq), "white" if board.cells[sq] > 0 else "black", abs(board.cells[sq]))
            for sq in board.geometry.dark_squares
            if board.cells[sq]
        ]
        dark = {s.name for s in picture.squares if s.shade == "dark"}
        assert dark == {name(sq) for sq in board.geometry.dark_squares}
        for move in board.legal_moves():
            choice = state.describe_move(move)
            origin = name(move.origin) if getattr(move, "origin", -1) >= 0 else None
            target = name(move.target) if getattr(move, "target", -1) >= 0 else None
            kind = KIND_WORDS[move.kind.name]
            if kind == "pass":
                assert choice.target is None and choice.origin is None
                continue
            assert choice.origin == origin and choice.target is not None and choice.target.kind == kind
            if kind == "exit":
                assert choice.target.edge == ("top" if board.turn > 0 else "bottom") and target is None
                assert choice.label.endswith("off the board") and choice.question == "How many checkers leave?"
            else:
                assert choice.target.edge is None and choice.target.square == (target or origin)
            if getattr(move, "crown", -1) >= 0:
                assert (
                    choice.label.startswith("crown with the single from") and choice.question == "Which single crowns?"
                )
        legal = state.legal_moves()
        if not legal:
            break
        state.play(rng.choice(legal))


def test_dipole_declares_its_forced_pass_and_impasse_has_none() -> None:
    stuck = gameplug.variant("dipole").read_position("W:W1d4:B2c5,2e5")
    assert stuck.forced_move() is PASS and stuck.move_choices() == []
    assert stuck.read_move("pass") is PASS
    assert gameplug.variant("dipole").start().forced_move() is None
    lone = gameplug.variant("impasse").read_position("W:W1a1:B2b2")  # one legal move, but the player's
    assert len(lone.legal_moves()) == 1 and lone.forced_move() is None and len(lone.move_choices()) == 1


def test_protocol_text_is_strict_and_the_notation_lenient() -> None:
    dipole = gameplug.variant("dipole").start()
    assert dipole.move_text(dipole.read_notation("c1c3")) == "c1-c3"
    with pytest.raises(GameError, match="the protocol writes this move c1-c3"):
        dipole.read_move("c1c3")
    with pytest.raises(GameError, match="this is a basic move; write c1-c3"):
        dipole.read_notation("c1xc3")
    impasse = gameplug.variant("impasse").read_position("W:W1a1,1g7:B1a7,1c7")
    assert impasse.move_text(impasse.read_notation("g7-h8")) == "g7-h8=a1"  # the only crown, left out
    with pytest.raises(GameError, match="g7-h8=a1"):
        impasse.read_move("g7-h8")
    with pytest.raises(GameError, match="the game is over"):
        gameplug.variant("dipole").read_position("W:W1b8:B").read_move("b8-b9")


def test_the_games_reasons_and_check_positions() -> None:
    won = gameplug.variant("impasse").read_position("W:W1a1:B2b2")
    won.play(won.read_move("xa1"))
    assert won.outcome().reason == "White has no checkers left, and wins" and won.outcome().result == "1-0"
    assert not won.legal_moves() and won.move_choices() == []
    by_description = {p.description: p for p in gameplug.variant("dipole").check_positions()}
    assert by_description["a forced pass"].answers == ("pass",) == by_description["a forced pass"].legal
    assert by_description["a finished game"].legal == ()
    mate = by_description["a win in one"]
    assert mate.answers and len(mate.answers) < len(mate.legal)  # other moves that do not win
    assert [p.description for p in gameplug.variant("dipole-10").check_positions()] == ["the start position"]
    assert gameplug.variant("impasse-singles").engine_variant == "impasse-singles"


@pytest.mark.parametrize("variant", ["dipole-s", "impasse"])
def test_query_answers_from_the_interface_are_the_engines(variant: str) -> None:
    state = gameplug.variant(variant).start()
    rng = random.Random(variant)
    for _ in range(5):
        state.play(rng.choice(state.legal_moves()))
    moves = " ".join(state.move_text(move) for move in state.history)
    items = ("gameover", "p1turn", "result", "fen", "moves", "size", "startpos")
    commands = [f"setoption name UCI_Variant value {variant}", f"position startpos moves {moves}"]
    commands += [f"query {item}" for item in items] + ["quit"]
    run = subprocess.run(
        [sys.executable, "-m", "dipole_engine"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    game = gameplug.variant(variant).game
    assert run.stdout.splitlines() == [f"response {query_answer(game, state, item)}" for item in items]

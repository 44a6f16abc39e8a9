"""Chess and Chess960 behind the game interface (gameplug_chess): perft against the known
numbers, cutechess-cli's words for each ending from real games, UCI castling in each mode, SAN
read leniently, bad FEN refused in one line, the board and chooser data, and the registry's one
line when python-chess is missing.  (The interface's own contract: test_gameplug_conformance.)"""

from __future__ import annotations

import ast
import base64
import subprocess
import sys
from pathlib import Path

import chess
import pytest

import gameplug
from gameplug import GameError, OutcomeKind, Side, State
from gameplug_chess import GAME
from gameplug_chess.state import chess960_start

ROOT = Path(__file__).resolve().parent.parent
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
CHESS960_PERFT = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"  # position 1 of the 960 perft list


def play(state: State[chess.Move], *moves: str) -> State[chess.Move]:
    for text in moves:
        assert not state.outcome().over, text
        state.play(state.read_move(text))
    return state


def position(variant: str, fen: str) -> State[chess.Move]:
    return gameplug.variant(variant).read_position(fen)


def test_chess_is_an_installed_game_with_both_variants() -> None:
    assert gameplug.game("chess") is GAME
    assert [v.name for v in GAME.variants] == ["chess", "chess960"]
    assert "chess" not in gameplug.broken_plugins()


@pytest.mark.parametrize(
    ("variant", "fen", "counts"),
    [
        ("chess", None, [20, 400, 8902]),
        ("chess", KIWIPETE, [48, 2039]),
        ("chess960", KIWIPETE.replace("KQkq", "HAha"), [48, 2039]),
        ("chess960", CHESS960_PERFT, [21, 528, 12189]),
    ],
)
def test_perft_through_the_interface_gives_the_known_numbers(variant: str, fen: str | None, counts: list[int]) -> None:
    state = gameplug.variant(variant).start() if fen is None else position(variant, fen)
    before = state.position_text()
    assert [gameplug.perft(state, depth) for depth in range(1, len(counts) + 1)] == counts
    assert state.position_text() == before and not state.history


@pytest.mark.parametrize("variant", ["chess", "chess960"])
def test_each_ending_has_cutechess_words(variant: str) -> None:
    start = gameplug.variant(variant).start
    endings = [
        (play(start(), "f2f3", "e7e5", "g2g4", "d8h4"), OutcomeKind.WIN, Side.SECOND, "Black mates"),
        (
            play(start(), "e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"),
            OutcomeKind.WIN,
            Side.FIRST,
            "White mates",
        ),
        (
            play(position(variant, "7k/8/5K2/6Q1/8/8/8/8 w - - 0 1"), "g5g6"),
            OutcomeKind.DRAW,
            None,
            "Draw by stalemate",
        ),
        (
            play(position(variant, "8/8/8/4k3/8/8/3qK3/8 w - - 0 1"), "e2d2"),
            OutcomeKind.DRAW,
            None,
            "Draw by insufficient mating material",
        ),
        (
            play(position(variant, "8/8/8/4k3/8/8/3QK3/8 w - - 99 80"), "d2d3"),
            OutcomeKind.DRAW,
            None,
            "Draw by fifty moves rule",
        ),
        (  # the hundredth quiet ply mates: the mate counts, as in cutechess-cli
            play(position(variant, "7k/8/5K2/6Q1/8/8/8/8 w - - 99 80"), "g5g7"),
            OutcomeKind.WIN,
            Side.FIRST,
            "White mates",
        ),
        (
            play(start(), *["g1f3", "g8f6", "f3g1", "f6g8"] * 2),
            OutcomeKind.DRAW,
            None,
            "Draw by 3-fold repetition",
        ),
    ]
    for state, kind, winner, reason in endings:
        outcome = state.outcome()
        assert (outcome.kind, outcome.winner, outcome.reason) == (kind, winner, reason)
        assert not state.legal_moves()
        with pytest.raises(GameError, match="the game is over"):
            state.read_notation("e4")
        state.undo()
        assert not state.outcome().over and state.legal_moves()
    repeated = play(start(), *["g1f3", "g8f6", "f3g1", "f6g8"] * 2)
    assert repeated.outcome().result == "1/2-1/2"
    assert play(start(), *["g1f3", "g8f6", "f3g1", "f6g8"]).outcome().over is False  # twice is not yet a draw


def test_castling_is_written_as_engines_write_it_in_each_mode() -> None:
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    standard = position("chess", fen)
    assert {"e1g1", "e1c1"} <= {standard.move_text(m) for m in standard.legal_moves()}
    for text in ("e1h1", "e1a1", "E1G1", "e1g1 ", "O-O"):
        with pytest.raises(GameError):
            standard.read_move(text)
    assert standard.notation(standard.read_move("e1g1")) == "O-O"

    random = position("chess960", fen.replace("KQkq", "HAha"))
    assert {"e1h1", "e1a1"} <= {random.move_text(m) for m in random.legal_moves()}
    for text in ("e1g1", "e1c1"):
        with pytest.raises(GameError, match="not a legal move"):
            random.read_move(text)
    assert random.notation(random.read_move("e1a1")) == "O-O-O"

    beside = position("chess960", "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1")
    play(beside, "e1g1")  # the king takes its own rook: castles, to g1 with the rook on f1
    assert beside.position_text().startswith("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 b")
    play(beside, "e8b8")
    assert beside.position_text().startswith("2kr2r1/")


def test_promotion_text_is_strict_and_the_chooser_asks_for_the_piece() -> None:
    state = position("chess", "7k/4P3/6K1/8/8/8/8/8 w - - 0 1")
    assert state.move_text(state.read_move("e7e8n")) == "e7e8n"
    for text in ("e7e8", "e7e8Q", "e7e8k", "e7e8p"):
        with pytest.raises(GameError):
            state.read_move(text)
    choices = [c for c in state.move_choices() if c.origin == "e7"]
    assert [(c.move, c.label) for c in choices] == [
        ("e7e8q", "Queen"),
        ("e7e8r", "Rook"),
        ("e7e8b", "Bishop"),
        ("e7e8n", "Knight"),
    ]
    assert {(c.target.square if c.target else None, c.question) for c in choices} == {("e8", "Promote to which piece?")}
    assert gameplug.winning_moves(state) == ["e7e8q", "e7e8r"]


def test_records_are_san_read_leniently() -> None:
    state = gameplug.variant("chess").start()
    for text in ("Nf3", "g1f3", "Ng1-f3", "Ngf3"):
        assert state.move_text(state.read_notation(text)) == "g1f3", text
    assert state.notation(state.read_move("e2e4")) == "e4"
    play(state, "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
    for text in ("O-O", "0-0", "e1g1", "e1h1"):  # (king-takes-rook too, as python-chess reads)
        assert state.move_text(state.read_notation(text)) == "e1g1", text
    for text in ("O-O-O", "Nd4xe5", "Ke2e3", "N", "Qh5", "--", "0000"):
        with pytest.raises(GameError, match="not a legal move here in SAN or UCI"):
            state.read_notation(text)
    promotion = position("chess", "7k/4P3/6K1/8/8/8/8/8 w - - 0 1")
    for text in ("e8=Q", "e8Q", "e8=Q#", "e7e8q"):
        assert promotion.move_text(promotion.read_notation(text)) == "e7e8q", text
    assert promotion.notation(promotion.read_move("e7e8q")) == "e8=Q#"
    random = position("chess960", "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1")
    assert random.move_text(random.read_notation("O-O")) == "e1h1"


@pytest.mark.parametrize(
    "fen",
    [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w XYZ - 0 1",
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
        "4k3/8/8/8/8/8/8/4K2P w - - 0 1",  # a pawn on the first rank
        "4k3/8/8/8/8/8/8/4KQ2 b - - 0 1" + "x" * 5000,
        "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1",  # the side not to move is in check
    ],
)
def test_bad_fen_is_refused_in_one_line(fen: str) -> None:
    for variant in ("chess", "chess960"):
        with pytest.raises(GameError) as refused:
            position(variant, fen)
        message = str(refused.value)
        assert message.startswith(f"bad {variant} FEN '") and "\n" not in message and len(message) < 200, message


def test_the_board_picture_has_shaded_squares_and_gpl_pieces() -> None:
    picture = gameplug.variant("chess").start().picture()
    shades = {square.name: square.shade for square in picture.squares}
    assert len(shades) == 64 and shades["a1"] == "dark" and shades["h1"] == "light" and shades["d8"] == "dark"
    pieces = {piece.square: piece for piece in picture.pieces}
    assert len(pieces) == 32
    king = pieces["e8"]
    assert (king.side, king.kind, king.colour) == (Side.SECOND, "king", "black")
    assert {pieces[f"{file}2"].kind for file in "abcdefgh"} == {"pawn"}
    for piece in (king, pieces["d1"]):
        assert piece.image is not None and piece.image.startswith("data:image/svg+xml;base64,")
        svg = base64.b64decode(piece.image.split(",", 1)[1]).decode()
        assert svg.startswith("<svg") and f"{piece.colour}-{piece.kind}" in svg


def test_chess960_castling_is_chosen_by_clicking_the_rook() -> None:
    state = position("chess960", "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1")
    castles = sorted(
        (c.move, c.origin, c.target and c.target.square, c.label)
        for c in state.move_choices()
        if c.target and c.target.kind == "castle"
    )
    assert castles == [("e1a1", "e1", "a1", "O-O-O"), ("e1h1", "e1", "h1", "O-O")]


def test_engines_are_told_chess960_by_its_own_option() -> None:
    assert [v.engine_variant for v in GAME.variants] == [None, None]
    assert GAME.engine_options("chess") == {}
    assert GAME.engine_options("chess960") == {"UCI_Chess960": "true"}
    with pytest.raises(GameError, match="no variant 'atomic'"):
        GAME.engine_options("atomic")


def test_chess960_starts_are_numbered_and_518_is_the_standard_array() -> None:
    starts = {chess960_start(number).position_text() for number in range(960)}
    assert len(starts) == 960
    assert chess960_start(518).position_text() == gameplug.variant("chess").start().position_text()
    assert gameplug.variant("chess960").start().position_text() == chess960_start(518).position_text()
    assert chess960_start(0).position_text().startswith("bbqnnrkr/pppppppp/")
    for number in (-1, 960):
        with pytest.raises(GameError, match="numbered 0 to 959"):
            chess960_start(number)


@pytest.mark.parametrize("variant", ["chess", "chess960"])
def test_random_openings_end_with_level_material(variant: str) -> None:
    openings = gameplug.random_openings(gameplug.variant(variant), 10, 30, seed=3)
    assert len({line.state.key() for line in openings}) == 30
    for line in openings:
        board = line.state.board  # type: ignore[attr-defined]
        values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
        material = [sum(v * len(board.pieces(k, colour)) for k, v in values.items()) for colour in chess.COLORS]
        assert material[0] == material[1] and not line.state.outcome().over


def test_check_positions_give_the_mating_answers() -> None:
    for variant in GAME.variants:
        answers = {p.description: p.answers for p in variant.check_positions()}
        assert answers["a mate in one beside a stalemate"] == ("g5g7",)
        assert answers["a promotion that mates"] == ("e7e8q", "e7e8r")
    castles = {p.description: p.legal for p in gameplug.variant("chess960").check_positions()}
    assert {"e1h1", "e1a1"} <= set(castles["castling king-takes-rook"])
    assert {"e1g1", "e1b1"} <= set(castles["castling onto the rook's square"])


def python_prints(script: str) -> list[str]:
    """The lines a fresh Python process running ``script`` prints (it must succeed)."""
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def test_python_chess_is_imported_only_when_a_chess_position_is_made() -> None:
    script = (
        "import sys\n"
        "import gameplug\n"
        "gameplug.variant('dipole').start()\n"
        "print('gameplug_chess' in sys.modules, 'chess' in sys.modules)\n"
        "gameplug.variant('chess').start()\n"
        "print('chess' in sys.modules)\n"
    )
    assert python_prints(script) == ["True False", "True"]


def test_without_python_chess_the_registry_names_the_plugin_in_one_line() -> None:
    script = (
        "import sys; sys.modules['chess'] = None\n"
        "import gameplug\n"
        "print(sorted(gameplug.installed_games()))\n"
        "print(gameplug.broken_plugins()['chess'])\n"
        "try:\n    gameplug.game('chess')\nexcept gameplug.GameError as error:\n    print(error)\n"
    )
    games, broken, asked = python_prints(script)
    working = ast.literal_eval(games)  # (with any other game installed here, such as the example's)
    assert "chess" not in working and {"dipole", "impasse"} <= set(working)
    assert broken.startswith("game plug-in 'chess' (gameplug_chess:GAME")
    assert broken.endswith("ImportError: chess needs python-chess: pip install -e '.[chess]'")
    expected = (
        f"unknown game 'chess'; installed games: {', '.join(working)} (plug-ins left out, see their errors: chess)"
    )
    assert asked == expected


@pytest.mark.parametrize(
    ("fen", "drawn"),
    [  # cutechess-cli draws when the pieces besides the kings count at most 1 (bishops once per square colour)
        ("8/8/8/4k3/8/8/8/1B2K3 w - - 0 1", True),
        ("8/8/8/3bk3/8/8/8/1B2K3 w - - 0 1", True),  # bishops on light squares only
        ("8/8/8/2b1k3/8/8/8/1B2K3 w - - 0 1", False),  # bishops on both colours
        ("8/8/8/3nk3/8/8/8/1N2K3 w - - 0 1", False),
        ("8/8/8/4k3/8/8/8/NN2K3 w - - 0 1", False),
        ("8/8/8/4k3/8/8/P7/4K3 w - - 0 1", False),
    ],
)
def test_insufficient_material_is_cutechess_count(fen: str, drawn: bool) -> None:
    outcome = position("chess", fen).outcome()
    assert (outcome.reason == "Draw by insufficient mating material") == drawn and outcome.over == drawn

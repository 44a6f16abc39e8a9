"""Openings: the positions games start from, read from a file or generated from a seed.

An openings file has one opening per line: a FEN, a FEN followed by moves, or moves from the
variant's start (``c1-c3 d8-d6``).  Blank lines and lines starting with ``#`` are skipped.
Every line is checked against the rules when the file is read; a bad one is reported with its
line number, and quoted once an earlier line was an opening (a file that does not start with
one may be no openings file at all, whose text is not shown).  Generated openings are
``plies`` random legal moves from the start that take no checker off the board (the rules'
``Board.takes_checkers_off``: in Dipole no capture or exit, in Impasse no bear-off or
removal), drawn from ``random.Random(seed)`` in a fixed order, so a seed always gives the
same openings.

The FEN part becomes the game's start position (PGN ``SetUp``/``FEN``); the moves are played
as the first plies of the game and recorded as book moves.
"""

from __future__ import annotations

import random
from typing import Any

from dipole_engine.rules import Board, RulesError, new_board

from ..errors import ArbiterError
from ..files import read_text
from ..records.game import Opening


def parse_opening(line: str, variant: str, source: str) -> Opening:
    """One openings-file line; raises ArbiterError naming ``source`` when it does not hold."""
    tokens = line.split()
    fen = None
    if tokens and tokens[0][:2] in ("W:", "B:"):  # a FEN names the side to move first
        fen = tokens.pop(0)
    try:
        board = new_board(variant, fen)
        if fen is not None:
            fen = board.fen() if board.fen() != board.variant.start_fen else None
        for text in tokens:
            board.push_text(text)
    except RulesError as error:
        raise ArbiterError(f"{source}: {error}") from None
    if board.is_game_over():
        raise ArbiterError(f"{source}: the game is already over in this opening")
    return Opening(fen, tuple(tokens), source)


MAX_OPENINGS_BYTES = 64 << 20


def load_openings(path: str, variant: str) -> list[Opening]:
    """Every opening of the file at ``path``, in file order."""
    text = read_text(path, "openings file", MAX_OPENINGS_BYTES)
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            openings.append(parse_opening(stripped, variant, f"{path} line {number}"))
        except ArbiterError:
            if openings:  # an openings file with a bad line: the line is quoted
                raise
            # Not one opening yet: maybe no openings file at all, whose text is not shown.
            raise ArbiterError(
                f"openings file {path}: line {number} is no opening of {variant} (a FEN, a FEN then "
                f"moves, or moves from the start); is it an openings file?"
            ) from None
    if not openings:
        raise ArbiterError(f"openings file {path}: no openings in it (only blank or # lines)")
    return openings


def _quiet_moves(board: Board[Any]) -> list[Any]:
    """The legal moves that take no checker off the board, or, when every move does, all of
    them.  Random openings are drawn from these so that they stay balanced whatever the game:
    in both games the checkers left are what decides it (a random Dipole exit of half a stack
    loses before the game starts; a random Impasse bear-off is a free step towards winning)."""
    legal = board.legal_moves()
    return [move for move in legal if not board.takes_checkers_off(move)] or legal


def generate_openings(variant: str, plies: int, count: int, seed: int) -> list[Opening]:
    """``count`` openings of ``plies`` random quiet moves each, distinct where the variant allows.

    The draws come from one ``random.Random(seed)`` in order, so the list depends only on the
    arguments.  A random line that ends the game is drawn again; a repeated final position is
    drawn again a bounded number of times, then accepted.  Once one opening has needed every
    attempt, the distinct positions are taken to be used up (short openings of a small
    variant) and later repeats are accepted at once, so asking for more openings than exist
    costs no more than asking for as many.
    """
    rng = random.Random(seed)
    openings: list[Opening] = []
    seen: set[int] = set()
    exhausted = False
    for index in range(count):
        for attempt in range(100):
            board = new_board(variant)
            for _ in range(plies):
                board.push(rng.choice(_quiet_moves(board)))
                if board.is_game_over():
                    break
            if board.is_game_over():
                continue
            if board.key in seen and not exhausted:
                exhausted = attempt == 99
                if not exhausted:
                    continue
            break
        else:
            raise ArbiterError(f"cannot generate a {plies}-ply opening in {variant} that does not end the game")
        seen.add(board.key)
        moves = tuple(str(move) for move in board.move_stack)
        openings.append(Opening(None, moves, f"random {plies} plies, seed {seed}, #{index + 1}"))
    return openings

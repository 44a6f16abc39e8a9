"""Openings: the positions games start from, read from a file or generated from a seed.

An openings file has one opening per line: moves from the variant's start (``c1-c3 d8-d6``, in
the game's notation: chess's ``e4 e5``), a position in the game's own text (a FEN), or a
position followed by moves.  Blank lines and lines
starting with ``#`` are skipped.  Every line is checked against the game's rules (its plug-in)
when the file is read; a bad one is reported with its line number, and quoted once an earlier
line was an opening (a file that does not start with one may be no openings file at all, whose
text is not shown).  Generated openings are ``plies`` random legal moves from the start drawn
from the game's filter of bad starts (Dipole and Impasse: no move that takes checkers off the
board), from ``random.Random(seed)`` in a fixed order (:func:`gameplug.random_openings`), so a
seed always gives the same openings.

The position becomes the game's start position (PGN ``SetUp``/``FEN``); the moves are played
as the first plies of the game and recorded as book moves.
"""

from __future__ import annotations

from typing import Any

import gameplug
from gameplug import GameError

from ..errors import ArbiterError
from ..files import read_text
from ..records.game import Opening

MAX_POSITION_WORDS = 6  # a position text of the most words a game writes (a chess FEN)


def parse_opening(line: str, variant: str, source: str) -> Opening:
    """One openings-file line; raises ArbiterError naming ``source`` when it does not hold."""
    played = gameplug.variant(variant)
    tokens = line.split()
    try:
        state, fen, words = _read_opening(played, tokens)
        moves = []
        for text in words:  # the game's notation, read leniently; kept as the protocol writes it
            move = state.read_notation(text)
            moves.append(state.move_text(move))
            state.play(move)
    except GameError as error:
        raise ArbiterError(f"{source}: {error}") from None
    if state.outcome().over:
        raise ArbiterError(f"{source}: the game is already over in this opening")
    return Opening(fen, tuple(moves), source)


def _read_opening(
    variant: gameplug.GameVariant, tokens: list[str]
) -> tuple[gameplug.State[Any], str | None, tuple[str, ...]]:
    """The start of a line's opening, its position text (None: the variant's start) and its moves:
    moves from the start when the first word is a move there, else the longest run of first words
    that is a position of the game (a chess FEN has six).  GameError when neither."""
    start = variant.start()
    if not tokens:
        return start, None, ()
    try:
        start.read_notation(tokens[0])
        return start, None, tuple(tokens)
    except GameError as not_a_move:
        move_error = not_a_move
    for words in range(min(MAX_POSITION_WORDS, len(tokens)), 1, -1):
        try:
            return _opening_at(variant, start, tokens, words)
        except GameError:
            continue
    try:
        return _opening_at(variant, start, tokens, 1)
    except GameError as not_a_position:
        raise GameError(f"{move_error}; nor is it a position: {not_a_position}") from None


def _opening_at(
    variant: gameplug.GameVariant, start: gameplug.State[Any], tokens: list[str], words: int
) -> tuple[gameplug.State[Any], str | None, tuple[str, ...]]:
    """The opening of a line whose first ``words`` words are a position (GameError if not)."""
    state = variant.read_position(" ".join(tokens[:words]))
    fen = state.position_text()
    return state, (None if fen == start.position_text() else fen), tuple(tokens[words:])


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


def generate_openings(variant: str, plies: int, count: int, seed: int) -> list[Opening]:
    """``count`` openings of ``plies`` random moves each, distinct where the variant allows
    (:func:`gameplug.random_openings`: the list depends only on the arguments)."""
    try:
        lines = gameplug.random_openings(gameplug.variant(variant), plies, count, seed)
    except GameError as error:
        raise ArbiterError(str(error)) from None
    return [
        Opening(None, line.moves, f"random {plies} plies, seed {seed}, #{index}") for index, line in enumerate(lines, 1)
    ]

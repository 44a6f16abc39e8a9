"""Openings: the positions games start from, read from a file or generated from a seed.

An openings file in this module's own format (``lines``) has one opening per line: moves from
the variant's start (``c1-c3 d8-d6``, in the game's notation: chess's ``e4 e5``), a position in
the game's own text (a FEN), or a position followed by moves.  Blank lines and lines starting
with ``#`` are skipped.  EPD and PGN books (:mod:`arbiter.openings.books`) are read too, by
their suffix or as asked.  Every opening is checked against the game's rules (its plug-in) when
the file is read; a bad one is reported with its line number, and quoted once an earlier line
was an opening (a file that does not start with one may be no openings file at all, whose text
is not shown).  Generated openings are ``plies`` random legal moves from the start drawn from
the game's filter of bad starts (Dipole and Impasse: no move that takes checkers off the
board), from ``random.Random(seed)`` in a fixed order (:func:`gameplug.random_openings`), so a
seed always gives the same openings.

The position becomes the game's start position (PGN ``SetUp``/``FEN``); the moves are played
as the first plies of the game and recorded as book moves.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import gameplug
from gameplug import GameError

from ..errors import ArbiterError
from ..files import read_text
from ..records.game import Opening
from .books import checked_opening, epd_opening, pgn_openings

MAX_POSITION_WORDS = 6  # a position text of the most words a game writes (a chess FEN)


def parse_opening(line: str, variant: str, source: str) -> Opening:
    """One openings-file line; raises ArbiterError naming ``source`` when it does not hold."""
    played = gameplug.variant(variant)
    try:
        state, words = _read_opening(played, line.split())
        start, moves = state.position_text(), []
        for text in words:  # the game's notation, read leniently; kept as the protocol writes it
            move = state.read_notation(text)
            moves.append(state.move_text(move))
            state.play(move)
    except GameError as error:
        raise ArbiterError(f"{source}: {error}") from None
    return checked_opening(played, start, state, tuple(moves), source)


def _read_opening(variant: gameplug.GameVariant, tokens: list[str]) -> tuple[gameplug.State[Any], list[str]]:
    """The start of a line's opening and its moves: moves from the start when the first word is
    a move there, else the longest run of first words that is a position of the game (a chess
    FEN has six).  GameError when neither."""
    start = variant.start()
    if not tokens:
        return start, []
    try:
        start.read_notation(tokens[0])
        return start, tokens
    except GameError as not_a_move:
        move_error = not_a_move
    for words in range(min(MAX_POSITION_WORDS, len(tokens)), 1, -1):
        try:
            return variant.read_position(" ".join(tokens[:words])), tokens[words:]
        except GameError:
            continue
    try:
        return variant.read_position(tokens[0]), tokens[1:]
    except GameError as not_a_position:
        raise GameError(f"{move_error}; nor is it a position: {not_a_position}") from None


MAX_OPENINGS_BYTES = 64 << 20


def book_format(path: str) -> str:
    """The format of the openings file at ``path`` by its name: ``epd`` or ``pgn`` (``.epd``,
    ``.pgn``, either compressed as ``.xz``), else ``lines`` (this module's)."""
    suffix = Path(path.removesuffix(".xz")).suffix.lower()
    return suffix[1:] if suffix in (".epd", ".pgn") else "lines"


def load_openings(path: str, variant: str, form: str | None = None, plies: int | None = None) -> list[Opening]:
    """Every opening of the file at ``path``, in file order: read as ``form`` (``lines``,
    ``epd`` or ``pgn``; None: :func:`book_format`), each with its first ``plies`` book moves
    (None: all of them)."""
    text = read_text(path, "openings file", MAX_OPENINGS_BYTES)
    form = form or book_format(path)
    if form == "pgn":
        openings = pgn_openings(text, path, variant, plies)
    else:
        openings = _line_openings(text, path, variant, form)
        if plies is not None:
            openings = [dataclasses.replace(opening, moves=opening.moves[:plies]) for opening in openings]
    if not openings:
        empty = "no games in it" if form == "pgn" else "no openings in it (only blank or # lines)"
        raise ArbiterError(f"openings file {path}: {empty}")
    return openings


def _line_openings(text: str, path: str, variant: str, form: str) -> list[Opening]:
    """The openings of a file of one a line (``lines`` or ``epd``), blank and ``#`` lines skipped."""
    parse, kind = (epd_opening, "EPD position") if form == "epd" else (parse_opening, "opening")
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            openings.append(parse(stripped, variant, f"{path} line {number}"))
        except ArbiterError:
            if openings:  # an openings file with a bad line: the line is quoted
                raise
            # Not one opening yet: maybe no openings file at all, whose text is not shown.
            shape = "" if form == "epd" else " (a FEN, a FEN then moves, or moves from the start)"
            raise ArbiterError(
                f"openings file {path}: line {number} is no {kind} of {variant}{shape}; is it an openings file?"
            ) from None
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

"""Opening books in the chess world's formats: EPD (a position a line) and PGN (a game each).

As fastchess and cutechess-cli read them (``-openings file=book.epd format=epd plies=8``):

- EPD: a line is a position's first four FEN fields (board, side to move, castling, en passant
  square), then EPD operations (``opcode operands;``: ``id "name";``, ``bm e4;``, ``c0 "...";``);
  ``hmvc`` and ``fmvn`` give the position's half-move clock and move number (else 0 and 1).  A
  line with the FEN's two counters before its operations (a FEN file given as EPD) reads too.
- PGN: each game is an opening, its ``FEN`` (unless ``SetUp`` is ``0``) then its main line, in
  the game's notation read leniently (chess's SAN); comments, variations and NAGs are skipped,
  the result ignored.  ``plies`` takes only the first moves of each game (fastchess's
  ``plies=``); later moves are not read.

Every opening is checked by the game's rules (its plug-in): a position that is not one, an
illegal move, or an opening where the game is already over is refused in one line naming the
file and the line.
"""

from __future__ import annotations

import re
from typing import Any

import gameplug
from gameplug import GameError

from ..errors import ArbiterError
from ..records.game import Opening
from ..records.pgn import read_pgn

EPD_FIELDS = 4  # board, side to move, castling, en passant: a FEN without its two counters
_OPERATION = re.compile(r'\s*([A-Za-z][A-Za-z0-9_]*)((?:\s+(?:"[^"]*"|[^\s;"]+))*)\s*;')
_END = re.compile(r"\s*\Z")
_COUNTERS = {"hmvc": 0, "fmvn": 1}  # the EPD opcodes that give a FEN's counters, by their index


def epd_opening(line: str, variant: str, source: str) -> Opening:
    """One EPD line as an opening (a position, no moves); ArbiterError naming ``source`` when
    it is not an EPD line or not a position of ``variant`` where the game goes on."""
    words = line.split(maxsplit=EPD_FIELDS)
    if len(words) < EPD_FIELDS:
        raise ArbiterError(
            f"{source}: an EPD line starts with a position's four fields "
            "(board, side to move, castling, en passant square)"
        )
    rest = words[EPD_FIELDS] if len(words) > EPD_FIELDS else ""
    counters = ["0", "1"]
    fen_counters = re.match(r"\s*([0-9]+)\s+([0-9]+)(?=\s|$)", rest)
    if fen_counters:
        counters = list(fen_counters.groups())
        rest = rest[fen_counters.end() :]
    position = 0
    while not _END.match(rest, position):
        operation = _OPERATION.match(rest, position)
        if operation is None:
            raise ArbiterError(
                f"{source}: bad EPD operation {rest[position : position + 80].strip()[:40]!r} "
                '(an opcode, its operands, then ";", as id "name";)'
            )
        opcode, operands = operation.group(1), operation.group(2).strip()
        if opcode in _COUNTERS:
            if not operands.isdigit():
                raise ArbiterError(f"{source}: EPD {opcode} takes a whole number, not {operands!r}")
            counters[_COUNTERS[opcode]] = operands
        position = operation.end()
    played = gameplug.variant(variant)
    try:
        state = played.read_position(" ".join(words[:EPD_FIELDS] + counters))
    except GameError as error:
        raise ArbiterError(f"{source}: {error}") from None
    return checked_opening(played, state.position_text(), state, (), source)


def pgn_openings(text: str, path: str, variant: str, plies: int | None) -> list[Opening]:
    """Every game of the PGN book ``text`` (the file at ``path``) as an opening, its first
    ``plies`` moves (None: all); ArbiterError naming the file and line of the first that does
    not hold."""
    played = gameplug.variant(variant)
    openings = []
    for game in read_pgn(text, path):
        source = f"{path} line {game.line}"
        fen = game.tags.get("FEN") if game.tags.get("SetUp", "1") != "0" else None
        try:
            state = played.start() if fen is None else played.read_position(fen)
        except GameError as error:
            raise ArbiterError(f"{source} (game {game.index}, its FEN tag): {error}") from None
        start, moves = state.position_text(), []
        for move in game.moves[:plies]:
            try:
                chosen = state.read_notation(move.text)
            except GameError as error:
                raise ArbiterError(f"{path} line {move.line} (game {game.index}): {error}") from None
            moves.append(state.move_text(chosen))
            state.play(chosen)
        openings.append(checked_opening(played, start, state, tuple(moves), source))
    return openings


def checked_opening(
    played: gameplug.GameVariant, start: str, end: gameplug.State[Any], moves: tuple[str, ...], source: str
) -> Opening:
    """The opening from the position ``start`` (kept as text unless it is the variant's start)
    whose book moves ``moves`` reach ``end``; refused when the game is over there."""
    if end.outcome().over:
        raise ArbiterError(f"{source}: the game is already over in this opening ({end.outcome().reason})")
    return Opening(None if start == played.start().position_text() else start, moves, source)

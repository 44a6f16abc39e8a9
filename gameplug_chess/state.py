"""Chess positions with python-chess's rules: :class:`ChessState`, :func:`chess960_start`, and
the start and FEN reading that :class:`~gameplug_chess.game.ChessGame` hands on.

A :class:`ChessState` wraps one python-chess ``Board`` (its move generation, make/unmake, FEN,
SAN, repetitions and move counters).  What the host sees:

- position text: FEN; in Chess960 X-FEN written, X-FEN or Shredder-FEN read (``chess960=True``);
  a FEN that does not read, or reads as an impossible position, is refused in one line;
- protocol moves: UCI as engines write it in each mode (``e2e4``, ``e7e8q``; castling ``e1g1`` in
  chess, king-takes-rook ``e1h1`` in Chess960), read strictly;
- record moves: SAN, read leniently (SAN in its usual spellings, or UCI);
- the outcome in cutechess-cli's words for the game's own endings ("White mates", "Draw by
  stalemate", "Draw by insufficient mating material", "Draw by fifty moves rule", "Draw by
  3-fold repetition"), applied as cutechess-cli applies them: at once, without a claim;
- the board: 8x8 shaded squares, python-chess's SVG pieces (GPL-3.0) as ``data:`` URIs; the
  chooser asks which piece a pawn promotes to (one click fits four moves).
"""

from __future__ import annotations

import base64
from collections.abc import Hashable, Sequence
from functools import cache

import chess
import chess.svg

from gameplug import ONGOING, BoardPicture, GameError, Marker, MoveChoice, Outcome, Piece, Side, Square, State
from gameplug.game import shown

from .game import CHESS960, STANDARD

_STANDARD_ARRAY = 518  # the Chess960 number of chess's own start position
_SIDES = {chess.WHITE: Side.FIRST, chess.BLACK: Side.SECOND}
_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


class ChessState(State[chess.Move]):
    """A chess position and the moves played since it was started or read: one python-chess
    board, played on in place (``board``: read it, do not push on it)."""

    def __init__(self, board: chess.Board) -> None:
        self.board = board
        self.variant = CHESS960 if board.chess960 else STANDARD
        self._legal: list[chess.Move] | None = None  # this position's, while it stands
        self._outcome: Outcome | None = None

    @property
    def turn(self) -> Side:
        return _SIDES[self.board.turn]

    def position_text(self) -> str:
        return self.board.fen()

    def key(self) -> Hashable:
        board = self.board
        en_passant = board.ep_square if board.has_legal_en_passant() else None
        return (board.board_fen(), board.turn, board.castling_rights, en_passant)

    def outcome(self) -> Outcome:
        if self._outcome is None:
            self._outcome = self._work_out_outcome()
        return self._outcome

    def _work_out_outcome(self) -> Outcome:
        """cutechess-cli's order: mate or stalemate, bare material, fifty moves, repetition."""
        board = self.board
        if not any(board.generate_legal_moves()):
            if board.is_check():
                winner = not board.turn
                return Outcome.win(_SIDES[winner], f"{chess.COLOR_NAMES[winner].capitalize()} mates")
            return Outcome.draw("Draw by stalemate")
        if board.is_insufficient_material():  # (the same positions as cutechess-cli's count)
            return Outcome.draw("Draw by insufficient mating material")
        if board.halfmove_clock >= 100:
            return Outcome.draw("Draw by fifty moves rule")
        if board.is_repetition(3):
            return Outcome.draw("Draw by 3-fold repetition")
        return ONGOING

    def picture(self) -> BoardPicture:
        squares = tuple(
            Square(chess.square_name(at), chess.square_file(at), chess.square_rank(at), _shade(at))
            for at in chess.SQUARES
        )
        pieces = tuple(
            Piece(
                chess.square_name(at),
                _SIDES[piece.color],
                chess.piece_name(piece.piece_type),
                "white" if piece.color else "black",
                image=_image(piece.symbol()),
            )
            for at, piece in sorted(self.board.piece_map().items())
        )
        return BoardPicture(8, 8, tuple(chess.FILE_NAMES), tuple(chess.RANK_NAMES), squares, pieces)

    # -- moves -------------------------------------------------------------------------
    def legal_moves(self) -> Sequence[chess.Move]:
        if self._legal is None:
            self._legal = [] if self.outcome().over else list(self.board.generate_legal_moves())
        return self._legal

    def play(self, move: chess.Move) -> None:
        self.board.push(move)
        self._forget()

    def undo(self) -> chess.Move:
        move = self.board.pop()
        self._forget()
        return move

    def _forget(self) -> None:
        self._legal = None
        self._outcome = None

    @property
    def history(self) -> Sequence[chess.Move]:
        return list(self.board.move_stack)

    def copy(self) -> ChessState:
        return ChessState(self.board.copy())

    def material(self) -> tuple[int, int]:
        """White's and Black's material besides the kings, in pawns (a knight or bishop is 3)."""
        return _material(self.board, chess.WHITE), _material(self.board, chess.BLACK)

    # -- move text ---------------------------------------------------------------------
    def move_text(self, move: chess.Move) -> str:
        return self.board.uci(move)

    def read_move(self, text: str) -> chess.Move:
        """The legal move whose UCI is exactly ``text`` in this mode (``e1g1`` castles in chess,
        ``e1h1`` in Chess960; neither reads in the other mode, nor ``E2E4`` or ``e7e8Q``)."""
        if not isinstance(text, str):
            raise GameError(f"a move must be text, got {shown(text)}")
        legal = self.legal_moves()
        if not legal:
            raise GameError(f"{shown(text)}: the game is over")
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise GameError(f"{shown(text)} is not a UCI move (such as e2e4 or e7e8q)") from None
        if move not in legal or self.board.uci(move) != text:
            raise GameError(f"{shown(text)} is not a legal move here")
        return move

    def notation(self, move: chess.Move) -> str:
        return self.board.san(move)

    def read_notation(self, text: str) -> chess.Move:
        """The legal move ``text`` names in SAN (``Nf3``, ``exd5``, ``O-O``, ``0-0``, ``e8=Q``,
        ``e8Q``...) or UCI, as python-chess's ``parse_san`` and ``parse_uci`` read them."""
        if not isinstance(text, str):
            raise GameError(f"a move must be text, got {shown(text)}")
        legal = self.legal_moves()
        if not legal:
            raise GameError(f"{shown(text)}: the game is over")
        for parse in (self.board.parse_san, self.board.parse_uci):
            try:
                move = parse(text)
            except ValueError:
                continue
            if move in legal:
                return move
        raise GameError(f"{shown(text)} is not a legal move here in SAN or UCI")

    # -- the move chooser ---------------------------------------------------------------
    def describe_move(self, move: chess.Move) -> MoveChoice:
        """Click the piece, then the square it goes to (in Chess960, castling: the rook's);
        a pawn reaching the last rank asks which piece it becomes."""
        text = self.board.uci(move)
        origin, target = text[:2], text[2:4]
        if self.board.is_castling(move):
            kind = "castle"
        elif self.board.is_capture(move):
            kind = "capture"
        else:
            kind = "move"
        if move.promotion is None:
            return MoveChoice(text, origin, Marker(kind, target), self.board.san(move))
        label = chess.piece_name(move.promotion).capitalize()
        return MoveChoice(text, origin, Marker(kind, target), label, "Promote to which piece?")


def _shade(square: chess.Square) -> str:
    return "dark" if (chess.square_file(square) + chess.square_rank(square)) % 2 == 0 else "light"


@cache
def _image(symbol: str) -> str:
    """python-chess's SVG of the piece ``symbol`` (GPL-3.0, as python-chess) as a data: URI."""
    svg = chess.svg.piece(chess.Piece.from_symbol(symbol))
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")


def chess960_start(number: int) -> ChessState:
    """The Chess960 start position ``number`` (0 to 959, Scharnagl's numbering; 518 is chess's)."""
    if not isinstance(number, int) or not 0 <= number <= 959:
        raise GameError(f"a Chess960 start position is numbered 0 to 959, not {shown(str(number))}")
    return ChessState(chess.Board.from_chess960_pos(number))


def _material(board: chess.Board, colour: chess.Color) -> int:
    return sum(value * len(board.pieces(kind, colour)) for kind, value in _VALUES.items())


def start_position(variant: str) -> ChessState:
    """The start position of ``variant`` (chess's own array in Chess960 too)."""
    if variant == CHESS960:
        return chess960_start(_STANDARD_ARRAY)
    return ChessState(chess.Board())


def read_fen(variant: str, text: str) -> ChessState:
    """The position whose FEN is ``text`` in ``variant``; GameError (one line) when it does not
    read or is not a legal position."""
    if not isinstance(text, str):
        raise GameError(f"a {variant} position must be FEN text, got {shown(text)}")
    try:
        board = chess.Board(text, chess960=variant == CHESS960)
    except ValueError as error:
        reason = str(error).split(":")[0]  # (python-chess quotes the whole text after it)
        raise GameError(f"bad {variant} FEN {shown(text)}: {reason}") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        problems = ", ".join((flag.name or "").lower().replace("_", " ") for flag in chess.Status if flag & status)
        raise GameError(f"bad {variant} FEN {shown(text)}: not a legal position ({problems})")
    return ChessState(board)

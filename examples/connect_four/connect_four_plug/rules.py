"""Connect Four behind the gameplug interface: the board, the moves, the position text, the outcome.

Seven columns of six cells; Red (the first player) and Yellow drop discs in turn into a column
that is not full, the disc falling to the lowest empty cell.  Four of one colour in a row
(across, up or diagonally) wins; a full board with no four is a draw.

- A move is a column, written as its letter: ``d`` (protocol text and record notation alike);
  the record reader also takes the column's number (``4``, the solvers' notation), an upper-case
  letter (``D``) and the cell the disc lands on (``d1``).
- The position text lists the rows from the top, ``/`` between them, a digit for a run of empty
  cells, ``r`` and ``y`` for discs, then ``:`` and the side to move: ``7/7/7/7/7/3r3:y``.
"""

from __future__ import annotations

import string
from collections.abc import Hashable, Sequence

from gameplug import (
    ONGOING,
    BoardPicture,
    CheckPosition,
    Game,
    GameError,
    Marker,
    MoveChoice,
    Outcome,
    Piece,
    Side,
    Square,
    State,
    check_position,
    winning_moves,
)

WIDTH, HEIGHT = 7, 6
FILES = string.ascii_lowercase[:WIDTH]
EMPTY = 0  # a cell; the sides' discs are Side.FIRST (+1) and Side.SECOND (-1)
LETTERS = {Side.FIRST: "r", Side.SECOND: "y"}
COLOURS = {Side.FIRST: "red", Side.SECOND: "gold"}
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
BOARD_SHADE = "#1f4fbf"


def cell_name(column: int, row: int) -> str:
    return f"{FILES[column]}{row + 1}"


class ConnectFourState(State[int]):
    """A Connect Four position and the columns played to reach it.  ``cells[column][row]`` is a
    disc's side (row 0 the bottom) or EMPTY; the outcome is worked out once per move, from the
    lines through the disc just dropped."""

    def __init__(self, game: ConnectFour, cells: list[list[int]], turn: Side) -> None:
        self.game = game
        self.variant = game.name
        self.cells = cells
        self.heights = [sum(1 for cell in column if cell != EMPTY) for column in cells]
        self._turn = turn
        self._moves: list[int] = []
        self._outcomes: list[Outcome] = [self._judge_whole_board()]

    @property
    def turn(self) -> Side:
        return self._turn

    def position_text(self) -> str:
        rows = []
        for row in reversed(range(HEIGHT)):
            text, empty = "", 0
            for column in range(WIDTH):
                cell = self.cells[column][row]
                if cell == EMPTY:
                    empty += 1
                    continue
                text += (str(empty) if empty else "") + LETTERS[Side(cell)]
                empty = 0
            rows.append(text + (str(empty) if empty else ""))
        return "/".join(rows) + ":" + LETTERS[self._turn]

    def key(self) -> Hashable:
        return tuple(tuple(column) for column in self.cells)  # the side to move follows from the discs

    def outcome(self) -> Outcome:
        return self._outcomes[-1]

    def picture(self) -> BoardPicture:
        squares = tuple(Square(cell_name(c, r), c, r, BOARD_SHADE) for r in range(HEIGHT) for c in range(WIDTH))
        pieces = tuple(
            Piece(cell_name(c, r), Side(cell), "disc", COLOURS[Side(cell)])
            for r in range(HEIGHT)
            for c in range(WIDTH)
            if (cell := self.cells[c][r]) != EMPTY
        )
        return BoardPicture(WIDTH, HEIGHT, tuple(FILES), tuple(str(r + 1) for r in range(HEIGHT)), squares, pieces)

    def legal_moves(self) -> Sequence[int]:
        if self._outcomes[-1].over:
            return []
        return [column for column in range(WIDTH) if self.heights[column] < HEIGHT]

    def play(self, move: int) -> None:
        row = self.heights[move]
        self.cells[move][row] = self._turn
        self.heights[move] = row + 1
        self._moves.append(move)
        self._outcomes.append(self._judge_move(move, row))
        self._turn = self._turn.other

    def undo(self) -> int:
        move = self._moves.pop()
        self._outcomes.pop()
        self.heights[move] -= 1
        self.cells[move][self.heights[move]] = EMPTY
        self._turn = self._turn.other
        return move

    @property
    def history(self) -> Sequence[int]:
        return list(self._moves)

    def copy(self) -> ConnectFourState:
        copied = ConnectFourState.__new__(ConnectFourState)
        copied.game = self.game
        copied.variant = self.variant
        copied.cells = [list(column) for column in self.cells]
        copied.heights = list(self.heights)
        copied._turn = self._turn
        copied._moves = list(self._moves)
        copied._outcomes = list(self._outcomes)
        return copied

    def move_text(self, move: int) -> str:
        return FILES[move]

    def read_notation(self, text: str) -> int:
        """The move a column letter, an upper-case one, a column number or a landing cell names."""
        if not isinstance(text, str):
            raise GameError(f"a move must be text, got a {type(text).__name__}")
        token = text.strip()
        column = -1
        if len(token) == 1 and token.lower() in FILES:
            column = FILES.index(token.lower())
        elif token.isdigit() and len(token) == 1 and 1 <= int(token) <= WIDTH:
            column = int(token) - 1
        elif len(token) == 2 and token[0] in FILES and token[1].isdigit():
            column = FILES.index(token[0])
            if int(token[1]) != self.heights[column] + 1:
                raise GameError(
                    f"{token!r}: a disc dropped in column {token[0]} lands on {cell_name(column, self.heights[column])}"
                )
        if column < 0:
            raise GameError(
                f"{token[:20]!r} is not a Connect Four move: expected a column a-{FILES[-1]} (or 1-{WIDTH}, or a cell such as d1)"
            )
        return self.read_move(FILES[column])

    def read_move(self, text: str) -> int:
        if not isinstance(text, str) or len(text) != 1 or text not in FILES:
            shown = text[:20] if isinstance(text, str) else type(text).__name__
            raise GameError(f"{shown!r} is not a Connect Four move: expected a column letter a-{FILES[-1]}")
        column = FILES.index(text)
        if self._outcomes[-1].over:
            raise GameError(f"{text!r}: the game is over ({self._outcomes[-1].reason})")
        if self.heights[column] == HEIGHT:
            raise GameError(f"{text!r}: column {text} is full")
        return column

    def describe_move(self, move: int) -> MoveChoice:
        landing = cell_name(move, self.heights[move])
        return MoveChoice(FILES[move], None, Marker("drop", landing), f"drop in column {FILES[move]}")

    # -- the outcome -----------------------------------------------------------------
    def _line_through(self, column: int, row: int) -> tuple[int, int] | None:
        """The direction of a four of the disc on (column, row) through that disc, if any."""
        side = self.cells[column][row]
        for dc, dr in DIRECTIONS:
            run = 1
            for sign in (1, -1):
                c, r = column + sign * dc, row + sign * dr
                while 0 <= c < WIDTH and 0 <= r < HEIGHT and self.cells[c][r] == side:
                    run += 1
                    c, r = c + sign * dc, r + sign * dr
            if run >= 4:
                return dc, dr
        return None

    def _judge_move(self, column: int, row: int) -> Outcome:
        if self._line_through(column, row) is not None:
            return Outcome.win(self._turn, f"{self.game.side_name(self._turn)} connects four")
        if all(height == HEIGHT for height in self.heights):
            return Outcome.draw("the board is full")
        return ONGOING

    def _judge_whole_board(self) -> Outcome:
        """The outcome of a position read from text (no move to look from)."""
        winners = {
            Side(self.cells[c][r])
            for c in range(WIDTH)
            for r in range(HEIGHT)
            if self.cells[c][r] != EMPTY and self._line_through(c, r) is not None
        }
        if len(winners) > 1:
            raise GameError("both sides have four in a row; a game ends at the first four")
        if winners:
            winner = winners.pop()
            return Outcome.win(winner, f"{self.game.side_name(winner)} connects four")
        if all(height == HEIGHT for height in self.heights):
            return Outcome.draw("the board is full")
        return ONGOING


class ConnectFour(Game):
    name = "connect-four"
    title = "Connect Four"
    side_names = ("Red", "Yellow")

    def variant_names(self) -> Sequence[tuple[str, str]]:
        return [(self.name, f"{WIDTH}x{HEIGHT}, four in a row wins, a full board is a draw")]

    def start(self, variant: str) -> ConnectFourState:
        self.variant(variant)
        return ConnectFourState(self, [[EMPTY] * HEIGHT for _ in range(WIDTH)], Side.FIRST)

    def read_position(self, variant: str, text: str) -> ConnectFourState:
        self.variant(variant)
        if not isinstance(text, str):
            raise GameError(f"a position must be text, got a {type(text).__name__}")
        where = f"position {text[:60]!r}"
        board, colon, side = text.strip().partition(":")
        rows = board.split("/")
        if not colon or side not in ("r", "y") or len(rows) != HEIGHT:
            raise GameError(f"{where}: expected {HEIGHT} rows from the top, '/' between them, then ':r' or ':y'")
        cells = [[EMPTY] * HEIGHT for _ in range(WIDTH)]
        for number, row_text in enumerate(rows):
            row = HEIGHT - 1 - number
            column = 0
            for char in row_text:
                if char.isdigit() and char != "0":
                    column += int(char)
                elif char in ("r", "y") and column < WIDTH:
                    cells[column][row] = Side.FIRST if char == "r" else Side.SECOND
                    column += 1
                else:
                    raise GameError(
                        f"{where}: row {number + 1} from the top: {char!r} is not r, y or a count 1-{WIDTH}"
                    )
            if column != WIDTH:
                raise GameError(f"{where}: row {number + 1} from the top has {column} cells, not {WIDTH}")
        for column in range(WIDTH):
            filled = [cell != EMPTY for cell in cells[column]]
            if filled != sorted(filled, reverse=True):
                raise GameError(f"{where}: a disc floats above an empty cell in column {FILES[column]}")
        reds = sum(cell == Side.FIRST for column in cells for cell in column)
        yellows = sum(cell == Side.SECOND for column in cells for cell in column)
        turn = Side.FIRST if side == "r" else Side.SECOND
        if reds - yellows != (0 if turn is Side.FIRST else 1):
            raise GameError(
                f"{where}: {reds} red and {yellows} yellow discs with {self.side_name(turn)} to move; Red moves first"
            )
        return ConnectFourState(self, cells, turn)

    def check_positions(self, variant: str) -> list[CheckPosition]:
        three = "7/7/7/7/yyy4/rrr4:r"  # Red wins at once in column d
        full = "yyrryyr/rryyrry/yyrryyr/rryyrry/yyrryyr/rryyrry:r"
        wins = winning_moves(self.read_position(variant, three))
        return [
            check_position(self, variant, "the start position"),
            check_position(self, variant, "a win in one", three, answers=wins),
            check_position(self, variant, "a finished game", three, wins[:1]),
            check_position(self, variant, "a full board", full),
        ]


GAME = ConnectFour()

"""Dipole: its moves, its four variants, move generation, make/unmake and move text.

The board is a flat list of signed stack heights (White positive, Black negative, 0 empty),
indexed by square.  A stack is always one colour: merges only join own stacks and a capture
removes the whole enemy stack.

All geometry is precomputed per board size in :class:`_DipoleMoveTables`: for each side, square and
stack height ``h``, the on-board targets reachable by moving ``k <= h`` checkers ``k``
squares, split into forward targets (basic, merge or capture) and the rest (capture only),
and the off-board exits.  Every possible move is a pre-built, immutable :class:`DipoleMove`,
so generating moves allocates nothing but the result list.
"""

from __future__ import annotations

import re
from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache
from typing import ClassVar, Final

from .base import Board, Variant, register_variants, variant_by_name
from .common import (
    BLACK,
    WHITE,
    Color,
    IllegalMoveError,
    InvalidMoveError,
    color_name,
)
from .geometry import Geometry, geometry
from .zobrist import BLACK_TO_MOVE, zobrist_table


class MoveKind(IntEnum):
    BASIC = 0  # onto an empty square, forward or diagonally forward
    MERGE = 1  # onto an own stack, forward or diagonally forward
    CAPTURE = 2  # onto an enemy stack no taller than the moved part, any direction
    EXIT = 3  # off the board, forward or diagonally forward
    PASS = 4  # only when no other move exists


_SEPARATOR = {MoveKind.BASIC: "-", MoveKind.MERGE: "+", MoveKind.CAPTURE: "x"}
_KIND_WORD = {MoveKind.BASIC: "a basic move", MoveKind.MERGE: "a merge", MoveKind.CAPTURE: "a capture"}


@dataclass(frozen=True, slots=True)
class DipoleMove:
    """One Dipole move.  ``str(move)`` is its move text (``e1-e3``, ``e1+e5``, ``e1xc3``,
    ``c7-off:3``, ``pass``).

    ``origin``/``target`` are squares (``-1`` where there is none: the target of an exit,
    both for a pass); ``count`` is the number of checkers moved, which is also the distance.
    ``climb`` is what the move adds to its mover's ``rank_sum`` (``count`` times the ranks
    gained; for an exit, minus the ranks of the checkers that leave).
    """

    kind: MoveKind
    origin: int
    target: int
    count: int
    text: str = field(compare=False)
    climb: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"DipoleMove({self.text!r})"


PASS = DipoleMove(MoveKind.PASS, -1, -1, 0, "pass")
_PASS: Final = MoveKind.PASS  # read in push/pop and is_legal, compared by identity (members are singletons)
_BASIC: Final = MoveKind.BASIC
_EXIT: Final = MoveKind.EXIT
_CAPTURE: Final = MoveKind.CAPTURE
_BLACK_ENTRY: Final = 2
"""BLACK's entry of the 3-entry per-colour lists (``material``, ``rank_sum``) as a non-negative
index: the same entry as ``[BLACK]``, that is ``[-1]``."""

_FORWARD = {WHITE: ((0, 1), (1, 1), (-1, 1)), BLACK: ((0, -1), (1, -1), (-1, -1))}
_ALL_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))

ForwardEntry = tuple[int, int, DipoleMove, DipoleMove, DipoleMove]  # target, k, basic, merge, capture
SideView = tuple[list[int], list[int], list[int], list[int]]  # see DipoleBoard.white_view
_MoverState = tuple[
    list[int],
    list[int],
    list[int],
    list[int],
    tuple[tuple[int, ...], ...],
    tuple[tuple[tuple[int, ...], ...], ...],
    int,
    int,
]
BackwardEntry = tuple[int, int, DipoleMove]  # target, k, capture


class _DipoleMoveTables:
    """Move tables for one board size.

    ``forward[color][square][h]`` lists ``(target, k, basic, merge, capture)`` for every
    on-board dark square ``k <= h`` squares away in one of ``color``'s forward directions;
    ``backward[color][square][h]`` lists ``(target, k, capture)`` for the other five
    directions; ``exits[color][square][h]`` holds the exit moves for each ``k <= h`` whose
    ``k``-th square forward or diagonally forward is off the board (one move per ``k``, however
    many directions leave).  Entries are ordered by ``k``.  Orthogonal moves of odd ``k`` land on
    light squares and are absent.  ``capture[origin][target]`` is the capture from ``origin``
    onto ``target`` (either colour: captures go in all 8 directions), or None where the two
    squares are not on one line; its ``count`` is the distance, the least height that can make it.
    ``reach[color][origin][target]`` is ``d`` when ``target`` is ``d`` squares from ``origin`` in
    one of ``color``'s forward directions, ``-d`` in one of the other directions, else 0 (light
    squares and squares on no line); ``openings[color][square][h]`` is the number of exits and
    forward targets of a stack of height ``h`` there: its move count on an empty board, before
    captures backwards and enemy stacks that block.  ``rank[square]`` is the square's rank.
    ``named[text]`` is the move of the tables with that move text (one object a move, shared by
    the tables and both colours: a text names one kind, origin, target and count).
    """

    def __init__(self, geom: Geometry, max_height: int) -> None:
        self.forward: dict[Color, list[list[tuple[ForwardEntry, ...]]]] = {}
        self.backward: dict[Color, list[list[tuple[BackwardEntry, ...]]]] = {}
        self.exits: dict[Color, list[list[tuple[DipoleMove, ...]]]] = {}
        moves: dict[tuple[MoveKind, int, int, int], DipoleMove] = {}

        def move(kind: MoveKind, origin: int, target: int, k: int) -> DipoleMove:
            if kind == MoveKind.EXIT:
                text = f"{geom.name(origin)}-off:{k}"
                climb = -k * geom.rank_of(origin)
            else:
                text = f"{geom.name(origin)}{_SEPARATOR[kind]}{geom.name(target)}"
                climb = k * (geom.rank_of(target) - geom.rank_of(origin))
            return moves.setdefault((kind, origin, target, k), DipoleMove(kind, origin, target, k, text, climb))

        for color in (WHITE, BLACK):
            forward_dirs = _FORWARD[color]
            fwd_table: list[list[tuple[ForwardEntry, ...]]] = [[] for _ in range(geom.size)]
            back_table: list[list[tuple[BackwardEntry, ...]]] = [[] for _ in range(geom.size)]
            exit_table: list[list[tuple[DipoleMove, ...]]] = [[] for _ in range(geom.size)]
            for sq in geom.dark_squares:
                file, rank = geom.file_of(sq), geom.rank_of(sq)
                fwd: list[ForwardEntry] = []
                back: list[BackwardEntry] = []
                exits: list[DipoleMove] = []
                fwd_by_h: list[tuple[ForwardEntry, ...]] = [()]
                back_by_h: list[tuple[BackwardEntry, ...]] = [()]
                exits_by_h: list[tuple[DipoleMove, ...]] = [()]
                for k in range(1, max_height + 1):
                    leaves = False
                    for df, dr in _ALL_DIRECTIONS:
                        tf, tr = file + df * k, rank + dr * k
                        is_forward = (df, dr) in forward_dirs
                        if not geom.on_board(tf, tr):
                            leaves = leaves or is_forward
                            continue
                        target = geom.square(tf, tr)
                        if not geom.is_dark(target):
                            continue
                        if is_forward:
                            fwd.append(
                                (
                                    target,
                                    k,
                                    move(MoveKind.BASIC, sq, target, k),
                                    move(MoveKind.MERGE, sq, target, k),
                                    move(MoveKind.CAPTURE, sq, target, k),
                                )
                            )
                        else:
                            back.append((target, k, move(MoveKind.CAPTURE, sq, target, k)))
                    if leaves:
                        exits.append(move(MoveKind.EXIT, sq, -1, k))
                    fwd_by_h.append(tuple(fwd))
                    back_by_h.append(tuple(back))
                    exits_by_h.append(tuple(exits))
                fwd_table[sq] = fwd_by_h
                back_table[sq] = back_by_h
                exit_table[sq] = exits_by_h
            self.forward[color] = fwd_table
            self.backward[color] = back_table
            self.exits[color] = exit_table
        self.capture: list[list[DipoleMove | None]] = [[None] * geom.size for _ in range(geom.size)]
        for sq in geom.dark_squares:
            for target, _, *_, capture in self.forward[WHITE][sq][max_height] + self.backward[WHITE][sq][max_height]:
                self.capture[sq][target] = capture
        self.reach: dict[Color, list[list[int]]] = {}
        self.openings: dict[Color, list[list[int]]] = {}
        for color in (WHITE, BLACK):
            reach = [[0] * geom.size for _ in range(geom.size)]
            openings = [[0] * (max_height + 1) for _ in range(geom.size)]
            for sq in geom.dark_squares:
                for target, k, *_ in self.forward[color][sq][max_height]:
                    reach[sq][target] = k
                for target, k, _ in self.backward[color][sq][max_height]:
                    reach[sq][target] = -k
                for h in range(1, max_height + 1):
                    openings[sq][h] = len(self.forward[color][sq][h]) + len(self.exits[color][sq][h])
            self.reach[color] = reach
            self.openings[color] = openings
        self.rank = [geom.rank_of(sq) for sq in range(geom.size)]
        self.named = {move.text: move for move in moves.values()}


@cache
def _tables(width: int, height: int, max_height: int) -> _DipoleMoveTables:
    return _DipoleMoveTables(geometry(width, height), max_height)


@cache
def _keys_for(size: int, max_height: int) -> list[tuple[tuple[int, ...], ...]]:
    """The Zobrist table as each side sees the board (see ``DipoleBoard.heights_for``):
    ``_keys_for(...)[color][square][h]`` is the key of the stack that ``color`` sees as ``h``
    there (White's view is the table itself)."""
    zobrist = zobrist_table(size, max_height)
    flipped = tuple(tuple(keys[-h] for h in range(len(keys))) for keys in zobrist)
    return [(), zobrist, flipped]


@cache
def _leaving_keys_for(width: int, height: int, max_height: int) -> list[tuple[tuple[tuple[int, ...], ...], ...]]:
    """What a move's origin changes in the key, the turn's change included:
    ``_leaving_keys_for(...)[color][square][old][new]`` (``new < old``: a move leaves fewer
    checkers behind) is the XOR of the keys of ``color``'s stacks of ``old`` and ``new``
    checkers there and ``BLACK_TO_MOVE`` (one XOR in push where there were three: each XOR of
    60-bit keys allocates in the pure build).  Empty for light squares."""
    geom = geometry(width, height)
    dark = set(geom.dark_squares)
    _, white, black = _keys_for(geom.size, max_height)
    heights = range(max_height + 1)
    tables: list[tuple[tuple[tuple[int, ...], ...], ...]] = [()]
    for keys in (white, black):
        tables.append(
            tuple(
                tuple(tuple(keys[sq][old] ^ keys[sq][new] ^ BLACK_TO_MOVE for new in range(old)) for old in heights)
                if sq in dark
                else ()
                for sq in range(geom.size)
            )
        )
    return tables


_EXIT_TEXT = re.compile(r"([a-z][0-9]+)-off(?::([0-9]+))?")
_STEP_TEXT = re.compile(r"([a-z][0-9]+)([-+x]?)([a-z][0-9]+)")


class DipoleBoard(Board[DipoleMove]):
    """A Dipole position with its move history.  Undo records are
    ``(move, height of the stack it captured or 0, key before the move)``.

    Besides the shared state (:class:`Board`), ``rank_sum[color]`` is the sum of the ranks
    (counted from 0 at White's edge) of that side's checkers, indexed like ``material``: with
    it, how far each side's checkers still have to go is known without scanning the board.
    ``heights_for[color]`` is the board as ``color`` sees it: its own stacks' heights
    positive, the enemy's negative, 0 for an empty square (``heights_for[WHITE]`` is ``cells``
    itself); move generation and evaluation read the mover's view, so that nothing in the hot
    paths multiplies by the side's sign (a negative operand takes the compiled build's slow,
    allocating path for ``*``).  Read-only, like ``cells``.

    ``white_view`` and ``black_view`` are what the side to move reads at every node, in one
    tuple to unpack (a few tuples cost less than indexing by colour, whose -1 misses the
    interpreter's fast path): ``(heights_for[color], heights_for[-color], occupied[color],
    occupied[-color])`` for White and for Black, the same lists, read-only.
    """

    game: ClassVar[str] = "dipole"
    empty_side_wins: ClassVar[bool] = False
    white_view: SideView
    black_view: SideView
    _white_side: _MoverState
    _black_side: _MoverState

    def __init__(self, variant: Variant | str = "dipole", fen: str | None = None) -> None:
        known = variant_by_name(variant) if isinstance(variant, str) else variant
        self._tables = _tables(known.width, known.height, known.checkers_per_side)
        self._rank = self._tables.rank
        self.rank_sum: list[int] = [0, 0, 0]
        self.heights_for: list[list[int]] = [[], [], []]
        self._keys_for = _keys_for(known.width * known.height, known.checkers_per_side)  # (set_fen reads them)
        self._leaving_keys_for = _leaving_keys_for(known.width, known.height, known.checkers_per_side)
        super().__init__(variant, fen)

    def set_fen(self, fen: str) -> None:
        super().set_fen(fen)
        rank = self._rank
        cells = self.cells
        self.rank_sum = [0, 0, 0]
        for color in (WHITE, BLACK):
            self.rank_sum[color] = sum(cells[sq] * color * rank[sq] for sq in self.occupied[color])
        self.heights_for = [[], cells, [-height for height in cells]]
        white, black = self.heights_for[WHITE], self.heights_for[BLACK]
        self.white_view = (white, black, self.occupied[WHITE], self.occupied[BLACK])
        self.black_view = (black, white, self.occupied[BLACK], self.occupied[WHITE])
        # What push and pop change for each mover: its view, its keys and its origins' key
        # changes, and the entries of the running totals (material, rank_sum) of itself and of
        # the enemy as non-negative indexes.
        _, white_keys, black_keys = self._keys_for
        _, white_leaving, black_leaving = self._leaving_keys_for
        self._white_side = (*self.white_view, white_keys, white_leaving, WHITE, _BLACK_ENTRY)
        self._black_side = (*self.black_view, black_keys, black_leaving, _BLACK_ENTRY, WHITE)

    # -- move generation -------------------------------------------------------------
    def legal_moves(self) -> list[DipoleMove]:
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return []
        return self._moves(True) or [PASS]

    def _moves(self, captures: bool) -> list[DipoleMove]:
        """The legal moves but the pass, stack by stack (exits, then forward targets, then
        captures backwards); without the captures when ``captures`` is false."""
        sign = self.turn
        mine, _, ours, _ = self.white_view if sign > 0 else self.black_view
        forward = self._tables.forward[sign]
        backward = self._tables.backward[sign]
        exits = self._tables.exits[sign]
        moves: list[DipoleMove] = []
        append = moves.append
        for sq in ours:
            h = mine[sq]
            moves.extend(exits[sq][h])
            for target, k, basic, merge, capture in forward[sq][h]:
                v = mine[target]  # >0 own, <0 enemy
                if v == 0:
                    append(basic)
                elif v > 0:
                    append(merge)
                elif v >= -k and captures:
                    append(capture)
            if captures:
                for target, k, capture in backward[sq][h]:
                    v = mine[target]
                    if v < 0 and v >= -k:
                        append(capture)
        return moves

    @property
    def capture_table(self) -> list[list[DipoleMove | None]]:
        """``capture_table[origin][target]``: the capture from ``origin`` onto ``target`` when
        the two squares are on one line, else None, whatever stands on them (geometry only; its
        ``count`` is the distance).  Shared and read-only."""
        return self._tables.capture

    def capture_moves(self) -> list[DipoleMove]:
        """The legal captures (the same objects ``legal_moves`` returns), by origin then target
        square; empty when the game is over.  Quicker than filtering ``legal_moves``: it only
        pairs the mover's stacks with the enemy's, which is what a quiescence search needs."""
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return []
        mine, yours, ours, theirs = self.white_view if self.turn > 0 else self.black_view
        capture = self._tables.capture
        moves: list[DipoleMove] = []
        for origin in ours:
            height = mine[origin]
            row = capture[origin]
            for target in theirs:
                move = row[target]
                if move is not None and move.count <= height and yours[target] <= move.count:
                    moves.append(move)
        return moves

    def quiet_moves(self) -> list[DipoleMove]:
        """The legal moves that capture nothing (exits, basic moves, merges), in ``legal_moves``
        order; never the pass.  With :meth:`capture_moves` they are every legal move but the
        pass, so a search can generate captures first and the quiet moves only when it needs
        them."""
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return []
        return self._moves(False)

    def must_pass(self) -> bool:
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return False
        # _moves' conditions, stopping at the first move they find (mostly on the first stack).
        sign = self.turn
        mine, _, ours, _ = self.white_view if sign > 0 else self.black_view
        forward = self._tables.forward[sign]
        backward = self._tables.backward[sign]
        exits = self._tables.exits[sign]
        for sq in ours:
            h = mine[sq]
            if exits[sq][h]:
                return False
            for target, k, _, _, _ in forward[sq][h]:
                if mine[target] >= -k:  # empty (a basic move), own (a merge), or a capture
                    return False
            for target, k, _ in backward[sq][h]:
                if -k <= mine[target] < 0:
                    return False
        return True

    def _move_named(self, token: str) -> DipoleMove | None:
        return self._tables.named.get(token)

    def is_legal(self, move: DipoleMove) -> bool:
        """Whether ``move`` is legal here, worked out from its own squares (a pass alone needs
        the other moves counted)."""
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return False
        kind = move.kind
        if kind is _PASS:
            return move == PASS and self.legal_moves() == [PASS]
        sign = self.turn
        mine = (self.white_view if sign > 0 else self.black_view)[0]
        origin, target, k = move.origin, move.target, move.count
        if not 0 <= origin < len(mine) or mine[origin] < k or k < 1:
            return False
        if kind is _EXIT:
            return target == -1 and move in self._tables.exits[sign][origin][k]
        if not 0 <= target < len(mine):
            return False
        reach = self._tables.reach[sign][origin][target]  # d forward, -d the other ways, 0 off a line
        v = mine[target]  # >0 own, <0 enemy
        if kind is _CAPTURE:
            return (reach == k or reach == -k) and -k <= v < 0
        return reach == k and (v == 0 if kind is _BASIC else v > 0)

    def takes_checkers_off(self, move: DipoleMove) -> bool:
        """Captures and exits do."""
        return move.kind == MoveKind.CAPTURE or move.kind == MoveKind.EXIT

    def count_legal_moves(self) -> int:
        """Counted from the stacks alone: each stack has its exits and forward targets, less
        the forward targets held by an enemy stack too tall to capture, plus its captures in
        the other directions; only pairs of an own and an enemy stack are looked at."""
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return 0
        sign = self.turn
        mine = self.heights_for[sign]
        tables = self._tables
        reach = tables.reach[sign]
        openings = tables.openings[sign]
        theirs = self.occupied[-sign]
        count = 0
        for sq in self.occupied[sign]:
            h = mine[sq]
            count += openings[sq][h]
            row = reach[sq]
            for target in theirs:
                d = row[target]
                if d > 0:
                    if d <= h and mine[target] < -d:  # blocked by a taller enemy
                        count -= 1
                elif d and -d <= h and mine[target] >= d:  # a capture backwards
                    count += 1
        return count or 1  # no move at all means the forced pass

    # -- make / unmake ---------------------------------------------------------------
    def push(self, move: DipoleMove) -> None:
        sign = self.turn
        key = self.key
        self.turn = -sign
        kind = move.kind
        if kind is _PASS:
            self._history.append((move, 0, key))
            self.key = key ^ BLACK_TO_MOVE
            return
        # flipped: kept the negative of mine, square by square (see set_fen for the rest).
        mine, flipped, own, foes, keys, leaving, me, you = self._white_side if sign > 0 else self._black_side
        origin = move.origin
        k = move.count
        old = mine[origin]
        new = old - k
        mine[origin] = new
        flipped[origin] = -new
        new_key = key ^ leaving[origin][old][new]
        if new == 0:
            own.remove(origin)
        self.rank_sum[me] += move.climb
        if kind is _EXIT:
            self.material[me] -= k
            self._history.append((move, 0, key))
        else:
            target = move.target
            square_keys = keys[target]
            old = mine[target]  # >0 own, <0 enemy
            if old < 0:  # a capture: the enemy stack goes, ours of k checkers takes its square
                self.material[you] += old
                self.rank_sum[you] += old * self._rank[target]
                foes.remove(target)
                insort(own, target)
                new = k
                new_key ^= square_keys[old] ^ square_keys[new]
                self._history.append((move, -old, key))
            else:
                new = old + k
                if old == 0:  # the key of an empty square is 0: no XOR with it (each allocates)
                    insort(own, target)
                    new_key ^= square_keys[new]
                else:
                    new_key ^= square_keys[old] ^ square_keys[new]
                self._history.append((move, 0, key))
            mine[target] = new
            flipped[target] = -new
        self.key = new_key

    def pop(self) -> DipoleMove:
        move: DipoleMove
        captured: int
        key: int
        move, captured, key = self._history.pop()
        sign = -self.turn  # the side that made the move
        self.turn = sign
        self.key = key
        kind = move.kind
        if kind is _PASS:
            return move
        mine, flipped, own, foes, _, _, me, you = self._white_side if sign > 0 else self._black_side
        origin = move.origin
        k = move.count
        old = mine[origin]
        if old == 0:
            insort(own, origin)
        mine[origin] = old + k
        flipped[origin] = -old - k
        self.rank_sum[me] -= move.climb
        if kind is _EXIT:
            self.material[me] += k
        elif kind is _CAPTURE:
            target = move.target
            mine[target] = -captured
            flipped[target] = captured
            self.material[you] += captured
            self.rank_sum[you] += captured * self._rank[target]
            own.remove(target)
            insort(foes, target)
        else:
            target = move.target
            new = mine[target] - k
            mine[target] = new
            flipped[target] = -new
            if new == 0:
                own.remove(target)
        return move

    # -- move text -------------------------------------------------------------------
    def _parse_other_text(self, token: str, legal: Sequence[DipoleMove]) -> DipoleMove:
        if token == "pass":
            if len(legal) == 1 and legal[0] == PASS:
                return PASS
            raise IllegalMoveError(f"'pass': {color_name(self.turn)} has a legal move, so may not pass")
        exit_match = _EXIT_TEXT.fullmatch(token)
        step_match = None if exit_match else _STEP_TEXT.fullmatch(token)
        if exit_match is None and step_match is None:
            raise InvalidMoveError(
                f"{token!r} is not a Dipole move: expected e1-e3, e1+e5, e1xc3, c7-off:3, c7-off or pass"
            )
        origin_name = (exit_match or step_match).group(1)  # type: ignore[union-attr]
        origin = self._move_square(token, origin_name)
        height = self.cells[origin] * self.turn
        if height <= 0:
            raise IllegalMoveError(f"{token!r}: {color_name(self.turn)} has no stack on {origin_name}")
        if exit_match is not None:
            count = height if exit_match.group(2) is None else int(exit_match.group(2))
            for move in legal:
                if move.kind == MoveKind.EXIT and move.origin == origin and move.count == count:
                    return move
            raise IllegalMoveError(f"{token!r}: {self._why_no_exit(origin_name, height, count)}")
        assert step_match is not None
        separator, target_name = step_match.group(2), step_match.group(3)
        target = self._move_square(token, target_name)
        for move in legal:
            if move.origin == origin and move.target == target:
                if separator and separator != _SEPARATOR[move.kind]:
                    raise InvalidMoveError(
                        f"{token!r}: this is {_KIND_WORD[move.kind]}; write {move.text} (or {origin_name}{target_name})"
                    )
                return move
        raise IllegalMoveError(f"{token!r}: {self._why_illegal(origin, target, height)}")

    def _why_no_exit(self, origin_name: str, height: int, count: int) -> str:
        if not 1 <= count <= height:
            return f"the stack on {origin_name} has {height} checkers; cannot move {count} off"
        return f"{count} checkers moved {count} squares from {origin_name} stay on the board"

    def _why_illegal(self, origin: int, target: int, height: int) -> str:
        geom, sign = self.geometry, self.turn
        df = geom.file_of(target) - geom.file_of(origin)
        dr = geom.rank_of(target) - geom.rank_of(origin)
        o, t = geom.name(origin), geom.name(target)
        if df == 0 and dr == 0:
            return "a move must leave its square"
        if df != 0 and dr != 0 and abs(df) != abs(dr):
            return f"{o} and {t} are not on one straight line"
        distance = max(abs(df), abs(dr))
        if distance > height:
            return f"moving {distance} squares needs {distance} checkers; the stack on {o} has {height}"
        occupant = self.cells[target] * sign
        if occupant < 0:
            return f"the enemy stack on {t} has {-occupant} checkers, more than the {distance} moved"
        return f"moves onto an empty square or an own stack go forward or diagonally forward only ({o} to {t} does not)"


DIPOLE_VARIANTS: tuple[Variant, ...] = (
    Variant(
        "dipole",
        "dipole",
        8,
        8,
        12,
        "W:W12c1:B12d8",
        "8x8, 12 a side, the designer's original setup (c1, d8)",
        DipoleBoard,
    ),
    Variant(
        "dipole-s",
        "dipole",
        8,
        8,
        12,
        "W:W12e1:B12d8",
        "8x8, 12 a side, the symmetric setup of 2007 (e1, d8)",
        DipoleBoard,
    ),
    Variant("dipole-10", "dipole", 10, 10, 20, "W:W20g1:B20f10", "10x10, 20 a side (g1, f10)", DipoleBoard),
    Variant("dipole-10s", "dipole", 10, 10, 20, "W:W20e1:B20f10", "10x10, 20 a side, symmetric (e1, f10)", DipoleBoard),
)
register_variants(DIPOLE_VARIANTS)

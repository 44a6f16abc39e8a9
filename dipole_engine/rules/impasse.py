"""Impasse: its moves, its two variants, move generation, make/unmake and move text.

Stacks are singles (height 1) or doubles (height 2).  A move is a whole turn: the slide,
transpose or impasse removal, then any bear-off, then any crown, so each move carries the
complete list of square changes it makes (``changes``) and push/pop just apply or undo them.

Invariants of every reachable position (the FEN reader enforces them, and the generator relies
on them):

* no side has a double on its own nearest row (it would have been borne off);
* a side with a single on its furthest row has no other single (it would have been crowned),
  so after any move a side has at most two singles on its furthest row, and when it has two it
  has no other single.
"""

from __future__ import annotations

import re
from bisect import insort
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache
from typing import ClassVar, Final

from .base import Board, Variant, register_variants, variant_by_name
from .common import (
    BLACK,
    WHITE,
    Color,
    FenError,
    IllegalMoveError,
    InvalidMoveError,
    color_name,
)
from .geometry import Geometry, geometry
from .zobrist import BLACK_TO_MOVE, zobrist_table


class ImpasseMoveKind(IntEnum):
    SLIDE = 0  # a single diagonally forward, or a double diagonally backward, over empty squares
    TRANSPOSE = 1  # a double hands its top checker to an own single diagonally behind it
    REMOVE = 2  # the impasse rule: no slide or transpose exists, so one checker leaves


Change = tuple[int, int, int]  # (square, signed height before, signed height after)


@dataclass(frozen=True, slots=True)
class ImpasseMove:
    """One Impasse turn.  ``str(move)`` is its move text: ``c1-a3`` (slide), ``f6+e5``
    (transpose from the double on f6 onto the single on e5), ``xb6`` (impasse removal), each
    with ``=<square>`` added when a single crowns (the square the crowning single came from).

    ``origin`` is the moving stack (the double, for a transpose; the stack losing a checker, for
    a removal); ``target`` is where it goes (``-1`` for a removal); ``crown`` is the square of
    the single that crowns, or ``-1``.  ``side`` is the mover's entry in the board's 3-entry
    lists (``material``, ``sides``): 1 for White, 2 for Black (the -1 of its colour counted
    from the front: hot code takes no negative index).  ``changes``, ``removed``, ``advance``,
    ``double_flips`` and ``rekey`` describe the whole turn's effect in the position it was
    generated for (see :class:`ImpasseBoard`): ``advance`` is what it adds to its side's entry
    of ``sides``, ``double_flips`` the occupancy mask of the squares where a double appears or
    goes, ``rekey`` what it XORs into the Zobrist key (the turn's change included).  ``path``
    is, for the plain moves of the tables (no crown: see ``_ImpasseMoveTables``), the occupancy mask of the
    squares a slide passes over (0 for a transpose); -1 for the others, whose legality needs the
    position.
    """

    kind: ImpasseMoveKind
    origin: int
    target: int
    crown: int
    text: str = field(compare=False)
    changes: tuple[Change, ...] = field(compare=False, repr=False)
    removed: int = field(compare=False, repr=False)  # checkers the mover takes off the board
    side: int = field(compare=False, repr=False)
    advance: int = field(compare=False, repr=False)
    double_flips: int = field(compare=False, repr=False)
    rekey: int = field(compare=False, repr=False)
    path: int = field(compare=False, repr=False)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"ImpasseMove({self.text!r})"


SlideEntry = tuple[int, "ImpasseMove | None"]  # (target square, the plain slide there or None)

_REMOVE: Final = ImpasseMoveKind.REMOVE  # read in is_legal, compared by identity (members are singletons)
_SEPARATOR = {ImpasseMoveKind.SLIDE: "-", ImpasseMoveKind.TRANSPOSE: "+"}
_MOVE_TEXT = re.compile(r"(?:([a-z][0-9]+)([-+])([a-z][0-9]+)|x([a-z][0-9]+))(?:=([a-z][0-9]+))?")


def occupancy_mask(square_bit: Sequence[int], squares: Iterable[int]) -> int:
    """The occupancy mask (see :class:`ImpasseBoard`) of ``squares``, given each square's bit."""
    bits = 0
    for square in squares:
        bits |= square_bit[square]
    return bits


class _ImpasseMoveTables:
    """Diagonal geometry for one board size, per side.

    ``single_rays[color][sq]`` and ``double_rays[color][sq]`` list, per diagonal direction the
    stack may slide in (forward for a single, backward for a double), ``(target, plain)`` for
    the squares along it, nearest first.  ``plain`` is the finished slide to ``target`` when it
    needs no crown, provided no single of ``color`` waits on its furthest row: any slide of a
    double (reaching its nearest row, it bears off its top checker), a single's slide short of
    the furthest row; it is None where the slide must be finished against the position (a
    single reaching the furthest row).  ``transpose_to[color][sq]`` lists ``(target, plain)``
    for the squares diagonally adjacent to ``sq`` one row nearer to ``color`` (where a double
    on ``sq`` finds the single it transposes onto), ``plain`` being the finished transpose
    under the same proviso, or None when ``sq`` is on the furthest row (the single left there
    waits for a crown).
    ``near_rank``/``far_rank`` are each side's nearest and furthest ranks; ``far_row`` its dark
    squares on the furthest rank, ``far_row_mask[side]`` their occupancy mask by side index (see
    ``ImpasseMove.side``).  ``square_bit[sq]`` is the bit of the dark square ``sq`` in an
    occupancy mask (see :class:`ImpasseBoard`), 0 for a light one; ``up_shifts`` how far a
    diagonal step up-left and up-right moves a bit (a step down-right and down-left moves it
    back as far); ``rows_shift`` the first bit above every square's.

    For finding bear-offs without generating every move: ``bear_slides[color][sq]`` lists, per
    diagonal from a double on ``sq`` that ends on its nearest row, ``(path, plain)``: the
    occupancy mask of the squares up to and including the one on that row (all must be empty)
    and the plain bear-off there; ``bear_transposes[color][sq]`` the entries of
    ``transpose_to`` on that row (all plain: the double is not on its furthest row).
    ``step_mask[color][sq]`` is ``(double's, single's)`` occupancy mask of the squares a stack
    on ``sq`` may step to: it can slide iff one of them is empty.

    ``moves`` holds every move built so far, keyed by its whole effect, so that the same move
    in the same position is always the same object (as in Dipole: the search recognises its
    table, killer and history moves by identity).
    """

    def __init__(self, geom: Geometry) -> None:
        self.geometry = geom

        def ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
            file, rank = geom.file_of(sq) + df, geom.rank_of(sq) + dr
            squares = []
            while geom.on_board(file, rank):
                squares.append(geom.square(file, rank))
                file, rank = file + df, rank + dr
            return tuple(squares)

        self.single_rays: dict[Color, list[tuple[tuple[SlideEntry, ...], ...]]] = {}
        self.double_rays: dict[Color, list[tuple[tuple[SlideEntry, ...], ...]]] = {}
        self.transpose_to: dict[Color, list[tuple[SlideEntry, ...]]] = {}
        self.near_rank = {WHITE: 0, BLACK: geom.height - 1}
        self.far_rank = {WHITE: geom.height - 1, BLACK: 0}
        self.far_row: dict[Color, tuple[int, ...]] = {}
        self.zobrist = zobrist_table(geom.size, 2)
        stride = geom.width + 1 + geom.width % 2  # the smallest odd number above the width
        self.square_bit = [0] * geom.size
        for sq in geom.dark_squares:
            self.square_bit[sq] = 1 << ((stride * geom.rank_of(sq) + geom.file_of(sq)) // 2)
        self.up_shifts = ((stride - 1) // 2, (stride + 1) // 2)
        self.rows_shift = max(self.square_bit).bit_length()
        self.bear_slides: dict[Color, list[tuple[tuple[int, ImpasseMove], ...]]] = {}
        self.bear_transposes: dict[Color, list[tuple[tuple[int, ImpasseMove], ...]]] = {}
        self.step_mask: dict[Color, list[tuple[int, int]]] = {}
        self.moves: dict[tuple[ImpasseMoveKind, int, int, int, tuple[Change, ...]], ImpasseMove] = {}

        def slides(color: Color, sq: int, height: int, stop_rank: int) -> tuple[tuple[SlideEntry, ...], ...]:
            direction = color if height == 1 else -color
            rays = []
            for squares in (ray(sq, -1, direction), ray(sq, 1, direction)):
                entries = []
                passed = 0  # the squares before ``target``
                for target in squares:
                    plain = None
                    if geom.rank_of(target) != stop_rank:
                        plain = self.plain(
                            ImpasseMoveKind.SLIDE,
                            sq,
                            target,
                            ((sq, height * color, 0), (target, 0, height * color)),
                            passed,
                        )
                    elif height == 2:  # a bear-off: the double leaves a single on its nearest row
                        plain = self.plain(
                            ImpasseMoveKind.SLIDE, sq, target, ((sq, 2 * color, 0), (target, 0, color)), passed
                        )
                    entries.append((target, plain))
                    passed |= self.square_bit[target]
                if entries:
                    rays.append(tuple(entries))
            return tuple(rays)

        def transposes(color: Color, sq: int, targets: tuple[int, ...]) -> tuple[SlideEntry, ...]:
            if geom.rank_of(sq) == self.far_rank[color]:  # the single left behind waits for a crown
                return tuple((target, None) for target in targets)
            entries = []
            for target in targets:
                landed = color if geom.rank_of(target) == self.near_rank[color] else 2 * color  # bear-off or not
                entries.append(
                    (
                        target,
                        self.plain(
                            ImpasseMoveKind.TRANSPOSE, sq, target, ((sq, 2 * color, color), (target, color, landed)), 0
                        ),
                    )
                )
            return tuple(entries)

        def bear_slides(color: Color, rays: tuple[tuple[SlideEntry, ...], ...]) -> tuple[tuple[int, ImpasseMove], ...]:
            entries = []
            for ray in rays:
                target, plain = ray[-1]
                if geom.rank_of(target) == self.near_rank[color] and plain is not None:  # (a bear-off is)
                    entries.append((occupancy_mask(self.square_bit, (square for square, _ in ray)), plain))
            return tuple(entries)

        def bear_transposes(color: Color, entries: tuple[SlideEntry, ...]) -> tuple[tuple[int, ImpasseMove], ...]:
            found = []
            for target, plain in entries:
                if geom.rank_of(target) == self.near_rank[color]:
                    if plain is None:  # the double would stand on both its nearest and furthest rows
                        raise ValueError("an Impasse board needs at least three ranks")
                    found.append((target, plain))
            return tuple(found)

        for color in (WHITE, BLACK):
            size = geom.size
            singles: list[tuple[tuple[SlideEntry, ...], ...]] = [()] * size
            doubles: list[tuple[tuple[SlideEntry, ...], ...]] = [()] * size
            transpose_to: list[tuple[SlideEntry, ...]] = [()] * size
            for sq in geom.dark_squares:
                singles[sq] = slides(color, sq, 1, self.far_rank[color])
                doubles[sq] = slides(color, sq, 2, self.near_rank[color])
                transpose_to[sq] = transposes(color, sq, tuple(r[0][0] for r in doubles[sq]))
            self.single_rays[color] = singles
            self.double_rays[color] = doubles
            self.transpose_to[color] = transpose_to
            self.bear_slides[color] = [bear_slides(color, doubles[sq]) for sq in range(size)]
            self.bear_transposes[color] = [bear_transposes(color, transpose_to[sq]) for sq in range(size)]
            # [sq][0] for a double, [sq][1] for a single: squares it may step to (if empty)
            self.step_mask[color] = [
                (
                    occupancy_mask(self.square_bit, (ray[0][0] for ray in doubles[sq])),
                    occupancy_mask(self.square_bit, (ray[0][0] for ray in singles[sq])),
                )
                for sq in range(size)
            ]
            self.far_row[color] = tuple(sq for sq in geom.dark_squares if geom.rank_of(sq) == self.far_rank[color])
        self.far_row_mask = (
            0,
            occupancy_mask(self.square_bit, self.far_row[WHITE]),
            occupancy_mask(self.square_bit, self.far_row[BLACK]),
        )

    def side_entry(self, square: int, height: int) -> int:
        """What a stack of signed ``height`` on ``square`` adds to its side's entry of an
        :class:`ImpasseBoard`'s ``sides``: its bit and its rows to go (0 for no stack)."""
        if height == 0:
            return 0
        color = WHITE if height > 0 else BLACK
        goal = self.far_rank[color] if height == color else self.near_rank[color]
        return self.square_bit[square] | abs(goal - self.geometry.rank_of(square)) << self.rows_shift

    def plain(
        self, kind: ImpasseMoveKind, origin: int, target: int, changes: tuple[Change, ...], path: int
    ) -> ImpasseMove:
        """The move of ``kind`` from ``origin`` to ``target`` over the squares of ``path`` making
        ``changes`` with no crown, built once (the same object ``ImpasseBoard._make`` finds for
        it, the tables being built first)."""
        separator = _SEPARATOR[kind]
        text = f"{self.geometry.name(origin)}{separator}{self.geometry.name(target)}"
        return self.moves.setdefault(
            (kind, origin, target, -1, changes), _new_move(self, kind, origin, target, -1, text, changes, path)
        )


def _new_move(
    tables: _ImpasseMoveTables,
    kind: ImpasseMoveKind,
    origin: int,
    target: int,
    crown: int,
    text: str,
    changes: tuple[Change, ...],
    path: int,
) -> ImpasseMove:
    """The move making ``changes``, with the effects ``push`` and ``pop`` apply worked out."""
    removed = advance = double_flips = 0
    rekey = BLACK_TO_MOVE
    side = 1 if any(before > 0 or after > 0 for _, before, after in changes) else 2  # (only the mover's stacks)
    for square, before, after in changes:
        removed += abs(before) - abs(after)
        advance += tables.side_entry(square, after) - tables.side_entry(square, before)
        if (abs(before) == 2) != (abs(after) == 2):
            double_flips |= tables.square_bit[square]
        rekey ^= tables.zobrist[square][before] ^ tables.zobrist[square][after]
    return ImpasseMove(kind, origin, target, crown, text, changes, removed, side, advance, double_flips, rekey, path)


@cache
def _tables(width: int, height: int) -> _ImpasseMoveTables:
    return _ImpasseMoveTables(geometry(width, height))


class ImpasseBoard(Board[ImpasseMove]):
    """An Impasse position with its move history.  Undo records are ``(move, key before)``.

    Besides the state every board keeps (and like it, kept by ``push``/``pop`` and read-only):

    * ``sides[color]`` (a 3-entry list like ``material``) is the occupancy mask of ``color``'s
      stacks, with the bit ``square_bit[square]`` set for each square that holds one, plus,
      from bit ``rows_shift`` up, the rows they have still to travel to their goal rows (the
      furthest for a single, the nearest for a double: a race count, like a backgammon pip
      count): one number, so that a move updates both at once.  ``occupancy`` is the mask of
      both sides' stacks: whether a whole diagonal is empty is one AND with a mask (the rules'
      masks may be ANDed with ``sides`` entries directly: they have no bits that high);
    * ``doubles`` has the bits of the doubles of both sides.

    Only dark squares have bits: the one on ``(file, rank)`` has bit ``(stride * rank + file) //
    2``, ``stride`` being the smallest odd number above the width (9 on an 8x8 board: 36 bits,
    a machine word in the compiled build, where a 64-bit mask would be a Python long).  A
    diagonal step then moves a bit by the same amount from every square (``up_shifts``: up-left
    and up-right; down-right and down-left move it back as far), and a step off the left or
    right edge lands on a bit that no square has, so that a step of every stack at once is one
    shift and one mask.
    """

    sides: list[int]
    doubles: int

    game: ClassVar[str] = "impasse"
    empty_side_wins: ClassVar[bool] = True  # only the mover's own checkers ever leave

    def __init__(self, variant: Variant | str = "impasse", fen: str | None = None) -> None:
        known = variant_by_name(variant) if isinstance(variant, str) else variant
        self._tables = _tables(known.width, known.height)
        self.square_bit = self._tables.square_bit
        self.up_shifts = self._tables.up_shifts
        self.rows_shift = self._tables.rows_shift
        super().__init__(variant, fen)

    def max_stack_height(self) -> int:
        return 2

    def set_fen(self, fen: str) -> None:
        super().set_fen(fen)
        cells = self.cells
        stacks = (*self.occupied[WHITE], *self.occupied[BLACK])
        entry = self._tables.side_entry
        self.sides = [
            0,
            sum(entry(sq, cells[sq]) for sq in self.occupied[WHITE]),
            sum(entry(sq, cells[sq]) for sq in self.occupied[BLACK]),
        ]
        self.doubles = occupancy_mask(self.square_bit, (sq for sq in stacks if abs(cells[sq]) == 2))

    @property
    def occupancy(self) -> int:
        """The occupancy mask of every stack (see the class docstring)."""
        _, white, black = self.sides
        return (white | black) & ((1 << self.rows_shift) - 1)

    def check_position(self, turn: Color, stacks: dict[int, int]) -> None:
        geom = self.geometry
        tables = self._tables
        for color in (WHITE, BLACK):
            name = color_name(color)
            for square, height in stacks.items():
                if height == 2 * color and geom.rank_of(square) == tables.near_rank[color]:
                    raise FenError(
                        f"FEN: {name} double on {geom.name(square)} stands on {name}'s nearest row; "
                        f"it would have been borne off"
                    )
            singles = [sq for sq, h in stacks.items() if h == color]
            waiting = [sq for sq in singles if geom.rank_of(sq) == tables.far_rank[color]]
            if len(waiting) > 1 or (waiting and len(singles) > 1):
                raise FenError(
                    f"FEN: {name} single on {geom.name(waiting[-1])} stands on {name}'s furthest row "
                    f"while {name} has another single; it would have been crowned"
                )

    # -- move generation -------------------------------------------------------------
    def legal_moves(self) -> list[ImpasseMove]:
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return []
        own = self.occupied[self.turn]
        moves = self._slides_and_transposes(own)
        if not moves:  # the impasse rule
            s = self.turn
            cells = self.cells
            for sq in own:
                self._finish(moves, ImpasseMoveKind.REMOVE, sq, -1, {sq: cells[sq] - s})
        return moves

    def quiet_moves(self) -> list[ImpasseMove]:
        """The legal moves that take no checker off, in ``legal_moves`` order.  With
        :meth:`removing_moves` they are every legal move, so that a search can generate the
        moves that take checkers off first and the others only when it needs them."""
        return [move for move in self.legal_moves() if not move.removed]

    def removing_moves(self) -> list[ImpasseMove]:
        """The legal moves that take checkers off, in ``legal_moves`` order, found without
        generating the others: the bear-offs (a double's slide onto its nearest row, its
        transpose onto an own single there) or, at an impasse, every move (all removals)."""
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return []
        s = self.turn
        double = s + s
        cells = self.cells
        tables = self._tables
        _, white_side, black_side = self.sides
        occupancy = white_side | black_side
        own = self.occupied[s]
        bear_slides = tables.bear_slides[s]
        bear_transposes = tables.bear_transposes[s]
        moves: list[ImpasseMove] = []
        for sq in own:
            if cells[sq] == double:
                for path, plain in bear_slides[sq]:
                    if not occupancy & path:
                        moves.append(plain)
                for target, transpose in bear_transposes[sq]:
                    if cells[target] == s:
                        moves.append(transpose)
        if moves:
            if self._no_crown_waits():
                return moves
            return [move for move in self.legal_moves() if move.removed]  # (rare) a move may owe or pay a crown
        # No bear-off: every move is a removal if no stack can slide or transpose.
        free = ~occupancy
        step_mask = tables.step_mask[s]
        transpose_to = tables.transpose_to[s]
        for sq in own:
            stack = cells[sq]
            if step_mask[sq][stack == s] & free:
                return moves
            if stack == double:
                for target, _ in transpose_to[sq]:
                    if cells[target] == s:
                        return moves
        return self.legal_moves()

    def is_legal(self, move: ImpasseMove) -> bool:
        """Whether ``move`` (generated in some position of this game) is legal here, worked out
        from its own squares when it is a plain move of the tables, else from the moves of its
        stack (the removals of an impasse need every move)."""
        _, white, black = self.material  # (BLACK's index, -1, would miss the fast path)
        if not (white and black):
            return False
        cells = self.cells
        if move.kind is _REMOVE:
            candidates = self.legal_moves()
        else:
            origin = move.origin
            if not 0 <= origin < len(cells):
                return False
            stack = cells[origin]
            s = self.turn
            if stack != s and stack != s + s:
                return False
            if move.path >= 0 and self._no_crown_waits():
                # As generated: the squares as the move found them, the way over them empty.
                for square, before, _ in move.changes:
                    if cells[square] != before:
                        return False
                _, white_side, black_side = self.sides
                return not (white_side | black_side) & move.path
            candidates = self._slides_and_transposes((origin,))
        for candidate in candidates:
            if candidate is move:
                return True
        return False

    def _no_crown_waits(self) -> bool:
        """Whether no single of the side to move waits on its furthest row (where one does,
        every move may owe or pay a crown, so none is the plain move of the tables)."""
        side = 1 if self.turn > 0 else 2
        return not self.sides[side] & self._tables.far_row_mask[side] & ~self.doubles

    def _slides_and_transposes(self, squares: list[int] | tuple[int, ...]) -> list[ImpasseMove]:
        """The legal slides and transposes of the side to move's stacks on ``squares``."""
        s = self.turn
        cells = self.cells
        tables = self._tables
        near = tables.near_rank[s]
        width = self.geometry.width
        plain_ok = self._no_crown_waits()
        single_rays = tables.single_rays[s]
        double_rays = tables.double_rays[s]
        transpose_to = tables.transpose_to[s]
        moves: list[ImpasseMove] = []
        for sq in squares:
            stack = cells[sq]
            single = stack == s
            for ray in (single_rays if single else double_rays)[sq]:
                for target, plain in ray:
                    if cells[target]:
                        break
                    if plain is not None and plain_ok:
                        moves.append(plain)
                    else:
                        # bear-off: a double arriving on its nearest row loses its top checker
                        # (a single slides away from that row and never arrives there)
                        landed = s if target // width == near else stack
                        self._finish(moves, ImpasseMoveKind.SLIDE, sq, target, {sq: 0, target: landed})
            if not single:
                for target, plain in transpose_to[sq]:
                    if cells[target] == s:
                        if plain is not None and plain_ok:
                            moves.append(plain)
                        else:
                            landed = s if target // width == near else 2 * s
                            self._finish(moves, ImpasseMoveKind.TRANSPOSE, sq, target, {sq: s, target: landed})
        return moves

    def _finish(
        self, moves: list[ImpasseMove], kind: ImpasseMoveKind, origin: int, target: int, after: dict[int, int]
    ) -> None:
        """Append the move(s) that complete a slide, transpose or removal with its crown.

        ``after`` maps each changed square to its new signed height (bear-off included).
        """
        s = self.turn
        cells = self.cells
        tables = self._tables
        waiting = [sq for sq in tables.far_row[s] if after.get(sq, cells[sq]) == s]
        if not waiting:
            moves.append(self._make(kind, origin, target, -1, after))
            return
        if len(waiting) == 2:  # both stand on the furthest row, no other single: one joins the other
            for crowner in waiting:
                other = waiting[0] if crowner == waiting[1] else waiting[1]
                moves.append(self._make(kind, origin, target, crowner, {**after, crowner: 0, other: 2 * s}))
            return
        crowned = waiting[0]
        # A single after the move stands where the move puts one or on one of the side's stacks
        # it leaves alone: those squares, in board order, rather than every dark square.
        others = [sq for sq in sorted({*self.occupied[s], *after}) if sq != crowned and after.get(sq, cells[sq]) == s]
        if not others:  # the crown is owed until a single appears
            moves.append(self._make(kind, origin, target, -1, after))
        for crowner in others:
            moves.append(self._make(kind, origin, target, crowner, {**after, crowner: 0, crowned: 2 * s}))

    def _make(self, kind: ImpasseMoveKind, origin: int, target: int, crown: int, after: dict[int, int]) -> ImpasseMove:
        cells = self.cells
        changes = tuple((sq, cells[sq], new) for sq, new in after.items())
        known = self._tables.moves
        key = (kind, origin, target, crown, changes)
        move = known.get(key)
        if move is not None:
            return move
        name = self.geometry.name
        if kind == ImpasseMoveKind.REMOVE:
            text = f"x{name(origin)}"
        else:
            text = f"{name(origin)}{_SEPARATOR[kind]}{name(target)}"
        if crown >= 0:
            text += f"={name(crown)}"
        return known.setdefault(key, _new_move(self._tables, kind, origin, target, crown, text, changes, -1))

    def takes_checkers_off(self, move: ImpasseMove) -> bool:
        """Bear-offs and impasse removals do (only ever the mover's own checkers)."""
        return move.removed > 0

    # -- make / unmake ---------------------------------------------------------------
    def push(self, move: ImpasseMove) -> None:
        cells = self.cells
        s = self.turn
        side = move.side
        own = self.occupied[side]  # a move changes only its mover's stacks
        self._history.append((move, self.key))
        for square, before, after in move.changes:
            cells[square] = after
            if not after:
                if before:  # (a crowning single may land and leave in one move: 0 -> 0)
                    own.remove(square)
            elif not before:
                insort(own, square)
        self.sides[side] += move.advance
        self.doubles ^= move.double_flips
        if move.removed:
            self.material[side] -= move.removed
        self.key ^= move.rekey
        self.turn = -s

    def pop(self) -> ImpasseMove:
        move: ImpasseMove
        key: int
        move, key = self._history.pop()
        s = -self.turn
        self.turn = s
        self.key = key
        cells = self.cells
        side = move.side
        own = self.occupied[side]
        for square, before, after in move.changes:
            cells[square] = before
            if not before:
                if after:
                    own.remove(square)
            elif not after:
                insort(own, square)
        self.sides[side] -= move.advance
        self.doubles ^= move.double_flips
        if move.removed:
            self.material[side] += move.removed
        return move

    # -- move text -------------------------------------------------------------------
    def _parse_other_text(self, token: str, legal: Sequence[ImpasseMove]) -> ImpasseMove:
        match = _MOVE_TEXT.fullmatch(token)
        if match is None:
            raise InvalidMoveError(
                f"{token!r} is not an Impasse move: expected c1-a3, f6+e5, xb6, optionally with =<square> (a7-b8=c5)"
            )
        origin_name, separator, target_name, removal_name, crown_name = match.groups()
        impasse = legal[0].kind == ImpasseMoveKind.REMOVE
        who = color_name(self.turn)
        if removal_name is not None:
            kind, origin, target = ImpasseMoveKind.REMOVE, self._move_square(token, removal_name), -1
            if not impasse:
                raise IllegalMoveError(f"{token!r}: {who} can slide or transpose, so may not remove a checker")
        else:
            kind = ImpasseMoveKind.SLIDE if separator == "-" else ImpasseMoveKind.TRANSPOSE
            origin, target = self._move_square(token, origin_name), self._move_square(token, target_name)
            if impasse:
                raise IllegalMoveError(f"{token!r}: {who} is at an impasse and must remove a checker (x<square>)")
        crown = -1 if crown_name is None else self._move_square(token, crown_name)
        candidates = [m for m in legal if m.kind == kind and m.origin == origin and m.target == target]
        if not candidates:
            raise IllegalMoveError(f"{token!r}: {self._why_illegal(kind, origin, target)}")
        if crown_name is None:
            if len(candidates) == 1:
                return candidates[0]
            choices = ", ".join(m.text for m in candidates)
            raise InvalidMoveError(f"{token!r}: say which single crowns: {choices}")
        for move in candidates:
            if move.crown == crown:
                return move
        if candidates[0].crown < 0:
            raise IllegalMoveError(f"{token!r}: no single crowns after this move; write {candidates[0].text}")
        choices = ", ".join(m.text for m in candidates)
        raise IllegalMoveError(f"{token!r}: the single on {crown_name} cannot crown here; legal: {choices}")

    def _why_illegal(self, kind: ImpasseMoveKind, origin: int, target: int) -> str:
        s, name, who = self.turn, self.geometry.name, color_name(self.turn)
        height = self.cells[origin] * s
        if height <= 0:
            return f"{who} has no checker on {name(origin)}"
        if kind == ImpasseMoveKind.REMOVE:
            return f"{who} cannot remove from {name(origin)}"
        if kind == ImpasseMoveKind.TRANSPOSE:
            if height != 2:
                return f"a transpose starts from a double; {name(origin)} holds a single"
            return (
                f"a transpose goes onto an own single diagonally adjacent to {name(origin)} and one row nearer to {who}"
            )
        if height == 1:
            return "a single slides diagonally forward over empty squares only"
        return "a double slides diagonally backward over empty squares only"


IMPASSE_VARIANTS: tuple[Variant, ...] = (
    Variant(
        "impasse",
        "impasse",
        8,
        8,
        12,
        "W:W1a1,1e1,1d2,1h2,2c7,2g7,2b8,2f8:B2c1,2g1,2b2,2f2,1a7,1e7,1d8,1h8",
        "8x8, the designer's rule-sheet setup: four singles and four doubles a side",
        ImpasseBoard,
    ),
    Variant(
        "impasse-singles",
        "impasse",
        8,
        8,
        12,
        "W:W1a1,1c1,1e1,1g1,1b2,1d2,1f2,1h2,1a3,1c3,1e3,1g3:B1b6,1d6,1f6,1h6,1a7,1c7,1e7,1g7,1b8,1d8,1f8,1h8",
        "8x8, twelve singles a side on the three nearest rows (the standard checkers setup)",
        ImpasseBoard,
    ),
)
register_variants(IMPASSE_VARIANTS)

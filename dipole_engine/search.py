"""The search: iterative deepening principal-variation alpha-beta over any game's boards.

Game-agnostic: it touches a board only through ``legal_moves``, ``push``, ``pop``, ``key``,
``winner``, ``material`` (to see cheaply that the game goes on) and ``turn``, and learns
everything else (evaluation, which moves are tactical) from the hooks in
:mod:`dipole_engine.evaluate`.

* Iterative deepening, depth 1, 2, ...; aspiration windows around the previous score from
  depth ``ASPIRATION_DEPTH`` on, widened on failure.
* Principal variation search: the first move with the full window, the others with a null
  window and a re-search when they beat alpha.  Late quiet moves are searched one ply
  shallower first (late move reductions) and again at full depth if they beat alpha.
* Transposition table (:mod:`dipole_engine.tt`): cutoffs at non-PV nodes, its move first.
* Move ordering, the moves generated a stage at a time in that order: TT move, tactical moves
  by their hook value (captures: biggest victim, then smallest attacker), two killer moves per
  ply, then the quiet moves by the history heuristic.
* Quiescence search over tactical moves with stand-pat, delta pruning, the transposition
  table, and a cap of QS_MAX_PLIES tactical plies; the stand-pat score comes with the window,
  so that the evaluation can leave out what cannot move it across (a fail-soft bound then).
* Scores (see :mod:`dipole_engine.tt`): centipawns for the side to move; a finished game is a
  mate score counted in plies from the root.  There are no draws in these games.

A *node* is every position the search visits: the root, each position reached by a move in
the main search, and each quiescence position.  Transpositions that are cut off by the table
are still nodes (they were visited).

Given the same position, depth/node limits and a fresh transposition table, a search is fully
deterministic (nothing depends on time, randomness, or object addresses' order).
"""

from __future__ import annotations

import select
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from protocol.codec import Limit
from protocol.timeman import UNTIMED, TimePlan

from .evaluate import hooks_for
from .rules import Board
from .tt import (
    EXACT,
    INFINITE,
    LOWER,
    MATE,
    MATE_BOUND,
    MAX_PLY,
    UPPER,
    TranspositionTable,
    score_from_tt,
)

Move = Any

MAX_DEPTH: Final = 64
ASPIRATION_DEPTH: Final = 4
ASPIRATION_WINDOW: Final = 40
CHECK_EVERY: Final = 64
"""Look at the clock and the stop flag every this many nodes (0.2-1 ms in the pure build, in
Impasse too, whose nodes cost twice Dipole's: at 256 an Impasse search overran its deadline by
3-4 ms on an idle machine), and let other threads run: compiled (mypyc) code never gives up
the interpreter lock by itself, so without that the protocol thread would wait for the whole
search to answer ``isready``."""
DELTA_MARGIN: Final = 150
"""Quiescence skips a capture whose optimistic gain still leaves it this far below alpha."""
LMR_MIN_DEPTH: Final = 3
LMR_FIRST_MOVE: Final = 3
"""Moves searched before late move reductions start (TT move, best captures, killers)."""
HISTORY_LIMIT: Final = 1 << 20
QS_MAX_PLIES: Final = 6
"""Quiescence stands pat after this many tactical plies: in Dipole, captures in all directions
and re-captures can chain on for dozens of plies, and without a cap a few positions explode."""
assert MAX_DEPTH + QS_MAX_PLIES < MAX_PLY, "no line may reach MAX_PLY: the tree never tests for it"

# The stages of move generation at an inner node, in search order (see _search).
_TT_MOVE: Final = 0
_TACTICAL: Final = 1
_KILLERS: Final = 2
_QUIET: Final = 3


@dataclass(frozen=True)
class SearchInfo:
    """The outcome of one completed iteration (one ``info`` line).

    ``score_cp`` or ``score_mate`` is set, never both: mate in moves (the side to move's moves
    until the game is won), negative when the side to move is being mated.
    """

    depth: int
    seldepth: int
    score_cp: int | None
    score_mate: int | None
    nodes: int
    time_ms: int
    nps: int
    pv: tuple[str, ...]
    hashfull: int
    multipv: int | None = None
    """Which line this is (1 = the best) when several are searched, else None."""


@dataclass(frozen=True)
class SearchSummary:
    """What a search ends with: its best move (None when the game is over), the score of the
    last completed iteration, and the totals."""

    best_move: Move | None
    score: int
    depth: int
    nodes: int
    infos: tuple[SearchInfo, ...]


class _Abort(Exception):
    """Raised inside the tree when a limit is hit; unwinds to the iteration loop."""


def mate_moves(score: int) -> int | None:
    """Moves to mate for a mate score (negative: being mated), None for other scores."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score + 1) // 2)
    return None


class Searcher:
    """Searches over a private copy of a board, sharing a transposition table.

    Depth 1 is always completed before a node limit or the time target is honoured (as in
    Stockfish), so even ``go nodes 1`` gets a move chosen by a one-ply search (with its
    quiescence, about a thousand nodes and 25 ms at the most seen); ``stop()`` and the time
    plan's deadline (``hard_ms``, past which the clock would fall) end depth 1 early too, the
    move then being the one :meth:`_fallback_move` names.  ``stop()`` may be called from
    another thread; the search notices within CHECK_EVERY nodes.  A stop is never forgotten:
    once stopped, every search of this object returns at once (with the best move it can name
    without searching), so use one Searcher per ``go``.
    """

    _board: Board[Any]
    """search()'s private copy of the position; every method that reads it runs inside search()."""

    def __init__(self, tt: TranspositionTable) -> None:
        self.tt = tt
        self.nodes = 0
        self.seldepth = 0
        self._stop_requested = False
        self._next_check = 0
        self._node_limit: int | None = None
        self._hard_deadline: float | None = None
        self._soft_deadline: float | None = None
        self._fixed_time = False  # movetime: search on to the deadline
        self._clock_start = 0.0
        self._search_start = 0.0
        self._ponder_hit_at: tuple[TimePlan, float] | None = None  # a ponderhit's plan and time
        self._limits_armed = False  # the node limit counts once depth 1 is complete
        self._killers: list[list[Move | None]] = []
        self._history: defaultdict[int, int] = defaultdict(int)
        """Quiet moves' cutoff scores by ``id(move)``: moves are the rules' shared table objects,
        so ids are stable and the table is bounded by the number of distinct moves."""
        self._pv: list[list[Move]] = []
        self._root_improved: Move | None = None
        """A root move that beat the first one in the running iteration (as Stockfish does, the
        move played if the iteration is cut short)."""
        self._root_improved_score = 0  # its score, reported with its line when it is played
        self._tt_table = tt.table
        self._tt_mask = tt.mask

    def stop(self) -> None:
        """Ask the running search to finish now (harmless when none runs)."""
        self._stop_requested = True
        self._next_check = 0

    def set_time_plan(self, time_plan: TimePlan, start: float) -> None:
        """Put the search under ``time_plan``, counted from ``start`` (a ``time.monotonic()``)."""
        self._soft_deadline = None if time_plan.soft_ms is None else start + time_plan.soft_ms / 1000
        self._hard_deadline = None if time_plan.hard_ms is None else start + time_plan.hard_ms / 1000
        self._fixed_time = time_plan.fixed
        self._clock_start = start
        self._next_check = 0

    def ponder_hit(self, time_plan: TimePlan, hit_at: float) -> None:
        """``ponderhit`` at ``hit_at`` (from another thread): the pondering thought about this
        very move, so its time counts toward the target, which runs from the search's start;
        the deadline runs from ``hit_at``, when the engine's clock started.  A search that
        pondered past its target answers at once, with its last complete iteration (rather
        than finish an iteration begun without a limit, up to the deadline, on every move).
        A ponderhit that comes while :meth:`search` is starting holds all the same: the search
        applies it once its own plan is set."""
        self._ponder_hit_at = (time_plan, hit_at)
        self._apply_ponder_hit(time_plan, hit_at)

    def _apply_ponder_hit(self, time_plan: TimePlan, hit_at: float) -> None:
        soft = None if time_plan.soft_ms is None else self._search_start + time_plan.soft_ms / 1000
        hard = None if time_plan.hard_ms is None else hit_at + time_plan.hard_ms / 1000
        if soft is not None and hit_at >= soft:
            hard = hit_at
        self._soft_deadline = soft
        self._hard_deadline = hard
        self._fixed_time = time_plan.fixed
        self._clock_start = self._search_start
        self._next_check = 0

    def search(
        self,
        board: Board[Any],
        limits: Limit,
        time_plan: TimePlan = UNTIMED,
        start: float | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        multipv: int = 1,
    ) -> SearchSummary:
        """Search ``board``'s position (the board itself is not touched) and return the result.

        ``start`` is the ``time.monotonic()`` the time plan counts from (default: now).
        ``on_info`` is called after each completed iteration, once per line when ``multipv``
        (the number of best root moves to search, each with its own line) is above 1.
        ``limits.searchmoves`` (legal move texts) restricts the root moves; ``limits.mate``
        ends the search once a win in at most that many moves is proven, and at depth
        ``2 * mate + 1`` (room for the late move reductions) otherwise.
        """
        start = time.monotonic() if start is None else start
        self._search_start = start
        self._board = board = board.copy()
        hooks = hooks_for(board)
        self._evaluate = hooks.evaluate
        self._quiesce = hooks.quiesce
        self._tactical_moves = hooks.tactical_moves
        self._quiet_moves = hooks.quiet_moves
        self._is_legal = hooks.is_legal
        self.nodes = 0
        self.seldepth = 0
        self._killers = [[None, None] for _ in range(MAX_PLY + 1)]
        self._history = defaultdict(int)
        self._pv = [[] for _ in range(MAX_PLY + 1)]
        self._node_limit = limits.nodes
        self.set_time_plan(time_plan, start)
        if self._ponder_hit_at is not None:  # it came between the go and this line
            self._apply_ponder_hit(*self._ponder_hit_at)
        self._limits_armed = False
        self._next_check = 0  # the first node checks for an early stop()
        self.tt.new_search()
        self._tt_table = self.tt.table  # bound for the hot path: the engine never resizes
        self._tt_mask = self.tt.mask  # the table while a search runs

        root_moves = board.legal_moves()
        if limits.searchmoves:
            wanted = {id(board.parse_move(text)) for text in limits.searchmoves}
            root_moves = [move for move in root_moves if id(move) in wanted]
        if not root_moves:
            return SearchSummary(None, 0, 0, 0, ())
        max_depth = MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))
        if limits.mate is not None:
            max_depth = min(max_depth, 2 * limits.mate + 1)
        lines = min(multipv, len(root_moves))
        infos: list[SearchInfo] = []
        best_move = None
        score = 0
        completed = 0
        self._root_moves = root_moves
        try:
            for depth in range(1, max_depth + 1):
                self._root_improved = None
                if lines == 1:
                    score = self._aspiration(depth, score)
                    found = [(score, self._pv[0])]
                else:
                    found = self._multi_root(depth, lines)
                    score = found[0][0]
                completed = depth
                if not self._limits_armed:
                    self._limits_armed = True
                    self._next_check = self.nodes + 1  # a limit already passed stops the next node
                best_move = found[0][1][0]
                for number, (line_score, pv) in enumerate(found, 1):
                    info = self._info(depth, line_score, pv, start, number if lines > 1 else None)
                    infos.append(info)
                    if on_info is not None:
                        on_info(info)
                if abs(score) >= MATE_BOUND and MATE - abs(score) <= depth:
                    break  # a forced result proven within the full-width horizon
                moves_to_mate = mate_moves(score)
                if limits.mate is not None and moves_to_mate is not None and 0 < moves_to_mate <= limits.mate:
                    break  # the mate asked for
                soft_deadline = self._soft_deadline
                if soft_deadline is not None:
                    if len(root_moves) == 1:
                        break  # nothing to think about
                    elapsed = time.monotonic()
                    # A fixed time is searched to its deadline.  On a clock, the next iteration
                    # takes several times the last one: start it only if it is likely to
                    # finish before the target.
                    if not self._fixed_time and (
                        elapsed >= soft_deadline
                        or elapsed - self._clock_start >= 0.6 * (soft_deadline - self._clock_start)
                    ):
                        break
        except _Abort:
            if self._root_improved is not None and lines == 1:
                best_move = self._root_improved  # the unfinished iteration already prefers it
                # Its line is reported (as Stockfish reports a cut iteration's new best move), so
                # that the bestmove is the last pv's first move and its ponder move the second.
                pv = self._pv[0] if self._pv and self._pv[0] and self._pv[0][0] is best_move else [best_move]
                info = self._info(depth, self._root_improved_score, pv, start)
                infos.append(info)
                if on_info is not None:
                    on_info(info)
        finally:
            self._unwind(board)
        if best_move is None:  # stopped before depth 1 was complete
            best_move = self._fallback_move(root_moves)
        return SearchSummary(best_move, score, completed, self.nodes, tuple(infos))

    # -- helpers around the tree ---------------------------------------------------------
    def _unwind(self, board: Board[Any]) -> None:
        """Take back the moves an aborted search left on its private board."""
        while board.move_stack:
            board.pop()

    def _fallback_move(self, moves: list[Move]) -> Move:
        """The move to play when ``stop()`` came before depth 1 was complete: the TT move, else
        the move with the best static score one ply on (a few microseconds a move)."""
        board = self._board
        entry = self.tt.probe(board.key)
        if entry is not None and any(entry[4] is move for move in moves):
            return entry[4]
        best_move, best = moves[0], -INFINITE
        for move in moves:
            board.push(move)
            winner = board.winner()
            score = -self._evaluate() if winner is None else MATE if winner != board.turn else -MATE
            board.pop()
            if score > best:
                best_move, best = move, score
        return best_move

    def _checkup(self) -> None:
        """Called every CHECK_EVERY nodes (and at once after stop()): abort on a stop, and
        once depth 1 is complete on any limit.  Releases the interpreter lock for a moment,
        so that a thread waiting for it (the protocol loop) gets its turn within one switch
        interval, in the compiled build as in the pure one: ``select()`` on nothing with a zero
        timeout, which returns at once (``time.sleep(0)`` would also give the processor to other
        processes, 0.1 ms or more on a busy machine)."""
        select.select([], [], [], 0)
        if self._stop_requested:
            raise _Abort
        next_check = self.nodes + CHECK_EVERY
        if self._limits_armed and self._node_limit is not None:
            if self.nodes > self._node_limit:
                self.nodes -= 1  # the node that would pass the limit is not visited
                raise _Abort
            next_check = min(next_check, self._node_limit + 1)
        # The deadline holds from the first node: past it the clock would fall.
        if self._hard_deadline is not None and time.monotonic() >= self._hard_deadline:
            raise _Abort
        self._next_check = next_check

    def _info(self, depth: int, score: int, pv: list[Move], start: float, multipv: int | None = None) -> SearchInfo:
        elapsed_ms = int((time.monotonic() - start) * 1000)
        mate = mate_moves(score)
        return SearchInfo(
            depth=depth,
            seldepth=max(self.seldepth, depth),
            score_cp=None if mate is not None else score,
            score_mate=mate,
            nodes=self.nodes,
            time_ms=elapsed_ms,
            nps=self.nodes * 1000 // max(1, elapsed_ms),
            pv=tuple(str(move) for move in pv),
            hashfull=self.tt.hashfull(),
            multipv=multipv,
        )

    def _aspiration(self, depth: int, previous: int) -> int:
        """The root score at ``depth``: first in a narrow window around ``previous``."""
        if depth < ASPIRATION_DEPTH or abs(previous) >= MATE_BOUND:
            return self._root(depth, -INFINITE, INFINITE)
        window = ASPIRATION_WINDOW
        alpha, beta = previous - window, previous + window
        while True:
            score = self._root(depth, alpha, beta)
            if score <= alpha:
                alpha = max(-INFINITE, score - window)
            elif score >= beta:
                beta = min(INFINITE, score + window)
            else:
                return score
            window *= 2

    def _multi_root(self, depth: int, lines: int) -> list[tuple[int, list[Move]]]:
        """The ``lines`` best root moves at ``depth``, best first, each with its exact score and
        line: the best of all moves, then the best of the others, and so on (full windows)."""
        found = []
        for first in range(lines):
            score = self._root(depth, -INFINITE, INFINITE, first)
            found.append((score, self._pv[0]))
        return found

    # -- the tree ------------------------------------------------------------------------
    def _root(self, depth: int, alpha: int, beta: int, first: int = 0) -> int:
        """Search the root moves from index ``first`` on; leaves the best one at that index in
        the root move list and its line in ``self._pv[0]`` (a new list).  Fail-soft: returns
        the best score, which may be outside the window.  Only the search of every move
        (``first`` 0) is the root's entry in the table."""
        board = self._board
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._checkup()
        moves = self._root_moves
        pv = self._pv
        original_alpha = alpha
        best = -INFINITE
        best_index = first
        child = self._search if depth > 1 else self._qsearch
        for index in range(first, len(moves)):
            move = moves[index]
            board.push(move)
            if index == first:
                score = -child(depth - 1, -beta, -alpha, 1, True)
            else:
                score = -child(depth - 1, -alpha - 1, -alpha, 1, False)
                if alpha < score < beta:
                    score = -child(depth - 1, -beta, -alpha, 1, True)
            board.pop()
            if score > best:
                best = score
                best_index = index
                pv[0] = [move] + (pv[1] if depth > 1 else [])
                if score > alpha:
                    if index != first:
                        self._root_improved = move
                        self._root_improved_score = score
                    alpha = score
                    if score >= beta:
                        break
        if best_index != first:
            moves.insert(first, moves.pop(best_index))
        if first == 0:
            bound = LOWER if best >= beta else EXACT if best > original_alpha else UPPER
            self.tt.store(board.key, depth, best, bound, moves[0], 0)
        return best

    def _search(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
        """Negamax alpha-beta (fail-soft) with ``depth >= 1`` plies left at ``ply`` from the
        root.  Children with no depth left go to quiescence directly."""
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._checkup()
        board = self._board
        if pv_node:
            self._pv[ply] = []
        # material is [0, White's, Black's]: unpacked, since BLACK's index, -1, would miss the
        # pure build's fast path for list[index].
        _, white, black = board.material
        if not (white and black):  # a side has no checkers left: the game is over
            return MATE - ply if board.winner() == board.turn else ply - MATE
        # Mate distance pruning: no result here can beat a mate found nearer the root.
        if alpha < ply - MATE:
            alpha = ply - MATE
            if alpha >= beta:
                return alpha
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
            if alpha >= beta:
                return alpha

        key = board.key
        entry = self._tt_table[key & self._tt_mask]
        tt_move = None
        if entry is not None and entry[0] == key:
            tt_move = entry[4]
            if not pv_node and entry[1] >= depth:
                tt_score = score_from_tt(entry[2], ply)
                bound = entry[3]
                if bound == EXACT or (tt_score >= beta if bound == LOWER else tt_score <= alpha):
                    return tt_score

        original_alpha = alpha
        best = -INFINITE
        best_move = None
        searched = 0
        search = self._search if depth > 1 else self._qsearch
        # The children's depth, ply and null window (-alpha - 1, -alpha), worked out once
        # (alpha only changes at a PV node, where the window is set again).
        child_depth = depth - 1
        child_ply = ply + 1
        child_alpha, child_beta = -alpha - 1, -alpha
        push = board.push
        pop = board.pop
        child_pv = self._pv

        # The moves in search order, generated a stage at a time, since most nodes that fail
        # high do so on the first move or two: the TT move, the tactical moves best first, the
        # killers (quiet moves that refuted a sibling position) if they are legal here, and
        # only then the remaining quiet moves, by history.
        killer_1, killer_2 = self._killers[ply]
        reduce_ok = not pv_node and depth >= LMR_MIN_DEPTH
        tactical_found = False
        for stage in (_TT_MOVE, _TACTICAL, _KILLERS, _QUIET):
            if stage == _TT_MOVE:
                if tt_move is None:
                    continue
                moves = [tt_move]
            elif stage == _TACTICAL:
                moves = self._tactical_moves()
                tactical_found = bool(moves)
            elif stage == _KILLERS:
                is_legal = self._is_legal
                moves = [
                    killer
                    for killer in (killer_1, killer_2)
                    if killer is not None and killer is not tt_move and is_legal(killer)
                ]
            else:
                moves = self._quiet_moves()
                if not moves and not tactical_found:
                    moves = board.legal_moves()  # the forced pass
                elif len(moves) > 1:
                    # Stable, so equal scores keep generation order; map() keeps the
                    # per-move work in C (the history defaults to 0 for a move never seen).
                    scores = list(map(self._history.__getitem__, map(id, moves)))
                    moves = list(
                        map(moves.__getitem__, sorted(range(len(moves)), key=scores.__getitem__, reverse=True))
                    )
            quiet = stage >= _KILLERS
            reducible = reduce_ok and quiet
            for move in moves:
                if stage != _TT_MOVE and (
                    move is tt_move or (stage == _QUIET and (move is killer_1 or move is killer_2))
                ):
                    continue
                push(move)
                if searched == 0 and pv_node:
                    score = -search(child_depth, -beta, child_beta, child_ply, True)
                else:
                    if reducible and searched >= LMR_FIRST_MOVE:
                        score = -search(child_depth - 1, child_alpha, child_beta, child_ply, False)
                        if score > alpha:
                            score = -search(child_depth, child_alpha, child_beta, child_ply, False)
                    else:
                        score = -search(child_depth, child_alpha, child_beta, child_ply, False)
                    if pv_node and alpha < score < beta:
                        score = -search(child_depth, -beta, child_beta, child_ply, True)
                pop()
                searched += 1
                if score > best:
                    best = score
                    best_move = move
                    if score > alpha:
                        if score >= beta:
                            self._store_cutoff(key, depth, score, move, ply, quiet)
                            return score
                        alpha = score  # (only at a PV node: elsewhere beta is alpha + 1)
                        child_alpha, child_beta = -alpha - 1, -alpha
                        if pv_node:
                            child_pv[ply] = [move] + (child_pv[child_ply] if depth > 1 else [])

        self.tt.store(
            key,
            depth,
            best,
            EXACT if best > original_alpha else UPPER,
            best_move if best > original_alpha else None,
            ply,
        )
        return best

    def _store_cutoff(self, key: int, depth: int, score: int, move: Move, ply: int, quiet: bool) -> None:
        """A beta cutoff: remember it, and teach killers and history about a quiet refutation."""
        self.tt.store(key, depth, score, LOWER, move, ply)
        if quiet:
            killers = self._killers[ply]
            if killers[0] is not move:
                killers[1] = killers[0]
                killers[0] = move
            history = self._history
            move_id = id(move)
            bonus = history[move_id] + depth * depth
            history[move_id] = bonus
            if bonus > HISTORY_LIMIT:
                for other in history:
                    history[other] //= 2

    def _qsearch(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
        """Quiescence: the side to move may stand pat on the static score or play a tactical
        move.  Fail-soft.  ``depth`` is 0 at the first quiescence node and counts the tactical
        plies below it negatively; ``pv_node`` is ignored: the signature is ``_search``'s, so
        that a caller can pick either as the child search.  Results go to the table with depth
        0, and any entry of the position is deep enough to answer here."""
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._checkup()
        board = self._board
        _, white, black = board.material  # unpacked, as in _search
        if not (white and black):  # a side has no checkers left: the game is over
            return MATE - ply if board.winner() == board.turn else ply - MATE
        key = board.key
        entry = self._tt_table[key & self._tt_mask]
        if entry is not None and entry[0] == key:  # any entry is at least as deep as this
            tt_score = score_from_tt(entry[2], ply)
            bound = entry[3]
            if bound == EXACT or (tt_score >= beta if bound == LOWER else tt_score <= alpha):
                return tt_score
        if depth <= -QS_MAX_PLIES:
            return self._evaluate()  # stands pat: no tactical move is needed
        best, tactical = self._quiesce(alpha, beta)
        if best >= beta:
            return best
        original_alpha = alpha
        if tactical:
            if best > alpha:  # noqa: PLR1730  (hot path: a test is cheaper than max())
                alpha = best
            floor = alpha - DELTA_MARGIN - best  # a move must be expected to gain more than this
            push = board.push
            pop = board.pop
            qsearch = self._qsearch
            for gain, move in tactical:
                if gain < floor:
                    continue
                # seldepth: set here rather than at every quiescence node, since a node nearer
                # the root than the iteration's depth is reached by the main search.
                if ply >= self.seldepth:
                    self.seldepth = ply + 1
                push(move)
                score = -qsearch(depth - 1, -beta, -alpha, ply + 1, False)
                pop()
                if score > best:
                    best = score
                    if score > alpha:
                        if score >= beta:
                            self.tt.store(key, 0, score, LOWER, move, ply)
                            return score
                        alpha = score
        self.tt.store(key, 0, best, EXACT if best > original_alpha else UPPER, None, ply)
        return best

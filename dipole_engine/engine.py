"""The engine facade: the narrow interface between a protocol loop and the search.

The protocol loop owns input and output; it hands the engine a position and ``go`` limits, and
gets ``info`` and ``bestmove`` back through callbacks called from the search thread::

    engine = Engine(hash_mb=16, move_overhead_ms=30)
    engine.set_position(board)
    engine.go(Limits(movetime=200), on_info=print_info, on_bestmove=print_bestmove)
    ...                      # the caller keeps reading input; engine.stop() at any time
    engine.wait()

Guarantees: ``go`` returns at once; ``on_bestmove`` is called exactly once per ``go`` (with the
move text, or None when the game is over), after the last ``on_info`` of that search; with
``infinite`` it is held back until ``stop()`` even if the search has finished.  A ``go`` while
a search runs first stops that search (it still reports its bestmove).  Changing the hash size
or starting a new game while a search runs takes effect when it has ended.  The callbacks run
on the search thread: they may call ``stop()`` but not ``go()`` or ``wait()`` (which wait for
that very thread).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from .rules import Board, new_board
from .search import Limits, Searcher, SearchInfo
from .timeman import plan
from .tt import TranspositionTable

__all__ = ["Engine", "Limits", "SearchInfo"]


class Engine:
    """Searches positions of any game on a background thread; see the module docstring."""

    def __init__(self, hash_mb: int = 16, move_overhead_ms: int = 30) -> None:
        self._tt = TranspositionTable(hash_mb)
        self._move_overhead_ms = move_overhead_ms
        self._board: Board[Any] = new_board()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._searcher: Searcher | None = None
        self._stop_event = threading.Event()
        self._done = threading.Event()
        self._done.set()
        self._pending_hash_mb: int | None = None
        self._pending_clear = False

    # -- settings ------------------------------------------------------------------------
    def set_hash(self, mb: int) -> None:
        """Resize the transposition table to ``mb`` megabytes (>= 1); clears it."""
        if mb < 1:
            raise ValueError(f"hash size must be at least 1 MB, got {mb}")
        with self._lock:
            if self.searching:
                self._pending_hash_mb = mb
            else:
                self._tt.resize(mb)

    def set_move_overhead(self, ms: int) -> None:
        """Time kept back on every timed move for the pipe and the host (>= 0)."""
        if ms < 0:
            raise ValueError(f"move overhead must not be negative, got {ms}")
        self._move_overhead_ms = ms

    def new_game(self) -> None:
        """Forget what earlier searches learnt (clears the transposition table)."""
        with self._lock:
            if self.searching:
                self._pending_clear = True
            else:
                self._tt.clear()

    def set_position(self, board: Board[Any]) -> None:
        """Search from ``board``'s position next (the engine keeps its own copy)."""
        copy = board.copy()
        with self._lock:
            if copy.variant.geometry != self._board.variant.geometry or copy.game != self._board.game:
                # Keys and moves of another board size or game mean nothing here.
                if self.searching:
                    self._pending_clear = True
                else:
                    self._tt.clear()
            self._board = copy

    # -- searching -----------------------------------------------------------------------
    @property
    def searching(self) -> bool:
        """True from ``go`` until its ``on_bestmove`` has returned."""
        return not self._done.is_set()

    def go(self, limits: Limits, on_info: Callable[[SearchInfo], None],
           on_bestmove: Callable[[str | None], None]) -> None:
        """Start searching the current position under ``limits``; returns at once."""
        start = time.monotonic()
        self.stop()
        self.wait()
        with self._lock:
            self._apply_pending()
            board = self._board
            searcher = Searcher(self._tt)
            time_plan = plan(limits, board.turn > 0, self._move_overhead_ms)
            self._searcher = searcher
            self._stop_event = threading.Event()
            self._done = threading.Event()
            thread = threading.Thread(
                target=self._run, name="search", daemon=True,
                args=(searcher, board, limits, time_plan, start, self._stop_event, self._done,
                      on_info, on_bestmove),
            )
            self._thread = thread
        thread.start()

    def stop(self) -> None:
        """Ask the running search to finish now; returns at once; harmless when idle."""
        searcher = self._searcher
        if searcher is not None:
            searcher.stop()
        self._stop_event.set()

    def wait(self) -> None:
        """Block until the current search (if any) has called ``on_bestmove``."""
        self._done.wait()

    def _apply_pending(self) -> None:
        if self._pending_hash_mb is not None:
            self._tt.resize(self._pending_hash_mb)
            self._pending_hash_mb = None
            self._pending_clear = False
        elif self._pending_clear:
            self._tt.clear()
            self._pending_clear = False

    def _run(self, searcher: Searcher, board: Board[Any], limits: Limits, time_plan: Any, start: float,
             stop_event: threading.Event, done: threading.Event,
             on_info: Callable[[SearchInfo], None], on_bestmove: Callable[[str | None], None]) -> None:
        """The search thread: search, hold back for ``infinite``, report exactly once."""
        best: str | None = None
        try:
            try:
                result = searcher.search(board, limits, time_plan, start, on_info)
                best = None if result.best_move is None else str(result.best_move)
            except Exception:  # noqa: BLE001  (a bug must not leave the host without a bestmove)
                traceback.print_exc(file=sys.stderr)
                moves = board.legal_moves()
                best = str(moves[0]) if moves else None
            if limits.infinite:
                stop_event.wait()
        finally:
            try:
                on_bestmove(best)
            finally:
                with self._lock:
                    if self._searcher is searcher:
                        self._searcher = None
                    done.set()
                    if not self.searching:
                        self._apply_pending()

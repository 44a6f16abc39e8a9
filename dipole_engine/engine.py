"""The engine: the search as :mod:`protocol.loop`'s search callback, and what it keeps between
searches (the transposition table).

The loop runs :meth:`Engine.search` on its search thread, one ``go`` at a time, with a
:class:`protocol.loop.SearchJob` (the position, the ``go`` limits, the time plan); a ``stop``
reaches the searcher through :meth:`SearchJob.on_stop`.  The loop calls :meth:`Engine.new_game`
and :meth:`Engine.set_option` on its own thread, possibly while a search runs: changing the
hash size or clearing the table then waits until that search has ended, since the search
holds the table.  A search of another board size or game than the last one starts with a
cleared table (keys and moves of another board mean nothing there).
"""

from __future__ import annotations

import sys
import threading
import traceback
from typing import Any, Final

from protocol import OptionSpec
from protocol.loop import OptionValue, SearchJob

from .rules import Board
from .search import Searcher, SearchInfo
from .tt import TranspositionTable

__all__ = ["HASH", "Engine"]

DEFAULT_HASH_MB: Final = 16
HASH = OptionSpec("Hash", "spin", DEFAULT_HASH_MB, 1, 1024)
"""The transposition table's size in megabytes."""


class Engine:
    """Searches positions of any game, one at a time; see the module docstring."""

    def __init__(self, hash_mb: int = DEFAULT_HASH_MB) -> None:
        self._tt = TranspositionTable(hash_mb)
        self._lock = threading.Lock()
        self._searching = False
        self._pending_hash_mb: int | None = None
        self._pending_clear = False
        self._last_board: tuple[object, str] | None = None  # geometry and game of the last search

    def set_hash(self, mb: int) -> None:
        """Resize the transposition table to ``mb`` megabytes (>= 1); clears it."""
        if mb < 1:
            raise ValueError(f"hash size must be at least 1 MB, got {mb}")
        with self._lock:
            self._pending_hash_mb = mb
            self._apply_pending()

    def new_game(self) -> None:
        """Forget what earlier searches learnt (clears the transposition table)."""
        with self._lock:
            self._pending_clear = True
            self._apply_pending()

    def set_option(self, name: str, value: OptionValue) -> None:
        """The loop's ``setoption`` hook: ``Hash`` resizes the table (the loop itself keeps
        ``MoveOverhead`` for the time plan and ``UCI_Variant`` for the positions)."""
        if name == HASH.name:
            self.set_hash(int(value))

    def search(self, job: SearchJob[Board[Any]]) -> str | None:
        """Search ``job.position`` under its limits and time plan; the move text, or None when the
        game is over.  A bug in the search costs its depth, not the move: the first legal move."""
        board = job.position
        with self._lock:
            game = (board.variant.geometry, board.game)
            if game != self._last_board:
                self._pending_clear = True
                self._last_board = game
            self._apply_pending()
            self._searching = True
        searcher = Searcher(self._tt)
        job.on_stop(searcher.stop)
        job.on_ponderhit(lambda: searcher.ponder_hit(job.time_plan(), job.clock_started))

        def report(info: SearchInfo) -> None:
            job.info(
                depth=info.depth,
                seldepth=info.seldepth,
                multipv=info.multipv,
                score_cp=info.score_cp,
                score_mate=info.score_mate,
                nodes=info.nodes,
                nps=info.nps,
                time=info.time_ms,
                hashfull=info.hashfull,
                pv=info.pv,
            )

        try:
            result = searcher.search(board, job.limit, job.time_plan(), job.clock_started, report, job.multipv)
            return None if result.best_move is None else str(result.best_move)
        except Exception:  # noqa: BLE001  (the searcher searched a copy: the board is intact)
            traceback.print_exc(file=sys.stderr)
            moves = board.legal_moves()
            return str(moves[0]) if moves else None
        finally:
            with self._lock:
                self._searching = False
                self._apply_pending()

    def _apply_pending(self) -> None:
        """Resize or clear the table as asked, unless a search holds it; the caller holds the lock."""
        if self._searching:
            return
        if self._pending_hash_mb is not None:
            self._tt.resize(self._pending_hash_mb)
        elif self._pending_clear:
            self._tt.clear()
        self._pending_hash_mb = None
        self._pending_clear = False

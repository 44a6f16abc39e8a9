"""What a match and a tournament share around their pool of games: :class:`RecordedRun`, with
the PGN writer, the engine logs, the live files, the progress display, and the clean start and
stop of a run.  It plays on a local :class:`~arbiter.pools.local.GamePool`, or on a Dask cluster's
workers (:class:`~arbiter.pools.cluster.ClusterPool`, imported only then: ``distributed`` is an
extra).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..live.livefiles import LiveFiles
from ..play.referee import GameJob, RefereeSettings
from ..pools.local import EngineLogs, GamePool
from ..pools.processes import ProcessPool, process_shares
from ..records.game import GameRecord
from ..records.pgn import PgnWriter
from .progress import Progress

if TYPE_CHECKING:
    from ..pools.cluster import ClusterPool


class RecordedRun:
    """A :class:`GamePool` with the PGN file (``pgn``), the engine logs (``log_dir``), the
    live files (``live``, ``live_pgn``: see :mod:`arbiter.live.livefiles`) and the progress display
    every event keeps beside it.  A subclass sets ``progress`` in its constructor and says what
    a finished game does (its ``on_finish``); ``live_header`` adds to the live file.  With
    ``cluster`` (a Dask scheduler's address) the games are played on its workers
    (:mod:`arbiter.pools.cluster`)."""

    progress: Progress

    def __init__(
        self,
        variant: str,
        referee: RefereeSettings,
        *,
        concurrency: int,
        recover: bool,
        pgn: str | None,
        log_dir: str | None,
        cluster: str | None = None,
        live: str | None = None,
        live_pgn: str | None = None,
        pgn_nodes: bool = False,
    ) -> None:
        self.writer = PgnWriter(pgn, pgn_nodes) if pgn else None
        self.logs = (
            EngineLogs(log_dir, warn=lambda line: self.progress.message(f"Warning: {line}")) if log_dir else None
        )
        self.live_paths = (live, live_pgn)
        self.live_header: dict[str, Any] = {}
        self.referee = referee
        self.cluster = cluster
        self.games_started = 0  # games handed to the pool by this run
        self.pool: GamePool | ClusterPool | ProcessPool
        notify = lambda line: self.progress.message(f"Warning: {line}")  # noqa: E731
        if cluster is not None:
            from ..pools.cluster import ClusterPool  # only with --cluster: distributed is an extra

            self.pool = ClusterPool(
                cluster,
                variant,
                referee,
                recover=recover,
                logs=self.logs,
                notify=notify,
                announce=lambda line: self.progress.message(line),
            )
        elif len(process_shares(concurrency)) > 1:  # games in several processes, one per core at most
            self.pool = ProcessPool(
                variant, referee, concurrency=concurrency, recover=recover, logs=self.logs, notify=notify
            )
        else:
            self.pool = GamePool(
                variant, referee, concurrency=concurrency, recover=recover, logs=self.logs, notify=notify
            )

    def where(self, concurrency: int) -> str:
        """How games are played, for the header: ``concurrency N``, or the cluster's address."""
        return f"on the Dask cluster at {self.cluster}" if self.cluster else f"concurrency {concurrency}"

    def files_lines(self) -> list[str]:
        """The header lines naming where records and logs go."""
        lines = [f"PGN: {shlex.quote(self.writer.path)}"] if self.writer is not None else []
        if self.logs is not None:
            lines.append(f"Engine logs: {shlex.quote(self.logs.directory)}")
        return lines

    def play(self, jobs: Iterable[GameJob], on_finish: Callable[[GameRecord], None]) -> None:
        """Play ``jobs``; however the run ends, settle the engines after an interruption and
        close the progress display, the PGN file and the logs."""
        live, live_pgn = self.live_paths
        publisher = None
        if live or live_pgn:
            referee = self.referee
            publisher = LiveFiles(
                live,
                live_pgn,
                header=self.live_header,
                tags=(referee.event, referee.site, referee.date),
                warn=lambda line: self.progress.message(f"Warning: {line}"),
            )
            self.pool.live = publisher

        def started(job: GameJob) -> None:
            self.games_started += 1
            self.progress.started(job)

        try:
            self.pool.run(jobs, started, on_finish)
        finally:
            if self.pool.interrupted:
                self.pool.settle()
            if publisher is not None:
                publisher.close("stopped" if self.pool.interrupted else "finished")
            self.progress.close()
            if self.logs is not None:
                self.logs.close()
            if self.writer is not None:
                self.writer.close()  # last: a disk that does not confirm the games is an error

    def interrupt(self) -> None:
        """From a signal handler: no more records, no engine left running."""
        self.pool.interrupt()
        if self.writer is not None:
            self.writer.seal()

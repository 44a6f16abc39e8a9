"""A match between two engines: the schedule, the run, the records and the summary.

Games are played in colour-reversed pairs: games 2k-1 and 2k start from the same opening
(opening k, cycling through the list), the first engine White in the first game of the pair
and Black in the second.  Every finished game is written to the PGN file at once and reported
(``Finished game N ...``); the summary comes at the end.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TextIO

from .engines import EngineSpec
from .game import GameJob, RefereeSettings
from .openings import Opening
from .pgn import PgnWriter
from .progress import Progress
from .records import GameRecord
from .runner import EngineLogs, GamePool
from .stats import MatchStats


def schedule(first: EngineSpec, second: EngineSpec, games: int, openings: list[Opening],
             variant: str) -> list[GameJob]:
    """The jobs of a match: colour-reversed pairs, each pair on its own opening."""
    jobs = []
    for index in range(games):
        opening = openings[(index // 2) % len(openings)]
        white, black = (first, second) if index % 2 == 0 else (second, first)
        jobs.append(GameJob(index + 1, white, black, opening, variant))
    return jobs


@dataclass(frozen=True)
class MatchConfig:
    """Everything a match needs; ``openings_note`` says where the openings came from (and how
    to get the same ones again)."""

    first: EngineSpec
    second: EngineSpec
    variant: str
    games: int
    openings: tuple[Opening, ...]
    openings_note: str
    referee: RefereeSettings = field(default_factory=RefereeSettings)
    concurrency: int = 1
    recover: bool = False
    pgn: str | None = None
    log_dir: str | None = None


@dataclass
class MatchOutcome:
    records: list[GameRecord]
    stats: MatchStats
    stop_reason: str | None
    interrupted: bool


class Match:
    """Runs a :class:`MatchConfig`, printing progress to ``out`` and warnings to ``err``."""

    def __init__(self, config: MatchConfig, out: TextIO, err: TextIO, *, tty: bool) -> None:
        self.config = config
        self.out = out
        self.stats = MatchStats([config.first.name, config.second.name])
        self.records: list[GameRecord] = []
        self.writer = PgnWriter(config.pgn) if config.pgn else None
        self.logs = EngineLogs(config.log_dir) if config.log_dir else None
        first, second = config.first.name, config.second.name
        self.progress = Progress(
            config.games, out, err, tty=tty,
            score_text=lambda: self._score_text(),
            score_lines=lambda: [self.stats.score_line(first, second)],
        )
        self.pool = GamePool(config.variant, config.referee, concurrency=config.concurrency,
                             recover=config.recover, logs=self.logs,
                             notify=lambda line: self.progress.message(f"Warning: {line}"))

    def _score_text(self) -> str:
        first, second = self.config.first.name, self.config.second.name
        tally = self.stats.pair(first, second)
        return f"{first} {tally.wins} - {tally.losses} {second}"

    def header(self) -> list[str]:
        config = self.config
        pairs = (config.games + 1) // 2
        lines = [
            f"Match: {config.first.name} vs {config.second.name}, variant {config.variant}, "
            f"{config.games} games ({pairs} colour-reversed pair{'s' if pairs != 1 else ''}), "
            f"concurrency {config.concurrency}",
            f"Engine {config.first.describe()}",
            f"Engine {config.second.describe()}",
            f"Openings: {config.openings_note}",
        ]
        if config.pgn:
            lines.append(f"PGN: {shlex.quote(config.pgn)}")
        if config.log_dir:
            lines.append(f"Engine logs: {shlex.quote(config.log_dir)}")
        return lines

    def _finished(self, record: GameRecord) -> None:
        if self.writer is not None:
            self.writer.write(record)
        self.records.append(record)
        self.stats.add(record)
        self.progress.finished(record)

    def run(self) -> MatchOutcome:
        """Play the match; returns when it is over, stopped, or interrupted."""
        config = self.config
        for line in self.header():
            self.out.write(line + "\n")
        self.out.flush()
        jobs = schedule(config.first, config.second, config.games, list(config.openings), config.variant)
        try:
            self.pool.run(jobs, self.progress.started, self._finished)
        finally:
            if self.pool.interrupted:
                self.pool.settle()
            self.progress.close()
            if self.writer is not None:
                self.writer.close()
            if self.logs is not None:
                self.logs.close()
        return MatchOutcome(self.records, self.stats, self.pool.stop_reason, self.pool.interrupted)

    def interrupt(self) -> None:
        """From a signal handler: no more records, no engine left running."""
        self.pool.interrupt()
        if self.writer is not None:
            self.writer.seal()

    def summary(self) -> list[str]:
        return self.stats.summary(self.config.first.name, self.config.second.name)

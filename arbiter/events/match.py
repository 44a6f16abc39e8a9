"""A match between two engines: the schedule, the run, the records and the summary.

Games are played in colour-reversed pairs: games 2k-1 and 2k start from the same opening
(opening k, cycling through the list), the first engine White in the first game of the pair
and Black in the second.  Every finished game is written to the PGN file at once and reported
(``Finished game N ...``); the summary comes at the end.

With an SPRT the first engine is tested against the second on the pairs, counted in schedule
order (:mod:`arbiter.stats.sprt_monitor`); the match stops taking new games once the test is decided
(games already running finish and are recorded), and ``games`` is then the most it plays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TextIO

from ..play.engines import EngineSpec
from ..play.referee import GameJob, RefereeSettings
from ..records.game import GameRecord, Opening
from ..stats.sprt import SprtParams
from ..stats.sprt_monitor import SprtMonitor, consecutive_pairs
from ..stats.tallies import MatchStats, consecutive_partner
from .progress import Progress
from .recorded_run import RecordedRun


def schedule(first: EngineSpec, second: EngineSpec, games: int, openings: list[Opening], variant: str) -> list[GameJob]:
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
    sprt: SprtParams | None = None
    rating_interval: int = 0  # print the standings every N finished games (0: never)
    cluster: str | None = None
    live: str | None = None
    live_pgn: str | None = None
    pgn_nodes: bool = False  # each engine move's nodes in the PGN file's comments


@dataclass
class MatchOutcome:
    """``played``: the games recorded; ``decision`` is the SPRT's, when one was reached (then
    ``stop_reason`` says so too)."""

    played: int
    stats: MatchStats
    stop_reason: str | None
    interrupted: bool
    decision: str | None = None


class Match(RecordedRun):
    """Runs a :class:`MatchConfig`, printing progress to ``out`` and warnings to ``err``."""

    def __init__(self, config: MatchConfig, out: TextIO, err: TextIO, *, tty: bool) -> None:
        super().__init__(
            config.variant,
            config.referee,
            concurrency=config.concurrency,
            recover=config.recover,
            pgn=config.pgn,
            log_dir=config.log_dir,
            cluster=config.cluster,
            live=config.live,
            live_pgn=config.live_pgn,
            pgn_nodes=config.pgn_nodes,
        )
        self.live_header.update(event=config.referee.event, games_total=config.games, done_before=0)
        self.config = config
        self.out = out
        self.stats = MatchStats([config.first.name, config.second.name], consecutive_partner(config.games))
        self.played = 0  # games recorded (their records are in the PGN, not kept: a match may be endless)
        first, second = config.first.name, config.second.name
        self.sprt = (
            SprtMonitor(config.sprt, first, consecutive_pairs(config.games)) if config.sprt is not None else None
        )
        self.progress = Progress(
            config.games,
            out,
            err,
            tty=tty,
            score_text=lambda: self._score_text(),
            score_lines=lambda: [self.stats.score_line(first, second), *self._sprt_lines()],
        )

    def _score_text(self) -> str:
        first, second = self.config.first.name, self.config.second.name
        tally = self.stats.pair(first, second)
        draws = f" - {tally.draws}" if tally.draws else ""
        text = f"{first} {tally.wins} - {tally.losses}{draws} {second}"
        return f"{text}  {self.sprt.progress()}" if self.sprt is not None else text

    def _sprt_lines(self) -> list[str]:
        return [f"SPRT: {self.sprt.state.progress()}"] if self.sprt is not None else []

    def header(self) -> list[str]:
        config = self.config
        pairs = (config.games + 1) // 2
        lines = [
            f"Match: {config.first.name} vs {config.second.name}, variant {config.variant}, "
            f"{config.games} games ({pairs} colour-reversed pair{'s' if pairs != 1 else ''}), "
            f"{self.where(config.concurrency)}",
            f"Engine {config.first.describe()}",
            f"Engine {config.second.describe()}",
            f"Openings: {config.openings_note}",
        ]
        lines += self.files_lines()
        if config.sprt is not None:
            lines.append(f"SPRT: {config.sprt.text()}, testing {config.first.name}; at most {config.games} games")
        return lines

    def _finished(self, record: GameRecord) -> None:
        if self.writer is not None:
            self.writer.write(record)
        self.played += 1
        self.stats.add(record)
        if self.sprt is not None and (decision := self.sprt.add(record)) is not None:
            self.pool.request_stop(f"SPRT {decision}")
        self.progress.finished(record)
        interval = self.config.rating_interval
        if interval and self.played % interval == 0:
            first, second = self.config.first.name, self.config.second.name
            self.progress.note(
                [
                    f"Standings after {self.played} games:",
                    self.stats.score_line(first, second),
                    self.stats.estimate(first, second).text(),
                    *self.stats.table(),
                ]
            )

    def run(self) -> MatchOutcome:
        """Play the match; returns when it is over, stopped, or interrupted."""
        config = self.config
        for line in self.header():
            self.out.write(line + "\n")
        self.out.flush()
        jobs = schedule(config.first, config.second, config.games, list(config.openings), config.variant)
        self.play(jobs, self._finished)
        decision = self.sprt.decision if self.sprt is not None else None
        return MatchOutcome(self.played, self.stats, self.pool.stop_reason, self.pool.interrupted, decision)

    def summary(self) -> list[str]:
        lines = self.stats.summary(self.config.first.name, self.config.second.name)
        return lines + self.sprt.summary() if self.sprt is not None else lines

"""Tournaments between N engines: the schedule, and the run that plays it from its database.

Schedule
    ``round-robin``: every engine meets every other; ``gauntlet``: the first engine meets each
    of the others.  Each round, each pairing plays ``games_per_pairing`` games as colour-reversed
    pairs: the two games of a pair start from the same opening, the pairing's first engine
    White in the first.  (An odd last game is a single game; its first engine is White in odd
    rounds and Black in even ones.)  Rounds come one after another; within a round the pairs
    are interleaved, pair 1 of every pairing, then pair 2 of every pairing..., so every engine
    advances at the same pace.  Every pairing of a round uses the same openings: pair ``k`` of
    round ``r`` (both from 0) takes opening ``r * pairs_per_round + k``, cycling through the list.
    Games are numbered 1.. in that order.  ``knockout`` and ``swiss`` are planned a stage at
    a time, as results come in (:mod:`arbiter.events.pairings`).

Running
    :class:`Tournament` plays the games of an :class:`~arbiter.events.store.EventStore` that have not
    finished, on a :class:`~arbiter.pools.local.GamePool`.  Each finished game is committed to the
    database first, then appended to the PGN file (if any) and reported, so the database never
    lacks a game that was reported.  A game committed but not yet in the PGN file when the
    arbiter died is appended when the event is resumed (unless the file already holds it).
    With an SPRT (two engines only), the first engine is tested (see :mod:`arbiter.stats.sprt_monitor`)
    and the event ends when the test is decided.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

from ..errors import ArbiterError
from ..live.livefiles import live_path
from ..play.engines import check_program
from ..play.referee import GameJob
from ..records.game import GameOutcome, GameRecord
from ..records.pgn import format_game
from ..report.event_report import write_report
from ..stats.ratings import RatingError, RatingTable, fit_ratings
from ..stats.sprt_monitor import SprtMonitor
from ..stats.tallies import MatchStats
from .pairings import DYNAMIC_FORMATS, EventShape, knockout_rounds, plan_event, plan_html, plan_lines
from .progress import Progress
from .recorded_run import RecordedRun
from .store import EventConfig, EventStore, ScheduledGame


def pairings(format_: str, engines: int) -> list[tuple[int, int]]:
    """The pairings of a format, as (first, second) engine indexes."""
    if format_ == "gauntlet":
        return [(0, other) for other in range(1, engines)]
    if format_ == "round-robin":
        return [(first, second) for first in range(engines) for second in range(first + 1, engines)]
    raise ArbiterError(f"unknown tournament format {format_!r} (round-robin or gauntlet)")


def pairs_per_round(games_per_pairing: int) -> int:
    """Colour-reversed pairs (an odd last game counting as one) each pairing plays per round."""
    return (games_per_pairing + 1) // 2


def make_schedule(
    format_: str, engines: int, rounds: int, games_per_pairing: int, openings: int | None = None
) -> list[ScheduledGame]:
    """Every game of the event, in playing order (see the module docstring); ``openings`` is
    the length of the openings list (default: as many as :func:`openings_needed`)."""
    count = openings or openings_needed(rounds, games_per_pairing)
    if format_ in DYNAMIC_FORMATS:  # the first stage only
        shape = EventShape(format_, tuple(map(str, range(engines))), rounds, games_per_pairing, count)
        return plan_event(shape, [], {}).next_games
    games: list[ScheduledGame] = []
    pair_id = 0
    per_round = pairs_per_round(games_per_pairing)
    for round_ in range(rounds):
        for k in range(per_round):
            opening = (round_ * per_round + k) % count
            in_pair = 2 if 2 * k + 1 < games_per_pairing else 1
            for pairing, (first, second) in enumerate(pairings(format_, engines)):
                pair_id += 1
                orders = [(first, second), (second, first)]
                if in_pair == 1 and round_ % 2 == 1:
                    orders.reverse()
                for white, black in orders[:in_pair]:
                    games.append(ScheduledGame(len(games) + 1, round_ + 1, pairing, pair_id, white, black, opening))
    return games


def openings_needed(rounds: int, games_per_pairing: int) -> int:
    return rounds * pairs_per_round(games_per_pairing)


def colour_reversed_pairs(schedule: list[ScheduledGame]) -> list[tuple[int, int]]:
    """The game numbers of every two-game pair, in schedule order."""
    members: dict[int, list[int]] = {}
    for game in schedule:
        members.setdefault(game.pair, []).append(game.number)
    return [(numbers[0], numbers[1]) for numbers in members.values() if len(numbers) == 2]


def check_config(config: EventConfig) -> None:
    """The event makes sense: engines for the format, SPRT only between two, a known anchor."""
    names = [spec.name for spec in config.engines]
    if len(names) < 2:
        raise ArbiterError(f"a tournament needs at least two engines; {len(names)} given")
    if config.sprt is not None and config.format in DYNAMIC_FORMATS:
        raise ArbiterError(f"--sprt needs a fixed schedule: use a match or a round-robin, not {config.format}")
    if config.sprt is not None and len(names) != 2:
        raise ArbiterError(f"--sprt tests one engine against another: give exactly two engines, not {len(names)}")
    if config.format == "knockout" and config.rounds != knockout_rounds(len(names)):
        raise ArbiterError(
            f"a knockout of {len(names)} engines has {knockout_rounds(len(names))} round(s); leave out --rounds"
        )
    if config.anchor is not None and config.anchor[0] not in names:
        raise ArbiterError(f"--anchor {config.anchor[0]}: no engine of that name (the engines: {', '.join(names)})")


def event_sprt(config: EventConfig, schedule: list[ScheduledGame], outcomes: list[GameOutcome]) -> SprtMonitor | None:
    """The event's SPRT (None without one) fed with the finished games ``outcomes``: what a run,
    or a reader of the database, knows of the test."""
    if config.sprt is None:
        return None
    monitor = SprtMonitor(config.sprt, config.engines[0].name, colour_reversed_pairs(schedule))
    for outcome in outcomes:
        monitor.add(outcome)
    return monitor


@dataclass(frozen=True)
class EventEnd:
    """Whether an event is over (``resume`` would play nothing), and its SPRT decision if any."""

    over: bool
    decision: str | None


def event_end(store: EventStore, outcomes: list[GameOutcome]) -> EventEnd:
    """Whether ``store``'s event (``outcomes``: its finished games) is over, as :meth:`Tournament.run`
    decides it: its SPRT decided, or every scheduled game finished and, for a knockout or Swiss
    event, its plan complete (one stopped between stages has every stored game finished)."""
    config = store.config
    need_schedule = config.sprt is not None or config.format in DYNAMIC_FORMATS
    schedule = store.schedule if need_schedule else []
    sprt = event_sprt(config, schedule, outcomes)
    if sprt is not None and sprt.decision is not None:
        return EventEnd(True, sprt.decision)
    done = {outcome.number for outcome in outcomes}
    if len(done) < store.scheduled():
        return EventEnd(False, None)
    if config.format in DYNAMIC_FORMATS:
        plan = plan_event(EventShape.of(config), schedule, {outcome.number: outcome.result for outcome in outcomes})
        return EventEnd(plan.complete or not plan.next_games, None)
    return EventEnd(True, None)


@dataclass
class TournamentOutcome:
    """How a run ended: ``stop_reason`` when it stopped early (the SPRT's ``decision``, or an
    engine that may not be restarted)."""

    stop_reason: str | None
    decision: str | None


class Tournament(RecordedRun):
    """Plays the unfinished games of ``store``'s event (see the module docstring), printing
    progress to ``out`` and warnings to ``err``.  ``concurrency`` overrides the stored one;
    ``cluster`` the stored Dask scheduler address (``""``: play on local threads)."""

    def __init__(
        self,
        store: EventStore,
        out: TextIO,
        err: TextIO,
        *,
        tty: bool,
        concurrency: int | None = None,
        cluster: str | None = None,
    ) -> None:
        self.store = store
        config = store.config if concurrency is None else store.config.with_concurrency(concurrency)
        if cluster is not None:
            config = dataclasses.replace(config, cluster=cluster or None)
        super().__init__(
            config.variant,
            config.referee,
            concurrency=config.concurrency,
            recover=config.recover,
            pgn=config.pgn,
            log_dir=config.log_dir,
            cluster=config.cluster,
            live=live_path(store.path),
            live_pgn=config.live_pgn,
            pgn_nodes=config.pgn_nodes,
        )
        self.config = config
        self.out = out
        self.names = [spec.name for spec in config.engines]
        self.stats = MatchStats(self.names)
        earlier = store.outcomes()  # the results of earlier runs' games: their moves are not read
        self.sprt = event_sprt(config, store.schedule, earlier)
        for outcome in earlier:
            self.stats.add(outcome)
        self.finished_before = len(earlier)
        self.results = {outcome.number: outcome.result for outcome in earlier}
        self.shape = EventShape.of(config)
        self._stage = threading.Condition()
        self.live_header.update(
            event=config.name, db=os.path.abspath(store.path), games_total=len(store.schedule), done_before=len(earlier)
        )
        self.played = 0
        self.last: tuple[str, str] | None = None
        self.progress = Progress(
            len(store.schedule),
            out,
            err,
            tty=tty,
            score_text=self._score_text,
            score_lines=self._score_lines,
            done_before=len(earlier),
        )

    # -- what the user sees ---------------------------------------------------------------
    def _score_text(self) -> str:
        if len(self.names) == 2:
            first, second = self.names
            tally = self.stats.pair(first, second)
            text = f"{first} {tally.wins} - {tally.losses} {second}"
        else:
            leader = max(self.names, key=lambda name: self.stats.engines[name].total.points)
            total = self.stats.engines[leader].total
            text = f"leader {leader} {total.points:g}/{total.games}"
        return f"{text}  {self.sprt.progress()}" if self.sprt is not None else text

    def _score_lines(self) -> list[str]:
        lines = [self.stats.score_line(*self.last)] if self.last is not None else []
        if self.sprt is not None:
            lines.append(f"SPRT: {self.sprt.state.progress()}")
        return lines

    def header(self) -> list[str]:
        config = self.config
        total = len(self.store.schedule)
        recover = "" if config.recover else ", no recover"
        resume = f"dipole-arbiter resume {shlex.quote(self.store.path)}"
        count = f"{total} games" if config.format not in DYNAMIC_FORMATS else f"{total} games planned so far"
        settings = config.settings(count)
        lines = [
            f"Tournament: {dict(settings)['Format']}, {count}, variant {config.variant}, "
            f"{self.where(config.concurrency)}{recover}"
        ]
        lines += [f"{label}: {text}" for label, text in settings if label.startswith("Engine ") or label == "Openings"]
        lines.append(f"Event database: {self.store.path} (continue an interrupted run with: {resume})")
        lines += self.files_lines()
        lines += [f"SPRT: {text}" for label, text in settings if label == "SPRT"]
        if self.finished_before:
            lines.append(f"Resuming: {self.finished_before} of {total} games already finished")
        return lines

    # -- running ----------------------------------------------------------------------------
    @property
    def done(self) -> int:
        """Games of the event finished so far, by this run and earlier ones."""
        return self.finished_before + self.played

    def _finished(self, record: GameRecord) -> None:
        self.store.commit(record)
        if self.writer is not None and self.writer.write(record):
            self.store.mark_pgn_written([record.number])
        self.played += 1
        with self._stage:
            self.results[record.number] = record.result
            self._stage.notify_all()
        first, second = sorted((record.white, record.black), key=self.names.index)
        self.last = (first, second)
        self.stats.add(record)
        if self.sprt is not None and (decision := self.sprt.add(record)) is not None:
            self.pool.request_stop(f"SPRT {decision}")
        self.progress.finished(record)
        interval = self.config.rating_interval
        if interval and self.done % interval == 0:
            self.progress.note([f"Standings after {self.done} games:", *self.ratings().text().rstrip("\n").split("\n")])

    def _append_missing_pgn(self) -> None:
        """Games committed before the last run died, but maybe not yet in the PGN file."""
        pending = self.store.pgn_pending()
        if self.writer is None or not pending:
            return
        try:
            with open(self.writer.path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError):
            text = ""
        for record in self.store.records(pending):
            if format_game(record) not in text:
                self.writer.write(record)
        self.store.mark_pgn_written(pending)

    def run(self) -> TournamentOutcome:
        """Play every unfinished game; returns when all are done, the SPRT decided, the pool
        stopped, or a signal interrupted it (see :meth:`interrupt`)."""
        for line in self.header():
            self.out.write(line + "\n")
        self.out.flush()
        finished = self.store.finished()
        decided = self.sprt is not None and self.sprt.decision is not None
        jobs = [] if decided else [self.config.job(game) for game in self.store.schedule if game.number not in finished]
        for spec in {spec.name: spec for job in jobs for spec in (job.white, job.black)}.values():
            if self.cluster is None:  # on a cluster, each worker looks its engines up itself
                check_program(spec)  # an engine moved away since the event began: say so, play nothing
        self._append_missing_pgn()
        self.play(self._stages(jobs) if self.config.format in DYNAMIC_FORMATS else jobs, self._finished)
        decision = self.sprt.decision if self.sprt is not None else None
        stop_reason = self.pool.stop_reason or (f"SPRT {decision}" if decision and not jobs else None)
        return TournamentOutcome(stop_reason, decision)

    def _stages(self, planned: list[GameJob]) -> Iterator[GameJob]:
        """The jobs of a knockout or Swiss event: those already planned, then, each time every
        game so far has finished, the next stage (stored first).  The pool pulls from this on
        a worker thread; that worker waits here while the stage's last games finish."""
        yield from planned
        while True:
            with self._stage:
                while not all(game.number in self.results for game in self.store.schedule):
                    if self.pool.stopping():
                        return
                    self._stage.wait(0.5)
            if self.pool.stopping():
                return
            plan = plan_event(self.shape, self.store.schedule, dict(self.results))
            if plan.complete or not plan.next_games:
                return
            self.store.extend_schedule(plan.next_games)
            self.progress.total = len(self.store.schedule)
            stage = plan.next_games
            firsts: dict[int, ScheduledGame] = {}
            for game in stage:
                firsts.setdefault(game.pairing, game)
            pairings = ", ".join(f"{self.names[game.white]} vs {self.names[game.black]}" for game in firsts.values())
            self.progress.note([f"Round {stage[0].round}: games {stage[0].number}-{stage[-1].number} ({pairings})"])
            yield from (self.config.job(game) for game in stage)

    def plan_lines(self) -> list[str]:
        """A knockout's bracket or a Swiss event's pairings so far (nothing for other formats)."""
        if self.config.format not in DYNAMIC_FORMATS:
            return []
        return plan_lines(self.shape, plan_event(self.shape, self.store.schedule, dict(self.results)))

    # -- the end ------------------------------------------------------------------------------
    def ratings(self) -> RatingTable:
        """The ratings of every finished game of the event (this run's and earlier ones), fitted
        from the results alone (the moves are not read)."""
        records = self.store.outcomes()
        try:
            return fit_ratings(records, engines=self.names, anchor=self.config.anchor)
        except RatingError:  # the anchor engine has no finished game yet
            return fit_ratings(records, engines=self.names)

    def summary(self) -> list[str]:
        """The ratings table, the termination counts, the SPRT's decision; writes the report."""
        table = self.ratings()
        lines = table.text().rstrip("\n").split("\n")
        if self.config.format in DYNAMIC_FORMATS:
            lines += ["", *self.plan_lines()]
        lines += ["", self.stats.termination_line()]
        if self.stats.unfinished:
            lines.append(f"Unfinished games (not rated): {self.stats.unfinished}")
        if self.sprt is not None:
            lines += self.sprt.summary()
        if self.config.report:
            lines.append(self.write_report(table))
        return lines

    def write_report(self, table: RatingTable) -> str:
        config = self.config
        details = config.settings(f"{self.done} of {len(self.store.schedule)} finished")
        if self.sprt is not None:
            details.append(("SPRT result", self.sprt.state.summary()))
        path = config.report
        assert path is not None
        try:
            sections = (
                [plan_html(self.shape, plan_event(self.shape, self.store.schedule, dict(self.results)))]
                if config.format in DYNAMIC_FORMATS
                else []
            )
            write_report(path, table, self.stats.terminations, title=config.name, details=details, sections=sections)
        except OSError as error:
            return f"Warning: cannot write the report {path}: {error.strerror or error}"
        return f"Report: {os.path.abspath(path)}"

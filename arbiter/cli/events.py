"""The event commands of ``dipole-arbiter``: ``tournament``, ``resume``, ``export`` and ``ratings``.

``tournament`` plans an event, stores it in a new SQLite database (:mod:`arbiter.events.store`) and
plays it (:mod:`arbiter.events.tournament`); ``resume DB`` plays what is left of it with the settings
stored in the database; ``export DB --pgn FILE`` writes its games as PGN; ``ratings`` fits
ratings to games from event databases and PGN files, and can write the HTML report.

Exit status: 0 when the event is complete (or its SPRT decided), 1 when it stopped early
because an engine could no longer play (``--no-recover``), 128 + N after signal N (the event
can be resumed), 2 for bad input (one line).
"""

from __future__ import annotations

import datetime
import os
import shlex
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from ..errors import ArbiterError
from ..events.pairings import DYNAMIC_FORMATS, event_file_plan, knockout_rounds
from ..events.pairings import openings_needed as stage_openings_needed
from ..events.store import FORMATS, EventConfig, EventStore, is_event_file
from ..events.tournament import Tournament, check_config, make_schedule, openings_needed
from ..files import check_log_directory, check_outputs, replace_text_chunks
from ..live.livefiles import LIVE_SUFFIX, check_live_file
from ..play.engines import EngineSpec
from ..play.referee import SetupError
from ..records.game import GameOutcome, Opening
from ..records.pgn import format_game, read_pgn_file
from ..report.event_report import write_report
from ..stats.ratings import RatingError, fit_ratings
from .options import (
    MAX_CONCURRENCY,
    MAX_GAMES,
    EngineWordsCommand,
    EventOptions,
    Interrupted,
    anchor_value,
    cluster_value,
    conclude,
    event_options,
    run_interruptible,
    show_warnings,
)

DEMO_ENGINES = (("dipole-d3", "3"), ("dipole-d2", "2"), ("dipole-d1", "1"))  # the demo: (name, depth)
DEFAULT_GAMES_PER_PAIRING = 2


def default_db_path() -> str:
    """``tournament-<date>-<time>.db`` in the working directory (``-2``, ``-3``... if taken)."""
    stem = datetime.datetime.now().strftime("tournament-%Y%m%d-%H%M%S")
    path, number = f"{stem}.db", 1
    while os.path.exists(path):
        number += 1
        path = f"{stem}-{number}.db"
    return path


def _absolute(path: str | None) -> str | None:
    """Paths are stored absolute, so ``resume`` works from any directory."""
    return os.path.abspath(path) if path else None


@click.command("tournament", cls=EngineWordsCommand)
@event_options(event="dipole-arbiter tournament", recover=True)
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS),
    default="round-robin",
    show_default=True,
    help="round-robin: every engine meets every other; gauntlet: the first engine meets each other; "
    "knockout: seeded single elimination; swiss: --rounds rounds of engines with similar scores.",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1, max=MAX_GAMES),
    default=1,
    show_default=True,
    help="Rounds of the schedule (a knockout's follow from the number of engines).",
)
@click.option(
    "--games",
    type=click.IntRange(min=1, max=MAX_GAMES),
    default=DEFAULT_GAMES_PER_PAIRING,
    show_default=True,
    help="Games each pairing plays per round, as colour-reversed pairs sharing an opening.",
)
@click.option(
    "--db",
    "db_path",
    metavar="FILE",
    help="The event database (created; must not exist) [default: tournament-<date>-<time>.db here].",
)
@click.option("--report", "report_path", metavar="FILE.html", help="Write the HTML report here at the end.")
@click.option("--anchor", callback=anchor_value, metavar="NAME=RATING", help="Fix that engine's rating (scale).")
def tournament_command(**values: Any) -> int:
    """Play a tournament between N engines, kept in an SQLite event database.

    Crashed engines are restarted and the event goes on (--no-recover to stop instead).  An
    interrupted event continues with `dipole-arbiter resume DB`.  With no engines, the
    project's own engine plays a round-robin at depths 3, 2 and 1 (a demo).
    """
    options = EventOptions.take(values)
    format_: str = values["format_"]
    rounds: int = values["rounds"]
    games: int = values["games"]
    warnings: list[str] = []
    specs, demo = options.specs(DEMO_ENGINES, warnings)
    if format_ == "knockout" and rounds == 1:
        rounds = knockout_rounds(len(specs))  # the bracket's rounds follow from the engines
    _check_size(format_, len(specs), rounds, games)
    db_path = values["db_path"]
    report = values["report_path"]
    check_event_outputs(options, db_path, report)
    needed = (
        stage_openings_needed(format_, len(specs), rounds, games)
        if format_ in DYNAMIC_FORMATS
        else openings_needed(rounds, games)
    )
    openings, note = options.openings(needed, demo)
    return create_event(
        options,
        format_,
        specs,
        rounds,
        games,
        (openings, note),
        db_path or default_db_path(),
        warnings,
        report=report,
        anchor=values["anchor"],
    )


def check_event_outputs(options: EventOptions, db_path: str | None, report: str | None = None) -> None:
    """Refuse, before anything is played, an event whose files clash or cannot be written."""
    if db_path is not None and not db_path.strip():
        raise ArbiterError("--db: the file name is empty")
    database = [("the event database", db_path or default_db_path())]
    check_outputs([("--pgn", options.pgn_path), ("--report", report)], database)
    check_log_directory(options.log_dir, database)
    check_live_file(options.live_pgn, "--live-pgn")


def create_event(
    options: EventOptions,
    format_: str,
    specs: list[EngineSpec],
    rounds: int,
    games: int,
    openings: tuple[list[Opening], str],
    db_path: str,
    warnings: list[str],
    report: str | None = None,
    anchor: tuple[str, float] | None = None,
) -> int:
    """Create the event database of a new event (``format_``, its engines, ``rounds`` of
    ``games`` games a pairing, the openings and their note) and play it: the one way a
    tournament, or a match kept in a database, begins."""
    config = EventConfig(
        format=format_,
        variant=options.variant,
        engines=tuple(specs),
        rounds=rounds,
        games_per_pairing=games,
        openings=tuple(openings[0]),
        openings_note=openings[1],
        referee=options.referee(),
        concurrency=options.concurrency,
        recover=options.recover,
        pgn=_absolute(options.pgn_path),
        pgn_nodes=options.pgn_nodes,
        log_dir=_absolute(options.log_dir),
        report=_absolute(report),
        anchor=anchor,
        sprt=options.sprt,
        command_line=event_command_line(),
        rating_interval=options.rating_interval,
        cluster=options.cluster,
        live_pgn=_absolute(options.live_pgn),
    )
    check_config(config)
    show_warnings(warnings)
    schedule = make_schedule(format_, len(specs), rounds, games, len(openings[0]))
    store = EventStore.create(db_path, config, schedule)
    return run_event(store, None, created=True)


def event_command_line() -> str:
    """The command that started the event, as stored in its database."""
    return shlex.join(["dipole-arbiter", *sys.argv[1:]])


def _check_size(format_: str, engines: int, rounds: int, games: int) -> None:
    """Refuse an event too large to plan (every game is scheduled up front)."""
    pairings = {"gauntlet": engines - 1, "swiss": (engines + 1) // 2, "knockout": engines}.get(
        format_, engines * (engines - 1) // 2
    )  # per round, at most
    total = pairings * rounds * games
    if total > MAX_GAMES:
        raise ArbiterError(f"the event would have {total:,} games; at most {MAX_GAMES:,} can be scheduled")


@click.command("resume")
@click.argument("db_path", metavar="DB")
@click.option(
    "--concurrency",
    type=click.IntRange(min=1, max=MAX_CONCURRENCY),
    help="Games at once [default: as the event was started].",
)
@click.option(
    "--cluster",
    callback=cluster_value,
    metavar="tcp://HOST:PORT",
    help="Play on this Dask cluster [default: where the event was started].",
)
@click.option("--local", is_flag=True, help="Play on local threads, though the event was started on a cluster.")
def resume_command(db_path: str, concurrency: int | None, cluster: str | None, local: bool) -> int:
    """Continue an interrupted event from its database, with the settings stored in it.

    Finished games are kept; games that were in progress are played again.
    """
    if cluster is not None and local:
        raise ArbiterError("give --cluster ADDRESS or --local, not both")
    return run_event(EventStore.open(db_path, write=True), concurrency, created=False, cluster="" if local else cluster)


def run_event(store: EventStore, concurrency: int | None, *, created: bool, cluster: str | None = None) -> int:
    """Play ``store``'s event with signal handling; prints the summary; the exit status.

    When the very first run of an event fails before it got going (no game finished, and none
    handed out or its engines cannot be set up as asked), the new database is removed, so the
    same command can be given again once fixed; a database that holds a started event is
    kept, for ``resume``.  ``cluster`` overrides where the event was played (``""``: locally)."""
    tournament: Tournament | None = None
    try:
        tournament = Tournament(
            store, sys.stdout, sys.stderr, tty=sys.stdout.isatty(), concurrency=concurrency, cluster=cluster
        )
        outcome = run_interruptible(tournament.run, tournament.interrupt)
        summary = tournament.summary()
    except ArbiterError as error:
        untouched = tournament is None or tournament.games_started == 0 or isinstance(error, SetupError)
        unplayed = created and untouched and not store.finished()
        store.close()
        if unplayed:
            _remove_database(store.path)
        raise
    store.close()
    resume = f"continue with: dipole-arbiter resume {shlex.quote(store.path)}"
    done, total = tournament.done, len(store.schedule)
    if isinstance(outcome, Interrupted):
        return conclude(
            f"Interrupted by {outcome}: {done} of {total} games finished; the game(s) in progress "
            f"were abandoned; {resume}",
            summary,
            interrupted=outcome,
            stopped_early=True,
            done="",
        )
    headline = None
    if outcome.stop_reason:
        more = "" if outcome.decision else f"; {resume}"
        headline = f"Tournament stopped after {done} of {total} games: {outcome.stop_reason}{more}"
    failed = outcome.stop_reason is not None and outcome.decision is None
    return conclude(headline, summary, interrupted=None, stopped_early=failed, done="Finished tournament")


def _remove_database(path: str) -> None:
    for suffix in ("", "-wal", "-shm", LIVE_SUFFIX):
        Path(path + suffix).unlink(missing_ok=True)


@click.command("export")
@click.argument("db_path", metavar="DB")
@click.option("--pgn", "pgn_path", required=True, metavar="FILE", help="The PGN file to write ('-': standard output).")
def export_command(db_path: str, pgn_path: str) -> int:
    """Write every finished game of an event database as PGN, in game order.

    The games are written as they are read, so memory does not grow with the event.  The file
    is replaced as a whole (written beside it, then renamed), never left half written.
    """
    check_outputs([("--pgn", pgn_path)], [("the event database", db_path)])
    store = EventStore.open(db_path, write=False)
    exported = 0

    def pgn() -> Iterator[str]:
        nonlocal exported
        for record in store.iter_records():
            yield format_game(record)
            exported += 1

    try:
        total = store.scheduled()
        if pgn_path == "-":
            sys.stdout.writelines(pgn())
            return 0
        try:
            replace_text_chunks(pgn_path, pgn())
        except OSError as error:
            raise ArbiterError(f"PGN file {pgn_path}: {error.strerror or error}") from None
    finally:
        store.close()
    print(f"Exported {exported} of {total} scheduled games to {pgn_path}")
    return 0


def _read_games(path: str) -> tuple[list[GameOutcome], list[str]]:
    """The results of an event database's or a PGN file's games (a database's moves are not
    read), and the engine names it knows of."""
    if is_event_file(path):
        store = EventStore.open(path, write=False)
        try:
            return store.outcomes(), [spec.name for spec in store.config.engines]
        finally:
            store.close()
    return [GameOutcome.of(game.to_record()) for game in read_pgn_file(path)], []


@click.command("ratings")
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@click.option("--anchor", callback=anchor_value, metavar="NAME=RATING", help="Fix that engine's rating (scale).")
@click.option("--report", "report_path", metavar="FILE.html", help="Also write the self-contained HTML report.")
def ratings_command(inputs: tuple[str, ...], anchor: tuple[str, float] | None, report_path: str | None) -> int:
    """Rate engines from their games: event databases and/or PGN files.

    Prints the standings (rating, 95% interval, games, score, flags), the White advantage, the
    crosstable with per-colour results and the likelihood-of-superiority matrix.
    """
    check_outputs([("--report", report_path)], [(f"the input {path}", path) for path in inputs])
    records: list[GameOutcome] = []
    engines: list[str] = []
    for path in inputs:
        games, names = _read_games(path)
        records += games
        engines += names
    try:
        table = fit_ratings(records, engines=list(dict.fromkeys(engines)), anchor=anchor)
    except RatingError as error:
        raise ArbiterError(str(error)) from None
    terminations = Counter(record.termination.label for record in records)
    counts = ", ".join(f"{label} {count}" for label, count in terminations.most_common())
    sys.stdout.write(table.text())
    plans = [event_file_plan(path) for path in inputs if is_event_file(path)]
    for lines, _ in plans:
        if lines:
            print("\n" + "\n".join(lines))
    print(f"\nTerminations: {counts or 'none'}")
    if report_path:
        details = [("Games from", ", ".join(inputs)), ("Games", str(len(records)))]
        try:
            write_report(
                report_path,
                table,
                terminations,
                title="Ratings",
                details=details,
                sections=[section for _, section in plans if section is not None],
            )
        except OSError as error:
            raise ArbiterError(f"report {report_path}: {error.strerror or error}") from None
        print(f"Report: {report_path}")
    return 0

"""The ``dipole-arbiter`` command: ``match`` (play and record a match; with ``--db``, kept in
an event database like a tournament's, so it can be resumed), ``replay`` (check
records), the event commands of :mod:`.events` (``tournament``, ``resume``, ``export``,
``ratings``), ``openings`` (:mod:`.openings`) and ``publish`` (:mod:`.publish`).

Bad input of any kind ends in one line, ``dipole-arbiter: error: <reason>``, and status 2.
A match interrupted by Ctrl-C, SIGTERM or SIGHUP kills every engine, writes no partial game,
prints the summary of the games that finished, and exits with 128 + the signal number.  A
match stopped by its SPRT's decision has finished normally (status 0).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from dipole_engine import clikit

from ..errors import ArbiterError
from ..events.match import Match, MatchConfig
from ..files import check_log_directory, check_outputs
from ..live.publisher import check_live_file
from ..play.replay import check_games
from ..records.pgn import read_pgn_file
from .check import check_engine_command
from .events import (
    check_event_outputs,
    create_event,
    export_command,
    ratings_command,
    resume_command,
    tournament_command,
)
from .openings import openings_command
from .options import (
    MAX_GAMES,
    SEPARATOR,
    EngineWordsCommand,
    EventOptions,
    Interrupted,
    conclude,
    event_options,
    group_settings,
    run_interruptible,
    show_warnings,
)
from .publish import publish_command

__all__ = ["SEPARATOR", "cli", "group_settings", "main"]

PROG = "dipole-arbiter"
DEFAULT_GAMES = 10
DEMO_GAMES = 80  # about a minute on this project's 2-core machine at these depths
SPRT_GAMES = 2000  # the most games an SPRT match plays unless --games says otherwise
DEMO_ENGINES = (("dipole-d4", "4"), ("dipole-d2", "2"))  # the demo: (name, search depth)


class _Failure(click.ClickException):
    exit_code = 2


class _Group(click.Group):
    """Turns the arbiter's input errors into click errors, so clikit prints them as one line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ArbiterError as error:
            raise _Failure(str(error)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Run refereed matches and tournaments between engine processes, check game records,
    and rate engines."""


@cli.command("match", cls=EngineWordsCommand)
@event_options(event="dipole-arbiter match", recover=False)
@click.option(
    "--games",
    type=click.IntRange(min=1, max=MAX_GAMES),
    default=None,
    help=f"Number of games, played as colour-reversed pairs sharing an opening "
    f"[default: {DEFAULT_GAMES}; {DEMO_GAMES} for the demo; with --sprt, at most {SPRT_GAMES}].",
)
@click.option(
    "--live",
    "live_path",
    metavar="FILE.json",
    help="Keep the games in progress (moves, clocks, engine lines) in this JSON file for viewers.",
)
@click.option(
    "--db",
    "db_path",
    metavar="FILE",
    help="Keep the match in a new event database, as a tournament of these two engines "
    "(resumable with `dipole-arbiter resume`; the live file is then FILE-live.json).",
)
def match_command(**values: Any) -> int:
    """Play a match between two engines, refereed and recorded.

    With no engines, the project's own engine plays itself at depths 4 and 2 from random
    4-ply openings (a demo that takes about a minute).
    """
    options = EventOptions.take(values)
    games: int | None = values.pop("games")
    live: str | None = values.pop("live_path")
    db_path: str | None = values.pop("db_path")
    for path, flag in ((live, "--live"), (options.live_pgn, "--live-pgn")):
        check_live_file(path, flag)
    warnings: list[str] = []
    specs, demo = options.specs(DEMO_ENGINES, warnings)
    if games is None:
        games = SPRT_GAMES if options.sprt is not None else DEMO_GAMES if demo else DEFAULT_GAMES
    if len(specs) != 2:
        raise ArbiterError(f"a match is between two engines; {len(specs)} given")
    check_outputs([("--pgn", options.pgn_path)])
    check_log_directory(options.log_dir, [("the PGN file", options.pgn_path)] if options.pgn_path else [])
    openings, note = options.openings((games + 1) // 2, demo)
    if db_path is not None:
        if live is not None:
            raise ArbiterError("give --live or --db, not both (an event database keeps its live file beside it)")
        # A round-robin of the two engines, one round of `games` games: its schedule is the
        # match's (colour-reversed pairs, one opening each, the first engine White first).
        check_event_outputs(options, db_path)
        return create_event(options, "round-robin", specs, 1, games, (openings, note), db_path, warnings)
    match_config = MatchConfig(
        specs[0],
        specs[1],
        options.variant,
        games,
        tuple(openings),
        note,
        options.referee(),
        concurrency=options.concurrency,
        recover=options.recover,
        pgn=options.pgn_path,
        log_dir=options.log_dir,
        sprt=options.sprt,
        rating_interval=options.rating_interval,
        cluster=options.cluster,
        live=live,
        live_pgn=options.live_pgn,
    )
    show_warnings(warnings)
    return run_match(match_config)


def run_match(config: MatchConfig) -> int:
    """Play the match with signal handling; the exit status (1 if it stopped early)."""
    match = Match(config, sys.stdout, sys.stderr, tty=sys.stdout.isatty())
    outcome = run_interruptible(match.run, match.interrupt)
    if isinstance(outcome, Interrupted):
        return conclude(
            f"Interrupted by {outcome}: {len(match.records)} of {config.games} games finished; "
            f"the game(s) in progress were abandoned and not recorded",
            match.summary(),
            interrupted=outcome,
            stopped_early=True,
            done="",
        )
    headline = None
    if outcome.stop_reason:
        headline = f"Match stopped after {len(outcome.records)} of {config.games} games: {outcome.stop_reason}"
    failed = outcome.stop_reason is not None and outcome.decision is None
    return conclude(headline, match.summary(), interrupted=None, stopped_early=failed, done="Finished match")


@cli.command("replay")
@click.argument("files", nargs=-1, required=True, metavar="FILE.pgn...")
def replay_command(files: tuple[str, ...]) -> int:
    """Replay every game of PGN records through the rules; report any that do not hold.

    Exit status 1 when some game does not hold, 2 when a file cannot be read.
    """
    bad = 0
    for path in files:
        games = read_pgn_file(path)
        problems = check_games(games)
        for problem in problems:
            print(f"{path}: {problem}")
        bad += len(problems)
        verdict = "all hold" if not problems else f"{len(problems)} do not hold"
        print(f"{path}: {len(games)} game{'s' if len(games) != 1 else ''} replayed, {verdict}")
    return 1 if bad else 0


for _command in (
    tournament_command,
    resume_command,
    export_command,
    ratings_command,
    openings_command,
    check_engine_command,
    publish_command,
):
    cli.add_command(_command)


def main() -> None:
    clikit.run(cli, PROG)

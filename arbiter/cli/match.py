"""``dipole-arbiter match``: play a match between two engines, refereed and recorded (with
``--db``, kept in an event database like a tournament's, so it can be resumed)."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import ArbiterError
from ..events.match import Match, MatchConfig
from ..files import check_log_directory, check_outputs
from ..live.livefiles import check_live_file
from .options import (
    MAX_GAMES,
    EngineWordsCommand,
    EventOptions,
    Interrupted,
    conclude,
    event_options,
    run_interruptible,
    show_warnings,
)

DEFAULT_GAMES = 10
DEMO_GAMES = 80  # about a minute on this project's 2-core machine at these depths
SPRT_GAMES = 2000  # the most games an SPRT match plays unless --games says otherwise
DEMO_ENGINES = (("dipole-d4", "4"), ("dipole-d2", "2"))  # the demo: (name, search depth)


@click.command("match", cls=EngineWordsCommand)
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
        from .events import check_event_outputs, create_event  # the event database's modules: only here

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
        pgn_nodes=options.pgn_nodes,
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
            f"Interrupted by {outcome}: {match.played} of {config.games} games finished; "
            f"the game(s) in progress were abandoned and not recorded",
            match.summary(),
            interrupted=outcome,
            stopped_early=True,
            done="",
        )
    headline = None
    if outcome.stop_reason:
        headline = f"Match stopped after {outcome.played} of {config.games} games: {outcome.stop_reason}"
    failed = outcome.stop_reason is not None and outcome.decision is None
    return conclude(headline, match.summary(), interrupted=None, stopped_early=failed, done="Finished match")

"""The ``dipole-arbiter`` command: ``match`` (play and record a match) and ``replay`` (check records).

Bad input of any kind ends in one line, ``dipole-arbiter: error: <reason>``, and status 2.
A match interrupted by Ctrl-C, SIGTERM or SIGHUP kills every engine, writes no partial game,
prints the summary of the games that finished, and exits with 128 + the signal number.
"""

from __future__ import annotations

import contextlib
import datetime
import secrets
import signal
import sys
from typing import Any, Callable, Iterator

import click

from dipole_engine import clikit
from dipole_engine.rules import all_variants

from .engines import load_config, own_engine_command, resolve_engines
from .errors import ArbiterError
from .game import RefereeSettings
from .match import Match, MatchConfig
from .openings import START, Opening, generate_openings, load_openings
from .pgn import read_pgn_file
from .replay import check_games

PROG = "dipole-arbiter"
VARIANT_NAMES = [variant.name for variant in all_variants()]
GROUPED_FLAGS = ("--engine", "--each")
SEPARATOR = "\x00"  # joins the key=value tokens of one --engine/--each (never in an argument)
DEFAULT_GAMES = 10
DEMO_GAMES = 80  # about a minute on this project's 2-core machine at these depths
DEMO_OPENING_PLIES = 4
DEMO_ENGINES = (("dipole-d4", "4"), ("dipole-d2", "2"))  # the demo: (name, search depth)
INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Failure(click.ClickException):
    exit_code = 2


class _Group(click.Group):
    """Turns the arbiter's input errors into click errors, so clikit prints them as one line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ArbiterError as error:
            raise _Failure(str(error)) from None


class _MatchCommand(click.Command):
    """Lets ``--engine`` and ``--each`` take several ``key=value`` words, as cutechess-cli does."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, group_settings(args))


def group_settings(args: list[str]) -> list[str]:
    """``--engine a=1 b=2 --games 4`` -> ``--engine 'a=1<SEP>b=2' --games 4``."""
    grouped: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        grouped.append(arg)
        index += 1
        if arg == "--":
            grouped.extend(args[index:])
            break
        if arg in GROUPED_FLAGS:
            words = []
            while index < len(args) and "=" in args[index] and not args[index].startswith("-"):
                words.append(args[index])
                index += 1
            if words:
                grouped.append(SEPARATOR.join(words))
    return grouped


class Interrupted(Exception):
    """Raised in the main thread by the signal handler, once the engines are dead."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def interrupt_on_signals(on_signal: Callable[[], None]) -> Iterator[None]:
    """While active, Ctrl-C/SIGTERM/SIGHUP run ``on_signal`` then raise :class:`Interrupted`;
    a repeated signal during the clean-up is ignored."""

    def ignore(signum: int, frame: object) -> None:
        pass

    def handler(signum: int, frame: object) -> None:
        for number in INTERRUPT_SIGNALS:
            signal.signal(number, ignore)
        on_signal()
        raise Interrupted(signum)

    previous = {number: signal.signal(number, handler) for number in INTERRUPT_SIGNALS}
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Run refereed matches between engine processes, and check game records."""


def _engine_help() -> str:
    return ("An engine: key=value words, cutechess-cli style (cmd=, name=, dir=, option.NAME=, "
            "tc=, st=, depth=, nodes=, timemargin=, conf=). Give it twice.")


@cli.command("match", cls=_MatchCommand)
@click.option("--engine", "engines", multiple=True, metavar="KEY=VALUE...", help=_engine_help())
@click.option("--each", "each", metavar="KEY=VALUE...", help="Settings for every engine (an engine's own win).")
@click.option("--config", "config_path", metavar="FILE",
              help="JSON file of engines ({\"engines\": [...], \"each\": {...}}).")
@click.option("--variant", type=click.Choice(VARIANT_NAMES), default="dipole", show_default=True)
@click.option("--games", type=click.IntRange(min=1), default=None,
              help=f"Number of games, played as colour-reversed pairs sharing an opening "
                   f"[default: {DEFAULT_GAMES}; {DEMO_GAMES} for the demo].")
@click.option("--tc", metavar="[MOVES/]SECONDS[+INC]", help="Time control for every engine, e.g. 10+0.1, 40/60, inf.")
@click.option("--st", metavar="SECONDS", help="Fixed time per move.")
@click.option("--depth", metavar="N", help="Search depth per move.")
@click.option("--nodes", metavar="N", help="Nodes per move.")
@click.option("--timemargin", metavar="MS", help="Milliseconds an engine may overrun its time without losing.")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True, help="Games played at once.")
@click.option("--openings", "openings_file", metavar="FILE",
              help="Openings, one a line: a FEN, a FEN then moves, or moves from the start.")
@click.option("--opening-plies", type=click.IntRange(min=1), help="Generate openings of N random plies.")
@click.option("--seed", type=click.IntRange(min=0), help="Seed for generated openings (printed when not given).")
@click.option("--pgn", "pgn_path", metavar="FILE", help="Append every finished game to this PGN file.")
@click.option("--log", "log_dir", metavar="DIR", help="Keep each engine's whole I/O, timestamped, in DIR.")
@click.option("--recover", is_flag=True, help="Restart an engine that crashed or was killed, and go on.")
@click.option("--event", default="dipole-arbiter match", show_default=True, help="The PGN Event tag.")
@click.option("--handshake-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              metavar="SECONDS", help="Time to start an engine, and for each isready.")
@click.option("--stall-timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              metavar="SECONDS", help="Longest wait for a move without a clock or a time per move.")
def match_command(engines: tuple[str, ...], each: str | None, config_path: str | None, variant: str,
                  games: int | None, tc: str | None, st: str | None, depth: str | None, nodes: str | None,
                  timemargin: str | None, concurrency: int, openings_file: str | None,
                  opening_plies: int | None, seed: int | None, pgn_path: str | None, log_dir: str | None,
                  recover: bool, event: str, handshake_timeout: float, stall_timeout: float) -> int:
    """Play a match between two engines, refereed and recorded.

    With no engines, the project's own engine plays itself at depths 4 and 2 from random
    4-ply openings (a demo that takes about a minute).
    """
    flags = {"tc": tc, "st": st, "depth": depth, "nodes": nodes, "timemargin": timemargin}
    match_settings = {key: value for key, value in flags.items() if value is not None}
    config = load_config(config_path) if config_path else None
    engine_words = [value.split(SEPARATOR) for value in engines]
    each_words = each.split(SEPARATOR) if each else []
    demo = not engine_words and config is None
    if demo:
        command = " ".join(own_engine_command())
        engine_words = [[f"cmd={command}", f"name={name}", f"depth={depth_}"] for name, depth_ in DEMO_ENGINES]
        if opening_plies is None and openings_file is None:
            opening_plies = DEMO_OPENING_PLIES
        games = DEMO_GAMES if games is None else games
    games = DEFAULT_GAMES if games is None else games
    specs = resolve_engines(engine_words, each_words, match_settings, config)
    if len(specs) != 2:
        raise ArbiterError(f"a match is between two engines; {len(specs)} given")
    openings, note = choose_openings(variant, games, openings_file, opening_plies, seed)
    referee = RefereeSettings(handshake_timeout=handshake_timeout, stall_timeout=stall_timeout,
                              event=event, date=datetime.date.today().strftime("%Y.%m.%d"))
    match_config = MatchConfig(specs[0], specs[1], variant, games, tuple(openings), note, referee,
                               concurrency=concurrency, recover=recover, pgn=pgn_path, log_dir=log_dir)
    return run_match(match_config)


def choose_openings(variant: str, games: int, path: str | None, plies: int | None,
                    seed: int | None) -> tuple[list[Opening], str]:
    """The openings of a match and a note saying how to get the same ones again."""
    if path is not None and plies is not None:
        raise ArbiterError("give --openings FILE or --opening-plies N, not both")
    if seed is not None and plies is None:
        raise ArbiterError("--seed applies to generated openings; give --opening-plies N too")
    if path is not None:
        openings = load_openings(path, variant)
        return openings, f"{len(openings)} from {path}, in file order"
    if plies is not None:
        seed = secrets.randbelow(2**32) if seed is None else seed
        openings = generate_openings(variant, plies, (games + 1) // 2, seed)
        return openings, f"{plies} random plies, seed {seed} (repeat with --opening-plies {plies} --seed {seed})"
    return [START], "the start position"


def run_match(config: MatchConfig) -> int:
    """Play the match with signal handling; the exit status (1 if it stopped early)."""
    match = Match(config, sys.stdout, sys.stderr, tty=sys.stdout.isatty())
    interrupted: Interrupted | None = None
    with interrupt_on_signals(match.interrupt):
        try:
            outcome = match.run()
        except Interrupted as signal_raised:
            interrupted = signal_raised
    lines = [""] + match.summary()
    if interrupted is not None:
        lines.insert(0, f"Interrupted by {interrupted}: {len(match.records)} of {config.games} games finished; "
                        f"the game(s) in progress were abandoned and not recorded")
    elif outcome.stop_reason:
        lines.insert(0, f"Match stopped after {len(outcome.records)} of {config.games} games: {outcome.stop_reason}")
    for line in lines:
        print(line)
    if interrupted is not None:
        return 128 + interrupted.signum
    if outcome.stop_reason:
        return 1
    print("Finished match")
    return 0


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


def main() -> None:
    clikit.run(cli, PROG)


"""``python -m dipole_tuner GAMES.pgn... --game dipole``: fit the evaluation weights of one game
to the results of the games in the PGN files, and print them as the code that sets them.

Bad input (a file that cannot be read, a PGN that does not parse, moves that do not replay, no
position to tune on) is one line on standard error and exit status 2.
"""

from __future__ import annotations

import dataclasses
import random
import time

import click

from arbiter.records.pgn import read_pgn_file
from dipole_engine import clikit
from dipole_engine.evaluate import Weights, engine_weights

from .positions import harvest
from .texel import fit_k, mean_error, scores, tune

PROG = "python -m dipole_tuner"


class TunerError(click.ClickException):
    """Input the tuner cannot use: one line, exit status 2."""

    exit_code = 2


def shown(weights: Weights) -> str:
    """``DipoleWeights(advance=20, ...)``: the weights as the code that makes them."""
    values = ", ".join(f"{f.name}={getattr(weights, f.name)}" for f in dataclasses.fields(weights))
    return f"{type(weights).__name__}({values})"


@click.command("tune", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("pgn_files", metavar="GAMES.pgn...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--game", type=click.Choice(["dipole", "impasse"]), required=True, help="The game whose weights to fit.")
@click.option(
    "--skip-plies",
    type=click.IntRange(0),
    default=8,
    show_default=True,
    help="Positions this many plies after the book moves and later are used.",
)
@click.option(
    "--positions",
    "most",
    type=click.IntRange(1),
    default=None,
    help="Use at most this many positions, drawn at random (--seed).",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the draw of --positions.")
def tune_command(pgn_files: tuple[str, ...], game: str, skip_plies: int, most: int | None, seed: int) -> None:
    """Fit the evaluation weights of GAME to the results of the games in GAMES.pgn (Texel
    tuning: see the dipole_tuner package) and print them."""
    began = time.monotonic()
    try:
        records = [pgn.to_record() for path in pgn_files for pgn in read_pgn_file(path)]
        found = harvest(records, game, skip_plies)
    except (ValueError, OSError) as error:  # ArbiterError, RulesError and PgnSyntaxError among them
        raise TunerError(str(error)) from None
    positions = found.positions
    if most is not None and len(positions) > most:
        positions = random.Random(seed).sample(positions, most)
    click.echo(
        f"{len(positions)} quiet positions from {found.games_used} games of {game} "
        f"({found.not_decided_on_the_board} not decided on the board, {found.other_game} of another game left out)"
    )
    if not positions:
        raise TunerError("no position to tune on")
    start = engine_weights(game)
    start_scores = scores(positions, start)
    k = fit_k(positions, start_scores)
    start_error = mean_error(positions, start_scores, k)
    click.echo(f"k = {k:.4f}; the engine's weights: error {start_error:.6f}  {shown(start)}")

    def report(weights: Weights, error: float) -> None:
        click.echo(f"  error {error:.6f}  {shown(weights)}  ({time.monotonic() - began:.0f} s)")

    best, best_error = tune(positions, start, k, report)
    click.echo(f"tuned: error {best_error:.6f} (was {start_error:.6f})")
    click.echo(shown(best))


def main() -> None:
    clikit.run(tune_command, PROG)

"""``python -m dipole_tuner GAMES.pgn... --game dipole``: fit the evaluation weights of one game
(and one phase, ``--phase``) to the results of the games in the PGN files, and print them as
the code that sets them.  ``--start`` and ``--k`` repeat an earlier fit exactly: its starting
weights and its scale.

Bad input (a file that cannot be read, a PGN that does not parse, moves that do not replay, no
position to tune on) is one line on standard error and exit status 2.
"""

from __future__ import annotations

import dataclasses
import random
import time

import click

from arbiter.records.pgn import read_pgn_file
from dipole_engine.evaluate import PHASES, Weights, engine_weights, phase_of, phases
from dipole_engine.evaluate_impasse import ENDGAME_CHECKERS
from dipole_runtime import commandline

from .positions import harvest
from .texel import fit_k, mean_error, scores, tune

PROG = "python -m dipole_tuner"


class TunerError(click.ClickException):
    """Input the tuner cannot use: one line, exit status 2."""

    exit_code = 2


def changed_weights(weights: Weights, text: str) -> Weights:
    """``weights`` with the changes ``text`` names (``trip=30,row=6``); raises ValueError
    naming a change that is not one."""
    changes: dict[str, int] = {}
    names = {f.name: f for f in dataclasses.fields(weights)}
    for item in text.split(","):
        name, equals, value = item.partition("=")
        name = name.strip()
        if not equals or name not in names:
            raise ValueError(f"--start {item.strip()!r}: expected NAME=VALUE, NAME one of {', '.join(names)}")
        try:
            changes[name] = int(value)
        except ValueError:
            raise ValueError(f"--start {item.strip()!r}: {value.strip()!r} is not a whole number") from None
        lowest = names[name].metadata.get("min", 0)
        if changes[name] < lowest:
            raise ValueError(f"--start {item.strip()!r}: {name} may not be below {lowest}")
    return type(weights)(**{**dataclasses.asdict(weights), **changes})


def held_weights(weights: Weights, text: str) -> list[str]:
    """The weight names ``text`` lists (``steps,tempo``); raises ValueError naming one that is not."""
    names = [f.name for f in dataclasses.fields(weights)]
    held = [name.strip() for name in text.split(",")]
    for name in held:
        if name not in names:
            raise ValueError(f"--hold {name!r}: not a weight; the weights are {', '.join(names)}")
    return held


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
@click.option(
    "--phase",
    type=click.Choice(PHASES),
    default="middle",
    show_default=True,
    help=f"Fit the weights of this phase, on its positions (Impasse's endgame: at most {ENDGAME_CHECKERS} checkers).",
)
@click.option(
    "--start",
    "start_text",
    metavar="NAME=VALUE,...",
    default=None,
    help="Start the descent from the engine's weights with these changed (e.g. trip=30,row=6).",
)
@click.option(
    "--hold",
    "hold_text",
    metavar="NAME,...",
    default=None,
    help="Keep these weights at their start values (e.g. steps,tempo).",
)
@click.option(
    "--k",
    "scale",
    type=click.FloatRange(0.01, 10),
    default=None,
    help="The logistic curve's scale k; by default fitted to the engine's weights.",
)
def tune_command(
    pgn_files: tuple[str, ...],
    game: str,
    skip_plies: int,
    most: int | None,
    seed: int,
    phase: str,
    start_text: str | None,
    hold_text: str | None,
    scale: float | None,
) -> None:
    """Fit the evaluation weights of GAME to the results of the games in GAMES.pgn (Texel
    tuning: see the dipole_tuner package) and print them.  A file whose name ends in .xz is
    read through xz."""
    began = time.monotonic()
    try:
        engine = engine_weights(game, phase)
        start = engine if start_text is None else changed_weights(engine, start_text)
        held = [] if hold_text is None else held_weights(engine, hold_text)
        records = [pgn.to_record() for path in pgn_files for pgn in read_pgn_file(path)]
        found = harvest(records, game, skip_plies)
    except (ValueError, OSError) as error:  # ArbiterError, RulesError and PgnSyntaxError among them
        raise TunerError(str(error)) from None
    positions = [position for position in found.positions if phase_of(position.board) == phase]
    if most is not None and len(positions) > most:
        positions = random.Random(seed).sample(positions, most)
    in_phase = f" in the {phase} phase" if len(phases(game)) > 1 else ""
    click.echo(
        f"{len(positions)} quiet positions{in_phase} from {found.games_used} games of {game} "
        f"({found.not_decided_on_the_board} not decided on the board, {found.other_game} of another game left out)"
    )
    if not positions:
        raise TunerError("no position to tune on")
    engine_scores = scores(positions, engine)
    k = fit_k(positions, engine_scores) if scale is None else scale
    engine_error = mean_error(positions, engine_scores, k)
    click.echo(f"k = {k:.4f}; the engine's weights: error {engine_error:.6f}  {shown(engine)}")
    if start is not engine:
        click.echo(f"start: error {mean_error(positions, scores(positions, start), k):.6f}  {shown(start)}")

    def report(weights: Weights, error: float) -> None:
        click.echo(f"  error {error:.6f}  {shown(weights)}  ({time.monotonic() - began:.0f} s)")

    best, best_error = tune(positions, start, k, report, held=held)
    click.echo(f"tuned: error {best_error:.6f} (the engine's weights: {engine_error:.6f})")
    click.echo(shown(best))


def main() -> None:
    commandline.run(tune_command, PROG)

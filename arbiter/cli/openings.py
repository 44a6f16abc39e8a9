"""``dipole-arbiter openings``: write a balanced opening suite (:mod:`arbiter.openings.generate`)
in the format ``--openings`` reads.  Bad input is one line and status 2, as everywhere."""

from __future__ import annotations

import secrets
import sys

import click

from ..openings.generate import DEFAULT_DEPTH, check_output, describe, generate_suite, suite_text, write_suite
from ..play.engines import LIMIT_KEYS, own_engine_command, resolve_engines
from .options import DEFAULT_VARIANT, SEPARATOR, EngineWordsCommand, variant_option


@click.command("openings", cls=EngineWordsCommand)
@variant_option(default=DEFAULT_VARIANT, show_default=True)
@click.option(
    "--count", type=click.IntRange(min=1, max=100_000), default=100, show_default=True, help="Openings to write."
)
@click.option(
    "--plies",
    type=click.IntRange(min=1, max=200),
    default=6,
    show_default=True,
    help="Random plies from the start (none that decides the game before it begins).",
)
@click.option(
    "--engine",
    "engine",
    metavar="KEY=VALUE...",
    help="The reference engine, as for match (cmd=, name=, option.X=, and depth=, nodes= or st=) "
    "[default: the project's engine at depth 4].",
)
@click.option(
    "--max-score",
    type=click.IntRange(min=0, max=100_000),
    default=50,
    show_default=True,
    metavar="CP",
    help="Keep a position only when the engine scores it within CP centipawns of equal.",
)
@click.option("--seed", type=click.IntRange(min=0), help="Seed of the random plies (printed when not given).")
@click.option(
    "--output",
    "-o",
    default="-",
    show_default=True,
    metavar="FILE",
    help="Where to write the suite ('-': standard output).",
)
def openings_command(
    variant: str, count: int, plies: int, engine: str | None, max_score: int, seed: int | None, output: str
) -> int:
    """Write a balanced opening suite that --openings reads: COUNT distinct positions after
    PLIES random plies, each scored within --max-score of equal by the reference engine."""
    words = engine.split(SEPARATOR) if engine else [f"cmd={' '.join(own_engine_command())}", "name=dipole-engine"]
    if not any(word.partition("=")[0] in LIMIT_KEYS for word in words):
        words.append(f"depth={DEFAULT_DEPTH}")
    (spec,) = resolve_engines([words])
    if output != "-":
        check_output(output)
    seed = secrets.randbelow(2**32) if seed is None else seed
    print(
        f"Openings: {count} for {variant}, {plies} plies, within {max_score} cp by {spec.name}, seed {seed}",
        file=sys.stderr,
    )

    def progress(kept: int, tried: int) -> None:
        if tried % 50 == 0:
            print(f"  {kept} kept of {tried} searched", file=sys.stderr)

    suite = generate_suite(variant, count, plies, spec, max_score, seed, progress)
    text = suite_text(suite, describe(variant, count, plies, spec, max_score, seed, suite))
    if output == "-":
        sys.stdout.write(text)
    else:
        write_suite(output, text)
        print(f"Wrote {len(suite)} openings to {output}", file=sys.stderr)
    return 0

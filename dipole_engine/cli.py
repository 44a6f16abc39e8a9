"""The ``dipole-engine`` command line: perft, bench, ``--version`` and, with no subcommand, the
protocol loop (``__main__`` starts that loop without this parser when there are no arguments)."""

from __future__ import annotations

from typing import NoReturn

import click

from dipole_runtime import commandline
from dipole_runtime.build import VERSION, build_name

from .bench import DEFAULT_DEPTH as DEFAULT_BENCH_DEPTH
from .bench import run_bench
from .rules import RulesError, all_variants, divide, new_board, perft
from .uci import run_loop

VARIANT_NAMES = [variant.name for variant in all_variants()]


def print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: ``dipole-engine <version> (<build>)``, the build ``mypyc`` or ``pure Python``."""
    if value and not ctx.resilient_parsing:
        click.echo(f"dipole-engine {VERSION} ({build_name()})")
        ctx.exit()


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=print_version,
    help="Print the version and which build runs (mypyc or pure Python), then exit.",
)
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Dipole engine.  With no command, speak the engine protocol on stdin/stdout."""
    if ctx.invoked_subcommand is None:
        ctx.exit(run_loop())


@cli.command("perft")
@click.argument("depth", type=click.IntRange(min=0))
@click.option(
    "--variant",
    type=click.Choice(VARIANT_NAMES),
    default="dipole",
    show_default=True,
    help="Rule set and start position.",
)
@click.option("--fen", default=None, help="Start from this position instead of the variant's start.")
@click.option("--divide", "split", is_flag=True, help="Print the count below each root move.")
def perft_command(depth: int, variant: str, fen: str | None, split: bool) -> None:
    """Count the move sequences DEPTH plies deep (checks the move generator)."""
    board = new_board(variant, fen)
    if split and depth > 0:
        total = 0
        for move, count in divide(board, depth):
            click.echo(f"{move} {count}")
            total += count
    else:
        total = perft(board, depth)
    click.echo(f"Nodes searched: {total}")


@cli.command("bench")
@click.argument("depth", type=click.IntRange(min=1, max=64), default=DEFAULT_BENCH_DEPTH)
def bench_command(depth: int) -> None:
    """Search the fixed bench positions to DEPTH; print the node count (identical on every
    run and machine) and nodes/second."""
    run_bench(depth, out=click.echo)


def main() -> NoReturn:
    commandline.run(cli, "dipole-engine", input_errors=(RulesError,))

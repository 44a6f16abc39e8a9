"""``dipole-arbiter check-engine``: the command line of :mod:`arbiter.compliance`, for an engine
of any installed game (a plain UCI engine for chess).

The engine is given as to ``match`` (``--engine cmd=... [name=] [dir=] [option.X=]...``); the
checker chooses every search limit itself.  Exit status 0 when every check passed, 1 when
one failed, 2 for bad input.  The whole run ends within ``--run-timeout`` seconds and the
moment it takes to stop the engine.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

import click

from ..compliance import RUN_TIMEOUT, CheckSettings, check_engine, summary
from ..errors import ArbiterError
from ..play.engines import OPTION_PREFIX, build_spec, parse_tokens
from .options import SEPARATOR, EngineWordsCommand, variant_option

ENGINE_KEYS = ("cmd", "name", "dir")


@click.command("check-engine", cls=EngineWordsCommand)
@click.option(
    "--engine",
    "engine",
    required=True,
    metavar="KEY=VALUE...",
    help="The engine: cmd= (required), name=, dir=, option.NAME=.",
)
@variant_option("A variant to check, repeatable (default: every installed one the engine offers)", multiple=True)
@click.option(
    "--positions",
    type=click.IntRange(min=1, max=100_000),
    default=300,
    show_default=True,
    help="Random positions for the legal-move check, shared out among the variants.",
)
@click.option(
    "--seed", type=click.IntRange(min=0, max=2**32), default=1, show_default=True, help="Seed of the random positions."
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1, max=3600),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Longest wait for the handshake and for an answer without a time limit.",
)
@click.option(
    "--margin",
    type=click.IntRange(min=0, max=60_000),
    default=100,
    show_default=True,
    metavar="MS",
    help="Milliseconds an answer may arrive after its movetime or clock, and an engine may take beyond a second to exit after quit (the pipe and the machine).",
)
@click.option(
    "--run-timeout",
    type=click.FloatRange(min=1, max=86_400),
    default=RUN_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="Longest the whole run may take: then the check under way fails, the checks not run yet are one FAIL line, the engine is stopped and the summary follows (a second or two later at most).",
)
@click.option("--log", "log_path", metavar="FILE", help="Write the whole conversation to FILE.")
def check_engine_command(
    engine: str,
    variant: tuple[str, ...],
    positions: int,
    seed: int,
    timeout: float,
    margin: int,
    run_timeout: float,
    log_path: str | None,
) -> int:
    """Check that an engine speaks protocol/SPEC.md: one line per check, then a summary.

    The engine is checked in every installed variant it offers (its UCI_Variant option), or in
    those given with --variant, judged by each game's plug-in.  A game whose engines are told
    nothing (chess) has plain UCI engines: such an engine is sent only UCI's commands, and the
    checks of what SPEC.md adds to UCI are skipped, saying so.

    Exit status 0 when every check passed (optional features the engine does not offer are
    skipped, not failed), 1 when one failed.  However the engine behaves, the run ends within
    --run-timeout seconds (and the second or two it takes to stop the engine), with FAIL lines
    for what went wrong and the summary.
    """
    settings = parse_tokens(engine.split(SEPARATOR), "--engine")
    unknown = [key for key in settings if key not in ENGINE_KEYS and not key.startswith(OPTION_PREFIX)]
    if unknown:
        raise ArbiterError(
            f"--engine: {unknown[0]}= is not used by check-engine, which sets its own limits; "
            f"give cmd=, name=, dir= and option.NAME="
        )
    spec = build_spec({**settings, "depth": "1"}, "--engine")
    with contextlib.ExitStack() as stack:
        log = None
        if log_path:
            try:
                log_file: TextIO = stack.enter_context(open(log_path, "w", encoding="utf-8", buffering=1))
            except OSError as error:
                raise ArbiterError(f"log file {log_path}: {error.strerror or error}") from None

            def log(direction: str, line: str) -> None:
                log_file.write(f"{direction} {line}\n")

        print(f"Checking {spec.name}: {' '.join(spec.command)}")
        results = check_engine(
            CheckSettings(
                spec.command, spec.cwd, spec.options, variant, positions, seed, timeout, margin, run_timeout, log
            ),
            lambda result: print(result.line(), flush=True),
        )
    print(summary(results))
    sys.stdout.flush()
    return 1 if any(result.status == "FAIL" for result in results) else 0

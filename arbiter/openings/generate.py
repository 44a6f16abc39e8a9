"""Balanced opening suites: ``dipole-arbiter openings --variant V --count N --plies P --engine ...``.

A suite is an openings file (:mod:`arbiter.openings.positions`: one line of moves from the variant's
start per opening) whose positions a reference engine scores close to equal, so that matches
between engines are decided by the engines and not by the opening.  Candidates are drawn as
generated openings are (``P`` random plies that take no checker off the board, from
``random.Random(seed)`` in a fixed order); a candidate is kept when it is legal and not over,
its position is new to the suite, and the engine's search of it (its ``depth=``, ``nodes=`` or
``st=``; the command gives depth 4 when none is given) scores it within ``--max-score`` centipawns of equal.  A
mate score is never equal.  With the same engine and limits the same arguments give the same
file (the engine's search is deterministic at a fixed depth or node count).

The file begins with ``#`` lines saying how it was made, so it can be made again.
"""

from __future__ import annotations

import os
import random
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import gameplug
from protocol import Limit
from protocol.client import EngineError

from ..errors import ArbiterError
from ..files import replace_text
from ..play.engines import EngineSpec
from ..play.referee import EngineSlot, RefereeSettings

DEFAULT_DEPTH = 4
ATTEMPTS_PER_OPENING = 60  # candidates drawn per wanted opening before giving up
SEARCH_TIMEOUT = 60.0  # seconds one reference search may take (depth/nodes have no clock)


@dataclass(frozen=True)
class SuiteOpening:
    """One kept opening: its moves from the start and the reference score (centipawns, for
    the side to move)."""

    moves: tuple[str, ...]
    score: int


def reference_limit(spec: EngineSpec) -> tuple[Limit, str]:
    """The reference search's ``go`` limit and its description (``depth=4``)."""
    limits = spec.limits
    if limits.clock is not None:
        raise ArbiterError(f"engine {spec.name!r}: the reference search needs depth=, nodes= or st=, not tc=")
    words = [
        f"depth={limits.depth}" if limits.depth is not None else "",
        f"nodes={limits.nodes}" if limits.nodes is not None else "",
        f"st={limits.movetime:g}" if limits.movetime is not None else "",
    ]
    movetime = round(limits.movetime * 1000) if limits.movetime is not None else None
    return Limit(depth=limits.depth, nodes=limits.nodes, movetime=movetime), " ".join(word for word in words if word)


def generate_suite(
    variant: str,
    count: int,
    plies: int,
    spec: EngineSpec,
    max_score: int,
    seed: int,
    progress: Callable[[int, int], None] = lambda kept, tried: None,
) -> list[SuiteOpening]:
    """``count`` balanced openings (see the module docstring); ``progress(kept, tried)`` is
    called after each candidate searched.  Raises ArbiterError when the engine fails or too few
    candidates qualify."""
    limit, _ = reference_limit(spec)
    rng = random.Random(seed)
    slot = EngineSlot(spec, variant, RefereeSettings())
    played = gameplug.variant(variant)
    kept: list[SuiteOpening] = []
    seen: set[object] = set()
    tried = 0
    try:
        slot.start()
        client = slot.client
        assert client is not None
        for _ in range(count * ATTEMPTS_PER_OPENING):
            if len(kept) == count:
                break
            line = gameplug.random_line(played, plies, rng)
            if line is None or line.state.key() in seen:
                continue
            seen.add(line.state.key())
            moves = line.moves
            slot.new_game()
            client.set_position(None, moves)
            answer = client.go(limit, timeout=SEARCH_TIMEOUT)
            tried += 1
            scored = [info for info in answer.infos if info.score_cp is not None or info.score_mate is not None]
            last = scored[-1] if scored else None
            if (
                last is not None
                and last.score_mate is None
                and last.score_cp is not None
                and abs(last.score_cp) <= max_score
            ):
                kept.append(SuiteOpening(moves, last.score_cp))
            progress(len(kept), tried)
    except EngineError as error:
        raise ArbiterError(f"engine {spec.name!r}: {error}") from None
    finally:
        slot.quit()
    if len(kept) < count:
        raise ArbiterError(
            f"only {len(kept)} of {count} openings found within {max_score} centipawns "
            f"after {tried} distinct positions; allow a larger --max-score or fewer --plies"
        )
    return kept


def suite_text(openings: list[SuiteOpening], header: list[str]) -> str:
    """The file: ``#`` header lines, then one line of moves per opening."""
    return "".join(f"# {line}\n" for line in header) + "".join(" ".join(o.moves) + "\n" for o in openings)


def describe(
    variant: str, count: int, plies: int, spec: EngineSpec, max_score: int, seed: int, openings: list[SuiteOpening]
) -> list[str]:
    """The header lines of a suite: what it is and the command that makes it again."""
    _, limit = reference_limit(spec)
    scores = [abs(opening.score) for opening in openings]
    command = [
        "dipole-arbiter",
        "openings",
        "--variant",
        variant,
        "--count",
        str(count),
        "--plies",
        str(plies),
        "--engine",
        f"cmd={shlex.join(spec.command)}",
        f"name={spec.name}",
        *limit.split(),
        "--max-score",
        str(max_score),
        "--seed",
        str(seed),
    ]
    return [
        f"{count} {variant} openings: {plies} random plies that take no checker off the board, each a "
        f"distinct position that {spec.name} ({limit}) scores within {max_score} centipawns of equal "
        f"(mean |score| {sum(scores) / max(1, len(scores)):.1f})",
        f"made by: {shlex.join(command)}",
    ]


def check_output(path: str) -> None:
    """Fail at once, before any search, when ``path`` cannot be written."""
    target = Path(path)
    directory = target.parent
    if target.is_dir():
        raise ArbiterError(f"openings file {path}: is a directory")
    if not directory.is_dir():
        raise ArbiterError(f"openings file {path}: no directory {directory}")
    if not os.access(directory, os.W_OK):
        raise ArbiterError(f"openings file {path}: the directory {directory} is not writable")


def write_suite(path: str, text: str) -> None:
    """Write the file whole (beside it, then renamed), or say in one line why not."""
    try:
        replace_text(path, text)
    except OSError as error:
        raise ArbiterError(f"openings file {path}: {error.strerror or error}") from None

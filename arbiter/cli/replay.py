"""``dipole-arbiter replay``: check game records against the rules."""

from __future__ import annotations

import click

from ..play.replay import check_games
from ..records.pgn import read_pgn_file


@click.command("replay")
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

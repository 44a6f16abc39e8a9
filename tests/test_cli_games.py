"""``dipole-arbiter games``: the installed games listed from their plug-ins, a block each, with every
variant, what engines are told and its description; a broken plug-in named with its one-line reason
while the others still work; and ``--variant`` taking any installed game's variant, an unknown one
answered in one line naming the installed ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import gameplug

if TYPE_CHECKING:  # (the fixture's type: tests/conftest.py, not the browser's conftest)
    from conftest import InstalledExample


ROOT = Path(__file__).resolve().parents[1]
ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]


def arbiter(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *arguments], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)


def broken_plugin(folder: Path) -> dict[str, str]:
    """A distribution ``broken-plug`` whose game plug-in fails to import, in ``folder``: the
    environment with it on PYTHONPATH."""
    (folder / "broken_plug.py").write_text('raise RuntimeError("broken on purpose")\n')
    info = folder / "broken_plug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gameplug.games]\nbroken = broken_plug:GAME\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))}


def test_games_lists_every_installed_game_and_variant() -> None:
    done = arbiter("games")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    blocks = done.stdout.rstrip("\n").split("\n\n")
    games = gameplug.installed_games()
    assert [block.splitlines()[0] for block in blocks] == [
        f"{game.name}: {game.title} ({game.side_names[0]} and {game.side_names[1]})" for game in games.values()
    ]
    for block, game in zip(blocks, games.values(), strict=True):
        heading, *rows = block.splitlines()[1:]
        assert heading.split() == ["variant", "engines", "are", "told", "description"]
        assert [row.split()[0] for row in rows] == [variant.name for variant in game.variants]
        for row, variant in zip(rows, game.variants, strict=True):
            told = "nothing (plain UCI)" if variant.engine_variant is None else f"UCI_Variant {variant.engine_variant}"
            if variant.engine_options:
                told = "UCI_Chess960 true (plain UCI)"  # (the one game here with options of its own)
            assert f"  {told}  " in row and row.endswith(f"  {variant.description}"), row
    dipole = next(block for block in blocks if block.startswith("dipole:"))
    assert "  dipole      UCI_Variant dipole      8x8, 12 a side, the designer's original setup (c1, d8)" in dipole
    chess = next(block for block in blocks if block.startswith("chess:"))
    assert "  chess     nothing (plain UCI)            Chess: the standard rules" in chess
    assert "  chess960  UCI_Chess960 true (plain UCI)  Chess960 (Fischer random chess)" in chess
    assert "Plug-ins left out" not in done.stdout


def test_a_broken_plugin_is_named_in_one_line_and_the_other_games_still_work(tmp_path: Path) -> None:
    env = broken_plugin(tmp_path)
    done = arbiter("games", env=env)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.endswith(
        "\nPlug-ins left out (1):\n"
        "  game plug-in 'broken' (broken_plug:GAME, from broken-plug 0.1): RuntimeError: broken on purpose\n"
    )
    assert "\ndipole: Dipole (White and Black)\n" in done.stdout
    unknown = arbiter("check-engine", "--engine", "cmd=dipole-engine", "--variant", "broken", env=env)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr == (
        "dipole-arbiter: error: Invalid value for '--variant': unknown variant 'broken'; installed variants: "
        + ", ".join(variant.name for variant in gameplug.all_variants())
        + " (plug-ins left out, see their errors: broken)\n"
    )


@pytest.mark.slow  # five commands, an engine's search among them
def test_variant_takes_any_installed_games_variant(installed_example: InstalledExample) -> None:
    """``openings`` writes a Connect Four suite (its moves the game's own); an unknown
    variant is one line naming the installed ones, for every command that takes one."""
    env = installed_example.env
    engine = ["--engine", f"cmd={installed_example.engine}", "depth=1"]
    suite = ["--count", "2", "--plies", "2", "--seed", "1"]
    done = arbiter("openings", "--variant", "connect-four", *suite, *engine, env=env)
    assert done.returncode == 0, done.stderr
    openings = [line for line in done.stdout.splitlines() if not line.startswith("#")]
    assert len(openings) == 2 and all(len(line.split()) == 2 for line in openings)
    assert all(column in "abcdefg" for line in openings for column in line.split())  # Connect Four's moves
    for command in ("match", "tournament", "openings", "check-engine"):
        wrong = arbiter(command, "--engine", "cmd=dipole-engine", "--variant", "connect-five", env=env)
        assert wrong.returncode == 2
        assert wrong.stderr.startswith("dipole-arbiter: error: Invalid value for '--variant': unknown variant")
        assert "installed variants: chess, chess960, connect-four, dipole," in wrong.stderr
        assert len(wrong.stderr.splitlines()) == 1

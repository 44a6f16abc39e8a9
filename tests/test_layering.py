"""The host knows games only through the game interface: no module of the host (``arbiter/``,
``dipole_gui/``, ``protocol/``), of the game interface (``gameplug/``) or of the run-time pieces
every package shares (``dipole_runtime/``) imports a game's own module (the Dipole rules,
engine or plug-in, the chess plug-in, the example's), whatever the games installed; only the
registration (``pyproject.toml``'s entry points) names Dipole and Impasse."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
GAMELESS_PACKAGES = ("arbiter", "dipole_gui", "protocol", "gameplug", "dipole_runtime")


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, by absolute name (relative imports are the host's own)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def game_packages() -> set[str]:
    """The top-level packages of the registered game plug-ins (the project's own entry points)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    points = project["project"]["entry-points"]["gameplug.games"]
    return {target.split(":")[0].split(".")[0] for target in points.values()} | {"connect_four_plug"}


@pytest.mark.parametrize("package", GAMELESS_PACKAGES)
def test_the_package_imports_no_games_module(package: str) -> None:
    games = game_packages()
    assert {"dipole_engine", "gameplug_chess"} <= games
    paths = sorted((ROOT / package).rglob("*.py"))
    assert paths, f"no module in {package}/"
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in paths
        for name in sorted(imported_modules(path))
        if name.split(".")[0] in games
    ]
    assert not wrong, "\n".join(wrong)


def test_the_host_starts_without_loading_a_game() -> None:
    """At run time too: the host's packages and commands, the build's check with them, load no
    module of the Dipole package (the registry loads a game when one is asked for)."""
    probe = (
        "import sys, protocol, arbiter, arbiter.cli, arbiter.play.referee, dipole_gui.cli; "
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'dipole_engine'), "
        "'dipole_runtime.build' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "True"]


def test_the_check_sees_a_games_import(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("from dipole_engine.rules import new_board\nimport gameplug_chess.game\nfrom . import x\n")
    assert imported_modules(source) == {
        "dipole_engine.rules",
        "dipole_engine.rules.new_board",
        "gameplug_chess.game",
    }

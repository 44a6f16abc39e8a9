"""The host knows games only through the game interface: no module of ``arbiter/`` or
``dipole_gui/`` imports a game's own module (the Dipole rules or plug-in, the chess plug-in, the
example's), whatever the games installed; only the registration (``pyproject.toml``'s entry
points) names Dipole and Impasse."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
HOST_PACKAGES = ("arbiter", "dipole_gui")
# What the host may import from the package that also holds the Dipole rules: the package itself
# (its __init__ selects the compiled or pure build before any compiled module of the host loads)
# and the console scripts' runner.  Neither is a game's interface: the rules stay behind gameplug.
ALLOWED_FROM_DIPOLE_ENGINE = {"dipole_engine", "dipole_engine.clikit"}


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


@pytest.mark.parametrize("package", HOST_PACKAGES)
def test_the_host_imports_no_games_module(package: str) -> None:
    games = game_packages()
    assert {"dipole_engine", "gameplug_chess"} <= games
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for name in imported_modules(path):
            top = name.split(".")[0]
            if top in games and not (top == "dipole_engine" and name in ALLOWED_FROM_DIPOLE_ENGINE):
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_a_games_import(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("from dipole_engine.rules import new_board\nimport gameplug_chess.game\nfrom . import x\n")
    assert imported_modules(source) == {
        "dipole_engine.rules",
        "dipole_engine.rules.new_board",
        "gameplug_chess.game",
    }

"""The installed games: unknown names answered with the installed ones, broken plug-ins named while
the others work, and a plug-in installed into a fresh virtual environment found through its entry
point, engine included."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

import gameplug
from gameplug import GameError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "connect_four"

PLUGINS = {
    "broken_import_plug.py": 'raise RuntimeError("this plug-in is broken on purpose")\n',
    "wrong_type_plug.py": "GAME = 42\n",
    "bad_moves_plug.py": """
        from dipole_engine.plugin import DipoleGame, RulesState
        from dipole_engine.rules import new_board


        class Garbled(RulesState):
            def move_text(self, move):
                return move.text.upper()  # what its own reader does not read


        class BadMoves(DipoleGame):
            name = "bad-moves"
            title = "Bad moves"

            def variant_names(self):
                return [("bad-moves", "Dipole whose moves do not read back")]

            def start(self, variant):
                return Garbled(self, new_board("dipole"))

            def read_position(self, variant, text):
                return Garbled(self, new_board("dipole", text))


        GAME = BadMoves()
    """,
    "spaced_plug.py": """
        from bad_moves_plug import BadMoves, Garbled


        class Spaced(Garbled):
            def move_text(self, move):
                return f"{move.text} !"


        class SpacedMoves(BadMoves):
            name = "spaced"

            def variant_names(self):
                return [("spaced", "Dipole whose moves are two tokens")]

            def start(self, variant):
                return Spaced(self, super().start(variant).board)


        GAME = SpacedMoves()
    """,
    "clash_plug.py": """
        from dipole_engine.plugin import DipoleGame


        class Clash(DipoleGame):
            name = "zz-clash"

            def variant_names(self):
                return [("dipole", "a second game claiming Dipole's variant")]


        GAME = Clash()
    """,
}
ENTRY_POINTS = """
[gameplug.games]
broken-import = broken_import_plug:GAME
wrong-type = wrong_type_plug:GAME
bad-moves = bad_moves_plug:GAME
zz-clash = clash_plug:GAME
misnamed = clash_plug:GAME
spaced = spaced_plug:GAME
"""


PLUGIN_NAMES = ("broken-import", "wrong-type", "bad-moves", "zz-clash", "misnamed", "spaced")


@pytest.fixture
def broken_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Six broken plug-ins of one distribution, on sys.path with their dist-info."""
    for name, source in PLUGINS.items():
        (tmp_path / name).write_text(textwrap.dedent(source))
    info = tmp_path / "broken_plugs-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugs\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    gameplug.reload()
    yield tmp_path
    monkeypatch.undo()
    gameplug.reload()


def test_an_unknown_variant_or_game_names_the_installed_ones() -> None:
    with pytest.raises(GameError) as unknown:
        gameplug.variant("xiangqi")
    message = str(unknown.value)
    assert message.startswith("unknown variant 'xiangqi'; installed variants: ")
    assert "dipole, dipole-s, dipole-10, dipole-10s" in message and "impasse, impasse-singles" in message
    assert "\n" not in message
    with pytest.raises(GameError, match=r"^unknown game 'dipole-s'; installed games: .*dipole, impasse"):
        gameplug.game("dipole-s")
    with pytest.raises(GameError, match=re.escape(f"unknown variant '{'x' * 60}...'")):
        gameplug.variant("x" * 10_000)


def test_broken_plugins_are_named_and_the_others_still_work(broken_plugins: Path) -> None:
    broken = gameplug.broken_plugins()
    assert set(broken) == set(PLUGIN_NAMES)
    assert all("\n" not in line and "from broken-plugs 0.1" in line for line in broken.values())
    assert "RuntimeError: this plug-in is broken on purpose" in broken["broken-import"]
    assert "names a int, not a gameplug.Game" in broken["wrong-type"]
    assert (
        "variant 'bad-moves': its move 'C1-OFF:3' does not parse: 'C1-OFF:3' is not a Dipole move"
        in broken["bad-moves"]
    )
    assert "its variant 'dipole' is also dipole's" in broken["zz-clash"]
    assert "variant 'spaced': its move 'c1-off:3 !' is not one token, as the protocol's are" in broken["spaced"]
    assert "names the game 'zz-clash'; the entry point must be called by the game's name" in broken["misnamed"]
    assert {"dipole", "impasse"} <= set(gameplug.installed_games())
    state = gameplug.variant("dipole").start()
    state.play(state.read_move("c1-c3"))
    assert state.position_text() == "B:W10c1,2c3:B12d8"
    with pytest.raises(GameError, match=r"\(plug-ins left out, see their errors: bad-moves, broken-import,"):
        gameplug.variant("xiangqi")
    with pytest.raises(GameError) as asked:  # asking for a broken game says why it is left out
        gameplug.variant("bad-moves")
    assert str(asked.value) == broken["bad-moves"]


def test_a_variant_is_checked_when_first_asked_for(broken_plugins: Path) -> None:
    with pytest.raises(GameError, match=r"^game plug-in 'spaced' .* is not one token"):
        gameplug.game("spaced")
    assert gameplug.variant("dipole").start().position_text() == "W:W12c1:B12d8"
    assert set(gameplug.broken_plugins()) == set(PLUGIN_NAMES)  # (all checked now)


def test_reload_finds_what_is_installed_now(broken_plugins: Path) -> None:
    assert "broken-import" in gameplug.broken_plugins()
    (broken_plugins / "broken_plugs-0.1.dist-info" / "entry_points.txt").write_text("")
    gameplug.reload()
    assert "broken-import" not in gameplug.broken_plugins()


@pytest.mark.slow
def test_the_example_installed_in_a_fresh_venv_is_found_and_plays(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=False)
    python = fresh / "bin" / "python"
    source = tmp_path / "connect_four"  # a copy: pip builds in the source folder (build/, *.egg-info)
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "mypy_extensions",
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    # The host's own packages from the source tree; the plug-in only from its installation.
    site = next((fresh / "lib").glob("python3*/site-packages"))
    (site / "host.pth").write_text(f"{ROOT}\n")
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    probe = """
        import json, gameplug, connect_four_plug
        state = gameplug.variant("connect-four").start()
        for text in "dcdcdcd":
            state.play(state.read_move(text))
        print(json.dumps([sorted(gameplug.installed_games()), gameplug.broken_plugins(), connect_four_plug.__file__,
                          state.outcome().result, state.outcome().reason]))
    """
    run = subprocess.run(
        [str(python), "-c", textwrap.dedent(probe)], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    games, broken, location, result, reason = json.loads(run.stdout)
    assert "connect-four" in games
    # (the host's chess plug-in is named, without python-chess in this venv, with how to install it)
    assert set(broken) <= {"chess"} and all(line.endswith("pip install -e '.[chess]'") for line in broken.values())
    assert location.startswith(str(fresh)) and (result, reason) == ("1-0", "Red connects four")
    engine = subprocess.run(
        [str(fresh / "bin" / "connect-four-engine")],
        input="uci\nposition fen 7/7/7/7/yyy4/rrr4:r\ngo depth 2\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert "option name UCI_Variant type combo default connect-four var connect-four" in engine.stdout
    assert engine.stdout.rstrip().endswith("bestmove d") and engine.returncode == 0, engine.stdout + engine.stderr

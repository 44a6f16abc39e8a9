"""The arbiter's inputs: time controls and clocks, engine specs and config files, openings."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from arbiter.cli.options import SEPARATOR, group_settings
from arbiter.errors import ArbiterError
from arbiter.openings.positions import generate_openings, load_openings
from arbiter.play.engines import default_name, load_config, resolve_engines
from arbiter.play.timecontrol import Clock, SearchLimits, TimeControl, charged
from dipole_engine.rules import new_board

PY = sys.executable


# -- time controls and clocks -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "moves", "base", "increment", "shown"),
    [
        ("40/60", 40, 60.0, 0.0, "40/60"),
        ("10+0.1", 0, 10.0, 0.1, "10+0.1"),
        ("2:30+1", 0, 150.0, 1.0, "150+1"),
        ("40/1:00+0.5", 40, 60.0, 0.5, "40/60+0.5"),
        ("0+0.05", 0, 0.0, 0.05, "0+0.05"),
        (".5", 0, 0.5, 0.0, "0.5"),
    ],
)
def test_time_control_reads_cutechess_form(text: str, moves: int, base: float, increment: float, shown: str) -> None:
    control = TimeControl.parse(text)
    assert control == TimeControl(moves, base, increment)
    assert str(control) == shown
    assert TimeControl.parse(str(control)) == control


def test_inf_means_no_clock() -> None:
    assert TimeControl.parse("inf") is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("abc", "expected [moves/]seconds[+increment]"),
        ("40/", "expected [moves/]seconds"),
        ("0/60", "at least 1"),
        ("0", "gives no time at all"),
        ("10+-1", "expected [moves/]seconds"),
    ],
)
def test_bad_time_controls_say_why(text: str, fragment: str) -> None:
    with pytest.raises(ArbiterError, match="time control") as error:
        TimeControl.parse(text)
    assert fragment in str(error.value)


def test_clock_charges_moves_adds_increment_and_forfeits_beyond_the_margin() -> None:
    clock = Clock(TimeControl(0, 1.0, 0.1))
    assert clock.remaining == pytest.approx(1.1)  # the increment is there from the first move
    assert clock.spend(0.5, margin=0.0)
    assert clock.remaining == pytest.approx(0.7)
    assert clock.spend(0.75, margin=0.1)  # 0.05 over, inside the margin: left with 0 + inc
    assert clock.remaining == pytest.approx(0.1)
    assert not clock.spend(0.25, margin=0.1)  # 0.15 over a 0.1 margin: the flag falls


def test_clock_charges_whole_milliseconds_rounded_down() -> None:
    clock = Clock(TimeControl(0, 1.0))
    assert clock.spend(0.0219999, margin=0.0)  # 21.9999 ms costs 21
    assert round(clock.remaining * 1000, 6) == 979
    assert clock.spend(0.029, margin=0.0)  # a recorded 0.029 is 29 ms, however the float falls
    assert round(clock.remaining * 1000, 6) == 950
    assert clock.spend(0.9509, margin=0.0)  # under a millisecond past the time: charged 950, in time
    assert clock.remaining == 0
    assert charged(-0.5) == 0  # a move never gives time back


def test_a_move_charged_all_that_is_left_is_in_time() -> None:
    """However the clock's float has drifted from its whole milliseconds, a move charged exactly
    what is left (answered within the millisecond the rounding forgives) is in time."""
    for spent in range(1, 60):
        clock = Clock(TimeControl(0, 1.0, 0.01))
        for _ in range(spent):
            assert clock.spend(0.0213, margin=0.0)
        assert clock.spend(clock.remaining + 0.0004, margin=0.0), clock.remaining
        assert round(clock.remaining * 1000, 6) == 10


def test_moves_per_period_adds_the_next_period() -> None:
    clock = Clock(TimeControl(2, 10.0))
    assert clock.moves_to_go == 2
    clock.spend(1.0, 0.0)
    assert (clock.moves_to_go, clock.remaining) == (1, pytest.approx(9.0))
    clock.spend(1.0, 0.0)
    assert (clock.moves_to_go, clock.remaining) == (2, pytest.approx(18.0))
    clock.credit_forced_move()  # a forced pass is a move that took no time
    assert (clock.moves_to_go, clock.remaining) == (1, pytest.approx(18.0))


def test_limits_describe_themselves_for_pgn() -> None:
    assert SearchLimits(clock=TimeControl(40, 60, 0.5)).describe() == "40/60+0.5"
    assert SearchLimits(movetime=0.25).describe() == "0.25/move"
    assert SearchLimits(depth=3).describe() == "-"
    assert SearchLimits(depth=3, nodes=100, margin=0.05).summary() == "depth=3 nodes=100 timemargin=50"


# -- engine specs -------------------------------------------------------------------------


def test_cmd_is_split_as_a_shell_would_and_settings_layer() -> None:
    specs = resolve_engines(
        [
            [f"cmd={PY} my_engine.py --level '3 4'", "name=alpha", "option.Hash=32", "tc=10+0.1"],
            [f"cmd={PY} -m other", "st=0.5"],
        ],
        each_tokens=["timemargin=50", "depth=7"],
        match_settings={"depth": "2", "nodes": "1000"},
    )
    alpha, other = specs
    assert alpha.command == (PY, "my_engine.py", "--level", "3 4")
    assert alpha.name == "alpha"
    assert alpha.options == (("Hash", "32"),)
    assert alpha.limits == SearchLimits(clock=TimeControl(0, 10, 0.1), depth=7, nodes=1000, margin=0.05)
    assert other.name == "other"
    assert other.limits == SearchLimits(movetime=0.5, depth=7, nodes=1000, margin=0.05)


def test_duplicate_names_are_made_unique() -> None:
    specs = resolve_engines([[f"cmd={PY} e.py", "depth=1"]] * 3)
    assert [spec.name for spec in specs] == ["e", "e-2", "e-3"]


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["/usr/bin/stockfish"], "stockfish"),
        (["python3", "-u", "engines/alpha.py", "--x"], "alpha"),
        (["python", "-m", "dipole_engine"], "dipole_engine"),
    ],
)
def test_default_names(command: list[str], name: str) -> None:
    assert default_name(command) == name


@pytest.mark.parametrize(
    ("tokens", "fragment"),
    [
        (["cmd=x", "depth=1", "colour=red"], "unknown key 'colour'"),
        (["depth=1"], "no command"),
        (["cmd=/nonexistent/engine", "depth=1"], "'/nonexistent/engine' not found"),
        (["cmd=no-such-engine-anywhere", "depth=1"], "not found on PATH"),
        ([f"cmd={PY} e.py"], "no limit on the engine's thinking"),
        ([f"cmd={PY} e.py", "depth=0"], "depth '0': must be at least 1"),
        ([f"cmd={PY} e.py", "st=fast"], "st 'fast': expected a number"),
        ([f"cmd={PY} e.py", "tc=1//2"], "time control '1//2'"),
        ([f"cmd={PY} e.py", "timemargin=-5"], "timemargin '-5': must be at least 0"),
        ([f"cmd={PY} 'unclosed", "depth=1"], "No closing quotation"),
        (["justaword"], "expected key=value"),
    ],
)
def test_bad_engine_settings_name_the_engine_and_the_fault(tokens: list[str], fragment: str) -> None:
    with pytest.raises(ArbiterError) as error:
        resolve_engines([tokens])
    assert "--engine #1" in str(error.value)
    assert fragment in str(error.value)


def test_config_file_with_the_same_keys(tmp_path: Path) -> None:
    config_path = tmp_path / "engines.json"
    config_path.write_text(
        json.dumps(
            {
                "engines": [
                    {"name": "alpha", "cmd": [PY, "a b.py"], "options": {"Hash": 16, "Ponder": False}, "depth": 3},
                    {"name": "beta", "cmd": f"{PY} beta.py", "tc": "40/60"},
                ],
                "each": {"timemargin": 20},
            }
        )
    )
    config = load_config(str(config_path))
    specs = resolve_engines([], config=config)
    assert [spec.name for spec in specs] == ["alpha", "beta"]
    assert specs[0].command == (PY, "a b.py")
    assert specs[0].options == (("Hash", "16"), ("Ponder", "false"))
    assert specs[1].limits == SearchLimits(clock=TimeControl(40, 60), margin=0.02)
    picked = resolve_engines([["conf=beta", "name=gamma", "st=1"]], config=config)
    assert picked[0].name == "gamma" and picked[0].limits.movetime == 1.0


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"engines": [}', "line 1 column"),
        ("[1]", "expected an object of engine settings"),
        ('{"engines": [{"cmd": "x", "colour": 1}]}', "unknown key 'colour'"),
        ('{"players": []}', "unknown key 'players'"),
        ('{"engines": [{"cmd": {"a": 1}}]}', "expected text, a number or true/false"),
    ],
)
def test_bad_config_files(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ArbiterError) as error:
        load_config(str(path))
    assert str(path) in str(error.value) and fragment in str(error.value)


def test_conf_needs_the_named_engine(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"name": "alpha", "cmd": PY, "depth": 1}]))
    with pytest.raises(ArbiterError, match=r"no engine named 'zeta'.*it has: alpha"):
        resolve_engines([["conf=zeta"]], config=load_config(str(path)))


def test_engine_words_are_grouped_like_cutechess() -> None:
    args = ["--engine", "cmd=a b", "name=x", "--each", "depth=2", "--games", "4", "--engine", "cmd=c"]
    assert group_settings(args) == [
        "--engine",
        f"cmd=a b{SEPARATOR}name=x",
        "--each",
        "depth=2",
        "--games",
        "4",
        "--engine",
        "cmd=c",
    ]


# -- openings -----------------------------------------------------------------------------


def test_openings_file_takes_fens_moves_and_both(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("# a comment\n\nc1-c3 d8-d6\nB:W3e1,1g5:B2d6,1h8\nW:W12c1:B12d8 c1-d2\n")
    first, second, third = load_openings(str(path), "dipole")
    assert (first.fen, first.moves) == (None, ("c1-c3", "d8-d6"))
    assert (second.fen, second.moves) == ("B:W3e1,1g5:B2d6,1h8", ())
    assert (third.fen, third.moves) == (None, ("c1-d2",))  # the standard start is not a SetUp
    assert first.source == f"{path} line 3"
    assert first.state("dipole").position_text() == "W:W10c1,2c3:B2d6,10d8"


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("c1-c3 d8-d9", "d9 is not a square"),
        ("c1-c9", "not a square"),
        ("W:W12c2:B12d8", "c2 is a light square"),
        ("c1-c3 pass", "may not pass"),
        ("W:W1b8:B1a1 b8-off", "the game is already over"),
    ],
)
def test_bad_opening_lines_are_named_by_line(tmp_path: Path, line: str, fragment: str) -> None:
    path = tmp_path / "openings.txt"
    path.write_text(f"c1-c3\n# fine so far\n{line}\n")
    with pytest.raises(ArbiterError) as error:
        load_openings(str(path), "dipole")
    assert f"{path} line 3:" in str(error.value)
    assert fragment in str(error.value)


def test_empty_or_missing_openings_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("# nothing\n\n")
    with pytest.raises(ArbiterError, match="no openings in it"):
        load_openings(str(path), "dipole")
    with pytest.raises(ArbiterError, match="No such file"):
        load_openings(str(tmp_path / "missing.txt"), "dipole")


def test_generated_openings_repeat_with_the_seed_and_are_legal() -> None:
    openings = generate_openings("dipole-s", 4, 12, seed=7)
    assert openings == generate_openings("dipole-s", 4, 12, seed=7)
    assert openings != generate_openings("dipole-s", 4, 12, seed=8)
    finals = set()
    for opening in openings:
        assert len(opening.moves) == 4 and opening.fen is None
        board = new_board("dipole-s")
        for text in opening.moves:
            board.push_text(text)
        assert not board.is_game_over()
        finals.add(board.key)
    assert len(finals) == 12


def test_shell_quoting_survives_describe() -> None:
    spec = resolve_engines([[f"cmd={PY} 'my engine.py'", "depth=1"]])[0]
    assert shlex.split(spec.describe().split(": ", 1)[1].split(" depth=")[0]) == [PY, "my engine.py"]

"""``dipole-arbiter check-engine`` on games other than Dipole, through their plug-ins: the Connect
Four example's engine passes, Stockfish passes as a plain UCI chess engine and is sent nothing
that SPEC.md adds to UCI, and a Connect Four engine with one fault fails in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from chess_support import ARBITER, UCI_COMMANDS, stockfish
from example_game import InstalledExample

__all__ = ["stockfish"]  # (a fixture)

ROOT = Path(__file__).resolve().parents[1]
BROKEN_CONNECT_FOUR = ROOT / "tests" / "engines" / "broken_connect_four.py"


def check_engine(
    *arguments: str, log: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The command, with ``env`` (the example game's, to find it) and a ``log`` of the conversation."""
    logging = ["--log", str(log)] if log is not None else []
    return subprocess.run(
        [*ARBITER, "check-engine", *arguments, *logging, "--margin", "300"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env=env,
    )


def results(output: str) -> list[str]:
    """The check lines of check-engine's output (``ok    <check>: <detail>``, FAIL, skip)."""
    return [line for line in output.splitlines() if line.startswith(("ok  ", "FAIL", "skip"))]


def line_of(lines: list[str], check: str) -> str:
    """The one line of the check whose name starts with ``check``."""
    found = [line for line in lines if line[6:].startswith(check)]
    assert len(found) == 1, (check, found)
    return found[0]


@pytest.mark.slow
def test_the_connect_four_example_engine_passes_every_check_it_offers(installed_example: InstalledExample) -> None:
    """The variant comes from the engine's UCI_Variant (nothing asked on the command line); the
    game's own check positions, perft and queries are judged by the plug-in's rules."""
    engine = f"cmd={installed_example.engine}"
    done = check_engine("--engine", engine, "--positions", "40", env=installed_example.env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    lines = results(done.stdout)
    assert line_of(lines, "variants") == "ok    variants: checking connect-four"
    for name in (
        "UCI_Variant connect-four",
        "a win in one (Connect Four)",
        "a finished game (Connect Four)",
        "a full board (Connect Four)",
        "legal moves in 40 random connect-four positions",
        "bestmove (none) at finished positions",
        "bad input",
        "go perft 2 (optional)",
        "query moves (optional)",
        "query size (optional)",
        "handshake: ugi",
    ):
        assert line_of(lines, name).startswith("ok"), name
    assert line_of(lines, "a full board (Connect Four)").endswith("bestmove (none)")
    assert line_of(lines, "query size (optional)").endswith(": 7x6")
    skipped = [line for line in lines if line.startswith("skip")]
    assert len(skipped) == 5 and all("not offered" in line for line in skipped)  # MultiPV, searchmoves, mate, ponder
    summary = f"{len(lines)} checks: {len(lines) - 5} ok, 0 failed, 5 skipped; the engine passed"
    assert done.stdout.splitlines()[-1] == summary


@pytest.mark.slow
def test_stockfish_passes_as_a_plain_uci_chess_engine(stockfish: str, tmp_path: Path) -> None:
    """Chess tells engines nothing, so Stockfish is checked as a plain UCI engine: the chess and
    Chess960 check positions (mate, promotion, castling, a finished game), the limits, MultiPV,
    searchmoves, go mate and pondering pass; SPEC.md's own checks are skipped, each saying so;
    and the conversation holds only UCI's commands, with no UCI_Variant, ugi, query or perft,
    Chess960 told by its own option (and back to chess by its default)."""
    log = tmp_path / "conversation.log"
    variants = ["--variant", "chess", "--variant", "chess960"]
    done = check_engine("--engine", f"cmd={stockfish}", *variants, "--positions", "40", log=log)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = results(done.stdout)
    assert "a plain UCI engine, not sent what SPEC.md adds" in line_of(lines, "variants")
    for name in (
        "chess (engines are told nothing)",
        "chess960 (engines are told nothing)",
        "castling king-takes-rook (chess960)",
        "legal moves in 20 random chess960 positions",
        "a mate in one beside a stalemate (Chess)",
        "a promotion that mates (Chess)",
        "a move after castling (Chess)",
        "a finished game (checkmate) (Chess)",
        "legal moves in 20 random chess positions",
        "MultiPV 3 (chess)",
        "go searchmoves (chess)",
        "go mate 2 (chess)",
        "go ponder, ponderhit (chess)",
        "quit ends the process promptly, with status 0",
    ):
        assert line_of(lines, name).startswith("ok"), name
    assert line_of(lines, "a finished game (checkmate) (Chess)").endswith("bestmove (none)")
    skipped = [line for line in lines if line.startswith("skip")]
    for name in (
        "handshake: ugi",
        "ucinewgame resets to the start position",
        "go: isready",
        "bestmove (none) at finished positions",
        "CR LF line endings accepted",
        "bad input",
        "go perft 2 (optional)",
        "query (optional)",
    ):
        assert line_of(skipped, name)
    assert len(skipped) == 8
    assert all(": plain UCI: " in line and "is SPEC.md's, not asked of a UCI engine" in line for line in skipped)
    sent = [line[2:] for line in log.read_text().splitlines() if line.startswith("> ")]
    assert {line.split()[0] for line in sent} <= UCI_COMMANDS, sorted({line.split()[0] for line in sent})
    assert "go" not in sent and not [line for line in sent if "UCI_Variant" in line or "\r" in line]
    declared = {"MultiPV", "Ponder", "UCI_Chess960"}  # the options it offers that the checks set
    assert {line.split()[2] for line in sent if line.startswith("setoption")} == declared
    chess960 = [line for line in sent if line.startswith("setoption name UCI_Chess960")]
    assert set(chess960) == {"setoption name UCI_Chess960 value true", "setoption name UCI_Chess960 value false"}


@pytest.mark.slow
def test_a_connect_four_engine_with_one_fault_fails_in_one_line(installed_example: InstalledExample) -> None:
    """It answers a full column once there is one: the random-positions check fails, in one line
    naming the move, the position and the rules' reason; every other check passes."""
    engine = f"cmd={sys.executable} {BROKEN_CONNECT_FOUR}"
    done = check_engine("--engine", engine, "--variant", "connect-four", "--positions", "40", env=installed_example.env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == ""
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert failed == [
        "FAIL  legal moves in 40 random connect-four positions: illegal bestmove 'a' in position 2 "
        "(connect-four r2r2r/y2r2r/yy1y2y/ry1r1rr/yyrr1yr/yryryyy:r): 'a': column a is full"
    ]
    assert done.stdout.splitlines()[-1].endswith(" 1 failed, 5 skipped; the engine FAILED")


def test_a_variant_needing_an_option_the_engine_lacks_fails_the_variants_check() -> None:
    """Chess960 needs UCI_Chess960 (its game's engine option), which Dipole's engine lacks."""
    done = check_engine("--engine", "cmd=dipole-engine", "--variant", "chess960")
    assert done.returncode == 1 and done.stderr == ""
    assert [line for line in results(done.stdout) if not line.startswith("ok")] == [
        "FAIL  variants: variant 'chess960' needs the option UCI_Chess960, which it does not offer",
        "skip  handshake: ugi ... ugiok: plain UCI: the UGI handshake is SPEC.md's, not asked of a UCI engine",
    ]

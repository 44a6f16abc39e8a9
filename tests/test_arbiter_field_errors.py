"""A refusal names what the user typed, and shows no more of a file than the file's own words:
an event-wide flag's bad value names the flag (not the first engine), and a file given as
openings that does not start as one is refused without quoting it (a bad line after a good
one is quoted: test_arbiter_cli.py's test_bad_openings_line_is_named)."""

from __future__ import annotations

from pathlib import Path

from test_hostile_input import TWO, arbiter, one_line_error

SECRET = "root:$6$rounds=5000$abcdefgh$Vq9hidden:20228:0:99999:7:::"


def test_a_bad_time_control_names_the_flag_not_an_engine(tmp_path: Path) -> None:
    result = arbiter("tournament", *TWO, "--tc", "banana", "--db", "x.db", cwd=tmp_path)
    one_line_error(result, "--tc: time control 'banana': expected")
    assert "--engine" not in result.stderr
    one_line_error(arbiter("match", *TWO, "--st", "soon", cwd=tmp_path), "--st: st 'soon'")
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_no_openings_file_is_not_quoted(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(f"{SECRET}\ndaemon:*:20228:0:99999:7:::\n")
    result = arbiter("match", *TWO, "--depth", "1", "--openings", str(secret), cwd=tmp_path)
    one_line_error(result, f"openings file {secret}: line 1 is no opening of dipole")
    assert "Vq9hidden" not in result.stderr and "20228" not in result.stderr

"""The ``dipole-gui`` command line: engines read as the arbiter reads them, one-line errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from gui_support import ROOT, SERVER_CODE, TOY_ENGINE, gui_server


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SERVER_CODE, *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, check=False)


@pytest.mark.parametrize(("args", "error"), [
    (["--engine", "cmd=/nonexistent/engine"], "--engine #1: engine program '/nonexistent/engine' not found"),
    (["--engine", "cmd=x", "colour=red"], "--engine #1: unknown key 'colour'"),
    (["--config", "/nonexistent.json"], "config file /nonexistent.json: No such file or directory"),
    (["--port", "70000"], "Invalid value for '--port'"),
    (["--token", "short"], "--token: use at least 8 letters"),
])
def test_bad_arguments_give_one_line_and_status_2(args: list[str], error: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(f"dipole-gui: error: {error}"), result.stderr
    assert result.stderr.count("\n") == 1


def test_port_in_use_is_one_line() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = run("--port", str(port))
    assert result.returncode == 2
    assert result.stderr.startswith(f"dipole-gui: error: cannot listen on 127.0.0.1:{port}")


def test_engines_from_config_and_each(tmp_path: Path) -> None:
    config = tmp_path / "engines.json"
    config.write_text(json.dumps({"engines": [{"name": "toy", "cmd": [sys.executable, str(TOY_ENGINE)]},
                                              {"name": "own", "cmd": f"{sys.executable} -m dipole_engine"}],
                                  "each": {"depth": "2"}}))
    with gui_server("--config", str(config), "--each", "option.Hash=8") as server:
        assert server.lines[0].strip() == "dipole-gui: 2 engines: toy, own"
        assert server.url.startswith("http://127.0.0.1:") and "token" not in server.url

"""The ``dipole-gui`` command line: engines read as the arbiter reads them, one-line errors."""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from gui_support import ROOT, SERVER_CODE, TOY_ENGINE, gui_server


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SERVER_CODE, *args], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--engine", "cmd=/nonexistent/engine"], "--engine #1: engine program '/nonexistent/engine' not found"),
        (["--engine", "cmd=x", "colour=red"], "--engine #1: unknown key 'colour'"),
        (["--config", "/nonexistent.json"], "config file /nonexistent.json: No such file or directory"),
        (["--port", "70000"], "Invalid value for '--port'"),
        (["--token", "short"], "--token: use at least 8 letters"),
    ],
)
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
    config.write_text(
        json.dumps(
            {
                "engines": [
                    {"name": "toy", "cmd": [sys.executable, str(TOY_ENGINE)]},
                    {"name": "own", "cmd": f"{sys.executable} -m dipole_engine"},
                ],
                "each": {"depth": "2"},
            }
        )
    )
    with gui_server("--config", str(config), "--each", "option.Hash=8") as server:
        assert server.lines[0].strip() == "dipole-gui: 2 engines: toy, own"
        assert server.url.startswith("http://127.0.0.1:") and "token" not in server.url


def machine_addresses(version: int) -> set[str]:
    """This machine's own non-loopback, non-link-local addresses, as the kernel lists them."""
    if version == 4:
        found = set(re.findall(r"\|-- (\S+)\n\s+/32 host LOCAL", Path("/proc/net/fib_trie").read_text()))
    else:
        found = {
            str(ipaddress.IPv6Address(int(line.split()[0], 16)))
            for line in Path("/proc/net/if_inet6").read_text().splitlines()
        }
    return {a for a in found if not (ipaddress.ip_address(a).is_loopback or ipaddress.ip_address(a).is_link_local)}


@pytest.mark.parametrize(("host", "loopback", "version"), [("0.0.0.0", "127.0.0.1", 4), ("::", "[::1]", 6)])
def test_listening_on_every_address_prints_urls_that_work(host: str, loopback: str, version: int) -> None:
    with gui_server("--host", host) as server:
        assert server.url.startswith(f"http://{loopback}:") and "?token=" in server.url
        assert server.proc.stdout is not None
        line = server.proc.stdout.readline()
        assert line.startswith("dipole-gui: from other machines: http://"), line
        urls = line.split(": ", 2)[2].split()
        shown = {urlsplit(url).hostname for url in urls}
        assert shown and shown <= machine_addresses(version), (shown, machine_addresses(version))
        for url in (server.url, *urls):
            assert urlsplit(url).hostname != host
            with urllib.request.urlopen(url, timeout=10) as answer:
                assert answer.status == 200 and b"<html" in answer.read()

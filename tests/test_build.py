"""The two builds (compiled with mypyc, pure Python): which one runs, the guard against stale
compiled modules, and the protocol staying responsive during a search in either.

CI runs the whole suite on the compiled build and the tests marked ``build`` (these among them)
on the pure one, and sets ``DIPOLE_ENGINE_EXPECT_BUILD`` to the build it installed (``mypyc`` or
``pure Python``), so that a build that silently fell back is caught.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.metadata
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_engine_protocol import EngineProcess

import dipole_runtime
from dipole_runtime.build import (
    COMPILED_MODULES,
    MANIFEST_NAME,
    PURE_VARIABLE,
    build_name,
    source_path,
)

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

RUNTIME = Path(dipole_runtime.__file__).resolve().parent
"""The package that selects the build, where the compiled build's manifest lives."""
EXPECTED = os.environ.get("DIPOLE_ENGINE_EXPECT_BUILD")
VERSION = re.compile(r"dipole-engine \S+ \((mypyc|pure Python)\)")


def run(args: list[str], cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != PURE_VARIABLE}
    environment.update(env)
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=cwd, env=environment, check=False)


def test_the_expected_build_is_installed() -> None:
    compiled = (RUNTIME / MANIFEST_NAME).exists()
    assert build_name() == ("mypyc" if compiled else "pure Python")
    if EXPECTED is not None:
        assert build_name() == EXPECTED, f"CI installed {EXPECTED!r} but {build_name()!r} runs"


def test_version_and_id_name_say_which_build_runs() -> None:
    shown = run(["dipole-engine", "--version"])
    assert shown.returncode == 0 and shown.stderr == ""
    match = VERSION.fullmatch(shown.stdout.strip())
    assert match is not None, shown.stdout
    assert match.group(1) == build_name()
    engine = subprocess.run(
        ["dipole-engine"], input="uci\nquit\n", capture_output=True, text=True, timeout=60, check=False
    )
    version = importlib.metadata.version("dipole-engine")
    assert f"id name Dipole Engine {version} ({build_name()})" in engine.stdout.splitlines()
    forced = run(["dipole-engine", "--version"], **{PURE_VARIABLE: "1"})
    assert forced.stdout.strip().endswith("(pure Python)") and forced.stderr == ""


def copy_of_the_package(tmp_path: Path) -> Path:
    """The installed packages that hold compiled modules (the rules and engine, the protocol,
    the arbiter) and the one that selects the build, with those modules and the manifest, if
    any, copied to ``tmp_path``; a pure build gets a manifest of its true hashes, as a compiled
    one has."""
    compiled = (RUNTIME / MANIFEST_NAME).exists()
    extensions = [f"*{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    skipped = ["__pycache__"] + ([] if compiled else extensions)  # (a pure build may sit beside old ones)
    for package in sorted({"dipole_runtime", *(module.split(".")[0] for module in COMPILED_MODULES)}):
        shutil.copytree(RUNTIME.parent / package, tmp_path / package, ignore=shutil.ignore_patterns(*skipped))
    for shared in RUNTIME.parent.glob("*__mypyc*") if compiled else ():  # mypyc's runtime library
        shutil.copy(shared, tmp_path)
    if not compiled:
        copy = tmp_path / "dipole_runtime" / MANIFEST_NAME
        hashes = {
            module: hashlib.sha256(Path(source_path(module)).read_bytes()).hexdigest() for module in COMPILED_MODULES
        }
        copy.write_text(json.dumps(hashes))
    return tmp_path


PROBE = (
    "import dipole_engine.search as search; from dipole_runtime.build import build_name; "
    "from dipole_engine import new_board, perft; "
    "print(build_name(), search.__file__.endswith('.py'), perft(new_board('dipole'), 3))"
)


def test_an_edited_source_is_never_shadowed_by_its_stale_compiled_module(tmp_path: Path) -> None:
    root = copy_of_the_package(tmp_path)
    untouched = run([sys.executable, "-c", PROBE], cwd=root, PYTHONPATH=str(root))
    assert untouched.returncode == 0 and untouched.stderr == "", untouched.stderr
    assert untouched.stdout.strip() == f"{build_name()} {build_name() == 'pure Python'} 5749"

    search = root / "dipole_engine" / "search.py"
    search.write_text(search.read_text() + "\nEDITED = True  # after the build\n")
    edited = run([sys.executable, "-c", PROBE + "; print(search.EDITED)"], cwd=root, PYTHONPATH=str(root))
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout.split() == ["pure", "Python", "True", "5749", "True"]  # the edited source runs
    assert (
        "StaleBuildWarning" in edited.stderr
        and "dipole_engine/search.py changed after the compiled build" in edited.stderr
        and "pip install -e ." in edited.stderr
    )

    forced = run([sys.executable, "-c", PROBE], cwd=root, PYTHONPATH=str(root), **{PURE_VARIABLE: "1"})
    assert forced.stdout.split()[:3] == ["pure", "Python", "True"]


@pytest.mark.parametrize("module", ["protocol.reading", "protocol.writing", "protocol.client", "arbiter.play.referee"])
def test_a_host_module_edited_after_the_build_runs_from_its_source(tmp_path: Path, module: str) -> None:
    """The protocol's and the referee's compiled modules are checked too, even when a host
    imports them before anything of the rules."""
    root = copy_of_the_package(tmp_path)
    probe = (
        f"import {module} as edited; from dipole_runtime.build import build_name; "
        "print(build_name(), edited.__file__.endswith('.py'), getattr(edited, 'EDITED', False))"
    )
    untouched = run([sys.executable, "-c", probe], cwd=root, PYTHONPATH=str(root))
    assert untouched.returncode == 0 and untouched.stderr == "", untouched.stderr
    assert untouched.stdout.strip() == f"{build_name()} {build_name() == 'pure Python'} False"

    shown = module.replace(".", "/") + ".py"
    source = root / shown
    source.write_text(source.read_text() + "\nEDITED = True  # after the build\n")
    edited = run([sys.executable, "-c", probe], cwd=root, PYTHONPATH=str(root))
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout.split() == ["pure", "Python", "True", "True"]  # the edited source runs
    assert "StaleBuildWarning" in edited.stderr and f"{shown} changed after the compiled build" in edited.stderr


@pytest.mark.parametrize("variant", ["dipole", "impasse"])
def test_isready_is_answered_promptly_during_a_search(variant: str) -> None:
    """The goal is a 10 ms median; the bound leaves room for a busy shared machine."""
    engine = EngineProcess()
    try:
        engine.send(f"setoption name UCI_Variant value {variant}")
        engine.send("position startpos")
        engine.send("go infinite")
        time.sleep(0.3)
        latencies = []
        for _ in range(15):
            time.sleep(0.03)
            begin = time.monotonic()
            engine.send("isready")
            while engine.read() != "readyok":
                pass
            latencies.append(time.monotonic() - begin)
        assert statistics.median(latencies) < 0.1, f"isready took {sorted(latencies)} s"
        begin = time.monotonic()
        engine.send("stop")
        engine.until("bestmove")
        assert time.monotonic() - begin < 1.0
        engine.send("quit")
        assert engine.exit_status() == 0
    finally:
        engine.kill()

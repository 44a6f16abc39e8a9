"""The build script (``setup.py``): what it records of a compiled build, and the install that
follows one in the same tree (the README's second command) taking its files again instead of
compiling, unless a source, mypy, Python or a flag has changed since."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from types import ModuleType

import pytest

from dipole_runtime.build import COMPILED_MODULES, PURE_VARIABLE

ROOT = Path(__file__).resolve().parents[1]


def copy_of_the_project(target: Path) -> Path:
    """The build script, its configuration and the packages' sources, without anything built."""
    target.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, target / name)
    built = shutil.ignore_patterns("__pycache__", "*.so", "_compiled.json")
    for package in sorted(path.parent.name for path in ROOT.glob("*/__init__.py")):
        shutil.copytree(ROOT / package, target / package, ignore=built)
    return target


def load_setup(root: Path) -> ModuleType:
    """``setup.py`` of ``root`` as a module (only run as a script does it call ``setup()``)."""
    spec = importlib.util.spec_from_file_location("dipole_setup", root / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_build_records_every_source_mypyc_reads(tmp_path: Path) -> None:
    root = copy_of_the_project(tmp_path / "project")
    setup = load_setup(root)
    inputs = setup.build_inputs()
    sources = inputs["sources"]
    assert {module.replace(".", "/") + ".py" for module in COMPILED_MODULES} <= sources.keys()
    # Modules the compiled ones import (mypyc compiles against their types and constants) and
    # the packages' __init__.py; the GUI, which none of them imports, is not among them.
    assert {"protocol/messages.py", "arbiter/errors.py", "dipole_engine/__init__.py"} <= sources.keys()
    assert not any(name.startswith("dipole_gui/") for name in sources)
    assert setup.changed_input(inputs, inputs) is None
    assert setup.changed_input(inputs, {**inputs, "mypy": "1.0.0"}).startswith("mypy 1.0.0 then")

    messages = root / "protocol" / "messages.py"
    messages.write_text(messages.read_text() + "\n# edited after the build\n")
    setup.build_inputs.cache_clear()
    assert setup.changed_input(setup.build_inputs(), inputs) == "protocol/messages.py changed"


def compiler_present() -> bool:
    """A C compiler and Python's headers (``.ci/run`` installs them), which the compiled build needs."""
    return shutil.which("cc") is not None and (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


@pytest.mark.slow
@pytest.mark.timeout(1500)  # two compiled builds: 2-4 minutes each on two busy cores
def test_an_unchanged_tree_is_not_compiled_again_and_an_edited_one_is(tmp_path: Path) -> None:
    if not compiler_present():
        if os.environ.get("CI"):
            pytest.fail("no C compiler or Python.h, and CI must run this test (.ci/run installs them)")
        pytest.skip("no C compiler or Python.h")
    root = copy_of_the_project(tmp_path / "project")
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=120)
    python = str(tmp_path / "venv" / "bin" / "python")
    environment = {key: value for key, value in os.environ.items() if key not in (PURE_VARIABLE, "PYTHONPATH")}
    environment["DIPOLE_ENGINE_BUILD"] = "compiled"

    def install() -> tuple[float, str]:
        """``pip install -e .`` in the copy: its time and what the build said (``-v`` shows it)."""
        begin = time.monotonic()
        done = subprocess.run(
            [python, "-m", "pip", "install", "-v", "-e", "."],
            cwd=root,
            env=environment,
            capture_output=True,
            text=True,
            timeout=1200,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return time.monotonic() - begin, done.stdout + done.stderr

    def probe() -> list[str]:
        """Whether the engine's table module runs compiled, and its ``EDITED`` mark."""
        code = "import dipole_engine.tt as tt; print(tt.__file__.endswith('.py'), getattr(tt, 'EDITED', None))"
        done = subprocess.run(  # not from the test's folder, which may hold the project's own tree
            [python, "-c", code], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr  # no StaleBuildWarning
        return done.stdout.split()

    first_time, first = install()
    assert "dipole-engine build: compiled with mypyc" in first
    assert probe() == ["False", "None"]

    second_time, second = install()
    assert "compiled modules are up to date" in second and "not compiled again" in second
    assert "compiled with mypyc" not in second and "building '" not in second  # neither mypyc nor the C compiler ran
    assert second_time < first_time / 2, f"first install {first_time:.0f} s, second {second_time:.0f} s"
    assert probe() == ["False", "None"]

    tt = root / "dipole_engine" / "tt.py"
    tt.write_text(tt.read_text() + "\nEDITED = 7  # after the build\n")
    _, third = install()
    assert "compiling again: dipole_engine/tt.py changed" in third
    assert "dipole-engine build: compiled with mypyc" in third
    assert probe() == ["False", "7"]  # the edited source, compiled

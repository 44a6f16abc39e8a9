"""Build script: the optional compiled build of the engine's hot modules (mypyc).

``pip install .`` and ``pip install -e .`` compile the modules listed in
``dipole_engine/build_info.py`` (``COMPILED_MODULES``) with mypyc when a C compiler is present,
and fall back to the pure-Python package, with a warning, when it is not or when the build
fails.  ``DIPOLE_ENGINE_BUILD`` chooses: ``auto`` (the default), ``compiled`` (fail rather
than fall back) or ``pure`` (compile nothing).

Next to the compiled modules the build writes ``dipole_engine/_compiled.json``: the SHA-256 of
each compiled source.  At import, ``dipole_engine.build_info`` compares them with the ``.py``
files and runs the pure modules (with a warning) when any source has changed since, so a stale
compiled module never shadows an edited one.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MODE_VARIABLE = "DIPOLE_ENGINE_BUILD"
MODES = ("auto", "compiled", "pure")
MANIFEST = "dipole_engine/_compiled.json"


def compiled_modules() -> list[str]:
    """The module names to compile, read from build_info.py without importing the package."""
    tree = ast.parse((ROOT / "dipole_engine" / "build_info.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMPILED_MODULES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise SystemExit("dipole-engine build: no COMPILED_MODULES in dipole_engine/build_info.py")


def source_path(module: str) -> str:
    return module.replace(".", "/") + ".py"


def say(text: str) -> None:
    print(f"dipole-engine build: {text}", file=sys.stderr)


def build_mode() -> str:
    mode = os.environ.get(MODE_VARIABLE, "auto").strip().lower() or "auto"
    if mode not in MODES:
        raise SystemExit(f"dipole-engine build: {MODE_VARIABLE}={mode!r}; expected one of {', '.join(MODES)}")
    return mode


class OptionalBuildExt(build_ext):
    """build_ext that records the compiled sources' hashes, and in ``auto`` mode turns a
    failed compilation into the pure-Python build instead of a failed install."""

    def run(self) -> None:
        manifest = ROOT / MANIFEST
        if self.inplace:  # no compiled module beside the sources is trusted until this build ends
            manifest.unlink(missing_ok=True)
        try:
            super().run()
        except Exception as error:  # any compiler or linker failure
            if build_mode() == "compiled":
                raise
            reason = " ".join(str(error).split())
            say(
                f"compiling failed ({reason[:160]}{'...' if len(reason) > 160 else ''}); "
                f"installing the pure-Python build"
            )
            self._remove_outputs()
            return
        if not self.extensions:
            return
        # In place (an editable install) beside the sources, else where the wheel's modules go.
        target = manifest if self.inplace else Path(self.build_lib) / MANIFEST
        target.parent.mkdir(parents=True, exist_ok=True)
        hashes = {
            module: hashlib.sha256((ROOT / source_path(module)).read_bytes()).hexdigest()
            for module in compiled_modules()
        }
        target.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        say("compiled with mypyc")

    def _remove_outputs(self) -> None:
        for ext in self.extensions:
            path = Path(self.get_ext_fullpath(ext.name))
            path.unlink(missing_ok=True)


def extensions() -> list[Any]:
    mode = build_mode()
    if mode == "pure":
        (ROOT / MANIFEST).unlink(missing_ok=True)  # compiled modules of an earlier build stop loading
        say(f"{MODE_VARIABLE}=pure: pure-Python build")
        return []
    try:
        from mypyc.build import mypycify

        # The build's environment has setuptools and mypy alone (pip installs the run-time
        # dependencies after it), so the compiled modules' imports of them (greenlet, click, ...)
        # are read as untyped (Any), and the strictness that pyproject.toml's mypy settings ask
        # of the whole tree (checked in CI, with every dependency installed) is left to CI.
        options = ["--config-file=", "--ignore-missing-imports", "--follow-imports=silent"]
        return list(mypycify([*options, *(source_path(module) for module in compiled_modules())], opt_level="3"))
    except (Exception, SystemExit) as error:  # mypyc missing, or a type error (mypyc exits on one)
        if mode == "compiled":
            raise
        (ROOT / MANIFEST).unlink(missing_ok=True)
        say(f"mypyc is unavailable or failed ({error}); pure-Python build")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})

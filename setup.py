"""Build script: the optional compiled build of the engine's hot modules (mypyc).

``pip install .`` and ``pip install -e .`` compile the modules listed in
``dipole_runtime/build.py`` (``COMPILED_MODULES``) with mypyc when a C compiler is present,
and fall back to the pure-Python package, with a warning, when it is not or when the build
fails.  ``DIPOLE_ENGINE_BUILD`` chooses: ``auto`` (the default), ``compiled`` (fail rather
than fall back) or ``pure`` (compile nothing).

The build writes ``dipole_runtime/_compiled.json``: the SHA-256 of each compiled source.  At
import, ``dipole_runtime.build`` compares them with the ``.py`` files and runs the pure modules
(with a warning) when any source has changed since, so a stale compiled module never shadows an
edited one.

The same file records what the build was made of (its ``build`` entry): the SHA-256 of every
source mypyc read (the compiled modules and the project's modules they import), mypy's and
Python's versions and the build's flags, and the SHA-256 of each extension file it left.  A
build in the same tree that finds all of these unchanged, and the files intact, takes those
files again instead of compiling (2-4 minutes on two cores): the README's second command,
``pip install -e '.[test]'``, after the first.  pip runs this script three times an install
(for its build requirements, the metadata, the build); only the build asks mypyc for anything.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MODE_VARIABLE = "DIPOLE_ENGINE_BUILD"
MODES = ("auto", "compiled", "pure")
MANIFEST = "dipole_runtime/_compiled.json"
# The build's environment has setuptools and mypy alone (pip installs the run-time dependencies
# after it), so the compiled modules' imports of them (greenlet, click, ...) are read as untyped
# (Any), and the strictness that pyproject.toml's mypy settings ask of the whole tree (checked in
# CI, with every dependency installed) is left to CI.
MYPYC_OPTIONS = ["--config-file=", "--ignore-missing-imports", "--follow-imports=silent"]
OPT_LEVEL = "3"
COMPILER_VARIABLES = ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS")
METADATA_COMMANDS = ("egg_info", "dist_info")


def compiled_modules() -> list[str]:
    """The module names to compile, read from dipole_runtime/build.py without importing it."""
    tree = ast.parse((ROOT / "dipole_runtime" / "build.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMPILED_MODULES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise SystemExit("dipole-engine build: no COMPILED_MODULES in dipole_runtime/build.py")


def source_path(module: str) -> str:
    return module.replace(".", "/") + ".py"


def say(text: str) -> None:
    print(f"dipole-engine build: {text}", file=sys.stderr)


def build_mode() -> str:
    mode = os.environ.get(MODE_VARIABLE, "auto").strip().lower() or "auto"
    if mode not in MODES:
        raise SystemExit(f"dipole-engine build: {MODE_VARIABLE}={mode!r}; expected one of {', '.join(MODES)}")
    return mode


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def module_file(module: str) -> Path | None:
    """The project's source of ``module`` (a module or a package), None for anything else."""
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_names(module: str, path: Path) -> set[str]:
    """Every dotted name a module's imports may mean (``from a import b``: ``a`` and ``a.b``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")  # relative: each dot past the first goes one package up
            anchor = parts[: len(parts) + 1 - node.level] if node.level else []
            base = ".".join([*anchor, *([node.module] if node.module else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def read_sources() -> dict[str, str]:
    """The SHA-256 of every source mypyc reads: the compiled modules and the project's modules
    they import, directly or not, with their packages' ``__init__.py`` (mypyc compiles against
    their types, and takes in their ``Final`` constants)."""
    found: dict[str, Path] = {}
    pending = compiled_modules()
    while pending:
        parts = pending.pop().split(".")
        for length in range(1, len(parts) + 1):  # a module's packages too
            name = ".".join(parts[:length])
            path = None if name in found else module_file(name)
            if path is not None:
                found[name] = path
                pending.extend(imported_names(name, path))
    return {path.relative_to(ROOT).as_posix(): sha256(path) for path in sorted(found.values())}


@functools.cache  # read once, before anything is compiled, and recorded when the build ends
def build_inputs() -> dict[str, Any]:
    """What the compiled modules are made of: when all of it is unchanged, so are they."""
    return {
        "sources": read_sources(),
        "mypy": importlib.metadata.version("mypy"),
        "python": f"{sys.version} {sysconfig.get_config_var('EXT_SUFFIX')}",
        "flags": [*MYPYC_OPTIONS, f"opt_level={OPT_LEVEL}"]
        + [f"{name}={os.environ[name]}" for name in COMPILER_VARIABLES if name in os.environ],
    }


def changed_input(inputs: dict[str, Any], built: dict[str, Any]) -> str | None:
    """What differs between two builds' inputs, in a few words; None when nothing does."""
    for key in ("mypy", "python", "flags"):
        if inputs[key] != built.get(key):
            return f"{key} {built.get(key)} then, {inputs[key]} now"
    sources: dict[str, str] = built.get("sources", {})
    changed = sorted(
        name for name in inputs["sources"].keys() | sources.keys() if inputs["sources"].get(name) != sources.get(name)
    )
    if changed:
        return f"{', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''} changed"
    return None


class BuiltExtension(Extension):
    """An extension that an earlier build in this tree compiled from the same inputs: its file
    is taken again instead of compiling it."""

    def __init__(self, name: str, built_file: Path) -> None:
        super().__init__(name, sources=[])
        self.built_file = built_file


def earlier_build(inputs: dict[str, Any]) -> list[Extension] | None:
    """The extensions of this tree's last in-place build when its inputs were these and its
    files are intact; None (saying why) when the modules must be compiled."""
    try:
        built = json.loads((ROOT / MANIFEST).read_text(encoding="utf-8"))["build"]
        files = {name: (ROOT / entry["file"], entry["sha256"]) for name, entry in built["extensions"].items()}
        changed = changed_input(inputs, built["inputs"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # no compiled build here yet (or one from before these records)
    if changed is None and not all(path.is_file() and sha256(path) == digest for path, digest in files.values()):
        changed = "the compiled files changed since the last build"
    if changed is not None:
        say(f"compiling again: {changed}")
        return None
    say("the compiled modules are up to date (same sources, mypy, Python and flags): not compiled again")
    return [BuiltExtension(name, path) for name, (path, _) in files.items()]


class OptionalBuildExt(build_ext):
    """build_ext that records the compiled sources' hashes and the build's inputs, takes the
    files of an unchanged earlier build, and in ``auto`` mode turns a failed compilation into
    the pure-Python build instead of a failed install."""

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
        record: dict[str, Any] = {
            module: hashlib.sha256((ROOT / source_path(module)).read_bytes()).hexdigest()
            for module in compiled_modules()
        }
        if self.inplace:  # what a later build in this tree may take again (earlier_build)
            files = {ext.name: Path(self.get_ext_fullpath(ext.name)).resolve() for ext in self.extensions}
            record["build"] = {
                "inputs": build_inputs(),
                "extensions": {
                    name: {"file": path.relative_to(ROOT).as_posix(), "sha256": sha256(path)}
                    for name, path in files.items()
                },
            }
        target.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if not any(isinstance(ext, BuiltExtension) for ext in self.extensions):
            say("compiled with mypyc")

    def build_extension(self, ext: Extension) -> None:
        if isinstance(ext, BuiltExtension):
            target = Path(self.get_ext_fullpath(ext.name))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ext.built_file, target)
            return
        super().build_extension(ext)

    def _remove_outputs(self) -> None:
        for ext in self.extensions:
            path = Path(self.get_ext_fullpath(ext.name))
            path.unlink(missing_ok=True)


def metadata_only() -> bool:
    """Whether pip runs this script for the package's metadata alone (its build requirements,
    ``egg_info``, and its metadata, ``dist_info``), which needs no extension compiled."""
    commands = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    return bool(commands) and commands[0] in METADATA_COMMANDS


def extensions() -> list[Any]:
    mode = build_mode()
    if mode == "pure":
        (ROOT / MANIFEST).unlink(missing_ok=True)  # compiled modules of an earlier build stop loading
        say(f"{MODE_VARIABLE}=pure: pure-Python build")
        return []
    if metadata_only():
        return []
    try:
        from mypyc.build import mypycify

        inputs = build_inputs()
        return earlier_build(inputs) or list(
            mypycify([*MYPYC_OPTIONS, *map(source_path, compiled_modules())], opt_level=OPT_LEVEL)
        )
    except (Exception, SystemExit) as error:  # mypyc missing, or a type error (mypyc exits on one)
        if mode == "compiled":
            raise
        (ROOT / MANIFEST).unlink(missing_ok=True)
        say(f"mypyc is unavailable or failed ({error}); pure-Python build")
        return []


if __name__ == "__main__":  # as pip and setuptools run it (tests/test_setup.py imports it)
    setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})

"""Which build of the project runs, compiled (mypyc) or pure Python, and the guard that keeps a
stale compiled module from shadowing an edited source.

The build (``setup.py``) compiles :data:`COMPILED_MODULES` when it can and writes
``_compiled.json`` beside this module: the SHA-256 of each compiled source.  :func:`select_build`,
called when :mod:`dipole_runtime` is imported (which ``dipole_engine``, ``protocol`` and
``arbiter`` do before anything else, so before any compiled module loads), compares those
hashes with the ``.py`` files now on disk.  When any differs (a source was edited after the
build), or when ``DIPOLE_ENGINE_PURE=1`` is set, or when there is no manifest (a pure build,
which may find compiled modules of an earlier build beside its sources), it puts a finder first
on ``sys.meta_path`` that loads every one of these modules from its ``.py`` file: all of them,
since compiled modules call each other directly and a mix could run old code behind new.  A
changed source also gets a warning that says how to rebuild.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

VERSION = "0.1.0"
"""The package's version (``pyproject.toml`` reads it from here): a constant, so that an engine
answers ``uci`` without reading the installed metadata (``importlib.metadata`` costs more to
import than the rest of the engine's start)."""

COMPILED_MODULES = (
    "dipole_engine.rules.common",
    "dipole_engine.rules.geometry",
    "dipole_engine.rules.zobrist",
    "dipole_engine.rules.fen",
    "dipole_engine.rules.base",
    "dipole_engine.rules.dipole",
    "dipole_engine.rules.impasse",
    "dipole_engine.rules.perft",
    "dipole_engine.tt",
    "dipole_engine.hooks",
    "dipole_engine.evaluate_dipole",
    "dipole_engine.evaluate_impasse",
    "dipole_engine.evaluate",
    "dipole_engine.search",
    # The host's calls into a game a ply (its state's methods, its outcome): compiled, the
    # arbiter's per-ply path over Dipole costs 1% more instructions than before it went through
    # the game interface, against 10% with these two interpreted.
    "gameplug.outcome",
    "dipole_engine.plugin",
    # A host's path of a move: 12-18% of the arbiter's CPU a ply.  Of the codec only its
    # reading of lines and the writing of a move's go and position lines: its messages must
    # take, and its writers refuse with a ProtocolError, values of any type a caller gives them
    # (docs/development.md, The compiled build).
    "protocol.reading",
    "protocol.writing",
    "protocol.waiting",
    "protocol.transport",
    "protocol.liveprocesses",
    "protocol.linereader",
    "protocol.guardstart",
    "protocol.processtransport",
    "protocol.memorytransport",
    "protocol.client",
    "arbiter.play.timecontrol",
    "arbiter.play.adjudication",
    "arbiter.play.engines",
    "arbiter.play.referee",
    "arbiter.pools.hub",
)

PURE_VARIABLE = "DIPOLE_ENGINE_PURE"
"""Set to ``1`` to run the pure-Python modules even where compiled ones are installed."""

MANIFEST_NAME = "_compiled.json"
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The folder that holds the project's packages (plain strings: every engine process starts here, and
``pathlib`` and ``importlib.abc`` cost more to import than the whole check takes)."""


class StaleBuildWarning(RuntimeWarning):
    """A compiled module's source was edited after the build; the pure modules run instead."""


class _SourceFinder:
    """Finds each of ``names`` as its ``.py`` file, never as a compiled extension (a finder
    of ``sys.meta_path``: ``find_spec`` is all that asks of it)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


def source_path(module: str) -> str:
    return os.path.join(PACKAGE_ROOT, *module.split(".")) + ".py"


def stale_sources(manifest: dict[str, str]) -> list[str]:
    """The compiled modules whose source no longer has the hash recorded at build time."""
    import hashlib  # only a compiled build has hashes to check

    stale = []
    for module in COMPILED_MODULES:
        try:
            with open(source_path(module), "rb") as source:
                digest = hashlib.sha256(source.read()).hexdigest()
        except OSError:
            digest = ""
        if manifest.get(module) != digest:
            stale.append(module)
    return stale


def read_manifest() -> dict[str, str] | None:
    """The hashes recorded by the compiled build, or None where nothing was compiled."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), MANIFEST_NAME), encoding="utf-8") as file:
            text = file.read()
    except OSError:
        return None
    import json  # only a compiled build has a manifest

    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def select_build() -> None:
    """Make the pure modules run where compiled ones must not (see the module docstring)."""
    if any(isinstance(finder, _SourceFinder) for finder in sys.meta_path):
        return
    manifest = read_manifest()
    if manifest is None or os.environ.get(PURE_VARIABLE, "").strip() not in ("", "0"):
        # The pure build (compiled modules left over from an earlier build must not load), or
        # the pure modules asked for.
        sys.meta_path.insert(0, _SourceFinder(COMPILED_MODULES))
        return
    stale = stale_sources(manifest)
    if stale:
        names = ", ".join(os.path.relpath(source_path(module), PACKAGE_ROOT) for module in stale)
        warnings.warn(
            f"dipole-engine: {names} changed after the compiled build; running the pure-Python "
            f"build (rebuild with: pip install -e .)",
            StaleBuildWarning,
            stacklevel=2,
        )
        sys.meta_path.insert(0, _SourceFinder(COMPILED_MODULES))


def build_name() -> str:
    """``"mypyc"`` when every hot module runs compiled, ``"pure Python"`` otherwise."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for module in COMPILED_MODULES:
        if not str(importlib.import_module(module).__file__).endswith(suffixes):
            return "pure Python"
    return "mypyc"

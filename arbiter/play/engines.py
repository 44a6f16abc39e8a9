"""Engine specifications: which command to run, under which name, with which options and limits.

Engines are described cutechess-cli style, as ``key=value`` settings::

    --engine cmd="python3 my_engine.py --level 3" name=alpha option.Hash=32 tc=10+0.1
    --each timemargin=50 depth=6

or in a JSON config file with the same keys (``{"engines": [{...}, ...], "each": {...}}``;
``cmd`` may also be a list of arguments and ``options`` an object).  Keys:

==============  ==================================================================
``cmd``         the command line, split as a POSIX shell would (required)
``name``        the name in records and results (default: taken from the command; two
                engines given the same name is an error)
``dir``         the working directory to start the engine in
``option.X``    ``setoption name X value ...`` after the handshake (any number)
``tc``          time control ``[moves/]seconds[+increment]`` or ``inf`` (no clock; as the
                only limit, ``go infinite`` ended by the arbiter's ``stop``)
``st``          fixed seconds per move
``depth``       ``go depth N``
``nodes``       ``go nodes N``
``timemargin``  milliseconds an engine may overrun its time without losing
``ponder``      ``true``: think on the opponent's time (``go ponder``) when the engine has a
                ``Ponder`` option (cutechess-cli's ``ponder``; ``--ponder`` for all engines)
``conf``        take the engine of that name from the config file, then apply the rest
==============  ==================================================================

An engine's own settings win over ``--each``, which wins over the match-wide flags.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mypy_extensions import mypyc_attr

from ..errors import ArbiterError
from ..files import read_text
from ..text import check_printable
from .timecontrol import (
    MAX_DEPTH,
    SearchLimits,
    TimeControl,
    parse_count,
    parse_margin,
    parse_seconds,
    parse_switch,
)

LIMIT_KEYS = ("tc", "st", "depth", "nodes", "timemargin", "ponder")
PLAIN_KEYS = ("cmd", "name", "dir", "conf", *LIMIT_KEYS)
OPTION_PREFIX = "option."
MAX_CONFIG_BYTES = 16 << 20


@mypyc_attr(native_class=False)  # pickled to game processes and workers (README: Builds)
@dataclass(frozen=True)
class EngineSpec:
    """Everything needed to start and drive one engine (a value: safe to share across threads)."""

    name: str
    command: tuple[str, ...]
    limits: SearchLimits
    cwd: str | None = None
    options: tuple[tuple[str, str], ...] = field(default=())

    def describe(self) -> str:
        """One line for the match header: name, command, options and limits."""
        options = "".join(f" option.{name}={value}" for name, value in self.options)
        return f"{self.name}: {shlex.join(self.command)}{options} {self.limits.summary()}"


Settings = dict[str, str]


def parse_tokens(tokens: Sequence[str], where: str) -> Settings:
    """``["cmd=x y", "depth=3"]`` -> ``{"cmd": "x y", "depth": "3"}``; ``where`` names the flag."""
    settings: Settings = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise ArbiterError(f"{where}: expected key=value, found {token!r}")
        _check_key(key, where)
        settings[key] = value
    return settings


def _check_key(key: str, where: str) -> None:
    if key in PLAIN_KEYS or (key.startswith(OPTION_PREFIX) and len(key) > len(OPTION_PREFIX)):
        return
    raise ArbiterError(f"{where}: unknown key {key!r}; known keys: {', '.join(PLAIN_KEYS)}, option.<Name>")


def _json_settings(entry: Any, where: str) -> Settings:
    """One engine object of a config file as flat string settings."""
    if not isinstance(entry, dict):
        raise ArbiterError(f"{where}: expected an object of engine settings, found {json.dumps(entry)}")
    settings: Settings = {}
    for key, value in entry.items():
        if key == "options":
            if not isinstance(value, dict):
                raise ArbiterError(f"{where}: 'options' must be an object of name: value")
            for name, option_value in value.items():
                settings[OPTION_PREFIX + name] = _json_scalar(option_value, f"{where}: option {name!r}")
            continue
        _check_key(key, where)
        if key == "cmd" and isinstance(value, list) and value and all(isinstance(a, str) for a in value):
            settings[key] = shlex.join(value)
        else:
            settings[key] = _json_scalar(value, f"{where}: {key!r}")
    return settings


def _json_scalar(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise ArbiterError(f"{where}: expected text, a number or true/false, found {json.dumps(value)}")


@dataclass(frozen=True)
class ConfigFile:
    """A JSON config file: its engines (by name, in order) and its ``each`` settings."""

    path: str
    engines: tuple[Settings, ...]
    each: Settings

    def find(self, name: str, where: str) -> Settings:
        for settings in self.engines:
            if settings.get("name") == name:
                return settings
        known = ", ".join(s.get("name", "?") for s in self.engines) or "none"
        raise ArbiterError(f"{where}: no engine named {name!r} in {self.path} (it has: {known})")


def load_config(path: str) -> ConfigFile:
    """Read and check a JSON engine config file."""
    text = read_text(path, "config file", MAX_CONFIG_BYTES)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ArbiterError(f"config file {path} line {error.lineno} column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise ArbiterError(f"config file {path}: nested too deeply to be an engine config") from None
    if isinstance(data, list):
        data = {"engines": data}
    if not isinstance(data, dict):
        raise ArbiterError(f"config file {path}: expected an object with 'engines' (a list) and 'each'")
    unknown = set(data) - {"engines", "each"}
    if unknown:
        raise ArbiterError(f"config file {path}: unknown key {sorted(unknown)[0]!r}; known keys: engines, each")
    engines = data.get("engines", [])
    if not isinstance(engines, list):
        raise ArbiterError(f"config file {path}: 'engines' must be a list of engine objects")
    parsed = tuple(_json_settings(entry, f"config file {path} engine {i}") for i, entry in enumerate(engines, 1))
    each = _json_settings(data.get("each", {}), f"config file {path} 'each'")
    return ConfigFile(path, parsed, each)


def default_name(command: Sequence[str]) -> str:
    """A name from the command: the program's stem, or the script's / module's for an interpreter
    (``python3 engines/alpha.py`` -> ``alpha``, ``python -m dipole_engine`` -> ``dipole_engine``)."""
    program = Path(command[0]).name
    if program.startswith("python") or program in ("pypy", "pypy3"):
        rest = list(command[1:])
        if len(rest) >= 2 and rest[0] == "-m":
            return rest[1]
        for argument in rest:
            if not argument.startswith("-"):
                return Path(argument).stem
    return Path(program).stem or program


def _resolve_program(program: str, cwd: str | None, where: str) -> None:
    """Fail now, with one clear line, if the engine's program cannot be found."""
    if os.sep in program:
        path = Path(cwd or ".") / program if not os.path.isabs(program) else Path(program)
        if not path.is_file():
            raise ArbiterError(f"{where}: engine program {program!r} not found")
        if not os.access(path, os.X_OK):
            raise ArbiterError(f"{where}: engine program {program!r} is not executable")
    elif shutil.which(program) is None:
        raise ArbiterError(f"{where}: engine program {program!r} not found on PATH")


def check_program(spec: EngineSpec) -> None:
    """Fail with one clear line if ``spec``'s program is gone (e.g. before resuming an event)."""
    _resolve_program(spec.command[0], spec.cwd, f"engine {spec.name!r}")


def build_spec(settings: Mapping[str, str], where: str, here: bool = True) -> EngineSpec:
    """An EngineSpec from merged settings; every value is checked here (the program and the
    directory only when the engine runs on this machine: ``here``)."""
    command_text = settings.get("cmd", "")
    try:
        command = shlex.split(command_text)
    except ValueError as error:
        raise ArbiterError(f"{where}: cmd={command_text!r}: {error}") from None
    if not command:
        raise ArbiterError(f"{where}: no command; give cmd=<engine command line>")
    cwd = settings.get("dir") or None
    if here:
        if cwd is not None and not Path(cwd).is_dir():
            raise ArbiterError(f"{where}: dir={cwd!r} is not a directory")
        _resolve_program(command[0], cwd, where)
    limits = limits_from_settings(settings, where)
    options = tuple(
        (check_printable(key[len(OPTION_PREFIX) :], f"{where}: option"), check_printable(value, f"{where}: {key}"))
        for key, value in settings.items()
        if key.startswith(OPTION_PREFIX)
    )
    name = check_printable(settings.get("name") or default_name(command), f"{where}: name")
    return EngineSpec(name=name, command=tuple(command), limits=limits, cwd=cwd, options=options)


def limits_from_settings(settings: Mapping[str, str], where: str) -> SearchLimits:
    """The SearchLimits that ``tc``/``st``/``depth``/``nodes``/``timemargin``/``ponder`` describe
    (one at least bounding the engine's thinking)."""
    limits = parse_limits(settings, where)
    if not limits.bounded:
        raise ArbiterError(
            f"{where}: no limit on the engine's thinking; give tc=, st=, depth= or nodes= "
            f"(or --tc/--st/--depth/--nodes for all engines)"
        )
    return limits


def parse_limits(settings: Mapping[str, str], where: str) -> SearchLimits:
    """The SearchLimits that ``settings`` describe, each value checked (``where``: who gave it)."""
    try:
        clock = TimeControl.parse(settings["tc"]) if "tc" in settings else None
        infinite = "tc" in settings and clock is None
        movetime = parse_seconds(settings["st"], "st") if "st" in settings else None
        depth = parse_count(settings["depth"], "depth", MAX_DEPTH) if "depth" in settings else None
        nodes = parse_count(settings["nodes"], "nodes") if "nodes" in settings else None
        margin = parse_margin(settings["timemargin"]) if "timemargin" in settings else 0.0
        ponder = parse_switch(settings["ponder"], "ponder") if "ponder" in settings else False
    except ArbiterError as error:
        raise ArbiterError(f"{where}: {error}") from None
    return SearchLimits(
        clock=clock, movetime=movetime, depth=depth, nodes=nodes, margin=margin, infinite=infinite, ponder=ponder
    )


def resolve_engines(
    engine_tokens: Sequence[Sequence[str]],
    each_tokens: Sequence[str] = (),
    match_settings: Mapping[str, str] | None = None,
    config: ConfigFile | None = None,
    here: bool = True,
    warn: Callable[[str], None] | None = None,
) -> list[EngineSpec]:
    """The engines of a match: each ``--engine``'s settings over ``--each`` over the config
    file's ``each`` over ``match_settings`` (the match-wide flags).  With no ``--engine`` but a
    config file, every engine of the file takes part.

    A bad value of ``match_settings`` is refused naming its flag (``--tc``), not an engine.
    Two engines given the same ``name=`` is an error.  Engines whose names were taken from
    their commands and collide get ``-2``, ``-3``..., and ``warn`` (default: standard error)
    is told the new names."""
    for key, value in (match_settings or {}).items():
        parse_limits({key: value}, f"--{key}")  # a match-wide flag's error names the flag, not an engine
    base: Settings = dict(match_settings or {})
    if config is not None:
        base.update(config.each)
    base.update(parse_tokens(each_tokens, "--each"))
    entries: list[tuple[Settings, str]] = []
    for number, tokens in enumerate(engine_tokens, 1):
        where = f"--engine #{number}"
        own = parse_tokens(tokens, where)
        if "conf" in own:
            if config is None:
                raise ArbiterError(f"{where}: conf={own['conf']} needs --config FILE")
            own = {**config.find(own.pop("conf"), where), **own}
        entries.append((own, where))
    if not entries and config is not None:
        entries = [(own, f"config file {config.path} engine {i}") for i, own in enumerate(config.engines, 1)]
    specs = [build_spec({**base, **own}, where, here) for own, where in entries]
    named = [(spec, where) for spec, (own, where) in zip(specs, entries) if {**base, **own}.get("name")]
    for index, (spec, where) in enumerate(named):
        earlier = next((w for s, w in named[:index] if s.name == spec.name), None)
        if earlier is not None:
            raise ArbiterError(
                f"{where}: name={spec.name} is already the name of {earlier}; every engine needs its own name"
            )
    return _unique_names(specs, warn or _warn_on_stderr)


def _warn_on_stderr(message: str) -> None:
    print(f"Warning: {message}", file=sys.stderr)


def _unique_names(specs: list[EngineSpec], warn: Callable[[str], None]) -> list[EngineSpec]:
    taken = {spec.name for spec in specs}
    seen: dict[str, int] = {}
    unique = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        if count > 1:
            new = f"{spec.name}-{count}"
            while new in taken:
                count += 1
                new = f"{spec.name}-{count}"
            taken.add(new)
            warn(
                f"two engines are called {spec.name!r} (named after their command); "
                f"the one run as {shlex.join(spec.command)!r} is called {new!r} (give name= to choose)"
            )
            unique.append(EngineSpec(new, spec.command, spec.limits, spec.cwd, spec.options))
        else:
            unique.append(spec)
    return unique


def check_variant_options(specs: Sequence[EngineSpec], variant: str) -> None:
    """Refuse an ``option.UCI_Variant=`` that contradicts the event's variant (the arbiter sets
    ``UCI_Variant`` itself, from ``--variant``)."""
    for spec in specs:
        for name, value in spec.options:
            if name.lower() == "uci_variant" and value.strip().lower() != variant.lower():
                raise ArbiterError(
                    f"engine {spec.name!r}: option.{name}={value} contradicts --variant {variant}; "
                    f"the arbiter sets UCI_Variant from --variant (drop the option)"
                )


def own_engine_command() -> tuple[str, ...]:
    """The project's engine, run with this interpreter (works without the script on PATH)."""
    return (sys.executable, "-m", "dipole_engine")

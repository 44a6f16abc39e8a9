"""The engines file: the list of engines the workbench and ``dipole-arbiter --config FILE``
share, and the handshake that shows what an engine offers and judges the option values an
entry keeps (when it is saved).

The file is the arbiter's config format (:func:`arbiter.play.engines.load_config` reads it,
here as on the command line, so a hand edit works in both)::

    {"engines": [{"name": "mine", "cmd": "python3 mine.py", "dir": "/src", "depth": "6",
                  "options": {"Hash": "32"}}], "each": {}}

An entry is kept as the arbiter's flat settings (``cmd``, ``name``, ``dir``, a limit,
``option.X``) and written back with its options under ``options``.  The file is replaced whole
(written beside it, then renamed), never left half written.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any

from arbiter.errors import ArbiterError
from arbiter.play.engines import OPTION_PREFIX, Settings, build_spec, load_config
from protocol.client import EngineClient, EngineError

HANDSHAKE_TIMEOUT = 10.0  # seconds for an engine's uci..uciok and isready..readyok
LIMIT_KEYS = ("depth", "nodes", "st", "tc", "timemargin")  # the caps an entry may carry


@dataclass
class Entry:
    """One engine of the file: the arbiter's settings, options apart."""

    name: str
    cmd: str
    dir: str = ""
    limits: dict[str, str] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of_settings(cls, settings: Settings) -> Entry:
        options = {key[len(OPTION_PREFIX) :]: value for key, value in settings.items() if key.startswith(OPTION_PREFIX)}
        limits = {key: value for key, value in settings.items() if key in LIMIT_KEYS}
        return cls(settings.get("name", ""), settings.get("cmd", ""), settings.get("dir", ""), limits, options)

    @classmethod
    def of_json(cls, data: Any) -> Entry:
        """An entry the page sent: every value text (checked again by :meth:`check`)."""
        if not isinstance(data, dict):
            raise ArbiterError("engine: expected an object")
        texts = {key: data.get(key, "") for key in ("name", "cmd", "dir")}
        limits, options = data.get("limits", {}), data.get("options", {})
        if (
            not all(isinstance(value, str) for value in texts.values())
            or not isinstance(limits, dict)
            or not isinstance(options, dict)
        ):
            raise ArbiterError("engine: name, cmd and dir are text; limits and options objects")
        pairs = [*limits.items(), *options.items()]
        if not all(isinstance(key, str) and isinstance(value, (str, int, bool)) for key, value in pairs):
            raise ArbiterError("engine: every limit and option is a name and a value")
        unknown = [key for key in limits if key not in LIMIT_KEYS]
        if unknown:
            raise ArbiterError(f"engine: unknown limit {unknown[0]!r}; known: {', '.join(LIMIT_KEYS)}")

        def text(value: str | int | bool) -> str:
            return ("true" if value else "false") if isinstance(value, bool) else str(value)

        return cls(
            texts["name"].strip(),
            texts["cmd"].strip(),
            texts["dir"].strip(),
            {key: text(value) for key, value in limits.items() if text(value).strip()},
            {key: text(value) for key, value in options.items()},
        )

    def settings(self) -> Settings:
        """The arbiter's flat settings of this entry."""
        settings: Settings = {"name": self.name, "cmd": self.cmd}
        if self.dir:
            settings["dir"] = self.dir
        settings.update(self.limits)
        settings.update({OPTION_PREFIX + key: value for key, value in self.options.items()})
        return settings

    def check(self) -> None:
        """The arbiter's own checks of this engine (command found, directory, limits, names)."""
        if not self.name:
            raise ArbiterError("engine: give it a name")
        build_spec({"st": "1", **self.settings()}, f"engine {self.name!r}")

    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "cmd": self.cmd}
        if self.dir:
            data["dir"] = self.dir
        data.update(self.limits)
        if self.options:
            data["options"] = dict(self.options)
        return data

    def page(self) -> dict[str, Any]:
        return {"name": self.name, "cmd": self.cmd, "dir": self.dir, "limits": self.limits, "options": self.options}


class EngineBook:
    """The engines file at ``path`` (which may not exist yet: then no engines)."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)

    def read(self) -> tuple[list[Entry], Settings]:
        """The engines and the ``each`` settings; one line (ArbiterError) if the file is bad."""
        if not os.path.exists(self.path):
            return [], {}
        config = load_config(self.path)
        return [Entry.of_settings(settings) for settings in config.engines], dict(config.each)

    def write(self, entries: list[Entry], each: Settings) -> None:
        """Replace the file with ``entries`` (each checked first; names must differ)."""
        names: set[str] = set()
        for entry in entries:
            entry.check()
            if entry.name in names:
                raise ArbiterError(f"engine: the name {entry.name!r} is taken; every engine needs its own name")
            names.add(entry.name)
        text = json.dumps({"engines": [entry.json() for entry in entries], "each": each}, indent=2) + "\n"
        directory = os.path.dirname(self.path)
        os.makedirs(directory, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".engines-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def save(self, entry: Entry, original: str | None) -> list[Entry]:
        """Add ``entry`` (``original`` None) or put it in place of the engine called ``original``."""
        entry.check()
        check_options(entry)
        entries, each = self.read()
        if original is None:
            entries.append(entry)
        else:
            index = next((i for i, old in enumerate(entries) if old.name == original), None)
            if index is None:
                raise ArbiterError(f"engine: no engine named {original!r} in {self.path}")
            entries[index] = entry
        self.write(entries, each)
        return entries

    def remove(self, name: str) -> list[Entry]:
        entries, each = self.read()
        kept = [entry for entry in entries if entry.name != name]
        if len(kept) == len(entries):
            raise ArbiterError(f"engine: no engine named {name!r} in {self.path}")
        self.write(kept, each)
        return kept

    def find(self, name: str) -> Entry:
        entries, _ = self.read()
        for entry in entries:
            if entry.name == name:
                return entry
        raise ArbiterError(f"engine: no engine named {name!r} in {self.path}")


def _started(cmd: str, directory: str, name: str = "") -> EngineClient:
    """The engine started (its command split as the arbiter splits it, never through a shell)
    and through its handshake; the caller quits it."""
    spec = build_spec({"cmd": cmd, "dir": directory, "st": "1"}, "engine")
    client = EngineClient(spec.command, cwd=spec.cwd, name=name)
    try:
        client.start(HANDSHAKE_TIMEOUT)
    except EngineError as error:
        raise ArbiterError(str(error)) from None
    return client


def probe(cmd: str, directory: str) -> dict[str, Any]:
    """The engine's handshake, as the page shows it: its ``id`` name and author and its options."""
    client = _started(cmd, directory)
    try:
        options = [
            {
                "name": option.name,
                "type": option.type,
                "default": option.default,
                "min": option.min,
                "max": option.max,
                "vars": list(option.vars),
            }
            for option in client.options.values()
        ]
        return {"name": client.id.get("name", ""), "author": client.id.get("author", ""), "options": options}
    finally:
        client.quit()


def check_options(entry: Entry) -> None:
    """The entry's option values against the options its engine declares in its handshake, by
    the check the referee makes before every game (:meth:`EngineClient.set_option`): an unknown
    option, a spin outside its bounds, a combo value not among its values or a check that is
    not true/false is one line naming the option and what it takes."""
    if not entry.options:
        return
    client = _started(entry.cmd, entry.dir, entry.name)
    try:
        for name, value in entry.options.items():
            client.set_option(name, value)
    except EngineError as error:
        raise ArbiterError(str(error)) from None
    finally:
        client.quit()

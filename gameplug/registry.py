"""The installed games: found through the entry-point group ``gameplug.games``.

A plug-in is a distribution that declares, in its ``pyproject.toml``::

    [project.entry-points."gameplug.games"]
    connect-four = "connect_four_plug:GAME"

the entry point's name being the game's name and its value a :class:`~gameplug.game.Game`
instance, a ``Game`` subclass or a function of no arguments returning one.  Every host command and
page finds games here, so a game installed as its own package appears everywhere.

The plug-ins are imported once (and again after :func:`reload`), and each variant is checked
before it is first used: its start position must read back from its own text (one line), and
each legal move there from its protocol text (one token) and its notation.  Checks run when
needed (:func:`variant` checks the variant it returns, :func:`game` the game's default one;
:func:`installed_games`, :func:`all_variants` and :func:`broken_plugins` check them all), so a
command that plays one variant builds no other variant's tables.  A plug-in that fails to
import, to load or to pass a check is left out and named in :func:`broken_plugins` with one line
saying why; asking for it raises that line; the other games still work.  An unknown game or
variant is a GameError naming the installed ones.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from .game import Game, GameError, GameVariant, one_line, shown

GROUP = "gameplug.games"


@dataclass
class _Registry:
    games: dict[str, Game]  # imported, by name (sorted); left out once in ``broken``
    variants: dict[str, GameVariant]  # by name: each game's in its order
    origins: dict[str, str]  # game name -> "game plug-in 'x' (module:object, from dist version)"
    broken: dict[str, str]  # plug-in (entry point name) -> why it is left out
    checked: set[str] = field(default_factory=set)  # the variants whose check passed
    lock: threading.Lock = field(default_factory=threading.Lock)


def installed_games() -> dict[str, Game]:
    """Every installed game that works, by name (sorted)."""
    registry = _checked_registry()
    return {name: found for name, found in registry.games.items() if name not in registry.broken}


def broken_plugins() -> dict[str, str]:
    """The plug-ins left out, by entry-point name: one line each saying which and why."""
    return dict(_checked_registry().broken)


def all_variants() -> list[GameVariant]:
    """Every variant of every installed game that works, game by game, each game's default first."""
    registry = _checked_registry()
    return [found for found in registry.variants.values() if found.game.name not in registry.broken]


def game(name: str) -> Game:
    """The installed game ``name``; GameError naming the installed ones otherwise, or saying why
    the plug-in is left out."""
    registry = _registry()
    found = registry.games.get(name)
    if found is None:
        known = ", ".join(n for n in registry.games if n not in registry.broken)
        raise GameError(f"unknown game {shown(name)}; installed games: {known}{_left_out(registry)}")
    _check(registry, found.variants[0])
    return found


def variant(name: str) -> GameVariant:
    """The variant ``name`` of whichever installed game has it; GameError naming the installed
    variants otherwise, or saying why its plug-in is left out."""
    registry = _registry()
    found = registry.variants.get(name)
    if found is None:
        known = ", ".join(n for n, v in registry.variants.items() if v.game.name not in registry.broken)
        raise GameError(f"unknown variant {shown(name)}; installed variants: {known}{_left_out(registry)}")
    _check(registry, found)
    return found


def reload() -> None:
    """Forget the games loaded, so the next call finds the plug-ins installed now."""
    _registry.cache_clear()


def _left_out(registry: _Registry) -> str:
    if not registry.broken:
        return ""
    return f" (plug-ins left out, see their errors: {', '.join(sorted(registry.broken))})"


@cache
def _registry() -> _Registry:
    return _load(sorted(entry_points(group=GROUP), key=lambda point: point.name))


def _checked_registry() -> _Registry:
    """The registry, every variant checked."""
    registry = _registry()
    for each in list(registry.variants.values()):
        try:
            _check(registry, each)
        except GameError:
            pass  # (named in registry.broken)
    return registry


def _check(registry: _Registry, checked: GameVariant) -> None:
    """Check ``checked`` once; raise the GameError that names its plug-in when it is left out."""
    name = checked.game.name
    with registry.lock:
        if name not in registry.broken and checked.name not in registry.checked:
            try:
                _self_check(checked)
                registry.checked.add(checked.name)
            except Exception as error:  # noqa: BLE001  whatever a plug-in raises, it is left out and named
                registry.broken[name] = _failure(registry.origins[name], error)
        if name in registry.broken:
            raise GameError(registry.broken[name])


def _failure(where: str, error: Exception) -> str:
    detail = str(error) if isinstance(error, GameError) else f"{type(error).__name__}: {error}"
    return one_line(f"{where}: {detail}")


def _load(points: list[EntryPoint]) -> _Registry:
    """Import every plug-in; those that fail, and those whose names clash, are left out."""
    registry = _Registry({}, {}, {}, {})
    for point in points:
        where = f"game plug-in {point.name!r} ({point.value}{_distribution(point)})"
        if point.name in registry.games or point.name in registry.broken:
            registry.broken[f"{point.name} ({point.value})"] = (
                f"{where}: another plug-in already provides {point.name!r}"
            )
            continue
        try:
            loaded = _game_of(point)
        except Exception as error:  # noqa: BLE001  whatever a plug-in raises, it is left out and named
            registry.broken[point.name] = _failure(where, error)
            continue
        clash = next((v.name for v in loaded.variants if v.name in registry.variants), None)
        if clash is not None:
            registry.broken[point.name] = (
                f"{where}: its variant {clash!r} is also {registry.variants[clash].game.name}'s"
            )
            continue
        registry.games[point.name] = loaded
        registry.origins[point.name] = where
        registry.variants.update((v.name, v) for v in loaded.variants)
    return registry


def _distribution(point: EntryPoint) -> str:
    dist = point.dist
    return f", from {dist.name} {dist.version}" if dist is not None else ""


def _game_of(point: EntryPoint) -> Game:
    """The game an entry point names (an instance, a Game subclass or a factory)."""
    target: Any = point.load()
    loaded = target() if isinstance(target, type) or (callable(target) and not isinstance(target, Game)) else target
    if not isinstance(loaded, Game):
        raise GameError(f"names a {type(loaded).__name__}, not a gameplug.Game")
    if loaded.name != point.name:
        raise GameError(f"names the game {loaded.name!r}; the entry point must be called by the game's name")
    if not loaded.variants:
        raise GameError("the game has no variants")
    return loaded


def _self_check(each: GameVariant) -> None:
    """Raise GameError unless ``each``'s start reads back from its text (one line), and each
    legal move there from its protocol text (one token) and its notation."""
    start = each.start()
    text = start.position_text()
    if not text or "\n" in text:
        raise GameError(f"variant {each.name!r}: its start position's text {shown(text)} is not one line")
    again = each.read_position(text).position_text()
    if again != text:
        raise GameError(f"variant {each.name!r}: its start position {shown(text)} reads back as {shown(again)}")
    for move in start.legal_moves():
        token = start.move_text(move)
        if not token or any(char.isspace() for char in token):
            raise GameError(f"variant {each.name!r}: its move {shown(token)} is not one token, as the protocol's are")
        for write, read in ((start.move_text, start.read_move), (start.notation, start.read_notation)):
            written = write(move)
            try:
                back = read(written)
            except GameError as error:
                raise GameError(f"variant {each.name!r}: its move {shown(written)} does not parse: {error}") from None
            if back != move:
                raise GameError(f"variant {each.name!r}: its move {shown(written)} reads back as another move")

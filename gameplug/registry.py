"""The installed games: found through the entry-point group ``gameplug.games``.

A plug-in is a distribution that declares, in its ``pyproject.toml``::

    [project.entry-points."gameplug.games"]
    connect-four = "connect_four_plug:GAME"

the entry point's name being the game's name and its value a :class:`~gameplug.game.Game`
instance, a ``Game`` subclass or a function of no arguments returning one.  Every host command and
page finds games here, so a game installed as its own package appears everywhere.

Each plug-in is loaded once (and again after :func:`reload`) and checked before it is used: each
variant's start position must read back from its own text (one line), and each legal move there
from its protocol text (one token) and its notation.  A plug-in that fails to import, to load or to pass that check is
left out and named in :func:`broken_plugins` with one line saying why; the other games still work.
An unknown game or variant is a GameError naming the installed ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from .game import Game, GameError, Variant, one_line, shown

GROUP = "gameplug.games"


@dataclass(frozen=True)
class _Registry:
    games: dict[str, Game]  # by name, sorted
    variants: dict[str, Variant]  # by name: every installed game's, each game's in its order
    broken: dict[str, str]  # plug-in (entry point name) -> why it is left out


def installed_games() -> dict[str, Game]:
    """Every installed game that works, by name (sorted)."""
    return dict(_registry().games)


def broken_plugins() -> dict[str, str]:
    """The plug-ins left out, by entry-point name: one line each saying which and why."""
    return dict(_registry().broken)


def all_variants() -> list[Variant]:
    """Every variant of every installed game, game by game, each game's default first."""
    return list(_registry().variants.values())


def game(name: str) -> Game:
    """The installed game ``name``; GameError naming the installed ones otherwise."""
    registry = _registry()
    found = registry.games.get(name)
    if found is None:
        raise GameError(
            f"unknown game {shown(name)}; installed games: {', '.join(registry.games)}{_left_out(registry)}"
        )
    return found


def variant(name: str) -> Variant:
    """The variant ``name`` of whichever installed game has it; GameError naming the installed
    variants otherwise."""
    registry = _registry()
    found = registry.variants.get(name)
    if found is None:
        known = ", ".join(registry.variants)
        raise GameError(f"unknown variant {shown(name)}; installed variants: {known}{_left_out(registry)}")
    return found


def reload() -> None:
    """Forget the games loaded, so the next call finds the plug-ins installed now."""
    _registry.cache_clear()


def _left_out(registry: _Registry) -> str:
    if not registry.broken:
        return ""
    return f" (plug-ins left out, see their errors: {', '.join(registry.broken)})"


@cache
def _registry() -> _Registry:
    return _load(sorted(entry_points(group=GROUP), key=lambda point: point.name))


def _load(points: list[EntryPoint]) -> _Registry:
    games: dict[str, Game] = {}
    variants: dict[str, Variant] = {}
    broken: dict[str, str] = {}
    for point in points:
        where = f"game plug-in {point.name!r} ({point.value}{_distribution(point)})"
        if point.name in games or point.name in broken:
            broken[f"{point.name} ({point.value})"] = f"{where}: another plug-in already provides {point.name!r}"
            continue
        try:
            loaded = _game_of(point)
            _self_check(loaded)
        except Exception as error:  # noqa: BLE001  whatever a plug-in raises, it is left out and named
            detail = str(error) if isinstance(error, GameError) else f"{type(error).__name__}: {error}"
            broken[point.name] = one_line(f"{where}: {detail}")
            continue
        clash = next((v.name for v in loaded.variants if v.name in variants), None)
        if clash is not None:
            broken[point.name] = f"{where}: its variant {clash!r} is also {variants[clash].game.name}'s"
            continue
        games[point.name] = loaded
        variants.update((v.name, v) for v in loaded.variants)
    return _Registry(games, variants, broken)


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


def _self_check(checked: Game) -> None:
    """Raise GameError unless each variant's start reads back from its text, and each legal move
    there from its protocol text and its notation."""
    for each in checked.variants:
        start = each.start()
        text = start.position_text()
        again = each.read_position(text).position_text()
        if again != text:
            raise GameError(f"variant {each.name!r}: its start position {shown(text)} reads back as {shown(again)}")
        if not text or "\n" in text:
            raise GameError(f"variant {each.name!r}: its start position's text {shown(text)} is not one line")
        for move in start.legal_moves():
            token = start.move_text(move)
            if not token or any(char.isspace() for char in token):
                raise GameError(
                    f"variant {each.name!r}: its move {shown(token)} is not one token, as the protocol's are"
                )
            for write, read in ((start.move_text, start.read_move), (start.notation, start.read_notation)):
                written = write(move)
                try:
                    back = read(written)
                except GameError as error:
                    raise GameError(
                        f"variant {each.name!r}: its move {shown(written)} does not parse: {error}"
                    ) from None
                if back != move:
                    raise GameError(f"variant {each.name!r}: its move {shown(written)} reads back as another move")

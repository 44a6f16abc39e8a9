"""``dipole-arbiter games``: the installed games (:mod:`gameplug`'s plug-ins), as cutechess-cli and
fastchess list what they play: a block per game, its variants with what engines are told and their
descriptions, then the plug-ins left out, each with its one-line reason."""

from __future__ import annotations

import click

import gameplug

NOTHING = "nothing (plain UCI)"


@click.command("games")
def games_command() -> int:
    """List the installed games and their variants (any of them goes to --variant), what engines
    are told of each (its UCI_Variant value, or nothing: a plain UCI engine's game; and any other
    option it sets), and the game plug-ins left out and why."""
    print("\n\n".join(game_block(game) for game in gameplug.installed_games().values()) or "No games are installed.")
    broken = gameplug.broken_plugins()
    if broken:
        print(f"\nPlug-ins left out ({len(broken)}):")
        for reason in broken.values():
            print(f"  {reason}")
    return 0


def game_block(game: gameplug.Game) -> str:
    """One game: its name, title and sides, then a line per variant, its default first."""
    rows = [("variant", "engines are told", "description")]
    rows += [(variant.name, told(variant), variant.description) for variant in game.variants]
    name_width = max(len(row[0]) for row in rows)
    told_width = max(len(row[1]) for row in rows)
    lines = [f"{game.name}: {game.title} ({' and '.join(game.side_names)})"]
    lines += [f"  {name:<{name_width}}  {what:<{told_width}}  {description}" for name, what, description in rows]
    return "\n".join(line.rstrip() for line in lines)


def told(variant: gameplug.GameVariant) -> str:
    """What an engine is told of ``variant``: ``UCI_Variant <value>``, or nothing (a plain UCI
    engine's game), and the other options the variant sets (``UCI_Chess960 true``)."""
    options = [f"{name} {value}" for name, value in variant.engine_options.items()]
    if variant.engine_variant is None:
        return f"{', '.join(options)} (plain UCI)" if options else NOTHING
    return ", ".join([f"UCI_Variant {variant.engine_variant}", *options])

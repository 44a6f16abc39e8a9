"""What a GUI server was started with, and how the page sees it: engines by number and name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gameplug
from arbiter.play.engines import EngineSpec

from .limits import EngineJobs

DEFAULT_KEEP = 600.0  # seconds a game lives on after its last page went away (dipole-gui --keep-games)


@dataclass
class GuiConfig:
    """The engines the page may choose (by index, never by command), the access token (None:
    none needed, loopback only), the games and analyses running engines now, within the
    server's limits, and the management token (``--manage``: the workbench's, never in a
    cookie; see :mod:`dipole_gui.workbench.gate`)."""

    engines: list[EngineSpec]
    token: str | None = None
    jobs: EngineJobs = field(default_factory=EngineJobs)
    manage_token: str | None = None


def engine_list(config: GuiConfig) -> list[dict[str, Any]]:
    """The engines as the page sees them: an id and a name (no commands, no paths)."""
    return [{"id": index, "name": spec.name} for index, spec in enumerate(config.engines)]


def variant_list() -> list[dict[str, Any]]:
    """Every installed variant (:func:`gameplug.all_variants`), with its game and board size, for
    the page's menus."""
    variants = []
    for variant in gameplug.all_variants():
        picture = variant.start().picture()
        variants.append(
            {
                "name": variant.name,
                "game": variant.game.name,
                "width": picture.width,
                "height": picture.height,
                "description": variant.description,
            }
        )
    return variants

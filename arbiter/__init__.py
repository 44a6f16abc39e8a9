"""The arbiter: refereed matches between engine processes, PGN records, and their checking.

It talks to engines only through :class:`protocol.client.EngineClient` and to the game only
through the rules core.  This module is its narrow facade; the sub-packages, bottom up:

- :mod:`.errors` the one error type; :mod:`.text` and :mod:`.files` shared checks of text and files;
- :mod:`.records` games as values (:mod:`.records.game`: the opening, each move, the end) and
  their PGN (:mod:`.records.pgn`);
- :mod:`.play` one game: :mod:`.play.referee` the one referee (:func:`play_game`),
  :mod:`.play.timecontrol` time controls and clocks, :mod:`.play.engines` engine specs
  (cutechess-style ``key=value`` settings and JSON configs), :mod:`.play.adjudication` the
  resign rule, :mod:`.play.replay` checking records against the rules;
- :mod:`.stats` Elo, confidence and LOS (:mod:`.stats.tallies`), Bradley-Terry ratings, the
  SPRT and its monitor during an event;
- :mod:`.openings` openings from files or a seed, the shipped suites and the order an event
  plays them in, and their generation; :mod:`.live` the live files of the games in progress;
  :mod:`.report` the HTML pages, from templates;
- :mod:`.pools` the worker pool that plays any list of games (:class:`GamePool`), locally or
  on the workers of a Dask cluster (the ``cluster`` extra);
- :mod:`.events` a two-engine match, tournaments and their pairings, an event in its SQLite
  database, and what every event keeps around its pool (PGN, logs, live files, progress);
- :mod:`.cli` the ``dipole-arbiter`` command (also ``python -m arbiter``); :mod:`.compliance`
  the checks of ``check-engine``.

Each sub-package imports only from those listed before it (and :mod:`.compliance` only from
:mod:`.errors`), so the imports form no circle.
"""

import importlib
from typing import TYPE_CHECKING, Any

# First: the build's check (dipole_runtime) runs before any compiled module of this package loads.
import dipole_runtime  # noqa: F401

if TYPE_CHECKING:  # for the type checker; at run time each name is imported when first used
    from .errors import ArbiterError
    from .events.match import Match, MatchConfig, MatchOutcome, schedule
    from .openings.positions import generate_openings, load_openings
    from .play.engines import EngineSpec, load_config, resolve_engines
    from .play.referee import EngineSlot, GameJob, RefereeSettings, SetupError, play_game
    from .play.replay import Problem, check_game, check_games
    from .play.timecontrol import Clock, SearchLimits, TimeControl
    from .pools.local import EngineLogs, GamePool
    from .records.game import GameRecord, MoveRecord, MoveSource, Opening, Termination
    from .records.pgn import (
        PgnGame,
        PgnSyntaxError,
        PgnWriter,
        format_game,
        read_pgn,
        read_pgn_file,
    )
    from .stats.tallies import (
        EloEstimate,
        MatchStats,
        elo_estimate,
        elo_from_score,
        likelihood_of_superiority,
    )

# Where each public name lives: importing the package (or the command, or a game process) costs
# only the modules that are used.
_HOMES = {
    "ArbiterError": ".errors",
    "Clock": ".play.timecontrol",
    "EloEstimate": ".stats.tallies",
    "EngineLogs": ".pools.local",
    "EngineSlot": ".play.referee",
    "EngineSpec": ".play.engines",
    "GameJob": ".play.referee",
    "GamePool": ".pools.local",
    "GameRecord": ".records.game",
    "Match": ".events.match",
    "MatchConfig": ".events.match",
    "MatchOutcome": ".events.match",
    "MatchStats": ".stats.tallies",
    "MoveRecord": ".records.game",
    "MoveSource": ".records.game",
    "Opening": ".records.game",
    "PgnGame": ".records.pgn",
    "PgnSyntaxError": ".records.pgn",
    "PgnWriter": ".records.pgn",
    "Problem": ".play.replay",
    "RefereeSettings": ".play.referee",
    "SearchLimits": ".play.timecontrol",
    "SetupError": ".play.referee",
    "Termination": ".records.game",
    "TimeControl": ".play.timecontrol",
    "check_game": ".play.replay",
    "check_games": ".play.replay",
    "elo_estimate": ".stats.tallies",
    "elo_from_score": ".stats.tallies",
    "format_game": ".records.pgn",
    "generate_openings": ".openings.positions",
    "likelihood_of_superiority": ".stats.tallies",
    "load_config": ".play.engines",
    "load_openings": ".openings.positions",
    "play_game": ".play.referee",
    "read_pgn": ".records.pgn",
    "read_pgn_file": ".records.pgn",
    "resolve_engines": ".play.engines",
    "schedule": ".events.match",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


__all__ = [
    "ArbiterError",
    "Clock",
    "EloEstimate",
    "EngineLogs",
    "EngineSlot",
    "EngineSpec",
    "GameJob",
    "GamePool",
    "GameRecord",
    "Match",
    "MatchConfig",
    "MatchOutcome",
    "MatchStats",
    "MoveRecord",
    "MoveSource",
    "Opening",
    "PgnGame",
    "PgnSyntaxError",
    "PgnWriter",
    "Problem",
    "RefereeSettings",
    "SearchLimits",
    "SetupError",
    "Termination",
    "TimeControl",
    "check_game",
    "check_games",
    "elo_estimate",
    "elo_from_score",
    "format_game",
    "generate_openings",
    "likelihood_of_superiority",
    "load_config",
    "load_openings",
    "play_game",
    "read_pgn",
    "read_pgn_file",
    "resolve_engines",
    "schedule",
]

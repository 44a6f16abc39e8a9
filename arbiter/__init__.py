"""The arbiter: refereed matches between engine processes, PGN records, and their checking.

It talks to engines only through :class:`protocol.client.EngineClient` and to the game only
through the rules core.  The pieces, bottom up:

- :mod:`.timecontrol` time controls and clocks; :mod:`.engines` engine specs (cutechess-style
  ``key=value`` settings and JSON configs); :mod:`.openings` openings from files or a seed;
- :mod:`.records` finished games as values; :mod:`.pgn` writing and reading PGN;
  :mod:`.replay` checking records against the rules; :mod:`.stats` Elo, confidence, LOS;
- :mod:`.game` one refereed game (:func:`play_game`); :mod:`.runner` the worker pool that
  plays any list of games (:class:`GamePool`); :mod:`.cluster` the same on the workers of a
  Dask cluster (the ``cluster`` extra); :mod:`.recorded` what every event keeps around its
  pool (PGN, logs, live files, progress); :mod:`.match` a two-engine match;
- :mod:`.ratings` Bradley-Terry ratings, :mod:`.sprt` the SPRT, :mod:`.sequential` the SPRT
  during an event, :mod:`.report` the HTML report;
- :mod:`.event` an event in its SQLite database; :mod:`.tournament` schedules and the run;
- :mod:`.cli` the ``dipole-arbiter`` command (:mod:`.cli_options` the options shared by
  ``match`` and ``tournament``, :mod:`.cli_events` ``tournament``/``resume``/``export``/``ratings``).
"""

from .engines import EngineSpec, load_config, resolve_engines
from .errors import ArbiterError
from .game import EngineSlot, GameJob, RefereeSettings, SetupError, play_game
from .match import Match, MatchConfig, MatchOutcome, schedule
from .openings import Opening, generate_openings, load_openings
from .pgn import (
    PgnGame,
    PgnSyntaxError,
    PgnWriter,
    format_game,
    read_pgn,
    read_pgn_file,
)
from .records import GameRecord, MoveRecord, MoveSource, Termination
from .replay import Problem, check_game, check_games
from .runner import EngineLogs, GamePool
from .stats import (
    EloEstimate,
    MatchStats,
    elo_estimate,
    elo_from_score,
    likelihood_of_superiority,
)
from .timecontrol import Clock, SearchLimits, TimeControl

__all__ = [
    "ArbiterError", "Clock", "EloEstimate", "EngineLogs", "EngineSlot", "EngineSpec", "GameJob",
    "GamePool", "GameRecord", "Match", "MatchConfig", "MatchOutcome", "MatchStats", "MoveRecord",
    "MoveSource", "Opening", "PgnGame", "PgnSyntaxError", "PgnWriter", "Problem", "RefereeSettings",
    "SearchLimits", "SetupError", "Termination", "TimeControl", "check_game", "check_games",
    "elo_estimate", "elo_from_score", "format_game", "generate_openings", "likelihood_of_superiority",
    "load_config", "load_openings", "play_game", "read_pgn", "read_pgn_file", "resolve_engines",
    "schedule",
]

"""The host's workbench (``dipole-gui --manage``): engines, events and ratings managed from the
browser, with the arbiter's own code and commands.

- :mod:`.gate`: who may manage (the option, the token, the page's origin);
- :mod:`.book`: the engines file (the format ``dipole-arbiter --config`` reads) and the
  handshake that shows an engine's name, author and options;
- :mod:`.checks`: the ``check-engine`` runs, which end with the server;
- :mod:`.events`: events run as ordinary arbiter processes, listed, stopped, resumed;
- :mod:`.ratings`: the ratings over every finished game of the events directory;
- :mod:`.routes`: the page and its JSON API.

Every command the workbench runs is an argument list (never a shell): an engine's ``cmd`` is
split as the arbiter splits it (:func:`shlex.split`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..limits import DEFAULT_EVENT_CONCURRENCY
from .checks import Checks


@dataclass(frozen=True)
class Workbench:
    """Where the workbench keeps things: the events directory (event databases, started from the
    page or by hand) and the engines file; and the games the running events may play at once
    (``--max-event-concurrency``)."""

    events_dir: str
    engines_file: str
    max_concurrency: int = DEFAULT_EVENT_CONCURRENCY
    checks: Checks = field(default_factory=Checks)  # the engines page's check-engine runs

"""The engine processes this process started that may still live, and :func:`kill_all` that kills them.

Every engine's process group, and every guard process (:mod:`protocol.guardstart`), is kept here
from its start until it is known to be gone.  :func:`kill_all`, run at exit and safe in a signal
handler, kills whatever is left, so that no engine outlives its host.
"""

from __future__ import annotations

import atexit
import os
import signal

# Process groups of engines started here, and guard processes, not yet known to be gone
# (dicts keep insertion order and their single-key operations are atomic: kill_all relies on it).
live_groups: dict[int, None] = {}
live_guards: dict[int, None] = {}


def kill_all() -> None:
    """SIGKILL every engine process group this process started that may still live, and tell
    every guard to kill the rest of its engine's tree.

    Takes no locks and allocates little, so it is safe from a signal handler or at exit.
    """
    for pgid in list(live_groups):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        live_groups.pop(pgid, None)
    for guard in list(live_guards):
        try:
            os.kill(guard, signal.SIGTERM)
        except OSError:
            pass
        live_guards.pop(guard, None)


atexit.register(kill_all)

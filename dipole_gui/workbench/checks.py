"""The ``check-engine`` runs the workbench's engines page asks for.

Each is a child of the server that cannot outlive it: SIGKILLed when the server's thread that
started it ends (``PR_SET_PDEATHSIG``, the mechanism of :mod:`arbiter.pools.processes`), even
when the server itself is SIGKILLed, and killed by :meth:`Checks.close` when the server is told
to stop.  Its engine runs under :mod:`protocol.guard`, which dies with the check and takes the
engine's whole tree with it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

from arbiter.errors import ArbiterError
from protocol.guard import PR_SET_PDEATHSIG, load_prctl

from .book import Entry

ARBITER = (sys.executable, "-m", "arbiter")
CHECK_POSITIONS = "60"  # random positions of the page's check (the command's default is 300)
CHECK_TIMEOUT = 900.0  # seconds a check may take before it is killed


def check_command(entry: Entry, timeout: str) -> list[str]:
    """``dipole-arbiter check-engine`` for ``entry`` (``timeout``: its ``--timeout``), as an argument list."""
    words = [
        f"cmd={entry.cmd}",
        f"name={entry.name}",
        *([f"dir={entry.dir}"] if entry.dir else []),
        *(f"option.{name}={value}" for name, value in entry.options.items()),
    ]
    return [*ARBITER, "check-engine", "--engine", *words, "--positions", CHECK_POSITIONS, "--timeout", timeout]


def _dying_with(server: int) -> Callable[[], None]:
    """The check's ``preexec_fn``: SIGKILL to the check when the server's thread that started it
    ends, even when the server is SIGKILLed (``PR_SET_PDEATHSIG``, as the arbiter's game
    processes do); the check's engine runs under a guard (:mod:`protocol.guard`) that dies with
    the check and takes the engine with it."""
    prctl = load_prctl()  # looked up here: the child only calls it

    def die_with_server() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != server:  # the server died before the line above
            os._exit(1)

    return die_with_server


class Checks:
    """The checks running for the page, so that a server told to stop (SIGTERM, Ctrl-C) kills
    them at once rather than waiting, with its open requests, for them to end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[str]] = set()
        self._closed = False

    def run(self, entry: Entry, timeout: str) -> dict[str, object]:
        """``check-engine`` on ``entry``: its lines and exit status.  Call it on a thread that
        waits for it (the check's parent-death signal is tied to that thread)."""
        with self._lock:
            if self._closed:
                raise ArbiterError("the server is stopping")
            process = subprocess.Popen(
                check_command(entry, timeout),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=_dying_with(os.getpid()),  # noqa: PLW1509 - the child calls only prctl, getppid
            )
            self._running.add(process)
        try:
            out, err = process.communicate(timeout=CHECK_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise ArbiterError(f"check-engine took longer than {CHECK_TIMEOUT:.0f} s and was stopped") from None
        finally:
            with self._lock:
                self._running.discard(process)
        lines = out.splitlines() + [line for line in err.splitlines() if line.strip()]
        return {"lines": lines, "status": process.returncode}

    def close(self) -> None:
        """Kill every running check (its engine's guard then kills the engine); start no more."""
        with self._lock:
            self._closed = True
            for process in self._running:
                process.kill()

"""Starting an engine under its guard: the process that kills the engine's whole tree.

On Linux each engine runs under a guard process (:mod:`protocol.guard`): a child subreaper that
kills every process of the engine's tree (helpers in new sessions or process groups, children
of a wrapper script that does not ``exec``) when the engine exits or is killed, and also when
the thread that started it exits, even if the host is killed with SIGKILL (``prctl
PR_SET_PDEATHSIG`` on the guard).  So start engines from a thread that lives as long as they
are needed (the main thread, or a worker that owns its engines, as the arbiter's do), or pass
``die_with_parent=False``.  Elsewhere (:data:`GUARDED` false) the engine's process group is
killed, nothing more.

:func:`start_guard` starts the guard in an interpreter of its own, or, after
:func:`fork_guards`, in a child forked from this process (:class:`ForkedGuard`); the guard
starts the engine and reports its pid, or why it could not, on a pipe (:func:`read_report`).
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any, Protocol

from .liveprocesses import live_guards
from .waiting import BLOCKING, current_waiter, sleep_until

# The guard is imported by a bare interpreter (``-I -S``) from this package's folder, after the
# standard library on its path, rather than run as a script: its compiled bytecode is cached.
_GUARD_START = (
    f"import sys; sys.path.append({os.path.dirname(os.path.abspath(__file__))!r}); import guard; guard.main(sys.argv)"
)
GUARDED = sys.platform.startswith("linux") and os.path.isdir("/proc")
"""True where engines run under :mod:`protocol.guard` (Linux: a subreaper that kills the
engine's whole process tree, even after the host was killed with SIGKILL)."""

_forking_guards = [False]  # fork_guards(), for the whole process


def fork_guards(enabled: bool = True) -> None:
    """Start every later engine's guard (``enabled``; else as by default) in a child forked
    from this process, rather than in an interpreter of its own: 10-13 ms of CPU less an
    engine (the interpreter's start and the guard's imports), which a host that starts many
    engines (the arbiter's game processes) spends many times over.

    Only for a process that knows its threads: the child runs the guard's code on the calling
    thread's copy of the process, so no other thread may hold, at any moment, a lock that code
    takes (the guard takes none of the host's, and the interpreter's own are made safe by
    ``os.fork``).  Where that is not known (a GUI's server, a library's caller) the default,
    a new interpreter, is the safe way."""
    _forking_guards[0] = enabled


def start_guard(
    command: Sequence[str], cwd: str | None, env: dict[str, str] | None, die_with_parent: bool
) -> tuple[EngineProcess, int]:
    """Start the guard, which starts the engine (``command``): the guard's process, whose pipes
    are the engine's, and the pipe it reports on (:func:`read_report`)."""
    report, writer = os.pipe()
    arguments = ["guard", str(writer), str(os.getpid()), "1" if die_with_parent else "0", "--"]
    process: EngineProcess
    try:
        if _forking_guards[0]:
            process = ForkedGuard(list(command), cwd, env, arguments)
        else:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _GUARD_START, *arguments[1:], *command],
                cwd=cwd,
                env=env,
                start_new_session=True,
                pass_fds=(writer,),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
    except BaseException:
        os.close(report)
        raise
    finally:
        os.close(writer)
    live_guards[process.pid] = None
    return process, report


def read_report(fd: int, timeout: float) -> str:
    """What the guard wrote on its report pipe before closing it ('' if nothing in time)."""
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            if not current_waiter().readable(fd, remaining):
                break
            chunk = os.read(fd, 64)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    return data.decode("ascii", "replace")


class EngineProcess(Protocol):
    """What the transport asks of the process it started (the guard, or the engine itself): a
    :class:`subprocess.Popen`, or a :class:`ForkedGuard`."""

    pid: int
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


class ForkedGuard:
    """A guard run in a child forked from this process (see :func:`fork_guards`), its pipes
    the engine's: the part of a :class:`subprocess.Popen` the transport uses, the exit status
    told as Popen tells it (negative: killed by that signal)."""

    def __init__(self, command: list[str], cwd: str | None, env: dict[str, str] | None, arguments: list[str]) -> None:
        from . import guard  # (only here: ctypes costs a host that never forks a guard 3 ms to import)

        prctl = guard.load_prctl()  # looked up before the fork: the child loads nothing (no dlopen)
        ends: list[int] = []  # this side's: the engine's stdin (written), stdout and stderr (read)
        child_ends: list[int] = []
        try:
            for stream in range(3):
                read, write = os.pipe()
                ends.append(write if stream == 0 else read)
                child_ends.append(read if stream == 0 else write)
            self.pid = os.fork()
            if self.pid == 0:
                _run_forked_guard(guard, prctl, child_ends, int(arguments[1]), cwd, env, [*arguments, *command])
        except BaseException:
            for fd in ends:
                os.close(fd)
            raise
        finally:
            for fd in child_ends:
                os.close(fd)
        self.stdin: IO[bytes] | None = open(ends[0], "wb", buffering=0)  # noqa: SIM115  (closed by the transport)
        self.stdout: IO[bytes] | None = open(ends[1], "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = open(ends[2], "rb", buffering=0)  # noqa: SIM115
        self.returncode: int | None = None
        self._waitpid_lock = threading.Lock()  # one waitpid at a time: a second would find no child

    def poll(self) -> int | None:
        if self.returncode is None and self._waitpid_lock.acquire(blocking=False):  # (else a wait() reaps it)
            try:
                if self.returncode is None:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                    if pid == self.pid:
                        self.returncode = os.waitstatus_to_exitcode(status)
            finally:
                self._waitpid_lock.release()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            with self._waitpid_lock:
                if self.returncode is None:
                    self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            return self.returncode
        sleep_until(lambda: self.poll() is not None, timeout, BLOCKING)  # (waitpid has no timeout)
        code = self.poll()
        if code is None:
            raise subprocess.TimeoutExpired([str(self.pid)], timeout)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # (a pid reaped could be another process's by now)
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _run_forked_guard(
    guard: Any,
    prctl: Any,
    stdio: list[int],
    report_fd: int,
    cwd: str | None,
    env: dict[str, str] | None,
    argv: list[str],
) -> None:
    """In the forked child: become what ``python -c guard.main`` started by Popen would be (a
    session of its own, the engine's pipes as stdin/stdout/stderr, no other descriptor but the
    report pipe, the handlers the host set back to their defaults), then the guard.  Never
    returns."""
    try:
        os.setsid()
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 4) for fd in (*stdio, report_fd)]  # clear of 0-3
        for target, fd in enumerate(moved):  # the engine's stdin, stdout, stderr, then the report on 3
            os.dup2(fd, target)
        os.closerange(4, os.sysconf("SC_OPEN_MAX"))
        if cwd is not None:
            try:
                os.chdir(cwd)
            except OSError as error:  # reported as the guard reports an engine it cannot start
                os.write(3, f"error {error.errno or 0}".encode())
                raise
        guard.default_handlers()
        argv[1] = "3"
        guard.main(argv, env, prctl)
    finally:
        os._exit(127)

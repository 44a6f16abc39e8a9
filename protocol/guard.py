"""The guard: a tiny process that starts one engine and makes sure its whole tree dies with it.

Run as ``python -I -S guard.py REPORT_FD PARENT_PID DIE_WITH_PARENT -- COMMAND...``, or imported
by a bare interpreter that calls :func:`main` with those arguments (as
:class:`~protocol.processtransport.ProcessTransport` does, Linux only: the module's bytecode is then
cached, not compiled at each engine's start), or called in a child forked from the host (a
host that asked for it with :func:`protocol.guardstart.fork_guards`).  It

1. makes itself a *child subreaper* (``prctl PR_SET_CHILD_SUBREAPER``), so every process the
   engine starts, however it detaches (a new session, a new process group, a double fork, a
   wrapper script that does not ``exec``), stays a descendant of the guard;
2. asks for SIGTERM when the thread that started it dies (``PR_SET_PDEATHSIG``), so the host
   being killed, even with SIGKILL, ends the engine's tree;
3. starts the engine in a session of its own, with the guard's stdin/stdout/stderr (the pipes
   of the host), reports ``<pid>`` (or ``error <errno>``) on ``REPORT_FD``, and lets go of
   its own copies of the pipes, so the host sees the end of the engine's output exactly when
   every process of the tree has closed them;
4. when the engine exits, or on SIGTERM/SIGHUP/SIGINT (the host's kill, or its death), kills
   every descendant with SIGKILL, sweep after sweep until none is left, then exits with the
   engine's own status (the same exit code, or killed by the same signal).

Only the standard library, and nothing of this package, so it starts in a few milliseconds.
"""

from __future__ import annotations

# The signal module's C core (the module imports enum, functools and collections for its named
# constants), and typing for the type checker only: every engine's start waits for the guard's.
import _signal as signal  # type: ignore[import-not-found]
import ctypes
import os
import resource
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


class _Stop(Exception):
    """Raised by the signal handler to leave the wait and sweep."""


def load_prctl() -> Any:
    """libc's ``prctl``, its arguments typed: loaded before a fork, so that the child only calls it."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


def descendants(root: int) -> list[int]:
    """Every live process below ``root``, from /proc (parents before children)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if fields and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


def sweep(engine: int, status: int | None) -> int | None:
    """SIGKILL every descendant until none is left, reaping them; the engine's wait status.

    A subreaper with no child left has no descendant left: a descendant whose parent dies
    becomes the guard's child.  So /proc (every process of the machine) is read only while
    children remain, which they mostly do not (the engine has exited, and was reaped)."""
    me = os.getpid()
    give_up = time.monotonic() + 30.0  # only a process stuck in the kernel survives SIGKILL this long
    while time.monotonic() < give_up:
        try:
            while True:
                pid, code = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                if pid == engine and status is None:
                    status = code
        except ChildProcessError:
            return status
        for pid in descendants(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)
    return status


def default_handlers() -> None:
    """Set every signal this process handles with a Python function back to its default action,
    unblock every signal and drop the wakeup descriptor, as ``exec`` would: for a child forked
    from a host (a guard, a game process), which must never run the host's handlers."""
    signal.set_wakeup_fd(-1)
    for number in signal.valid_signals():
        if number not in (signal.SIGKILL, signal.SIGSTOP) and callable(signal.getsignal(number)):
            signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def exit_like(status: int | None) -> None:
    """Exit as the engine did: the same code, or killed by the same signal."""
    if status is not None and not os.WIFSIGNALED(status):
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
    number = os.WTERMSIG(status) if status is not None else signal.SIGKILL
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if number != signal.SIGKILL:
        signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
    os.kill(os.getpid(), number)
    os.kill(os.getpid(), signal.SIGKILL)


def start_engine(command: list[str], report_fd: int, prctl: Any, env: dict[str, str] | None = None) -> int:
    """Fork and exec the engine in a session of its own, to die with the guard, in ``env``
    (None: the guard's own); its pid.  If it cannot be started, report ``error <errno>`` and
    exit."""
    guard = os.getpid()
    failure_read, failure_write = os.pipe()  # close-on-exec: at end of file, exec worked
    pid = os.fork()
    if pid == 0:
        try:
            os.close(report_fd)
            os.close(failure_read)
            os.setsid()
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != guard:
                os._exit(1)
            for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ):
                signal.signal(number, signal.SIG_DFL)  # as Python found them, not as it set them
            if env is None:
                os.execvp(command[0], command)
            os.execvpe(command[0], command, env)
        except OSError as error:
            os.write(failure_write, str(error.errno or 0).encode())
        finally:
            os._exit(127)
    os.close(failure_write)
    failure = os.read(failure_read, 64)
    os.close(failure_read)
    if failure:
        os.waitpid(pid, 0)
        os.write(report_fd, b"error " + failure)
        os._exit(127)
    return pid


def main(argv: list[str], env: dict[str, str] | None = None, prctl: Any = None) -> None:
    """Guard the engine ``argv`` names (see the module docstring), started in ``env`` (None: the
    guard's own environment), with ``prctl`` (None: looked up now); never returns."""
    report_fd, parent, die_with_parent = int(argv[1]), int(argv[2]), argv[3] == "1"
    command = argv[5:]

    stopping = False

    def stop(signum: int, frame: object) -> None:
        # Only the first signal ends the wait.  A later one returns at once: raised again,
        # outside the try below, it would kill the guard before its sweep, and the engine's
        # escaped processes would outlive it.
        nonlocal stopping
        if not stopping:
            stopping = True
            raise _Stop

    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(number, stop)
    if prctl is None:
        prctl = load_prctl()
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    engine = 0
    status: int | None = None
    try:
        if die_with_parent:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
            if os.getppid() != parent:  # the host died before the request took effect
                stop(signal.SIGTERM, None)

        engine = start_engine(command, report_fd, prctl, env)
        os.write(report_fd, str(engine).encode())
        os.close(report_fd)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        while status is None:
            try:
                pid, code = os.waitpid(-1, 0)
            except ChildProcessError:  # no child left to wait for
                break
            if pid == engine:
                status = code
        stopping = True  # (inside the try: a signal just before this still ends up below)
    except _Stop:
        pass
    exit_like(sweep(engine, status))


if __name__ == "__main__":
    main(sys.argv)

"""A real engine process as a :class:`~protocol.transport.Transport`.

:class:`ProcessTransport` runs the engine in its own process group (session), on Linux under
its guard (:mod:`protocol.guardstart`).  Its output is read by the thread that waits for it
(:class:`~protocol.linereader.LineReader`: bounded, paced).  Its stderr has a thread of its own,
which logs it and keeps its last line.  Input is written by the sending thread itself to a
non-blocking pipe, waiting for room (``poll``) at most until the write's deadline, so an engine
that stops reading its input cannot block its host: the write fails with TimeoutError instead.
Every wait (for output, for room, for the engine's end) goes through the waiting thread's
:class:`~protocol.waiting.Waiter`: it blocks the thread, unless the host has the thread run many
conversations at once (the arbiter's game processes, whose waiter parks one game's greenlet and
runs another's).  Every engine's group is kept in :mod:`protocol.liveprocesses` until it is gone.
"""

from __future__ import annotations

import _thread
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import IO, Final

from . import guardstart
from .guardstart import EngineProcess, read_report, start_guard
from .linereader import LineReader
from .liveprocesses import live_groups, live_guards
from .transport import MAX_LINE, EndOfOutput, LogFunction, Transport
from .waiting import current_waiter, sleep_until

__all__ = ["ProcessTransport"]

# Compiled code looks a module's function up at every call, and a C type's method; a Final
# name is the compiled module's own constant.  These and those of the other transport modules
# save 2,800 instructions a ply of the referee's 64,700 (callgrind, benchmarks/ply_floor.py).
_monotonic: Final = time.monotonic
_os_write: Final = os.write
_lock_acquire: Final = _thread.LockType.acquire
_lock_release: Final = _thread.LockType.release


def _write_rest(fd: int, data: memoryview, timeout: float | None) -> None:
    """Write ``data`` to the non-blocking pipe ``fd``, which is full: wait for the reader to
    make room, at most ``timeout`` seconds in all (None: no limit), else TimeoutError."""
    deadline = None if timeout is None else _monotonic() + timeout
    while data:
        remaining = None if deadline is None else deadline - _monotonic()
        if remaining is not None and remaining <= 0:
            raise TimeoutError("the engine did not take its input in time")
        current_waiter().writable(fd, remaining)
        try:
            data = data[_os_write(fd, data) :]
        except BlockingIOError:
            pass


def _wait_process(process: EngineProcess, timeout: float) -> int | None:
    """``process``'s exit status once it has ended, within ``timeout`` seconds, else None."""
    waiter = current_waiter()
    if waiter.blocking:
        try:
            return process.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return None
    sleep_until(lambda: process.poll() is not None, timeout, waiter)
    return process.poll()


def _join(thread: threading.Thread, timeout: float) -> None:
    """``thread.join(timeout)``, in short sleeps under a waiter that does not block."""
    waiter = current_waiter()
    if waiter.blocking:
        thread.join(timeout=timeout)
    else:
        sleep_until(lambda: not thread.is_alive(), timeout, waiter)


class ProcessTransport(Transport):
    """An engine process in its own process group; its output read by the thread that waits for
    it, its stderr by a thread of its own.

    On Linux the engine runs under a guard (:mod:`protocol.guard`), a subreaper that kills its
    whole process tree when it exits or is killed, and when the thread that started it exits,
    even if the host is killed outright (``die_with_parent``, default on; see the module
    docstring).  :attr:`pid` is the engine's own process id (its process group's too).
    """

    def __init__(
        self,
        command: Sequence[str],
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        *,
        die_with_parent: bool = True,
    ) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.die_with_parent = die_with_parent
        self._process: EngineProcess | None = None
        self._engine_pid: int | None = None
        self._stdout: LineReader | None = None
        self._read_lock = threading.Lock()  # held while the output is read: close() waits for no reader
        self._output_open = False
        self._write_lock = threading.Lock()
        self._stderr_thread: threading.Thread | None = None
        self._stderr_tail: deque[str] = deque(maxlen=1)
        self._closed = False
        self._stdin_fd = -1  # the engine's input, written with os.write; -1 until started, once closed

    @property
    def pid(self) -> int | None:
        if self._engine_pid is not None:
            return self._engine_pid
        return self._process.pid if self._process is not None else None

    def start(self, log: LogFunction | None) -> None:
        if not self.command:
            raise OSError("empty command")
        process: EngineProcess
        if guardstart.GUARDED:
            process = self._start_guarded()
        else:
            process = self._process = subprocess.Popen(
                self.command,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            self._engine_pid = process.pid  # a new session's id is its leader's pid
            live_groups[self._engine_pid] = None
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        # Written with os.write only (never through the buffered stream), so that no write
        # waits for room longer than its deadline; the engine's end of the pipe stays blocking.
        self._stdin_fd = process.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)

        def overlong(start: str) -> bool:
            if log is not None:
                log("<", f"{start[:200]}... (cut: longer than {MAX_LINE} bytes)")
            return False

        def logged(lines: list[str]) -> None:
            assert log is not None
            for line in lines:
                log("<", line)

        self._stdout = LineReader(process.stdout.fileno(), logged if log is not None else None, overlong)
        self._output_open = True
        thread = threading.Thread(
            target=self._read_stderr, args=(process.stderr, log), daemon=True, name=f"engine-{self.pid}-stderr"
        )
        thread.start()
        self._stderr_thread = thread

    def _start_guarded(self) -> EngineProcess:
        """Start the guard, which starts the engine and reports its pid (or why it could not);
        the guard's process, whose pipes are the engine's."""
        process, report = start_guard(self.command, self.cwd, self.env, self.die_with_parent)
        self._process = process
        answer = read_report(report, 30.0)
        if answer.isdigit():
            self._engine_pid = int(answer)
            live_groups[self._engine_pid] = None
            return process
        self.close()
        number = int(answer.split()[1]) if answer.startswith("error ") and answer[6:].isdigit() else 0
        raise OSError(number, os.strerror(number) if number else "the engine's guard process failed")

    def _read_stderr(self, stream: IO[bytes], log: LogFunction | None) -> None:
        def take(lines: list[str]) -> None:
            self._stderr_tail.append(lines[-1])
            if log is not None:
                for line in lines:
                    log("!", line)

        def overlong(start: str) -> bool:
            take([start])
            return True

        reader = LineReader(stream.fileno(), take, overlong)
        while reader.next(None)[0] is not EndOfOutput:
            pass

    def send(self, line: str, timeout: float | None = None) -> None:
        if self._process is None or self._closed:
            raise BrokenPipeError("the engine is not running")
        data = (line + "\n").encode("utf-8")
        lock = self._write_lock
        if not _lock_acquire(lock, False):  # another thread's line is being written
            queued = _monotonic()
            if not lock.acquire(timeout=-1 if timeout is None else timeout):
                raise TimeoutError("an earlier line is still waiting for room in the engine's input")
            if timeout is not None:
                timeout = max(0.0, timeout - (_monotonic() - queued))
        try:
            fd = self._stdin_fd
            if self._closed or fd < 0:  # closed only with the lock held
                raise BrokenPipeError("the engine's input is closed")
            try:
                written = _os_write(fd, data)
            except BlockingIOError:
                written = 0
            if written < len(data):
                _write_rest(fd, memoryview(data)[written:], timeout)
        finally:
            _lock_release(lock)
        if self._closed:  # close() found the lock held, so the input is the last writer's to close
            self._close_input()

    def _close_input(self) -> None:
        """Close the engine's input, unless a write is under way (that writer closes it then)."""
        process = self._process
        if process is None or process.stdin is None or not self._write_lock.acquire(blocking=False):
            return
        try:
            self._stdin_fd = -1
            process.stdin.close()
        except OSError:
            pass
        finally:
            self._write_lock.release()

    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        with self._read_lock:
            try:
                if self._output_open:
                    assert self._stdout is not None
                    return self._stdout.next(timeout)
                return EndOfOutput, _monotonic()
            finally:
                if self._closed:  # close() found a read under way: the output is this reader's to close
                    self._close_output()

    def collect(self) -> None:
        with self._read_lock:
            if self._output_open:
                assert self._stdout is not None
                self._stdout.collect()

    def _close_output(self) -> None:
        """Close the engine's stdout (the read lock held)."""
        if self._output_open and self._process is not None and self._process.stdout is not None:
            self._output_open = False
            try:
                self._process.stdout.close()
            except OSError:
                pass

    def poll(self) -> int | None:
        return self._process.poll() if self._process is not None else None

    def wait(self, timeout: float) -> int | None:
        if self._process is None:
            return None
        return _wait_process(self._process, timeout)

    def kill(self) -> None:
        process = self._process
        if process is None:
            return
        if self._engine_pid is not None:
            try:
                os.killpg(self._engine_pid, signal.SIGKILL)
            except OSError:  # the group is already empty
                pass
            live_groups.pop(self._engine_pid, None)
        if process.pid != self._engine_pid:  # the guard: it kills the rest of the tree, then exits
            try:
                process.send_signal(signal.SIGTERM)
            except OSError:
                pass
            if _wait_process(process, 10.0) is None:  # only a guard stopped by someone else gets here
                process.kill()
            live_guards.pop(process.pid, None)
        process.wait()

    def close(self) -> None:
        if self._closed:
            return
        self.kill()
        self._closed = True
        process = self._process
        if process is None:
            return
        self._close_input()
        if self._read_lock.acquire(blocking=False):  # else the reading thread closes it when done
            try:
                self._close_output()
            finally:
                self._read_lock.release()
        # A stream whose reader still blocks (a process that escaped holds the pipe) must not
        # be closed: its descriptor could be reused under the reader.
        thread = self._stderr_thread
        if thread is not None:
            _join(thread, 1.0)
        if (thread is None or not thread.is_alive()) and process.stderr is not None:
            try:
                process.stderr.close()
            except OSError:
                pass

    def last_stderr(self) -> str | None:
        return self._stderr_tail[-1] if self._stderr_tail else None

"""Whether an event is running: the arbiter that holds its database's lock.

A tournament's arbiter holds its event database's ``flock`` while it runs (see
:mod:`arbiter.events.store`).  :func:`event_running` and :func:`event_runner` read it from
``/proc/locks``, without touching the lock, so a starting arbiter never fails on it; where
``/proc/locks`` does not exist, a shared lock is tried and dropped at once.
"""

from __future__ import annotations

import fcntl
import os


def event_running(db_path: str) -> bool:
    """True while an arbiter holds the event database's lock (read from ``/proc/locks``, so
    the lock is never taken, not even for an instant, and a starting arbiter never fails on
    it).  Where ``/proc/locks`` does not exist, a shared lock is tried and dropped at once."""
    holder = _lock_holder(db_path)
    return holder if isinstance(holder, bool) else True


def event_runner(db_path: str) -> int | None:
    """The pid of the arbiter running the event (holding its database's lock), or None when none
    does or it cannot be told (no ``/proc/locks``)."""
    holder = _lock_holder(db_path)
    return None if isinstance(holder, bool) else holder


def _lock_holder(db_path: str) -> int | bool:
    """The pid holding the database's lock as ``/proc/locks`` shows it, else whether it is held."""
    try:
        status = os.stat(db_path)
    except OSError:
        return False
    try:
        with open("/proc/locks", encoding="ascii") as handle:
            table = handle.read()
    except OSError:
        return _try_lock(db_path)
    wanted = f":{status.st_ino}"
    same_inode = False
    for line in table.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a blocked waiter has "->" in it
        if len(fields) >= 6 and fields[1] == "FLOCK" and "->" not in fields and fields[5].endswith(wanted):
            major_minor = fields[5][: -len(wanted)].split(":")
            if len(major_minor) == 2 and _device(major_minor) == status.st_dev:
                return int(fields[4]) if fields[4].isdigit() else True
            same_inode = True
    # An inode with a lock on another device number (an overlay file system may show the
    # lower one): ask the lock itself.
    return _try_lock(db_path) if same_inode else False


def _device(major_minor: list[str]) -> int:
    major, minor = (int(part, 16) for part in major_minor)
    return os.makedev(major, minor)


def _try_lock(path: str) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False

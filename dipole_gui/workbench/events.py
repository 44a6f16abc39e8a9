"""Events run from the workbench: each an ordinary ``dipole-arbiter`` process writing an ordinary
event database in the events directory, so ``resume``, ``export``, ``ratings`` and the watch
page work on it as on one started by hand.

:func:`event_command` turns the page's form into the arbiter's argument list (``match --db``
or ``tournament``) (the engines
by ``conf=`` from the engines file); :func:`launch` starts it detached, in its own session (no
signal to the GUI's terminal or process group reaches it, and it goes on when the page or the
GUI server goes away; the arbiter owns its engines and takes them with it), and waits until it
either runs the event (it holds the database's lock) or ends with its one-line error, which the
page then shows: the arbiter checks the form, with its own words.  The workbench checks first
what would keep the arbiter from starting at all (a field with a control character, longer
than :data:`MAX_FIELD`, a name too long for a file, an engine not in the engines file) and
what it may not ask for (more games at once, over the events running in the directory, than
the server's ``--max-event-concurrency``); a refused
start leaves no file behind.  :func:`event_list` reads every
event database of the directory, started here or by hand; :func:`stop` sends the running
arbiter SIGINT, its clean stop, after which ``resume`` continues the event.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from arbiter.errors import ArbiterError
from arbiter.events.running import event_runner, event_running
from arbiter.events.store import is_event_file
from arbiter.events.tournament import event_end
from arbiter.stats.ratings import RatingError, fit_ratings

from ..limits import DEFAULT_EVENT_CONCURRENCY
from ..watch import open_store
from .book import EngineBook

ARBITER = (sys.executable, "-m", "arbiter")
START_TIMEOUT = 60.0  # seconds for an arbiter to take its event's lock (it checks its engines first)
LOG_SUFFIX = ".log"  # the arbiter's output, beside its database
FORMATS = ("match", "round-robin", "gauntlet", "knockout", "swiss")  # match: ``dipole-arbiter match``
# The form's fields passed as ``--name value`` (``_`` read as ``-``).  Deliberately not in the
# form: --pgn, --live-pgn, --live, --report (the events list downloads and watches every event),
# --each (the engines file holds each engine's settings), --rating-interval (standings printed
# to a log no one reads), --anchor (the ratings page fits every event together).
VALUE_OPTIONS = (
    "games",
    "rounds",
    "tc",
    "st",
    "depth",
    "nodes",
    "timemargin",
    "concurrency",
    "sprt",
    "draw",
    "maxmoves",
    "cluster",
    "seed",
    "handshake_timeout",
    "stall_timeout",
    "log",
)
OPENINGS = ("start", "suite", "file", "plies")
MAX_FIELD = 1000  # characters of one field of the form (a path, an SPRT, an engine's name)
MAX_NAME_BYTES = 200  # of a new event's database name (NAME.db; NAME.db.log stays within 255 bytes)
_starting = threading.Lock()  # one start or resume at a time, so that two cannot both pass the limit


def _plain(value: str, what: str) -> str:
    """``value`` if it can be one argument of a command: no control character, not too long."""
    if len(value) > MAX_FIELD:
        raise ArbiterError(f"{what}: at most {MAX_FIELD} characters, not {len(value)}")
    if not value.isprintable():
        raise ArbiterError(f"{what}: no control characters (a line break, a NUL)")
    return value


def _text(form: dict[str, Any], key: str) -> str:
    value = form.get(key, "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ArbiterError(f"{key}: expected text")
    return _plain(value.strip(), key)


def event_path(directory: str, name: str) -> str:
    """The database of the event called ``name`` in ``directory`` (a plain file name)."""
    name = name.strip()
    if not name or "/" in name or "\\" in name or name.startswith(".") or "\x00" in name:
        raise ArbiterError(f"event name {name!r}: give a plain name (no '/', not starting with '.')")
    return os.path.join(directory, name if name.endswith(".db") else f"{name}.db")


def event_command(form: dict[str, Any], directory: str, engines_file: str) -> tuple[list[str], str]:
    """The arbiter's argument list for the page's form, and the event's database: ``match --db``
    for the format ``match``, else ``tournament``.  Only what the form fills in is passed (the
    arbiter's defaults stand for the rest), each value as one argument, for the arbiter to judge."""
    engines = form.get("engines")
    if not isinstance(engines, list) or not all(isinstance(name, str) for name in engines):
        raise ArbiterError("engines: choose the engines from the engines file")
    known = {entry.name for entry in EngineBook(engines_file).read()[0]}
    for name in engines:
        if _plain(name, "engines") not in known:
            raise ArbiterError(f"engines: no engine {name!r} in the engines file {engines_file}")
    format_ = _text(form, "format") or "round-robin"
    if format_ not in FORMATS:
        raise ArbiterError(f"format {format_!r}: one of {', '.join(FORMATS)}")
    db = event_path(directory, _text(form, "name"))
    if len(os.path.basename(db).encode()) > MAX_NAME_BYTES:  # a new event's; one made by hand may be longer
        raise ArbiterError(f"event name: at most {MAX_NAME_BYTES} bytes (it names the event's files)")
    match = format_ == "match"
    args = [*ARBITER, "match" if match else "tournament", "--config", engines_file]
    for name in engines:
        args += ["--engine", f"conf={name}"]
    if not match:
        args += ["--format", format_]
    args += ["--variant", _text(form, "variant") or "dipole", "--db", db, "--event", _text(form, "name")]
    for key in VALUE_OPTIONS:
        value = _text(form, key)
        if value:
            args += [f"--{key.replace('_', '-')}", value]
    recover = _text(form, "recover")
    if recover not in ("", "restart", "stop"):
        raise ArbiterError(f"crashed engines {recover!r}: restart or stop")
    if recover:
        args.append("--recover" if recover == "restart" else "--no-recover")
    if form.get("ponder") is True:
        args.append("--ponder")
    kind, value = _text(form, "openings") or "start", _text(form, "openings_value")
    if kind not in OPENINGS:
        raise ArbiterError(f"openings {kind!r}: one of {', '.join(OPENINGS)}")
    order = _text(form, "openings_order")
    if kind in ("suite", "file"):
        args += ["--openings", value, *([f"order={order}"] if order else [])]
    elif kind == "plies":
        args += ["--opening-plies", value]
    movecount, score = _text(form, "resign_movecount"), _text(form, "resign_score")
    if movecount or score:
        args += ["--resign", f"movecount={movecount}", f"score={score}"]
    return args, db


def _detached(args: list[str], directory: str, log: str) -> subprocess.Popen[bytes]:
    """``args`` started in its own session, its output appended to ``log``; a thread reaps it."""
    with open(log, "ab") as output:
        try:
            process = subprocess.Popen(
                args,
                cwd=directory,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:  # the arguments too long for the system, say
            raise ArbiterError(f"the arbiter could not be started: {error.strerror or error}") from None
    threading.Thread(target=process.wait, daemon=True, name=f"reap {process.pid}").start()
    return process


def launch(args: list[str], db: str, directory: str) -> int:
    """Start the arbiter and wait until it runs the event, written and locked (its pid), or has
    failed (ArbiterError: its own one-line error)."""
    log = db + LOG_SUFFIX
    start = os.path.getsize(log) if os.path.exists(log) else 0
    process = _detached(args, directory, log)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if running_concurrency(db) is not None:
            return process.pid
        if process.poll() is not None:
            break
        time.sleep(0.1)
    else:
        return process.pid  # still setting up: the events list will show how it goes
    with open(log, encoding="utf-8", errors="replace") as handle:
        handle.seek(start)
        lines = [line.strip() for line in handle if line.strip()]
    error = next((line for line in reversed(lines) if line.startswith("dipole-arbiter: error:")), None)
    raise ArbiterError(
        error.removeprefix("dipole-arbiter: error: ")
        if error
        else (lines[-1] if lines else f"the arbiter ended with status {process.returncode}")
    )


def running_concurrency(db: str) -> int | None:
    """The games at once (``--concurrency``) of the event an arbiter runs at ``db``; None while
    none runs it, and while the arbiter that has just taken its lock has not yet written it."""
    if not (is_event_file(db) and event_running(db)):
        return None
    try:
        store, _ = open_store(db, True)
    except ArbiterError:  # locked, its tables not yet committed
        return None
    try:
        return store.config.concurrency
    finally:
        store.close()


def games_at_once(directory: str) -> int:
    """The games the events running in ``directory`` play at once (their ``--concurrency``)."""
    total = 0
    for entry in os.scandir(directory):
        if entry.name.endswith(".db") and entry.is_file():
            total += running_concurrency(entry.path) or 0
    return total


def check_concurrency(wanted: int, directory: str, limit: int) -> None:
    """Refuse an event that would take the running events of ``directory`` over ``limit`` games
    at once (the option that sets it named)."""
    playing = games_at_once(directory)
    if playing + wanted > limit:
        raise ArbiterError(
            f"concurrency {wanted}: the events running here may play {limit} games at once in all "
            f"(dipole-gui --max-event-concurrency) and play {playing} now"
        )


def _concurrency(form: dict[str, Any]) -> int | None:
    """The form's concurrency (the arbiter's default, 1, when empty; None: not a number, for
    the arbiter to refuse in its words)."""
    value = _text(form, "concurrency") or "1"
    return int(value) if value.isdecimal() else None


def start_event(
    form: dict[str, Any], directory: str, engines_file: str, max_concurrency: int = DEFAULT_EVENT_CONCURRENCY
) -> str:
    """Start the form's event (refused when it would take the running events over
    ``max_concurrency`` games at once); its database's name.  A refused start leaves no file."""
    args, db = event_command(form, directory, engines_file)
    if os.path.exists(db):
        raise ArbiterError(f"an event called {os.path.basename(db)} exists already; choose another name")
    log = db + LOG_SUFFIX
    kept = os.path.getsize(log) if os.path.exists(log) else None  # a log left by an event since deleted
    with _starting:
        wanted = _concurrency(form)
        if wanted is not None:
            check_concurrency(wanted, directory, max_concurrency)
        try:
            launch(args, db, directory)
        except ArbiterError:
            with contextlib.suppress(OSError):
                if kept is None:
                    os.unlink(log)
                else:
                    os.truncate(log, kept)
            raise
    return os.path.basename(db)


def find_event(directory: str, name: str) -> str:
    path = event_path(directory, name)
    if not os.path.isfile(path) or not is_event_file(path):
        raise ArbiterError(f"no event {name!r} in {directory}")
    return path


def resume_event(directory: str, name: str, max_concurrency: int) -> None:
    path = find_event(directory, name)
    with _starting:
        if event_running(path):
            raise ArbiterError(f"{name} is running already")
        store, _ = open_store(path, False)
        try:
            wanted = store.config.concurrency
        finally:
            store.close()
        check_concurrency(wanted, directory, max_concurrency)
        launch([*ARBITER, "resume", path], path, directory)


def stop_event(directory: str, name: str) -> None:
    """SIGINT to the arbiter running the event: it stops cleanly and the event can be resumed."""
    path = find_event(directory, name)
    pid = event_runner(path)
    if pid is None:
        raise ArbiterError(f"{name} is not running")
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\x00")
    except OSError:
        raise ArbiterError(f"{name}: its arbiter (pid {pid}) is gone") from None
    if b"arbiter" not in b" ".join(command):
        raise ArbiterError(f"{name}: pid {pid} holds its lock but is no arbiter; stop it by hand")
    os.kill(pid, signal.SIGINT)


def event_summary(path: str) -> dict[str, Any]:
    """One event for the list: state (running, interrupted, finished), progress, leader, and its
    SPRT decision if it has one."""
    running = event_running(path)
    store, _ = open_store(path, running)
    try:
        config = store.config
        total, outcomes = store.scheduled(), store.outcomes()
        end = event_end(store, outcomes)
    finally:
        store.close()
    done = len(outcomes)
    leader = None
    if outcomes:
        try:
            table = fit_ratings(outcomes, engines=[spec.name for spec in config.engines])
            top = table.rows[0]
            leader = {"name": top.name, "score": top.score, "games": top.games, "rating": round(top.rating, 1)}
        except RatingError:
            leader = None
    # Over as ``resume`` judges it (an SPRT decision ends an event with games left unplayed).
    state = "running" if running else "finished" if end.over else "interrupted"
    return {
        "name": os.path.basename(path),
        "event": config.name,
        "state": state,
        "done": done,
        "total": total,
        "format": config.kind,
        "variant": config.variant,
        "engines": [spec.name for spec in config.engines],
        "leader": leader,
        "decision": end.decision,
        "modified": os.path.getmtime(path),
    }


def event_list(directory: str) -> list[dict[str, Any]]:
    """Every event database in ``directory``, newest first (one that cannot be read: its error)."""
    found = []
    for entry in os.scandir(directory):
        if entry.name.endswith(".db") and entry.is_file() and is_event_file(entry.path):
            try:
                found.append(event_summary(entry.path))
            except Exception as error:  # noqa: BLE001 - a damaged database is listed with its error
                found.append(
                    {"name": entry.name, "state": "error", "error": str(error), "modified": entry.stat().st_mtime}
                )
    return sorted(found, key=lambda event: -float(event["modified"]))


def export_pgn(directory: str, name: str) -> str:
    """The event's finished games as PGN, by ``dipole-arbiter export``."""
    done = subprocess.run(
        [*ARBITER, "export", find_event(directory, name), "--pgn", "-"],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode != 0:
        raise ArbiterError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "export failed")
    return done.stdout


def report_html(directory: str, name: str, scratch: str) -> str:
    """The event's HTML report, by ``dipole-arbiter ratings DB --report``."""
    target = os.path.join(scratch, "report.html")
    done = subprocess.run(
        [*ARBITER, "ratings", find_event(directory, name), "--report", target],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode != 0:
        raise ArbiterError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no report")
    return Path(target).read_text(encoding="utf-8")

"""The ``dipole-gui`` command: start the GUI's web server and print its URL.

Engines are given as to ``dipole-arbiter`` (``--engine cmd=... name=... option.X=...``,
``--each``, ``--config FILE``; the same code reads them).  An engine's ``depth=``/``nodes=``
cap its strength in every game; the time control is chosen on the page.  With no engine, the
project's own engine is offered at a few strengths.

It listens on 127.0.0.1 unless ``--host`` says otherwise; any other host needs the access
token, which is then made up (or taken from ``--token``) and printed in the URL.  Listening on
every address (``0.0.0.0``, ``::``) it prints the loopback URL and one for each address of the
machine others may use.  ``--max-games`` and ``--max-games-per-client`` bound the games and
analyses running engines at once (:mod:`dipole_gui.limits`); ``--keep-games`` how long a game lives
on after its last page went away (:mod:`dipole_gui.games`).  ``--manage`` serves the host's
workbench (:mod:`dipole_gui.workbench`) over ``--events DIR`` and ``--engines-file``, with a
management token made up at each start (even on loopback), printed in the workbench's URL;
``--max-event-concurrency`` bounds the games its events play at once.  Bad input ends in one line,
``dipole-gui: error: <reason>``, and status 2.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import webbrowser
from types import FrameType

import click

from arbiter.cli.options import SEPARATOR, EngineWordsCommand, engine_help
from arbiter.errors import ArbiterError
from arbiter.play.engines import EngineSpec, load_config, own_engine_command, resolve_engines
from arbiter.play.timecontrol import SearchLimits
from dipole_runtime import commandline

from .addresses import is_loopback, is_wildcard, loopback_for, reachable_addresses, url_host
from .config import DEFAULT_KEEP
from .limits import DEFAULT_EVENT_CONCURRENCY, DEFAULT_PER_CLIENT, DEFAULT_PER_SERVER, EngineJobs

PROG = "dipole-gui"
DEFAULT_MOVETIME = "1"  # makes every engine spec complete; the page's time control replaces it
OWN_ENGINE_LEVELS = (
    ("Dipole engine, depth 1 (beginner)", 1),
    ("Dipole engine, depth 3", 3),
    ("Dipole engine, depth 5", 5),
    ("Dipole engine, full strength", None),
)


def own_engines() -> list[EngineSpec]:
    """The project's engine at a few strengths (depth caps; none for the full one)."""
    command = own_engine_command()
    return [EngineSpec(name, command, SearchLimits(depth=depth)) for name, depth in OWN_ENGINE_LEVELS]


def engine_specs(engines: tuple[str, ...], each: str | None, config_path: str | None) -> list[EngineSpec]:
    """The engines the page may choose, read as the arbiter reads them."""
    config = load_config(config_path) if config_path else None
    words = [value.split(SEPARATOR) for value in engines]
    if not words and config is None:
        return own_engines()
    each_words = each.split(SEPARATOR) if each else []
    return resolve_engines(words, each_words, {"st": DEFAULT_MOVETIME}, config)


def access_token(host: str, given: str | None) -> str | None:
    """The token the server will ask for: ``given``, else a new one unless ``host`` is loopback."""
    if given is None and not is_loopback(host):
        return secrets.token_urlsafe(18)
    return given


@click.command(cls=EngineWordsCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--engine", "engines", multiple=True, metavar="KEY=VALUE...", help=engine_help())
@click.option("--each", metavar="KEY=VALUE...", help="Settings for every engine (an engine's own win).")
@click.option(
    "--config", "config_path", metavar="FILE", help='JSON file of engines ({"engines": [...], "each": {...}}).'
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; anything but loopback requires the access token.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on (0: any free port).",
)
@click.option("--token", metavar="TEXT", help="Access token (default: made up when --host is not loopback).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
@click.option(
    "--watch",
    metavar="EVENT.db",
    help="Open the page of this event, live: a tournament's database, or a match's live file (.json).",
)
@click.option(
    "--max-games",
    type=click.IntRange(1, 1000),
    default=DEFAULT_PER_SERVER,
    show_default=True,
    help="Games and analyses running engines at once on the server (a game runs up to 2 engines).",
)
@click.option(
    "--max-games-per-client",
    type=click.IntRange(1, 1000),
    default=DEFAULT_PER_CLIENT,
    show_default=True,
    help="Games and analyses running engines at once for one client address.",
)
@click.option(
    "--keep-games",
    type=click.IntRange(0, 86400),
    default=int(DEFAULT_KEEP),
    show_default=True,
    metavar="SECONDS",
    help="How long a game lives on (its clocks running) after its last page went away.",
)
@click.option(
    "--manage",
    is_flag=True,
    help="Serve the workbench (/workbench): manage engines and events from the page. Whoever has the "
    "management token (made up at each start, printed in the workbench's URL) can then run any command "
    "as this server's user.",
)
@click.option(
    "--max-event-concurrency",
    type=click.IntRange(1, 1000),
    default=DEFAULT_EVENT_CONCURRENCY,
    show_default=True,
    help="Games the events running in the events directory may play at once, in all (each runs two "
    "engines), when one is started or resumed from the workbench.",
)
@click.option(
    "--events",
    "events_dir",
    default=".",
    show_default=True,
    metavar="DIR",
    help="The events directory: event databases the workbench starts and lists, and the watch page's picker.",
)
@click.option(
    "--engines-file",
    metavar="FILE",
    help="The workbench's engines, in the format of --config [default: DIR/engines.json of --events].",
)
def cli(
    engines: tuple[str, ...],
    each: str | None,
    config_path: str | None,
    host: str,
    port: int,
    token: str | None,
    open_browser: bool,
    watch: str | None,
    max_games: int,
    max_games_per_client: int,
    keep_games: int,
    manage: bool,
    max_event_concurrency: int,
    events_dir: str,
    engines_file: str | None,
) -> int:
    """Play, watch and analyse Dipole and Impasse in the browser, with any protocol engine."""
    import uvicorn  # the web stack is an extra: say so clearly if it is missing

    from .config import GuiConfig
    from .pagemessages import MAX_MESSAGE
    from .server import base_routes, create_app
    from .watch import Watching, check_watch_path, watch_routes
    from .workbench import Workbench
    from .workbench.routes import workbench_routes

    try:
        specs = engine_specs(engines, each, config_path)
        if watch is not None:
            check_watch_path(watch)
    except ArbiterError as error:
        raise click.UsageError(str(error)) from None
    if not os.path.isdir(events_dir):
        raise click.UsageError(f"--events {events_dir}: no such directory")
    token = access_token(host, token)
    manage_token = secrets.token_urlsafe(24) if manage else None
    if token is not None and (
        len(token) < 8 or not token.isascii() or not token.replace("-", "").replace("_", "").isalnum()
    ):
        raise click.UsageError("--token: use at least 8 letters, digits, '-' or '_'")
    try:
        listener = socket.create_server((host, port), family=_family(host))
    except OSError as error:
        raise click.UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    bound = listener.getsockname()[1]

    def url(address: str, page: str, key: str | None) -> str:
        return f"http://{url_host(address)}:{bound}/{page}" + (f"?token={key}" if key else "")

    home = ("watch", token) if watch else ("workbench", manage_token) if manage else ("", token)

    app = create_app(
        GuiConfig(specs, token, jobs=EngineJobs(max_games, max_games_per_client), manage_token=manage_token),
        [*base_routes(), *watch_routes(), *workbench_routes()],
        keep_games,
    )
    app.state.watching = Watching(watch, events_dir)
    if manage:
        app.state.workbench = Workbench(
            os.path.abspath(events_dir),
            os.path.abspath(engines_file or os.path.join(events_dir, "engines.json")),
            max_event_concurrency,
        )
    # ws_max_size: a longer message is refused from its header, never read.
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws="auto", ws_max_size=MAX_MESSAGE)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # Told to stop: the workbench's checks end now, not after their open requests.
            if manage:
                app.state.workbench.checks.close()
            super().handle_exit(sig, frame)

    server = Server(config)
    print(f"{PROG}: {len(specs)} engine{'s' if len(specs) != 1 else ''}: {', '.join(s.name for s in specs)}")
    here = loopback_for(host) if is_wildcard(host) else host
    local = url(here, *home)
    print(f"{PROG}: open {local}  (Ctrl-C stops)", flush=True)
    if watch and manage:
        print(f"{PROG}: the workbench: {url(here, 'workbench', manage_token)}", flush=True)
    if is_wildcard(host):
        others = reachable_addresses(host)
        print(
            f"{PROG}: from other machines: "
            + (
                "  ".join(url(address, *home) for address in others)
                if others
                else "no address of this machine found; use its name or address"
            ),
            flush=True,
        )
    if open_browser:
        webbrowser.open(local)
    asyncio.run(server.serve(sockets=[listener]))
    return 0


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def main() -> None:
    commandline.run(cli, PROG)

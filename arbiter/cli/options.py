"""What the ``dipole-arbiter`` commands that play games share: their options, defined once.

:func:`event_options` is the click decorator with every option of ``match`` and
``tournament`` alike (engines, variant, limits, concurrency, openings, records, recovery,
timeouts, SPRT); :class:`EventOptions` is their parsed values.  Also here: ``--variant``'s
type (any installed game's variant), the grouping of cutechess-style ``--engine key=value ...``
words, the choice of openings, and the signal handling that turns Ctrl-C/SIGTERM/SIGHUP into a
clean stop.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import secrets
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import click

import gameplug

from ..errors import ArbiterError
from ..openings.choice import OpeningsChoice
from ..openings.positions import generate_openings
from ..play.adjudication import DrawRule, ResignRule
from ..play.engines import EngineSpec, check_variant_options, load_config, own_engine_command, resolve_engines
from ..play.referee import RefereeSettings
from ..play.timecontrol import MAX_SECONDS
from ..records.game import START, Opening
from ..stats.ratings import RatingError, parse_anchor
from ..stats.sprt import SprtError, SprtParams
from ..text import check_printable

DEFAULT_VARIANT = "dipole"
GROUPED_FLAGS = ("--engine", "--each", "--resign", "--draw")
FIRST_WORD_FLAGS = ("--openings", "--pgn")  # a free first word (the file), then key=value words
SEPARATOR = "\x00"  # joins the key=value tokens of one --engine/--each (never in an argument)
INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
DEMO_OPENING_PLIES = 4
MAX_CONCURRENCY = 512  # games at once: each is two engine processes and their threads
MAX_GAMES = 1_000_000  # games one event may schedule (the schedule is planned up front)
MAX_OPENING_PLIES = 1000

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def variant_option(help_text: str = "The variant of an installed game", **settings: Any) -> Callable[[F], F]:
    """``--variant``: any installed game's variant (:mod:`gameplug`), checked when given (so that
    a command loads no other variant's tables); an unknown one is one line naming the installed ones."""
    return click.option(
        "--variant",
        metavar="VARIANT",
        callback=_installed_variants,
        help=f"{help_text}; 'dipole-arbiter games' lists the installed ones.",
        **settings,
    )


def _installed_variants(ctx: click.Context, param: click.Parameter, value: str | tuple[str, ...]) -> object:
    """``value`` (one variant name, or several), each an installed variant's."""
    for name in (value,) if isinstance(value, str) else value:
        try:
            gameplug.variant(name)
        except gameplug.GameError as error:
            raise click.BadParameter(str(error), ctx, param) from None
    return value


class EngineWordsCommand(click.Command):
    """Lets ``--engine`` and ``--each`` take several ``key=value`` words, as cutechess-cli does."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, group_settings(args))


def group_settings(args: list[str]) -> list[str]:
    """``--engine a=1 b=2 --games 4`` -> ``--engine 'a=1<SEP>b=2' --games 4``."""
    grouped: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        grouped.append(arg)
        index += 1
        if arg == "--":
            grouped.extend(args[index:])
            break
        if arg in GROUPED_FLAGS or arg in FIRST_WORD_FLAGS:
            words = []
            if arg in FIRST_WORD_FLAGS and index < len(args) and not args[index].startswith("-"):
                words.append(args[index])
                index += 1
            while index < len(args) and "=" in args[index] and not args[index].startswith("-"):
                words.append(args[index])
                index += 1
            if words:
                grouped.append(SEPARATOR.join(words))
    return grouped


def _sprt_value(ctx: click.Context, param: click.Parameter, value: str | None) -> SprtParams | None:
    if value is None:
        return None
    try:
        return SprtParams.parse(value)
    except SprtError as error:
        raise click.BadParameter(str(error)) from None


def cluster_value(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The ``--cluster ADDRESS`` callback: a Dask scheduler's address, and Dask installed."""
    if value is None:
        return None
    address = value.strip()
    scheme, sep, rest = address.rpartition("://")
    host, colon, port = rest.rpartition(":")
    if (sep and scheme not in ("tcp", "tls")) or not colon or not host or not port.isdigit():
        raise click.BadParameter(f"{value!r} is not a Dask scheduler address (tcp://HOST:PORT)")
    from ..pools.cluster_connect import require_distributed  # it imports Dask: only once the address is worth it

    try:
        require_distributed()
    except ArbiterError as error:
        raise click.UsageError(str(error)) from None
    return address if sep else f"tcp://{address}"


CLUSTER_HELP = (
    "Play the games on the workers of the Dask scheduler at this address (tcp://HOST:8786) "
    "instead of local threads; each worker plays as many games at once as it has threads, "
    "and --concurrency does not apply."
)


def _rule_value(
    parse: Callable[[str], T], flag: str
) -> Callable[[click.Context, click.Parameter, str | None], T | None]:
    """The callback of an adjudication option (``--resign``, ``--draw``): its words parsed,
    or a one-line error without the flag's name (click adds it)."""

    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> T | None:
        if value is None:
            return None
        try:
            return parse(value.replace(SEPARATOR, " "))
        except ArbiterError as error:
            raise click.BadParameter(str(error).removeprefix(f"{flag}: ")) from None

    return callback


def _seconds_value(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """A timeout: finite and at most MAX_SECONDS (``nan`` and ``inf`` parse, but cannot be waited for)."""
    if not math.isfinite(value) or value > MAX_SECONDS:
        raise click.BadParameter(f"{value} is not a number of seconds from 0 to {MAX_SECONDS}")
    return value


@dataclass(frozen=True)
class PgnOutput:
    """``--pgn FILE [nodes=true]``: the file, and whether each engine move's comment gives its
    search's nodes (fastchess's ``-pgnout file= nodes=true``)."""

    path: str
    nodes: bool = False


def _pgn_value(ctx: click.Context, param: click.Parameter, value: str | None) -> PgnOutput | None:
    if value is None:
        return None
    path, *words = value.split(SEPARATOR)
    nodes = False
    for word in words:
        key, _, setting = word.partition("=")
        if key != "nodes" or setting not in ("true", "false"):
            raise click.BadParameter(f"{word!r}: expected nodes=true or nodes=false after the file")
        nodes = setting == "true"
    return PgnOutput(path, nodes)


def _event_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return check_printable(value, "the name")
    except ArbiterError as error:
        raise click.BadParameter(str(error)) from None


def anchor_value(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, float] | None:
    """The ``--anchor NAME=RATING`` callback (a bad value is a one-line usage error)."""
    if value is None:
        return None
    try:
        return parse_anchor(value)
    except RatingError as error:
        raise click.BadParameter(str(error)) from None


def engine_help() -> str:
    return (
        "An engine: key=value words, cutechess-cli style (cmd=, name=, dir=, option.NAME=, "
        "tc=, st=, depth=, nodes=, timemargin=, ponder=true, conf=). Repeat for each engine."
    )


def event_options(*, event: str, recover: bool) -> Callable[[F], F]:
    """The options every game-playing command has; ``event`` is the default PGN Event tag and
    ``recover`` whether crashed engines are restarted by default."""
    recover_help = (
        "Restart an engine that crashed or was killed, and go on (--no-recover: stop taking new games instead)."
    )
    options = [
        click.option("--engine", "engines", multiple=True, metavar="KEY=VALUE...", help=engine_help()),
        click.option("--each", "each", metavar="KEY=VALUE...", help="Settings for every engine (an engine's own win)."),
        click.option(
            "--config", "config_path", metavar="FILE", help='JSON file of engines ({"engines": [...], "each": {...}}).'
        ),
        variant_option(default=DEFAULT_VARIANT, show_default=True),
        click.option(
            "--tc",
            metavar="[MOVES/]SECONDS[+INC]",
            help="Time control for every engine, e.g. 10+0.1, 40/60, inf (no clock; alone, each move is "
            "'go infinite' ended by 'stop' after --stall-timeout).",
        ),
        click.option("--st", metavar="SECONDS", help="Fixed time per move."),
        click.option("--depth", metavar="N", help="Search depth per move."),
        click.option("--nodes", metavar="N", help="Nodes per move."),
        click.option("--timemargin", metavar="MS", help="Milliseconds an engine may overrun its time without losing."),
        click.option(
            "--ponder",
            is_flag=True,
            help="Let every engine with a Ponder option think on its opponent's time (go ponder, then "
            "ponderhit or stop; its clock runs from ponderhit), as cutechess-cli's -pondering.",
        ),
        click.option(
            "--concurrency",
            type=click.IntRange(min=1, max=MAX_CONCURRENCY),
            default=1,
            show_default=True,
            help="Games played at once (on local threads).",
        ),
        click.option("--cluster", callback=cluster_value, metavar="tcp://HOST:PORT", help=CLUSTER_HELP),
        click.option(
            "--openings",
            "openings_file",
            metavar="FILE [format=epd|pgn] [order=random|sequential] [start=K] [plies=N]",
            help="Openings, one a line: a FEN, a FEN then moves, or moves from the start; an EPD or PGN "
            "book (format=, or by the suffix .epd or .pgn); or a shipped suite by name (balanced). "
            "order=random shuffles them by --seed; start=K begins with the K-th (from 1); plies=N "
            "plays the first N book moves of each.",
        ),
        click.option(
            "--opening-plies",
            type=click.IntRange(min=1, max=MAX_OPENING_PLIES),
            help="Generate openings of N random plies.",
        ),
        click.option(
            "--seed", type=click.IntRange(min=0), help="Seed for generated openings (printed when not given)."
        ),
        click.option(
            "--pgn",
            "pgn_output",
            metavar="FILE [nodes=true]",
            callback=_pgn_value,
            help="Append every finished game to this PGN file; nodes=true gives each engine move's "
            "nodes in its comment (n=10432), as fastchess's nodes=true.",
        ),
        click.option(
            "--live-pgn",
            "live_pgn",
            metavar="FILE",
            help="Keep the games in progress in this PGN file, rewritten whole at every move.",
        ),
        click.option("--log", "log_dir", metavar="DIR", help="Keep each engine's whole I/O, timestamped, in DIR."),
        click.option("--recover/--no-recover", default=recover, show_default=True, help=recover_help),
        click.option("--event", default=event, show_default=True, callback=_event_name, help="The PGN Event tag."),
        click.option(
            "--handshake-timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=10.0,
            callback=_seconds_value,
            show_default=True,
            metavar="SECONDS",
            help="Time to start an engine, for each isready, and for the engine to take each command.",
        ),
        click.option(
            "--stall-timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=60.0,
            callback=_seconds_value,
            show_default=True,
            metavar="SECONDS",
            help="Longest wait for a move without a clock or a time per move (with tc=inf alone: the time per move).",
        ),
        click.option(
            "--sprt",
            callback=_sprt_value,
            metavar="'elo0=A elo1=B alpha=X beta=Y'",
            help="Stop when a sequential probability ratio test of the first engine against the "
            "second is decided (colour-reversed pairs, counted in schedule order).",
        ),
        click.option(
            "--resign",
            callback=_rule_value(ResignRule.parse, "--resign"),
            metavar="movecount=N score=CP [twosided=true]",
            help="Adjudicate a game as lost for a side whose engine scored at most -CP centipawns for "
            "N consecutive moves of its own (twosided: and the opponent's at least +CP).",
        ),
        click.option(
            "--draw",
            callback=_rule_value(DrawRule.parse, "--draw"),
            metavar="movenumber=N movecount=M score=CP",
            help="Adjudicate a game as drawn once it is N moves old and the last 2M engine moves "
            "(both sides') scored within CP centipawns of 0.",
        ),
        click.option(
            "--maxmoves",
            type=click.IntRange(min=0, max=1_000_000),
            default=0,
            metavar="N",
            help="Adjudicate a game as drawn when it reaches N moves (2N plies; 0: no limit).",
        ),
        click.option(
            "--rating-interval",
            type=click.IntRange(min=0, max=1_000_000),
            default=0,
            metavar="N",
            help="Print the standings every N finished games (0: only at the end).",
        ),
    ]

    def apply(function: F) -> F:
        for option in reversed(options):
            function = option(function)
        return function

    return apply


@dataclass(frozen=True)
class EventOptions:
    """The values of :func:`event_options`, by their parameter names."""

    engines: tuple[str, ...]
    each: str | None
    config_path: str | None
    variant: str
    tc: str | None
    st: str | None
    depth: str | None
    nodes: str | None
    timemargin: str | None
    ponder: bool
    concurrency: int
    cluster: str | None
    openings_file: str | None
    opening_plies: int | None
    seed: int | None
    pgn_output: PgnOutput | None
    live_pgn: str | None
    log_dir: str | None
    recover: bool
    event: str
    handshake_timeout: float
    stall_timeout: float
    sprt: SprtParams | None
    resign: ResignRule | None
    draw: DrawRule | None
    maxmoves: int
    rating_interval: int

    @property
    def pgn_path(self) -> str | None:
        return self.pgn_output.path if self.pgn_output is not None else None

    @property
    def pgn_nodes(self) -> bool:
        return self.pgn_output is not None and self.pgn_output.nodes

    @classmethod
    def take(cls, values: dict[str, Any]) -> EventOptions:
        """Take this class's fields out of a command's keyword arguments (the rest stay)."""
        return cls(**{field.name: values.pop(field.name) for field in dataclasses.fields(cls)})

    def specs(
        self, demo: Sequence[tuple[str, str]], warnings: list[str] | None = None
    ) -> tuple[list[EngineSpec], bool]:
        """The engines, and whether this is the demo: with no ``--engine`` and no ``--config``,
        the project's own engine at each (name, depth) of ``demo``.  Warnings (engines renamed)
        are added to ``warnings``, for the caller to show once the rest of the input is checked
        (:func:`show_warnings`); without a list they are shown at once."""
        flags = {"tc": self.tc, "st": self.st, "depth": self.depth, "nodes": self.nodes, "timemargin": self.timemargin}
        config = load_config(self.config_path) if self.config_path else None
        words = [value.split(SEPARATOR) for value in self.engines]
        is_demo = not words and config is None
        if is_demo:
            command = " ".join(own_engine_command())
            words = [[f"cmd={command}", f"name={name}", f"depth={depth}"] for name, depth in demo]
        each = self.each.split(SEPARATOR) if self.each else []
        settings = {key: value for key, value in flags.items() if value is not None}
        if self.ponder:
            settings["ponder"] = "true"
        warn = warnings.append if warnings is not None else (lambda message: show_warnings([message]))
        # On a cluster the engines' programs are looked up by each worker, not here.
        specs = resolve_engines(words, each, settings, config, here=self.cluster is None, warn=warn)
        check_variant_options(specs, self.variant)
        return specs, is_demo

    def openings(self, count: int, demo: bool) -> tuple[list[Opening], str]:
        """``count`` openings as the flags ask (the demo generates 4-ply ones by default)."""
        plies = self.opening_plies
        if demo and plies is None and self.openings_file is None:
            plies = DEMO_OPENING_PLIES
        return choose_openings(self.variant, count, self.openings_file, plies, self.seed)

    def referee(self) -> RefereeSettings:
        return RefereeSettings(
            handshake_timeout=self.handshake_timeout,
            stall_timeout=self.stall_timeout,
            event=self.event,
            date=datetime.date.today().strftime("%Y.%m.%d"),
            resign=self.resign,
            draw=self.draw,
            maxmoves=self.maxmoves,
        )


def choose_openings(
    variant: str, count: int, path: str | None, plies: int | None, seed: int | None
) -> tuple[list[Opening], str]:
    """The openings of an event (``count`` are generated) and a note saying how to get the
    same ones again.  ``path`` is the ``--openings`` value: a file or shipped suite, then
    ``order=``/``start=`` words (:mod:`arbiter.openings.choice`)."""
    if path is not None and plies is not None:
        raise ArbiterError("give --openings FILE or --opening-plies N, not both")
    choice = OpeningsChoice.parse(path.split(SEPARATOR)) if path is not None else None
    if seed is not None and plies is None and (choice is None or choice.order != "random"):
        raise ArbiterError(
            "--seed applies to generated openings or --openings order=random; "
            "give --opening-plies N or order=random too"
        )
    if choice is not None:
        source = choice.resolve(variant)
        if choice.order == "random" and seed is None:
            seed = secrets.randbelow(2**32)
        openings = choice.arrange(choice.load(variant), seed)
        order = f"in random order, seed {seed}" if choice.order == "random" else "in file order"
        start = f", from line {choice.start} of that order" if choice.start != 1 else ""
        again = f" (repeat with --seed {seed})" if choice.order == "random" else ""
        return openings, f"{len(openings)} from {source}, {order}{start}{again}"
    if plies is not None:
        seed = secrets.randbelow(2**32) if seed is None else seed
        openings = generate_openings(variant, plies, count, seed)
        return openings, f"{plies} random plies, seed {seed} (repeat with --opening-plies {plies} --seed {seed})"
    return [START], "the start position"


def show_warnings(warnings: list[str]) -> None:
    for message in warnings:
        click.echo(f"Warning: {message}", err=True)


class Interrupted(BaseException):
    """Raised in the main thread by the signal handler, once the engines are dead.

    A ``BaseException``, like ``KeyboardInterrupt``: the main thread may be inside code that
    catches ``Exception`` (a Dask client call, say) when the signal comes, and must not take
    the interruption for one of its own errors."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def run_interruptible(run: Callable[[], T], on_signal: Callable[[], None]) -> T | Interrupted:
    """``run()`` with Ctrl-C/SIGTERM/SIGHUP handled: its result, or the :class:`Interrupted`
    that cut it short.

    The first signal runs ``on_signal`` then raises :class:`Interrupted` in the main thread; a
    repeated signal during the clean-up is ignored.  The signal is remembered as well as
    raised: should the code it lands in swallow even a ``BaseException``, the run still ends as
    interrupted, whatever ``run()`` returns or raises afterwards."""
    received: list[Interrupted] = []
    running = True

    def ignore(signum: int, frame: object) -> None:
        pass

    def handler(signum: int, frame: object) -> None:
        for number in INTERRUPT_SIGNALS:
            signal.signal(number, ignore)
        received.append(Interrupted(signum))
        on_signal()
        if running:  # once run() has returned, the signal is only remembered
            raise received[0]

    previous = {number: signal.signal(number, handler) for number in INTERRUPT_SIGNALS}
    try:
        result = run()
        running = False
    except Interrupted as raised:
        return raised
    except Exception:
        running = False
        if received:
            return received[0]
        raise
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
    return received[0] if received else result


def conclude(
    headline: str | None, summary: list[str], *, interrupted: Interrupted | None, stopped_early: bool, done: str
) -> int:
    """Print how the run ended (``headline``) and its summary; the exit status: 128 + N after
    signal N, 1 when it ``stopped_early`` (an engine that could not go on), else 0 after ``done``."""
    for line in ([headline] if headline else []) + ["", *summary]:
        print(line)
    if interrupted is not None:
        return 128 + interrupted.signum
    if stopped_early:
        return 1
    print(done)
    return 0

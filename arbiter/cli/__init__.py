"""The ``dipole-arbiter`` command: ``match`` (:mod:`.match`: play and record a match; with
``--db``, kept in an event database like a tournament's, so it can be resumed), ``replay``
(:mod:`.replay`: check records), the event commands of :mod:`.events` (``tournament``,
``resume``, ``export``, ``ratings``), ``check-engine`` (:mod:`.check`), ``games``
(:mod:`.games`: the installed games), ``openings`` (:mod:`.openings`) and ``publish``
(:mod:`.publish`).  Each subcommand's module is imported only when it runs (or the help lists
it), so a command starts with its own imports alone.

Bad input of any kind ends in one line, ``dipole-arbiter: error: <reason>``, and status 2.
A match interrupted by Ctrl-C, SIGTERM or SIGHUP kills every engine, writes no partial game,
prints the summary of the games that finished, and exits with 128 + the signal number.  A
match stopped by its SPRT's decision has finished normally (status 0).
"""

from __future__ import annotations

import importlib
from typing import Any

import click

import gameplug
from dipole_runtime import commandline

from ..errors import ArbiterError

__all__ = ["cli", "main"]

PROG = "dipole-arbiter"

# Each subcommand: the module of this package that defines it, and the command's name there.
_COMMANDS = {
    "match": ("match", "match_command"),
    "replay": ("replay", "replay_command"),
    "tournament": ("events", "tournament_command"),
    "resume": ("events", "resume_command"),
    "export": ("events", "export_command"),
    "ratings": ("events", "ratings_command"),
    "openings": ("openings", "openings_command"),
    "check-engine": ("check", "check_engine_command"),
    "games": ("games", "games_command"),
    "publish": ("publish", "publish_command"),
}


class _Group(click.Group):
    """Loads each subcommand when it is asked for, and turns the arbiter's input errors into
    click errors, so the runner (dipole_runtime.commandline) prints them as one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        home = _COMMANDS.get(cmd_name)
        if home is None:
            return None
        command: click.Command = getattr(importlib.import_module(f".{home[0]}", __name__), home[1])
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (ArbiterError, gameplug.GameError) as error:
            raise click.UsageError(str(error)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Run refereed matches and tournaments between engine processes, check game records,
    and rate engines."""


def main() -> None:
    commandline.run(cli, PROG)

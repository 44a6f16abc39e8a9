"""Running a command line so that every failure is one clear line, never a traceback.

Shared by the project's console scripts: usage errors, and the input errors a script names,
print ``<prog>: error: <reason>`` on stderr and exit 2; Ctrl-C exits 130 quietly, a closed
output pipe 141.  click is imported only by :func:`run`: the engine's protocol loop, which
every host starts with no arguments, goes through :func:`exit_with` alone and starts without it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import click


def exit_with(function: Callable[[], object]) -> NoReturn:
    """Call ``function`` and exit with its status (an int; anything else is 0)."""
    try:
        result = function()
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(141)
    sys.exit(result if isinstance(result, int) else 0)


def run(
    command: click.Command,
    prog_name: str,
    args: list[str] | None = None,
    input_errors: tuple[type[Exception], ...] = (),
) -> NoReturn:
    """Run ``command`` as the program ``prog_name`` and exit with its status; an exception of
    ``input_errors`` (bad input the command does not turn into a click error itself, such as
    the rules' RulesError) prints as one line, as a usage error does."""
    import click

    def invoke() -> object:
        try:
            return command.main(args=args, prog_name=prog_name, standalone_mode=False)
        except click.exceptions.Exit as stop:
            return stop.exit_code
        except click.ClickException as error:
            _fail(prog_name, error.format_message(), error.exit_code)
        except click.Abort:
            _fail(prog_name, "aborted", 130)
        except input_errors as error:
            _fail(prog_name, str(error), 2)

    exit_with(invoke)


def _fail(prog_name: str, message: str, code: int) -> NoReturn:
    first_line = " ".join(message.split())
    print(f"{prog_name}: error: {first_line}", file=sys.stderr)
    sys.exit(code)

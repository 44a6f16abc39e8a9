"""The ``dipole-engine`` program (also ``python -m dipole_engine``).

With no arguments, as every host starts an engine, it speaks the protocol at once: the command
line's parser (:mod:`.cli`, click) is imported only for a subcommand or an option, since an
engine's start is paid at every game a host restarts it for.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from dipole_runtime.commandline import exit_with


def main() -> NoReturn:
    if len(sys.argv) > 1:
        from .cli import main as command_line

        command_line()
    from .uci import run_loop

    exit_with(run_loop)


if __name__ == "__main__":
    main()

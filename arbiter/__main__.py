"""``python -m arbiter`` runs the ``dipole-arbiter`` command."""

from .cli import main

if __name__ == "__main__":  # not when a game process (arbiter.pools.processes) is spawned
    main()

"""``python -m arbiter`` runs the ``dipole-arbiter`` command."""

if __name__ == "__main__":  # not when a game process imports it (arbiter.pools.processes spawns them)
    from .cli import main

    main()

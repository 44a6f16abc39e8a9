"""``python -m arbiter`` runs the ``dipole-arbiter`` command."""

from .cli import main

main()

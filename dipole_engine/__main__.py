"""``python -m dipole_engine`` runs the ``dipole-engine`` command."""

from .cli import main

main()

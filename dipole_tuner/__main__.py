"""``python -m dipole_tuner``: see :mod:`dipole_tuner.cli`."""

from .cli import main

main()

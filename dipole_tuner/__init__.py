"""Texel tuning of the engine's evaluation weights: fit them to the results of games.

The method (Peter Österlund's, for the Texel chess engine): take quiet positions from games and
label each with its game's result (1 for a White win, 0 for a Black win, from White's side);
map the static evaluation ``e`` of a position to an expected result with a logistic curve,
``1 / (1 + 10 ** (-k * e / 400))``; and choose the weights that minimise the mean squared error
between the expected results and the real ones.  ``k`` is fitted first, to the engine's own
weights, and then held: it sets how many evaluation units a winning chance is worth.

* :mod:`dipole_tuner.positions` reads games (PGN files, as ``dipole-arbiter`` writes them) and
  keeps their labelled quiet positions;
* :mod:`dipole_tuner.texel` computes the error and searches the weights (coordinate descent:
  each weight up or down by a step while the error falls, the steps halved when none helps);
* :mod:`dipole_tuner.cli` is ``python -m dipole_tuner``: one phase's weights at a time
  (``--phase``: Impasse has weights of its own for the endgame), fitted on that phase's
  positions;
* ``games/`` holds the games the engine's Impasse weights were fitted on (xz-compressed PGN,
  which the tuner reads as it is).

The evaluation is the engine's own (:func:`dipole_engine.evaluate.hooks_for`, given weights to
try), so what is tuned is what the engine plays with.  The tuner is a tool above the engine and
the arbiter: neither imports it.
"""

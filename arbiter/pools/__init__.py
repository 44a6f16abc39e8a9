"""Game pools: the workers that play a list of games, locally or on a Dask cluster."""

"""Game pools: the workers that play a list of games, locally (threads, or game processes) or on a Dask cluster."""

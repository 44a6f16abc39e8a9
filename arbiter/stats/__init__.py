"""Statistics of finished games: tallies and Elo, ratings, the SPRT and its monitor."""

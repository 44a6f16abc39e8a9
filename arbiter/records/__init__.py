"""Games as values (the opening, the moves, the end), their PGN text, written and read."""

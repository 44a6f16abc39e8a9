"""Running events: matches and tournaments, their pairings and schedules, the SQLite event
database, and what every run keeps around its game pool (PGN, logs, live files, progress)."""

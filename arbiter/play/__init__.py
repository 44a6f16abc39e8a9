"""One game: the referee that plays it between two engines, its time controls and clocks,
the resign rule, the engine specs, and the replay that checks a finished game against the rules."""

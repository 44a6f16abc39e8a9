"""Openings: the positions games start from (files, seeds, the shipped suites), which of them
an event plays in what order, and the generation of balanced suites."""

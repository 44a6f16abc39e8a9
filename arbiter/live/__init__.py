"""The live files: the games in progress, written for viewers in other processes."""

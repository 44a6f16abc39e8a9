"""Live publishing: the games in progress, written for viewers in other processes."""

"""``dipole-arbiter publish``: a static site of event databases and PGN files (:mod:`arbiter.publish.site`)."""

from __future__ import annotations

import time

import click

from ..publish.site import publish


@click.command("publish")
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@click.option("--output", "output", required=True, metavar="DIR", help="The site's directory (made if missing).")
def publish_command(inputs: tuple[str, ...], output: str) -> int:
    """Write a static site of events: event databases and/or PGN files.

    A rating list (the fit of `ratings`), a page per event, per engine and per game (a board
    that replays it, the evaluations, the clocks, the PGN), all games as one PGN and the
    results as JSON.  Plain files that work opened from disk or from any web server.  Run it
    again after more games: game pages that did not change are not written again.
    """
    started = time.monotonic()
    site = publish(inputs, output)
    print(
        f"Published {len(inputs)} source(s) to {output}: {site.written} file(s) written, "
        f"{site.unchanged} unchanged, in {time.monotonic() - started:.1f}s"
    )
    return 0

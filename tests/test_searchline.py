"""One view of an engine's search line for every page (arbiter/live/searchline.py): the live file the
watch page reads and the play page's ``thinking`` messages carry the same keys, and the score
and its bound from White's side whoever searched."""

from __future__ import annotations

from pathlib import Path

from arbiter.live.livefiles import LiveFiles
from arbiter.live.searchline import POINT_OF_VIEW, search_line
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import GameJob
from arbiter.play.timecontrol import Clock, SearchLimits
from arbiter.records.game import START
from dipole_engine.rules import BLACK, WHITE
from dipole_gui.pagestate import thinking_message
from protocol.codec import Info

KEYS = {"pov", "depth", "seldepth", "score", "bound", "nodes", "nps", "time", "pv"}


def test_scores_and_bounds_are_whites_whoever_searched() -> None:
    info = Info(
        depth=9, seldepth=14, score_cp=35, score_bound="lower", nodes=1000, nps=5000, time=200, pv=("c1-c3", "d8-b6")
    )
    white, black = search_line(info, WHITE), search_line(info, BLACK)
    assert set(white) == set(black) == KEYS and POINT_OF_VIEW == "white"
    assert white == {
        "pov": "white",
        "depth": 9,
        "seldepth": 14,
        "score": {"cp": 35},
        "bound": "lower",
        "nodes": 1000,
        "nps": 5000,
        "time": 200,
        "pv": ["c1-c3", "d8-b6"],
    }
    # Black's "at least +35 for me" is "at most -35" for White.
    assert (black["score"], black["bound"]) == ({"cp": -35}, "upper")
    assert search_line(Info(score_mate=3), BLACK)["score"] == {"mate": -3}
    assert search_line(Info(score_mate=-2), WHITE)["score"] == {"mate": -2}
    assert search_line(Info(depth=1), WHITE)["score"] is None


def test_live_file_and_thinking_message_carry_the_same_line(tmp_path: Path) -> None:
    info = Info(depth=5, score_cp=-12, score_bound="upper", nodes=77, pv=("a1-a2",))
    message = thinking_message("b", BLACK, info)
    assert message.pop("type") == "thinking" and message.pop("source") == "b"
    assert message == search_line(info, BLACK)
    publisher = LiveFiles(str(tmp_path / "live.json"), None)
    try:
        spec = EngineSpec("e", ("true",), SearchLimits(depth=1))
        job = GameJob(1, spec, spec, START, "dipole")
        game = publisher.open_game(job, None, [], {WHITE: Clock(None), BLACK: Clock(None)}, BLACK)
        game.info(info)
        assert game.snapshot()["lines"] == {"black": message}
    finally:
        publisher.close()

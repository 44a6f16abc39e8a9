"""Any installed game plays in the GUI: the board drawn from the game's own picture, moves entered
where the game says they are, the game's own question when one click fits several moves, its
result and reason (draws included) on the page.

Connect Four is the example plug-in (examples/connect_four), installed by pip as a package of
its own (the ``example_registered`` fixture): the server, its engine and the test find it by its
entry point.  Chess is gameplug_chess (the ``chess``
extra, in the test extra).  A Dipole whose pass is the player's choice, made here as a plug-in,
shows a move with no place on the board as a button.  With ``GAME_SCREENSHOTS=DIR`` the boards
are also saved there (the documentation's pictures: ``board-connect-four.png``,
``board-chess.png``, ``board-dipole.png``).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
from gui_support import click_move, gui_server, open_page, start_game
from playwright.sync_api import Browser, Page, expect

import gameplug
from gameplug import Game, State

FULL_BUT_ONE = "1yrryyr/rryyrry/yyrryyr/rryyrry/yyrryyr/rryyrry:y"  # a7 empty, Yellow to drop there: a draw
PROMOTION = "8/4P1k1/8/8/8/8/8/K7 w - - 0 1"  # e7-e8 asks which piece the pawn becomes
TIMEOUT = 120_000
STUCK = "W:W1d4:B2c5,2e5"  # White's single cannot move: a pass
CHOSEN_PASS = """
from dipole_engine.plugin import DipoleGame, RulesState
from dipole_engine.rules import new_board


class Chosen(RulesState):
    \"\"\"A Dipole position of the variant chosen-pass.\"\"\"

    def __init__(self, game, board, start=None):
        super().__init__(game, board, start)
        self.variant = game.name

    def copy(self):
        return Chosen(self.game, super().copy().board, self._start)


class ChosenPass(DipoleGame):
    name = "chosen-pass"
    title = "Dipole, the pass chosen"
    passes = False  # the pass is the player's own move: no place on the board, a button

    def variant_names(self):
        return [("chosen-pass", "Dipole whose pass the player enters")]

    def start(self, variant):
        return Chosen(self, new_board("dipole"))

    def read_position(self, variant, text):
        return Chosen(self, new_board("dipole", text))


GAME = ChosenPass()
"""


def install_into(folder: Path, distribution: str, points: list[str], *paths: Path) -> dict[str, str]:
    """The environment of a server (and its engines) that finds the game plug-ins ``points``
    (``name = module:object``) as pip leaves an installed ``distribution``: a ``dist-info``
    folder with its entry points in ``folder``, on the path with ``paths``."""
    info = folder / f"{distribution.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("\n".join([f"[{gameplug.GROUP}]", *points]) + "\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), *map(str, paths), *filter(None, [env.get("PYTHONPATH")])])
    return env


def screenshot(page: Page, name: str) -> None:
    folder = os.environ.get("GAME_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.locator(".board-area").screenshot(path=str(Path(folder) / name))


def page_state(page: Page, game: Game, variant: str) -> State:
    """The position the page shows, read by the game's rules."""
    return game.read_position(variant, page.input_value("#fen"))


def hand_move(state: State) -> str:
    """The clicking player's move: a win at once if there is one, else the drop that leaves the
    other side the fewest wins at once (a block), the most central first."""
    wins = gameplug.winning_moves(state)
    if wins:
        return wins[0]

    def wins_left(text: str) -> int:
        after = state.copy()
        after.play(after.read_move(text))
        return len(gameplug.winning_moves(after))

    legal = [state.move_text(move) for move in state.legal_moves()]
    return min(legal, key=lambda text: (wins_left(text), abs(ord(text) - ord("d"))))


@pytest.mark.slow
def test_connect_four_against_its_engine_to_the_end_then_a_draw(browser: Browser, example_registered: Any) -> None:
    engine = f"cmd={example_registered.engine}"
    game = gameplug.game("connect-four")  # (the rules the test checks the page against)
    with gui_server("--engine", engine, "name=c4", "depth=2", env=example_registered.env) as server:
        page, errors = open_page(browser, server.url)
        start_game(page, variant="connect-four", white="human", black="0", tc="depth", depth="2")
        squares = page.locator("#board rect.sq")
        expect(squares).to_have_count(42)
        assert squares.first.get_attribute("fill") == "#1f4fbf"  # the game's own board colour
        # Every legal drop is lit at once: there is nothing to pick first.
        expect(page.locator('.target-hit[data-kind="drop"]')).to_have_count(7)
        plies = 0
        while True:
            page.wait_for_function(
                "() => ['human', 'nobody'].includes(document.body.dataset.awaiting)", timeout=TIMEOUT
            )
            if page.get_attribute("body", "data-awaiting") == "nobody":
                break
            state = page_state(page, game, "connect-four")
            assert click_move(page, "connect-four", state.position_text(), hand_move(state)) is None
            plies += 1
            assert plies <= 21, "the board is full after 21 drops of each side"
        final = page_state(page, game, "connect-four")
        outcome = final.outcome()
        assert outcome.over
        expect(page.locator("body")).to_have_attribute("data-result", outcome.result)
        expect(page.locator("#banner")).to_contain_text(f"{outcome.result} · {outcome.reason}")
        discs = page.locator("#board g.piece.disc")
        expect(discs).to_have_count(len(final.picture().pieces))
        assert {discs.nth(i).get_attribute("data-colour") for i in range(discs.count())} == {"red", "gold"}
        expect(page.locator("#player-bottom .side-disc.coloured")).to_have_attribute("title", "Red")
        expect(page.locator("#player-top .side-disc.coloured")).to_have_attribute("title", "Yellow")
        screenshot(page, "board-connect-four.png")

        # A draw, said as a draw: set up the board with one cell left and fill it.
        page.select_option("#variant", "connect-four")
        page.fill("#fen", FULL_BUT_ONE)
        page.click("#setup")
        expect(page.locator('.target-hit[data-kind="drop"]')).to_have_count(1)
        assert click_move(page, "connect-four", FULL_BUT_ONE, "a") is None
        drawn = game.read_position("connect-four", FULL_BUT_ONE)
        drawn.play(drawn.read_move("a"))
        expect(page.locator("body")).to_have_attribute("data-result", "1/2-1/2")
        expect(page.locator("#banner")).to_have_text(f"1/2-1/2 · {drawn.outcome().reason}")
        assert not errors
        page.close()


def test_chess_shows_its_piece_images_and_asks_for_the_promotion(browser: Browser) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.select_option("#variant", "chess")
        page.fill("#fen", gameplug.variant("chess").start().position_text())
        page.click("#setup")
        pieces = page.locator("#board g.piece")
        expect(pieces).to_have_count(32)
        images = page.locator("#board g.piece image")
        expect(images).to_have_count(32)
        knight = page.locator('#board g.piece[data-square="g1"]')
        assert knight.get_attribute("data-kind") == "knight" and knight.get_attribute("data-colour") == "white"
        href = page.locator('#board g.piece[data-square="g1"] image').get_attribute("href") or ""
        assert href.startswith("data:image/svg+xml;base64,") and b"<svg" in base64.b64decode(href.split(",", 1)[1])
        expect(page.locator("#board .coords text")).to_have_count(16)
        assert click_move(page, "chess", gameplug.variant("chess").start().position_text(), "e2e4") is None
        expect(page.locator('#moves .move[data-ply="1"]')).to_have_text("e4")  # the game's notation (SAN)
        expect(page.locator('#board rect.sq.last[data-square="e2"]')).to_have_count(1)
        expect(page.locator('#board g.piece[data-square="e4"][data-kind="pawn"]')).to_have_count(1)
        screenshot(page, "board-chess.png")

        page.fill("#fen", PROMOTION)
        page.click("#setup")
        expect(pieces).to_have_count(3)
        assert click_move(page, "chess", PROMOTION, "e7e8n") == "Promote to which piece?"
        expect(page.locator('#board g.piece[data-square="e8"][data-kind="knight"]')).to_have_count(1)
        assert not errors
        page.close()


def test_a_move_with_no_place_on_the_board_is_a_button(browser: Browser, tmp_path: Path) -> None:
    """A game whose pass is the player's choice (a Dipole variant made here, as a plug-in) gets
    the pass as a button showing the game's label; Dipole's own forced pass never shows one."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "chosen_pass_plug.py").write_text(CHOSEN_PASS)
    env = install_into(site, "chosen-pass-plug", ["chosen-pass = chosen_pass_plug:GAME"])
    with gui_server(env=env) as server:
        page, errors = open_page(browser, server.url)
        page.select_option("#variant", "chosen-pass")
        page.fill("#fen", STUCK)
        page.click("#setup")
        button = page.locator("#offboard button")
        expect(button).to_have_text("pass (no stack can move)")
        assert button.get_attribute("data-move") == "pass"
        expect(page.locator(".target-hit")).to_have_count(0)
        button.click()
        expect(page.locator("body")).to_have_attribute("data-plies", "1")
        expect(page.locator('#moves .move[data-ply="1"]')).to_have_text("pass")
        expect(page.locator("#offboard")).to_be_hidden()

        page.select_option("#variant", "dipole")  # Dipole's pass: the referee's, no button
        page.fill("#fen", STUCK)
        page.click("#setup")
        expect(page.locator("body")).to_have_attribute("data-plies", "1")
        expect(page.locator("#offboard")).to_be_hidden()
        assert not errors
        page.close()


def test_dipole_looks_as_before(browser: Browser) -> None:
    """Stacks with their heights, the exit drawn beyond the edge, the chooser's question."""
    fen = "W:W3a7,2c1:B1e3"
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.select_option("#variant", "dipole")
        page.fill("#fen", fen)
        page.click("#setup")
        stack = page.locator('#board g.piece.checker[data-square="a7"]')
        expect(stack).to_have_attribute("data-count", "3")
        expect(stack.locator("text.height")).to_have_text("3")
        stack.click()
        exit_marker = page.locator('.target-hit[data-target="a7"][data-kind="exit"][data-edge="top"]')
        expect(exit_marker).to_have_count(1)
        board = page.locator("#board svg").bounding_box()
        marker = exit_marker.bounding_box()
        assert board is not None and marker is not None and marker["y"] < board["y"] + board["height"] * 0.07
        screenshot(page, "board-dipole.png")
        exit_marker.click()
        exits = [
            choice
            for choice in gameplug.variant("dipole").read_position(fen).move_choices()
            if choice.origin == "a7" and choice.target is not None and choice.target.kind == "exit"
        ]
        assert len(exits) > 1
        expect(page.locator("#chooser-title")).to_have_text(exits[0].question)
        expect(page.locator("#chooser-options button")).to_have_text([choice.label for choice in exits])
        assert not errors
        page.close()

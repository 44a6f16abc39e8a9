// game.js: a published game page (arbiter/publish/templates/game.html).  Rebuilds the board JSON
// of every position from #game-data (the start position, then per ply the pieces of the squares
// it changed, the side to move, the last move and the game's result, computed by
// arbiter/publish/gamepage.py with the game's rules; the piece images once) and draws it with
// board.js (the GUI's drawing, window.DipoleBoard).  Left/right arrows step, Home/End jump; the buttons and the move
// list do the same.  Nothing is put in as markup: the page's text is the server's, escaped.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const start = Object.assign({}, data.start, {images: data.images});
  const boards = [start];
  let pieces = new Map(start.pieces.map((p) => [p.square, p]));
  for (const [changes, turn, lastMove, result] of data.plies) {
    pieces = new Map(pieces);
    for (const [square, piece] of changes) {
      if (piece) pieces.set(square, piece);
      else pieces.delete(square);
    }
    boards.push(Object.assign({}, start, {pieces: Array.from(pieces.values()), turn, lastMove, result}));
  }
  const container = document.getElementById("board");
  const status = document.getElementById("status");
  const cursor = document.getElementById("cursor");
  const rows = Array.from(document.querySelectorAll("tr[data-ply]"));
  const list = document.querySelector("div.moves");
  let shown = 0;

  function show(ply) {
    shown = Math.max(0, Math.min(boards.length - 1, ply));
    const board = boards[shown];
    window.DipoleBoard.drawBoard(container, board);
    container.dataset.ply = String(shown);
    const result = board.result;
    status.textContent = shown === 0 ? "Start position"
      : `Ply ${shown} of ${boards.length - 1}: ${board.lastMove.text}` +
        (result ? ` (${result.result}: ${result.reason})` : `, ${board.sides[board.turn]} to move`);
    for (const row of rows) row.classList.toggle("current", Number(row.dataset.ply) === shown);
    const current = rows[shown - 1];
    if (current) {  // keep the current move in view in the list, without scrolling the page
      const top = current.offsetTop - current.offsetHeight, bottom = current.offsetTop + current.offsetHeight;
      if (top < list.scrollTop) list.scrollTop = Math.max(0, top);
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
    }
    cursor.setAttribute("x1", String(shown));
    cursor.setAttribute("x2", String(shown));
  }

  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(shown - 1));
  document.getElementById("next").addEventListener("click", () => show(shown + 1));
  document.getElementById("last").addEventListener("click", () => show(boards.length - 1));
  for (const button of document.querySelectorAll("button.move")) {
    button.addEventListener("click", () => show(Number(button.dataset.ply)));
  }
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const step = {ArrowRight: shown + 1, ArrowLeft: shown - 1, Home: 0, End: boards.length - 1}[event.key];
    if (step === undefined) return;
    event.preventDefault();
    show(step);
  });
  show(0);
})();

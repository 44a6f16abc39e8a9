// app.js: the page.  It draws what the server sends over the WebSocket and sends back what the
// user does; the server runs the rules and the engines (dipole_gui/session.py lists the messages).
// Text from engines, files and names goes in with textContent only, never as markup.

import { drawBoard } from "./board.js";
import { POV_NOTE, figureTexts, lineTexts, scoreText } from "./searchline.js";
import { drawEvalBar, drawEvalGraph, drawLines } from "./analysis.js";

const $ = (id) => document.getElementById(id);
// view: the ply the page steps to and shows at once, ahead of the server's answer (game.view: the
// server's); plies: the board of each ply of game number `game`, from the server's plies messages.
const state = { game: null, plies: { game: null, boards: [], images: {} }, engines: [], variants: [], flip: false, selected: null, clocksAt: 0, thinking: {}, view: 0,
                drag: null, pressed: null, swallowClick: false,
                limits: { message: 4_000_000, pgn: 2_000_000 } };  // the server's, from its hello
let socket = null;

// A message longer than the server reads would close the socket (and lose the game): say so instead.
function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  const text = JSON.stringify(message);
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > state.limits.message) return showMessage(`too much to send (${bytes} bytes; at most ${state.limits.message})`, true);
  socket.send(text);
}

// The game belongs to the server: the page names it in its URL (?game=ID), attaches to it on load
// and again, with a growing pause, whenever the socket drops (a reload or a lost network shows
// the same game, clocks run on).
let gameId = new URLSearchParams(location.search).get("game");
let retries = 0;

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = gameId ? `?game=${encodeURIComponent(gameId)}` : "";
  socket = new WebSocket(`${scheme}//${location.host}/ws${query}`);
  socket.addEventListener("open", () => {
    retries = 0;
    $("connection").textContent = "connected";
    $("connection").className = "connection ok";
  });
  socket.addEventListener("close", () => {
    const pause = Math.min(10000, 500 * 2 ** retries++);
    $("connection").textContent = `disconnected: trying again in ${Math.round(pause / 1000)} s`;
    $("connection").className = "connection bad";
    setTimeout(connect, pause);
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
}

function attached(id) {
  gameId = id;
  const url = new URL(location.href);
  url.searchParams.set("game", id);
  history.replaceState(null, "", url);
}

function receive(message) {
  switch (message.type) {
    case "hello": return hello(message);
    case "plies": return keepPlies(message);
    case "state": return showState(message);
    case "thinking": return showThinking(message);
    case "error": return showMessage(message.message, true);
    case "notice": return showMessage(message.message, false);
    case "pgn-games": return showPgnGames(message.games);
    case "pgn": return savePgn(message.text, message.name);
  }
}

// -- set-up ---------------------------------------------------------------------------------
function option(value, text) {
  const node = document.createElement("option");
  node.value = String(value);
  node.textContent = text;
  return node;
}

function hello(message) {
  attached(message.game);
  state.engines = message.engines;
  state.variants = message.variants;
  if (message.limits) state.limits = message.limits;
  $("variant").replaceChildren(...message.variants.map((v) => option(v.name, v.width ? `${v.name} (${v.width}×${v.height})` : v.name)));
  for (const id of ["white", "black"]) {
    $(id).replaceChildren(option("human", "Human"), ...message.engines.map((e) => option(e.id, e.name)));
  }
  $("analysis-engine").replaceChildren(...message.engines.map((e) => option(e.id, e.name)));
  if (message.engines.length) $("analysis-engine").value = String(message.engines.length - 1);
}

function showMessage(text, isError) {
  const box = $("message");
  box.textContent = text;
  box.className = isError ? "message error" : "message notice";
  box.hidden = false;
  clearTimeout(showMessage.timer);
  if (!isError) showMessage.timer = setTimeout(() => { box.hidden = true; }, 4000);
}

// -- the game -------------------------------------------------------------------------------
// The boards of the game's plies, so that a step shows its board at once (the page has no rules).
// A ply's board comes without the squares (the game's never change) and images (sent once).
function keepPlies(message) {
  const plies = state.plies;
  if (plies.game !== message.game) { plies.game = message.game; plies.boards = []; plies.images = {}; }
  plies.boards.length = Math.min(plies.boards.length, message.from);
  plies.boards.push(...message.boards);
  Object.assign(plies.images, message.images);
}

// The board of the ply the page shows: the server's when it agrees, else the one kept for that ply.
function shownBoard() {
  const game = state.game;
  const kept = state.plies.game === game.game ? state.plies.boards[state.view] : undefined;
  if (state.view === game.view || !kept) return game.board;
  return { ...kept, squares: game.board.squares, images: { ...state.plies.images, ...game.board.images } };
}

function showState(game) {
  const previous = state.game;
  state.game = game;
  state.clocksAt = performance.now();
  if (!previous || previous.view !== game.view || previous.moves.length !== game.moves.length) {
    state.selected = null;
    hideChooser();
  }
  if (state.selected && !game.legal.some((m) => m.origin === state.selected)) state.selected = null;
  if (!previous || previous.variant !== game.variant) $("variant").value = game.variant;
  // The form shows the game in force: what a first load finds, and each game started or opened.
  if (!previous || previous.game !== game.game) showSettings(game);
  // The server moves the view only when moves come or go; otherwise the page's own step stands.
  if (!previous || previous.game !== game.game || previous.moves.length !== game.moves.length) state.view = game.view;
  if (document.activeElement !== $("fen")) $("fen").value = game.fen;
  if (previous && game.moves.length < previous.moves.length && !game.analysing) state.thinking = {};
  drawGame();
  drawPlayers();
  drawMoves();
  drawGraph();
  drawBanner();
  drawThinking();
  $("analyse-stop").hidden = !game.analysing;
  $("analyse").hidden = game.analysing;
  const bothEngines = game.players.w.engine !== null && game.players.b.engine !== null;
  $("takeback").disabled = !!game.result || !game.moves.length || bothEngines;
  $("resign").disabled = !!game.result || bothEngines;
  if ($("resign").disabled || (previous && previous.game !== game.game)) disarmResign();
}

function showSettings(game) {
  for (const [id, side] of [["white", "w"], ["black", "b"]]) {
    const engine = game.players[side].engine;
    $(id).value = engine === null ? "human" : String(engine);
  }
  const tc = game.tc;
  $("tc-kind").value = tc.kind;
  $("tc-base").value = String(tc.base / 60);
  $("tc-inc").value = String(tc.increment);
  $("tc-movetime").value = String(tc.seconds);
  $("tc-depth").value = String(tc.depth);
  showTcFields();
}

// Resigning takes two clicks: the first arms the button for a few seconds.
function resignClicked() {
  const button = $("resign");
  if (button.dataset.armed) {
    disarmResign();
    return send({ type: "resign" });
  }
  button.dataset.armed = "1";
  button.textContent = "Confirm resign?";
  button.classList.add("armed");
  resignClicked.timer = setTimeout(disarmResign, 5000);
}

function disarmResign() {
  const button = $("resign");
  clearTimeout(resignClicked.timer);
  delete button.dataset.armed;
  button.textContent = "Resign";
  button.classList.remove("armed");
}

// The moves the user may enter on the board shown: none while it is a ply the server has not
// caught up with (its legal moves are those of its own view).
function legalHere() {
  return state.view === state.game.view ? state.game.legal : [];
}

// The targets lit up: the selected piece's, and those of the moves with nothing to pick first
// (a Connect Four drop); a move with no place on the board is not drawn.
function targetsShown() {
  return legalHere().filter((m) => m.target && (m.origin === null || (state.selected && m.origin === state.selected)));
}

function sameMarker(a, b) {
  return a.kind === b.kind && a.square === b.square && (a.edge || null) === (b.edge || null);
}

function drawGame() {
  const game = state.game;
  const shown = shownBoard();
  const board = { ...shown, flip: state.flip };
  drawBoard($("board"), board, {
    selected: state.selected,
    targets: targetsShown(),
    onSquare: clickSquare,
    onTarget: clickTarget,
    arrows: engineArrows(),
  });
  drawOffboard();
  drawEvalBar($("eval-bar"), shownScore(), state.flip);
  // What tests and tools can wait for: the ply shown, the moves played, who is awaited.
  const body = document.body.dataset;
  body.game = String(game.game);
  body.view = String(game.view);
  body.shown = String(shown === game.board ? game.view : state.view);  // the ply whose board is drawn
  body.plies = String(game.moves.length);
  body.turn = game.board.turn;
  body.awaiting = game.result || game.board.result ? "nobody" : game.legal.length ? "human" : game.thinking ? "engine" : "";
  body.result = game.result ? game.result.result : "";
}

// The engine's thinking about the position shown (null when it thinks about another one).
function thinkingHere() {
  const info = state.thinking;
  return info && info.ply !== undefined && state.game && info.ply === state.view ? info : null;
}

// Each line's first move as an arrow (the best one boldest), when the engine thinks about the board shown.
function engineArrows() {
  const info = thinkingHere();
  if (!info) return [];
  const lines = info.lines && info.lines.length ? info.lines : [info];
  return lines.filter((line) => line.arrow).map((line) => ({ ...line.arrow, rank: line.multipv || 1 }));
}

// The score the bar shows: the engine's on the position shown, else the one kept for that ply.
function shownScore() {
  const info = thinkingHere();
  if (info && info.score) return info.score;
  const game = state.game;
  if (!game) return null;
  if (state.view === 0) return game.startEval || null;
  const move = game.moves[state.view - 1];
  return move ? move.eval || move.score || null : null;
}

// A click on a square: a target of the selected piece (or of a move with nothing to pick
// first) plays there; else the square's piece is selected, if it may move.
function clickSquare(square) {
  hideChooser();
  const legal = legalHere();
  const onSquare = (m) => m.target && !m.target.edge && m.target.kind !== "remove" && m.target.square === square;
  const moves = legal.filter((m) => onSquare(m) && (m.origin === null || (state.selected && m.origin === state.selected)));
  if (moves.length) return clickTarget(moves[0]);
  state.selected = state.selected !== square && legal.some((m) => m.origin === square) ? square : null;
  drawGame();
}

function clickTarget(entry) {
  choose(legalHere().filter((m) => m.origin === entry.origin && m.target && sameMarker(m.target, entry.target)));
}

// One move: played.  Several at one click (how many checkers leave, which single crowns, which
// piece a pawn becomes): the game's question, with a button per move showing its label.
function choose(moves) {
  if (moves.length === 1) return play(moves[0].move);
  const options = $("chooser-options");
  options.replaceChildren(...moves.map(moveButton));
  $("chooser-title").textContent = moves[0].question;
  $("chooser").hidden = false;
}

// The moves with no place on the board (a pass a player chooses): a button each, beside the board.
function drawOffboard() {
  const moves = legalHere().filter((m) => !m.target);
  $("offboard").replaceChildren(...moves.map(moveButton));
  $("offboard").hidden = !moves.length;
}

function moveButton(m) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = m.label;
  button.title = m.move;
  button.dataset.move = m.move;
  button.addEventListener("click", () => play(m.move));
  return button;
}

function hideChooser() { $("chooser").hidden = true; }

function play(text) {
  hideChooser();
  state.selected = null;
  send({ type: "move", move: text });
}

function formatClock(ms) {
  if (ms === null || ms === undefined) return "";
  const negative = ms < 0;
  const total = Math.max(0, ms);
  const tenths = total < 10000;
  const seconds = Math.floor(total / 1000);
  const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}` + (tenths ? `.${Math.floor((total % 1000) / 100)}` : "");
  return negative ? "0:00.0" : text;
}

function clockValue(side) {
  const game = state.game;
  const base = game.clocks[side];
  if (base === null || base === undefined) return null;
  return game.running === side ? base - (performance.now() - state.clocksAt) : base;
}

// A side's disc: the colour of its pieces on the board when the game has its own (Connect Four's
// red), else the drawing's white or black; its title is what the game calls the side.
function sideDisc(board, side) {
  const disc = document.createElement("span");
  const piece = board.pieces.find((p) => p.side === (side === "w" ? "first" : "second"));
  const own = piece && piece.colour !== "white" && piece.colour !== "black";
  disc.className = `side-disc ${own ? "coloured" : side === "w" ? "white" : "black"}`;
  if (own) disc.style.background = piece.colour;
  disc.title = board.sides[side];
  return disc;
}

function drawPlayers() {
  const game = state.game;
  const bottom = state.flip ? "b" : "w";
  const top = bottom === "w" ? "b" : "w";
  for (const [id, side] of [["player-top", top], ["player-bottom", bottom]]) {
    const player = game.players[side];
    const box = $(id);
    box.replaceChildren();
    box.dataset.side = side;
    const disc = sideDisc(game.board, side);
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = player.name;
    const turn = document.createElement("span");
    turn.className = "to-move";
    const live = !game.result && !game.board.result && game.view === game.moves.length;
    const thinking = game.thinking === side;
    turn.textContent = live && game.board.turn === side ? (thinking ? "thinking…" : "to move") : "";
    if (game.view !== game.moves.length && game.board.turn === side && !game.board.result) turn.textContent = "to move here";
    const clock = document.createElement("span");
    clock.className = "clock" + (game.running === side ? " running" : "");
    clock.id = `clock-${side}`;
    clock.textContent = formatClock(clockValue(side));
    if (game.clocks[side] === null) clock.hidden = true;
    box.append(disc, name, turn, clock);
    box.classList.toggle("active", live && game.board.turn === side);
  }
}

function tickClocks() {
  if (!state.game || !state.game.running) return;
  for (const side of ["w", "b"]) {
    const clock = $(`clock-${side}`);
    if (clock) {
      const value = clockValue(side);
      clock.textContent = formatClock(value);
      clock.classList.toggle("low", value !== null && value < 10000);
    }
  }
}

function drawMoves() {
  const game = state.game;
  const list = $("moves");
  list.replaceChildren();
  const blackFirst = game.firstTurn === "b";
  let row = null;
  const start = document.createElement("li");
  start.className = "start" + (state.view === 0 ? " current" : "");
  start.textContent = "start";
  start.dataset.ply = "0";
  start.addEventListener("click", () => navigate(0));
  list.append(start);
  game.moves.forEach((move, index) => {
    const slot = index + (blackFirst ? 1 : 0);
    if (slot % 2 === 0 || row === null) {
      row = document.createElement("li");
      row.className = "pair";
      const number = document.createElement("span");
      number.className = "number";
      number.textContent = `${Math.floor(slot / 2) + 1}.`;
      row.append(number);
      if (slot % 2 === 1) {
        const dots = document.createElement("span");
        dots.className = "move empty";
        dots.textContent = "…";
        const blank = document.createElement("span");
        blank.className = "move-eval";
        row.append(dots, blank);
      }
      list.append(row);
    }
    const cell = document.createElement("span");
    const ply = index + 1;
    cell.className = "move" + (ply === state.view ? " current" : "") + (move.source === "forced" ? " forced" : "");
    cell.dataset.ply = String(ply);
    cell.textContent = move.text;
    cell.title = [scoreText(move.score), move.source === "forced" ? "forced pass" : ""].filter(Boolean).join(" ");
    cell.addEventListener("click", () => navigate(ply));
    // The score after the move: the analysis's where it looked at that ply, else the player engine's.
    const evaluation = document.createElement("span");
    evaluation.className = "move-eval";
    evaluation.dataset.ply = String(ply);
    evaluation.textContent = scoreText(move.eval || move.score);
    evaluation.title = move.eval ? `analysis (${POV_NOTE})` : move.score ? `the player's engine (${POV_NOTE})` : "";
    evaluation.addEventListener("click", () => navigate(ply));
    row.append(cell, evaluation);
  });
  // Scrolling needs layout: leave it to the next frame, so the move shows first.
  const current = list.querySelector(".current");
  if (current) {
    requestAnimationFrame(() => {
      const top = current.offsetTop;  // the list is the offset parent (position: relative)
      if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    });
  }
}

function drawGraph() {
  const game = state.game;
  const scores = [game.startEval || null, ...game.moves.map((move) => move.eval || move.score || null)];
  drawEvalGraph($("graph"), scores, state.view, game.firstTurn, navigate);
}

function drawBanner() {
  const game = state.game;
  const banner = $("banner");
  if (!game.result) { banner.hidden = true; return; }
  const winner = game.result.result === "1-0" ? game.players.w.name : game.result.result === "0-1" ? game.players.b.name : null;
  banner.textContent = `${game.result.result} · ${game.result.reason}` + (winner ? ` · ${winner} wins` : "");
  banner.hidden = false;
}

function showThinking(message) {
  if (message.over) return;
  state.thinking = message;
  const game = state.game;
  // The analysis's score for the ply it looks at goes to the move list and the graph at once
  // (the server keeps it too, for the next state).
  if (game && message.source === "analysis" && message.score && !message.bound && message.ply <= game.moves.length) {
    if (message.ply === 0) game.startEval = message.score;
    else game.moves[message.ply - 1].eval = message.score;
    drawMoves();
    drawGraph();
  }
  if (game) drawGame();
  drawThinking();
}

function drawThinking() {
  const info = state.thinking || {};
  const game = state.game;
  let who = "";
  if (info.source === "analysis") who = "analysis";
  else if (info.source) who = game ? game.players[info.source].name : "";
  $("thinking-who").textContent = who ? `· ${who}` : "";
  const figures = figureTexts(info);
  for (const part of ["depth", "score", "nodes", "nps", "time"]) $(`t-${part}`).textContent = figures[part] || "–";
  $("t-pov").textContent = POV_NOTE;
  const lines = info.source === "analysis" && info.lines && info.lines.length > 1 && thinkingHere() ? info.lines : [];
  $("t-pv").textContent = lines.length ? "" : lineTexts(info).pv;
  $("t-pv").hidden = lines.length > 0;
  drawLines($("lines"), lines, (moves) => send({ type: "line", moves }));
  const multipv = game && game.multipv;
  $("multipv-row").hidden = !multipv;
  if (multipv) {
    const select = $("multipv");
    if (select.options.length !== multipv.max) {
      select.replaceChildren(...Array.from({ length: multipv.max }, (_, i) => option(i + 1, String(i + 1))));
    }
    if (document.activeElement !== select) select.value = String(multipv.value);
  }
}

function showPgnGames(games) {
  const select = $("pgn-games");
  select.replaceChildren(...games.map((g) => option(g.index,
    `${g.index + 1}. ${g.white} – ${g.black}  ${g.result}  (${g.variant}, ${g.plies} plies)`)));
  $("pgn-pick-row").hidden = games.length < 1;
}

function savePgn(text, name) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-chess-pgn" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// -- controls -------------------------------------------------------------------------------
function seat(id) {
  const value = $(id).value;
  return value === "human" ? "human" : Number(value);
}

function timeControl() {
  const kind = $("tc-kind").value;
  if (kind === "clock") return { kind, base: Number($("tc-base").value) * 60, increment: Number($("tc-inc").value) };
  if (kind === "movetime") return { kind, seconds: Number($("tc-movetime").value) };
  return { kind, depth: Number($("tc-depth").value) };
}

function showTcFields() {
  const kind = $("tc-kind").value;
  for (const label of document.querySelectorAll(".tc")) label.hidden = !label.classList.contains(`tc-${kind}`);
}

// Steps at once in the move list, the graph and the board (from the boards kept per ply); the
// rest (legal moves, FEN, analysis) follows when the server answers.  Each press counts from the
// page's own view, so presses faster than a round trip add up.
function navigate(ply) {
  if (!state.game) return;
  const view = Math.max(0, Math.min(ply, state.game.moves.length));
  if (view === state.view) return;
  state.view = view;
  state.selected = null;
  hideChooser();
  drawGame();
  drawMoves();
  drawGraph();
  send({ type: "view", ply: view });
}

function flip() {
  state.flip = !state.flip;
  if (state.game) { drawGame(); drawPlayers(); }
}

function wire() {
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = { type: "new", variant: $("variant").value, white: seat("white"), black: seat("black"), tc: timeControl() };
    if ($("start-from").value === "current" && state.game) {
      if (state.game.variant !== message.variant) return showMessage("the position shown is of another variant", true);
      message.fen = state.game.fen;
    }
    send(message);
  });
  $("tc-kind").addEventListener("change", showTcFields);
  $("takeback").addEventListener("click", () => send({ type: "takeback" }));
  $("resign").addEventListener("click", resignClicked);
  $("nav-first").addEventListener("click", () => navigate(0));
  $("nav-back").addEventListener("click", () => navigate(state.view - 1));
  $("nav-forward").addEventListener("click", () => navigate(state.view + 1));
  $("nav-last").addEventListener("click", () => navigate(state.game.moves.length));
  $("flip").addEventListener("click", flip);
  $("chooser-cancel").addEventListener("click", hideChooser);
  $("analyse").addEventListener("click", () => send({ type: "analyse", engine: Number($("analysis-engine").value) }));
  $("analyse-stop").addEventListener("click", () => send({ type: "analyse-stop" }));
  $("multipv").addEventListener("change", () => send({ type: "multipv", lines: Number($("multipv").value) }));
  $("setup").addEventListener("click", () => send({ type: "setup", variant: $("variant").value, fen: $("fen").value }));
  $("copy-fen").addEventListener("click", async () => {
    const fen = state.game ? state.game.fen : "";
    $("fen").value = fen;
    try { await navigator.clipboard.writeText(fen); showMessage("FEN copied", false); }
    catch { $("fen").select(); showMessage("FEN selected: press Ctrl-C to copy", false); }
  });
  $("save-pgn").addEventListener("click", () => send({ type: "pgn-save" }));
  $("pgn-file").addEventListener("change", async () => {
    const file = $("pgn-file").files[0];
    if (!file) return;
    $("pgn-file").value = "";
    const text = file.size > state.limits.message ? null : await file.text();
    if (text === null || text.length > state.limits.pgn) {
      return showMessage(`open PGN: ${file.name} is too large (${file.size} bytes; at most ${state.limits.pgn} characters)`, true);
    }
    send({ type: "pgn-open", name: file.name, text });
  });
  $("pgn-games").addEventListener("change", () => send({ type: "pgn-pick", index: Number($("pgn-games").value) }));
  document.addEventListener("keydown", (event) => {
    if (!state.game || event.target.closest("input, select, textarea")) return;
    const view = state.view;
    const keys = { ArrowLeft: view - 1, ArrowRight: view + 1, ArrowUp: 0, Home: 0, ArrowDown: state.game.moves.length, End: state.game.moves.length };
    if (event.key in keys) { event.preventDefault(); navigate(keys[event.key]); }
    else if (event.key === "f") flip();
    else if (event.key === "Escape") { hideChooser(); state.selected = null; drawGame(); }
  });
  wireDrag();
  setInterval(tickClocks, 100);
}

// Moving by drag: press on a piece that may move, let go on one of its targets.  The drop is
// handed to the target's own click handler, so a drag and two clicks are the same move.
// Every state and thinking message draws the board anew: one that lands between a press and its
// release removes the pressed element, and the browser then loses the click (it goes to the
// board's container, or nowhere).  Such a release is handed to the element now under the pointer,
// so a click is never lost to a redraw.
function wireDrag() {
  const board = $("board");
  board.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    state.pressed = event.target;
    const piece = event.target.closest("g.piece");
    if (!state.game || !piece) return;
    const square = piece.dataset.square;
    if (!legalHere().some((m) => m.origin === square)) return;
    state.drag = { square, x: event.clientX, y: event.clientY, moving: false };
  });
  window.addEventListener("pointermove", (event) => {
    const drag = state.drag;
    if (!drag || drag.moving || Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 6) return;
    drag.moving = true;
    hideChooser();
    state.selected = drag.square;
    drawGame();
  });
  window.addEventListener("pointerup", (event) => {
    const { drag, pressed } = state;
    state.drag = null;
    state.pressed = null;
    const dragged = drag && drag.moving;
    if (!dragged && !(pressed && !pressed.isConnected)) return;
    const hit = document.elementFromPoint(event.clientX, event.clientY);
    const onBoard = hit && hit !== board && board.contains(hit);
    if (onBoard && (!dragged || hit.classList.contains("target-hit"))) hit.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    // The browser's own click that ends a drag, or that lost its element, is not a click on the board.
    state.swallowClick = true;
    setTimeout(() => { state.swallowClick = false; }, 0);
  });
  window.addEventListener("pointercancel", () => { state.drag = null; state.pressed = null; });
  board.addEventListener("click", (event) => {
    if (state.swallowClick) { event.stopPropagation(); state.swallowClick = false; }
  }, true);
}

// The workbench link, shown only when the server manages engines and events (dipole-gui --manage).
async function showWorkbenchLink() {
  try {
    const answer = await fetch("/api/engines");
    if (answer.ok) $("workbench-link").hidden = !(await answer.json()).manage;
  } catch {
    // no server: no link
  }
}

wire();
showTcFields();
connect();
showWorkbenchLink();

// watch.js: the watch page.  Draws what the server pushes over /ws/watch (dipole_gui/watch.py says
// what each message holds): the event's status, progress, standings, crosstable, finished games
// and every game in progress.  It decides nothing: it only draws, ticks the clocks of the side
// to move between two messages, and asks for a finished game to replay.
// Everything from the server (engine names, reasons, lines) is put in as text, never as markup.

import {drawBoard} from "./board.js";
import {POV_NOTE, figureNodes, lineTexts} from "./searchline.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let socket = null;
let live = {games: [], offset: 0};  // offset: this browser's clock minus the server's
let replay = null;                  // {game, ply, flip}
let state = "";                    // the event's status: waiting, running, stopped, complete, error

function node(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") element.className = value;
    else element.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

function duration(seconds) {
  seconds = Math.max(0, Math.round(seconds));
  const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
}

function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  seconds = Math.max(0, seconds);
  if (seconds < 10) return seconds.toFixed(1);
  const m = Math.floor(seconds / 60), s = Math.floor(seconds % 60);
  return `${m}:${String(s).padStart(2, "0")}`;
}

// -- connection -----------------------------------------------------------------------------
function connect(name) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/watch?event=${encodeURIComponent(name)}`);
  socket.addEventListener("open", () => { $("connection").textContent = "live"; $("connection").className = "connection ok"; });
  socket.addEventListener("close", () => {
    $("connection").textContent = "disconnected from the server";
    $("connection").className = "connection bad";
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    const handler = handlers[message.type];
    if (handler) handler(message);
  });
}

const handlers = {
  status(message) {
    const status = $("status");
    status.textContent = message.text;
    status.className = `status ${message.state}`;
    status.dataset.state = message.state;
    state = message.state;
  },
  event: showEvent,
  live: showLive,
  replay: showReplay,
  error(message) {
    const status = $("status");
    status.textContent = message.text;
  },
};

// -- the event ------------------------------------------------------------------------------
function showEvent(event) {
  $("event").hidden = false;
  for (const card of document.querySelectorAll(".event-only")) card.hidden = Boolean(event.match);  // a match: no database
  $("event-name").textContent = event.name;
  document.title = `${event.name}: watch`;
  $("progress-bar").style.width = `${event.total ? (100 * event.done) / event.total : 0}%`;
  const eta = event.eta !== null && event.eta !== undefined ? ` · ETA ${duration(event.eta)}` : "";
  $("progress-text").textContent = `${event.done} of ${event.total} games${eta}`;
  showStandings(event.ratings);
  showCrosstable(event.ratings);
  const terminations = $("terminations");
  terminations.replaceChildren(...(event.terminations.length
    ? event.terminations.map(([label, n]) => node("li", {}, `${label}: ${n}`))
    : [node("li", {class: "muted"}, "none yet")]));
  $("settings").replaceChildren(...event.settings.flatMap(([label, value]) => [node("dt", {}, label), node("dd", {}, value)]));
  showGames(event.games);
}

function showStandings(ratings) {
  const table = $("standings");
  if (!ratings) {
    table.replaceChildren(node("tr", {}, node("td", {class: "name muted"}, "No finished game yet.")));
    $("ratings-heading").textContent = "";
    $("ratings-notes").textContent = "";
    return;
  }
  $("ratings-heading").textContent = ratings.heading;
  const low = Math.min(...ratings.rows.map((r) => r.low)), high = Math.max(...ratings.rows.map((r) => r.high));
  const span = Math.max(1, high - low);
  const x = (value) => 4 + (102 * (value - low)) / span;
  const header = node("tr", {}, node("th", {}, "#"), node("th", {class: "name"}, "Engine"), node("th", {}, "Rating"),
    node("th", {}, "±95%"), node("th", {class: "bar"}, "interval"), node("th", {}, "Games"), node("th", {}, "Points"),
    node("th", {}, "%"), node("th", {class: "side-pct", title: "score as White"}, "W%"),
    node("th", {class: "side-pct", title: "score as Black"}, "B%"));
  const rows = ratings.rows.map((r) => {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 110 14");
    const line = document.createElementNS(svg.namespaceURI, "line");
    for (const [k, v] of Object.entries({class: "interval", x1: x(r.low), x2: x(r.high), y1: 7, y2: 7})) line.setAttribute(k, v);
    const dot = document.createElementNS(svg.namespaceURI, "circle");
    for (const [k, v] of Object.entries({class: "point", cx: x(r.rating), cy: 7, r: 3})) dot.setAttribute(k, v);
    svg.append(line, dot);
    const pct = (v) => (v === null || v === undefined ? "–" : v.toFixed(1));
    return node("tr", {"data-engine": r.name}, node("td", {}, r.rank),
      node("td", {class: "name", title: r.name}, r.name, r.flag ? node("span", {class: "flag"}, ` [${r.flag}]`) : null),
      node("td", {class: "rating"}, r.rating_text), node("td", {class: "error"}, r.error_text),
      node("td", {class: "bar", title: `95% interval ${r.low.toFixed(1)} .. ${r.high.toFixed(1)}`}, svg),
      node("td", {class: "games"}, r.games), node("td", {}, r.score), node("td", {}, r.percent.toFixed(1)),
      node("td", {class: "side-pct"}, pct(r.white)), node("td", {class: "side-pct"}, pct(r.black)));
  });
  table.replaceChildren(header, ...rows);
  const notes = [...(ratings.white_advantage ? [`White advantage: ${ratings.white_advantage}`] : []), ...ratings.notes];
  if (ratings.unrated.length) notes.push(`Not rated (no finished games): ${ratings.unrated.join(", ")}`);
  $("ratings-notes").textContent = notes.join(" · ");
}

function showCrosstable(ratings) {
  const table = $("crosstable");
  if (!ratings) { table.replaceChildren(); return; }
  const names = ratings.rows.map((r) => r.name);
  const header = node("tr", {}, node("th", {}, "#"), node("th", {class: "name"}, "Engine"),
    ...names.map((_, i) => node("th", {}, i + 1)));
  const rows = names.map((name, i) => node("tr", {"data-engine": name}, node("td", {}, i + 1),
    node("td", {class: "name", title: name}, name),
    ...names.map((other, j) => node("td", {class: i === j ? "self" : "cell"}, i === j ? "" : ratings.crosstable[i][j]))));
  table.replaceChildren(header, ...rows);
}

function showGames(games) {
  const header = node("tr", {}, node("th", {}, "Game"), node("th", {}, "Round"), node("th", {class: "name"}, "White"),
    node("th", {class: "name"}, "Black"), node("th", {}, "Result"), node("th", {}, "Plies"), node("th", {class: "name"}, "Reason"));
  const rows = games.slice().reverse().map((g) => {
    const row = node("tr", {class: "game", "data-number": g.number}, node("td", {}, g.number), node("td", {}, g.round ?? ""),
      node("td", {class: "name"}, g.white), node("td", {class: "name"}, g.black), node("td", {class: "result"}, g.result),
      node("td", {}, g.plies), node("td", {class: "reason"}, g.reason));
    if (replay && replay.game.number === g.number) row.classList.add("selected");
    row.addEventListener("click", () => socket.send(JSON.stringify({type: "replay", number: g.number})));
    return row;
  });
  $("games").replaceChildren(header, ...rows);
}

// -- games in progress ------------------------------------------------------------------------
function showLive(message) {
  live = {games: message.games, offset: Date.now() / 1000 - message.now};
  $("live-pov").textContent = POV_NOTE;
  const container = $("live");
  $("no-live").hidden = message.games.length > 0;
  $("no-live").textContent = state === "running" ? "No game in progress."
    : state === "complete" ? "The event is complete." : "No game in progress: the event is not running.";
  const cards = message.games.map((game) => {
    const card = node("div", {class: "live-game", "data-number": game.number, "data-plies": game.moves.length});
    const ended = game.board.result;  // the game's own ending, shown until the arbiter records it
    card.append(node("div", {class: "title"}, node("span", {}, `Game ${game.number}`),
      node("span", {"data-result": ended ? ended.result : ""},
        `${game.variant} · ply ${game.moves.length}` + (ended ? ` · ${ended.result} ${ended.reason}` : ""))));
    card.append(playerRow(game, "black"), engineLine(game, "black"));
    const board = node("div", {class: "board"});
    drawBoard(board, game.board);  // with its coordinates, as on the play page
    card.append(board, playerRow(game, "white"), engineLine(game, "white"));
    const moves = game.shown || game.moves;  // in the game's notation (SAN in chess)
    const recent = moves.slice(-8).join(" ");
    card.append(node("div", {class: "last-moves", title: moves.join(" ")}, recent ? `… ${recent}` : "start"));
    return card;
  });
  container.replaceChildren(...cards);
  tick();
}

function playerRow(game, side) {
  const clock = node("span", {class: "clock", "data-side": side, "data-number": game.number}, clockText(game.clocks[side]));
  const row = node("div", {class: `player${game.turn === side ? " active" : ""}`},
    node("span", {class: `side-disc ${side}`}), node("span", {class: "name", title: game[side]}, game[side]),
    node("span", {class: "to-move"}, game.turn === side ? "to move" : ""), clock);
  return row;
}

function engineLine(game, side) {
  const line = game.lines[side];
  const element = node("div", {class: "line", "data-side": side});
  if (line) {
    // The labelled figures, then the whole line, wrapped (never cut).
    const texts = lineTexts(line);
    const figures = node("div", {class: "figures"}, ...figureNodes(line, ["score", "depth", "nodes", "nps"]));
    const score = figures.querySelector('[data-figure="score"] .value');
    if (score) score.classList.add("score");
    element.append(figures, node("div", {class: "pv"}, texts.pv));
    element.title = `${texts.score} (${POV_NOTE})`;
  }
  return element;
}

// The clock of the side to move runs down between two messages (its thinking started at `since`).
function tick() {
  const now = Date.now() / 1000 - live.offset;
  for (const game of live.games) {
    const seconds = game.clocks[game.turn];
    if (seconds === null || seconds === undefined || state !== "running") continue;
    const shown = seconds - Math.max(0, now - game.since);
    const element = document.querySelector(`.clock[data-number="${game.number}"][data-side="${game.turn}"]`);
    if (element) {
      element.textContent = clockText(shown);
      element.classList.add("running");
      element.classList.toggle("low", shown < 10);
    }
  }
}

// -- replaying a finished game ----------------------------------------------------------------
function showReplay(game) {
  replay = {game, ply: game.moves.length, flip: false};
  $("replay").hidden = false;
  $("replay-title").textContent = `Game ${game.number}: ${game.white} – ${game.black}  ${game.result}  {${game.reason}}`;
  const list = $("replay-moves");
  const items = [node("li", {class: "start", "data-ply": 0}, "start")];
  for (let i = 0; i < game.moves.length; i += 2) {
    const pair = node("li", {class: "pair"}, node("span", {class: "number"}, `${i / 2 + 1}.`));
    for (const ply of [i, i + 1]) {
      if (ply >= game.moves.length) break;
      const move = game.moves[ply];
      pair.append(node("span", {class: "move", "data-ply": ply + 1, title: move.comment}, move.text));
    }
    items.push(pair);
  }
  list.replaceChildren(...items);
  for (const item of list.querySelectorAll("[data-ply]")) {
    item.addEventListener("click", () => goTo(Number(item.dataset.ply)));
  }
  for (const row of document.querySelectorAll("#games tr.game")) {
    row.classList.toggle("selected", Number(row.dataset.number) === game.number);
  }
  goTo(game.moves.length);
  $("replay").scrollIntoView({block: "nearest"});
}

function goTo(ply) {
  if (!replay) return;
  replay.ply = Math.max(0, Math.min(replay.game.moves.length, ply));
  // A ply's board has no squares nor images of its own: the start's squares, the game's images.
  const game = replay.game;
  const board = {...game.boards[0], ...game.boards[replay.ply], images: game.images, flip: replay.flip};
  drawBoard($("replay-board"), board);
  const list = $("replay-moves");
  for (const item of list.querySelectorAll("[data-ply]")) {
    item.classList.toggle("current", Number(item.dataset.ply) === replay.ply);
  }
  // The current move kept in sight (a long game's list scrolls; the page does not move).
  const current = list.querySelector(".current");
  if (current && (current.offsetTop < list.scrollTop || current.offsetTop + current.offsetHeight > list.scrollTop + list.clientHeight)) {
    list.scrollTop = current.offsetTop - list.clientHeight / 2;
  }
}

function setUpReplay() {
  $("r-first").addEventListener("click", () => goTo(0));
  $("r-back").addEventListener("click", () => goTo(replay.ply - 1));
  $("r-forward").addEventListener("click", () => goTo(replay.ply + 1));
  $("r-last").addEventListener("click", () => goTo(Infinity));
  $("r-flip").addEventListener("click", () => { replay.flip = !replay.flip; goTo(replay.ply); });
  $("r-close").addEventListener("click", () => { replay = null; $("replay").hidden = true; });
  document.addEventListener("keydown", (event) => {
    if (!replay || event.target.closest("input, select, textarea")) return;
    const moves = {ArrowLeft: -1, ArrowRight: 1};
    if (event.key in moves) goTo(replay.ply + moves[event.key]);
    else if (event.key === "Home") goTo(0);
    else if (event.key === "End") goTo(Infinity);
    else return;
    event.preventDefault();
  });
}

// -- choosing an event --------------------------------------------------------------------------
async function start() {
  setUpReplay();
  setInterval(tick, 200);  // redraws the running clocks only; every update comes pushed over the socket
  const answer = await fetch("/api/events");
  const {events, default: chosen} = await answer.json();
  const name = params.get("event") || (params.get("pick") ? null : chosen);
  if (name) {
    connect(name);
    return;
  }
  // No socket is opened until an event is chosen: nothing is "connecting".
  $("connection").textContent = "";
  $("status").textContent = events.length ? "Choose an event to watch" : "No event to watch on this server";
  $("status").className = "status";
  $("picker").hidden = false;
  $("no-events").hidden = events.length > 0;
  $("event-list").replaceChildren(...events.map((event) => {
    const link = node("a", {href: `/watch?event=${encodeURIComponent(event.name)}`}, event.name);
    return node("li", {}, link, event.running ? " (running)" : "");
  }));
}

start();

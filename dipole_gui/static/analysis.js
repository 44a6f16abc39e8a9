// analysis.js: what the play page draws of an engine's evaluation beyond the search line: the
// evaluation bar beside the board, the engine's lines (MultiPV) to click, the evaluation graph.
// Scores are White's view (arbiter/searchline.py); searchline.js formats them.  Nothing here
// knows the rules: a clicked line goes to the server as its moves' texts.  Text only, no markup.

import { POV_NOTE, figureNodes, lineMoves, scoreText } from "./searchline.js";

const SVG = "http://www.w3.org/2000/svg";
export const GRAPH_CLAMP = 5;  // pawns: the graph's scale runs from -5 to +5, scores beyond sit at the edge

function svgNode(name, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = String(text);
  return node;
}

// White's share of the bar in [0, 1], as Lichess draws it: a winning-chance curve, so that
// small scores stay visible and big ones do not fill the bar at once; a mate fills it.
export function whiteShare(score) {
  if (!score) return 0.5;
  if (score.mate !== undefined && score.mate !== null) return score.mate > 0 ? 1 : 0;
  return 1 / (1 + Math.exp(-score.cp / 250));
}

// The bar: White's part from the bottom (from the top when the board is flipped).
export function drawEvalBar(bar, score, flip) {
  bar.hidden = !score;
  if (!score) return;
  const share = whiteShare(score);
  const text = scoreText(score);
  bar.dataset.score = text;
  bar.dataset.white = share.toFixed(3);
  bar.title = `${text} (${POV_NOTE})`;
  bar.classList.toggle("flip", Boolean(flip));
  const fill = document.createElement("div");
  fill.className = "eval-white";
  fill.style.height = `${(share * 100).toFixed(1)}%`;
  const label = document.createElement("span");
  label.className = "eval-label " + (share >= 0.5 ? "on-white" : "on-black");
  label.textContent = text.replace(/^\+/, "");
  bar.replaceChildren(fill, label);
}

// The engine's lines, best first: the labelled figures, then the moves (in the game's notation).
// A click on a move plays the line up to it, a click elsewhere on the line plays all of it:
// onPlay(moves), the engine's own texts (pv), which the server reads.
export function drawLines(list, lines, onPlay) {
  list.replaceChildren(...lines.map((line) => {
    const item = document.createElement("li");
    item.className = "pv-line";
    item.dataset.multipv = String(line.multipv);
    item.title = "click to play this line out on the board";
    const figures = document.createElement("div");
    figures.className = "figures";
    figures.append(...figureNodes(line, ["score", "depth", "nodes"]));
    const moves = document.createElement("div");
    moves.className = "line-moves";
    const shown = lineMoves(line);
    line.pv.forEach((_, index) => {
      const text = shown[index];
      const move = document.createElement("span");
      move.className = "line-move";
      move.dataset.index = String(index);
      move.textContent = text;
      move.title = `play the line up to ${text}`;
      move.addEventListener("click", (event) => { event.stopPropagation(); onPlay(line.pv.slice(0, index + 1)); });
      moves.append(move, " ");
    });
    item.append(figures, moves);
    item.addEventListener("click", () => onPlay(line.pv));
    return item;
  }));
}

// The evaluation graph: x the ply (0 the start), y White's score in pawns clamped to
// ±GRAPH_CLAMP, with both axes labelled; a press anywhere in a ply's column jumps to it: onPick(ply).
// scores[ply] is the score after that ply (null where unknown).
export function drawEvalGraph(svg, scores, view, firstTurn, onPick) {
  const width = 400, height = 130, left = 30, right = 8, top = 8, bottom = 22;
  const plies = Math.max(scores.length - 1, 1);
  const x = (ply) => left + (ply / plies) * (width - left - right);
  const y = (pawns) => top + ((GRAPH_CLAMP - pawns) / (2 * GRAPH_CLAMP)) * (height - top - bottom);
  const pawnsOf = (score) => score.mate !== undefined && score.mate !== null ? Math.sign(score.mate) * GRAPH_CLAMP
    : Math.max(-GRAPH_CLAMP, Math.min(GRAPH_CLAMP, score.cp / 100));
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  for (const pawns of [GRAPH_CLAMP, GRAPH_CLAMP / 2, 0, -GRAPH_CLAMP / 2, -GRAPH_CLAMP]) {
    svg.append(svgNode("line", {class: pawns === 0 ? "axis" : "grid", x1: left, x2: width - right, y1: y(pawns), y2: y(pawns)}));
    svg.append(svgNode("text", {class: "tick", x: left - 4, y: y(pawns), "text-anchor": "end", "dominant-baseline": "central"},
      pawns > 0 ? `+${pawns}` : pawns));
  }
  svg.append(svgNode("line", {class: "axis", x1: left, x2: left, y1: top, y2: height - bottom}));
  // Move numbers along the bottom: about six of them, whatever the game's length.
  const moveCount = Math.ceil((plies + (firstTurn === "b" ? 1 : 0)) / 2);
  const step = Math.max(1, Math.ceil(moveCount / 6));
  for (let move = 1; move <= moveCount; move += step) {
    const ply = 2 * (move - 1) + 1 - (firstTurn === "b" ? 1 : 0);
    if (ply < 0 || ply > plies) continue;
    svg.append(svgNode("text", {class: "tick", x: x(ply), y: height - bottom + 11, "text-anchor": "middle"}, move));
  }
  svg.append(svgNode("text", {class: "axis-label", x: width - right, y: height - 3, "text-anchor": "end"}, "move"));
  svg.append(svgNode("text", {class: "axis-label", x: 2, y: height - 3}, "pawns, White's view"));
  const points = [];
  scores.forEach((score, ply) => { if (score) points.push([x(ply), y(pawnsOf(score)), ply]); });
  if (points.length > 1) {
    svg.append(svgNode("polyline", {class: "eval", points: points.map(([px, py]) => `${px},${py}`).join(" ")}));
  }
  for (const [px, py, ply] of points) {
    svg.append(svgNode("circle", {class: "point" + (ply === view ? " current" : ""), cx: px, cy: py, r: 2.6, "data-ply": ply}));
  }
  svg.append(svgNode("line", {class: "cursor", x1: x(view), x2: x(view), y1: top, y2: height - bottom}));
  // Click targets: one column per ply, over everything else.
  const column = (width - left - right) / plies;
  for (let ply = 0; ply <= plies && ply < scores.length; ply++) {
    const hit = svgNode("rect", {class: "graph-hit", x: x(ply) - column / 2, y: top, width: column, height: height - top - bottom,
      "data-ply": ply});
    const score = scores[ply];
    hit.append(svgNode("title", {}, `ply ${ply}${score ? `: ${scoreText(score)}` : ""}`));
    svg.append(hit);
  }
  // Taken on the press, by one handler of the graph's own: the graph is redrawn as the analysis
  // goes on, and a press and a release that fall on two drawings make no click at all.
  svg.onpointerdown = (event) => {
    const hit = event.button === 0 ? event.target.closest(".graph-hit") : null;
    if (hit) onPick(Number(hit.dataset.ply));
  };
}

// board.js: draws a Dipole or Impasse board as SVG.  A plain ES module with no state of its own;
// the board JSON comes from arbiter/board/__init__.py (the GUI's server, a published site's page);
// this file only draws it.  Its one home is arbiter/board/static/: the GUI serves it, publish copies it.
//
// The board JSON:
//   {variant: "dipole", game: "dipole" | "impasse", width: 8, height: 8,
//    squares: [{square: "c1", color: "w" | "b", height: 12}, ...],  // occupied squares only
//    turn: "w" | "b",                                              // the side to move
//    lastMove: {from: "c1" | null, to: "c3" | null, text: "c1-c3"} | null,
//    flip: false,                                                  // true: Black at the bottom
//    winner: null | "w" | "b"}
//
// Exports:
//   drawBoard(container, board, options = {}) -> SVGSVGElement
//     Replaces container's content by the drawn board and returns the <svg>.  options:
//       selected: "c3"                  a square to highlight (the chosen stack)
//       targets: [{to: "c5" | null, kind: "move" | "capture" | "merge" | "exit" | "remove",
//                  origin: "c3"}]        legal targets to light up; an exit (to null) is drawn
//                                        beyond the mover's far edge, a removal on its origin
//       onSquare(name)                  called with a square's name when it is clicked
//       onTarget(target)                called with the target object when a target is clicked
//       small: true                     no coordinates (thumbnails)
//       arrows: [{from: "c1", to: "c3" | null, kind: "move" | "exit" | "remove" | ..., rank: 1}]
//                                        engine moves drawn as arrows (rank 1 the boldest); an
//                                        exit points beyond the mover's far edge, a removal is a
//                                        cross on its origin
//   squareName(board, file, rank) -> "c3";  parseSquare(name) -> [file, rank]
//
// Everything that comes from outside is put in as text (textContent), never as markup.

const SVG = "http://www.w3.org/2000/svg";
const MARGIN = 0.55;  // room around the board, in squares: coordinates and exit targets
const FILES = "abcdefghijklmnopqrstuvwxyz";

function el(name, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = String(text);
  return node;
}

export function parseSquare(name) {
  return [FILES.indexOf(name[0]), Number(name.slice(1)) - 1];
}

export function squareName(board, file, rank) {
  return FILES[file] + String(rank + 1);
}

// Top-left corner of a square in SVG units (one unit per square, margins included).
function corner(board, file, rank) {
  const col = board.flip ? board.width - 1 - file : file;
  const row = board.flip ? rank : board.height - 1 - rank;
  return [MARGIN + col, MARGIN + row];
}

function center(board, name) {
  const [file, rank] = parseSquare(name);
  const [x, y] = corner(board, file, rank);
  return [x + 0.5, y + 0.5];
}

// Where an exit from `origin` is drawn: beyond the edge the mover is heading for.
function exitPoint(board, origin, color) {
  const [x] = center(board, origin);
  const up = (color === "w") !== Boolean(board.flip);
  return [x, up ? MARGIN / 2 : MARGIN + board.height + MARGIN / 2];
}

function drawStack(group, x, y, color, height, small) {
  const shown = Math.min(height, 5);
  const step = shown > 1 ? Math.min(0.09, 0.3 / (shown - 1)) : 0;
  const base = y + 0.1 + (step * (shown - 1)) / 2;
  const cls = color === "w" ? "disc white" : "disc black";
  for (let i = 0; i < shown; i++) {
    const cy = base - i * step;
    group.appendChild(el("ellipse", {class: cls + " side", cx: x, cy: cy + 0.055, rx: 0.36, ry: 0.26}));
    group.appendChild(el("ellipse", {class: cls, cx: x, cy, rx: 0.36, ry: 0.26}));
  }
  const top = base - (shown - 1) * step;
  if (color !== "w") group.appendChild(el("ellipse", {class: "disc-ring", cx: x, cy: top, rx: 0.25, ry: 0.17}));
  if (height > 1) {
    group.appendChild(el("text", {class: `height ${color === "w" ? "on-white" : "on-black"}`, x, y: top + 0.02,
      "font-size": small ? 0.42 : 0.32, "text-anchor": "middle", "dominant-baseline": "central"}, height));
  }
}

// One engine move as an arrow from its origin's centre; the head is drawn as a polygon (no
// <marker> ids, which would clash between several boards on a page).
function drawArrow(layer, board, arrow, color) {
  const rank = arrow.rank || 1;
  const attrs = {class: `arrow rank-${rank}`, "data-from": arrow.from, "data-to": arrow.to || arrow.kind};
  const [x1, y1] = center(board, arrow.from);
  if (arrow.kind === "remove" || !(arrow.to || arrow.kind === "exit")) {
    const r = 0.3;
    layer.appendChild(el("path", {...attrs, d: `M ${x1 - r} ${y1 - r} L ${x1 + r} ${y1 + r} M ${x1 + r} ${y1 - r} L ${x1 - r} ${y1 + r}`}));
    return;
  }
  const [x2, y2] = arrow.to ? center(board, arrow.to) : exitPoint(board, arrow.from, color);
  const length = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
  const width = rank === 1 ? 0.16 : 0.1;
  const head = width * 2.4;
  const [bx, by] = [x2 - ux * head, y2 - uy * head];  // where the shaft ends and the head begins
  const group = el("g", attrs);
  group.appendChild(el("line", {x1, y1, x2: bx, y2: by, "stroke-width": width, "stroke-linecap": "round"}));
  group.appendChild(el("polygon", {points: [[x2, y2], [bx - uy * head * 0.6, by + ux * head * 0.6],
    [bx + uy * head * 0.6, by - ux * head * 0.6]].map((p) => p.join(",")).join(" ")}));
  layer.appendChild(group);
}

export function drawBoard(container, board, options = {}) {
  const w = board.width, h = board.height;
  const svg = el("svg", {viewBox: `0 0 ${w + 2 * MARGIN} ${h + 2 * MARGIN}`, class: "board-svg",
    role: "img", "aria-label": `${board.variant} board, ${board.turn === "w" ? "White" : "Black"} to move`});
  svg.appendChild(el("rect", {class: "frame", x: 0, y: 0, width: w + 2 * MARGIN, height: h + 2 * MARGIN, rx: 0.12}));
  const last = board.lastMove || {};
  const squares = el("g");
  for (let rank = 0; rank < h; rank++) {
    for (let file = 0; file < w; file++) {
      const name = squareName(board, file, rank);
      const [x, y] = corner(board, file, rank);
      const dark = (file + rank) % 2 === 0;
      let cls = dark ? "sq dark" : "sq light";
      if (dark && (name === last.from || name === last.to)) cls += " last";
      if (name === options.selected) cls += " selected";
      const rect = el("rect", {class: cls, x, y, width: 1, height: 1, "data-square": name});
      if (dark && options.onSquare) rect.addEventListener("click", () => options.onSquare(name));
      squares.appendChild(rect);
    }
  }
  svg.appendChild(squares);
  if (!options.small) {
    const coords = el("g", {class: "coords"});
    for (let file = 0; file < w; file++) {
      const [x] = corner(board, file, 0);
      coords.appendChild(el("text", {x: x + 0.5, y: MARGIN + h + MARGIN / 2, "text-anchor": "middle",
        "dominant-baseline": "central", "font-size": 0.27}, FILES[file]));
    }
    for (let rank = 0; rank < h; rank++) {
      const [, y] = corner(board, 0, rank);
      coords.appendChild(el("text", {x: MARGIN / 2, y: y + 0.5, "text-anchor": "middle",
        "dominant-baseline": "central", "font-size": 0.27}, rank + 1));
    }
    svg.appendChild(coords);
  }
  const color = {};
  const stacks = el("g", {class: "stacks"});
  for (const stack of board.squares) {
    color[stack.square] = stack.color;
    const [x, y] = center(board, stack.square);
    const group = el("g", {class: "stack", "data-square": stack.square, "data-color": stack.color,
      "data-height": stack.height});
    drawStack(group, x, y, stack.color, stack.height, options.small);
    if (options.onSquare) group.addEventListener("click", () => options.onSquare(stack.square));
    stacks.appendChild(group);
  }
  svg.appendChild(stacks);
  if (options.arrows && options.arrows.length) {
    const layer = el("g", {class: "arrows"});
    for (const arrow of options.arrows) drawArrow(layer, board, arrow, color[arrow.from] || board.turn);
    svg.appendChild(layer);
  }
  if (options.targets && options.targets.length) {
    const layer = el("g", {class: "targets"});
    const seen = new Set();
    for (const target of options.targets) {
      const key = target.kind === "exit" ? "exit" : target.to;
      if (seen.has(key)) continue;  // several moves to one place: one marker, a chooser asks which
      seen.add(key);
      let x, y, shape;
      if (target.kind === "exit") {
        [x, y] = exitPoint(board, target.origin, color[target.origin] || board.turn);
        shape = el("path", {class: "target exit", d: `M ${x - 0.22} ${y + 0.1} L ${x} ${y - 0.14} L ${x + 0.22} ${y + 0.1}`});
        if ((color[target.origin] === "w") === Boolean(board.flip)) shape.setAttribute("transform", `rotate(180 ${x} ${y})`);
      } else if (target.kind === "remove") {
        [x, y] = center(board, target.origin);
        shape = el("path", {class: "target remove", d: `M ${x - 0.2} ${y - 0.2} L ${x + 0.2} ${y + 0.2} M ${x + 0.2} ${y - 0.2} L ${x - 0.2} ${y + 0.2}`});
      } else {
        [x, y] = center(board, target.to);
        shape = color[target.to] ? el("circle", {class: "target ring", cx: x, cy: y, r: 0.44})
          : el("circle", {class: "target dot", cx: x, cy: y, r: 0.14});
      }
      const hit = el("rect", {class: "target-hit", x: x - 0.5, y: y - 0.5, width: 1, height: 1,
        "data-target": target.kind === "exit" ? "off" : target.kind === "remove" ? "remove" : target.to});
      if (options.onTarget) hit.addEventListener("click", (event) => { event.stopPropagation(); options.onTarget(target); });
      layer.appendChild(shape);
      layer.appendChild(hit);
    }
    svg.appendChild(layer);
  }
  container.replaceChildren(svg);
  return svg;
}

// board.js: draws the board of any game as SVG, from the game's own picture of it.  A plain ES
// module with no state of its own; the board JSON comes from arbiter/board/__init__.py (the GUI's
// server, a published site's page); this file only draws it and knows no game.  Its one home is
// arbiter/board/static/: the GUI serves it, publish copies it.
//
// The board JSON (gameplug's picture, arbiter.board's additions):
//   {variant: "dipole", game: "dipole", width: 8, height: 8,
//    files: ["a", ...], ranks: ["1", ...],                         // names written beside the board
//    squares: [{name: "a1", file: 0, rank: 0, shade: "dark" | "light" | "#1f4fbf" | "red"}, ...],
//    pieces: [{square: "c1", side: "first" | "second", kind: "checker", colour: "white",
//              count: 12, label: null | "K", glyph: null | "♔", image: null | "i3f9a0c1e2b7d"}, ...],
//    images: {"i3f9a0c1e2b7d": "data:image/svg+xml;base64,..."},   // a piece's image, by key
//    sides: {w: "White", b: "Black"}, turn: "w" | "b",              // w: the first player
//    lastMove: {from: "c1" | null, target: MARKER | null, text: "c1-c3"} | null,
//    flip: false,                                                  // true: the second player at the bottom
//    result: null | {result: "1-0", winner: "w" | "b" | null, reason: "..."}}
// A MARKER is where a move is shown and clicked: {kind: "move" | "capture" | "merge" | "exit" |
// "remove" | "drop" | ..., square: "c3", edge: null | "top" | "bottom" | "left" | "right"}; with
// an edge it lies off the board, beyond that edge (first player's view) next to its square.
//
// Exports:
//   drawBoard(container, board, options = {}) -> SVGSVGElement
//     Replaces container's content by the drawn board and returns the <svg>.  options:
//       selected: "c3"                  a square to highlight (the chosen piece)
//       targets: [{origin: "c3" | null, target: MARKER}]   legal targets to light up (a
//                                        MoveChoice's JSON); several at one marker are drawn once
//       onSquare(name)                  called with a square's name when it (or its piece) is clicked
//       onTarget(target)                called with the clicked entry of targets
//       small: true                     no coordinates (thumbnails)
//       arrows: [{from: "c1" | null, target: MARKER, rank: 1}]   engine moves drawn as arrows
//                                        (rank 1 the boldest); to an off-board marker beyond its
//                                        edge, a removal as a cross, a move with no origin a ring
//
// Everything that comes from outside is put in as text (textContent) or attribute values, never
// as markup; an image is a data: URI, so nothing is fetched.

const SVG = "http://www.w3.org/2000/svg";
const MARGIN = 0.55;  // room around the board, in squares: coordinates and off-board targets
const OPPOSITE = {top: "bottom", bottom: "top", left: "right", right: "left"};
const ROTATION = {top: 0, right: 90, bottom: 180, left: 270};  // a chevron pointing beyond the edge

function el(name, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = String(text);
  return node;
}

// The board's geometry: each square's place by name, drawn with the board's flip.
function layout(board) {
  const places = new Map(board.squares.map((s) => [s.name, s]));
  const corner = (file, rank) => [
    MARGIN + (board.flip ? board.width - 1 - file : file),
    MARGIN + (board.flip ? rank : board.height - 1 - rank),
  ];
  const center = (name) => {
    const square = places.get(name);
    if (!square) return null;
    const [x, y] = corner(square.file, square.rank);
    return [x + 0.5, y + 0.5];
  };
  // Where an off-board marker of `name` lies: beyond `edge` (as drawn), in its column or row.
  const beyond = (name, edge) => {
    const [x, y] = center(name);
    const shown = board.flip ? OPPOSITE[edge] : edge;
    if (shown === "top") return [x, MARGIN / 2];
    if (shown === "bottom") return [x, MARGIN + board.height + MARGIN / 2];
    if (shown === "left") return [MARGIN / 2, y];
    return [MARGIN + board.width + MARGIN / 2, y];
  };
  return {places, corner, center, beyond};
}

const SHADES = new Set(["dark", "light"]);

// A stack of checkers seen slightly from above: a few discs offset upward.
function drawStack(group, x, y, piece) {
  const shown = Math.min(piece.count, 5);
  const step = shown > 1 ? Math.min(0.09, 0.3 / (shown - 1)) : 0;
  const base = y + 0.1 + (step * (shown - 1)) / 2;
  for (let i = 0; i < shown; i++) {
    const cy = base - i * step;
    group.appendChild(el("ellipse", {...discPaint(piece, true), cx: x, cy: cy + 0.055, rx: 0.36, ry: 0.26}));
    group.appendChild(el("ellipse", {...discPaint(piece, false), cx: x, cy, rx: 0.36, ry: 0.26}));
  }
  const top = base - (shown - 1) * step;
  if (piece.colour === "black") group.appendChild(el("ellipse", {class: "disc-ring", cx: x, cy: top, rx: 0.25, ry: 0.17}));
  return top;
}

// A disc's paint: the drawing's own white and black (told apart by outline too), else the game's colour.
function discPaint(piece, side) {
  const known = piece.colour === "white" || piece.colour === "black";
  const attrs = {class: `disc ${known ? piece.colour : "coloured"}${side ? " side" : ""}`};
  if (!known) attrs.fill = piece.colour;
  return attrs;
}

function drawPiece(board, group, x, y, piece, small) {
  let top = y;
  const key = piece.image;
  if (key && board.images && board.images[key]) {
    group.appendChild(el("image", {href: board.images[key], x: x - 0.45, y: y - 0.45, width: 0.9, height: 0.9}));
  } else if (piece.glyph) {
    group.appendChild(el("text", {class: `glyph ${piece.side}`, x, y: y + 0.03, fill: piece.colour,
      "font-size": 0.8, "text-anchor": "middle", "dominant-baseline": "central"}, piece.glyph));
  } else if (piece.kind === "checker" || piece.kind === "stack") {
    top = drawStack(group, x, y, piece);
  } else {
    group.appendChild(el("circle", {...discPaint(piece, false), cx: x, cy: y, r: 0.4}));
  }
  // The count (a stack's height) and the label: dark on white, light on black, outlined on a game's colour.
  const on = piece.colour === "white" ? "on-white" : piece.colour === "black" ? "on-black" : "on-colour";
  const words = [piece.count > 1 ? String(piece.count) : "", piece.label || ""].filter(Boolean).join(" ");
  if (words) {
    group.appendChild(el("text", {class: `height ${on}`, x, y: top + 0.02,
      "font-size": small ? 0.42 : 0.32, "text-anchor": "middle", "dominant-baseline": "central"}, words));
  }
}

// One engine move as an arrow from its origin's centre; the head is drawn as a polygon (no
// <marker> ids, which would clash between several boards on a page).
function drawArrow(layer, geometry, arrow) {
  const rank = arrow.rank || 1;
  const target = arrow.target;
  const attrs = {class: `arrow rank-${rank}`, "data-from": arrow.from || "", "data-to": target.square,
    "data-kind": target.kind};
  if (target.edge) attrs["data-edge"] = target.edge;
  const width = rank === 1 ? 0.16 : 0.1;
  const start = arrow.from ? geometry.center(arrow.from) : null;
  const end = target.edge ? geometry.beyond(target.square, target.edge) : geometry.center(target.square);
  if (!end) return;
  if (target.kind === "remove" || !start || (!target.edge && arrow.from === target.square)) {
    const [x, y] = end;
    const r = 0.3;
    layer.appendChild(start ? el("path", {...attrs, d: `M ${x - r} ${y - r} L ${x + r} ${y + r} M ${x + r} ${y - r} L ${x - r} ${y + r}`})
      : el("circle", {...attrs, cx: x, cy: y, r: 0.36, "stroke-width": width, fill: "none"}));
    return;
  }
  const [x1, y1] = start, [x2, y2] = end;
  const length = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
  const head = width * 2.4;
  const [bx, by] = [x2 - ux * head, y2 - uy * head];  // where the shaft ends and the head begins
  const group = el("g", attrs);
  group.appendChild(el("line", {x1, y1, x2: bx, y2: by, "stroke-width": width, "stroke-linecap": "round"}));
  group.appendChild(el("polygon", {points: [[x2, y2], [bx - uy * head * 0.6, by + ux * head * 0.6],
    [bx + uy * head * 0.6, by - ux * head * 0.6]].map((p) => p.join(",")).join(" ")}));
  layer.appendChild(group);
}

// A legal target's mark: a chevron beyond the edge for an off-board marker, a cross for a
// removal, a ring on an occupied square, a dot on an empty one.
function drawTarget(layer, geometry, entry, occupied, onTarget) {
  const target = entry.target;
  let x, y, shape;
  if (target.edge) {
    [x, y] = geometry.beyond(target.square, target.edge);
    const turn = ROTATION[geometry.flip ? OPPOSITE[target.edge] : target.edge];
    shape = el("path", {class: `target off ${target.kind}`, transform: `rotate(${turn} ${x} ${y})`,
      d: `M ${x - 0.22} ${y + 0.1} L ${x} ${y - 0.14} L ${x + 0.22} ${y + 0.1}`});
  } else if (target.kind === "remove") {
    [x, y] = geometry.center(target.square);
    shape = el("path", {class: "target remove", d: `M ${x - 0.2} ${y - 0.2} L ${x + 0.2} ${y + 0.2} M ${x + 0.2} ${y - 0.2} L ${x - 0.2} ${y + 0.2}`});
  } else {
    [x, y] = geometry.center(target.square);
    const on = SHADES.has(geometry.places.get(target.square).shade) ? "" : " on-colour";  // a game's own colour
    shape = occupied.has(target.square) ? el("circle", {class: `target ring ${target.kind}${on}`, cx: x, cy: y, r: 0.44})
      : el("circle", {class: `target dot ${target.kind}${on}`, cx: x, cy: y, r: 0.14});
  }
  const hit = el("rect", {class: "target-hit", x: x - 0.5, y: y - 0.5, width: 1, height: 1,
    "data-target": target.square, "data-kind": target.kind});
  if (target.edge) hit.setAttribute("data-edge", target.edge);
  if (onTarget) hit.addEventListener("click", (event) => { event.stopPropagation(); onTarget(entry); });
  layer.appendChild(shape);
  layer.appendChild(hit);
}

export function drawBoard(container, board, options = {}) {
  const w = board.width, h = board.height;
  const geometry = {...layout(board), flip: Boolean(board.flip)};
  const mover = board.sides ? board.sides[board.turn] : board.turn;
  const svg = el("svg", {viewBox: `0 0 ${w + 2 * MARGIN} ${h + 2 * MARGIN}`, class: "board-svg",
    role: "img", "aria-label": `${board.variant} board, ${mover} to move`});
  svg.appendChild(el("rect", {class: "frame", x: 0, y: 0, width: w + 2 * MARGIN, height: h + 2 * MARGIN, rx: 0.12}));
  const last = board.lastMove || {};
  const tinted = new Set([last.from, last.target && !last.target.edge ? last.target.square : null]);
  const squares = el("g");
  for (const square of board.squares) {
    const [x, y] = geometry.corner(square.file, square.rank);
    const known = SHADES.has(square.shade);
    let cls = known ? `sq ${square.shade}` : "sq coloured";
    if (tinted.has(square.name)) cls += " last";
    if (square.name === options.selected) cls += " selected";
    const rect = el("rect", {class: cls, x, y, width: 1, height: 1, "data-square": square.name});
    if (!known) rect.setAttribute("fill", square.shade);
    if (options.onSquare) rect.addEventListener("click", () => options.onSquare(square.name));
    squares.appendChild(rect);
  }
  svg.appendChild(squares);
  if (!options.small) {
    const coords = el("g", {class: "coords"});
    board.files.forEach((name, file) => {
      const [x] = geometry.corner(file, 0);
      coords.appendChild(el("text", {x: x + 0.5, y: MARGIN + h + MARGIN / 2, "text-anchor": "middle",
        "dominant-baseline": "central", "font-size": 0.27}, name));
    });
    board.ranks.forEach((name, rank) => {
      const [, y] = geometry.corner(0, rank);
      coords.appendChild(el("text", {x: MARGIN / 2, y: y + 0.5, "text-anchor": "middle",
        "dominant-baseline": "central", "font-size": 0.27}, name));
    });
    svg.appendChild(coords);
  }
  const occupied = new Set();
  const pieces = el("g", {class: "pieces"});
  for (const piece of board.pieces) {
    const at = geometry.center(piece.square);
    if (!at) continue;
    occupied.add(piece.square);
    const group = el("g", {class: `piece ${piece.kind}`, "data-square": piece.square, "data-side": piece.side,
      "data-kind": piece.kind, "data-colour": piece.colour, "data-count": piece.count});
    drawPiece(board, group, at[0], at[1], piece, options.small);
    if (options.onSquare) group.addEventListener("click", () => options.onSquare(piece.square));
    pieces.appendChild(group);
  }
  svg.appendChild(pieces);
  if (options.arrows && options.arrows.length) {
    const layer = el("g", {class: "arrows"});
    for (const arrow of options.arrows) drawArrow(layer, geometry, arrow);
    svg.appendChild(layer);
  }
  if (options.targets && options.targets.length) {
    const layer = el("g", {class: "targets"});
    const seen = new Set();
    for (const entry of options.targets) {
      const target = entry.target;
      if (!target || !geometry.places.has(target.square)) continue;
      const key = `${target.kind} ${target.square} ${target.edge || ""}`;
      if (seen.has(key)) continue;  // several moves to one place: one marker, a chooser asks which
      seen.add(key);
      drawTarget(layer, geometry, entry, occupied, options.onTarget);
    }
    svg.appendChild(layer);
  }
  container.replaceChildren(svg);
  return svg;
}

// searchline.js: the texts of an engine's search line, for the play page and the watch page alike.
// A line is the JSON of arbiter/live/searchline.py: {pov, depth, seldepth, score: {cp} | {mate} | null,
// bound, nodes, nps, time (ms), pv}, its score and bound always from White's side (pov "white"),
// and from the GUI's server also `shown`: the moves of pv in the game's notation (SAN in chess).
// A move's score in the play page's move list has the same {cp} | {mate} shape and side.

// Shown beside the scores on both pages, so nobody has to guess whose side a score takes.
export const POV_NOTE = "score from White's view";

const missing = (value) => value === null || value === undefined;

// "+0.35", "-1.20", "#3" (White mates in 3), "-#2" (White is mated in 2); "" without a score.
export function scoreText(score, bound = null) {
  if (!score) return "";
  let text;
  if (!missing(score.mate)) text = score.mate > 0 ? `#${score.mate}` : `-#${Math.abs(score.mate)}`;
  else if (!missing(score.cp)) text = `${score.cp >= 0 ? "+" : "-"}${(Math.abs(score.cp) / 100).toFixed(2)}`;
  else return "";
  return bound === "lower" ? `≥${text}` : bound === "upper" ? `≤${text}` : text;
}

// 999, 12k, 1.2M.
export function countText(value) {
  if (missing(value)) return "";
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(0)}k`;
  return String(value);
}

// The moves of a line as the page shows them: in the game's notation when the server wrote them so.
export function lineMoves(line) {
  return (line && (line.shown || line.pv)) || [];
}

// Every part of a line as text ("" where the engine did not say).
export function lineTexts(line) {
  line = line || {};
  return {
    score: scoreText(line.score, line.bound),
    depth: missing(line.depth) ? "" : `depth ${line.depth}${missing(line.seldepth) ? "" : "/" + line.seldepth}`,
    nodes: missing(line.nodes) ? "" : `${countText(line.nodes)} nodes`,
    nps: missing(line.nps) ? "" : `${countText(line.nps)} nodes/s`,
    time: missing(line.time) ? "" : `${(line.time / 1000).toFixed(1)} s`,
    pv: lineMoves(line).join(" "),
  };
}

// The figures of a line, each with the label it is shown under, in the order shown: every page
// that shows an engine's figures labels them so (nobody has to guess what "1.2M" counts).
export const FIGURES = [["score", "score"], ["depth", "depth"], ["nodes", "nodes"], ["nps", "speed"], ["time", "time"]];

// The figures' values without their units' words: {score: "+0.35", depth: "12/18", nodes: "1.2M",
// nps: "350k/s", time: "1.5 s"} ("" where the engine did not say).
export function figureTexts(line) {
  line = line || {};
  return {
    score: scoreText(line.score, line.bound),
    depth: missing(line.depth) ? "" : `${line.depth}${missing(line.seldepth) ? "" : "/" + line.seldepth}`,
    nodes: countText(line.nodes),
    nps: missing(line.nps) ? "" : `${countText(line.nps)}/s`,
    time: missing(line.time) ? "" : `${(line.time / 1000).toFixed(1)} s`,
  };
}

// The labelled figures as DOM: <span class="figure" data-figure="depth"><span class="label">depth</span>
// <span class="value">12/18</span></span> for each figure the line has (text only, never markup).
export function figureNodes(line, keys = FIGURES.map(([key]) => key)) {
  const texts = figureTexts(line);
  return FIGURES.filter(([key]) => keys.includes(key) && texts[key]).map(([key, label]) => {
    const figure = document.createElement("span");
    figure.className = "figure";
    figure.dataset.figure = key;
    const name = document.createElement("span");
    name.className = "label";
    name.textContent = label;
    const value = document.createElement("span");
    value.className = "value";
    value.textContent = texts[key];
    figure.append(name, " ", value);
    if (key === "score") figure.title = POV_NOTE;
    return figure;
  });
}

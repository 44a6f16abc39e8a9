// searchline.js: the texts of an engine's search line, for the play page and the watch page alike.
// A line is the JSON of arbiter/live/searchline.py: {pov, depth, seldepth, score: {cp} | {mate} | null,
// bound, nodes, nps, time (ms), pv}, its score and bound always from White's side (pov "white").
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

// Every part of a line as text ("" where the engine did not say).
export function lineTexts(line) {
  line = line || {};
  return {
    score: scoreText(line.score, line.bound),
    depth: missing(line.depth) ? "" : `depth ${line.depth}${missing(line.seldepth) ? "" : "/" + line.seldepth}`,
    nodes: missing(line.nodes) ? "" : `${countText(line.nodes)} nodes`,
    nps: missing(line.nps) ? "" : `${countText(line.nps)} nodes/s`,
    time: missing(line.time) ? "" : `${(line.time / 1000).toFixed(1)} s`,
    pv: line.pv && line.pv.length ? line.pv.join(" ") : "",
  };
}

// The workbench page (dipole-gui --manage): the engines file, the events and their ratings, through the server's JSON
// API (dipole_gui/workbench/routes.py). Every text from the server or an engine is inserted as
// text, never as markup.

const $ = (selector) => document.querySelector(selector);

function element(tag, properties = {}, children = []) {
  const node = document.createElement(tag);
  Object.assign(node, properties);
  for (const child of children) node.append(child);
  return node;
}

// The management token: taken from the URL dipole-gui --manage printed, out of the address bar
// and the tab's history at once, kept in this origin's storage and sent in a header with every
// request of the page. Never a cookie: a browser sends a host's cookies to every port of it,
// where any other server of the host reads them; this origin's storage is this port's alone.
const TOKEN_KEY = "dipole-workbench-token";
const given = new URLSearchParams(location.search).get("token");
if (given !== null) {
  localStorage.setItem(TOKEN_KEY, given);
  const url = new URL(location.href);
  url.searchParams.delete("token");
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}
const authorization = { Authorization: `Bearer ${localStorage.getItem(TOKEN_KEY) || ""}` };

async function api(path, body) {
  const answer = await fetch(path, body === undefined ? { headers: authorization } : {
    method: "POST", headers: { ...authorization, "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const text = await answer.text();
  let data;
  try { data = JSON.parse(text); } catch { data = { error: text }; }
  if (!answer.ok || data.error) throw new Error(data.error || text);
  return data;
}

// A download link of the API (a PGN, a report): fetched with the token, saved under the server's name.
async function download(event) {
  event.preventDefault();
  try {
    const answer = await fetch(event.currentTarget.href, { headers: authorization });
    if (!answer.ok) throw new Error((await answer.json()).error);
    const name = /filename="([^"]*)"/.exec(answer.headers.get("content-disposition") || "");
    const link = element("a", { href: URL.createObjectURL(await answer.blob()), download: name ? name[1] : "download" });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  } catch (error) {
    say(error.message);
  }
}

function currentTab() {
  return (location.hash || "#engines").slice(1);
}

// The page's one message line, about one tab (the one shown unless `tab` says another): shown
// there only, dropped when another tab is shown. `kind`: "error" stays until then, "busy" until
// the next message, "ok" (a confirmation) also goes by itself after CONFIRMATION_MS.
const CONFIRMATION_MS = 6000;
let sayTimer = null;

function say(text, kind = "error", tab = currentTab()) {
  const box = $("#message");
  box.textContent = text;
  box.className = kind === "error" ? "message" : "message ok";
  box.dataset.tab = tab;
  box.hidden = !text || tab !== currentTab();
  clearTimeout(sayTimer);
  if (text && kind === "ok") sayTimer = setTimeout(() => say(""), CONFIRMATION_MS);
}

// -- engines ---------------------------------------------------------------------------------
let editing = null;  // the name of the engine being edited (null: a new one)
let probed = null;   // the handshake of the engine in the form

function showEngines(data) {
  $("#engines-file").textContent = data.file;
  engineNames = data.engines.map((engine) => engine.name);
  const body = $("#engine-list tbody");
  body.replaceChildren();
  for (const engine of data.engines) {
    const settings = [...Object.entries(engine.limits), ...Object.entries(engine.options).map(([k, v]) => [`option.${k}`, v])]
      .map(([k, v]) => `${k}=${v}`).join(" ");
    const buttons = [["Edit", "edit", () => edit(engine, false)], ["Duplicate", "duplicate", () => edit(engine, true)],
      ["Check", "check", () => check(engine)], ["Remove", "remove", () => remove(engine)]]
      .map(([label, kind, action]) => {
        const button = element("button", { type: "button", textContent: label, className: `small ${kind}` });
        if (kind !== "edit") button.classList.add("secondary");
        button.addEventListener("click", action);
        return button;
      });
    const row = element("tr", {}, [element("td", { className: "name", textContent: engine.name }),
      element("td", {}, [element("code", { textContent: engine.cmd + (engine.dir ? `  (in ${engine.dir})` : "") })]),
      element("td", {}, settings ? [element("code", { textContent: settings })] : []), element("td", { className: "actions" }, buttons)]);
    row.dataset.name = engine.name;
    body.append(row);
  }
  $("#no-engines").hidden = data.engines.length > 0;
  if (data.error) say(data.error, "error", "engines");
}

function optionControl(option, value) {
  const id = `option-${option.name}`;
  let control;
  if (option.type === "spin") {
    control = element("input", { type: "number", id, step: 1 });
    if (option.min !== null) control.min = option.min;
    if (option.max !== null) control.max = option.max;
  } else if (option.type === "check") {
    control = element("input", { type: "checkbox", id });
  } else if (option.type === "combo") {
    control = element("select", { id }, option.vars.map((v) => element("option", { value: v, textContent: v })));
  } else if (option.type === "button") {
    control = element("input", { type: "checkbox", id, title: "press it (setoption) when the engine starts" });
  } else {
    control = element("input", { type: "text", id });
  }
  const shown = value ?? (option.type === "button" ? undefined : option.default);
  if (option.type === "check" || option.type === "button") control.checked = String(shown) === "true";
  else if (shown !== null && shown !== undefined) control.value = String(shown);
  control.dataset.default = String(option.default ?? "");
  const label = element("label", { htmlFor: id, textContent: option.type === "button" ? `${option.name} (press)` : option.name });
  const row = element("div", { className: "option" }, [label, control]);
  row.dataset.name = option.name;
  row.dataset.type = option.type;
  if (option.type === "spin") row.append(element("span", { className: "bounds", textContent: `${option.min} to ${option.max}, default ${option.default}` }));
  if (option.type === "combo") row.append(element("span", { className: "bounds", textContent: `one of ${option.vars.join(", ")}` }));
  return row;
}

async function connect(values = {}) {
  say("");
  $("#connect").disabled = true;
  try {
    probed = await api("/api/workbench/probe", { cmd: $("#cmd").value, dir: $("#dir").value });
  } catch (error) {
    say(error.message);
    return;
  } finally {
    $("#connect").disabled = false;
  }
  $("#engine-id").hidden = false;
  $("#engine-id").textContent = `${probed.name || "(no id name)"}, by ${probed.author || "(no id author)"}: ${probed.options.length} options`;
  if (!$("#name").value) $("#name").value = probed.name || $("#cmd").value.split(/\s+/).pop().replace(/\.py$/, "");
  // UCI_Variant is set by the arbiter from the event's variant: not an option to keep.
  $("#options").replaceChildren(...probed.options.filter((o) => o.name.toLowerCase() !== "uci_variant")
    .map((o) => optionControl(o, values[o.name])));
  $("#engine-settings").hidden = false;
}

function formEngine() {
  const options = {};
  for (const row of document.querySelectorAll("#options .option")) {
    const control = row.querySelector("input, select");
    const type = row.dataset.type;
    if (type === "button") { if (control.checked) options[row.dataset.name] = ""; continue; }
    const value = type === "check" ? String(control.checked) : control.value;
    if (value !== control.dataset.default) options[row.dataset.name] = value;  // only what differs
  }
  const limits = $("#depth").value ? { depth: $("#depth").value } : {};
  return { name: $("#name").value, cmd: $("#cmd").value, dir: $("#dir").value, limits, options };
}

function resetForm() {
  editing = null;
  probed = null;
  $("#engine-form").reset();
  $("#form-title").textContent = "Add an engine";
  $("#engine-settings").hidden = true;
  $("#engine-id").hidden = true;
  $("#options").replaceChildren();
}

async function edit(engine, duplicate) {
  resetForm();
  editing = duplicate ? null : engine.name;
  $("#form-title").textContent = duplicate ? `Duplicate ${engine.name}` : `Edit ${engine.name}`;
  $("#cmd").value = engine.cmd;
  $("#dir").value = engine.dir;
  $("#name").value = duplicate ? `${engine.name}-2` : engine.name;
  $("#depth").value = engine.limits.depth || "";
  await connect(engine.options);
}

async function save(event) {
  event.preventDefault();
  try {
    showEngines(await api("/api/workbench/engines/save", { engine: formEngine(), original: editing }));
    say(`Saved ${$("#name").value}`, "ok");
    resetForm();
  } catch (error) {
    say(error.message);
  }
}

async function remove(engine) {
  try {
    showEngines(await api("/api/workbench/engines/remove", { name: engine.name }));
    say(`Removed ${engine.name}`, "ok");
  } catch (error) {
    say(error.message);
  }
}

async function check(engine) {
  $("#check").hidden = false;
  $("#check-title").textContent = `check-engine ${engine.name}: running…`;
  $("#check-output").textContent = "";
  document.body.dataset.check = "running";
  try {
    const result = await api("/api/workbench/engines/check", { name: engine.name, timeout: $("#check-timeout").value });
    $("#check-output").textContent = result.lines.join("\n");
    $("#check-title").textContent = `check-engine ${engine.name}: ${result.status === 0 ? "passed" : "failed"}`;
  } catch (error) {
    $("#check-title").textContent = `check-engine ${engine.name}: could not run`;
    $("#check-output").textContent = error.message;
  }
  document.body.dataset.check = "done";
}

async function loadEngines() {
  try {
    showEngines(await api("/api/workbench/engines"));
  } catch (error) {
    say(error.message, "error", "engines");
  }
}

// -- events ----------------------------------------------------------------------------------
let engineNames = [];
const FIRST_VARIANT = "dipole";  // the project's own game is the form's first choice when installed

async function loadForm() {
  const info = await api("/api/workbench/form");
  $("#ev-variant").replaceChildren(...info.variants.map((v) => element("option", { value: v, textContent: v })));
  if (info.variants.includes(FIRST_VARIANT)) $("#ev-variant").value = FIRST_VARIANT;
  $("#ev-format").replaceChildren(...info.formats.map((f) => element("option", { value: f, textContent: f })));
  $("#ev-suites").replaceChildren(...info.suites.map((s) => element("option", { value: s })));
  $("#ev-cluster-label").hidden = !info.cluster;
  showFormat();
}

// A match (dipole-arbiter match) has no rounds and counts its games in all.
function showFormat() {
  const match = $("#ev-format").value === "match";
  $("#ev-rounds").disabled = match;
  $("#ev-games-label").textContent = match ? "Games in all" : "Games per pairing";
}

function showEnginePicks() {
  const box = $("#ev-engines");
  const picked = new Set([...box.querySelectorAll("input:checked")].map((input) => input.value));
  box.replaceChildren(...engineNames.map((name) => {
    const input = element("input", { type: "checkbox", value: name, checked: picked.has(name) });
    return element("label", {}, [input, ` ${name}`]);
  }));
  if (!engineNames.length) box.append(element("span", { className: "note", textContent: "No engine yet: add them on the engines page." }));
}

async function startEvent(event) {
  event.preventDefault();
  const value = (id) => $(id).value;
  const form = {
    name: value("#ev-name"), engines: [...document.querySelectorAll("#ev-engines input:checked")].map((i) => i.value),
    variant: value("#ev-variant"), format: value("#ev-format"), games: value("#ev-games"),
    rounds: $("#ev-rounds").disabled ? "" : value("#ev-rounds"),
    tc: value("#ev-tc"), st: value("#ev-st"), depth: value("#ev-depth"), concurrency: value("#ev-concurrency"),
    nodes: value("#ev-nodes"), timemargin: value("#ev-timemargin"), ponder: $("#ev-ponder").checked,
    openings_order: value("#ev-openings-order"), recover: value("#ev-recover"), log: value("#ev-log"),
    handshake_timeout: value("#ev-handshake-timeout"), stall_timeout: value("#ev-stall-timeout"),
    openings: value("#ev-openings"), openings_value: value("#ev-openings-value"), seed: value("#ev-seed"),
    resign_movecount: value("#ev-resign-movecount"), resign_score: value("#ev-resign-score"), sprt: value("#ev-sprt"),
    draw: value("#ev-draw"), maxmoves: value("#ev-maxmoves"),
    cluster: $("#ev-cluster-label").hidden ? "" : value("#ev-cluster"),
  };
  $("#ev-start").disabled = true;
  say("Starting…", "busy");
  try {
    const started = await api("/api/workbench/events/start", form);
    say(`Started ${started.name}`, "ok", "events");
    location.hash = "#events";
  } catch (error) {
    say(error.message, "error", "new-event");
  } finally {
    $("#ev-start").disabled = false;
  }
}

async function eventAction(kind, name) {
  try {
    await api(`/api/workbench/events/${kind}`, { name });
    say(`${kind === "stop" ? "Stopping" : "Resumed"} ${name}`, "ok");
  } catch (error) {
    say(error.message);
  }
  loadEvents();
}

function showEvents(data) {
  $("#events-dir").textContent = data.directory;
  const body = $("#event-list tbody");
  body.replaceChildren();
  for (const event of data.events) {
    const query = `name=${encodeURIComponent(event.name)}`;
    const actions = [];
    const button = (label, kind) => {
      const node = element("button", { type: "button", textContent: label, className: `small ${kind}` });
      node.addEventListener("click", () => eventAction(kind, event.name));
      actions.push(node);
    };
    if (event.state === "running") button("Stop", "stop");
    if (event.state === "interrupted") button("Resume", "resume");
    actions.push(element("a", { href: `/watch?event=${encodeURIComponent(event.name)}`, textContent: "Watch", className: "small watch" }));
    if (event.state !== "error") {
      actions.push(element("a", { href: `/api/workbench/events/pgn?${query}`, textContent: "PGN", className: "small pgn" }));
      actions.push(element("a", { href: `/api/workbench/events/report?${query}`, textContent: "Report", className: "small report" }));
      for (const link of actions.slice(-2)) link.addEventListener("click", download);
    }
    const leader = event.leader ? `${event.leader.name} (${event.leader.score}/${event.leader.games})` : "";
    const progress = event.state === "error" ? [element("span", { textContent: event.error })]
      : [element("progress", { max: event.total, value: event.done }), ` ${event.done} / ${event.total}`];
    const title = element("td", { className: "name" }, [element("strong", { textContent: event.name }),
      element("div", { className: "note", textContent: event.state === "error" ? "" :
        `${event.format}, ${event.variant}: ${event.engines.join(", ")}` })]);
    const leaderCell = element("td", { className: "leader", textContent: leader });
    leaderCell.dataset.label = "leader";
    const row = element("tr", {}, [title,
      element("td", {}, [element("span", { className: `state ${event.state}`, textContent: event.state }),
        ...(event.decision ? [element("div", { className: "note decision", textContent: `SPRT ${event.decision}` })] : [])]),
      element("td", { className: "progress" }, progress), leaderCell,
      element("td", { className: "actions" }, actions)]);
    row.dataset.name = event.name;
    row.dataset.state = event.state;
    row.dataset.done = String(event.done ?? "");
    body.append(row);
  }
  $("#no-events").hidden = data.events.length > 0;
}

async function loadEvents() {
  try {
    showEvents(await api("/api/workbench/events"));
  } catch (error) {
    say(error.message);
  }
}

// -- ratings ---------------------------------------------------------------------------------
let ratings = null;

function fillRows(selector, rows) {
  $(`${selector} tbody`).replaceChildren(...rows.map((cells) => element("tr", {}, cells.map((text) => element("td", { textContent: String(text) })))));
}

function showRecord(name) {
  const record = ratings.engines[name];
  $("#engine-record").hidden = false;
  $("#engine-record").dataset.engine = name;
  $("#record-title").textContent = `${name}: ${record.games.length} games`;
  const percent = (side) => side.percent === null ? "" : `${side.percent.toFixed(1)} %`;
  fillRows("#record-colours", [["White", record.white.games, record.white.points, percent(record.white)],
    ["Black", record.black.games, record.black.points, percent(record.black)]]);
  fillRows("#record-opponents", record.opponents.map((o) => [o.name, o.games, o.points, o.white, o.black]));
  fillRows("#record-games", record.games.map((g) => [g.event, g.number, g.white, g.black, g.result, g.termination]));
  for (const row of document.querySelectorAll("#ratings-table tbody tr")) row.classList.toggle("selected", row.dataset.engine === name);
  $("#engine-record").scrollIntoView({ block: "nearest" });
}

// One engine's line of the standings: the server gives every text and where the interval lies.
function standingsRow(r) {
  // Positions through the CSSOM: the Content-Security-Policy allows no inline style attribute.
  const bar = element("div", { className: "chart-bar" });
  bar.style.left = `${r.bar.left}%`;
  bar.style.width = `${r.bar.right - r.bar.left}%`;
  const dot = element("div", { className: "chart-dot" });
  dot.style.left = `${r.bar.dot}%`;
  const name = element("button", { type: "button", className: "link", textContent: r.name });
  const cell = (className, textContent, label = "") => {
    const node = element("td", { className, textContent });
    if (label) node.dataset.label = label;  // shown before the value where the table is drawn as cards
    return node;
  };
  const row = element("tr", { className: "chart-row" }, [cell("num", String(r.rank)),
    element("td", { className: "name" }, [name, ...(r.flag ? [element("span", { className: "flag", textContent: ` [${r.flag}]` })] : [])]),
    cell("num rating", `${r.rating} ± ${r.error}`),
    element("td", { className: "chart", title: `95% interval ${r.interval}` },
      [element("div", { className: "chart-track" }, [bar, dot]), element("div", { className: "interval", textContent: r.interval })]),
    cell("num games", r.games, "games"), cell("num score", r.score, "score"), cell("num side white", r.white, "as White"),
    cell("num side black", r.black, "as Black"), cell("num opponents", r.opponents, "opp. avg")]);
  row.dataset.engine = r.name;
  row.dataset.rating = r.rating;
  row.dataset.error = r.error;
  row.addEventListener("click", () => showRecord(r.name));
  return row;
}

async function loadRatings() {
  try {
    ratings = await api("/api/workbench/ratings");
  } catch (error) {
    say(error.message);
    return;
  }
  $("#ratings-games").textContent = `${ratings.games} finished games`;
  $("#ratings-heading").textContent = ratings.heading || "";
  $("#ratings-empty").textContent = ratings.empty || "";
  $("#ratings-empty").hidden = !ratings.empty;
  $("#ratings-table").hidden = !ratings.standings;
  $("#ratings-command").hidden = !ratings.text;
  $("#ratings-text").textContent = ratings.text || "";
  $("#ratings-notes").replaceChildren(...(ratings.notes || []).map((line) => element("li", { textContent: line })));
  $("#ratings-table tbody").replaceChildren(...(ratings.standings || []).map(standingsRow));
  document.body.dataset.ratings = "shown";
}

// -- tabs ------------------------------------------------------------------------------------
function showTab() {
  const tab = currentTab();
  const box = $("#message");
  if (box.dataset.tab === tab) box.hidden = !box.textContent;
  else say("");  // a message about another tab
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== `tab-${tab}`;
  for (const link of document.querySelectorAll(".tabs a[data-tab]")) link.classList.toggle("active", link.dataset.tab === tab);
  if (tab === "events") loadEvents();
  if (tab === "new-event") showEnginePicks();
  if (tab === "ratings") loadRatings();
}

$("#connect").addEventListener("click", () => connect());
$("#engine-form").addEventListener("submit", save);
$("#cancel").addEventListener("click", resetForm);
$("#event-form").addEventListener("submit", startEvent);
$("#ev-format").addEventListener("change", showFormat);
window.addEventListener("hashchange", showTab);
setInterval(() => { if (location.hash === "#events") loadEvents(); }, 1000);
loadForm().catch((error) => say(error.message, "error", "new-event"));
loadEngines().then(showTab);

// The workbench page (dipole-gui --manage): the engines file, edited through the server's JSON
// API (dipole_gui/workbench/routes.py). Every text from the server or an engine is inserted as
// text, never as markup.

const $ = (selector) => document.querySelector(selector);

function element(tag, properties = {}, children = []) {
  const node = document.createElement(tag);
  Object.assign(node, properties);
  for (const child of children) node.append(child);
  return node;
}

async function api(path, body) {
  const answer = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const text = await answer.text();
  let data;
  try { data = JSON.parse(text); } catch { data = { error: text }; }
  if (!answer.ok || data.error) throw new Error(data.error || text);
  return data;
}

function say(text, ok = false) {
  const box = $("#message");
  box.textContent = text;
  box.className = ok ? "message ok" : "message";
  box.hidden = !text;
}

// -- engines ---------------------------------------------------------------------------------
let editing = null;  // the name of the engine being edited (null: a new one)
let probed = null;   // the handshake of the engine in the form

function showEngines(data) {
  $("#engines-file").textContent = data.file;
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
    const row = element("tr", {}, [element("td", { textContent: engine.name }),
      element("td", {}, [element("code", { textContent: engine.cmd + (engine.dir ? `  (in ${engine.dir})` : "") })]),
      element("td", {}, [element("code", { textContent: settings })]), element("td", {}, buttons)]);
    row.dataset.name = engine.name;
    body.append(row);
  }
  $("#no-engines").hidden = data.engines.length > 0;
  if (data.error) say(data.error);
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
    say(`Saved ${$("#name").value}`, true);
    resetForm();
  } catch (error) {
    say(error.message);
  }
}

async function remove(engine) {
  try {
    showEngines(await api("/api/workbench/engines/remove", { name: engine.name }));
    say(`Removed ${engine.name}`, true);
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
    say(error.message);
  }
}

$("#connect").addEventListener("click", () => connect());
$("#engine-form").addEventListener("submit", save);
$("#cancel").addEventListener("click", resetForm);
for (const link of document.querySelectorAll(".tabs a[data-tab]")) link.classList.add("active");
loadEngines();

"use strict";
// The page: one editor per file, under it each workload the file holds
// (its what-ifs, notices, figures, kubectl's line, metrics and events), the
// shared timeline above. Every answer of the server replaces what is shown,
// an error clears it: the page never shows a result beside text it is not of.
const $ = (id) => document.getElementById(id);
const state = { texts: [], sources: [], view: null, timer: null, waiting: false, cursor: 0, asked: 0, inflight: 0, notes: {}, open: {} };

// ---- The scenarios' text: editors, the URL ---------------------------------------------------

function encodeState() {
  const json = JSON.stringify({ texts: state.texts, sources: state.sources });
  return btoa(unescape(encodeURIComponent(json)));
}
function decodeState(hash) {
  try {
    const s = JSON.parse(decodeURIComponent(escape(atob(hash))));
    if (Array.isArray(s.texts) && s.texts.every((t) => typeof t === "string")) return s;
  } catch (e) { /* a damaged link opens the defaults */ }
  return null;
}

// `kinds`: the workloads a what-if fits, a Pod's or a Service's. The server
// edits the text in its own language (`/api/whatif`): TOML keys, or a
// manifest's podsim.dev/ annotations and Kubernetes fields.
const WHATIFS = [
  { id: "delete-now", label: "delete now", title: "kubectl delete at the cursor's time (stop_at)", kinds: ["pod"] },
  { id: "fail-init", label: "fail the first init container once", title: "its first attempt exits 1 (fails = 1)", kinds: ["pod"] },
  { id: "proxy-layout", label: "proxy: native sidecar ⇄ side by side", title: "the proxy as a native sidecar (an initContainers entry with restartPolicy: Always) or beside the app", kinds: ["pod", "service"] },
  { id: "pre-stop", label: "add a 5 s preStop", title: "a 5 s preStop on the first app that is not the proxy", kinds: ["pod", "service"] },
  { id: "connections", label: "connections: new ⇄ keep-alive", title: "traffic.connections: one per request, or kept alive in a pool", kinds: ["service"] },
  { id: "propagation", label: "propagation: tiny → medium → large", title: "service.propagation: how late each node's kube-proxy hears of a change", kinds: ["service"] },
];

function renderEditors() {
  const root = $("scenarios");
  root.replaceChildren();
  state.texts.forEach((text, i) => {
    const box = document.createElement("section");
    box.className = "box";
    box.dataset.scenario = i;
    box.innerHTML = `<h2><span class="title">scenario ${i + 1}</span> <small class="source"></small></h2>
      <textarea spellcheck="false" aria-label="scenario ${i + 1}: TOML or a manifest"></textarea>
      <div class="workloads"></div>`;
    box.querySelector(".source").textContent = state.sources[i] || "";
    const area = box.querySelector("textarea");
    area.value = text;
    area.addEventListener("input", () => { state.texts[i] = area.value; forgetNotes(i); schedule(); });
    root.append(box);
  });
}

function forgetNotes(i) { for (const key of Object.keys(state.notes)) if (key.startsWith(`${i}/`)) delete state.notes[key]; }

// ---- Talking to the server: busy while asked, its errors shown ----------------------------------

/** POSTs `body` as JSON; the answer, or an Error saying the status and the server's message. */
async function post(url, body) {
  state.inflight += 1;
  busy();
  try {
    const r = await fetch(url, { method: "POST", body: JSON.stringify(body) });
    let answer = null;
    try { answer = await r.json(); } catch (e) { /* not JSON: the status says it */ }
    if (!r.ok) {
      const e = answer && answer.error;
      const message = e && e.message ? (e.line ? `line ${e.line}: ` : "") + e.message : r.statusText;
      throw new Error(`the server answered ${r.status}: ${message}`);
    }
    return answer;
  } catch (e) {
    throw e instanceof TypeError ? new Error(`the server did not answer (${e.message})`) : e;
  } finally {
    state.inflight -= 1;
    busy();
  }
}

/** Busy from the first keystroke of a change until its answer is drawn. */
function busy() {
  const on = state.inflight > 0 || state.waiting;
  if (on) document.body.dataset.busy = ""; else delete document.body.dataset.busy;
  $("scenarios").setAttribute("aria-busy", on);
  const status = $("status");
  if (status.classList.contains("error")) return;
  status.className = on ? "busy" : "";
  status.textContent = on ? "simulating…" : "";
}

function showError(message) {
  const status = $("status");
  status.className = "error";
  status.textContent = `${message}. Nothing is shown until it answers again.`;
}

// ---- Running: /api/view, debounced; only the last answer counts --------------------------------

function schedule() {
  clearTimeout(state.timer);
  state.timer = setTimeout(simulate, 300);
  state.waiting = true;
  busy();
}

async function simulate() {
  clearTimeout(state.timer);
  state.waiting = false;
  history.replaceState(null, "", "#" + encodeState());
  const asked = ++state.asked;
  let answer = null, error = null;
  try {
    answer = await post("/api/view", { scenarios: state.texts });
  } catch (e) {
    error = e;
  }
  if (asked !== state.asked) return; // a later request is on its way: this answer is stale
  state.view = answer;
  $("status").className = "";
  if (error) showError(error.message);
  busy();
  draw();
  document.dispatchEvent(new Event("simulated"));
}

const fmt = (ms) => (ms === null || ms === undefined ? "—" : `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s`);
const section = (i, j) => document.querySelector(`.workload[data-scenario="${i}"][data-workload="${j}"]`);

function draw() {
  const view = state.view;
  // What is open stays open while the text is typed.
  document.querySelectorAll(".workload details").forEach((d) => { state.open[d.dataset.key] = d.open; });
  document.querySelectorAll(".box").forEach((box, i) => {
    const runs = view ? view.runs.filter((r) => r.scenario === i) : [];
    box.querySelector(".workloads").replaceChildren(...runs.map((run) => workload(run, box)));
    // One workload: the file's title names it already.
    if (runs.length === 1) box.querySelector(".workload .name").hidden = true;
    const first = runs.find((r) => r.document);
    box.querySelector(".title").textContent = runs.length > 1 ? `${runs.length} workloads` : first ? first.document.name : `scenario ${i + 1}`;
  });
  $("service-pictures").innerHTML = view ? view.runs.filter((r) => r.service_svg).map((r) => r.service_svg).join("") : "";
  // The axis hints: the paths the server's key registry offers for the first workload that ran.
  const hinted = view && view.runs.find((r) => r.axes);
  if (hinted) $("axis-paths").replaceChildren(...hinted.axes.map((p) => Object.assign(document.createElement("option"), { value: p })));
  const pic = $("picture");
  pic.querySelectorAll("svg").forEach((s) => s.remove());
  if (view && view.picture) {
    pic.insertAdjacentHTML("afterbegin", view.picture.svg);
    $("cursor").max = view.picture.axis.end_ms;
    if (state.cursor > view.picture.axis.end_ms) state.cursor = view.picture.axis.end_ms;
  }
  $("cursor-line").hidden = !(view && view.picture);
  hints();
  moveCursor(state.cursor);
}

/** A picture wider than the screen scrolls; the hint under it says so. */
function hints() {
  for (const id of ["picture", "service-pictures"]) {
    const el = $(id);
    $(`${id}-hint`).hidden = !(el.querySelector("svg") && el.scrollWidth > el.clientWidth + 1);
  }
}
window.addEventListener("resize", hints);

/** One workload's section: its what-ifs, and its result, refusal or why it was not run. */
function workload(run, box) {
  const el = document.createElement("div");
  el.className = "workload";
  el.dataset.scenario = run.scenario;
  el.dataset.workload = run.workload;
  el.innerHTML = `<h3 class="name"></h3>
    <div class="whatifs" role="group" aria-label="what-ifs"></div>
    <div class="note" role="status"></div>
    <div class="error" role="alert"></div>
    <ul class="notices" aria-label="notices: what podsim assumed"></ul>
    <div class="figures" aria-live="polite"></div>
    <div class="advice" aria-live="polite"></div>
    <div class="kubectl" aria-label="kubectl get pod at the cursor"></div>
    <details data-key="${run.scenario}/${run.workload}/metrics"><summary>metrics</summary><div class="metrics"></div></details>
    <details data-key="${run.scenario}/${run.workload}/events"><summary>events</summary><div class="events"></div></details>`;
  el.querySelectorAll("details").forEach((d) => { d.open = !!state.open[d.dataset.key]; });
  const area = box.querySelector("textarea");
  const note = state.notes[`${run.scenario}/${run.workload}`];
  if (note) { el.querySelector(".note").textContent = note.text; el.querySelector(".note").classList.add(note.kind); }
  if (run.left_out) {
    el.querySelector(".note").textContent = run.left_out;
    el.querySelector(".note").classList.add("left-out");
    el.querySelector(".kubectl").hidden = true;
    el.querySelectorAll("details").forEach((d) => { d.hidden = true; });
    return el;
  }
  if (run.error) {
    const e = run.error, err = el.querySelector(".error");
    err.append(lineLink(area, e.line, e.column, e.message));
    err.dataset.line = e.line || "";
    el.querySelector(".kubectl").hidden = true;
    return el;
  }
  const doc = run.document, service = !!run.service_svg;
  el.querySelector(".name").textContent = doc.name;
  for (const w of WHATIFS.filter((w) => w.kinds.includes(service ? "service" : "pod"))) {
    const b = document.createElement("button");
    b.textContent = w.label;
    b.title = w.title;
    b.dataset.whatif = w.id;
    b.addEventListener("click", () => whatIf(run.scenario, run.workload, w));
    el.querySelector(".whatifs").append(b);
  }
  if (service) adviseControls(run, el);
  el.querySelector(".notices").append(...(run.notices || []).map((n) => {
    const li = document.createElement("li");
    li.append(lineLink(area, n.line, n.column, n.message));
    return li;
  }));
  const figures = el.querySelector(".figures");
  if (service) {
    const m = doc.metrics;
    figures.dataset.failed = m.failed;
    const causes = Object.keys(m).filter((k) => k.startsWith("failed_") && m[k] > 0).map((k) => `${k.slice(7)} ${m[k]}`);
    figures.innerHTML = `${m.requests} requests, <strong class="failed${m.failed ? "" : " none"}">${m.failed} failed</strong>${causes.length ? " (" + causes.join(", ") + ")" : ""}`;
  }
  const rows = Object.entries(doc.metrics).map(([k, v]) =>
    `<tr><th>${k}</th><td class="num">${v === null ? "—" : k.endsWith("_ms") ? fmt(v) : v}</td></tr>`);
  el.querySelector(".metrics").innerHTML = `<table>${rows.join("")}</table>`;
  return el;
}

/** "line 3, column 5: message", selecting that line of the editor when clicked. */
function lineLink(area, line, column, message) {
  const link = document.createElement("a");
  link.href = "#";
  link.textContent = (line ? `line ${line}${column ? ", column " + column : ""}: ` : "") + message;
  link.addEventListener("click", (ev) => { ev.preventDefault(); selectLine(area, line || 1); });
  return link;
}

/** Asks the server to apply what-if `w` to workload `j` of text `i`, then runs the new text. */
async function whatIf(i, j, w) {
  let answer;
  try {
    answer = await post("/api/whatif", { text: state.texts[i], workload: j, whatif: w.id, at_ms: state.cursor });
  } catch (e) {
    state.view = null;
    showError(e.message);
    draw();
    return;
  }
  if (answer.unchanged) {
    state.notes[`${i}/${j}`] = { kind: "unchanged", text: `“${w.label}” does not apply here: ${answer.unchanged}` };
    const note = section(i, j) && section(i, j).querySelector(".note");
    if (note) { note.className = "note unchanged"; note.textContent = state.notes[`${i}/${j}`].text; }
    document.dispatchEvent(new Event("whatif"));
    return;
  }
  state.texts[i] = document.querySelectorAll(".box textarea")[i].value = answer.text;
  forgetNotes(i);
  state.notes[`${i}/${j}`] = { kind: "changed", text: `“${w.label}”: ${answer.changed}` };
  await simulate();
  document.dispatchEvent(new Event("whatif"));
}

function selectLine(area, line) {
  const lines = area.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + (lines[line - 1] || "").length);
}

// ---- The time cursor: the Pod at one instant ---------------------------------------------

function moveCursor(ms) {
  const view = state.view;
  const end = view && view.picture ? view.picture.axis.end_ms : 0;
  state.cursor = Math.max(0, Math.min(end, Math.round(ms)));
  $("cursor").value = state.cursor;
  $("cursor-text").textContent = fmt(state.cursor);
  if (!view) return;
  const line = $("cursor-line");
  const svg = $("picture").querySelector("svg");
  if (svg && view.picture) {
    const a = view.picture.axis;
    const scale = svg.getBoundingClientRect().width / a.width_px;
    line.style.left = `${(a.left_px + (state.cursor / a.end_ms) * (a.right_px - a.left_px)) * scale}px`;
  }
  for (const run of view.runs.filter((r) => r.document)) {
    const el = section(run.scenario, run.workload);
    if (!el) continue;
    const k = el.querySelector(".kubectl"), ev = el.querySelector(".events");
    if (run.service_svg) {
      // A Service has no one Pod to follow: the log lists its failed requests.
      k.hidden = true;
      ev.replaceChildren(...run.document.failed_requests.slice(0, 200).map((f) => {
        const d = document.createElement("div");
        d.className = f.sent_ms <= state.cursor ? "past" : "future";
        d.textContent = `${fmt(f.sent_ms).padStart(7)}  ${f.cause.padEnd(14)} replica ${f.replica === null ? "-" : f.replica}`;
        return d;
      }));
      continue;
    }
    const watch = run.kubectl.filter((w) => w.at_ms <= state.cursor);
    const w = watch[watch.length - 1] || run.kubectl[0];
    const name = (run.document.name || "pod").toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "pod";
    const pad = (s, n) => String(s).padEnd(n);
    k.textContent = `${pad("NAME", 28)}${pad("READY", 8)}${pad("STATUS", 22)}RESTARTS\n${pad(name.slice(0, 27), 28)}${pad(w.ready, 8)}${pad(w.status, 22)}${w.restarts}`;
    k.dataset.status = w.status;
    k.dataset.ready = w.ready;
    ev.replaceChildren(...run.document.events.map((e) => {
      const d = document.createElement("div");
      d.className = e.at_ms <= state.cursor ? "past" : "future";
      d.textContent = `${fmt(e.at_ms).padStart(7)}  ${(e.container || "pod").padEnd(14)} ${e.event}`;
      return d;
    }));
  }
}

$("cursor").addEventListener("input", (e) => moveCursor(Number(e.target.value)));
$("back").addEventListener("click", () => moveCursor(state.cursor - 100));
$("fwd").addEventListener("click", () => moveCursor(state.cursor + 100));
$("back1").addEventListener("click", () => moveCursor(state.cursor - 1000));
$("fwd1").addEventListener("click", () => moveCursor(state.cursor + 1000));
window.addEventListener("resize", () => moveCursor(state.cursor));

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "TEXTAREA" || e.target.tagName === "INPUT") return;
  if (e.key === "ArrowLeft") moveCursor(state.cursor - 100);
  if (e.key === "ArrowRight") moveCursor(state.cursor + 100);
  if (e.key === "PageDown") moveCursor(state.cursor - 1000);
  if (e.key === "PageUp") moveCursor(state.cursor + 1000);
});

// ---- Start -----------------------------------------------------------------------------------

async function start() {
  const saved = location.hash.length > 1 ? decodeState(location.hash.slice(1)) : null;
  if (saved) {
    state.texts = saved.texts;
    state.sources = saved.sources || [];
  } else {
    const r = await fetch("/api/initial");
    const a = await r.json();
    state.texts = a.scenarios.map((s) => s.text);
    state.sources = a.scenarios.map((s) => s.source);
  }
  renderEditors();
  await simulate();
  const test = new URLSearchParams(location.search).get("selftest");
  if (test !== null) (SELFTESTS[test] || SELFTESTS[""])();
}

// ---- ?selftest: the browser check drives the page as a user would ---------------------------
// `?selftest` (the seed's two layouts), `?selftest=service` (a Service
// scenario), `?selftest=advise` (its advice alone, left shown for a
// screenshot) and `?selftest=manifests` (five manifests): each prints
// SELFTEST PASS or SELFTEST FAIL and what failed.

/** The checks' shared kit: `check` records a failure, `report` prints the verdict. */
function kit() {
  const failures = [];
  return {
    check: (ok, what) => { if (!ok) failures.push(what); },
    report: () => {
      const out = $("selftest");
      out.hidden = false;
      out.textContent = failures.length ? "SELFTEST FAIL\n" + failures.join("\n") : "SELFTEST PASS";
    },
  };
}
const once = (name) => new Promise((done) => document.addEventListener(name, done, { once: true }));
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const runOf = (i, j = 0) => state.view && state.view.runs.find((r) => r.scenario === i && r.workload === j);
const metric = (i, key, j = 0) => { const r = runOf(i, j); return r && r.document && r.document.metrics[key]; };
const RED = "rgb(198, 40, 40)";
const colour = (el) => el && getComputedStyle(el).color;

/** Clicks what-if `id` of workload `j` of text `i` and waits for its end. */
async function click(i, j, id) {
  const button = section(i, j) && section(i, j).querySelector(`button[data-whatif="${id}"]`);
  if (!button) return false;
  const done = once("whatif");
  button.click();
  await done;
  return true;
}

/** The note a what-if left under workload `j` of text `i`. */
const noteOf = (i, j = 0) => section(i, j).querySelector(".note");

/** Every picture fits its box or scrolls, with the hint under it shown. */
function picturesFit(check) {
  for (const id of ["picture", "service-pictures"]) {
    const el = $(id);
    if (!el.querySelector("svg")) continue;
    const width = document.documentElement.clientWidth;
    check(el.getBoundingClientRect().right <= width + 1, `#${id} sticks out of the ${width} px page`);
    if (el.scrollWidth > el.clientWidth + 1) {
      check(["auto", "scroll"].includes(getComputedStyle(el).overflowX), `#${id} is cut off at ${width} px, not scrollable`);
      check(!$(`${id}-hint`).hidden, `#${id} scrolls at ${width} px, and no hint says so`);
    }
  }
}

async function selftest() {
  const { check, report } = kit();
  // The seed chapter: native sidecar exposed 0 s, Ready 6 s; side by side 2 s + 2 s, Ready 5 s.
  check(metric(0, "exposed_total_ms") === 0, `sidecar exposed ${metric(0, "exposed_total_ms")}, want 0`);
  check(metric(0, "ready_ms") === 6000, `sidecar Ready ${metric(0, "ready_ms")}, want 6000`);
  check(metric(1, "exposed_total_ms") === 4000, `side by side exposed ${metric(1, "exposed_total_ms")}, want 4000`);
  check(metric(1, "ready_ms") === 5000, `side by side Ready ${metric(1, "ready_ms")}, want 5000`);
  check(!!$("picture").querySelector("svg"), "no timeline picture");
  // The cursor at 7 s: init done at 2 s, proxy Ready at 5 s, web at 6 s: 2/2 Running.
  moveCursor(6900); $("fwd").click();
  const k0 = () => section(0, 0).querySelector(".kubectl");
  check(k0().dataset.ready === "2/2" && k0().dataset.status === "Running", `at 7 s: ${k0().dataset.ready} ${k0().dataset.status}, want 2/2 Running`);
  moveCursor(1000);
  check(k0().dataset.status.startsWith("Init:"), `at 1 s: ${k0().dataset.status}, want Init:…`);
  // Fail the first init container once: it fails at 2 s, back-off 1 s, runs again 3–5 s, so Ready at 9 s.
  check(await click(0, 0, "fail-init"), "no “fail the first init container” button");
  check(state.texts[0].includes("fails = 1"), "fails = 1 was not written into the TOML");
  check(metric(0, "ready_ms") === 9000, `after one init failure Ready ${metric(0, "ready_ms")}, want 9000`);
  check(metric(0, "restarts") === 1, `restarts ${metric(0, "restarts")}, want 1`);
  await sweepChecks(check);
  await busyChecks(check);
  // A syntax error is shown at its line.
  const area = document.querySelectorAll(".box textarea")[1];
  area.value = "name = \"broken\"\n[pod\n";
  area.dispatchEvent(new Event("input"));
  await once("simulated");
  const err = section(1, 0).querySelector(".error");
  check(err.dataset.line === "2", `syntax error at line "${err.dataset.line}", want 2 (${err.textContent})`);
  report();
}

// The sweep's plot with the page's own axis: a run that never became
// Ready (empty ready_ms) is drawn in the "never Ready" lane, never at 0;
// every other run is Ready at 2 s or later (config-fetch alone takes 2 s),
// so right of the y axis; the axes have ticks; no point under the legend.
async function sweepChecks(check) {
  await sweep();
  const plot = $("sweep-plot").querySelector("svg");
  let empty = 0;
  for (const text of state.texts) {
    const grid = `[axes]\n"${$("axis").value}" = ${$("values").value}\n`;
    const a = await (await fetch("/api/sweep", { method: "POST", body: JSON.stringify({ scenario: text, grid }) })).json();
    const x = a.columns.indexOf("ready_ms");
    empty += a.rows.filter((row) => row[x] === "" || row[x] === null).length;
  }
  check(!!plot, "no sweep plot");
  if (!plot) return;
  const never = plot.querySelectorAll("circle.never").length, ready = [...plot.querySelectorAll("circle.ready")];
  check(empty > 0 && never === empty, `never-Ready runs drawn apart: ${never}, want ${empty} (and more than 0)`);
  const origin = Number(plot.querySelector("line").getAttribute("x1"));
  check(ready.every((c) => Number(c.getAttribute("cx")) > origin + 1), "a Ready run drawn at time to Ready 0");
  check(plot.querySelectorAll(".tick").length >= 8, `${plot.querySelectorAll(".tick").length} tick labels, want 8 or more`);
  const boxes = [...plot.querySelectorAll("text")].filter((t) => !t.classList.contains("tick") && t.getAttribute("fill")).map((t) => t.getBBox());
  const hidden = [...plot.querySelectorAll("circle.ready, circle.never")].filter((c) => {
    const b = c.getBBox();
    return boxes.some((l) => b.x < l.x + l.width && l.x < b.x + b.width && b.y < l.y + l.height && l.y < b.y + b.height);
  });
  check(hidden.length === 0, `${hidden.length} points under the legend`);
}

// Busy while a request is out; an error answer (a real 413, a 503 "over
// budget" as the server's budget sends it) is shown and clears the old
// result; of two requests only the last one's answer is drawn.
async function busyChecks(check) {
  const shown = () => ({ picture: !!$("picture").querySelector("svg"), sections: document.querySelectorAll(".workload").length });
  const asked = simulate();
  check(document.body.dataset.busy !== undefined && $("status").textContent.includes("simulating"), "no busy state while /api/view is asked");
  await asked;
  check(document.body.dataset.busy === undefined && $("status").textContent === "", `still busy after the answer: "${$("status").textContent}"`);
  const saved = state.texts.slice();
  state.texts[1] = "#".repeat((1 << 20) + 1);
  await simulate();
  check($("status").className === "error" && $("status").textContent.includes("413"), `a 413 shown as "${$("status").textContent}"`);
  check(!shown().picture && shown().sections === 0, `after a 413 the old result stays: ${JSON.stringify(shown())}`);
  state.texts = saved.slice();
  await simulate();
  check($("status").className === "" && shown().picture && shown().sections === 2, `the result is not back after the error: ${JSON.stringify(shown())}`);
  const real = window.fetch;
  window.fetch = async () => new Response(JSON.stringify({ error: { message: "over budget: this run would take 40 s, the server allows 10 s" } }), { status: 503 });
  await simulate();
  window.fetch = real;
  check($("status").textContent.includes("503: over budget: this run would take 40 s"), `a 503 shown as "${$("status").textContent}"`);
  check(!shown().picture && shown().sections === 0, `after a 503 the old result stays: ${JSON.stringify(shown())}`);
  // The first answer comes last: it must not replace the second.
  let first = true;
  window.fetch = async (url, options) => {
    const r = await real(url, options);
    if (first) { first = false; await sleep(400); }
    return r;
  };
  state.texts[1] = saved[1].replace(/^name = .*$/m, 'name = "asked first"');
  const slow = simulate();
  state.texts[1] = saved[1].replace(/^name = .*$/m, 'name = "asked last"');
  await simulate();
  await slow;
  window.fetch = real;
  const name = section(1, 0) && section(1, 0).querySelector(".name").textContent;
  check(name === "asked last", `the older answer was drawn over the newer: "${name}"`);
  state.texts = saved;
  await simulate();
}

// ?selftest=service: the page opened with a bundled Service scenario first.
async function selftestService() {
  const { check, report } = kit();
  const shown = () => Number(section(0, 0).querySelector(".figures").dataset.failed);
  const api = async () => (await (await fetch("/api/run", { method: "POST", body: state.texts[0] })).json()).metrics.failed;
  const picture = $("service-pictures").querySelector("svg");
  check(!!picture, "no picture of the race");
  check(picture && picture.querySelectorAll(".node").length > 0, "no node rows");
  check(picture && picture.querySelectorAll(".request, .request-bin").length > 0, "no request strip");
  picturesFit(check);
  const first = await api();
  check(first > 0 && shown() === first, `failed shown ${shown()}, the API says ${first}`);
  check(colour(section(0, 0).querySelector(".failed")) === RED, `${first} failed is not red`);
  const visible = [...section(0, 0).querySelectorAll(".whatifs button")].map((b) => b.textContent);
  check(!visible.includes("delete now") && visible.includes("connections: new ⇄ keep-alive"), `what-ifs shown: ${visible.join(", ")}`);
  await adviseChecks(check);
  // A 5 s preStop outlasts every node's rule drop (0.13-0.24 s here): nothing fails.
  check(await click(0, 0, "pre-stop"), "no “add a 5 s preStop” button");
  const after = await api();
  check(state.texts[0].includes('pre_stop = "5s"'), "the preStop was not written into the text");
  check(after === 0 && shown() === 0, `with a 5 s preStop failed shown ${shown()}, the API says ${after}, want 0`);
  const zero = section(0, 0).querySelector(".failed");
  check(zero && colour(zero) !== RED, `"0 failed" is drawn in red (${colour(zero)})`);
  // The Service's own what-ifs write its TOML tables.
  await click(0, 0, "propagation");
  check(/^propagation = "medium"$/m.test(state.texts[0]), "propagation tiny → medium not written");
  await click(0, 0, "connections");
  check(/^connections = "keep-alive"$/m.test(state.texts[0]), "connections new → keep-alive not written");
  check(!state.texts[0].includes("podsim.dev/"), "an annotation written into a TOML scenario");
  report();
}

async function selftestAdvise() {
  const { check, report } = kit();
  await adviseChecks(check);
  report();
}

const SELFTESTS = { "": selftest, service: selftestService, advise: selftestAdvise, manifests: () => selftestManifests() };

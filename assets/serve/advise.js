// ---- Advise: a Service workload's smallest safe preStop and grace (/api/advise) ----------------
// The button under a Service workload asks the server to run `podsim advise`
// on it; the answer (the table, the patch with a copy button, the frontier
// picture) stands under the workload for as long as its text is the one
// advised: it is kept with that text and shown again when the workload is
// redrawn, and dropped as soon as the text changes.

state.advice = {};

/** The "advise" button of workload `run`, and the advice kept for its text, if any. */
function adviseControls(run, el) {
  const b = document.createElement("button");
  b.textContent = "advise";
  b.title = "podsim advise: the smallest safe preStop sleep and terminationGracePeriodSeconds, the patch and the frontier (100 replications)";
  b.dataset.advise = "";
  b.addEventListener("click", () => advise(run.scenario, run.workload));
  el.querySelector(".whatifs").append(b);
  const kept = state.advice[`${run.scenario}/${run.workload}`];
  if (kept && kept.text === state.texts[run.scenario]) showAdvice(el.querySelector(".advice"), kept.answer);
}

/** Runs the advice of workload `j` of text `i`; shows it, or the server's refusal, if the text is unchanged. */
async function advise(i, j) {
  const text = state.texts[i];
  const box = () => section(i, j) && section(i, j).querySelector(".advice");
  if (box()) box().textContent = "advising…";
  let answer = null, error = null;
  try {
    answer = await post("/api/advise", { text, workload: j });
  } catch (e) {
    error = e;
  }
  const el = box();
  if (el && state.texts[i] === text) {
    if (error) {
      el.replaceChildren(Object.assign(document.createElement("div"), { className: "error", textContent: error.message }));
    } else {
      state.advice[`${i}/${j}`] = { text, answer };
      showAdvice(el, answer);
    }
  }
  document.dispatchEvent(new Event("advised"));
}

function showAdvice(el, a) {
  el.innerHTML = `<pre class="advice-table"></pre>
    <div class="patch-head"><strong>the patch</strong> <button class="copy">copy</button> <span class="copied" role="status"></span></div>
    <pre class="patch"></pre>
    <div class="picture advice-picture" aria-label="failed requests against their cost, for each candidate the search ran"></div>`;
  el.querySelector(".advice-table").textContent = a.table;
  el.querySelector(".patch").textContent = a.patch;
  el.querySelector(".advice-picture").innerHTML = a.svg;
  el.querySelector(".copy").addEventListener("click", async () => {
    let said = "copied";
    try {
      await navigator.clipboard.writeText(a.patch);
    } catch (e) {
      // No clipboard (a page not served from localhost): select it for Ctrl-C.
      const range = document.createRange();
      range.selectNodeContents(el.querySelector(".patch"));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      said = "selected: press Ctrl-C";
    }
    el.querySelector(".copied").textContent = said;
  });
}

/** ?selftest=service and ?selftest=advise: the advice of the bundled race, as `podsim advise
 * --replications 100` gives it; a refusal first, so that the advice is what stays shown. */
async function adviseChecks(check) {
  const button = () => section(0, 0) && section(0, 0).querySelector("button[data-advise]");
  check(!!button(), "no “advise” button on the Service");
  if (!button()) return;
  // A refusal (the server's budget) is shown where the advice would be.
  const real = window.fetch;
  window.fetch = async () => new Response(JSON.stringify({ error: { message: "the request ran past podsim serve's time budget of 30 s (--max-seconds)" } }), { status: 503 });
  const refused = once("advised");
  button().click();
  await refused;
  window.fetch = real;
  const said = section(0, 0).querySelector(".advice .error");
  check(said && said.textContent.includes("503: the request ran past"), `a 503 shown as "${said && said.textContent}"`);
  const done = once("advised");
  button().click();
  await done;
  const el = section(0, 0).querySelector(".advice");
  const table = el.querySelector(".advice-table"), patch = el.querySelector(".patch");
  const row = table && table.textContent.split("\n").find((l) => l.startsWith("preStop sleep (web)"));
  check(row && row.split(/\s+/)[4] === "2s", `the advised preStop: ${row}`);
  check(patch && patch.textContent.includes('containers.web.pre_stop = "2s"'), `the patch: ${patch && patch.textContent}`);
  check(!!el.querySelector(".advice-picture svg circle.advised"), "no advised point on the frontier");
  check(!!el.querySelector("button.copy"), "no copy button for the patch");
  // Kept while the text is the one advised: a redraw shows it again.
  await simulate();
  check(!!section(0, 0).querySelector(".advice .advice-table"), "the advice went with a redraw of the same text");
}

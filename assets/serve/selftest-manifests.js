// ?selftest=manifests: the page opened with five files (tests/browser/check.sh):
// 0 scenarios/service/rollout.yaml (a Deployment, its Service and budget),
// 1 tests/manifests/kubectl-get-list.json (a List: a StatefulSet and a DaemonSet),
// 2 tests/manifests/deployment-sidecar.yaml (timings assumed: notices),
// 3 tests/manifests/istio-classic-sidecar.yaml (the proxy beside the app),
// 4 scenarios/blog-cloudsql-job.yaml.
async function selftestManifests() {
  const { check, report } = kit();
  const sections = (i) => [...document.querySelectorAll(`.workload[data-scenario="${i}"]`)];
  const events = (i, j) => runOf(i, j).document.events.map((e) => e.event);
  const failedShown = (i) => Number(section(i, 0).querySelector(".figures").dataset.failed);
  const failedApi = async (i) => (await (await fetch("/api/run", { method: "POST", body: state.texts[i] })).json()).metrics.failed;
  // Five files, every workload of each: no "give 1 to 4", nothing refused.
  check(sections(0).length === 1 && sections(1).length === 2 && [2, 3, 4].every((i) => sections(i).length === 1),
    `workloads shown per file: ${[0, 1, 2, 3, 4].map((i) => sections(i).length).join(", ")}, want 1, 2, 1, 1, 1`);
  check(state.view.runs.every((r) => r.document), `a workload refused: ${JSON.stringify(state.view.runs.filter((r) => !r.document))}`);
  const names = sections(1).map((s) => s.querySelector(".name").textContent).join(", ");
  check(names === "web, fluentd-elasticsearch", `the List's workloads: ${names}`);
  // Notices are notices, worded for the page: the annotation, no --timings.
  const notices = [...section(2, 0).querySelectorAll(".notices li")].map((li) => li.textContent);
  check(notices.length >= 2 && notices.some((n) => n.includes("annotate podsim.dev/")), `notices: ${notices.join(" | ")}`);
  check(!$("scenarios").innerText.includes("--timings"), "the page points to --timings");
  check(colour(section(2, 0).querySelector(".notices")) !== RED, "notices drawn in error red");
  // Rollout: the Service's what-ifs set its annotations in place.
  const rollout = state.texts[0];
  check(colour(section(0, 0).querySelector(".failed")) === RED, "16 failed is not red");
  await click(0, 0, "propagation");
  check(state.texts[0] === rollout.replace('service.propagation: "tiny"', 'service.propagation: "medium"'), "propagation: not the one annotation changed");
  await click(0, 0, "connections");
  check(state.texts[0].includes('podsim.dev/traffic.connections: "keep-alive"') && !state.texts[0].includes("[traffic]"), "connections: not the annotation");
  await click(0, 0, "pre-stop");
  check(/lifecycle:\n\s+preStop:\n\s+sleep:\n\s+seconds: 5\n/.test(state.texts[0]), "no lifecycle.preStop.sleep.seconds: 5 in the YAML");
  check(state.texts[0].startsWith("# Seed chapter 004's rolling update"), "the YAML's comments were lost");
  check(!!runOf(0, 0).document, `the edited YAML is refused: ${JSON.stringify(runOf(0, 0).error)}`);
  const failed = await failedApi(0);
  check(failedShown(0) === failed, `failed shown ${failedShown(0)}, the API says ${failed}`);
  check((colour(section(0, 0).querySelector(".failed")) === RED) === (failed > 0), `${failed} failed drawn ${colour(section(0, 0).querySelector(".failed"))}`);
  // What cannot apply says so, plainly; the text stays.
  const sidecar = state.texts[2];
  await click(2, 0, "fail-init");
  const note = noteOf(2, 0);
  check(note.textContent.includes("does not apply here: this Pod has no init container"), `fail-init on no init container: "${note.textContent}"`);
  check(colour(note) !== RED && state.texts[2] === sidecar, "a what-if that cannot apply is shown as an error, or changed the text");
  moveCursor(1500);
  await click(2, 0, "delete-now");
  check(state.texts[2].includes('podsim.dev/stop_at: "1.5s"'), "delete now: no stop_at annotation");
  check(events(2, 0).some((e) => e.startsWith("deletion requested")), "delete now: the Pod is not deleted");
  // The Istio proxy, beside the app, becomes a native sidecar and back.
  // Its row's label: "app, proxy" or "sidecar, proxy".
  const kind = () => { const t = $("picture").querySelector('.row[data-container="istio-proxy"] > text'); return t && t.textContent.split(",")[0]; };
  check(kind() === "app", `istio-proxy drawn as ${kind()}, want app`);
  await click(3, 0, "proxy-layout");
  check(kind() === "sidecar" && /initContainers:[^]*name: istio-proxy\n\s+restartPolicy: Always/.test(state.texts[3]), `istio-proxy after the what-if: ${kind()}`);
  await click(3, 0, "proxy-layout");
  check(kind() === "app", `istio-proxy moved back drawn as ${kind()}, want app`);
  // The List's second workload alone is deleted; the JSON still parses.
  await click(1, 1, "delete-now");
  let items = [];
  try { items = JSON.parse(state.texts[1]).items; } catch (e) { check(false, `the JSON no longer parses: ${e.message}`); }
  const stopAt = (n) => ((((items[n] || {}).spec || {}).template || {}).metadata || {}).annotations;
  check(stopAt(1) && stopAt(1)["podsim.dev/stop_at"] === "1.5s" && !(stopAt(0) || {})["podsim.dev/stop_at"], "the List's DaemonSet did not get stop_at alone");
  check(events(1, 1).some((e) => e.startsWith("deletion requested")) && !events(1, 0).some((e) => e.startsWith("deletion")), "the wrong workload was deleted");
  // Past eight workloads the rest is left out, and said to be, plainly.
  const saved = state.texts.slice();
  state.texts.push(saved[1], saved[1], saved[1], saved[1]);
  renderEditors();
  await simulate();
  const ran = state.view.runs.filter((r) => r.document).length, left = [...document.querySelectorAll(".workload .note.left-out")];
  check(ran === 8 && left.length === 6, `with 14 workloads: ${ran} run and ${left.length} left out, want 8 and 6`);
  check(left.every((n) => n.textContent.includes("was not run") && colour(n) !== RED), "the left-out ones are not said plainly");
  state.texts = saved;
  renderEditors();
  await simulate();
  report();
}

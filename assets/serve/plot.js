// ---- A small trade-off plot from /api/sweep ------------------------------------------------

// Each scenario's sweep in turn; a scenario the server refuses is named
// with its error, and the plot holds only what was answered this time.
async function sweep() {
  const out = $("sweep-plot"), err = $("sweep-error"), button = $("sweep");
  err.textContent = "";
  out.replaceChildren();
  button.disabled = true;
  button.textContent = "sweeping…";
  const grid = `[axes]\n"${$("axis").value.replace(/"/g, "")}" = ${$("values").value}\n`;
  const series = [], problems = [];
  try {
    for (const [i, text] of state.texts.entries()) {
      let a;
      try {
        a = await post("/api/sweep", { scenario: text, grid });
      } catch (e) {
        problems.push(`scenario ${i + 1}: ${e.message}`);
        continue;
      }
      const x = a.columns.indexOf("ready_ms"), y = a.columns.indexOf("exposed_total_ms");
      const run = state.view && state.view.runs.find((r) => r.scenario === i && r.document);
      series.push({ name: run ? run.document.name : `scenario ${i + 1}`,
        points: a.rows.map((row) => [seconds(row[x]), seconds(row[y])]).filter((p) => p[1] !== null) });
    }
  } finally {
    button.disabled = false;
    button.textContent = "sweep";
  }
  err.textContent = problems.join("\n");
  out.innerHTML = tradeoffSvg(series);
}
$("sweep").addEventListener("click", sweep);

// A CSV cell in seconds, or null for an empty cell (a Pod that never became
// Ready has no ready_ms): never 0, which would draw it as the best run of all.
function seconds(cell) {
  return cell === "" || cell === null || cell === undefined || !Number.isFinite(Number(cell)) ? null : Number(cell) / 1000;
}

// Ticks at 1, 2 or 5 times a power of ten, about five of them, from 0 to past max.
function ticks(max) {
  const raw = Math.max(max, 1e-9) / 5, power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1] < max) out.push(Number((out[out.length - 1] + step).toPrecision(12)));
  return out;
}

// The trade-off: time to Ready (x) against exposure (y), one series per
// scenario. Runs that never became Ready are drawn apart, in a lane right
// of the axis labelled "never Ready"; the legend sits above the plot, so
// no point hides under it.
function tradeoffSvg(series) {
  const all = series.flatMap((s) => s.points);
  if (!all.length) return "";
  const ready = all.filter((p) => p[0] !== null), never = all.length - ready.length;
  const xs = ticks(Math.max(1, ...ready.map((p) => p[0]))), ys = ticks(Math.max(1, ...all.map((p) => p[1])));
  const maxX = xs[xs.length - 1], maxY = ys[ys.length - 1];
  const lane = never ? 96 : 0, sep = 18, mid = (W0) => W0 + sep + (lane - sep - 14) / 2;
  const W = 600, H = 320, L = 56, B = 46, T = 14 + 16 * Math.ceil(series.length / 2), R = 14 + lane;
  const px = (v) => v === null ? mid(W - R) : L + (v / maxX) * (W - L - R), py = (v) => H - B - (v / maxY) * (H - B - T);
  const colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"];
  const esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const dots = series.map((s, i) => s.points.map((p) =>
    `<circle class="${p[0] === null ? "never" : "ready"}" cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="${i ? 4 : 3}" fill="${i ? "none" : colors[i]}" stroke="${colors[i]}"/>`).join("")).join("");
  const legend = series.map((s, i) => {
    const lx = L + (i % 2) * ((W - L) / 2), ly = 12 + 16 * Math.floor(i / 2);
    return `<circle cx="${lx + 4}" cy="${ly - 4}" r="4" fill="${i ? "none" : colors[i]}" stroke="${colors[i]}"/><text x="${lx + 12}" y="${ly}" fill="${colors[i]}">${esc(s.name)}</text>`;
  }).join("");
  const xt = xs.map((v) => `<line x1="${px(v)}" y1="${H - B}" x2="${px(v)}" y2="${H - B + 5}" stroke="#333"/><text class="tick" x="${px(v)}" y="${H - B + 17}" text-anchor="middle">${v}</text>`).join("");
  const yt = ys.map((v) => `<line x1="${L - 5}" y1="${py(v)}" x2="${L}" y2="${py(v)}" stroke="#333"/><text class="tick" x="${L - 8}" y="${py(v) + 4}" text-anchor="end">${v}</text>`).join("");
  const apart = never ? `<line x1="${W - R + sep}" y1="${T}" x2="${W - R + sep}" y2="${H - B}" stroke="#999" stroke-dasharray="3 3"/>
    <text x="${mid(W - R)}" y="${H - B + 17}" text-anchor="middle">never Ready</text>
    <text x="${mid(W - R)}" y="${H - B + 31}" text-anchor="middle" class="tick">(${never} run${never === 1 ? "" : "s"})</text>` : "";
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Ready time against exposed time" style="max-width:${W}px;width:100%">
    <line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>
    ${xt}${yt}${apart}
    <text x="${(W - R + L) / 2}" y="${H - 4}" text-anchor="middle">time to Ready (s)</text>
    <text x="14" y="${(H - B + T) / 2}" transform="rotate(-90 14 ${(H - B + T) / 2})" text-anchor="middle">exposed (s)</text>
    ${dots}${legend}</svg>`;
}


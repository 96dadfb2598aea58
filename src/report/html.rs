//! The HTML report: one self-contained file for a set of scenarios and any
//! number of sweeps — timelines, trade-off plots, metrics and frontier tables.
//!
//! Self-contained means: SVG inline, CSS in a `<style>` element, no script,
//! no font file, no image and no link that a browser would fetch. The page is
//! also well-formed XML (polyglot HTML5), so a strict XML parser checks it.
//!
//! Invariant: nothing in the page refers to anything outside it.

use std::fmt::Write;

use super::bands::{Figure, timelines_svg};
use super::field_text;
use super::plot::ecdf::{self, EcdfSpec};
use super::plot::{GroupBy, PlotSpec, Tradeoff, tradeoff, unit};
use super::svg::{FONT_FAMILY, escape};
use super::table::{Table, TableError};
use super::timeline::event_lines;
use super::{job, service};
use crate::model::service::{ServiceMetrics, ServiceReport};
use crate::model::{Field, Metrics, PodReport};
use crate::scenario::Scenario;

/// One simulated scenario.
pub struct ScenarioRun<'a> {
    /// The scenario, for its containers' names and kinds.
    pub scenario: &'a Scenario,
    /// What happened in the run.
    pub report: &'a PodReport,
}

/// One simulated Service scenario: its replicas, endpoints and requests.
pub struct ServiceRun<'a> {
    /// The scenario, for its Pod template and its name.
    pub scenario: &'a Scenario,
    /// What happened in the run.
    pub report: &'a ServiceReport,
}

/// What a report shows: Pod scenarios, Service scenarios and sweeps.
pub struct Contents<'a> {
    /// Pod scenarios, drawn on one time axis.
    pub pods: &'a [ScenarioRun<'a>],
    /// Service scenarios, each with the picture of its race.
    pub services: &'a [ServiceRun<'a>],
    /// Sweep results.
    pub sweeps: &'a [Table],
}

const STYLE: &str = "
body { font-family: FONTS; margin: 2em auto; max-width: 1040px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0 1.5em; }
table.frontier th { hyphens: none; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th { background: #f4f4f4; } td.text, th.text { text-align: left; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
.muted { color: #666; } .wide { overflow-x: auto; }
";

/// A metrics value as the sweep CSV writes it: milliseconds as plain numbers,
/// absent values empty.
fn csv_cell(field: Field) -> String {
    match field {
        Field::Millis(Some(ms)) => ms.to_string(),
        Field::Millis(None) => String::new(),
        Field::Count(n) => n.to_string(),
        Field::Text(t) => t.to_string(),
    }
}

/// The scenarios' metrics as a table one row per scenario, so the trade-off
/// plot draws a scenario set exactly as it draws a sweep.
pub fn scenario_table(runs: &[ScenarioRun]) -> Table {
    Table {
        origin: "these scenarios".to_string(),
        columns: std::iter::once("scenario")
            .chain(Metrics::NAMES)
            .map(str::to_string)
            .collect(),
        rows: runs
            .iter()
            .map(|r| {
                std::iter::once(r.scenario.name.clone())
                    .chain(r.report.metrics.fields().into_iter().map(csv_cell))
                    .collect()
            })
            .collect(),
    }
}

/// Writes the report page.
pub fn report(contents: &Contents) -> Result<String, TableError> {
    let Contents {
        pods: runs,
        services,
        sweeps,
    } = *contents;
    let mut page = String::with_capacity(256 * 1024);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n\
         <meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>podsim report</title>\n<style>{}</style>\n</head>\n<body>\n<h1>podsim report</h1>\n",
        STYLE.replace("FONTS", FONT_FAMILY)
    );
    let _ = writeln!(
        page,
        "<p class=\"muted\">{} scenario{} and {} sweep{}. Times in seconds since the Pod was created; \
         exposed = an app container alive while no proxy is.</p>",
        runs.len() + services.len(),
        plural(runs.len() + services.len()),
        sweeps.len(),
        plural(sweeps.len())
    );
    if !runs.is_empty() {
        scenarios_section(&mut page, runs)?;
    }
    if !services.is_empty() {
        services_section(&mut page, services);
    }
    for (i, table) in sweeps.iter().enumerate() {
        sweep_section(&mut page, i, table)?;
    }
    page.push_str("</body>\n</html>\n");
    Ok(page)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn scenarios_section(page: &mut String, runs: &[ScenarioRun]) -> Result<(), TableError> {
    page.push_str("<section id=\"scenarios\">\n<h2>Scenarios</h2>\n");
    let figures: Vec<Figure> = runs
        .iter()
        .map(|r| Figure {
            title: &r.scenario.name,
            spec: &r.scenario.run.pod,
            report: r.report,
        })
        .collect();
    let _ = writeln!(
        page,
        "<figure id=\"timelines\">\n{}<figcaption>Each container's state over time, on one time axis; \
         hover a band or a mark for its times.</figcaption>\n</figure>",
        timelines_svg(&figures)
    );

    page.push_str("<h3>Metrics</h3>\n");
    let names: Vec<&str> = runs.iter().map(|r| r.scenario.name.as_str()).collect();
    metrics_table(page, "metrics", &names, &Metrics::NAMES, |run, i| {
        field_text(runs[run].report.metrics.fields()[i])
    });

    let table = scenario_table(runs);
    let spec = PlotSpec {
        group: GroupBy::Column("scenario".to_string()),
        height: 400,
        ..PlotSpec::default()
    };
    let plot = tradeoff(&table, &spec)?;
    let _ = writeln!(
        page,
        "<h3>Trade-off</h3>\n<figure id=\"scenario-tradeoff\">\n{}<figcaption>One dot per scenario.</figcaption>\n</figure>",
        plot.svg()
    );

    page.push_str("<h3>Events</h3>\n");
    for r in runs {
        let mut text = event_lines(&r.scenario.run.pod, r.report);
        if let Some(job) = &r.report.job {
            text.push('\n');
            text.push_str(&job::text(&r.scenario.run.pod, job));
        }
        events(page, r.scenario, &text);
    }
    page.push_str("</section>\n");
    Ok(())
}

/// One scenario's text, folded: the event lines `podsim run` prints.
fn events(page: &mut String, scenario: &Scenario, text: &str) {
    let _ = writeln!(
        page,
        "<details class=\"events\"><summary>{} ({})</summary>\n<pre>{}</pre></details>",
        escape(&scenario.name),
        escape(&scenario.origin),
        escape(text)
    );
}

/// Each Service scenario's race as `podsim run --svg` draws it, then their
/// metrics side by side and the text `podsim run` prints.
fn services_section(page: &mut String, runs: &[ServiceRun]) {
    page.push_str("<section id=\"services\">\n<h2>Services</h2>\n");
    for (i, r) in runs.iter().enumerate() {
        let m = &r.report.metrics;
        let stack = if m.rollout.is_some() || m.drain.is_some() {
            "the Deployment's Pods stacked by ReplicaSet and state, with the ready endpoints and \
             the failed requests; then "
        } else {
            ""
        };
        let _ = writeln!(
            page,
            "<figure id=\"service-{i}\">\n{}<figcaption>{}: {stack}each replica's containers, when each node's \
             rules dropped the deleted Pod, and every request by outcome; hover for times.</figcaption>\n</figure>",
            service::service_svg(&r.scenario.name, &r.scenario.run.pod, r.report),
            escape(&r.scenario.name)
        );
    }
    page.push_str("<h3>Service metrics</h3>\n");
    let names: Vec<&str> = runs.iter().map(|r| r.scenario.name.as_str()).collect();
    // The Service's figures, then a rollout's and a drain's (evictions
    // refused, drain_ms …) when any run has them, `-` in a run without.
    let mut metrics: Vec<&str> = ServiceMetrics::NAMES.to_vec();
    for r in runs {
        for (name, _) in service::deployment_figures(&r.report.metrics) {
            if !metrics.contains(&name) {
                metrics.push(name);
            }
        }
    }
    metrics_table(page, "service-metrics", &names, &metrics, |run, i| {
        let m = &runs[run].report.metrics;
        let own = ServiceMetrics::NAMES.iter().zip(m.numbers());
        let value = own
            .map(|(name, n)| (*name, n))
            .chain(service::deployment_figures(m))
            .find(|(name, _)| *name == metrics[i]);
        match value {
            Some(("outcome", _)) => m.outcome().to_string(),
            None | Some((_, None)) => "-".to_string(),
            Some((name, Some(ms))) if name.ends_with("_ms") => field_text(Field::Millis(Some(ms))),
            Some((_, Some(n))) => n.to_string(),
        }
    });
    page.push_str("<h3>Service events</h3>\n");
    for r in runs {
        events(
            page,
            r.scenario,
            &service::text(&r.scenario.run.pod, r.report, 50, 100),
        );
    }
    page.push_str("</section>\n");
}

/// A table with one row per metric and one column per run, `cell(run,
/// metric)` in each.
fn metrics_table(
    page: &mut String,
    id: &str,
    runs: &[&str],
    metrics: &[&str],
    cell: impl Fn(usize, usize) -> String,
) {
    let _ = write!(page, "<table id=\"{id}\">\n<tr><th class=\"text\">metric</th>");
    for name in runs {
        let _ = write!(page, "<th>{}</th>", escape(name));
    }
    page.push_str("</tr>\n");
    for (i, name) in metrics.iter().enumerate() {
        let _ = write!(page, "<tr><td class=\"text\">{name}</td>");
        for run in 0..runs.len() {
            let _ = write!(page, "<td>{}</td>", cell(run, i));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
}

fn sweep_section(page: &mut String, index: usize, table: &Table) -> Result<(), TableError> {
    // Which trade-off a table holds: a Pod sweep's time to Ready against
    // exposure; a summary's (`--summary`) the same at the medians; a
    // Service sweep's failed requests against the termination time, and
    // its summary's p99 of failed requests (the minimal-safe-settings
    // question) against the median termination.
    let has = |name: &str| table.columns.iter().any(|c| c == name);
    let (x, y) = if has("ready_ms") && has("exposed_total_ms") {
        ("ready_ms", "exposed_total_ms")
    } else if has("failed_p99") && has("termination_ms_p50") {
        ("termination_ms_p50", "failed_p99")
    } else if has("ready_ms_p50") {
        ("ready_ms_p50", "exposed_total_ms_p50")
    } else if has("failed") && has("termination_ms") {
        ("termination_ms", "failed")
    } else {
        ("ready_ms", "exposed_total_ms")
    };
    let spec = PlotSpec {
        x: x.into(),
        y: y.into(),
        ..PlotSpec::default()
    };
    let plot = tradeoff(table, &spec)?;
    let _ = writeln!(
        page,
        "<section class=\"sweep\" id=\"sweep-{index}\">\n<h2>Sweep: {}</h2>\n<p>{}, {} group{}.</p>",
        escape(&table.origin),
        plot.drawn(),
        plot.groups.len(),
        if plot.groups.len() == 1 { "" } else { "s" }
    );
    let one = match plot.best_on_both() {
        true => {
            " Here that is one run per group, as low as any other on both axes: no run of a \
             group trades one axis for the other, and a choice's trade-off shows when its runs \
             are paired (<code>podsim plot --pair COLUMN</code>)."
        }
        false => "",
    };
    let _ = writeln!(
        page,
        "<figure class=\"tradeoff\">\n{}<figcaption>Each group's Pareto frontier: no other run of the group \
         is lower on both axes at once.{one}</figcaption>\n</figure>",
        plot.svg()
    );
    if table.columns.iter().any(|c| c == "replication") {
        let spec = EcdfSpec {
            metric: "ready_ms".to_string(),
            group: GroupBy::Layout,
            only: None,
            width: 900,
            height: 560,
        };
        let _ = writeln!(
            page,
            "<figure class=\"ecdf\">\n{}<figcaption>The share of runs (all combinations and \
             replications) Ready within a time: read the p99 at 0.99.</figcaption>\n</figure>",
            ecdf::svg(table, &spec)?
        );
    }
    frontier_table(page, &plot);
    page.push_str("</section>\n");
    Ok(())
}

/// The frontier runs of every group, with their parameters; cells as in the
/// CSV (milliseconds), so a row can be found again in the file.
fn frontier_table(page: &mut String, plot: &Tradeoff) {
    let table = plot.table;
    let params = table.parameters();
    // The metrics first: they are what a reader compares; the parameters
    // that follow may be many: their names wrap after a dot or an
    // underscore (`breakable`), never inside a word, and what is still too
    // wide scrolls (`.wide`).
    page.push_str("<h3>Frontier runs</h3>\n<div class=\"wide\"><table class=\"frontier\">\n<tr><th>run</th>");
    for c in [plot.x, plot.y] {
        let _ = write!(page, "<th>{}</th>", breakable(&table.columns[c]));
    }
    page.push_str("<th>runs alike</th>");
    for &c in &params {
        let _ = write!(page, "<th class=\"text\">{}</th>", breakable(&table.columns[c]));
    }
    page.push_str("</tr>\n");
    for g in &plot.groups {
        for (p, same) in &g.frontier {
            let _ = write!(
                page,
                "<tr data-group=\"{}\"><td>{}</td>",
                escape(&g.name),
                escape(&plot.run_label(p.row))
            );
            // A point over replications is their median, not one row's cell.
            let cell = |column: usize, value: f64| match g.spreads.is_empty() {
                true => table.rows[p.row][column].clone(),
                false => format!("{}", value * unit(&table.columns[column]).1),
            };
            let _ = write!(
                page,
                "<td>{}</td><td>{}</td><td>{same}</td>",
                escape(&cell(plot.x, p.x)),
                escape(&cell(plot.y, p.y))
            );
            for &c in &params {
                let _ = write!(page, "<td class=\"text\">{}</td>", escape(&table.rows[p.row][c]));
            }
            page.push_str("</tr>\n");
        }
    }
    page.push_str("</table></div>\n");
}

/// A column name that may wrap after its dots and underscores
/// (`containers.<wbr/>web.<wbr/>boot_<wbr/>ms`), between its words: a
/// fixed-width column with `overflow-wrap: anywhere` cut `ready_m|s`.
fn breakable(name: &str) -> String {
    escape(name).replace('.', ".<wbr/>").replace('_', "_<wbr/>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_wrap_between_words_only() {
        assert_eq!(
            breakable("pod.stop_after_ready_ms"),
            "pod.<wbr/>stop_<wbr/>after_<wbr/>ready_<wbr/>ms"
        );
        assert_eq!(breakable("run"), "run");
        assert!(!STYLE.contains("anywhere") && !STYLE.contains("break-all"));
    }
}

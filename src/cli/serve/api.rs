//! The JSON API behind the page. Bodies are scenario text (TOML, or a
//! manifest in YAML or JSON: sniffed as `podsim run -` does) or small JSON
//! objects carrying such text; answers are JSON.
//!
//! - `POST /api/run`: one scenario; the answer is exactly the document
//!   `podsim run --format json` prints for it (an array of them when the
//!   text holds several workloads), a Service scenario's included.
//! - `POST /api/view`: `{"scenarios": [text, …]}`, what the page draws: one
//!   entry per workload of each text (`scenario` and `workload` say which),
//!   with its document, its notices as the page words them (`notices`) and
//!   kubectl watch lines, or its refusal, or, past `MAX_WORKLOADS`, why it
//!   was left out; and one timeline picture of all the Pod runs on a shared
//!   time axis, with that axis. A Service run carries its own picture of
//!   the race (`service_svg`) instead. Each run lists the paths a grid axis
//!   may name on it (`axes`), the page's hints for its sweep, from the key
//!   registry's grammar (`key::path`).
//! - `POST /api/whatif`: a what-if button applied to a text (see `whatif`).
//! - `POST /api/advise`: `podsim advise` on one workload of a text (see
//!   `advise`).
//! - `POST /api/sweep`: `{"scenario": text, "grid": text}` (a grid's
//!   `[axes]`; its `base` is the scenario, and a `timings` file is refused:
//!   the server reads no file a request names), at most `--max-runs` runs;
//!   the CSV's columns and rows as JSON.
//! - `GET /api/initial`: the scenarios the page opens with.
//!
//! An input error is a 400 whose body is `{"error": {file, line, column,
//! message}}`, the file being `request`. A request whose runs go past its
//! `Budget` (time, events) is a 503 whose `{"error": {message}}` says which.

use std::ops::ControlFlow;
use std::path::Path;

use serde_json::{Value, json};

use podsim::engine::Halt;
use podsim::engine::SimDuration;
use podsim::model::{PodReport, RunReport, simulate_within};
use podsim::report::bands::{Figure, TimeAxis, timelines_svg_on_one_axis};
use podsim::report::kubectl;
use podsim::report::service;
use podsim::scenario::key::path;
use podsim::scenario::{Diagnostic, InputFormat, Scenario};
use podsim::sweep::{Grid, GridFile, SweepError};

use super::State;
use super::budget::Budget;
use crate::cli::inputs::Input;

/// The name request bodies go by in error messages.
pub const ORIGIN: &str = "request";

/// The longest horizon served: the default one. A longer run is for `podsim run`.
const MAX_HORIZON: SimDuration = SimDuration::from_secs(24 * 3600);

/// The most workloads one `/api/view` runs and draws: a Pod run takes a
/// few milliseconds, a Service run tens, and the page stacks every Pod's
/// timeline on one picture. Past it, the page says which were left out.
pub const MAX_WORKLOADS: usize = 8;

/// An answer: status, type and bytes.
pub struct Reply {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// 200 with a JSON body.
    pub fn json(value: &Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: serde_json::to_vec(value).unwrap_or_default(),
        }
    }

    /// The page itself.
    pub fn page(html: &str) -> Reply {
        Reply {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: html.as_bytes().to_vec(),
        }
    }

    /// `status` with `{"error": {"message": …}}`.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            ..Reply::json(&json!({ "error": { "message": message } }))
        }
    }

    /// 400 for an input error, with its place.
    pub(super) fn input_error(d: &Diagnostic) -> Reply {
        Reply {
            status: 400,
            ..Reply::json(&json!({ "error": error_object(d) }))
        }
    }
}

/// Where an input error is and what it says, for the page to underline.
fn error_object(d: &Diagnostic) -> Value {
    json!({
        "file": d.origin,
        "line": d.position.map(|p| p.0),
        "column": d.position.map(|p| p.1),
        "message": crate::cli::message(d),
    })
}

/// Every workload of `text`, checked and bounded, or the first refusal.
fn read(text: &str) -> Result<Vec<Input>, Diagnostic> {
    read_each(text).into_iter().collect()
}

/// Each workload of `text`, checked and bounded, or why it is refused.
pub(super) fn read_each(text: &str) -> Vec<Result<Input, Diagnostic>> {
    let bounded = |scenario: Scenario| {
        if scenario.run.horizon > MAX_HORIZON {
            return Err(Diagnostic::whole(
                ORIGIN,
                format!(
                    "horizon {} is longer than the {} podsim serve runs; use podsim run for longer runs",
                    scenario.run.horizon, MAX_HORIZON
                ),
            ));
        }
        let source = ORIGIN.to_string();
        Ok(Input { scenario, source })
    };
    Scenario::read_all(text, ORIGIN, InputFormat::sniff(text), None)
        .into_iter()
        .map(|result| result.and_then(bounded))
        .collect()
}

/// `POST /api/run`.
pub fn run(body: &str, budget: &Budget) -> Reply {
    let inputs = match read(body) {
        Ok(inputs) => inputs,
        Err(d) => return Reply::input_error(&d),
    };
    let mut documents: Vec<Value> = Vec::new();
    for input in &inputs {
        match simulate_within(&input.scenario.run, &budget.limits) {
            Ok(report) => documents.push(crate::cli::run::document(input, &report)),
            Err(halt) => return budget.exceeded(halt),
        }
    }
    match documents.len() {
        1 => Reply::json(&documents.remove(0)),
        _ => Reply::json(&Value::Array(documents)),
    }
}

/// `POST /api/view`.
pub fn view(body: &str, budget: &Budget) -> Reply {
    let texts: Vec<String> = match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(mut o)) => match o.remove("scenarios") {
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => a
                .into_iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            _ => return Reply::error(400, "scenarios must be an array of scenario texts"),
        },
        _ => return Reply::error(400, "the body must be a JSON object: {\"scenarios\": [text, …]}"),
    };
    if texts.is_empty() {
        return Reply::error(400, "give at least one scenario");
    }
    let mut runs = Vec::new();
    let mut drawn: Vec<(Input, PodReport)> = Vec::new();
    let mut ran = 0;
    for (i, text) in texts.iter().enumerate() {
        for (j, result) in read_each(text).into_iter().enumerate() {
            let mut entry = match result {
                Err(d) => json!({ "error": error_object(&d) }),
                Ok(input) if ran == MAX_WORKLOADS => json!({ "left_out": left_out(&input.scenario.name) }),
                Ok(input) => {
                    ran += 1;
                    match view_one(input, &mut drawn, budget) {
                        Ok(entry) => entry,
                        Err(halt) => return budget.exceeded(halt),
                    }
                }
            };
            entry["scenario"] = json!(i);
            entry["workload"] = json!(j);
            runs.push(entry);
        }
    }
    let figures: Vec<Figure> = drawn
        .iter()
        .map(|(input, report)| Figure {
            title: &input.scenario.name,
            spec: &input.scenario.run.pod,
            report,
        })
        .collect();
    let picture = if figures.is_empty() {
        json!(null)
    } else {
        let axis = TimeAxis::for_figures(&figures);
        json!({
            "svg": timelines_svg_on_one_axis(&figures),
            "axis": { "end_ms": axis.end_ms, "left_px": axis.left_px, "right_px": axis.right_px, "width_px": axis.width_px },
        })
    };
    Reply::json(&json!({ "runs": runs, "picture": picture }))
}

/// Why workload `name` was not run.
fn left_out(name: &str) -> String {
    format!(
        "\"{name}\" was not run: the page runs at most {MAX_WORKLOADS} workloads at once, and the files \
         before it hold {MAX_WORKLOADS}; run it with podsim run, or open the page with fewer files"
    )
}

/// One workload's entry of the view: its document, its notices as the page
/// words them, and kubectl's lines, or, for a Service, its picture; a Pod
/// run is kept in `drawn` for the shared timeline. The run obeys the
/// request's budget: its halt is the answer then.
fn view_one(input: Input, drawn: &mut Vec<(Input, PodReport)>, budget: &Budget) -> Result<Value, Halt> {
    let notices: Vec<Value> = input
        .scenario
        .notices
        .iter()
        .map(super::notices::for_page)
        .collect();
    let s = &input.scenario;
    // The page's axis hints, from the registry's grammar.
    let axes = path::axis_paths(&s.run);
    let report = simulate_within(&s.run, &budget.limits)?;
    let document = crate::cli::run::document(&input, &report);
    let report = match report {
        RunReport::Pod(report) => report,
        RunReport::Service(report) => {
            return Ok(json!({
                "document": document,
                "notices": notices,
                "kubectl": [],
                "service_svg": service::service_svg(&s.name, &s.run.pod, &report),
                "axes": axes,
            }));
        }
    };
    let watch: Vec<Value> = kubectl::watch(&s.run.pod, &report.trace)
        .iter()
        .map(|w| json!({ "at_ms": w.at.as_millis(), "ready": w.ready, "status": w.status, "restarts": w.restarts }))
        .collect();
    let entry = json!({
        "document": document,
        "notices": notices,
        "kubectl": watch,
        "axes": axes,
    });
    drawn.push((input, report));
    Ok(entry)
}

/// `POST /api/sweep`.
pub fn sweep(body: &str, state: &State, budget: &Budget) -> Reply {
    let (scenario, grid) = match serde_json::from_str::<Value>(body) {
        Ok(v) => match (
            v.get("scenario").and_then(Value::as_str),
            v.get("grid").and_then(Value::as_str),
        ) {
            (Some(s), Some(g)) => (s.to_string(), g.to_string()),
            _ => return Reply::error(400, "the body must be {\"scenario\": text, \"grid\": text}"),
        },
        Err(e) => return Reply::error(400, &format!("the body is not JSON: {e}")),
    };
    let mut inputs = match read(&scenario) {
        Ok(inputs) => inputs,
        Err(d) => return Reply::input_error(&d),
    };
    // The grid's base is the scenario sent with it.
    let grid_text = if grid.lines().any(|l| l.trim_start().starts_with("base")) {
        grid
    } else {
        format!("base = \"{ORIGIN}\"\n{grid}")
    };
    // The server reads no file a request names: timings belong in the scenario.
    let grid = GridFile::parse(&grid_text, ORIGIN).and_then(|file| match &file.timings {
        Some((_, span)) => Err(Diagnostic::error(
            ORIGIN,
            &grid_text,
            Some(span.clone()),
            "timings names a file, and the page reads none: write the timings in the scenario \
             (podsim.dev/<container>.<key> annotations of a manifest)",
        )),
        None => Grid::new(file, inputs.remove(0).scenario, Path::new(".")),
    });
    let grid = match grid {
        Ok(grid) => grid,
        Err(d) => return Reply::input_error(&d),
    };
    if grid.runs() > state.max_runs {
        return Reply::error(
            400,
            &format!(
                "the grid has {} runs; podsim serve runs at most {} (--max-runs)",
                grid.runs(),
                state.max_runs
            ),
        );
    }
    let mut csv = Vec::new();
    let sinks = podsim::sweep::Sinks {
        csv: &mut csv,
        summary: None,
    };
    let ran = podsim::sweep::run(&grid, 0..grid.runs(), 1, sinks, &budget.limits, &mut |_| {
        ControlFlow::Continue(())
    });
    match ran {
        Ok(_) => {}
        Err(SweepError::Interrupted { .. }) => return budget.exceeded(Halt::Stopped),
        Err(SweepError::OverBudget { events, .. }) => return budget.exceeded(Halt::OverBudget(events)),
        Err(e) => return Reply::error(500, &format!("the sweep failed: {e}")),
    }
    let mut reader = csv::Reader::from_reader(csv.as_slice());
    let columns: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(String::from).collect(),
        Err(e) => return Reply::error(500, &format!("the sweep's CSV: {e}")),
    };
    let rows: Vec<Vec<String>> = reader
        .records()
        .filter_map(Result::ok)
        .map(|r| r.iter().map(String::from).collect())
        .collect();
    Reply::json(&json!({ "columns": columns, "rows": rows }))
}

/// `GET /api/initial`.
pub fn initial(state: &State) -> Reply {
    let scenarios: Vec<Value> = state
        .initial
        .iter()
        .map(|(source, text)| json!({ "source": source, "text": text }))
        .collect();
    Reply::json(&json!({ "scenarios": scenarios }))
}

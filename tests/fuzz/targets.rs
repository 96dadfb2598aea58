//! The fuzz targets: one function per input podsim reads, each checking the
//! property every input must have. Both runners call these and nothing else:
//! the stable one in `tests/fuzz/` (seed corpus plus structured mutations,
//! part of `cargo test`) and the coverage-guided one in `fuzz/` (`cargo fuzz`,
//! which includes this file by path).
//!
//! Property, for every target and every byte string: no panic, and either a
//! result or an error that names the input (`origin:`), whose `line:col:`,
//! when it has one, lies inside the text. A target panics when the property
//! fails, so both runners see a violation as a crash.
//!
//! Invariant: the calls into podsim are the public entry points a user's
//! input goes through, all in this file, so a change of their shape is
//! mended here once.

use std::ops::ControlFlow;
use std::path::Path;

use podsim::engine::{DEFAULT_HORIZON, SimDuration};
use podsim::model::PodSimulator;
use podsim::report::html;
use podsim::report::plot::{PlotSpec, tradeoff};
use podsim::report::table::{Table, TableError};
use podsim::scenario::manifest::{self, Syntax, Timings};
use podsim::scenario::{InputFormat, Scenario};
use podsim::sweep::checkpoint::Checkpoint;
use podsim::sweep::{self, Grid, Manifest, Output, Resume, Sinks, Tally, shard::ShardInput};

/// The podsim checkout, for the grid's `scenarios/` folder and the manifest
/// an overlay is applied to: the crate's folder, or its parent for `fuzz/`.
pub fn repo() -> &'static Path {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if dir.ends_with("fuzz") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    }
}

/// The name each target gives its input, so errors can be checked to name it.
pub const ORIGIN: &str = "fuzz-input";

/// The manifest a timings overlay is applied to: the CKAD lab's graceful Pod
/// (two containers, a preStop hook, annotations), read from the repo.
const OVERLAID: &str = "scenarios/ckad/graceful.yaml";

/// Runs are simulated up to this horizon at most, so a valid scenario with a
/// year-long horizon cannot make one input take minutes.
const MAX_HORIZON: SimDuration = DEFAULT_HORIZON;

/// What a target made of an input: both are fine, and the runners count
/// them to show how deep the mutants reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Read, and run where the input describes runs.
    Accepted,
    /// Refused with an error that passed the property's checks.
    Refused,
}

/// Every input podsim reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A TOML scenario (`podsim run x.toml`), simulated when valid.
    ScenarioToml,
    /// A grid file (`podsim sweep --grid`), its base resolved in `scenarios/`;
    /// when valid, its first, middle and last runs are simulated.
    GridToml,
    /// A `--timings` overlay, applied to a bundled manifest when valid.
    TimingsToml,
    /// A Kubernetes manifest (`podsim run x.yaml`, `x.json`, `-`): YAML or
    /// JSON, one document or several, `List`s; each workload simulated when
    /// valid, each refusal checked.
    Manifest,
    /// A sweep's CSV as `plot` and `report` read it: the table, the trade-off
    /// plot (which must be well-formed SVG) and the HTML report page.
    CsvTable,
    /// Shards as `merge` reads them: NUL-separated pairs of a manifest (JSON)
    /// and its CSV. A merge that succeeds writes one header and every run once.
    Merge,
    /// What `sweep --resume` reads, against `CHECKPOINT_GRID`: a checkpoint
    /// (JSON), its CSV's partial file and its summary's, NUL-separated. A
    /// checkpoint accepted is resumed, and must end with the bytes of the
    /// uninterrupted sweep.
    Checkpoint,
}

/// The grid the checkpoint target resumes: 6 combinations × 2 replications.
pub const CHECKPOINT_GRID: &str = "base = \"seed-sidecar.toml\"\nreplications = 2\n[axes]\n\
    \"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\"containers.web.boot\" = [\"1s\", \"2s\", \"3s\"]\n";

impl Target {
    pub const ALL: [Target; 7] = [
        Target::ScenarioToml,
        Target::GridToml,
        Target::TimingsToml,
        Target::Manifest,
        Target::CsvTable,
        Target::Merge,
        Target::Checkpoint,
    ];

    /// The name of its `cargo fuzz` target and of its corpus folder.
    pub fn name(self) -> &'static str {
        match self {
            Target::ScenarioToml => "scenario_toml",
            Target::GridToml => "grid_toml",
            Target::TimingsToml => "timings_toml",
            Target::Manifest => "manifest",
            Target::CsvTable => "csv_table",
            Target::Merge => "merge",
            Target::Checkpoint => "checkpoint",
        }
    }

    /// Feeds `data` to the target. Panics if the property fails.
    pub fn run(self, data: &[u8]) -> Outcome {
        let repo = repo();
        match self {
            Target::ScenarioToml => {
                let text = String::from_utf8_lossy(data);
                match Scenario::parse(&text, ORIGIN) {
                    Ok(scenario) => simulate(&scenario),
                    Err(e) => located(&e.to_string(), &[ORIGIN], &text),
                }
            }
            Target::GridToml => {
                let text = String::from_utf8_lossy(data);
                match Grid::read(&text, ORIGIN, &repo.join("scenarios")) {
                    Ok(grid) => simulate_grid(&grid),
                    // An error in the base scenario names the base's file.
                    Err(e) => located_or_in_a_file(&e.to_string(), &text),
                }
            }
            Target::TimingsToml => {
                let text = String::from_utf8_lossy(data);
                match Timings::parse(&text, ORIGIN) {
                    Ok(timings) => {
                        let path = repo.join(OVERLAID);
                        let yaml = std::fs::read_to_string(&path).expect("the bundled manifest");
                        let origin = path.display().to_string();
                        match manifest::parse(&yaml, &origin, Some(&timings)) {
                            Ok(scenario) => simulate(&scenario),
                            // A container the overlay names but the manifest lacks is
                            // the overlay's fault; a bad value, the manifest's line.
                            Err(e) => {
                                let message = e.to_string();
                                if message.starts_with(ORIGIN) {
                                    located(&message, &[ORIGIN], &text)
                                } else {
                                    located(&message, &[&origin], &yaml)
                                }
                            }
                        }
                    }
                    Err(e) => located(&e.to_string(), &[ORIGIN], &text),
                }
            }
            Target::Manifest => {
                // As `podsim run -` reads it (JSON or YAML sniffed), and as
                // YAML too: a JSON text is also a YAML one.
                let text = String::from_utf8_lossy(data);
                let mut syntaxes = vec![Syntax::Yaml];
                if InputFormat::sniff(&text) == InputFormat::Manifest(Syntax::Json) {
                    syntaxes.push(Syntax::Json);
                }
                let mut outcome = Outcome::Refused;
                for syntax in syntaxes {
                    for result in manifest::parse_all(&text, ORIGIN, syntax, None) {
                        match result {
                            Ok(scenario) => outcome = simulate(&scenario),
                            Err(e) => {
                                located(&e.to_string(), &[ORIGIN], &text);
                            }
                        }
                    }
                }
                outcome
            }
            Target::CsvTable => csv_table(data),
            Target::Merge => merge(data),
            Target::Checkpoint => checkpoint(data),
        }
    }
}

/// Simulates a valid scenario, as `podsim run` would but without the trace.
fn simulate(scenario: &Scenario) -> Outcome {
    let mut run = scenario.run.clone();
    run.horizon = run.horizon.min(MAX_HORIZON);
    let horizon = run.horizon;
    let metrics = PodSimulator::new(run).run();
    assert!(
        metrics.end_ms <= horizon.as_millis(),
        "a run ended after its horizon"
    );
    Outcome::Accepted
}

/// Simulates the first, middle and last runs of a valid grid: a checked grid
/// promises that every combination runs.
fn simulate_grid(grid: &Grid) -> Outcome {
    let mut digits = vec![0; grid.axes.len()];
    for run in [0, grid.runs() / 2, grid.runs().saturating_sub(1)] {
        let mut spec = grid.base.clone();
        grid.digits(run, &mut digits);
        for (axis, &digit) in grid.axes.iter().zip(&digits) {
            axis.apply(digit, &mut spec);
        }
        spec.horizon = spec.horizon.min(MAX_HORIZON);
        PodSimulator::new(spec).run();
    }
    Outcome::Accepted
}

/// `plot` and `report` on a CSV: the table, then the default trade-off plot
/// and the report page, both of which must be well-formed XML.
fn csv_table(data: &[u8]) -> Outcome {
    let refused = |e: TableError| located(&e.to_string(), &[ORIGIN], &String::from_utf8_lossy(data));
    let table = match Table::read(data, ORIGIN) {
        Ok(table) => table,
        Err(e) => return refused(e),
    };
    let plot = match tradeoff(&table, &PlotSpec::default()) {
        Ok(plot) => well_formed(&plot.svg(), "the trade-off plot"),
        Err(e) => refused(e),
    };
    let page = match html::report(&html::Contents {
        pods: &[],
        services: &[],
        sweeps: std::slice::from_ref(&table),
    }) {
        Ok(page) => well_formed(&page, "the report page"),
        Err(e) => refused(e),
    };
    if plot == Outcome::Accepted && page == Outcome::Accepted {
        Outcome::Accepted
    } else {
        Outcome::Refused
    }
}

/// `merge` on shards given as `manifest \0 csv \0 manifest \0 csv ...`,
/// each manifest read as the CLI reads a `.manifest.json`.
fn merge(data: &[u8]) -> Outcome {
    let mut parts = data.split(|&b| b == 0);
    let mut shards = Vec::new();
    while let Some(json) = parts.next() {
        let csv = parts.next().unwrap_or_default();
        let Ok(manifest) = serde_json::from_slice::<Manifest>(json) else {
            return Outcome::Refused; // The CLI refuses it, naming the manifest's file.
        };
        shards.push(ShardInput {
            name: format!("{ORIGIN}-{}", shards.len()),
            manifest,
            csv,
        });
    }
    let mut out = Vec::new();
    match sweep::merge(shards, &mut out) {
        Ok(merged) => {
            assert_eq!(
                merged.bytes,
                out.len() as u64,
                "the merged manifest's size is not the output's"
            );
            let lines = out.iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(
                lines,
                merged.runs_total + 1,
                "a merge must write a header and each run once"
            );
            assert!(
                out.ends_with(b"\n") || out.is_empty(),
                "a merge wrote a partial line"
            );
            Outcome::Accepted
        }
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.contains(ORIGIN)
                    || message.contains("none of the shards")
                    || message == "no shards to merge",
                "a merge error names no shard: {message}"
            );
            Outcome::Refused
        }
    }
}

/// The checkpoint target's grid, read from `CHECKPOINT_GRID`.
pub fn checkpoint_grid() -> Grid {
    Grid::read(CHECKPOINT_GRID, ORIGIN, &repo().join("scenarios")).expect("the checkpoint target's grid")
}

/// The CSV and summary of the whole checkpoint grid, uninterrupted.
pub fn whole_sweep(grid: &Grid) -> (Vec<u8>, Vec<u8>) {
    let (mut csv, mut summary) = (Vec::new(), Vec::new());
    let sinks = Sinks {
        csv: &mut csv,
        summary: Some(&mut summary),
    };
    sweep::run(grid, 0..grid.runs(), 1, sinks, &Default::default(), &mut |_| {
        ControlFlow::Continue(())
    })
    .expect("the sweep runs");
    (csv, summary)
}

/// `sweep --resume` on `checkpoint \0 csv \0 summary`, checked as the CLI
/// checks them before a run; an accepted one is resumed to the end.
fn checkpoint(data: &[u8]) -> Outcome {
    let grid = checkpoint_grid();
    let mut parts = data.splitn(3, |&b| b == 0);
    let mut part = || parts.next().unwrap_or_default();
    let (json, csv, summary) = (part(), part(), part());
    let Ok(c) = serde_json::from_slice::<Checkpoint>(json) else {
        return Outcome::Refused; // The CLI refuses it, naming the checkpoint's file.
    };
    let runs = 0..grid.runs();
    if let Err(e) = c.check(&grid, runs.clone(), None, true) {
        assert!(!e.to_string().is_empty(), "a refusal that says nothing");
        return Outcome::Refused;
    }
    let s = c.summary.as_ref().expect("check() compared the summaries");
    let (Ok(csv_prefix), Ok(summary_prefix)) = (
        Tally::read(&mut &csv[..], c.csv.bytes),
        Tally::read(&mut &summary[..], s.bytes),
    ) else {
        return Outcome::Refused;
    };
    if Checkpoint::check_prefix(&c.csv, c.csv_rows(), &csv_prefix).is_err()
        || Checkpoint::check_prefix(s, c.next_run - c.csv.first_run, &summary_prefix).is_err()
    {
        return Outcome::Refused;
    }
    let mut resumed = (
        csv[..c.csv.bytes as usize].to_vec(),
        summary[..s.bytes as usize].to_vec(),
    );
    let sinks = Sinks {
        csv: &mut resumed.0,
        summary: Some(&mut resumed.1),
    };
    let from = Resume {
        csv: csv_prefix,
        summary: Some(summary_prefix),
    };
    let done: Output = sweep::resume(
        &grid,
        c.next_run..runs.end,
        1,
        sinks,
        from,
        &Default::default(),
        &mut |_| ControlFlow::Continue(()),
    )
    .expect("an accepted checkpoint resumes");
    let whole = whole_sweep(&grid);
    assert!(
        resumed == whole,
        "a resumed sweep differs from the uninterrupted one"
    );
    assert_eq!(
        done.csv.bytes,
        whole.0.len() as u64,
        "the resumed tally is not the file's"
    );
    Outcome::Accepted
}

/// Checks that `message` starts with one of `origins` and a colon, and that
/// a `line:col:` (or `line:`) after it lies inside `text`.
fn located(message: &str, origins: &[&str], text: &str) -> Outcome {
    let rest = origins
        .iter()
        .find_map(|o| message.strip_prefix(o).and_then(|r| r.strip_prefix(':')))
        .unwrap_or_else(|| panic!("the error does not start with {origins:?}: {message}"));
    let numbers: Vec<usize> = rest.split(':').take(2).map_while(|n| n.parse().ok()).collect();
    if let Some(&line) = numbers.first() {
        // TOML counts lines by `\n`; YAML also breaks lines at a lone `\r`.
        let by_newline: Vec<&str> = text.split('\n').collect();
        let by_any_break: Vec<&str> = text.split("\r\n").flat_map(|l| l.split(['\r', '\n'])).collect();
        let inside = |lines: &[&str]| {
            (1..=lines.len()).contains(&line)
                && numbers
                    .get(1)
                    .is_none_or(|&col| (1..=lines[line - 1].chars().count() + 1).contains(&col))
        };
        assert!(
            inside(&by_newline) || inside(&by_any_break),
            "the position is outside the input's {} lines: {message}",
            by_newline.len()
        );
    }
    assert!(
        !rest.trim().is_empty(),
        "the error says nothing after the origin: {message}"
    );
    Outcome::Refused
}

/// A grid error names the grid, or the file at fault (its base scenario).
fn located_or_in_a_file(message: &str, text: &str) -> Outcome {
    if message.starts_with(ORIGIN) {
        return located(message, &[ORIGIN], text);
    }
    let file = message.split(':').next().unwrap_or_default();
    assert!(
        Path::new(file).exists(),
        "the grid error names neither the grid nor a file: {message}"
    );
    Outcome::Refused
}

fn well_formed(xml: &str, what: &str) -> Outcome {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    if let Err(e) = roxmltree::Document::parse_with_options(xml, options) {
        panic!("{what} is not well-formed XML: {e}");
    }
    Outcome::Accepted
}

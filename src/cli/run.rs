//! `podsim run FILE...`: one scenario or several, Pods and Services in any
//! mix, as text or JSON (one document per line, so a `jq` filter reads one
//! run or a glob's worth the same way).
//!
//! Invariant: results go to `out`, in the order of the inputs; notices
//! (what loading a manifest had to assume) and refusals go to stderr, so
//! they never mix with JSON on stdout; the JSON carries the notices too.
//! Refused inputs are listed after every valid one has run.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueEnum;

use podsim::engine::{Limits, SimDuration};
use podsim::model::{PodReport, RunReport, RunSpec, simulate_within};
use podsim::report::bands::{Figure, timelines_svg};
use podsim::report::{chart, job, json, kubectl, metrics_table, service, timeline};
use podsim::scenario::{Diagnostic, Scenario};

use super::inputs::{self, Input, ReadArgs};
use super::interrupt::Interrupts;
use super::output::{Planned, check_outputs, picture_path, write_picture};
use super::{RunStopped, distribution, duration_arg};

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Scenario files: TOML, or Kubernetes manifests (.yaml, .yml, .json) of any workload
    /// with a Pod template, several per file, or `kind: List`; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Stop runs at this simulated time (default 24h, or the scenario's `horizon`).
    #[arg(long, value_name = "DURATION", value_parser = duration_arg)]
    pub horizon: Option<SimDuration>,

    /// Print what `kubectl get pod -w` would show as the Pod moves (for a
    /// Service, every Pod of its Deployment), instead of the timeline.
    #[arg(long, conflicts_with = "format")]
    pub watch: bool,

    /// Width of the band chart in cells: exactly this many, each an equal
    /// share of the run.
    #[arg(long, default_value_t = 60, value_name = "CELLS", value_parser = clap::value_parser!(u64).range(10..=1000))]
    pub width: u64,

    /// Run each scenario N times (replications 0 to N-1, each drawing its
    /// own durations) and print each metric's distribution after the timeline.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub replications: u64,

    /// Show the timeline of replication K (0-based) instead of replication 0.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub replication: u64,

    /// The seed of every draw [default: the scenario's `seed`, else 0].
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,

    /// Also draw the runs as one picture, stacked on a shared time axis, or
    /// each on its own when one would fill less than a quarter of it (.svg,
    /// or .png by extension); overwritten if it exists.
    #[arg(long, value_name = "OUT.svg", value_parser = picture_path)]
    pub svg: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Timeline, band chart and metrics for people.
    Text,
    /// One JSON document per run, one per line (JSON Lines), notices included.
    Json,
}

/// How many failed requests a Service's text lists before pointing to JSON.
const LISTED_FAILURES: usize = 20;

pub fn run(args: &RunArgs, out: &mut dyn Write) -> Result<()> {
    let loaded = inputs::load(
        &inputs::paths(&args.files),
        args.read.timings.as_deref(),
        args.read.input_format,
    )?;
    if let Some(path) = &args.svg {
        check_picture(&loaded.runs)?;
        check_outputs(&[Planned {
            flag: "--svg",
            path,
            keep_existing: false,
            picture: true,
        }])?;
    }
    show(args, &loaded.runs, out)?;
    // Refusals come last, after what ran, where a terminal shows them.
    out.flush()?;
    let done = match loaded.runs.len() {
        0 => "none ran".to_string(),
        n => format!("the other {n} ran"),
    };
    loaded.refusals(&done)
}

/// `--svg` stacks Pod runs on one time axis, or draws one Service's race:
/// a Service among other runs has no picture to share.
fn check_picture(runs: &[Input]) -> Result<()> {
    match runs.iter().find(|i| i.scenario.run.service.is_some()) {
        Some(service) if runs.len() > 1 => Err(super::UsageError(format!(
            "--svg draws Pod scenarios together or one Service scenario alone, and {} is a Service \
             scenario among {} runs; draw it on its own",
            service.source,
            runs.len()
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Runs the valid inputs and writes what `args` asks for.
fn show(args: &RunArgs, runs: &[Input], out: &mut dyn Write) -> Result<()> {
    if runs.is_empty() {
        return Ok(());
    }
    // Ctrl-C or SIGTERM ends the run in progress within milliseconds.
    let interrupts = Interrupts::catch()?;
    let limits = Limits::stopped_by(interrupts.flag());
    let stopped = |at: usize| RunStopped {
        at: at + 1,
        total: runs.len(),
        source: runs[at].source.clone(),
    };
    let mut outcomes: Vec<RunReport> = Vec::with_capacity(runs.len());
    for (at, input) in runs.iter().enumerate() {
        let outcome = simulate_within(&run_of(&input.scenario, args), &limits).map_err(|_| stopped(at))?;
        outcomes.push(outcome);
    }
    let mut distributions = Vec::new();
    if args.replications > 1 {
        for (at, input) in runs.iter().enumerate() {
            let summary = distribution::summarise(&run_of(&input.scenario, args), args.replications, &limits);
            distributions.push(summary.map_err(|_| stopped(at))?);
        }
    }
    drop(interrupts);
    for (input, summary) in runs.iter().zip(&mut distributions) {
        if distribution::all_alike(summary) {
            let name = &input.scenario.name;
            eprintln!(
                "podsim: notice: {}",
                distribution::alike_notice(name, args.replications)
            );
        }
    }
    let pods = || {
        runs.iter()
            .zip(&outcomes)
            .filter_map(|(input, outcome)| match outcome {
                RunReport::Pod(report) => Some((input, report)),
                RunReport::Service(_) => None,
            })
    };
    if let Some(path) = &args.svg {
        let picture = match (runs, outcomes.as_slice()) {
            ([input], [RunReport::Service(report)]) => {
                let s = &input.scenario;
                service::service_svg(&s.name, &s.run.pod, report)
            }
            _ => {
                let figures: Vec<Figure> = pods()
                    .map(|(input, report)| Figure {
                        title: &input.scenario.name,
                        spec: &input.scenario.run.pod,
                        report,
                    })
                    .collect();
                timelines_svg(&figures)
            }
        };
        write_picture(path, &picture)?;
    }
    if args.watch {
        let watched: Vec<_> = pods()
            .flat_map(|(input, report)| {
                let scenario = &input.scenario;
                kubectl::pods(&kube_name(scenario), &scenario.run.pod, report)
            })
            .collect();
        // The Pods in one table, as one `kubectl get pods -w` shows them;
        // each Service's Deployment in its own.
        let mut tables = Vec::new();
        if !watched.is_empty() {
            tables.push(kubectl::watch_text(&watched));
        }
        for (input, outcome) in runs.iter().zip(&outcomes) {
            if let RunReport::Service(report) = outcome {
                let s = &input.scenario;
                tables.push(service::watch::watch_text(&kube_name(s), &s.run.pod, report));
            }
        }
        write!(out, "{}", tables.join("\n"))?;
        return Ok(());
    }
    match args.format {
        Format::Json => {
            for (i, (input, outcome)) in runs.iter().zip(&outcomes).enumerate() {
                let mut document = document(input, outcome);
                if let (Some(summary), Some(object)) = (distributions.get_mut(i), document.as_object_mut()) {
                    let seed = run_of(&input.scenario, args).stream.seed;
                    object.insert("distribution".into(), distribution::json(summary, seed));
                }
                serde_json::to_writer(&mut *out, &document)?;
                writeln!(out)?;
            }
        }
        Format::Text => {
            for (input, outcome) in runs.iter().zip(&outcomes) {
                let scenario = &input.scenario;
                writeln!(out, "== {} ({})", scenario.name, input.source)?;
                writeln!(out)?;
                match outcome {
                    RunReport::Pod(report) => pod_text(scenario, report, args.width, out)?,
                    RunReport::Service(report) => {
                        let text = service::text(&scenario.run.pod, report, LISTED_FAILURES, args.width);
                        write!(out, "{text}")?;
                        writeln!(out)?;
                    }
                }
            }
            for (input, summary) in runs.iter().zip(&mut distributions) {
                let scenario = &input.scenario;
                writeln!(out, "== {} ({}): distribution", scenario.name, input.source)?;
                let seed = run_of(scenario, args).stream.seed;
                write!(out, "{}", distribution::text(summary, seed))?;
                writeln!(out)?;
            }
            let pods: Vec<_> = pods().collect();
            if pods.len() > 1 {
                writeln!(out, "== side by side")?;
                let names: Vec<&str> = pods.iter().map(|(i, _)| i.scenario.name.as_str()).collect();
                // Two workloads of one name are told apart by where they come from.
                let unique = names.iter().enumerate().all(|(i, n)| !names[..i].contains(n));
                let names: Vec<&str> = if unique {
                    names
                } else {
                    pods.iter().map(|(i, _)| i.source.as_str()).collect()
                };
                let metrics: Vec<_> = pods.iter().map(|(_, r)| r.metrics).collect();
                write!(out, "{}", metrics_table(&names, &metrics))?;
            }
        }
    }
    Ok(())
}

/// A Pod run for people: the timeline, the band chart, the metrics and, for
/// a Job, its Pods.
fn pod_text(scenario: &Scenario, report: &PodReport, width: u64, out: &mut dyn Write) -> Result<()> {
    write!(out, "{}", timeline::event_lines(&scenario.run.pod, report))?;
    writeln!(out)?;
    let picture = timeline::Timeline::new(&scenario.run.pod, report);
    write!(out, "{}", chart::band_chart(&picture, width))?;
    writeln!(out)?;
    write!(out, "{}", metrics_table(&["value"], &[report.metrics]))?;
    writeln!(out)?;
    if let Some(job) = &report.job {
        write!(out, "{}", job::text(&scenario.run.pod, job))?;
        writeln!(out)?;
    }
    Ok(())
}

/// One run as `--format json` prints it (and `podsim serve`'s API answers):
/// the scenario's name, where it came from, its kind and notices, then a
/// Pod's metrics and typed events, or a Service's figures, deletions,
/// failed requests and replicas.
pub(super) fn document(input: &Input, report: &RunReport) -> serde_json::Value {
    let s = &input.scenario;
    let body = match report {
        RunReport::Pod(report) => json::run_document(&s.name, &s.run.pod, report),
        RunReport::Service(report) => service::run_document(&s.name, &s.run.pod, report),
    };
    with_header(input, body)
}

/// `body` after the fields every run's document opens with: `name`,
/// `source`, `kind`, `notices`.
fn with_header(input: &Input, body: serde_json::Value) -> serde_json::Value {
    let s = &input.scenario;
    let mut document = serde_json::Map::new();
    document.insert("name".into(), s.name.clone().into());
    document.insert("source".into(), input.source.clone().into());
    document.insert("kind".into(), s.workload.map(|k| k.name()).into());
    document.insert(
        "notices".into(),
        s.notices.iter().map(notice_object).collect::<Vec<_>>().into(),
    );
    if let serde_json::Value::Object(rest) = body {
        document.extend(rest.into_iter().filter(|(k, _)| k != "name"));
    }
    document.into()
}

/// A notice as JSON: where (`file`, `line`, `column`, null when it has no
/// place) and the words the terminal shows.
fn notice_object(d: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "file": d.origin,
        "line": d.position.map(|p| p.0),
        "column": d.position.map(|p| p.1),
        "message": super::message(d),
    })
}

/// The run of `scenario` as the flags change it: horizon, seed, replication.
fn run_of(scenario: &Scenario, args: &RunArgs) -> RunSpec {
    let mut run = scenario.run.clone();
    run.horizon = args.horizon.unwrap_or(run.horizon);
    if let Some(seed) = args.seed {
        run.stream.seed = u64::from(seed);
    }
    run.stream.replication = args.replication;
    run
}

/// The Pod's (or a Service's Deployment's) name for kubectl's NAME column:
/// the scenario's name when it is a valid Kubernetes name, else the file
/// name without its extension.
pub(super) fn kube_name(scenario: &Scenario) -> String {
    let valid = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
    };
    if valid(&scenario.name) {
        return scenario.name.clone();
    }
    let stem = std::path::Path::new(&scenario.origin)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    stem.filter(|s| valid(s)).unwrap_or_else(|| "pod".to_string())
}

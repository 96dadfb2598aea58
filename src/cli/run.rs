//! `podsim run FILE...`: one scenario or several, as text or JSON.
//!
//! Invariant: results go to `out`; notices (what loading a manifest had to
//! assume) go to stderr, so they never mix with JSON on stdout.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::ValueEnum;

use podsim::engine::SimDuration;
use podsim::model::simulate;
use podsim::report::bands::{Figure, timelines_svg};
use podsim::report::{json, kubectl, metrics_table, timeline};
use podsim::scenario::Scenario;
use podsim::scenario::manifest::Timings;

use super::output::{Planned, check_outputs, picture_path, write_picture};
use super::{distribution, duration_arg};

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Scenario files: TOML, or Kubernetes manifests (.yaml, .yml) of a Pod, Job or Deployment.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Timings for manifests (boot, drain, ... per container; stop_at, ... for the Pod);
    /// they win over podsim.dev/ annotations.
    #[arg(long, value_name = "FILE.toml")]
    pub timings: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Stop runs at this simulated time (default 24h, or the scenario's `horizon`).
    #[arg(long, value_name = "DURATION", value_parser = duration_arg)]
    pub horizon: Option<SimDuration>,

    /// Print what `kubectl get pod -w` would show as the Pod moves, instead
    /// of the timeline.
    #[arg(long, conflicts_with = "format")]
    pub watch: bool,

    /// Width of the band chart in cells.
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

    /// Also draw the runs as one picture, stacked on a shared time axis
    /// (.svg, or .png by extension); overwritten if it exists.
    #[arg(long, value_name = "OUT.svg", value_parser = picture_path)]
    pub svg: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Timeline, band chart and metrics for people.
    Text,
    /// One JSON document per file (an array for several files).
    Json,
}

/// Loads scenario files as `run` reads them — TOML, or manifests with the
/// `--timings` overlay — and prints their notices; `report` shares it.
pub fn load_scenarios(files: &[&Path], timings: Option<&Path>) -> Result<Vec<Scenario>> {
    let timings = timings.map(Timings::load).transpose().map_err(super::error)?;
    let scenarios: Vec<Scenario> = files
        .iter()
        .map(|f| super::load_scenario(f, timings.as_ref()))
        .collect::<Result<_, _>>()?;
    super::print_notices(scenarios.iter().flat_map(|s| &s.notices));
    Ok(scenarios)
}

pub fn run(args: &RunArgs, out: &mut dyn Write) -> Result<()> {
    let files: Vec<&Path> = args.files.iter().map(PathBuf::as_path).collect();
    let scenarios = load_scenarios(&files, args.timings.as_deref())?;
    if let Some(path) = &args.svg {
        check_outputs(&[Planned {
            flag: "--svg",
            path,
            keep_existing: false,
            picture: true,
        }])?;
    }
    let reports: Vec<_> = scenarios.iter().map(|s| simulate(&run_of(s, args))).collect();
    let mut distributions: Vec<_> = match args.replications {
        1 => Vec::new(),
        n => scenarios
            .iter()
            .map(|s| distribution::summarise(&run_of(s, args), n))
            .collect(),
    };
    if let Some(path) = &args.svg {
        let figures: Vec<Figure> = scenarios
            .iter()
            .zip(&reports)
            .map(|(s, report)| Figure {
                title: &s.name,
                spec: &s.run.pod,
                report,
            })
            .collect();
        write_picture(path, &timelines_svg(&figures))?;
    }
    if args.watch {
        let pods: Vec<_> = scenarios
            .iter()
            .zip(&reports)
            .map(|(scenario, report)| (pod_name(scenario), kubectl::watch(&scenario.run.pod, report)))
            .collect();
        write!(out, "{}", kubectl::watch_text(&pods))?;
        return Ok(());
    }
    match args.format {
        Format::Json => {
            let documents: Vec<_> = scenarios
                .iter()
                .zip(&reports)
                .enumerate()
                .map(|(i, (s, r))| {
                    let mut document = json::run_document(&s.name, &s.run.pod, r);
                    if let (Some(summary), Some(object)) =
                        (distributions.get_mut(i), document.as_object_mut())
                    {
                        object.insert(
                            "distribution".into(),
                            distribution::json(summary, run_of(s, args).stream.seed),
                        );
                    }
                    document
                })
                .collect();
            let value = if documents.len() == 1 {
                documents.into_iter().next().unwrap_or_default()
            } else {
                serde_json::Value::Array(documents)
            };
            serde_json::to_writer_pretty(&mut *out, &value)?;
            writeln!(out)?;
        }
        Format::Text => {
            for (scenario, report) in scenarios.iter().zip(&reports) {
                writeln!(out, "== {} ({})", scenario.name, scenario.origin)?;
                writeln!(out)?;
                write!(out, "{}", timeline::event_lines(&scenario.run.pod, report))?;
                writeln!(out)?;
                let picture = timeline::Timeline::new(&scenario.run.pod, report);
                write!(out, "{}", timeline::band_chart(&picture, args.width))?;
                writeln!(out)?;
                write!(out, "{}", metrics_table(&["value"], &[report.metrics]))?;
                writeln!(out)?;
            }
            for (scenario, summary) in scenarios.iter().zip(&mut distributions) {
                writeln!(out, "== {} ({}): distribution", scenario.name, scenario.origin)?;
                write!(
                    out,
                    "{}",
                    distribution::text(summary, run_of(scenario, args).stream.seed)
                )?;
                writeln!(out)?;
            }
            if scenarios.len() > 1 {
                writeln!(out, "== side by side")?;
                let names: Vec<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
                let metrics: Vec<_> = reports.iter().map(|r| r.metrics).collect();
                write!(out, "{}", metrics_table(&names, &metrics))?;
            }
        }
    }
    Ok(())
}

/// The run of `scenario` as the flags change it: horizon, seed, replication.
fn run_of(scenario: &Scenario, args: &RunArgs) -> podsim::model::RunSpec {
    let mut run = scenario.run.clone();
    run.horizon = args.horizon.unwrap_or(run.horizon);
    if let Some(seed) = args.seed {
        run.stream.seed = u64::from(seed);
    }
    run.stream.replication = args.replication;
    run
}

/// The Pod's name for kubectl's NAME column: the scenario's name when it is
/// a valid Kubernetes name, else the file name without its extension.
fn pod_name(scenario: &Scenario) -> String {
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

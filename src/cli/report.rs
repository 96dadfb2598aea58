//! `podsim report FILE...`: one self-contained HTML page for scenarios and
//! sweep results: a `.csv` is a sweep, anything else a scenario read exactly
//! as `podsim run` reads it (TOML, or a manifest with `--timings`, several
//! workloads per file, `-` for standard input).
//!
//! Invariant: a page is written only if every input was read; a page that
//! silently lacks a refused input would look complete.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use podsim::engine::SimDuration;
use podsim::model::{RunReport, simulate};
use podsim::report::html::{Contents, ScenarioRun, ServiceRun, report};
use podsim::report::table::Table;

use super::duration_arg;
use super::inputs::{self, ReadArgs};
use super::output::{Planned, check_outputs, write_file};

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Scenario files (TOML, or Kubernetes manifests .yaml/.yml/.json, `-` for
    /// standard input, as for `podsim run`) and sweep CSV files (.csv).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    /// The HTML file to write; overwritten if it exists.
    #[arg(long, short, value_name = "FILE", default_value = "report.html")]
    pub out: PathBuf,

    /// Stop runs at this simulated time (default 24h, or the scenario's `horizon`).
    #[arg(long, value_name = "DURATION", value_parser = duration_arg)]
    pub horizon: Option<SimDuration>,
}

pub fn run(args: &ReportArgs, out: &mut dyn Write) -> Result<()> {
    check_outputs(&[Planned {
        flag: "--out",
        path: &args.out,
        keep_existing: false,
        picture: false,
    }])?;
    let is_csv = |f: &&PathBuf| {
        f.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
    };
    let sweeps: Vec<Table> = args
        .files
        .iter()
        .filter(is_csv)
        .map(|f| Table::load(f))
        .collect::<Result<_, _>>()?;
    let files: Vec<PathBuf> = args.files.iter().filter(|f| !is_csv(f)).cloned().collect();
    let loaded = inputs::load(
        &inputs::paths(&files),
        args.read.timings.as_deref(),
        args.read.input_format,
    )?;
    loaded.refusals("nothing written")?;
    let reports: Vec<RunReport> = (loaded.runs.iter())
        .map(|input| {
            let mut run = input.scenario.run.clone();
            run.horizon = args.horizon.unwrap_or(run.horizon);
            simulate(&run)
        })
        .collect();
    // A Service scenario is its own kind of run: its replicas, endpoints
    // and requests, not its Pod template alone.
    let (mut pod_runs, mut service_runs) = (Vec::new(), Vec::new());
    for (input, report) in loaded.runs.iter().zip(&reports) {
        let scenario = &input.scenario;
        match report {
            RunReport::Pod(report) => pod_runs.push(ScenarioRun { scenario, report }),
            RunReport::Service(report) => service_runs.push(ServiceRun { scenario, report }),
        }
    }
    let page = report(&Contents {
        pods: &pod_runs,
        services: &service_runs,
        sweeps: &sweeps,
    })?;
    write_file(&args.out, page.as_bytes())?;
    writeln!(
        out,
        "wrote {}: {} scenario(s), {} sweep(s)",
        args.out.display(),
        pod_runs.len() + service_runs.len(),
        sweeps.len()
    )?;
    Ok(())
}

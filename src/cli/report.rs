//! `podsim report FILE...`: one self-contained HTML page for scenario files
//! (`.toml`) and sweep results (`.csv`), told apart by extension.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};

use podsim::engine::SimDuration;
use podsim::model::simulate;
use podsim::report::html::{ScenarioRun, report};
use podsim::report::table::Table;

use super::duration_arg;
use super::output::write_file;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Scenario files (.toml) and sweep CSV files (.csv).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The HTML file to write; overwritten if it exists.
    #[arg(long, short, value_name = "FILE", default_value = "report.html")]
    pub out: PathBuf,

    /// Stop runs at this simulated time (default 24h, or the scenario's `horizon`).
    #[arg(long, value_name = "DURATION", value_parser = duration_arg)]
    pub horizon: Option<SimDuration>,
}

pub fn run(args: &ReportArgs, out: &mut dyn Write) -> Result<()> {
    let mut scenarios = Vec::new();
    let mut sweeps = Vec::new();
    for file in &args.files {
        match file.extension().and_then(|e| e.to_str()) {
            Some("toml") => scenarios.push(super::load_scenario(file, None)?),
            Some("csv") => sweeps.push(Table::load(file)?),
            _ => bail!(
                "{}: cannot tell what this is; give scenario files as .toml and sweep results as .csv",
                file.display()
            ),
        }
    }
    let reports: Vec<_> = scenarios
        .iter()
        .map(|s| {
            let mut run = s.run.clone();
            run.horizon = args.horizon.unwrap_or(run.horizon);
            simulate(&run)
        })
        .collect();
    let runs: Vec<ScenarioRun> = scenarios
        .iter()
        .zip(&reports)
        .map(|(scenario, report)| ScenarioRun { scenario, report })
        .collect();
    let page = report(&runs, &sweeps)?;
    write_file(&args.out, page.as_bytes())?;
    writeln!(
        out,
        "wrote {}: {} scenario(s), {} sweep(s)",
        args.out.display(),
        runs.len(),
        sweeps.len()
    )?;
    Ok(())
}

//! `podsim run` for Service scenarios: the replicas behind a Service, the
//! requests they answered and the ones that failed, as text or JSON.
//!
//! Invariant: a Service run is never mixed into a Pod run's output: the
//! two kinds of scenario are refused together, so every document of one
//! call has the same shape.

use std::io::Write;

use anyhow::Result;

use podsim::model::service::simulate_service;
use podsim::report::service;
use podsim::scenario::Scenario;

use super::run::{Format, RunArgs};

/// How many failed requests the text lists before pointing to JSON.
const LISTED_FAILURES: usize = 20;

pub fn run(scenarios: &[Scenario], args: &RunArgs, out: &mut dyn Write) -> Result<()> {
    if let Some(pod) = scenarios.iter().find(|s| s.run.service.is_none()) {
        return Err(super::UsageError(format!(
            "{} is a Pod scenario and the others Service scenarios; run them separately",
            pod.origin
        ))
        .into());
    }
    if args.svg.is_some() || args.watch {
        return Err(super::UsageError(
            "--svg and --watch draw one Pod; for a Service scenario use the text or --format json".into(),
        )
        .into());
    }
    let reports: Vec<_> = scenarios
        .iter()
        .map(|s| {
            let mut run = s.run.clone();
            run.horizon = args.horizon.unwrap_or(run.horizon);
            simulate_service(&run)
        })
        .collect();
    match args.format {
        Format::Json => {
            let mut documents: Vec<_> = scenarios
                .iter()
                .zip(&reports)
                .map(|(s, r)| service::run_document(&s.name, &s.run.pod, r))
                .collect();
            let value = if documents.len() == 1 {
                documents.remove(0)
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
                write!(
                    out,
                    "{}",
                    service::text(&scenario.run.pod, report, LISTED_FAILURES)
                )?;
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

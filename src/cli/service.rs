//! `podsim run` for Service scenarios: the replicas behind a Service, the
//! requests they answered and the ones that failed, as text (with the
//! race drawn in cells) or JSON, the race's picture with `--svg`, and
//! `kubectl get pods -w` for every Pod with `--watch` (a table per scenario).
//!
//! Invariant: a Service run is never mixed into a Pod run's output: the
//! two kinds of scenario are refused together, so every document of one
//! call has the same shape.

use std::io::Write;

use anyhow::Result;

use podsim::model::service::simulate_service;
use podsim::report::service;
use podsim::scenario::Scenario;

use super::output::{Planned, check_outputs, write_picture};
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
    if let Some(path) = &args.svg {
        if scenarios.len() > 1 {
            return Err(super::UsageError(format!(
                "--svg draws one Service run and {} scenarios were given; draw each on its own",
                scenarios.len()
            ))
            .into());
        }
        check_outputs(&[Planned {
            flag: "--svg",
            path,
            keep_existing: false,
            picture: true,
        }])?;
    }
    let reports: Vec<_> = scenarios
        .iter()
        .map(|s| {
            let mut run = s.run.clone();
            run.horizon = args.horizon.unwrap_or(run.horizon);
            simulate_service(&run)
        })
        .collect();
    if let (Some(path), Some(scenario), Some(report)) = (&args.svg, scenarios.first(), reports.first()) {
        write_picture(
            path,
            &service::service_svg(&scenario.name, &scenario.run.pod, report),
        )?;
    }
    if args.watch {
        let tables: Vec<String> = scenarios
            .iter()
            .zip(&reports)
            .map(|(s, r)| service::watch::watch_text(&super::run::kube_name(s), &s.run.pod, r))
            .collect();
        write!(out, "{}", tables.join("\n"))?;
        return Ok(());
    }
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
                    service::text(&scenario.run.pod, report, LISTED_FAILURES, args.width)
                )?;
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

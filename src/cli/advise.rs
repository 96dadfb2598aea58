//! `podsim advise FILE…`: the smallest safe preStop sleep and grace period
//! of a Service scenario, what they buy and cost, and the patch to apply.
//! The inputs are read as `podsim run` reads them; the search is the
//! library's (`podsim::advise`), the words `podsim::report::advice`'s.
//!
//! Invariant: the patch file and the picture are written whole or not at
//! all (a temporary name, then renamed), after the advice is complete.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use podsim::advise::{
    DEFAULT_REPLICATIONS, P99_EXCESS, PRE_STOP_TOP, Request, Target, advise, assume_question,
    replications_for,
};
use podsim::engine::SimDuration;
use podsim::report::advice;

use super::inputs::{self, ReadArgs};
use super::output::{Planned, check_outputs, picture_path, write_file, write_picture};
use super::run::Format;
use super::{UsageError, duration_arg};

#[derive(Debug, clap::Args)]
pub struct AdviseArgs {
    /// Scenarios: TOML, or manifests (.yaml, .yml, .json): a Service's (preStop, grace), a Pod's
    /// start (the proxy's place, its startupProbe) or a Job's; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Safe means: the 99th percentile (nearest rank) of a run's failed requests is at most N
    /// [default: 0].
    #[arg(long, value_name = "N", conflicts_with = "failed_mean")]
    pub failed_p99: Option<u64>,

    /// Safe means: the mean of a run's failed requests is at most X.
    #[arg(long, value_name = "X", value_parser = non_negative)]
    pub failed_mean: Option<f64>,

    /// Replications per candidate value (R); the answer is checked on R fresh ones. 300 makes
    /// the p99 a percentile: below 100 it is the worst run [default: 300; with --confidence,
    /// the fewest that can show the target].
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub replications: Option<u64>,

    /// Judge the p99 targets by a binomial test at this confidence (e.g. 0.95) instead of by
    /// nearest rank: a value is safe when its runs make "more than 1% of runs exceed the
    /// bound" unlikely (at most 1 − C).
    #[arg(long, value_name = "C", value_parser = confidence_arg, conflicts_with = "failed_mean")]
    pub confidence: Option<f64>,

    /// A rollout must never leave fewer ready endpoints than N [default: the replicas less
    /// today's maxUnavailable].
    #[arg(long, value_name = "N")]
    pub min_ready: Option<u32>,

    /// A rollout's time budget: the p99 of rollout start → last old Pod gone; the strategy
    /// advised is then the one with the fewest Pods at once within it, not the fastest.
    #[arg(long, value_name = "DURATION", value_parser = duration_arg)]
    pub max_rollout: Option<SimDuration>,

    /// The seed of every draw [default: the scenario's `seed`, else 0].
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,

    /// The step of the preStop values searched, from 0 s to 120 s.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = step_arg)]
    pub step: SimDuration,

    /// A Pod's start: the time-to-Ready budget (p99) the advised proxy placement and
    /// startupProbe must fit.
    #[arg(long, value_name = "DURATION", value_parser = duration_arg)]
    pub max_ready: Option<SimDuration>,

    /// Output format (JSON: one document per input, one per line, the patch included).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Write the patch to this file (replaced if it exists) instead of after the table.
    #[arg(long, value_name = "FILE")]
    pub patch: Option<PathBuf>,

    /// Also draw the frontier: failed requests against their cost for each candidate the
    /// search ran, today's and the advised marked (.svg, or .png by extension); overwritten
    /// if it exists.
    #[arg(long, value_name = "OUT.svg", value_parser = picture_path)]
    pub svg: Option<PathBuf>,
}

/// `--failed-mean`: a number of requests, 0 or more.
fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!(
            "expected a number of requests, 0 or more, not \"{text}\""
        )),
    }
}

/// `--confidence`: a probability strictly between 0 and 1.
fn confidence_arg(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(c) if c > 0.0 && c < 1.0 => Ok(c),
        _ => Err(format!(
            "expected a confidence between 0 and 1 (e.g. 0.95), not \"{text}\""
        )),
    }
}

/// `--step`: a duration from 1 ms to the top of the range.
fn step_arg(text: &str) -> Result<SimDuration, String> {
    let step = duration_arg(text)?;
    if step == SimDuration::ZERO || step > PRE_STOP_TOP {
        return Err(format!("the step must be between 1ms and {PRE_STOP_TOP}"));
    }
    Ok(step)
}

/// The request the flags make; with `--confidence`, R is the fewest
/// replications that can show the target, and a smaller one is refused.
fn request(args: &AdviseArgs) -> Result<Request> {
    let target = match (args.failed_p99, args.failed_mean) {
        (_, Some(x)) => Target::FailedMean(x),
        (n, None) => Target::FailedP99(n.unwrap_or(0)),
    };
    let needed = args.confidence.map(|c| replications_for(P99_EXCESS, c));
    let replications = match (args.replications, needed) {
        (Some(r), Some(n)) if r < n => {
            return Err(UsageError(format!(
                "--replications {r} cannot show a p99 at --confidence {}: even with no run over \
                 the bound, that takes {n} (0.99^R ≤ 1 − C)",
                args.confidence.unwrap_or_default()
            ))
            .into());
        }
        (Some(r), _) => r,
        (None, n) => n.unwrap_or(DEFAULT_REPLICATIONS),
    };
    Ok(Request {
        step: args.step,
        confidence: args.confidence,
        min_ready: args.min_ready,
        max_rollout: args.max_rollout,
        ..Request::new(target, replications)
    })
}

pub fn run(args: &AdviseArgs, out: &mut dyn Write) -> Result<()> {
    if args.patch.is_some() && args.files.len() > 1 {
        return Err(UsageError("--patch writes one patch: give one input with it".into()).into());
    }
    if args.svg.is_some() && args.files.len() > 1 {
        return Err(UsageError("--svg draws one advice: give one input with it".into()).into());
    }
    let planned = [("--patch", &args.patch, false), ("--svg", &args.svg, true)];
    let planned: Vec<Planned> = (planned.iter())
        .filter_map(|&(flag, path, picture)| {
            Some(Planned {
                flag,
                path: path.as_ref()?,
                keep_existing: false,
                picture,
            })
        })
        .collect();
    check_outputs(&planned)?;
    let loaded = inputs::load(
        &inputs::paths(&args.files),
        args.read.timings.as_deref(),
        args.read.input_format,
    )?;
    let request = request(args)?;
    let mut refused = Vec::new();
    for input in &loaded.runs {
        let s = &input.scenario;
        let mut spec = s.run.clone();
        if let Some(seed) = args.seed {
            spec.stream.seed = u64::from(seed);
        }
        if spec.service.is_none() {
            if args.svg.is_some() {
                eprintln!(
                    "podsim: notice: {}: no Service, so no frontier to draw: --svg draws failed requests against \
                     their cost, and a Pod's start or a Job has no requests",
                    input.source
                );
            }
            if let Err(e) = super::advise_pod::advise(input, &spec, args, out)? {
                refused.push(e);
            }
            continue;
        }
        if let Some(service) = spec.service.as_deref_mut() {
            for assumed in assume_question(service) {
                eprintln!("podsim: notice: {}: {assumed}", input.source);
            }
        }
        let advice = match advise(&spec, &request) {
            Ok(advice) => advice,
            Err(e) => {
                refused.push(anyhow::anyhow!("{}: {e}", input.source));
                continue;
            }
        };
        let patch = advice::patch(&advice, s.workload, &s.name, &s.origin);
        match args.format {
            Format::Json => {
                serde_json::to_writer(&mut *out, &advice::json(&s.name, &input.source, &advice, &patch))?;
                writeln!(out)?;
            }
            Format::Text => {
                write!(out, "{}", advice::text(&s.name, &input.source, &advice))?;
                if args.patch.is_none() {
                    writeln!(out)?;
                    write!(out, "{}", patch.text)?;
                }
            }
        }
        if let Some(path) = &args.patch {
            write_file(path, patch.text.as_bytes())?;
            if args.format == Format::Text {
                writeln!(out, "wrote the patch to {}", path.display())?;
            }
        }
        if let Some(path) = &args.svg {
            write_picture(path, &advice::frontier_svg(&s.name, &advice))?;
            if args.format == Format::Text {
                writeln!(out, "drew the frontier in {}", path.display())?;
            }
        }
    }
    out.flush()?;
    if refused.len() == 1 && loaded.refused.is_empty() && loaded.runs.len() == 1 {
        return Err(refused.remove(0));
    }
    for e in &refused {
        eprintln!("podsim: error: {e:#}");
    }
    let advised = loaded.runs.len() - refused.len();
    loaded.refusals(&format!("{advised} advised"))?;
    match refused.len() {
        0 => Ok(()),
        n => Err(anyhow::anyhow!(
            "{n} of {} inputs not advised (listed above)",
            loaded.runs.len()
        )),
    }
}

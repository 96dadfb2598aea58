//! What `podsim advise` shows: a table of the settings (today, advised,
//! what it buys, what it costs), the failures by cause, the evidence (runs
//! simulated against the brute-force grid's), the same as JSON for tools
//! (`json`), what limits or decides a setting (`limits`), the patch to apply (`patch`), and the frontier picture of the
//! candidates searched (`frontier`).
//!
//! Why apart from the search: the search is a library answer (`Advice`);
//! how a person or a tool reads it changes without changing the answer.

mod frontier;
pub mod job;
mod json;
mod limits;
mod patch;
mod rollout;
pub mod start;

pub use frontier::frontier_svg;
pub use json::json;
pub use patch::{Patch, patch};

use std::fmt::Write;

use crate::advise::{
    Advice, Checked, P99_EXCESS, PreStopAdvice, Sample, Searched, allowed_exceedances, replications_for,
};
use crate::engine::SimDuration;
use crate::model::service::Cause;
use crate::scenario::manifest::WorkloadKind;

/// The table and the evidence, for people.
pub fn text(name: &str, source: &str, advice: &Advice) -> String {
    let mut out = String::new();
    let r = advice.request.replications;
    let target = advice.request.target;
    let _ = writeln!(out, "== advise: {name} ({source})");
    let _ = writeln!(
        out,
        "target: {} ≤ {} over {r} replications (seed {}), checked on {r} fresh ones",
        target.name(),
        number(target.bound()),
        advice.seed
    );
    if let Some(line) = confidence_line(advice) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out);
    let mut rows = vec![pre_stop_row(advice), grace_row(advice)];
    rows.extend(advice.rollout.iter().flat_map(rollout::rows));
    out.push_str(&table(&rows));
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", causes_line(&advice.today, &advice.advised));
    for line in durations_lines(&advice.today, &advice.advised) {
        let _ = writeln!(out, "{line}");
    }
    for line in limits::limits(advice) {
        let _ = writeln!(out, "{line}");
    }
    let grid = advice.grid_runs();
    let strategies = match &advice.rollout {
        Some(ro) => format!(
            ", {} grace values and {} rollout strategies",
            advice.grace.searched.values, ro.candidates
        ),
        None => format!(" and {} grace values", advice.grace.searched.values),
    };
    let pre_stop_values = match &advice.pre_stop.proxy {
        Some(proxy) => format!(
            "{} preStop values ({each} on {} alone, {each} on it and {})",
            advice.pre_stop_values(),
            advice.container,
            proxy.container,
            each = advice.pre_stop.searched.values,
        ),
        None => format!("{} preStop values", advice.pre_stop.searched.values),
    };
    let _ = writeln!(
        out,
        "runs: {} simulated; a brute-force grid of the same ranges runs {grid} ({pre_stop_values}{strategies}, \
         {r} replications each): {:.0}x more",
        advice.runs,
        grid as f64 / advice.runs.max(1) as f64
    );
    let _ = writeln!(out, "  preStop: {}", searched_text(&advice.pre_stop.searched, r));
    let _ = writeln!(out, "  grace: {}", searched_text(&advice.grace.searched, r));
    if let Some(ro) = &advice.rollout {
        let _ = writeln!(out, "  rollout: {}", rollout::searched(ro));
    }
    out
}

/// With `--confidence`: what a safe value then is, and why R replications.
fn confidence_line(advice: &Advice) -> Option<String> {
    let c = advice.request.confidence?;
    let r = advice.request.replications;
    let allowed = allowed_exceedances(r, P99_EXCESS, Some(c)).unwrap_or(0);
    let fewest = replications_for(P99_EXCESS, c);
    Some(format!(
        "confidence {c}: a value is safe when at most {allowed} of its {r} runs exceed the bound, which happens \
         with probability ≤ {:.2} if more than 1% of runs exceed it; {fewest} replications are the fewest that \
         can show that (0.99^{fewest} = {:.4})",
        1.0 - c,
        (1.0 - P99_EXCESS).powf(fewest as f64)
    ))
}

/// Rows of (setting, today, advised, what it buys, what it costs) under
/// their header, each column as wide as its widest cell.
fn table(rows: &[[String; 5]]) -> String {
    let header = ["setting", "today", "advised", "what it buys", "what it costs"].map(String::from);
    let widths: Vec<usize> = (0..5)
        .map(|c| {
            rows.iter()
                .chain([&header])
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in [&header].into_iter().chain(rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

/// A patch that changes nothing: a comment saying so and an empty
/// object, which `kubectl patch` takes as a no-op (every patch writer's).
fn empty_patch(kind: WorkloadKind, name: &str) -> String {
    format!(
        "# podsim advise: nothing to change in {} {name}\n{{}}\n",
        kind.name()
    )
}

/// How to apply a strategic-merge patch of workload `kind`/`name`: in
/// place, or, where the API refuses the change on a live object (a Pod's
/// containers; a Job's template and `podFailurePolicy`, immutable after
/// creation: `ValidateJobSpecUpdate`), to the manifest before recreating it.
fn apply_line(kind: WorkloadKind, name: &str) -> String {
    let resource = kind.name().to_lowercase();
    match kind {
        WorkloadKind::Pod | WorkloadKind::Job => format!(
            "# podsim advise: a strategic-merge patch for {} {name}; a live {resource} cannot take it (its spec \
             is immutable): patch the manifest and recreate it:\n#   kubectl patch --local -f MANIFEST --type \
             strategic --patch-file THIS-FILE -o yaml > patched.yaml",
            kind.name()
        ),
        _ => format!(
            "# podsim advise: a strategic-merge patch for {} {name}; apply with\n#   kubectl patch {resource} {name} \
             --type strategic --patch-file THIS-FILE",
            kind.name()
        ),
    }
}

/// The setting's name as a Kubernetes user knows it.
fn pre_stop_label(advice: &Advice) -> String {
    match &advice.pre_stop.proxy {
        Some(proxy) => format!("preStop sleep ({} and {})", advice.container, proxy.container),
        None => format!("preStop sleep ({})", advice.container),
    }
}

const GRACE_LABEL: &str = "terminationGracePeriodSeconds";

fn pre_stop_row(advice: &Advice) -> [String; 5] {
    let p = &advice.pre_stop;
    let target = advice.request.target;
    let today = today_pre_stop(p);
    let metric = |s: &Sample| number(target.metric(s));
    match p.advised {
        Some(advised) => {
            let (t, a) = (&advice.today, &advice.advised);
            let costs = match (t.mean(|r| r.termination_ms), a.mean(|r| r.termination_ms)) {
                (Some(before), Some(after)) => format!(
                    "termination {} → {} per deleted Pod (mean)",
                    seconds(before),
                    seconds(after)
                ),
                _ => "no Pod was deleted".to_string(),
            };
            [
                pre_stop_label(advice),
                today,
                advised.to_string(),
                format!("{} {} → {}", target.name(), metric(t), metric(a)),
                costs,
            ]
        }
        None => [
            pre_stop_label(advice),
            today,
            "none safe".into(),
            format!(
                "no value in 0s–{}s meets {} ≤ {}",
                crate::advise::PRE_STOP_TOP.as_millis() / 1000,
                target.name(),
                number(target.bound())
            ),
            "-".into(),
        ],
    }
}

fn grace_row(advice: &Advice) -> [String; 5] {
    let g = &advice.grace;
    let r = advice.request.replications;
    let today = g.today.to_string();
    let (advised, buys, costs) = match g.advised {
        Some(a) if g.kills_remain => (
            a.to_string(),
            "SIGKILL stays; the hook + today's grace, as searched".into(),
            lingers(a, g.today),
        ),
        Some(a) if a == g.today => (
            a.to_string(),
            format!("no SIGKILL in {r} runs (today's is enough)"),
            "nothing".into(),
        ),
        Some(a) => (
            a.to_string(),
            format!("SIGKILL in {} of {r} runs → none", g.killed_today),
            lingers(a, g.today),
        ),
        None => (
            today.clone(),
            format!("none up to {} keeps SIGKILL away", g.top),
            "-".into(),
        ),
    };
    [GRACE_LABEL.into(), today, advised, buys, costs]
}

/// What a longer grace costs: the longest a Pod that hangs may linger.
fn lingers(advised: SimDuration, today: SimDuration) -> String {
    match advised == today {
        true => "nothing".into(),
        false => format!("a Pod that hangs lingers up to {advised}, not {today}"),
    }
}

/// Today's hook as the table shows it.
fn today_pre_stop(p: &PreStopAdvice) -> String {
    p.today
        .as_ref()
        .map_or_else(|| "none".to_string(), |d| d.to_string())
}

/// The failures per run by cause, today → advised, for the causes either has.
fn causes_line(today: &Sample, advised: &Sample) -> String {
    let parts: Vec<String> = Cause::ALL
        .iter()
        .filter(|&&c| today.cause_mean(c) > 0.0 || advised.cause_mean(c) > 0.0)
        .map(|&c| {
            format!(
                "{} {} → {}",
                c.name(),
                number(today.cause_mean(c)),
                number(advised.cause_mean(c))
            )
        })
        .collect();
    match parts.is_empty() {
        true => "failed requests: none, today or advised".to_string(),
        false => format!(
            "failed requests per run (mean), today → advised: {}",
            parts.join(", ")
        ),
    }
}

/// One figure of a run, if the run has it.
type Figure = fn(&crate::advise::Run) -> Option<u64>;

/// What a rollout or a drain takes, today → advised, when the scenario has one.
fn durations_lines(today: &Sample, advised: &Sample) -> Vec<String> {
    let figures: [(&str, Figure); 2] = [
        ("rollout (start → last old Pod gone)", |r| r.rollout_done_ms),
        ("drain (start → last Pod of the node gone)", |r| r.drain_ms),
    ];
    figures
        .iter()
        .filter_map(|(what, figure)| {
            let (before, after) = (today.mean(figure)?, advised.mean(figure)?);
            Some(format!("{what}: {} → {} (mean)", seconds(before), seconds(after)))
        })
        .collect()
}

/// How one setting's search went, in words.
fn searched_text(s: &Searched, r: u64) -> String {
    let found = match (s.bisected, s.checked) {
        (
            Some(b),
            Some(Checked {
                held: true,
                walked: 0,
                ..
            }),
        ) => {
            format!(
                "bisection found {b} on replications 0-{}; it held on {r}-{}",
                r - 1,
                2 * r - 1
            )
        }
        (Some(b), Some(c)) if c.held => format!(
            "bisection found {b}; it failed on fresh replications {r}-{}, and {} steps up held",
            2 * r - 1,
            c.walked
        ),
        (Some(b), _) => format!(
            "bisection found {b}; no value up to {} steps above held on fresh replications",
            crate::advise::WALK
        ),
        (None, _) => "not even the top of the range is safe".to_string(),
    };
    format!("{} of {} values run; {found}", s.evaluated, s.values)
}

/// A mean in milliseconds as seconds with millis, as `podsim run` prints times.
fn seconds(ms: f64) -> String {
    format!("{:.3}s", ms / 1000.0)
}

/// A count or a mean: whole numbers as such, else two decimals.
fn number(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

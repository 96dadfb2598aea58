//! What `podsim advise` shows: a table of the settings (today, advised,
//! what it buys, what it costs), the failures by cause, the evidence (runs
//! simulated against the brute-force grid's), the same as JSON for tools,
//! the patch to apply (`patch`), and the frontier picture of the
//! candidates searched (`frontier`).
//!
//! Why apart from the search: the search is a library answer (`Advice`);
//! how a person or a tool reads it changes without changing the answer.

mod frontier;
pub mod job;
mod patch;
mod rollout;
pub mod start;

pub use frontier::frontier_svg;
pub use patch::{Patch, patch};

use std::fmt::Write;

use serde_json::{Value, json};

use crate::advise::{
    Advice, Checked, GraceAdvice, P99_EXCESS, PreStopAdvice, Sample, Searched, Target, allowed_exceedances,
    replications_for,
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
    for line in limits(advice) {
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
    let _ = writeln!(
        out,
        "runs: {} simulated; a brute-force grid of the same ranges runs {grid} ({} preStop values{strategies}, \
         {r} replications each): {:.0}x more",
        advice.runs,
        advice.pre_stop.searched.values,
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

/// What keeps a setting from being safe, when one is not, and the
/// disruption that overrides the grace.
fn limits(advice: &Advice) -> Vec<String> {
    let mut lines = Vec::new();
    let (p, g) = (&advice.pre_stop, &advice.grace);
    match p.advised {
        None => lines.extend(pre_stop_limit(p, advice.request.target)),
        Some(a) => lines.extend(pre_stop_decided(p, a, advice.request.step)),
    }
    if let Some(proxy) = &p.proxy {
        lines.extend(proxy_lines(&advice.container, &proxy.container));
    }
    if g.kills_remain {
        lines.push(grace_limit(g, advice.request.replications));
    }
    let budget = advice.request.max_rollout;
    lines.extend(advice.rollout.as_ref().and_then(|ro| rollout::limit(ro, budget)));
    if g.overridden {
        lines.push(
            "note: a disruption's grace_period (kubectl delete --grace-period) overrides the Pod's grace for the \
             Pod it deletes"
                .into(),
        );
    }
    lines
}

/// Why the proxy's hook is advised with the app's, and what Istio offers
/// instead (not modelled: podsim says so rather than guess their timing).
fn proxy_lines(app: &str, proxy: &str) -> Vec<String> {
    vec![
        format!(
            "why both: \"{proxy}\" stops taking new connections at SIGTERM (istio/istio#34855), so no preStop of \
             \"{app}\" alone helps; the proxy must outlive the endpoint race and \"{app}\" must keep listening \
             behind it, so both sleep the advised time"
        ),
        "instead (not simulated): a native sidecar (Istio 1.19+, ENABLE_NATIVE_SIDECARS=true; \
         istio.io/latest/blog/2023/native-sidecars/), or proxy.istio.io/config with terminationDrainDuration or \
         EXIT_ON_ZERO_ACTIVE_CONNECTIONS (istio.io/latest/docs/reference/config/istio.mesh.v1alpha1/#ProxyConfig)"
            .into(),
    ]
}

fn pre_stop_limit(p: &PreStopAdvice, target: Target) -> Vec<String> {
    if let Some(c) = p.searched.checked.filter(|c| !c.held) {
        let bisected = p.searched.bisected.unwrap_or_default();
        return vec![format!(
            "what limits it: {bisected} met {} ≤ {} on replications 0 to R-1 but not on fresh ones, nor did the \
             {} steps above it: the answer is at the edge of what these replications tell; try more \
             --replications",
            target.name(),
            number(target.bound()),
            c.walked
        )];
    }
    let mut lines = vec![format!(
        "what limits it: at {}s of preStop these failures remain (mean per run):",
        crate::advise::PRE_STOP_TOP.as_millis() / 1000
    )];
    for &(cause, mean) in &p.left_at_top {
        lines.push(format!(
            "  {} {}: {}",
            cause.name(),
            number(mean),
            why_left(cause)
        ));
    }
    lines
}

/// What decides an advised preStop when it is not the endpoint race (no
/// refused or timed-out connection one step below): the failures there,
/// and why a longer hook removes them.
fn pre_stop_decided(p: &PreStopAdvice, advised: SimDuration, step: SimDuration) -> Option<String> {
    let race = |c: Cause| matches!(c, Cause::Refused | Cause::Timeout);
    if p.decided_by.is_empty() || p.decided_by.iter().any(|&(c, _)| race(c)) {
        return None;
    }
    let left: Vec<String> = (p.decided_by.iter())
        .map(|&(c, mean)| format!("{} {}", c.name(), number(mean)))
        .collect();
    let why = match p.keeps_busy {
        true => {
            "the app keeps kept-alive connections serving after SIGTERM until they sit idle 5 s (on_sigterm = \
             \"close-keep-busy\", Node's server.close()) and the clients keep them busy, so a Pod still holding \
             them is SIGKILLed with requests in flight; the preStop only gives the clients' pools time to drop \
             the connections pinned to the deleted Pod (conntrack) before SIGTERM, so its length is how long \
             that takes, not the endpoint race. The lever is the app: close each connection after its \
             response at SIGTERM (\"close-then-drain\", Go's Server.Shutdown)"
        }
        false => {
            "not the endpoint race: requests cut while served or kept-alive connections closed under a \
             request; the preStop holds SIGTERM back until the deleted Pod's connections have wound down"
        }
    };
    Some(format!(
        "what decides it: at {} (one step below) the failures left are {} (mean per run): {why}",
        SimDuration(advised.as_millis().saturating_sub(step.as_millis())),
        left.join(", ")
    ))
}

/// Why a cause survives the longest preStop.
fn why_left(cause: Cause) -> &'static str {
    match cause {
        Cause::Refused | Cause::Timeout => {
            "new connections still sent to the Pod after its listener closed or its IP went: its rules drop \
             it later than that, or keep it for want of another endpoint (KEP-1669)"
        }
        Cause::NoEndpoints => {
            "no ready endpoint is left (too few replicas, or a Recreate): a preStop adds none"
        }
        Cause::Inflight => {
            "requests cut while served: the process is killed busy (a drain longer than the grace, or an app \
             that keeps busy connections until SIGKILL); a preStop cannot remove them"
        }
        Cause::Reset | Cause::KeepaliveRace => {
            "kept-alive connections closed under a request: the client's pool, not the endpoint race"
        }
        Cause::Unreachable => "requests to a lost node's Pods: no preStop runs on a node that is gone",
    }
}

fn grace_limit(g: &GraceAdvice, replications: u64) -> String {
    format!(
        "what limits it: at a grace of {} a container is still SIGKILLed in {} of {replications} runs: an app \
         that never exits on SIGTERM (drain = \"never\", on_sigterm = \"ignore\") or keeps busy connections \
         open{}",
        g.top,
        g.killed_at_top,
        match g.advised {
            Some(_) => "",
            None => "; today's grace is kept",
        }
    )
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

/// The advice as one JSON document, the patch included.
pub fn json(name: &str, source: &str, advice: &Advice, patch: &Patch) -> Value {
    let r = advice.request.replications;
    let target = advice.request.target;
    let metric = match target {
        Target::FailedP99(_) => "failed_p99",
        Target::FailedMean(_) => "failed_mean",
    };
    let by_cause = |s: &Sample| -> Value {
        Cause::ALL
            .iter()
            .map(|&c| (c.name().to_string(), json!(s.cause_mean(c))))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let figures = |s: &Sample| {
        json!({
            metric: target.metric(s),
            "failed_mean_by_cause": by_cause(s),
            "termination_ms_mean": s.mean(|r| r.termination_ms),
            "rollout_done_ms_mean": s.mean(|r| r.rollout_done_ms),
            "drain_ms_mean": s.mean(|r| r.drain_ms),
            "sigkilled_runs": s.killed_runs(),
        })
    };
    let ms = |d: Option<SimDuration>| d.map(SimDuration::as_millis);
    let p = &advice.pre_stop;
    let g = &advice.grace;
    let mut settings = vec![
        json!({
            "key": p.path,
            "kubernetes_field": "lifecycle.preStop",
            "container": advice.container,
            "today": p.today.as_ref().map(ToString::to_string),
            "advised_ms": ms(p.advised),
            "left_at_top": p.left_at_top.iter().map(|(c, m)| (c.name().to_string(), json!(m))).collect::<serde_json::Map<_, _>>(),
            "searched": searched_json(&p.searched),
        }),
        json!({
            "key": g.path,
            "kubernetes_field": "terminationGracePeriodSeconds",
            "today_ms": g.today.as_millis(),
            "advised_ms": ms(g.advised),
            "top_ms": g.top.as_millis(),
            "sigkilled_runs_at_today": g.killed_today,
            "sigkill_remains": g.kills_remain,
            "overridden_by_disruption": g.overridden,
            "searched": searched_json(&g.searched),
        }),
    ];
    if let (Some(proxy), Some(first)) = (&p.proxy, settings.first_mut()) {
        first["proxy"] = json!({
            "container": proxy.container,
            "key": format!("containers.{}.{}", proxy.container, crate::scenario::key::Field::PreStop.name()),
            "today": proxy.today.as_ref().map(ToString::to_string),
        });
    }
    settings.extend(advice.rollout.iter().flat_map(rollout::json));
    json!({
        "name": name,
        "source": source,
        "target": { "metric": metric, "bound": target.bound() },
        "replications": r,
        "confidence": advice.request.confidence,
        "seed": advice.seed,
        "step_ms": advice.request.step.as_millis(),
        "settings": settings,
        "today": figures(&advice.today),
        "advised": figures(&advice.advised),
        "runs": advice.runs,
        "grid_runs": advice.grid_runs(),
        "patch": { "format": patch.format(), "text": patch.text },
    })
}

fn searched_json(s: &Searched) -> Value {
    json!({
        "values": s.values,
        "evaluated": s.evaluated,
        "bisected_ms": s.bisected.map(SimDuration::as_millis),
        "fresh_check_held": s.checked.map(|c| c.held),
        "walked": s.checked.map(|c| c.walked),
    })
}

//! Helpers shared by the model tests: build a Pod in a few words and run it.

use podsim::engine::SimDuration;
/// The typed history the helpers' picks are written in.
pub use podsim::model::{Change, ExitReason, ProbeKind, Signal, UpdateEffect};
use podsim::model::{Metrics, PodReport, PodSpec, RunSpec, simulate_pod};
use podsim::scenario::Scenario;

pub fn secs(s: u64) -> SimDuration {
    SimDuration::from_secs(s)
}

pub fn run(spec: &PodSpec) -> Metrics {
    simulate_pod(&RunSpec::new(spec.clone())).metrics
}

pub fn run_text(toml: &str) -> PodReport {
    let scenario = Scenario::parse(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    simulate_pod(&scenario.run)
}

pub fn load(path: &str) -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The whole history of scenario text `toml`, every change typed, as
/// `(ms, container or "pod", change)`.
pub fn history_of(toml: &str) -> Vec<(u64, String, Change)> {
    let scenario = Scenario::parse(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    history(&simulate_pod(&scenario.run), &scenario.run.pod)
}

/// `report`'s history as `(ms, container or "pod", change)`.
pub fn history(report: &PodReport, spec: &PodSpec) -> Vec<(u64, String, Change)> {
    (report.trace.iter())
        .map(|e| {
            let who = e
                .container
                .map_or("pod".to_string(), |c| spec.container(c).name.clone());
            (e.at.as_millis(), who, e.what)
        })
        .collect()
}

/// When `container` ("pod" for the Pod) had a change that `pick` picks.
pub fn events(toml: &str, container: &str, pick: impl Fn(Change) -> bool) -> Vec<u64> {
    history_of(toml)
        .into_iter()
        .filter(|(_, c, what)| c == container && pick(*what))
        .map(|(t, _, _)| t)
        .collect()
}

/// `(ms, container)` of every change that `pick` picks.
pub fn who_and_when(toml: &str, pick: impl Fn(Change) -> bool) -> Vec<(u64, String)> {
    history_of(toml)
        .into_iter()
        .filter(|(_, _, what)| pick(*what))
        .map(|(t, c, _)| (t, c))
        .collect()
}

/// Picks `change` and nothing else.
pub fn is(change: Change) -> impl Fn(Change) -> bool {
    move |c| c == change
}

/// Picks the container's first start.
pub fn first_start(c: Change) -> bool {
    c == Change::Starting { attempt: 1 }
}

/// Picks the start of attempt `n` (from 1).
pub fn attempt(n: u32) -> impl Fn(Change) -> bool {
    is(Change::Starting { attempt: n })
}

/// Picks a start after the first: a restart (R20).
pub fn restarted(c: Change) -> bool {
    matches!(c, Change::Starting { attempt } if attempt > 1)
}

/// Picks an exit for `reason`.
pub fn exit(reason: ExitReason) -> impl Fn(Change) -> bool {
    is(Change::Exited(reason))
}

/// Picks any exit.
pub fn exited(c: Change) -> bool {
    matches!(c, Change::Exited(_))
}

/// Picks an exit with `code`, whatever its reason.
pub fn exited_with(code: i32) -> impl Fn(Change) -> bool {
    move |c| matches!(c, Change::Exited(reason) if reason.code() == code)
}

/// Picks a SIGTERM, whatever its stop timeout.
pub fn sigterm(c: Change) -> bool {
    matches!(
        c,
        Change::Sigterm {
            signal: Signal::Term,
            ..
        }
    )
}

/// Picks a SIGTERM with a stop timeout of `secs` seconds.
pub fn sigterm_with(timeout: u64) -> impl Fn(Change) -> bool {
    is(Change::Sigterm {
        timeout: secs(timeout),
        signal: Signal::Term,
    })
}

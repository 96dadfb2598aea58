//! Helpers shared by the model tests: build a Pod in a few words and run
//! it; the typed picks of its history are `picks`', which the manifest
//! tests share.

use podsim::engine::SimDuration;
use podsim::model::{Metrics, PodReport, PodSpec, RunSpec, simulate_pod};
use podsim::scenario::Scenario;

pub use crate::picks::*;

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

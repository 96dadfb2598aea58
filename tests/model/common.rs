//! Helpers shared by the model tests: build a Pod in a few words and run it.

use podsim::engine::SimDuration;
use podsim::model::{Metrics, PodSpec, RunReport, RunSpec, simulate};
use podsim::scenario::Scenario;

pub fn secs(s: u64) -> SimDuration {
    SimDuration::from_secs(s)
}

pub fn run(spec: &PodSpec) -> Metrics {
    simulate(&RunSpec::new(spec.clone())).metrics
}

pub fn run_text(toml: &str) -> RunReport {
    let scenario = Scenario::parse(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    simulate(&scenario.run)
}

pub fn load(path: &str) -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The timeline as `(ms, container or "pod", text)` for readable assertions.
pub fn timeline(report: &RunReport, spec: &PodSpec) -> Vec<(u64, String, String)> {
    report
        .lines()
        .map(|(e, line)| {
            let who = e
                .container
                .map_or("pod".to_string(), |c| spec.container(c).name.clone());
            (e.at.as_millis(), who, line.to_string())
        })
        .collect()
}

/// The timeline of scenario text `toml`.
pub fn timeline_of(toml: &str) -> Vec<(u64, String, String)> {
    let scenario = Scenario::parse(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    timeline(&simulate(&scenario.run), &scenario.run.pod)
}

/// When `container` did something whose description starts with `what`.
pub fn events(toml: &str, container: &str, what: &str) -> Vec<u64> {
    timeline_of(toml)
        .into_iter()
        .filter(|(_, c, w)| c == container && w.starts_with(what))
        .map(|(t, _, _)| t)
        .collect()
}

/// `(ms, container)` of every line described exactly as `what`.
pub fn who_and_when(toml: &str, what: &str) -> Vec<(u64, String)> {
    timeline_of(toml)
        .into_iter()
        .filter(|(_, _, w)| w == what)
        .map(|(t, c, _)| (t, c))
        .collect()
}

//! kubectl's view of the model's runs: what `kubectl get pod -w` prints
//! (STATUS and RESTARTS, as kubectl's printer words them from the Pod's
//! status) for the kubelet rules that are about what a user sees (R50,
//! R53, R68, R69, R79). These check the view `report::kubectl` builds from the
//! history; the model's own tests (`model`) assert typed changes only.

mod hooks;
mod probes;
mod reboot;

use podsim::report::kubectl;
use podsim::scenario::Scenario;

/// `(s, STATUS, RESTARTS)` of every `kubectl get pod -w` line from `from` s
/// on, the first (the Pod's creation) left out when `skip_first`.
fn watch_lines(toml: &str, from: u64, skip_first: bool) -> Vec<(u64, String, String)> {
    let scenario = Scenario::parse(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    let report = podsim::model::simulate_pod(&scenario.run);
    kubectl::watch(&scenario.run.pod, &report.trace)
        .into_iter()
        .skip(usize::from(skip_first))
        .map(|l| (l.at.as_millis() / 1000, l.status.clone(), l.restarts_column()))
        .filter(|(s, _, _)| *s >= from)
        .collect()
}

/// Every line after the first.
fn watch(toml: &str) -> Vec<(u64, String, String)> {
    watch_lines(toml, 0, true)
}

/// Every line from `from` s on.
fn watch_from(toml: &str, from: u64) -> Vec<(u64, String, String)> {
    watch_lines(toml, from, false)
}

fn line(s: u64, status: &str, restarts: &str) -> (u64, String, String) {
    (s, status.to_string(), restarts.to_string())
}

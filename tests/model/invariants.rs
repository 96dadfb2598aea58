//! Issue 16's invariants of the Pod model under random Pods (`rich_pod`:
//! any kind and order, probes, crashes, Jobs, deletion at any moment),
//! each checked against the one history a run records, so a meter and the
//! trace that disagree fail here too.

use std::collections::BTreeMap;

use podsim::engine::SimDuration;
use podsim::model::{Change, ContainerKind, Outcome, PodSpec, RunSpec, TraceEntry, simulate_pod};
use proptest::prelude::*;

use super::properties::rich_pod;

/// The `[start, end)` intervals in which each container's process was
/// alive (booted and not yet exited), in milliseconds; a container still
/// alive at the end of the run is cut at `end_ms`.
fn alive_intervals(trace: &[TraceEntry], containers: usize, end_ms: u64) -> Vec<Vec<(u64, u64)>> {
    alive(trace, containers, end_ms).0
}

/// `alive_intervals`, and which containers were still alive at the end.
fn alive(trace: &[TraceEntry], containers: usize, end_ms: u64) -> (Vec<Vec<(u64, u64)>>, Vec<bool>) {
    let mut since: Vec<Option<u64>> = vec![None; containers];
    let mut intervals = vec![Vec::new(); containers];
    for e in trace {
        let Some(id) = e.container else { continue };
        let i = id.0 as usize;
        match e.what {
            Change::Alive { .. } => since[i] = since[i].or(Some(e.at.as_millis())),
            Change::Exited(_) => {
                if let Some(start) = since[i].take() {
                    intervals[i].push((start, e.at.as_millis()));
                }
            }
            _ => {}
        }
    }
    let still_alive = since.iter().map(Option::is_some).collect();
    for (i, start) in since.into_iter().enumerate() {
        if let Some(start) = start {
            intervals[i].push((start, end_ms));
        }
    }
    (intervals, still_alive)
}

/// The length of the union of `intervals`.
fn union_ms(mut intervals: Vec<(u64, u64)>) -> u64 {
    intervals.sort_unstable();
    let (mut total, mut reach) = (0, 0);
    for (a, b) in intervals {
        let a = a.max(reach);
        if b > a {
            total += b - a;
            reach = b;
        }
    }
    total
}

fn run(spec: &PodSpec, horizon: SimDuration) -> podsim::model::PodReport {
    simulate_pod(&RunSpec {
        horizon,
        ..RunSpec::new(spec.clone())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// A run stops at its horizon at the latest, and says so when the
    /// horizon is what stopped it: nothing is recorded past the horizon,
    /// and a run that ends by itself ends before it.
    #[test]
    fn prop_a_run_ends_by_its_horizon_or_reports_horizon(spec in rich_pod(), horizon_s in 1u64..90) {
        let horizon = SimDuration::from_secs(horizon_s);
        let report = run(&spec, horizon);
        let m = report.metrics;
        prop_assert!(report.trace.iter().all(|e| e.at.as_millis() <= horizon.as_millis()));
        match m.outcome {
            Outcome::Horizon => prop_assert_eq!(m.end_ms, horizon.as_millis()),
            _ => prop_assert!(m.end_ms <= horizon.as_millis(), "{:?}", m),
        }
    }

    /// Once the Pod is Succeeded or Failed no container starts again
    /// (R48), and when the run ends nothing is alive. A terminal phase also
    /// means every container has stopped (the kubelet reports Succeeded or
    /// Failed on the termination path only once they have, R44/R47 step 7)
    /// — except after a regular init container failed under `Never`:
    /// `getPhase` returns Failed at once (R47 step 4, ahead of counting
    /// running containers), while the kubelet is still killing the native
    /// sidecars that had started (R9). podsim reports the same.
    #[test]
    fn prop_no_container_is_alive_after_the_pod_is_terminal(spec in rich_pod()) {
        let report = run(&spec, SimDuration::from_secs(3600));
        let end = report.metrics.end_ms;
        let (alive, still_alive) = alive(&report.trace, spec.containers.len(), end);
        let terminal = report
            .trace
            .iter()
            .find(|e| matches!(e.what, Change::Phase(p) if p.is_terminal()))
            .map(|e| e.at.as_millis());
        let Some(at) = terminal else { return Ok(()) };
        let init_failed = report.trace.iter().any(|e| e.what == Change::PodFailed);
        for (i, intervals) in alive.iter().enumerate() {
            for &(start, stop) in intervals {
                let kind = spec.containers[i].kind;
                let may_outlive = init_failed && kind == ContainerKind::Sidecar;
                prop_assert!(
                    stop <= at || may_outlive,
                    "{:?} {} alive {}..{} after the Pod was terminal at {}", kind, i, start, stop, at
                );
            }
        }
        if report.metrics.outcome == Outcome::Settled {
            prop_assert!(!still_alive.contains(&true), "alive when the run ended: {:?}", still_alive);
        }
        let restarted = report
            .trace
            .iter()
            .any(|e| e.at.as_millis() > at && matches!(e.what, Change::Starting { .. }));
        prop_assert!(!restarted, "a container started after the Pod was terminal at {}", at);
    }

    /// Exposure is time in which an app is alive and no proxy is: it never
    /// exceeds the time in which some app is alive.
    #[test]
    fn prop_exposure_never_exceeds_the_apps_alive_time(spec in rich_pod()) {
        let report = run(&spec, SimDuration::from_secs(3600));
        let alive = alive_intervals(&report.trace, spec.containers.len(), report.metrics.end_ms);
        let apps: Vec<(u64, u64)> = spec
            .containers
            .iter()
            .zip(alive)
            .filter(|(c, _)| c.kind == ContainerKind::App)
            .flat_map(|(_, intervals)| intervals)
            .collect();
        prop_assert!(report.metrics.exposed_total_ms <= union_ms(apps), "{:?}", report.metrics);
    }

    /// The restart count is every container's starts minus its first
    /// (R20), and each start says which attempt it is.
    #[test]
    fn prop_restart_counts_equal_the_starts_minus_one(spec in rich_pod()) {
        let report = run(&spec, SimDuration::from_secs(3600));
        let mut starts: BTreeMap<u32, u32> = BTreeMap::new();
        for e in &report.trace {
            if let (Some(id), Change::Starting { attempt }) = (e.container, e.what) {
                let n = starts.entry(id.0).or_default();
                *n += 1;
                prop_assert_eq!(attempt, *n);
            }
        }
        let restarts: u32 = starts.values().map(|n| n - 1).sum();
        prop_assert_eq!(report.metrics.restarts, restarts);
    }
}

#[test]
fn union_counts_overlaps_once() {
    assert_eq!(union_ms(vec![(0, 10), (5, 15), (20, 25)]), 20);
    assert_eq!(union_ms(vec![(3, 3)]), 0);
    assert_eq!(union_ms(Vec::new()), 0);
}

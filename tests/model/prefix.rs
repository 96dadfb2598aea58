//! Runs that start from a prefix saved before another run's deletion
//! (`PodSimulator::run_with_prefix`): a sweep's rows that differ only in
//! what a kill reads share everything up to the deletion. Such a run must
//! be the run from Pod creation, metrics and history alike.

use podsim::engine::SimDuration;
use podsim::model::{Drain, PodSimulator, RunPrefix, RunSpec, Signal, Trace, simulate_pod};
use podsim::scenario::Scenario;
use proptest::prelude::*;

use super::properties::rich_pod;

/// What a kill reads of one container: drain, preStop, SIGTERM's exit
/// code, the stop signal and the signal it drains on.
type KillFields = (Option<u64>, Option<u64>, i32, usize, usize);

fn kill_fields() -> impl Strategy<Value = KillFields> {
    (
        proptest::option::of(0u64..9_000),
        proptest::option::of(0u64..6_000),
        0i32..2,
        0usize..4,
        0usize..3,
    )
}

/// A few signals that drain, die or survive (R55, R59).
const SIGNALS: [Signal; 4] = [Signal::Term, Signal::Quit, Signal::Int, Signal::Winch];

/// `run` with its kill-only fields set from `fields` and `grace`.
fn with_kill_fields(run: &RunSpec, fields: &[KillFields], grace: u64) -> RunSpec {
    let mut run = run.clone();
    run.pod.termination_grace_period = SimDuration::from_millis(grace);
    for (c, &(drain, pre_stop, code, signal, drains_on)) in run.pod.containers.iter_mut().zip(fields) {
        c.drain = drain.map_or(Drain::Never, |d| SimDuration::from_millis(d).into());
        c.pre_stop = pre_stop.map(|p| SimDuration::from_millis(p).into());
        c.exit_code_on_sigterm = code;
        c.stop_signal = SIGNALS[signal];
        c.drains_on = SIGNALS[drains_on];
    }
    run
}

/// Runs `first` and then `second` on one simulator and one prefix, and
/// checks each against a run from Pod creation. Returns whether the
/// prefix was saved.
fn check_pair(first: &RunSpec, second: &RunSpec) -> Result<bool, TestCaseError> {
    let mut sim = PodSimulator::recording(first.clone());
    let mut prefix = RunPrefix::new(first, Trace::new());
    for run in [first, second] {
        *sim.spec_mut() = run.clone();
        let metrics = sim.run_with_prefix(&mut prefix);
        // A Job-mode spec too runs as one Pod here, as a Pod grid's rows do.
        let mut fresh = PodSimulator::recording(run.clone());
        prop_assert_eq!(metrics, fresh.run());
        prop_assert_eq!(sim.trace(), fresh.trace());
    }
    Ok(prefix.is_saved())
}

proptest! {
    // About one case in five saves a prefix (the others kill before their
    // deletion or are never deleted): 3000 cases try some 600 resumed runs.
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Any Pod, then the same Pod with other drains, hooks, signals and
    /// grace: both runs from the prefix are the runs from creation.
    #[test]
    fn prop_a_run_from_a_prefix_is_the_run_from_creation(
        spec in rich_pod(),
        fields in proptest::collection::vec(kill_fields(), 8),
        other in proptest::collection::vec(kill_fields(), 8),
        graces in (0u64..40_000, 0u64..40_000),
    ) {
        let run = RunSpec { horizon: SimDuration::from_secs(3600), ..RunSpec::new(spec) };
        check_pair(&with_kill_fields(&run, &fields, graces.0), &with_kill_fields(&run, &other, graces.1))?;
    }
}

fn run_of(toml: &str) -> RunSpec {
    Scenario::parse(toml, "t.toml").unwrap().run
}

#[test]
fn the_seed_sidecar_saves_its_prefix_and_the_next_drain_starts_there() {
    // The seed Pod is deleted at 10 s with nothing killed before: the
    // prefix is saved. With web draining 1 s instead of 3 s, the proxy's
    // turn comes at 11 s and it drains 1 s: termination 2 s, not 4 s.
    let seed = run_of(include_str!("../../scenarios/seed-sidecar.toml"));
    let mut faster = seed.clone();
    let web = faster
        .pod
        .containers
        .iter_mut()
        .find(|c| c.name == "web")
        .unwrap();
    web.drain = SimDuration::from_secs(1).into();
    let mut sim = PodSimulator::new(seed.clone());
    let mut prefix = RunPrefix::new(&seed, ());
    assert_eq!(sim.run_with_prefix(&mut prefix).termination_ms, Some(4000));
    assert!(prefix.is_saved());
    *sim.spec_mut() = faster;
    let metrics = sim.run_with_prefix(&mut prefix);
    assert_eq!(
        (metrics.ready_ms, metrics.termination_ms),
        (Some(6000), Some(2000))
    );
    prefix.forget();
    assert!(!prefix.is_saved());
}

/// No prefix is saved when the run killed a container before its
/// deletion: that kill read the fields a resumed run may change.
#[test]
fn a_kill_before_the_deletion_saves_no_prefix() {
    // Liveness (period 10 s, threshold 3) fails from 20 s after boot:
    // 30, 40, 50 fail, web is killed at 50 s; the deletion is at 60 s.
    let liveness = r#"
        [pod]
        stop_at = "60s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
        liveness_probe = { period = "10s", pass_until = "20s" }
    "#;
    // A delete at 5 s kills first; the deletion at 10 s comes again.
    let deleted_first = r#"
        [pod]
        stop_at = "10s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "20s"
        [[actions]]
        at = "5s"
        delete = true
        grace_period = "30s"
    "#;
    for toml in [liveness, deleted_first] {
        let run = run_of(toml);
        let mut prefix = RunPrefix::new(&run, ());
        let metrics = PodSimulator::new(run.clone()).run_with_prefix(&mut prefix);
        assert_eq!(metrics, simulate_pod(&run).metrics);
        assert!(!prefix.is_saved(), "{toml}");
    }
}

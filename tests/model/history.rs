//! The run's one history: what the model reports, and that a recording
//! observer changes nothing but what is kept.

use std::collections::HashMap;

use podsim::engine::SimDuration;
use podsim::model::job::JobSimulator;
use podsim::model::{Change, ContainerId, PodMode, PodSimulator, RunSpec, TraceEntry, simulate_pod};
use proptest::prelude::*;

use super::common::run_text;
use super::properties::rich_pod;

#[test]
fn the_api_shows_running_from_the_start_with_probes_and_from_the_end_of_boot_without() {
    // setup runs 0→2 s. Both apps start at 2 s. plain has no probe: its
    // boot (image pull, create, postStart) ends at 5 s, when the API shows it
    // Running, it is alive, started and Ready at once (R7, R21). probed has a
    // readiness probe: Running and started from its start; it answers from
    // 7 s, and the readiness tick at 7 s (period 1 s, anchored at its start)
    // makes it Ready (R28, R30).
    let report = run_text(
        r#"
        [[containers]]
        name = "setup"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "plain"
        kind = "app"
        boot = "3s"
        [[containers]]
        name = "probed"
        kind = "app"
        boot = "5s"
        readiness_probe = { period = "1s" }
    "#,
    );
    let names = ["setup", "plain", "probed"];
    let seen: Vec<(u64, &str, Change)> = report
        .trace
        .iter()
        .filter(|e| {
            matches!(
                e.what,
                Change::Running | Change::Alive { .. } | Change::Ready { .. }
            )
        })
        .map(|e| (e.at.as_millis(), names[e.container.unwrap().index()], e.what))
        .collect();
    assert_eq!(
        seen,
        [
            (0, "setup", Change::Running),
            (2000, "probed", Change::Running),
            (5000, "plain", Change::Running),
            (5000, "plain", Change::Alive { probed: false }),
            (5000, "plain", Change::Ready { probed: false }),
            (7000, "probed", Change::Alive { probed: true }),
            (7000, "probed", Change::Ready { probed: true }),
        ]
    );
    assert_eq!(report.metrics.ready_ms, Some(7000));
}

/// What one container's history says about it so far.
#[derive(Clone, Copy, Debug, Default)]
struct Life {
    in_instance: bool,
    ever_exited: bool,
    running: bool,
    alive: bool,
    started: bool,
    ready: bool,
}

/// Checks that each container's changes tell a possible life: an instance
/// begins with `Starting` and ends with `Exited`; within it `Running`,
/// `Alive`, `Started` and `Ready` come at most once each, `Ready` after
/// `Started`, and `Ready` and `Unready` in turn (R53); a back-off follows an
/// exit. Pod-wide, exposure begins and ends in turn, the Pod is Ready and
/// not Ready in turn, and stops at most once.
fn check_history(trace: &[TraceEntry]) -> Result<(), String> {
    let mut lives: HashMap<ContainerId, Life> = HashMap::new();
    let (mut exposed, mut pod_ready, mut stopped) = (false, false, false);
    for e in trace {
        let fail = |why: &str| Err(format!("{why}: {e:?}"));
        let Some(id) = e.container else {
            match e.what {
                Change::ExposureBegan if exposed => return fail("exposure began twice"),
                Change::ExposureEnded if !exposed => return fail("exposure ended unbegun"),
                Change::ExposureBegan | Change::ExposureEnded => exposed = !exposed,
                Change::PodReady if pod_ready => return fail("Ready twice"),
                Change::PodReady => pod_ready = true,
                Change::PodNotReady if !pod_ready => return fail("not Ready, never Ready"),
                Change::PodNotReady => pod_ready = false,
                Change::ContainersStopped if stopped => return fail("stopped twice"),
                Change::ContainersStopped => stopped = true,
                _ => {}
            }
            continue;
        };
        let life = lives.entry(id).or_default();
        let live = life.in_instance;
        match e.what {
            Change::Starting { .. } if live => return fail("started while an instance runs"),
            Change::Starting { .. } => {
                *life = Life {
                    in_instance: true,
                    ..Life::default()
                }
            }
            Change::BackOff { .. } if live || !life.ever_exited => return fail("back-off without an exit"),
            Change::BackOff { .. } => {}
            _ if !live => return fail("a change outside an instance"),
            Change::Running if life.running => return fail("Running twice"),
            Change::Running => life.running = true,
            Change::Alive { .. } if life.alive => return fail("alive twice"),
            Change::Alive { .. } => life.alive = true,
            Change::Started if life.started => return fail("started twice"),
            Change::Started => life.started = true,
            Change::Ready { .. } if life.ready || !life.started => return fail("Ready twice or unstarted"),
            Change::Ready { .. } => life.ready = true,
            Change::Unready if !life.ready => return fail("unready, never Ready"),
            Change::Unready => life.ready = false,
            Change::Exited(_) => {
                *life = Life {
                    ever_exited: true,
                    ..Life::default()
                }
            }
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Recording is only watching: the metrics are the same with or without
    /// it, for a Pod and for a Job's (whose first Pod `simulate` reports).
    #[test]
    fn prop_recording_changes_no_metric(spec in rich_pod()) {
        let run = RunSpec { horizon: SimDuration::from_secs(3600), ..RunSpec::new(spec) };
        let recorded = simulate_pod(&run);
        let (metrics, job) = JobSimulator::new(run.clone()).run(|_, _| {});
        prop_assert_eq!(metrics, recorded.metrics);
        prop_assert_eq!(job, recorded.job.map(|j| j.figures));
        if run.pod.mode != PodMode::Job {
            prop_assert_eq!(PodSimulator::new(run).run(), recorded.metrics);
        }
    }

    /// Every history tells each container a possible life.
    #[test]
    fn prop_the_history_tells_a_possible_life(spec in rich_pod()) {
        let report = simulate_pod(&RunSpec { horizon: SimDuration::from_secs(3600), ..RunSpec::new(spec) });
        if let Err(why) = check_history(&report.trace) {
            prop_assert!(false, "{}", why);
        }
    }
}

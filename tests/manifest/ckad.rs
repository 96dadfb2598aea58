//! The CKAD lab's Pods (`scenarios/ckad/*.yaml`): each file's annotations
//! give the timings, and each test spells out the timeline they imply, in
//! typed changes.

use podsim::engine::SimDuration;
use podsim::model::{Metrics, PodPhase, PodReport, simulate_pod};
use podsim::scenario::manifest::WorkloadKind;
use podsim::scenario::{Problem, Scenario};

use crate::picks::{Change, ExitReason, Signal, history, shown};

/// Loads a lab Pod (which must need no notice but, for the Pods that show
/// only their start, that they are never deleted, and for adapter-pod's
/// `sleep 3600` that it exits after an hour) and runs it.
fn run(file: &str) -> (Scenario, PodReport) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/ckad")
        .join(file);
    let scenario = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scenario.workload, Some(WorkloadKind::Pod));
    let never_deleted = Problem::NeverDeleted { job: None };
    let sleeps = Problem::ScriptedExit(Box::new(podsim::scenario::Scripted {
        container: "app".into(),
        command: "/bin/sh -c 'sleep 3600'".into(),
        run: podsim::engine::SimDuration::from_secs(3600),
        code: 0,
    }));
    let expected: Vec<Problem> = match file {
        "ordered-init.yaml" => vec![never_deleted],
        "adapter-pod.yaml" => vec![sleeps, never_deleted],
        _ => Vec::new(),
    };
    let problems: Vec<&Problem> = scenario.notices.iter().map(|n| &n.problem).collect();
    assert_eq!(problems, expected.iter().collect::<Vec<_>>(), "{file}");
    let report = simulate_pod(&scenario.run);
    (scenario, report)
}

/// A container's first start.
const STARTING: Change = Change::Starting { attempt: 1 };

/// SIGTERM, with SIGKILL `secs` seconds later.
fn term(secs: u64) -> Change {
    Change::Sigterm {
        timeout: SimDuration::from_secs(secs),
        signal: Signal::Term,
    }
}

/// `kubectl delete` with a grace period of `secs` seconds.
fn deleted(secs: u64) -> Change {
    Change::DeletionRequested {
        grace: SimDuration::from_secs(secs),
    }
}

/// The timeline as `(seconds, who, change)`, whole seconds being all the
/// lab uses: the changes the event timeline shows.
fn timeline(scenario: &Scenario, report: &PodReport) -> Vec<(u64, String, Change)> {
    history(report, &scenario.run.pod)
        .into_iter()
        .filter(|&(_, _, what)| shown(what))
        .map(|(t, who, what)| (t / 1000, who, what))
        .collect()
}

fn expect(scenario: &Scenario, report: &PodReport, expected: &[(u64, &str, Change)]) {
    let expected: Vec<(u64, String, Change)> =
        expected.iter().map(|&(t, c, w)| (t, c.to_string(), w)).collect();
    assert_eq!(timeline(scenario, report), expected);
}

fn summary(m: &Metrics) -> (Option<u64>, Option<u64>, u32, u32, PodPhase) {
    (m.ready_ms, m.termination_ms, m.restarts, m.sigkilled, m.phase)
}

#[test]
fn app_init_runs_prep_to_completion_before_app_r4_r6() {
    let (s, r) = run("app-init.yaml");
    // prep 0→2 (exit 0), app 2→3: Ready at 3 s; deleted 5 s later, at 8 s;
    // no preStop, so SIGTERM at once with the whole 30 s grace (R35); exits at 9 s.
    expect(
        &s,
        &r,
        &[
            (0, "prep", STARTING),
            (2, "prep", Change::Exited(ExitReason::Completed)),
            (2, "app", STARTING),
            (3, "app", Change::Started),
            (3, "pod", Change::PodReady),
            (3, "pod", Change::Phase(PodPhase::Running)),
            (8, "pod", deleted(30)),
            (8, "app", term(30)),
            (9, "app", Change::Exited(ExitReason::Terminated(0))),
            (9, "pod", Change::Phase(PodPhase::Succeeded)),
        ],
    );
    assert_eq!(
        summary(&r.metrics),
        (Some(3000), Some(1000), 0, 0, PodPhase::Succeeded)
    );
}

#[test]
fn ordered_init_starts_migrate_only_after_wait_config_exited_r4() {
    let (s, r) = run("ordered-init.yaml");
    // wait-config 0→1, migrate 1→4, app 4→5: one at a time, in spec order.
    expect(
        &s,
        &r,
        &[
            (0, "wait-config", STARTING),
            (1, "wait-config", Change::Exited(ExitReason::Completed)),
            (1, "migrate", STARTING),
            (4, "migrate", Change::Exited(ExitReason::Completed)),
            (4, "app", STARTING),
            (5, "app", Change::Started),
            (5, "pod", Change::PodReady),
            (5, "pod", Change::Phase(PodPhase::Running)),
        ],
    );
    assert_eq!(summary(&r.metrics), (Some(5000), None, 0, 0, PodPhase::Running));
}

#[test]
fn log_shipper_starts_its_native_sidecar_first_and_stops_it_last_r5_r36() {
    let (s, r) = run("log-shipper.yaml");
    // logger started at 1 s unblocks web (R5); web 1→3: Ready at 3 s.
    // Deleted at 8 s: logger waits for web (R36), web exits at 9 s, then
    // logger gets SIGTERM with 30 − floor(1) = 29 s left and exits at once.
    expect(
        &s,
        &r,
        &[
            (0, "logger", STARTING),
            (1, "logger", Change::Started),
            (1, "web", STARTING),
            (3, "web", Change::Started),
            (3, "pod", Change::PodReady),
            (3, "pod", Change::Phase(PodPhase::Running)),
            (8, "pod", deleted(30)),
            (8, "logger", Change::AwaitingTurn),
            (8, "web", term(30)),
            (9, "web", Change::Exited(ExitReason::Terminated(0))),
            (9, "logger", term(29)),
            (9, "logger", Change::Exited(ExitReason::Terminated(0))),
            (9, "pod", Change::Phase(PodPhase::Succeeded)),
        ],
    );
    assert_eq!(
        summary(&r.metrics),
        (Some(3000), Some(1000), 0, 0, PodPhase::Succeeded)
    );
}

#[test]
fn ambassador_side_by_side_leaves_app_without_its_proxy_r6_r34() {
    let (s, r) = run("ambassador-pod.yaml");
    // Both start at 0 (R6): app started at 1 s, proxy at 3 s, so app has no
    // way out for 2 s. Deleted at 8 s: both get SIGTERM at once (R34); proxy
    // exits at 9 s, app ignores SIGTERM until SIGKILL at 8 + 30 = 38 s: 29 s
    // more without its proxy.
    expect(
        &s,
        &r,
        &[
            (0, "app", STARTING),
            (0, "proxy", STARTING),
            (1, "app", Change::Started),
            (3, "proxy", Change::Started),
            (3, "pod", Change::PodReady),
            (3, "pod", Change::Phase(PodPhase::Running)),
            (8, "pod", deleted(30)),
            (8, "app", term(30)),
            (8, "proxy", term(30)),
            (9, "proxy", Change::Exited(ExitReason::Terminated(0))),
            (38, "app", Change::Sigkill),
            (38, "app", Change::Exited(ExitReason::Killed)),
            (38, "pod", Change::Phase(PodPhase::Failed)),
        ],
    );
    let m = &r.metrics;
    assert_eq!((m.exposed_startup_ms, m.exposed_shutdown_ms), (2000, 29_000));
    assert_eq!(summary(m), (Some(3000), Some(30_000), 0, 1, PodPhase::Failed));
}

#[test]
fn adapter_pod_starts_both_app_containers_in_one_sync_r6() {
    let (s, mut r) = run("adapter-pod.yaml");
    // app's `sleep 3600` ends 1 s + 1 h in: exit 0, and under Always it
    // starts again at once (R11; the first restart waits for no back-off,
    // R14), Ready again when it is up at 3,602 s; so every hour all day.
    let at = |change: Change| -> Vec<u64> {
        let history = history(&r, &s.run.pod).into_iter();
        let of_containers = history.filter(|(_, who, what)| who != "pod" && *what == change);
        of_containers.map(|(t, _, _)| t / 1000).take(2).collect()
    };
    assert_eq!(at(Change::Exited(ExitReason::Completed)), [3601, 7202]);
    assert_eq!(at(Change::Starting { attempt: 2 }), [3601]);
    assert_eq!((r.metrics.restarts, r.metrics.phase), (23, PodPhase::Running));
    // No wait for app before the adapter starts; Ready when the slower one started.
    r.trace.retain(|e| e.at.as_millis() <= 2000);
    expect(
        &s,
        &r,
        &[
            (0, "app", STARTING),
            (0, "metrics-adapter", STARTING),
            (1, "app", Change::Started),
            (2, "metrics-adapter", Change::Started),
            (2, "pod", Change::PodReady),
            (2, "pod", Change::Phase(PodPhase::Running)),
        ],
    );
    assert_eq!(r.metrics.ready_ms, Some(2000));
    assert_eq!(
        r.metrics.exposed_total_ms, 0,
        "no proxy declared: nothing to be exposed from"
    );
}

#[test]
fn graceful_spends_10s_of_its_45s_grace_in_pre_stop_r35_r36_r37() {
    let (s, r) = run("graceful.yaml");
    assert_eq!(s.run.pod.termination_grace_period.as_millis(), 45_000);
    assert_eq!(
        s.run
            .pod
            .container(s.run.pod.find("web").unwrap())
            .pre_stop
            .as_ref()
            .and_then(|p| p.fixed())
            .unwrap()
            .as_millis(),
        10_000
    );
    // Ready at 3 s, deleted at T = 8 s. web's preStop runs T..T+10 s, then
    // SIGTERM with 45 − 10 = 35 s left; web drains 3 s and exits at 21 s.
    // drainer waited for it (R36) since T: SIGTERM at 21 s with
    // 45 − floor(13) = 32 s left; it exits 2 s later. No SIGKILL (R37).
    expect(
        &s,
        &r,
        &[
            (0, "drainer", STARTING),
            (1, "drainer", Change::Started),
            (1, "web", STARTING),
            (3, "web", Change::Started),
            (3, "pod", Change::PodReady),
            (3, "pod", Change::Phase(PodPhase::Running)),
            (8, "pod", deleted(45)),
            (8, "drainer", Change::AwaitingTurn),
            (8, "web", Change::PreStopStarted),
            (18, "web", Change::PreStopFinished { cut_off: false }),
            (18, "web", term(35)),
            (21, "web", Change::Exited(ExitReason::Terminated(0))),
            (21, "drainer", term(32)),
            (23, "drainer", Change::Exited(ExitReason::Terminated(0))),
            (23, "pod", Change::Phase(PodPhase::Succeeded)),
        ],
    );
    assert_eq!(
        summary(&r.metrics),
        (Some(3000), Some(15_000), 0, 0, PodPhase::Succeeded)
    );
}

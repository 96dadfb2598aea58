//! The CKAD lab's Pods (`scenarios/ckad/*.yaml`): each file's annotations
//! give the timings, and each test spells out the timeline they imply.

use podsim::model::{Metrics, PodPhase, PodReport, simulate_pod};
use podsim::report::line::lines;
use podsim::scenario::manifest::WorkloadKind;
use podsim::scenario::{Problem, Scenario};

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

/// The timeline as `(seconds, who, what)`, whole seconds being all the lab uses.
fn timeline(scenario: &Scenario, report: &PodReport) -> Vec<(u64, String, String)> {
    lines(&report.trace)
        .map(|(e, line)| {
            let who = e
                .container
                .map_or("pod".to_string(), |c| scenario.run.pod.container(c).name.clone());
            (e.at.as_millis() / 1000, who, line.to_string())
        })
        .collect()
}

fn expect(scenario: &Scenario, report: &PodReport, expected: &[(u64, &str, &str)]) {
    let expected: Vec<(u64, String, String)> = expected
        .iter()
        .map(|&(t, c, w)| (t, c.to_string(), w.to_string()))
        .collect();
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
            (0, "prep", "starting"),
            (2, "prep", "exited 0 (completed)"),
            (2, "app", "starting"),
            (3, "app", "started"),
            (3, "pod", "Pod Ready"),
            (3, "pod", "Pod phase Running"),
            (8, "pod", "deletion requested (grace period 30s)"),
            (8, "app", "SIGTERM (SIGKILL in 30s)"),
            (9, "app", "exited 0 (stopped by SIGTERM)"),
            (9, "pod", "Pod phase Succeeded"),
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
            (0, "wait-config", "starting"),
            (1, "wait-config", "exited 0 (completed)"),
            (1, "migrate", "starting"),
            (4, "migrate", "exited 0 (completed)"),
            (4, "app", "starting"),
            (5, "app", "started"),
            (5, "pod", "Pod Ready"),
            (5, "pod", "Pod phase Running"),
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
            (0, "logger", "starting"),
            (1, "logger", "started"),
            (1, "web", "starting"),
            (3, "web", "started"),
            (3, "pod", "Pod Ready"),
            (3, "pod", "Pod phase Running"),
            (8, "pod", "deletion requested (grace period 30s)"),
            (
                8,
                "logger",
                "waiting for app containers and later sidecars to exit",
            ),
            (8, "web", "SIGTERM (SIGKILL in 30s)"),
            (9, "web", "exited 0 (stopped by SIGTERM)"),
            (9, "logger", "SIGTERM (SIGKILL in 29s)"),
            (9, "logger", "exited 0 (stopped by SIGTERM)"),
            (9, "pod", "Pod phase Succeeded"),
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
            (0, "app", "starting"),
            (0, "proxy", "starting"),
            (1, "app", "started"),
            (3, "proxy", "started"),
            (3, "pod", "Pod Ready"),
            (3, "pod", "Pod phase Running"),
            (8, "pod", "deletion requested (grace period 30s)"),
            (8, "app", "SIGTERM (SIGKILL in 30s)"),
            (8, "proxy", "SIGTERM (SIGKILL in 30s)"),
            (9, "proxy", "exited 0 (stopped by SIGTERM)"),
            (38, "app", "SIGKILL"),
            (38, "app", "exited 137 (SIGKILL)"),
            (38, "pod", "Pod phase Failed"),
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
    let at = |what: &str| -> Vec<u64> {
        let lines = lines(&r.trace).filter(|(e, line)| e.container.is_some() && line.to_string() == what);
        lines.map(|(e, _)| e.at.as_millis() / 1000).take(2).collect()
    };
    assert_eq!(at("exited 0 (completed)"), [3601, 7202]);
    assert_eq!(at("restarting (attempt 2)"), [3601]);
    assert_eq!((r.metrics.restarts, r.metrics.phase), (23, PodPhase::Running));
    // No wait for app before the adapter starts; Ready when the slower one started.
    r.trace.retain(|e| e.at.as_millis() <= 2000);
    expect(
        &s,
        &r,
        &[
            (0, "app", "starting"),
            (0, "metrics-adapter", "starting"),
            (1, "app", "started"),
            (2, "metrics-adapter", "started"),
            (2, "pod", "Pod Ready"),
            (2, "pod", "Pod phase Running"),
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
            (0, "drainer", "starting"),
            (1, "drainer", "started"),
            (1, "web", "starting"),
            (3, "web", "started"),
            (3, "pod", "Pod Ready"),
            (3, "pod", "Pod phase Running"),
            (8, "pod", "deletion requested (grace period 45s)"),
            (
                8,
                "drainer",
                "waiting for app containers and later sidecars to exit",
            ),
            (8, "web", "preStop hook started"),
            (18, "web", "preStop hook finished"),
            (18, "web", "SIGTERM (SIGKILL in 35s)"),
            (21, "web", "exited 0 (stopped by SIGTERM)"),
            (21, "drainer", "SIGTERM (SIGKILL in 32s)"),
            (23, "drainer", "exited 0 (stopped by SIGTERM)"),
            (23, "pod", "Pod phase Succeeded"),
        ],
    );
    assert_eq!(
        summary(&r.metrics),
        (Some(3000), Some(15_000), 0, 0, PodPhase::Succeeded)
    );
}

//! Beyond the seed: probes (R21–R31), crashes while running, Jobs (R43–R46)
//! and Kubernetes versions. Expected values are worked out in the comments.

use super::common::*;
use podsim::model::{ContainerId, Outcome, PodPhase};
use podsim::scenario::Scenario;

#[test]
fn r5_r28_a_startup_probe_quantizes_the_sidecar_gate() {
    // The ticker is anchored at Pod creation with a 10 s period. The proxy is
    // healthy at 3 s; the tick at 0 s fails, the one at 10 s succeeds: started
    // at 10 s, so web starts at 10 s and is started at 11 s.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "3s"
        proxy = true
        startup_probe = { period = "10s" }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "proxy", is(Change::Started)), [10_000]);
    assert_eq!(events(toml, "web", first_start), [10_000]);
    let m = run_text(toml).metrics;
    assert_eq!((m.ready_ms, m.exposed_total_ms), (Some(11_000), 0));
}

#[test]
fn r10_r12_a_failing_startup_probe_kills_and_restarts_the_sidecar() {
    // The proxy needs 35 s but gets 3 failed ticks: killed at the 3rd.
    // Instance 1 (0 s): ticks 0, 10, 20 → killed at 20 s, restarted at once.
    // Instance 2 (20 s, healthy at 55 s): the 20 s tick is used, so 30, 40,
    // 50 → killed at 50 s, restarted after 10 s. Instance 3 (60 s): the 60 s
    // tick is fresh, so 60, 70, 80 → killed at 80 s, restarted after 20 s at
    // 100 s, the horizon (events at the horizon still happen).
    let toml = r#"
        horizon = "100s"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "35s"
        startup_probe = { period = "10s", failure_threshold = 3 }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(
        events(toml, "proxy", probe_failed(ProbeKind::Startup)),
        [20_000, 50_000, 80_000]
    );
    assert_eq!(events(toml, "proxy", restarted), [20_000, 60_000, 100_000]);
    let m = run_text(toml).metrics;
    assert_eq!((m.outcome, m.restarts, m.ready_ms), (Outcome::Horizon, 3, None));
    assert!(events(toml, "web", first_start).is_empty());
}

#[test]
fn r29_r31_liveness_kills_a_slow_starter_without_a_startup_probe() {
    // No startup probe: the kubelet counts web started at its start (R21), so
    // liveness probes it while it still boots (40 s): ticks 0, 10, 20 fail →
    // killed at 20 s; instance 2 starts at once, ticks 30, 40, 50 → killed.
    let toml = r#"
        horizon = "55s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "40s"
        liveness_probe = { period = "10s" }
    "#;
    assert_eq!(
        events(toml, "web", probe_failed(ProbeKind::Liveness)),
        [20_000, 50_000]
    );
    let m = run_text(toml).metrics;
    // Without a readiness probe the kubelet calls it Ready as soon as it is
    // started: at 0 s, long before it can serve.
    assert_eq!(
        (m.restarts, m.ready_ms, m.outcome),
        (1, Some(0), Outcome::Horizon)
    );
}

#[test]
fn r21_a_startup_probe_shields_the_slow_starter_from_liveness() {
    // Startup ticks 0, 10, 20 fail, 30 succeeds (healthy at 30 s, threshold
    // 6): started at 30 s; liveness then finds it healthy.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "30s"
        startup_probe = { period = "10s", failure_threshold = 6 }
        liveness_probe = { period = "10s" }
    "#;
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.restarts, m.ready_ms, m.outcome),
        (0, Some(30_000), Outcome::Settled)
    );
}

#[test]
fn r28_readiness_is_seen_at_the_next_tick_after_the_app_is_healthy() {
    // Started at 0 s (no startup probe); healthy at 3 s; the readiness ticker
    // (reset at the start, period 5 s) next ticks at 5 s: Ready at 5 s.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "3s"
        readiness_probe = { period = "5s" }
    "#;
    assert_eq!(events(toml, "web", is(Change::Ready { probed: true })), [5000]);
    assert_eq!(run_text(toml).metrics.ready_ms, Some(5000));
}

#[test]
fn r10_a_proxy_sidecar_crashing_while_the_app_serves_exposes_the_gap() {
    // proxy 0→1 s, web 1→2 s. proxy attempt 1 crashes 10 s after its start
    // (10 s), restarts at once, healthy at 11 s: exposed 10→11. Attempt 2
    // crashes 5 s after its start (15 s), waits 10 s, restarts at 25 s,
    // healthy at 26 s: exposed 15→26. Total 12 s; web never restarts.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        proxy = true
        crash_after = ["10s", "5s"]
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    let m = run_text(toml).metrics;
    assert_eq!((m.exposed_startup_ms, m.restarts), (12_000, 2));
    assert!(events(toml, "web", restarted).is_empty());
}

const JOB: &str = r#"
    [pod]
    mode = "job"
    restart_policy = "Never"
    [[containers]]
    name = "cloud-sql-proxy"
    kind = "sidecar"
    boot = "2s"
    drain = "1s"
    [[containers]]
    name = "main"
    kind = "app"
    boot = "1s"
    run = "20s"
"#;

#[test]
fn r43_r44_a_job_completes_after_its_sidecar_stopped() {
    // proxy 0→2, main 2→3 healthy, exits 0 at 23 s; the sidecar then gets
    // SIGTERM (23 s) and exits at 24 s: Succeeded at 24 s.
    assert_eq!(events(JOB, "cloud-sql-proxy", sigterm), [23_000]);
    let m = run_text(JOB).metrics;
    assert_eq!(
        (m.phase, m.completed_ms, m.outcome),
        (PodPhase::Succeeded, Some(24_000), Outcome::Settled)
    );
    assert_eq!(m.termination_ms, None);
}

#[test]
fn r44_the_apps_exit_code_decides_the_phase() {
    let failing = JOB.replace("run = \"20s\"", "run = \"20s\"\n    exit_code = 3");
    assert_eq!(events(&failing, "main", exit(ExitReason::Failed(3))), [23_000]);
    let m = run_text(&failing).metrics;
    assert_eq!((m.phase, m.completed_ms), (PodPhase::Failed, Some(24_000)));
}

#[test]
fn r46_a_legacy_sidecar_in_containers_keeps_the_job_running() {
    let legacy = JOB.replace("kind = \"sidecar\"", "kind = \"app\"");
    let m = run_text(&legacy).metrics;
    // The proxy, declared first, is the app that never exits: it is named.
    assert_eq!(m.outcome, Outcome::Stuck(ContainerId(0)));
    assert_eq!(m.outcome.name(), "stuck");
    assert_eq!((m.completed_ms, m.phase), (None, PodPhase::Running));
}

#[test]
fn r46_a_job_whose_work_never_ends_names_its_app_not_a_sidecar() {
    // The Job's own app without a `run` never exits; its proxy is a native
    // sidecar. Nothing here is a legacy sidecar: the app is what is stuck.
    let endless = JOB.replace("run = \"20s\"", "");
    assert!(!endless.contains("run ="), "the fixture changed: {endless}");
    let m = run_text(&endless).metrics;
    assert_eq!(m.outcome, Outcome::Stuck(ContainerId(1)));
    assert_eq!((m.completed_ms, m.phase), (None, PodPhase::Running));
}

#[test]
fn before_1_29_sidecars_are_stopped_with_the_apps() {
    // Kubernetes 1.28: no termination ordering, so the proxy sidecar drains
    // 1 s while web drains 3 s: web runs 11→13 s with no proxy.
    let toml = |version: &str| {
        format!(
            r#"
            [pod]
            kubernetes = "{version}"
            stop_at = "10s"
            [[containers]]
            name = "proxy"
            kind = "sidecar"
            boot = "1s"
            drain = "1s"
            proxy = true
            [[containers]]
            name = "web"
            kind = "app"
            boot = "1s"
            drain = "3s"
            "#
        )
    };
    assert_eq!(run_text(&toml("1.28")).metrics.exposed_shutdown_ms, 2000);
    assert_eq!(run_text(&toml("1.29")).metrics.exposed_shutdown_ms, 0);
}

#[test]
fn versions_refuse_what_their_kubelet_cannot_do() {
    let sidecar = "[pod]\nkubernetes = \"1.27\"\n[[containers]]\nname = \"p\"\nkind = \"sidecar\"\nboot = \"1s\"\n\
                   [[containers]]\nname = \"w\"\nkind = \"app\"\nboot = \"1s\"\n";
    let e = Scenario::parse(sidecar, "v.toml").unwrap_err().to_string();
    assert_eq!(
        e,
        "v.toml:5:8: container \"p\": native sidecars need Kubernetes 1.28 or later (this Pod says 1.27); \
         use kind = \"app\""
    );
    let cap = "[pod]\nkubernetes = \"1.31\"\nbackoff = { cap = \"60s\" }\n[[containers]]\nname = \"w\"\nkind = \"app\"\nboot = \"1s\"\n";
    let e = Scenario::parse(cap, "v.toml").unwrap_err().to_string();
    assert!(
        e.starts_with("v.toml:3:19: Kubernetes 1.31 cannot change the CrashLoopBackOff cap"),
        "{e}"
    );
    let unknown =
        "[pod]\nkubernetes = \"1.99\"\n[[containers]]\nname = \"w\"\nkind = \"app\"\nboot = \"1s\"\n";
    let e = Scenario::parse(unknown, "v.toml").unwrap_err().to_string();
    assert_eq!(
        e,
        "v.toml:2:14: unknown kubernetes version \"1.99\"; podsim knows \"1.20\" to \"1.36\""
    );
}

#[test]
fn r47_an_init_failure_under_never_is_failed_only_once_the_sidecar_stopped() {
    // kubernetes/kubernetes pkg/kubelet/kubelet_pods.go getPhase makes the
    // Pod Failed as soon as a regular init container failed under Never
    // (`failedInit > 0 && Never`), but pkg/kubelet/status/status_manager.go
    // mergePodStatus keeps the old phase "if couldHaveRunningContainers":
    // the terminal phase is reported once every container stopped. proxy
    // starts at 0 s and is started at 1 s; setup runs 1–3 s and fails:
    // the kubelet kills the Pod (computeInitContainerActions: KillPod),
    // proxy gets SIGTERM at 3 s and drains 5 s: exits at 8 s. The phase is
    // Pending (no app ever ran) until 8 s, then Failed.
    let toml = r#"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        drain = "5s"
        [[containers]]
        name = "setup"
        kind = "init"
        boot = "2s"
        fails = 1
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "pod", is(Change::PodFailed)), [3000]);
    assert_eq!(events(toml, "proxy", sigterm), [3000]);
    assert_eq!(events(toml, "proxy", exited), [8000]);
    let phases: Vec<(u64, Change)> = history_of(toml)
        .into_iter()
        .filter(|(_, _, c)| matches!(c, Change::Phase(_)))
        .map(|(t, _, c)| (t, c))
        .collect();
    assert_eq!(phases, [(8000, Change::Phase(PodPhase::Failed))]);
    assert_eq!(run_text(toml).metrics.phase, PodPhase::Failed);
    // Without the sidecar nothing else runs: setup fails at 2 s, Failed then.
    let (_, alone) = toml.split_once("drain = \"5s\"").unwrap();
    let alone = format!("[pod]\nrestart_policy = \"Never\"\n{alone}");
    assert_eq!(events(&alone, "pod", is(Change::Phase(PodPhase::Failed))), [2000]);
}

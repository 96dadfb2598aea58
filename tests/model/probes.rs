//! Probes beyond "passes once booted": the readiness run every sync
//! triggers (R52) and what a probe finds over an instance's life (R53),
//! with the probe runs the history counts. Timelines are worked by hand in
//! each test; rules are in docs/kubelet-rules.md.

use super::common::*;
use podsim::model::{Change, PodReport, ProbeKind};

/// (runs, failures) of `kind`'s probes of container `index`, summed over
/// the history's reports.
fn probe_runs(report: &PodReport, index: u32, kind: ProbeKind) -> (u32, u32) {
    report
        .trace
        .iter()
        .filter(|e| e.container.map(|c| c.0) == Some(index))
        .fold((0, 0), |(r, f), e| match e.what {
            Change::Probed {
                probe,
                runs,
                failures,
            } if probe == kind => (r + runs, f + failures),
            _ => (r, f),
        })
}

#[test]
fn r52_a_sync_after_the_initial_delay_runs_the_readiness_probe_at_once() {
    // proxy: readiness initial_delay 2 s, period 10 s, boot 1 s. With a
    // probe it is started at its start, 0 s (no startup probe, R21), and
    // answers from 1 s; its ticker runs from the Pod's creation, 0 s. The
    // start's sync triggers a run at 0 s, inside the delay: none, and the
    // ticker restarts from 0 s. web starts at 0 s (the sidecar is started)
    // and shows Running at 2 s, the end of its boot: a sync 2 s after the
    // proxy's start, the delay is over, the run passes: the proxy and the
    // Pod are Ready at 2 s. Without the trigger the tick at 10 s decides.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        readiness_probe = { initial_delay = "2s", period = "10s" }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
    "#;
    assert_eq!(events(toml, "proxy", is(Change::Ready { probed: true })), [2000]);
    assert_eq!(run_text(toml).metrics.ready_ms, Some(2000));
}

#[test]
fn r52_a_sync_inside_the_initial_delay_resets_the_ticker_without_a_run() {
    // web: readiness initial_delay 5 s, period 4 s; its boot is 1 s, and
    // it is started at 0 s (no startup probe). Syncs: its start (0 s, the
    // delay not over: no run, the ticker restarts from 0 s); helper, an
    // app without probes, shows Running at 3 s (a sync: the delay is still
    // not over, 3 < 5: no run, the ticker restarts from 3 s). Ticks then
    // come at 7 s, 11 s …: the run at 7 s passes. Had the ticker kept its
    // phase from 0 s, 8 s would decide.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        readiness_probe = { initial_delay = "5s", period = "4s" }
        [[containers]]
        name = "helper"
        kind = "app"
        boot = "3s"
    "#;
    assert_eq!(events(toml, "web", is(Change::Ready { probed: true })), [7000]);
    assert_eq!(run_text(toml).metrics.ready_ms, Some(7000));
}

#[test]
fn r53_readiness_that_stops_passing_takes_the_pod_out_of_ready() {
    // web boots 2 s and is started at 0 s; readiness period 5 s passes from
    // 2 s until 22 s (pass_until 20 s after the boot), failure threshold 2.
    // The start's sync runs it at 0 s (fails), the tick at 5 s passes:
    // Ready at 5 s. 10, 15, 20 pass; 25 and 30 fail: not Ready at 30 s,
    // and the Pod with it. ready_ms stays the first Ready. Nothing can
    // change after that (the probe never passes again): the run ends at 30 s.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
        readiness_probe = { period = "5s", pass_until = "20s", failure_threshold = 2 }
    "#;
    assert_eq!(events(toml, "web", is(Change::Ready { probed: true })), [5000]);
    assert_eq!(events(toml, "web", is(Change::Unready)), [30_000]);
    assert_eq!(events(toml, "pod", is(Change::PodNotReady)), [30_000]);
    let r = run_text(toml);
    assert_eq!(r.metrics.ready_ms, Some(5000));
    // Runs at 0, 5, … 30 s (the tick at the end included): 7, of which 0,
    // 25 and 30 s failed.
    assert_eq!(r.metrics.end_ms, 30_000);
    assert_eq!(probe_runs(&r, 0, ProbeKind::Readiness), (7, 3));
}

#[test]
fn r53_liveness_restarts_a_deadlocked_app_and_the_pod_comes_back_to_ready() {
    // web boots 2 s and deadlocks 20 s after its boot: readiness (period
    // 5 s, threshold 1) and liveness (period 10 s, threshold 3) pass from
    // the end of boot until 20 s after it.
    // Instance 1 (0 s, window 2…22 s): readiness runs at 0 s (start sync,
    // fails) and 5 s (passes: Ready); 10, 15, 20 pass, 25 fails: not Ready
    // at 25 s. Liveness ticks on its grid from 0 s: 0 fails, 10, 20 pass,
    // 30, 40, 50 fail: killed at 50 s; drain 0 s: exit 0 at 50 s, restarted
    // at once (a probe kill restarts under Always, R12; first restart, R15).
    // Instance 2 (50 s, window 52…72 s): the start's sync runs readiness at
    // 50 s (fails), 55 s passes: the Pod is Ready again at 55 s; 75 s fails.
    // Liveness: its 50 s tick was used, so 60, 70 pass, 80, 90 fail; the
    // horizon, 90 s, comes before the third failure.
    let toml = r#"
        horizon = "90s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
        readiness_probe = { period = "5s", pass_until = "20s", failure_threshold = 1 }
        liveness_probe = { period = "10s", pass_until = "20s" }
    "#;
    assert_eq!(
        events(toml, "web", is(Change::Ready { probed: true })),
        [5000, 55_000]
    );
    assert_eq!(events(toml, "web", is(Change::Unready)), [25_000, 75_000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [5000, 55_000]);
    assert_eq!(events(toml, "pod", is(Change::PodNotReady)), [25_000, 75_000]);
    assert_eq!(events(toml, "web", probe_failed(ProbeKind::Liveness)), [50_000]);
    let r = run_text(toml);
    assert_eq!((r.metrics.ready_ms, r.metrics.restarts), (Some(5000), 1));
    // Readiness: 0, 5 | 10 … 25 | 30 … 45 (ended by the exit) | 50, 55 |
    // 60 … 75 | 80, 85, 90: 19 runs; failed 0, 25, 30 … 45, 50, 75, 80 … 90: 11.
    assert_eq!(probe_runs(&r, 0, ProbeKind::Readiness), (19, 11));
    // Liveness: 0 … 50 (6 runs, 0 and 30 … 50 failed) | 60 … 90 (4, 80 and 90).
    assert_eq!(probe_runs(&r, 0, ProbeKind::Liveness), (10, 6));
}

#[test]
fn r53_r26_a_terminating_container_fails_readiness_after_sigterm_while_liveness_has_stopped() {
    // web boots 1 s, drains 10 s; readiness period 2 s, threshold 1,
    // fails_after_sigterm; liveness period 10 s. Deleted at 10 s.
    // Readiness: the start's sync runs it at 0 s (fails, not booted), 2 s
    // passes: Ready (and the Pod). 4, 6, 8 pass. At 10 s SIGTERM (no
    // preStop): the tick at 10 s fails: not Ready at 10 s — the kubelet
    // keeps probing readiness while it kills (R26); the Pod is terminating,
    // so no "Pod not Ready" line. Then 12 … 18 fail until the exit at 20 s.
    // Liveness ran at 0 s only (its next tick, 10 s, comes as termination
    // stops it, R32).
    let toml = r#"
        [pod]
        stop_at = "10s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "10s"
        readiness_probe = { period = "2s", failure_threshold = 1, outcome = "fails_after_sigterm" }
        liveness_probe = { period = "10s" }
    "#;
    assert_eq!(events(toml, "web", is(Change::Ready { probed: true })), [2000]);
    assert_eq!(events(toml, "web", is(Change::Unready)), [10_000]);
    assert!(events(toml, "pod", is(Change::PodNotReady)).is_empty());
    assert_eq!(events(toml, "web", exited), [20_000]);
    let r = run_text(toml);
    // 0, 2 | 4, 6, 8 | 10 | 12 … 18: 10 runs; 0, 10 and 12 … 18 failed.
    assert_eq!(probe_runs(&r, 0, ProbeKind::Readiness), (10, 6));
    assert_eq!(probe_runs(&r, 0, ProbeKind::Liveness), (1, 1));
}

#[test]
fn r53_a_hanging_startup_probe_fails_when_each_run_times_out() {
    // proxy's startup probe never answers: period 5 s, timeout 2 s,
    // threshold 3. Runs at 0, 5 and 10 s each fail 2 s later; the third
    // failure is known at 12 s: killed at 12 s (drain 0 s), restarted at
    // once (R10, R15). Instance 2: ticks 15, 20, 25 (its grid from the
    // Pod's creation): killed at 27 s; the back-off (10 s) runs past the
    // horizon. web never starts: the sidecar is never started (R5).
    let toml = r#"
        horizon = "30s"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        startup_probe = { period = "5s", timeout = "2s", failure_threshold = 3, outcome = "hangs" }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(
        events(toml, "proxy", probe_failed(ProbeKind::Startup)),
        [12_000, 27_000]
    );
    assert!(events(toml, "web", first_start).is_empty());
    let r = run_text(toml);
    assert_eq!(probe_runs(&r, 0, ProbeKind::Startup), (6, 6));
}

#[test]
fn r13_nothing_restarts_or_is_probed_while_a_liveness_kill_waits_for_its_pre_stop() {
    // kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go
    // SyncPod, "Step 3: kill any running containers in this pod which are
    // not to keep": killContainer (kuberuntime_container.go) runs the
    // preStop hook (executePreStopHook) and waits for the exit, and the
    // starts (steps 6 and 8) come after it in the same sync; the pod worker
    // runs one sync at a time (pod_workers.go podWorkerLoop).
    // proxy has a liveness probe: started at its start, 0 s (R21), so web
    // starts at 0 s too. proxy boots 0.5 s and runs 3.7 s: exits at 4.2 s
    // (first restart at once, R15), boots to 4.7 s, exits at 8.4 s
    // (CrashLoopBackOff 10 s: due at 18.4 s). web's liveness (grid 0, 5,
    // 10 … s from the Pod's creation, R28; delay 2 s) passes from its boot's
    // end, 1 s, to 11 s: 5 s and 10 s pass, 15 s fails, threshold 1: killed,
    // preStop 20 s, SIGTERM at 35 s, exits at once. The sync is blocked
    // 15–35 s: proxy restarts at 35 s, not 18.4 s. Its liveness (delay 1 s,
    // period 1 s) ran at 1, 2, 3, 4 s in instance 1 (started 0 s), 6, 7,
    // 8 s in instance 2 (started 4.2 s), none while it waited, and at 36 s,
    // the horizon, in instance 3 (started 35 s, booted 35.5 s): 8 runs, all
    // passed. Without the hold it would have run from 19.4 s on.
    let toml = r#"
        horizon = "36s"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "500ms"
        run = "3700ms"
        liveness_probe = { period = "1s", initial_delay = "1s" }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        pre_stop = "20s"
        liveness_probe = { period = "5s", initial_delay = "2s", pass_until = "10s", failure_threshold = 1 }
    "#;
    assert_eq!(events(toml, "proxy", exited), [4200, 8400]);
    assert_eq!(events(toml, "web", probe_failed(ProbeKind::Liveness)), [15_000]);
    assert_eq!(events(toml, "web", exited), [35_000]);
    assert_eq!(events(toml, "proxy", attempt(3)), [35_000]);
    assert_eq!(probe_runs(&run_text(toml), 0, ProbeKind::Liveness), (8, 0));
}

#[test]
fn r13_the_sync_a_probe_kill_held_starts_each_init_container_once() {
    // The case the history property test found (proptest-regressions/
    // model/history.txt): agent's liveness kill holds the sync while setup
    // completes and proxy's back-off ends; the sync that resumes at the
    // kill's end restarts proxy, whose start (started at once: liveness
    // only, R21) syncs again and starts migrate, and the outer walk must
    // not start migrate a second time (computeInitContainerActions in
    // kuberuntime_container.go starts the next init container once, after
    // the last one that ran).
    // proxy and agent have liveness probes only: each is started at its
    // start (R21), so proxy, agent and setup start at 0 s; setup completes
    // at 12 s. proxy boots 1 s, runs 2 s: exits at 3 s, restarts at once,
    // exits at 6 s (back-off 10 s, due 16 s); its liveness (period 10 s)
    // fails once, at 0 s, during its boot: below its threshold of 3.
    // agent's liveness (grid 0, 5 … s, R28; delay 2 s) passes from its
    // boot's end, 1 s, to 3 s: the tick at 5 s fails, threshold 1: killed,
    // preStop 20 s, exits at 25 s. Held 5–25 s: migrate (next after setup,
    // 12 s) and proxy (16 s) wait. At 25 s proxy restarts and migrate
    // starts, once; agent restarts at once (R15); migrate completes at
    // 26 s and web starts.
    let toml = r#"
        horizon = "27s"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        run = "2s"
        liveness_probe = { period = "10s" }
        [[containers]]
        name = "agent"
        kind = "sidecar"
        boot = "1s"
        pre_stop = "20s"
        liveness_probe = { period = "5s", initial_delay = "2s", pass_until = "2s", failure_threshold = 1 }
        [[containers]]
        name = "setup"
        kind = "init"
        boot = "12s"
        [[containers]]
        name = "migrate"
        kind = "init"
        boot = "1s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "agent", probe_failed(ProbeKind::Liveness)), [5000]);
    assert_eq!(events(toml, "setup", exited), [12_000]);
    assert_eq!(
        events(toml, "proxy", is(Change::Starting { attempt: 3 })),
        [25_000]
    );
    assert_eq!(
        events(toml, "agent", is(Change::Starting { attempt: 2 })),
        [25_000]
    );
    assert_eq!(
        events(toml, "migrate", |c| matches!(c, Change::Starting { .. })),
        [25_000]
    );
    assert_eq!(events(toml, "web", is(Change::Starting { attempt: 1 })), [26_000]);
}

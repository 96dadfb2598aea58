//! A kubelet restart in `[[actions]]` (R74, R75 in docs/kubelet-rules.md):
//! probe workers made anew, readiness unknown, and init containers the
//! runtime's records no longer show. Timelines are worked by hand in each
//! test. Kept apart from `actions`, the image updates and deletes.

use super::common::*;

/// The Pod's figures for scenario text `toml`.
fn metrics(toml: &str) -> podsim::model::Metrics {
    run_text(toml).metrics
}

#[test]
fn r74_after_a_kubelet_restart_readiness_is_unknown_and_its_ticker_starts_over() {
    // web boots 1 s and is started at 0 s (a readiness probe, no startup
    // probe); readiness every 10 s passes from 1 s until 31 s (pass_until
    // 30 s after the boot), failure threshold 1. The start's sync runs it at
    // 0 s (fails), the tick at 10 s passes: Ready. Without a restart the
    // ticks at 20 and 30 s pass and 40 s fails: not Ready at 40 s. The
    // kubelet restarts at 25 s: its new worker has no result, so web is not
    // Ready; the restart's sync runs the probe at once (passes: Ready again
    // at 25 s) and restarts the ticker from there: 35 s fails.
    let base = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        readiness_probe = { period = "10s", pass_until = "30s", failure_threshold = 1 }
    "#;
    assert_eq!(events(base, "web", is(Change::Unready)), [40_000]);
    let toml = format!("{base}[[actions]]\nat = \"25s\"\nkubelet_restart = true\n");
    assert_eq!(events(&toml, "pod", is(Change::KubeletRestarted)), [25_000]);
    assert_eq!(
        events(
            &toml,
            "web",
            is(Change::ProbesRestarted {
                started: true,
                ready: false
            })
        ),
        [25_000]
    );
    assert_eq!(events(&toml, "pod", is(Change::PodReady)), [10_000, 25_000]);
    assert_eq!(events(&toml, "pod", is(Change::PodNotReady)), [25_000, 35_000]);
    assert_eq!(events(&toml, "web", is(Change::Unready)), [35_000]);
}

#[test]
fn r74_a_restarted_kubelet_counts_liveness_failures_from_zero() {
    // web boots 1 s; liveness every 10 s from 0 s, failure threshold 3,
    // passes from 1 s until 21 s. Ticks: 0 fails, 10 and 20 pass, 30, 40
    // and 50 fail: killed at 50 s. The kubelet restarts at 45 s, after two
    // failures in a row: its new worker starts counting at 45 s (fails),
    // 55 s, 65 s: killed at 65 s. (The horizon cuts the crash loop short.)
    let base = r#"
        horizon = "70s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        liveness_probe = { period = "10s", pass_until = "20s" }
    "#;
    assert_eq!(events(base, "web", probe_failed(ProbeKind::Liveness)), [50_000]);
    let toml = format!("{base}[[actions]]\nat = \"45s\"\nkubelet_restart = true\n");
    assert_eq!(events(&toml, "web", probe_failed(ProbeKind::Liveness)), [65_000]);
}

#[test]
fn r74_a_container_with_a_startup_probe_is_not_started_until_it_passes_again() {
    // web boots 2 s; its startup probe ticks every 5 s from 0 s: 0 s fails,
    // 5 s passes: started and Ready at 5 s. The kubelet restarts at 12 s:
    // the new startup worker has no result, so web is not started (nor
    // Ready); it runs at once, passes: started and Ready at 12 s again.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
        startup_probe = { period = "5s", failure_threshold = 10 }
        [[actions]]
        at = "12s"
        kubelet_restart = true
    "#;
    assert_eq!(
        events(toml, "web", |c| matches!(
            c,
            Change::ProbesRestarted { started: false, .. }
        )),
        [12_000]
    );
    assert_eq!(events(toml, "web", is(Change::Started)), [5000, 12_000]);
    assert_eq!(events(toml, "pod", is(Change::PodNotReady)), [12_000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [5000, 12_000]);
}

const INIT_THEN_CRASHING_APP: &str = r#"
    [[containers]]
    name = "setup"
    kind = "init"
    boot = "2s"
    [[containers]]
    name = "web"
    kind = "app"
    boot = "1s"
    fails = 2
"#;

#[test]
fn r75_a_forgotten_init_container_runs_again_while_no_app_runs() {
    // setup completes at 2 s; web's attempt 1 fails at 3 s and restarts at
    // once, attempt 2 fails at 4 s: CrashLoopBackOff until 14 s. The
    // kubelet restarts at 8 s and the runtime has forgotten setup: with no
    // app container running the Pod is not initialized, and with no init
    // container on record the walk starts the first again: setup runs
    // 8–10 s. web waits out its back-off and starts at 14 s (attempt 3,
    // which passes): Ready at 15 s. Restarts: web 2, setup 1.
    let toml = format!(
        "{INIT_THEN_CRASHING_APP}[[actions]]\nat = \"8s\"\nkubelet_restart = true\nforget_exited_init = true\n"
    );
    assert_eq!(events(&toml, "setup", attempt(2)), [8000]);
    assert_eq!(
        events(&toml, "setup", exit(ExitReason::Completed)),
        [2000, 10_000]
    );
    assert_eq!(events(&toml, "web", attempt(3)), [14_000]);
    let m = metrics(&toml);
    assert_eq!((m.ready_ms, m.restarts), (Some(15_000), 3));
    assert_eq!(metrics(INIT_THEN_CRASHING_APP).restarts, 2);
}

#[test]
fn r75_a_forgotten_init_container_stays_done_while_an_app_runs() {
    // The same Pod with the restart at 20 s: web runs since 14 s, so the
    // kubelet counts the Pod initialized and setup does not run again.
    let toml = format!(
        "{INIT_THEN_CRASHING_APP}[[actions]]\nat = \"20s\"\nkubelet_restart = true\nforget_exited_init = true\n"
    );
    assert_eq!(events(&toml, "setup", first_start), [0]);
    assert_eq!(metrics(&toml).restarts, 2);
}

#[test]
fn r75_forgotten_init_containers_before_one_on_record_are_skipped() {
    // kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go
    // computeInitContainerActions: no app has a status, so the Pod is not
    // initialized; the walk goes backwards from the last init container:
    // `late` is Running (a regular one: nothing to do but wait), which makes
    // the containers before it "previously initialized"; `a` and `b` have no
    // status (`status == nil`) and are not restartable: `continue`, nothing
    // is started. a runs 0–2 s, b 2–4 s, late 4–24 s; the kubelet restarts
    // at 6 s with the records of a and b gone: nothing starts, late
    // completes at 24 s and web starts then (Ready at 25 s), one attempt
    // each, no restarts.
    let toml = r#"
        [[containers]]
        name = "a"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "b"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "late"
        kind = "init"
        boot = "20s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        [[actions]]
        at = "6s"
        kubelet_restart = true
        forget_exited_init = true
    "#;
    for init in ["a", "b", "late"] {
        assert_eq!(events(toml, init, restarted), Vec::<u64>::new(), "{init}");
    }
    assert_eq!(events(toml, "a", first_start), [0]);
    assert_eq!(events(toml, "b", first_start), [2000]);
    assert_eq!(events(toml, "late", exit(ExitReason::Completed)), [24_000]);
    assert_eq!(events(toml, "web", first_start), [24_000]);
    let m = metrics(toml);
    assert_eq!((m.ready_ms, m.restarts), (Some(25_000), 0));
}

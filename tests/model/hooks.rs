//! postStart hooks and image pulls that fail (R65–R69, docs/kubelet-rules.md):
//! the hook holds the container's start and the sync, a failed hook kills
//! and restarts the container, a failed pull waits out the image back-off,
//! and kubectl shows the waiting reasons and RESTARTS as it prints them.
//! Each timeline is worked by hand in its test.

use super::common::*;
use podsim::model::PodPhase;
use podsim::report::kubectl;
use podsim::scenario::Scenario;

/// `(s, STATUS, RESTARTS)` of every `kubectl get pod -w` line after the first.
fn watch(toml: &str) -> Vec<(u64, String, String)> {
    let scenario = Scenario::parse(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    let report = podsim::model::simulate_pod(&scenario.run);
    kubectl::watch(&scenario.run.pod, &report.trace)
        .into_iter()
        .skip(1)
        .map(|l| (l.at.as_millis() / 1000, l.status.clone(), l.restarts_column()))
        .collect()
}

fn line(s: u64, status: &str, restarts: &str) -> (u64, String, String) {
    (s, status.to_string(), restarts.to_string())
}

/// The bundled seed Pod of `file` with `line` added to its proxy's table.
fn seed_with_proxy(file: &str, line: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let with = text.replacen("proxy = true\n", &format!("proxy = true\n{line}\n"), 1);
    assert_ne!(with, text, "{file} has no proxy = true");
    with
}

#[test]
fn r65_a_slow_post_start_holds_back_the_next_app_and_its_own_start() {
    // proxy and web are apps of one sync. proxy starts at 0 s; its process
    // is up at 1 s, but its hook returns at 3 s: only then is it started
    // (and Ready, no probes), and only then does the sync start web, which
    // is up at 4 s: the Pod is Ready at 4 s. Without the hook both start
    // at 0 s and the Pod is Ready at 1 s.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "app"
        boot = "1s"
        post_start = "3s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(
        events(toml, "proxy", is(Change::PostStartFinished { failed: false })),
        [3000]
    );
    assert_eq!(events(toml, "proxy", is(Change::Started)), [3000]);
    assert_eq!(events(toml, "web", first_start), [3000]);
    assert_eq!(run_text(toml).metrics.ready_ms, Some(4000));
    let plain = toml.replace("post_start = \"3s\"", "");
    assert_eq!(events(&plain, "web", first_start), [0]);
    assert_eq!(run_text(&plain).metrics.ready_ms, Some(1000));
}

#[test]
fn r65_r5_a_sidecar_lets_the_app_start_when_its_hook_returns_not_its_boot() {
    // The seed's Pod with the proxy a native sidecar whose postStart takes
    // 5 s: config-fetch 0–2 s; the proxy starts at 2 s, is up at 5 s, its
    // hook returns at 7 s: started then (R5), and web starts at 7 s, up at
    // 8 s: Ready at 8 s instead of the seed's 6 s. The proxy is alive from
    // 5 s, before web: nothing is exposed.
    let toml = r#"
        [pod]
        stop_after_ready = "10s"
        [[containers]]
        name = "config-fetch"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "3s"
        drain = "1s"
        proxy = true
        post_start = "5s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "3s"
    "#;
    assert_eq!(events(toml, "proxy", is(Change::Started)), [7000]);
    assert_eq!(events(toml, "web", first_start), [7000]);
    let m = run_text(toml).metrics;
    assert_eq!((m.ready_ms, m.exposed_total_ms), (Some(8000), 0));
    // Without the hook, the seed figure.
    let seed = run_text(&toml.replace("post_start = \"5s\"", "")).metrics;
    assert_eq!(seed.ready_ms, Some(6000));
}

/// The seed's side-by-side Pod with the proxy's hook waiting for the proxy
/// (`post_start = "until-booted"`, Istio's holdApplicationUntilProxyStarts):
/// config-fetch 0–2 s; the sync starts the proxy at 2 s and its hook holds
/// the sync until the proxy is up at 5 s; only then does web start, up at
/// 6 s: Ready at 6 s as with the proxy a native sidecar, and never exposed
/// at startup. Side by side they still stop together at 10 s: the proxy
/// drains 1 s, web 3 s, so web is exposed 11–13 s, the seed's 2 s.
#[test]
fn r65_a_hook_until_booted_holds_the_app_until_the_proxy_is_up() {
    let toml = &seed_with_proxy(
        "scenarios/seed-side-by-side.toml",
        "post_start = \"until-booted\"",
    );
    assert_eq!(
        events(toml, "proxy", is(Change::PostStartFinished { failed: false })),
        [5000]
    );
    assert_eq!(events(toml, "web", first_start), [5000]);
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.ready_ms, m.exposed_startup_ms, m.exposed_shutdown_ms),
        (Some(6000), 0, 2000)
    );
    // A boot drawn at random takes the hook along: for each seed the hook
    // returns when the same draw, run without the hook, starts the proxy.
    let random = toml.replace(
        "boot = \"3s\"",
        "boot = { dist = \"lognormal\", median = \"3s\", p99 = \"9s\" }",
    );
    for seed in 1..=20 {
        let seeded = format!("seed = {seed}\n{random}");
        let unhooked = seeded.replace("post_start = \"until-booted\"", "");
        let up = events(&unhooked, "proxy", is(Change::Started));
        assert_eq!(
            events(&seeded, "proxy", is(Change::PostStartFinished { failed: false })),
            up,
            "seed {seed}"
        );
        assert_eq!(events(&seeded, "web", first_start), up, "seed {seed}");
    }
}

#[test]
fn r65_the_startup_probe_runs_only_once_the_hook_has_returned() {
    // proxy: startup probe every 1 s from the worker's start at 0 s, up at
    // 1 s. With a 5 s hook the first tick that probes is 5 s's, and it
    // passes: started at 5 s. Without the hook the tick at 0 s fails (not
    // up) and the one at 1 s passes.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        post_start = "5s"
        startup_probe = { period = "1s" }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "proxy", is(Change::Started)), [5000]);
    assert_eq!(run_text(toml).metrics.ready_ms, Some(6000));
    let plain = toml.replace("post_start = \"5s\"", "");
    assert_eq!(events(&plain, "proxy", is(Change::Started)), [1000]);
}

#[test]
fn r65_r41_a_deletion_during_the_hook_waits_for_it_and_nothing_else_starts() {
    // The deletion arrives at 1 s, inside proxy's hook (0–3 s): the sync
    // runs to its end first, so proxy gets SIGTERM at 3 s, and web, which
    // the sync had still to start, never starts.
    let toml = r#"
        [pod]
        stop_at = "1s"
        [[containers]]
        name = "proxy"
        kind = "app"
        boot = "1s"
        post_start = "3s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "proxy", sigterm), [3000]);
    assert!(events(toml, "web", first_start).is_empty());
}

#[test]
fn r66_a_failed_hook_kills_the_container_with_its_pre_stop_and_it_restarts_with_back_off() {
    // web: hook 2 s that fails, preStop 1 s, drain 1 s, grace 30 s.
    // Attempt 1: starts 0 s, hook fails 2 s, preStop 2–3 s, SIGTERM 3 s,
    // exits 0 at 4 s; first restart at once (R15). Attempt 2: 4 s, fails
    // 6 s, exits 8 s, back-off 10 s: attempt 3 at 18 s, exits 22 s, back-off
    // 20 s: attempt 4 at 42 s, where the run stops. Never started, never Ready; the Pod is
    // Running once a container has exited under Always (R47).
    let toml = r#"
        horizon = "43s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        pre_stop = "1s"
        drain = "1s"
        post_start = "2s"
        post_start_fails = true
    "#;
    assert_eq!(
        events(toml, "web", is(Change::PostStartFinished { failed: true })),
        [2000, 6000, 20_000]
    );
    assert_eq!(
        events(toml, "web", is(Change::PreStopStarted)),
        [2000, 6000, 20_000]
    );
    assert_eq!(events(toml, "web", sigterm), [3000, 7000, 21_000]);
    assert_eq!(
        events(toml, "web", is(Change::BackOff { delay: secs(0) })),
        [4000]
    );
    assert_eq!(events(toml, "web", restarted), [4000, 18_000, 42_000]);
    let m = run_text(toml).metrics;
    assert_eq!((m.ready_ms, m.restarts, m.phase), (None, 3, PodPhase::Running));
    // Under OnFailure a container that exits 0 after SIGTERM stays exited.
    let on_failure = toml.replace(
        "[[containers]]",
        "[pod]\nrestart_policy = \"OnFailure\"\n[[containers]]",
    );
    assert_eq!(
        events(&on_failure, "web", is(Change::PostStartFinished { failed: true })),
        [2000]
    );
}

#[test]
fn r66_the_next_app_waits_for_the_kill_after_a_failed_hook() {
    // web's hook fails at 2 s; the kill (no preStop, drain 3 s) is part of
    // the sync: helper starts when web has exited, 5 s.
    let toml = r#"
        horizon = "6s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "3s"
        post_start = "2s"
        post_start_fails = true
        [[containers]]
        name = "helper"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "web", exited), [5000]);
    assert_eq!(events(toml, "helper", first_start), [5000]);
}

#[test]
fn r67_failed_pulls_wait_10_20_40_s_and_an_init_containers_hold_the_pod_pending() {
    // init: two pulls fail, at 0 s (next in 10 s) and 10 s (next in 20 s);
    // the third, at 30 s, pulls: it runs 30–31 s. web's image never pulls:
    // 31 s, 41 s, 61 s, 101 s (10, 20, 40 s after each). Nothing started
    // twice, so no restart; web never ran: Pending.
    let toml = r#"
        horizon = "120s"
        [[containers]]
        name = "init"
        kind = "init"
        boot = "1s"
        image_pull = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        image_pull = "fails"
    "#;
    assert_eq!(
        events(toml, "init", |c| matches!(c, Change::ImagePullFailed { .. })),
        [0, 10_000]
    );
    assert_eq!(events(toml, "init", first_start), [30_000]);
    assert_eq!(
        events(toml, "web", |c| matches!(c, Change::ImagePullFailed { .. })),
        [31_000, 41_000, 61_000, 101_000]
    );
    let m = run_text(toml).metrics;
    assert_eq!((m.restarts, m.phase, m.ready_ms), (0, PodPhase::Pending, None));
}

#[test]
fn r67_the_back_off_doubles_to_300_s_and_stays_there() {
    // Failures at 0, 10, 30, 70, 150, 310 s (waits 10, 20, 40, 80, 160),
    // then every 300 s: 610, 910 s.
    let toml = r#"
        horizon = "1000s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        image_pull = "fails"
    "#;
    let secs: Vec<u64> = events(toml, "web", |c| matches!(c, Change::ImagePullFailed { .. }))
        .into_iter()
        .map(|ms| ms / 1000)
        .collect();
    assert_eq!(secs, [0, 10, 30, 70, 150, 310, 610, 910]);
}

#[test]
fn r68_kubectl_shows_err_image_pull_then_image_pull_back_off_a_second_later() {
    // The Pod of the first R67 test: the init container's failures at 0 s
    // and 10 s show Init:ErrImagePull, Init:ImagePullBackOff from the next
    // sync 1 s later; it runs at 30 s (Init:0/1), and web's failures show
    // ErrImagePull at 31 s and 41 s, ImagePullBackOff at 32 s and 42 s.
    let toml = r#"
        horizon = "50s"
        [[containers]]
        name = "init"
        kind = "init"
        boot = "1s"
        image_pull = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        image_pull = "fails"
    "#;
    assert_eq!(
        watch(toml),
        [
            line(0, "Init:ErrImagePull", "0"),
            line(1, "Init:ImagePullBackOff", "0"),
            line(10, "Init:ErrImagePull", "0"),
            line(11, "Init:ImagePullBackOff", "0"),
            line(30, "Init:0/1", "0"),
            line(31, "ErrImagePull", "0"),
            line(32, "ImagePullBackOff", "0"),
            line(41, "ErrImagePull", "0"),
            line(42, "ImagePullBackOff", "0"),
        ]
    );
}

#[test]
fn r68_r69_kubectl_shows_post_start_hook_error_and_restarts_with_their_age() {
    // The Pod of the R66 test without preStop: attempt 1 exits at 4 s and
    // restarts at once (RESTARTS 1, its last termination 4 s: "1 (0s
    // ago)"); attempt 2's hook fails at 6 s, it exits at 8 s and waits 10 s:
    // PostStartHookError at 8 s ("1 (0s ago)": restartCount is still 1,
    // lastState the exit at 8 s), CrashLoopBackOff from the sync at 9 s;
    // attempt 3 starts at 18 s: "2 (10s ago)".
    let toml = r#"
        horizon = "20s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "2s"
        post_start = "2s"
        post_start_fails = true
    "#;
    assert_eq!(
        watch(toml),
        [
            line(4, "ContainerCreating", "1 (0s ago)"),
            line(8, "PostStartHookError", "1 (0s ago)"),
            line(9, "CrashLoopBackOff", "1 (1s ago)"),
            line(18, "ContainerCreating", "2 (10s ago)"),
        ]
    );
}

#[test]
fn r69_a_regular_init_containers_restarts_drop_out_once_the_pod_is_initialized() {
    // init fails twice at the end of its 1 s boot: exits 1 s, restarts at
    // once; exits 2 s, back-off 10 s; completes 12–13 s. While it holds the
    // Pod its restarts count (at 2 s: 1, lastState the exit at 1 s … then
    // the exit at 2 s once it waits); each exit before its restart or
    // back-off is an `Init:Error` row first (R82), counting the restarts
    // before it; from 13 s, initialized, RESTARTS counts web only: 0.
    let toml = r#"
        [[containers]]
        name = "init"
        kind = "init"
        boot = "1s"
        fails = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    let lines = watch(toml);
    assert_eq!(lines[0], line(0, "Init:0/1", "0"));
    assert_eq!(lines[1], line(1, "Init:Error", "0"));
    assert_eq!(lines[2], line(1, "Init:0/1", "1 (0s ago)"));
    assert_eq!(lines[3], line(2, "Init:Error", "1 (1s ago)"));
    assert_eq!(lines[4], line(2, "Init:CrashLoopBackOff", "1 (0s ago)"));
    assert!(lines.contains(&line(12, "Init:0/1", "2 (10s ago)")), "{lines:?}");
    assert_eq!(lines.last(), Some(&line(14, "Running", "0")));
}

#[test]
fn r8_r66_a_hook_on_an_init_container_and_a_failure_without_a_hook_are_refused() {
    let init = "[[containers]]\nname = \"init\"\nkind = \"init\"\nboot = \"1s\"\npost_start = \"1s\"\n\
                [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";
    let e = Scenario::parse(init, "t.toml").unwrap_err().to_string();
    assert!(
        e.contains("post_start is not allowed on an init container"),
        "{e}"
    );
    let bare = "[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\npost_start_fails = true\n";
    let e = Scenario::parse(bare, "t.toml").unwrap_err().to_string();
    assert!(
        e.contains("post_start_fails needs a postStart hook to fail; set post_start"),
        "{e}"
    );
}

#[test]
fn kubectl_shows_the_reason_of_the_first_app_by_name_not_by_spec_order() {
    // web (listed first) exits 1 at 1 + 2 = 3 s, api exits 0 at 1 + 4 = 5 s,
    // under Never. The kubelet sorts the apps' statuses by name (api, web)
    // and kubectl walks them from the last, so api's reason wins: Error
    // while only web has ended (api still runs, unready: NotReady would
    // need a Completed), then Completed once both have, though the phase
    // is Failed.
    let toml = r#"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        run = "2s"
        exit_code = 1
        [[containers]]
        name = "api"
        kind = "app"
        boot = "1s"
        run = "4s"
    "#;
    let lines = watch(toml);
    assert_eq!(lines.last(), Some(&line(5, "Completed", "0")), "{lines:?}");
    assert!(lines.contains(&line(3, "Error", "0")), "{lines:?}");
}

//! Termination (kubelet rules R33–R41): preStop hooks, the shared grace
//! budget with its 2-second floor, sidecars stopped last in reverse order,
//! SIGKILL at the deadline, and deletion during startup.

use super::common::*;
use podsim::model::{Outcome, PodPhase};

/// A Pod deleted at 10 s, with the given `[pod]` extras and containers.
fn deleted_at_10(pod: &str, containers: &str) -> String {
    format!("[pod]\nstop_at = \"10s\"\n{pod}\n{containers}")
}

const WEB_PRESTOP_5_DRAIN_2: &str = r#"
[[containers]]
name = "web"
kind = "app"
boot = "1s"
drain = "2s"
pre_stop = "5s"
"#;

#[test]
fn r35_sigterm_follows_the_prestop_hook() {
    let toml = deleted_at_10("", WEB_PRESTOP_5_DRAIN_2);
    assert_eq!(events(&toml, "web", sigterm), [15_000]);
    let m = run_text(&toml).metrics;
    assert_eq!(
        (m.termination_ms, m.sigkilled, m.phase),
        (Some(7000), 0, PodPhase::Succeeded)
    );
}

#[test]
fn r35_the_grace_budget_is_shared_by_prestop_and_drain() {
    // grace 10 s: preStop 4 s leaves 6 s; a 20 s drain is SIGKILLed at 10+10.
    let toml = deleted_at_10(
        "termination_grace_period = \"10s\"",
        r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "20s"
        pre_stop = "4s"
        "#,
    );
    assert_eq!(events(&toml, "web", sigterm_with(6)), [14_000]);
    assert_eq!(events(&toml, "web", is(Change::Sigkill)), [20_000]);
    let m = run_text(&toml).metrics;
    assert_eq!(
        (m.termination_ms, m.sigkilled, m.phase),
        (Some(10_000), 1, PodPhase::Failed)
    );
}

#[test]
fn r35_a_prestop_longer_than_the_grace_is_cut_off_then_gets_2s() {
    // grace 5 s: the 8 s hook is cut at 15 s; 0 s left → the 2 s floor; drain
    // 1 s fits: exit at 16 s.
    let toml = deleted_at_10(
        "termination_grace_period = \"5s\"",
        r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "1s"
        pre_stop = "8s"
        "#,
    );
    assert_eq!(
        events(&toml, "web", is(Change::PreStopFinished { cut_off: true })),
        [15_000]
    );
    assert_eq!(events(&toml, "web", sigterm_with(2)), [15_000]);
    assert_eq!(run_text(&toml).metrics.termination_ms, Some(6000));
}

#[test]
fn r35_waited_time_is_floored_to_seconds_and_the_stop_timeout_to_2s() {
    // grace 5 s. web drains 4.5 s (exits 14.5 s). The sidecar waited 4.5 s,
    // floored to 4 s → 1 s left → the 2 s floor; its 3 s drain is SIGKILLed
    // at 16.5 s.
    let toml = deleted_at_10(
        "termination_grace_period = \"5s\"",
        r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        drain = "3s"
        proxy = true
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "4.5s"
        "#,
    );
    assert_eq!(events(&toml, "proxy", sigterm_with(2)), [14_500]);
    let m = run_text(&toml).metrics;
    assert_eq!(
        (m.termination_ms, m.sigkilled, m.exposed_total_ms),
        (Some(6500), 1, 0)
    );
}

#[test]
fn r36_sidecars_stop_after_the_apps_in_reverse_declaration_order() {
    let toml = deleted_at_10(
        "",
        r#"
        [[containers]]
        name = "first"
        kind = "sidecar"
        boot = "1s"
        drain = "1s"
        [[containers]]
        name = "second"
        kind = "sidecar"
        boot = "1s"
        drain = "1s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "2s"
        "#,
    );
    // web 10→12, second 12→13, first 13→14.
    assert_eq!(events(&toml, "web", sigterm), [10_000]);
    assert_eq!(events(&toml, "second", sigterm), [12_000]);
    assert_eq!(events(&toml, "first", sigterm), [13_000]);
    assert_eq!(run_text(&toml).metrics.termination_ms, Some(4000));
}

#[test]
fn r36_a_sidecar_prestop_runs_at_once_and_its_sigterm_still_waits_for_the_apps() {
    let toml = deleted_at_10(
        "",
        r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        drain = "1s"
        pre_stop = "1s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "3s"
        "#,
    );
    // proxy preStop 10→11, then waits for web (exits 13), SIGTERM 13, exit 14.
    assert_eq!(events(&toml, "proxy", is(Change::PreStopStarted)), [10_000]);
    assert_eq!(events(&toml, "proxy", sigterm), [13_000]);
    assert_eq!(run_text(&toml).metrics.termination_ms, Some(4000));
}

#[test]
fn r33_a_zero_grace_period_still_gives_one_second_then_the_2s_floor() {
    let toml = deleted_at_10(
        "termination_grace_period = \"0s\"",
        r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "5s"
        "#,
    );
    assert_eq!(events(&toml, "web", is(Change::Sigkill)), [12_000]);
    assert_eq!(run_text(&toml).metrics.sigkilled, 1);
}

#[test]
fn r41_deletion_during_startup_stops_the_booting_init_and_starts_nothing_else() {
    let toml = r#"
        [pod]
        stop_at = "2s"
        [[containers]]
        name = "fetch"
        kind = "init"
        boot = "5s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    let m = run_text(toml).metrics;
    // fetch gets SIGTERM at 2 s and exits (no drain); web never starts; a
    // deleted Pod whose app never ran ends Failed (R48).
    assert_eq!(
        (m.ready_ms, m.termination_ms, m.phase, m.end_ms),
        (None, Some(0), PodPhase::Failed, 2000)
    );
    assert!(events(toml, "web", first_start).is_empty());
}

#[test]
fn r40_a_container_failing_during_termination_is_not_restarted() {
    // web boots 0→2 s and its attempt is scripted to fail; deletion at 1 s
    // sends SIGTERM with a 3 s drain, but the boot ends first: exit 1 at 2 s,
    // and no restart during termination.
    let toml = r#"
        [pod]
        stop_at = "1s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
        drain = "3s"
        fails = 1
    "#;
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.restarts, m.termination_ms, m.phase),
        (0, Some(1000), PodPhase::Failed)
    );
}

#[test]
fn stop_after_ready_deletes_relative_to_ready() {
    let toml = r#"
        [pod]
        stop_after_ready = "2s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "3s"
        drain = "1s"
    "#;
    let report = run_text(toml);
    assert_eq!(
        (report.metrics.ready_ms, report.metrics.end_ms),
        (Some(3000), 6000)
    );
    assert_eq!(report.metrics.termination_ms, Some(1000));
}

#[test]
fn r54_a_process_the_signal_ends_exits_143_and_a_deleted_pod_whose_app_did_fails() {
    // web boots 1 s and dies of SIGTERM 2 s after it (exit_code_on_sigterm
    // 143, the shell's 128 + 15); deleted at 5 s with the default grace:
    // SIGTERM at 5 s, exit 143 at 7 s, well before SIGKILL at 35 s. The
    // deleted Pod ends terminal, and an app that exited non-zero makes it
    // Failed (R44, R48). A graceful handler (the default, 0) Succeeds.
    let pod = |code: &str| {
        format!(
            r#"
            [pod]
            stop_at = "5s"
            [[containers]]
            name = "web"
            kind = "app"
            boot = "1s"
            drain = "2s"
            {code}
        "#
        )
    };
    let dying = pod("exit_code_on_sigterm = 143");
    assert_eq!(events(&dying, "web", exit(ExitReason::Terminated(143))), [7000]);
    let m = run_text(&dying).metrics;
    assert_eq!(
        (m.phase, m.sigkilled, m.termination_ms),
        (PodPhase::Failed, 0, Some(2000))
    );
    let graceful = pod("");
    assert_eq!(events(&graceful, "web", exit(ExitReason::Terminated(0))), [7000]);
    assert_eq!(run_text(&graceful).metrics.phase, PodPhase::Succeeded);
}

#[test]
fn a_sidecar_released_early_leaves_no_pending_wait_that_holds_the_run_open() {
    // The seed sidecar Pod, deleted at 10 s with 30 s of grace: web drains
    // 3 s and exits at 13 s, which is proxy's turn (R36): SIGTERM at 13 s,
    // drained at 14 s. Its turn-wait would have expired at 40 s, past the
    // 20 s horizon; that expiry is void once the turn came, so the run
    // settled at 14 s and was not cut short by the horizon.
    let toml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/seed-sidecar.toml"
    ))
    .unwrap();
    let m = run_text(&format!("horizon = \"20s\"\n{toml}")).metrics;
    assert_eq!(
        events(&format!("horizon = \"20s\"\n{toml}"), "proxy", sigterm),
        [13_000]
    );
    assert_eq!(
        (m.outcome, m.end_ms, m.termination_ms, m.completed_ms),
        (Outcome::Settled, 14_000, Some(4000), Some(14_000))
    );
}

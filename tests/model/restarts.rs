//! Failures and restarts (kubelet rules R9–R16): restart policies per
//! container kind and the CrashLoopBackOff curve.

use super::common::*;
use podsim::model::{Outcome, PodPhase};

fn app_failing(policy: &str, fails: u32, backoff: &str) -> String {
    format!(
        r#"
        [pod]
        restart_policy = "{policy}"
        {backoff}
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        fails = {fails}
        "#
    )
}

#[test]
fn r15_kubelet_backoff_restarts_at_once_then_waits_10_then_20() {
    // exit 1 at 1 s → restart at 1 s (0 s) → exit at 2 s → restart at 12 s
    // (10 s) → exit at 13 s → restart at 33 s (20 s) → started at 34 s.
    let m = run_text(&app_failing("Always", 3, "")).metrics;
    assert_eq!((m.ready_ms, m.restarts), (Some(34_000), 3));
}

#[test]
fn seed_backoff_waits_1_2_4_seconds_without_a_free_first_restart() {
    // exit 1 at 1 → +1 → start 2 → exit 3 → +2 → start 5 → exit 6 → +4 →
    // start 10 → started 11.
    let backoff = r#"backoff = { initial = "1s", cap = "8s", immediate_first_restart = false }"#;
    let m = run_text(&app_failing("Always", 3, backoff)).metrics;
    assert_eq!((m.ready_ms, m.restarts), (Some(11_000), 3));
}

#[test]
fn r11_on_failure_restarts_a_failed_app_and_never_does_not() {
    let on_failure = run_text(&app_failing("OnFailure", 1, "")).metrics;
    assert_eq!((on_failure.ready_ms, on_failure.restarts), (Some(2000), 1));
    // Never: the app exits 1 at 1 s for good; no app will run again (R43)
    // and the phase comes from the app's exit code (R44).
    let never = run_text(&app_failing("Never", 1, "")).metrics;
    assert_eq!(
        (never.ready_ms, never.restarts, never.phase),
        (None, 0, PodPhase::Failed)
    );
}

#[test]
fn r9_an_init_failure_under_never_fails_the_pod_and_stops_the_sidecar() {
    let toml = r#"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        drain = "2s"
        [[containers]]
        name = "migrate"
        kind = "init"
        boot = "3s"
        fails = 1
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    // proxy started at 1 s; migrate 1→4 exits 1 → Pod Failed, proxy SIGTERM
    // at 4 s, exits at 6 s; web never starts.
    let report = run_text(toml);
    let m = report.metrics;
    assert_eq!(
        (m.ready_ms, m.restarts, m.phase, m.end_ms),
        (None, 0, PodPhase::Failed, 6000)
    );
    assert!(
        report.trace.iter().all(|e| e.container.is_none_or(|c| c.0 != 2)),
        "web must never start"
    );
}

#[test]
fn r9_an_init_failure_under_always_retries_only_that_init() {
    let toml = r#"
        [[containers]]
        name = "first"
        kind = "init"
        boot = "1s"
        [[containers]]
        name = "second"
        kind = "init"
        boot = "1s"
        fails = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    // first 0→1; second 1→2 exit 1, restart at 2 (0 s), exit at 3, restart
    // at 13 (10 s), done at 14; web 14→15. `first` ran once.
    let m = run_text(toml).metrics;
    assert_eq!((m.ready_ms, m.restarts), (Some(15_000), 2));
}

#[test]
fn r10_sidecars_restart_whatever_the_pod_policy() {
    let toml = r#"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        fails = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    // proxy exits 1 at 1, restarts at 1, exits at 2, restarts at 12, started
    // at 13; web 13→14.
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.ready_ms, m.restarts, m.phase),
        (Some(14_000), 2, PodPhase::Running)
    );
}

#[test]
fn r16_a_run_longer_than_600s_resets_the_backoff() {
    // Each attempt boots 700 s. exit at 700 → restart at once (streak 0) →
    // exit at 1400: it ran 700 s > 600 s since the restart, so the back-off
    // resets and the restart is immediate again (not 10 s) → started at 2100 s.
    let toml = r#"
        [[containers]]
        name = "slow"
        kind = "app"
        boot = "700s"
        fails = 2
    "#;
    assert_eq!(run_text(toml).metrics.ready_ms, Some(2_100_000));
}

#[test]
fn an_endless_crash_loop_ends_at_the_horizon() {
    let toml = r#"
        horizon = "1h"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        fails = 1000000
    "#;
    // Restarts at 1, 12, 33, 74 and 155 s (delays 0, 10, 20, 40, 80 s after
    // each 1 s boot), then at 316 + 301k s (160 s, then the 300 s cap + 1 s
    // boot): k = 0..=10 stay within 3600 s. 5 + 11 = 16 restarts.
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.outcome, m.ready_ms, m.end_ms),
        (Outcome::Horizon, None, 3_600_000)
    );
    assert_eq!(m.restarts, 16);
}

/// Issue 16 (fuzzing): a back-off of 0 s let a container that fails at once
/// restart at the same instant forever, so no time passed for the horizon
/// to end the run. The kubelet's delay is never under a second (R18), and
/// the scenario reader now says so, at the key.
#[test]
fn issue_16_zero_backoff_restarts_forever() {
    for (backoff, key) in [
        (r#"{ initial = "0s", cap = "0s" }"#, "backoff.initial"),
        (r#"{ initial = "8s", cap = "0s" }"#, "backoff.cap"),
    ] {
        let text = format!(
            "[pod]\nbackoff = {backoff}\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"0s\"\nrun = \"0s\"\n"
        );
        let e = podsim::scenario::Scenario::parse(&text, "zero.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("zero.toml:2:") && e.contains(&format!("{key} must be at least 1s")),
            "{e}"
        );
    }
}

/// R60 (KEP-5307): an app's own `restart_policy` and `restart_policy_rules`.
/// The Pod says Never; web boots 1 s, works 2 s and exits 42.
fn own_policy(rules: &str) -> String {
    format!(
        r#"
        horizon = "60s"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        run = "2s"
        exit_code = 42
        restart_policy = "Never"
        {rules}
        "#
    )
}

#[test]
fn r60_a_restart_rule_on_exit_42_restarts_the_app_under_a_never_pod() {
    // Exit 42 at 3 s matches: restarted at once (R15), exits at 6 s,
    // restarted at 16 s (10 s), exits at 19 s, restarted at 39 s (20 s),
    // exits at 42 s, next at 82 s: past the 60 s horizon. 3 restarts.
    let rule =
        r#"restart_policy_rules = [{ action = "Restart", exit_codes = { operator = "In", values = [42] } }]"#;
    let report = run_text(&own_policy(rule));
    assert_eq!(
        (report.metrics.restarts, report.metrics.outcome),
        (3, Outcome::Horizon)
    );
    // A rule that does not match leaves the container's Never: exit 42 at
    // 3 s for good, and the Pod fails (R43, R44).
    let other =
        r#"restart_policy_rules = [{ action = "Restart", exit_codes = { operator = "In", values = [1] } }]"#;
    let m = run_text(&own_policy(other)).metrics;
    assert_eq!(
        (m.restarts, m.phase, m.completed_ms),
        (0, PodPhase::Failed, Some(3000))
    );
}

#[test]
fn r60_the_containers_own_on_failure_overrides_the_pods_never() {
    // The same restarts as the rule's: exit 42 is a failure for OnFailure.
    let text = own_policy("").replace(
        "exit_code = 42\n        restart_policy = \"Never\"",
        "exit_code = 42\n        restart_policy = \"OnFailure\"",
    );
    assert!(text.contains("\"OnFailure\""), "the fixture changed");
    let m = run_text(&text).metrics;
    assert_eq!((m.restarts, m.outcome), (3, Outcome::Horizon));
}

/// R60 from a manifest: KEP-5307's shape (`restartPolicy: Never` on the
/// container, a Restart rule on exit 42) reads as the TOML above and gives
/// the same three restarts; an init container's own OnFailure is its
/// policy, not a sidecar.
#[test]
fn r60_a_manifests_container_restart_policy_and_rules_are_read() {
    let yaml = r#"
apiVersion: v1
kind: Pod
metadata:
  name: own-policy
  annotations:
    podsim.dev/horizon: "60s"
    podsim.dev/web.boot: "1s"
    podsim.dev/web.run: "2s"
    podsim.dev/web.exit_code: "42"
spec:
  restartPolicy: Never
  initContainers:
  - name: fetch
    image: busybox
    restartPolicy: OnFailure
  containers:
  - name: web
    image: nginx
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes:
        operator: In
        values: [42]
"#;
    let scenario =
        podsim::scenario::manifest::parse(yaml, "own.yaml", None).unwrap_or_else(|e| panic!("{e}"));
    let web = &scenario.run.pod.containers[1];
    assert_eq!(web.restart_policy, Some(podsim::model::RestartPolicy::Never));
    assert_eq!(web.restart_rules.len(), 1);
    let fetch = &scenario.run.pod.containers[0];
    assert_eq!(
        (fetch.kind, fetch.restart_policy),
        (
            podsim::model::ContainerKind::Init,
            Some(podsim::model::RestartPolicy::OnFailure)
        )
    );
    let m = podsim::model::simulate_pod(&scenario.run).metrics;
    // fetch boots 1 s (podsim's assumption), so web's timeline is 1 s later
    // than the TOML one: exits at 4, 7, 20, 43 s, restarts at 4, 17, 40 s.
    assert_eq!((m.restarts, m.outcome), (3, Outcome::Horizon));
}

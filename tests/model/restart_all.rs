//! RestartAllContainers (issue 13 item 6): R61 of
//! `docs/kubelet-rules.md`, each timeline worked by hand in the test's
//! comments.

use super::common::*;
use podsim::model::PodPhase;

/// migrate (init, 2 s), proxy (sidecar, up 1 s after its start), web (app,
/// up 1 s after its start, exits 42 `run` = 5 s later) whose own policy is
/// Never and whose rule restarts all containers on 42.
const RESTART_ALL: &str = r#"
    horizon = "15s"
    [pod]
    kubernetes = "VERSION"
    [[containers]]
    name = "migrate"
    kind = "init"
    boot = "2s"
    [[containers]]
    name = "proxy"
    kind = "sidecar"
    boot = "1s"
    [[containers]]
    name = "web"
    kind = "app"
    boot = "1s"
    run = "5s"
    exit_code = 42
    restart_policy = "Never"
    restart_policy_rules = [{ action = "RestartAllContainers", exit_codes = { operator = "In", values = [42] } }]
"#;

#[test]
fn r61_restart_all_containers_kills_everything_at_once_and_starts_over_from_the_first_init_container() {
    // migrate 0→2 s; proxy starts at 2 s, is up at 3 s; web starts at 3 s,
    // is up at 4 s: Ready at 4 s. web exits 42 at 4 + 5 = 9 s: the rule
    // matches, the Pod leaves Ready, and proxy is killed at once with no
    // preStop and no grace (SIGKILL, 137) at 9 s. The startup runs again:
    // migrate 9→11 s (its attempt 2), proxy 11 s, up at 12 s, web 12 s, up
    // at 13 s: Ready again at 13 s. Every container restarted once: 3.
    let toml = RESTART_ALL.replace("VERSION", "1.36");
    assert_eq!(events(&toml, "pod", is(Change::AllContainersRestarting)), [9000]);
    assert_eq!(events(&toml, "proxy", exit(ExitReason::Killed)), [9000]);
    assert_eq!(events(&toml, "migrate", attempt(2)), [9000]);
    assert_eq!(events(&toml, "proxy", attempt(2)), [11_000]);
    assert_eq!(events(&toml, "web", attempt(2)), [12_000]);
    assert_eq!(events(&toml, "pod", is(Change::PodReady)), [4000, 13_000]);
    assert_eq!(events(&toml, "pod", is(Change::PodNotReady)), [9000]);
    assert_eq!(events(&toml, "pod", is(Change::Phase(PodPhase::Pending))), [9000]);
    let m = run_text(&toml).metrics;
    assert_eq!((m.restarts, m.sigkilled, m.phase), (3, 1, PodPhase::Running));
}

#[test]
fn r61_restart_all_containers_needs_kubernetes_1_35_and_is_alpha_there() {
    let e = podsim::scenario::Scenario::parse(&RESTART_ALL.replace("VERSION", "1.34"), "x.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("container \"web\": action RestartAllContainers needs Kubernetes 1.35 or later"),
        "{e}"
    );
    let s = podsim::scenario::Scenario::parse(&RESTART_ALL.replace("VERSION", "1.35"), "x.toml").unwrap();
    assert!(
        (s.notices.iter()).any(|n| n
            .to_string()
            .contains("RestartAllContainers is alpha in Kubernetes 1.35")),
        "{:?}",
        s.notices
    );
}

/// The e2e tests' two other sources (kubernetes/kubernetes
/// `test/e2e/common/node/container_restart_policy.go`): a sidecar, and an
/// init container, each with a rule that restarts all containers on 42.
/// `fails = 1` makes attempt 1 exit 1 at the end of its boot; the rule
/// here matches that 1.
const RULE_ON_1: &str = r#"restart_policy_rules = [{ action = "RestartAllContainers", exit_codes = { operator = "In", values = [1] } }]"#;

#[test]
fn r61_a_sidecar_whose_rule_matches_restarts_every_container_and_any_other_exit_only_itself() {
    // kubernetes/website's watcher sidecar: watcher (sidecar) up 1 s after
    // its start, runs 5 s and exits 42; main (app) up at 2 s: Ready at 2 s.
    // At 1 + 5 = 6 s the rule matches: main is SIGKILLed (137), the startup
    // runs again: watcher 6 → 7 s, main 7 → 8 s, Ready at 8 s; watcher's
    // attempt 2 exits 42 at 7 + 5 = 12 s and does it again (Ready at 14 s).
    let toml = r#"
        horizon = "15s"
        [pod]
        kubernetes = "1.36"
        restart_policy = "Never"
        [[containers]]
        name = "watcher"
        kind = "sidecar"
        boot = "1s"
        run = "5s"
        exit_code = 42
        restart_policy_rules = [{ action = "RestartAllContainers", exit_codes = { operator = "In", values = [42] } }]
        [[containers]]
        name = "main"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(
        events(toml, "pod", is(Change::AllContainersRestarting)),
        [6000, 12_000]
    );
    assert_eq!(events(toml, "main", exit(ExitReason::Killed)), [6000, 12_000]);
    assert_eq!(events(toml, "main", attempt(2)), [7000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [2000, 8000, 14_000]);
    // Exit 3 matches no rule: the sidecar alone restarts (R10, R56), main
    // runs on; the kubelet's back-off (R14: 0 s for the first restart).
    let other = toml.replace("exit_code = 42", "exit_code = 3");
    assert_eq!(
        events(&other, "pod", is(Change::AllContainersRestarting)),
        Vec::<u64>::new()
    );
    assert_eq!(
        events(&other, "main", exit(ExitReason::Killed)),
        Vec::<u64>::new()
    );
    assert_eq!(events(&other, "watcher", attempt(2)), [6000]);
    assert_eq!(events(&other, "main", attempt(2)), Vec::<u64>::new());
    // Before 1.35 a sidecar may carry no rules at all.
    let e = podsim::scenario::Scenario::parse(&toml.replace("1.36", "1.34"), "x.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("container \"watcher\": restart rules on a sidecar need Kubernetes 1.35"),
        "{e}"
    );
}

#[test]
fn r61_an_init_containers_rule_reruns_the_pod_where_never_would_fail_it() {
    // The e2e test's order: sidecar (up 1 s after its start), init (1 s),
    // source-init (1 s; attempt 1 exits 1), regular (app, 1 s); Pod and
    // source-init under Never. sidecar 0 → 1 s, init 1 → 2 s, source-init
    // 2 → 3 s exits 1: the rule matches, sidecar is SIGKILLed at 3 s and
    // the startup runs again: sidecar 3 → 4 s, init 4 → 5 s, source-init
    // 5 → 6 s completes, regular 6 → 7 s: Ready at 7 s. Three restarts
    // (sidecar, init, source-init); regular had not run.
    let toml = format!(
        r#"
        horizon = "20s"
        [pod]
        kubernetes = "1.36"
        restart_policy = "Never"
        [[containers]]
        name = "sidecar"
        kind = "sidecar"
        boot = "1s"
        [[containers]]
        name = "init"
        kind = "init"
        boot = "1s"
        [[containers]]
        name = "source-init"
        kind = "init"
        boot = "1s"
        fails = 1
        restart_policy = "Never"
        {RULE_ON_1}
        [[containers]]
        name = "regular"
        kind = "app"
        boot = "1s"
        "#
    );
    assert_eq!(events(&toml, "pod", is(Change::AllContainersRestarting)), [3000]);
    assert_eq!(events(&toml, "sidecar", exit(ExitReason::Killed)), [3000]);
    assert_eq!(events(&toml, "source-init", exit(ExitReason::Completed)), [6000]);
    assert_eq!(events(&toml, "pod", is(Change::PodReady)), [7000]);
    let m = run_text(&toml).metrics;
    assert_eq!((m.restarts, m.sigkilled, m.phase), (3, 1, PodPhase::Running));
    // Without the rule, Never fails the Pod at source-init's exit (R9).
    let m = run_text(&toml.replace(RULE_ON_1, "")).metrics;
    assert_eq!(m.phase, PodPhase::Failed);
}

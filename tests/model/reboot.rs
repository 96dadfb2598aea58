//! `node_reboot` in `[[actions]]` (R76–R79 in docs/kubelet-rules.md): the
//! sandbox and every container stop with the node; back, the kubelet finds
//! the sandbox gone and starts over from the first init container, or,
//! under `restartPolicy: Never`, does not (kubectl's `Init:i/N` meanwhile
//! is `kubectl::reboot`). Timelines are worked by hand in each test.

use super::common::*;
use podsim::model::PodPhase;
use podsim::scenario::Scenario;

/// setup 0–2 s, migrate 2–5 s, web starts at 5 s and is Ready at 6 s.
pub(crate) const TWO_INITS: &str = r#"
    horizon = "70s"
    [[containers]]
    name = "setup"
    kind = "init"
    boot = "2s"
    [[containers]]
    name = "migrate"
    kind = "init"
    boot = "3s"
    [[containers]]
    name = "web"
    kind = "app"
    boot = "1s"
"#;

pub(crate) fn reboot_at(base: &str, at: &str, extra: &str) -> String {
    format!("{base}[[actions]]\nat = \"{at}\"\nnode_reboot = true\n{extra}")
}

#[test]
fn r76_a_reboot_stops_every_container_at_once_and_the_pod_leaves_ready() {
    // web runs since 5 s. The node reboots at 20 s: web is gone with it,
    // no preStop, no SIGTERM, exit 255 (Unknown), and the Pod is not Ready.
    // 255, not 137: containerd keeps the container's record across the
    // reboot, and its CRI plugin's recovery (containerd/containerd
    // internal/cri/server/restart.go loadContainer, @ 0113d3eb) gives a
    // container that was running and whose task is gone
    // `unknownExitCode` (255), reason "Unknown"; the kubelet reports the
    // runtime's code (R54). Its own 137 (`ContainerStatusUnknown`,
    // pkg/kubelet/kubelet_pods.go convertToAPIContainerStatuses) is for a
    // container the runtime no longer lists at all.
    let toml = reboot_at(TWO_INITS, "20s", "");
    assert_eq!(
        events(&toml, "pod", |c| matches!(c, Change::NodeRebooted { .. })),
        [20_000]
    );
    assert_eq!(events(&toml, "web", exit(ExitReason::NodeLost)), [20_000]);
    assert_eq!(events(&toml, "web", exited_with(255)), [20_000]);
    assert_eq!(events(&toml, "pod", is(Change::PodNotReady)), [20_000]);
    assert!(events(&toml, "web", sigterm).is_empty());
    assert!(events(&toml, "web", is(Change::Sigkill)).is_empty());
}

#[test]
fn r77_back_after_the_default_30s_the_init_containers_run_again_in_order() {
    // Back at 20 + 30 = 50 s with a new sandbox: setup 50–52 s, migrate
    // 52–55 s, web 55 s, Ready at 56 s. Each starts again: 3 restarts.
    let toml = reboot_at(TWO_INITS, "20s", "");
    assert_eq!(
        events(
            &toml,
            "pod",
            is(Change::NodeBack {
                sandbox_recreated: true
            })
        ),
        [50_000]
    );
    assert_eq!(events(&toml, "setup", attempt(2)), [50_000]);
    assert_eq!(
        events(&toml, "setup", exit(ExitReason::Completed)),
        [2000, 52_000]
    );
    assert_eq!(events(&toml, "migrate", attempt(2)), [52_000]);
    assert_eq!(events(&toml, "web", attempt(2)), [55_000]);
    assert_eq!(events(&toml, "pod", is(Change::PodReady)), [6000, 56_000]);
    assert_eq!(
        events(&toml, "pod", is(Change::Phase(PodPhase::Pending))),
        [50_000]
    );
    let m = run_text(&toml).metrics;
    assert_eq!((m.restarts, m.phase), (3, PodPhase::Running));
}

#[test]
fn r77_down_sets_when_the_node_is_back() {
    // down = "10s": back at 30 s; setup starts again then, and nothing
    // starts while the node is down.
    let toml = reboot_at(TWO_INITS, "20s", "down = \"10s\"\n");
    assert_eq!(events(&toml, "setup", restarted), [30_000]);
    assert_eq!(events(&toml, "web", restarted), [35_000]);
}

#[test]
fn r77_a_reboot_during_initialization_starts_over_from_the_first_init_container() {
    // An init container, a sidecar and an app. setup 0–2 s; proxy starts
    // at 2 s and is started at 3 s; web starts at 3 s, Ready at 4 s. The
    // reboot at 1 s kills setup (255); back at 31 s: setup 31–33 s, proxy
    // 33 s (started at 34 s), web 34 s, Pod Ready at 35 s. Only setup had
    // run: 1 restart.
    let toml = r#"
        horizon = "60s"
        [[containers]]
        name = "setup"
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
    "#;
    let toml = reboot_at(toml, "1s", "");
    assert_eq!(events(&toml, "setup", exited_with(255)), [1000]);
    assert_eq!(events(&toml, "setup", attempt(2)), [31_000]);
    assert_eq!(events(&toml, "proxy", first_start), [33_000]);
    assert_eq!(events(&toml, "web", first_start), [34_000]);
    assert_eq!(events(&toml, "pod", is(Change::PodReady)), [35_000]);
    assert_eq!(run_text(&toml).metrics.restarts, 1);
}

#[test]
fn r78_under_restart_policy_never_no_new_sandbox_and_the_pod_fails() {
    // computePodActions: the sandbox changed, the policy is Never and the
    // containers have statuses, so no sandbox is made. web's exit 255 at
    // 20 s stays; at 50 s the kubelet reports the Pod Failed.
    let never = TWO_INITS.replace(
        "horizon = \"70s\"",
        "horizon = \"70s\"\n[pod]\nrestart_policy = \"Never\"",
    );
    let toml = reboot_at(&never, "20s", "");
    assert_eq!(
        events(
            &toml,
            "pod",
            is(Change::NodeBack {
                sandbox_recreated: false
            })
        ),
        [50_000]
    );
    assert_eq!(
        events(&toml, "pod", is(Change::Phase(PodPhase::Failed))),
        [50_000]
    );
    assert!(events(&toml, "setup", restarted).is_empty());
    let m = run_text(&toml).metrics;
    assert_eq!((m.restarts, m.phase), (0, PodPhase::Failed));
}

#[test]
fn r79_under_on_failure_an_app_that_succeeded_is_not_started_again() {
    // batch runs 1 s then exits 0 (at 2 s); web keeps running. Back at
    // 40 s from the reboot at 10 s: web starts again, batch (succeeded
    // under OnFailure) does not.
    let toml = r#"
        horizon = "60s"
        [pod]
        restart_policy = "OnFailure"
        [[containers]]
        name = "batch"
        kind = "app"
        boot = "1s"
        run = "1s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    let toml = reboot_at(toml, "10s", "");
    assert_eq!(events(&toml, "batch", first_start), [0]);
    assert_eq!(events(&toml, "web", attempt(2)), [40_000]);
}

#[test]
fn r76_a_delete_while_the_node_is_down_leaves_nothing_to_restart() {
    // The reboot at 20 s, a delete at 30 s: nothing runs, so the
    // termination is over at once; the node back at 50 s starts nothing.
    let toml = reboot_at(TWO_INITS, "20s", "[[actions]]\nat = \"30s\"\ndelete = true\n");
    assert_eq!(
        events(&toml, "pod", |c| matches!(c, Change::DeletionRequested { .. })),
        [30_000]
    );
    assert!(events(&toml, "pod", |c| matches!(c, Change::NodeBack { .. })).is_empty());
    assert!(events(&toml, "setup", restarted).is_empty());
}

#[test]
fn r76_down_belongs_to_a_node_reboot_and_node_reboot_wants_true() {
    let err = |toml: &str| {
        Scenario::parse(toml, "t.toml")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = err(&format!(
        "{TWO_INITS}[[actions]]\nat = \"5s\"\ndelete = true\ndown = \"5s\"\n"
    ));
    assert!(e.contains("down belongs to a node_reboot"), "{e}");
    let e = err(&format!("{TWO_INITS}[[actions]]\nat = \"5s\"\nnode_reboot = 1\n"));
    assert!(e.contains("node_reboot: expected true, found"), "{e}");
}

#[test]
fn r76_a_reboot_during_termination_ends_it_with_the_node() {
    // web (preStop 10 s) runs since 5 s; the delete at 10 s starts its
    // hook, due to end at 20 s. The reboot at 15 s ends web at once (255):
    // the termination is over at 15 s, 5 s after the delete, with no
    // SIGTERM, and the node back at 45 s starts nothing.
    let base = TWO_INITS.replace("boot = \"1s\"", "boot = \"1s\"\npre_stop = \"10s\"");
    let toml = reboot_at(&base, "15s", "[[actions]]\nat = \"10s\"\ndelete = true\n");
    assert_eq!(events(&toml, "web", is(Change::PreStopStarted)), [10_000]);
    assert_eq!(events(&toml, "web", exited_with(255)), [15_000]);
    assert!(events(&toml, "web", sigterm).is_empty());
    assert!(events(&toml, "pod", |c| matches!(c, Change::NodeBack { .. })).is_empty());
    assert!(events(&toml, "setup", restarted).is_empty());
    let m = run_text(&toml).metrics;
    assert_eq!((m.termination_ms, m.phase), (Some(5000), PodPhase::Failed));
}

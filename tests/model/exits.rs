//! How containers exit (issue 13 item 4) and RestartAllContainers (item 6):
//! R55–R59, R61–R64 of `docs/kubelet-rules.md`, each timeline worked by
//! hand in the test's comments.

use super::common::*;
use podsim::model::PodPhase;

#[test]
fn r55_a_process_that_ignores_sigterm_is_sigkilled_at_the_grace_and_exits_137() {
    // web boots 0→1 s, ignores SIGTERM. Deleted at 5 s with grace 10 s, no
    // preStop: SIGTERM at 5 s with a stop timeout of 10 s, SIGKILL at 15 s,
    // exit 137 (128 + 9). A non-zero exit makes the deleted Pod Failed (R44).
    let toml = r#"
        [pod]
        stop_at = "5s"
        termination_grace_period = "10s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "never"
    "#;
    assert_eq!(events(toml, "web", "SIGTERM (SIGKILL in 10s)"), [5000]);
    assert_eq!(events(toml, "web", "exited 137"), [15000]);
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.sigkilled, m.termination_ms, m.phase),
        (1, Some(10_000), PodPhase::Failed)
    );
}

#[test]
fn r55_an_app_that_ignores_sigterm_takes_the_sidecars_turns_r37s_worked_example() {
    // R37's example: grace 30 s; app A has a 5 s preStop and ignores SIGTERM;
    // sidecars S1, S2 (declared in that order) drain 1 s. Deleted at 0 s:
    // A's preStop 0→5 s, SIGTERM at 5 s (timeout 30 − 5 = 25 s), SIGKILL at
    // 30 s. S1 and S2 wait for their turn with their whole 30 s budget; both
    // waits end at 30 s, so both get SIGTERM at once with the 2 s floor and
    // exit 1 s later, at 31 s: the ordering is lost.
    let toml = r#"
        [pod]
        stop_after_ready = "0s"
        [[containers]]
        name = "s1"
        kind = "sidecar"
        boot = "0s"
        drain = "1s"
        [[containers]]
        name = "s2"
        kind = "sidecar"
        boot = "0s"
        drain = "1s"
        [[containers]]
        name = "a"
        kind = "app"
        boot = "0s"
        pre_stop = "5s"
        drain = "never"
    "#;
    assert_eq!(events(toml, "a", "SIGTERM (SIGKILL in 25s)"), [5000]);
    assert_eq!(events(toml, "a", "exited 137"), [30_000]);
    for sidecar in ["s1", "s2"] {
        assert_eq!(
            events(toml, sidecar, "SIGTERM (SIGKILL in 2s)"),
            [30_000],
            "{sidecar}"
        );
        assert_eq!(events(toml, sidecar, "exited 0"), [31_000], "{sidecar}");
    }
}

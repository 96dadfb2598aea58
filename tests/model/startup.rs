//! Startup order (kubelet rules R4–R6, R10, R24): init containers one at a
//! time, a sidecar lets the next start once started, apps start together.

use super::common::*;
use podsim::model::PodPhase;

fn pairs(expected: &[(u64, &str)]) -> Vec<(u64, String)> {
    expected.iter().map(|&(t, c)| (t, c.to_string())).collect()
}

#[test]
fn r4_init_containers_run_one_at_a_time_in_order() {
    let toml = r#"
        [[containers]]
        name = "a"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "b"
        kind = "init"
        boot = "3s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    // a 0→2, b 2→5, web 5→6.
    assert_eq!(
        who_and_when(toml, first_start),
        pairs(&[(0, "a"), (2000, "b"), (5000, "web")])
    );
    assert_eq!(run_text(toml).metrics.ready_ms, Some(6000));
}

#[test]
fn r5_a_sidecar_unblocks_the_next_init_once_started() {
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "3s"
        [[containers]]
        name = "migrate"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    // proxy started at 3 s → migrate 3→5 → web 5→6; the sidecar keeps running.
    assert_eq!(
        who_and_when(toml, first_start),
        pairs(&[(0, "proxy"), (3000, "migrate"), (5000, "web")])
    );
    let m = run_text(toml).metrics;
    assert_eq!((m.ready_ms, m.phase), (Some(6000), PodPhase::Running));
}

#[test]
fn r6_apps_start_together_and_ready_waits_for_the_slowest() {
    let toml = r#"
        [[containers]]
        name = "init"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "fast"
        kind = "app"
        boot = "1s"
        [[containers]]
        name = "slow"
        kind = "app"
        boot = "4s"
    "#;
    assert_eq!(
        who_and_when(toml, first_start),
        pairs(&[(0, "init"), (2000, "fast"), (2000, "slow")])
    );
    assert_eq!(run_text(toml).metrics.ready_ms, Some(6000));
}

#[test]
fn r10_a_crashing_sidecar_holds_the_next_init_until_started_again() {
    // The sidecar's first attempt exits 1 at 1 s; the kubelet restarts it at
    // once (R15: no back-off entry yet), it is started at 2 s, and only then
    // does the init container start: 2→4, app 4→5.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        fails = 1
        [[containers]]
        name = "migrate"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(
        who_and_when(toml, is(Change::Started)),
        pairs(&[(2000, "proxy"), (5000, "web")])
    );
    let m = run_text(toml).metrics;
    assert_eq!((m.ready_ms, m.restarts), (Some(5000), 1));
}

#[test]
fn r24_a_pod_without_init_containers_starts_its_apps_at_once() {
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1.5s"
    "#;
    assert_eq!(who_and_when(toml, first_start), pairs(&[(0, "web")]));
    assert_eq!(run_text(toml).metrics.ready_ms, Some(1500));
}

#[test]
fn zero_durations_happen_at_the_same_instant_in_order() {
    let toml = r#"
        [[containers]]
        name = "a"
        kind = "init"
        boot = "0s"
        [[containers]]
        name = "s"
        kind = "sidecar"
        boot = "0s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "0s"
    "#;
    assert_eq!(
        who_and_when(toml, first_start),
        pairs(&[(0, "a"), (0, "s"), (0, "web")])
    );
    assert_eq!(run_text(toml).metrics.ready_ms, Some(0));
}

#[test]
fn r51_a_failed_init_container_retries_on_its_own_back_off_while_the_sidecar_before_it_waits() {
    // `computeInitContainerActions` walks the init list back to the last
    // container that ever started (migrate) and lists every container
    // before it that must run again; `SyncPod` then asks each one's own
    // back-off. By hand:
    // - proxy 0→1 s started, so migrate starts at 1 s; it fails at 3 s
    //   (first restart at once, R15) and at 5 s (back-off 10 s: 15 s).
    // - proxy attempt 1 crashes at 4 s and restarts at once; attempt 2 is
    //   started at 5 s and crashes at 5.5 s: back-off 10 s, until 15.5 s.
    // - at 15 s the proxy is still in CrashLoopBackOff, yet migrate's own
    //   back-off is over: it starts at 15 s and completes at 17 s, which
    //   initializes the Pod (migrate is the last init container): web
    //   starts at 17 s and is started at 18 s. The proxy restarts at 15.5 s
    //   on its own and is started at 16.5 s, so the Pod is Ready at 18 s.
    // Waiting for the proxy instead would start migrate at 16.5 s only.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        crash_after = ["4s", "1500ms"]
        [[containers]]
        name = "migrate"
        kind = "init"
        boot = "2s"
        fails = 2
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "migrate", first_start), [1000]);
    assert_eq!(events(toml, "migrate", restarted), [3000, 15_000]);
    assert_eq!(events(toml, "proxy", restarted), [4000, 15_500]);
    assert_eq!(events(toml, "proxy", is(Change::Started)), [1000, 5000, 16_500]);
    assert_eq!(events(toml, "web", first_start), [17_000]);
    assert_eq!(run_text(toml).metrics.ready_ms, Some(18_000));
}

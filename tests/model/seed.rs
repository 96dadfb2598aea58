//! The seed chapter's reference table (one tick = 1 s): proxy as a native
//! sidecar → exposed 0, Ready at 6 s; proxy side by side → exposed 2 s at
//! startup + 2 s at shutdown, Ready at 5 s. Every change must keep these.

use super::common::*;
use podsim::model::{PodPhase, simulate_pod};

#[test]
fn seed_sidecar_is_never_exposed_and_ready_at_6s() {
    let s = load("scenarios/seed-sidecar.toml");
    let m = run(&s.run.pod);
    // config-fetch 0→2, proxy 2→5 (gate), web 5→6: Ready at 6 s.
    assert_eq!(m.ready_ms, Some(6000));
    assert_eq!(
        (m.exposed_startup_ms, m.exposed_shutdown_ms, m.exposed_total_ms),
        (0, 0, 0)
    );
    // Deleted at 10 s: web drains 3 s (exits 13 s), then the proxy drains 1 s.
    assert_eq!(m.termination_ms, Some(4000));
    assert_eq!((m.restarts, m.sigkilled), (0, 0));
    assert_eq!(m.phase, PodPhase::Succeeded);
}

#[test]
fn seed_side_by_side_is_exposed_2s_plus_2s_and_ready_at_5s() {
    let s = load("scenarios/seed-side-by-side.toml");
    let m = run(&s.run.pod);
    // proxy and web both start at 2 s; web started at 3 s, proxy at 5 s.
    assert_eq!(m.ready_ms, Some(5000));
    assert_eq!(m.exposed_startup_ms, 2000);
    // SIGTERM to both at 10 s: proxy gone at 11 s, web at 13 s.
    assert_eq!(m.exposed_shutdown_ms, 2000);
    assert_eq!(m.exposed_total_ms, 4000);
    assert_eq!(m.termination_ms, Some(3000));
}

#[test]
fn seed_sidecar_timeline_reads_like_the_chapter_demo() {
    let s = load("scenarios/seed-sidecar.toml");
    let report = simulate_pod(&s.run);
    let lines: Vec<(u64, String, Change)> = history(&report, &s.run.pod)
        .into_iter()
        .filter(|&(_, _, what)| {
            what == Change::Starting { attempt: 1 } || what == Change::Started || exited(what)
        })
        .collect();
    let expected = [
        (0, "config-fetch", Change::Starting { attempt: 1 }),
        (2000, "config-fetch", Change::Exited(ExitReason::Completed)),
        (2000, "proxy", Change::Starting { attempt: 1 }),
        (5000, "proxy", Change::Started),
        (5000, "web", Change::Starting { attempt: 1 }),
        (6000, "web", Change::Started),
        (13_000, "web", Change::Exited(ExitReason::Terminated(0))),
        (14_000, "proxy", Change::Exited(ExitReason::Terminated(0))),
    ];
    let expected: Vec<(u64, String, Change)> =
        expected.iter().map(|&(t, c, w)| (t, c.to_string(), w)).collect();
    assert_eq!(lines, expected);
}

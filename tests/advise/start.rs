//! `podsim::advise::advise_start` against figures worked out by hand from
//! the kubelet's rules: the seed Pod's two layouts (R5, R36: a native
//! sidecar starts before the app and stops after it), and a startup
//! probe's ticker (R28: ticks every period from the worker's creation at
//! 0 s, R29: none counts before the container runs, R30: `failureThreshold`
//! failures in a row kill it).

use podsim::advise::{Layout, advise_start, with_layout};
use podsim::engine::SimDuration;
use podsim::model::{KubeVersion, ProbeKind, simulate_pod};
use podsim::scenario::Scenario;

fn scenario(text: &str) -> Scenario {
    Scenario::parse(text, "start").expect("the scenario reads")
}

fn secs(s: u64) -> SimDuration {
    SimDuration::from_secs(s)
}

/// The seed Pod side by side: config-fetch 0–2 s, then the proxy (boot
/// 3 s) and web (boot 1 s) together: web serves from 3 s, the proxy from
/// 5 s (exposed 2 s), Ready at 5 s; deleted at 10 s, the proxy drains 1 s
/// and web 3 s (exposed 11–13 s: 2 s). Native: the proxy 2–5 s, web 5–6 s,
/// Ready at 6 s; web stops first (10–13 s), then the proxy (13–14 s):
/// nothing exposed. So the advice is the native sidecar, for 1 s of Ready,
/// and the moved Pod, simulated again, shows it.
#[test]
fn the_seed_pod_is_advised_a_native_sidecar_for_one_second_of_ready() {
    let s = scenario(include_str!("../../scenarios/seed-side-by-side.toml"));
    let a = advise_start(&s.run, 20, None).expect("a proxy in front of an app");
    assert_eq!((a.proxy.as_str(), a.app.as_str()), ("proxy", "web"));
    assert_eq!(a.today_layout, Layout::SideBySide);
    assert_eq!(a.advised_layout, Some(Layout::Native));
    assert_eq!(
        (
            a.today.exposed_startup_p99,
            a.today.exposed_shutdown_p99,
            a.today.ready_p99
        ),
        (2000, 2000, Some(5000))
    );
    assert_eq!(
        (
            a.advised.exposed_startup_p99,
            a.advised.exposed_shutdown_p99,
            a.advised.ready_p99
        ),
        (0, 0, Some(6000))
    );
    assert!(a.probe.is_none(), "the seed proxy has no startup probe");
    // A budget of 5 s is missed: no unexposed start is that fast.
    let tight = advise_start(&s.run, 20, Some(secs(5))).unwrap();
    assert!(!tight.fits(&tight.advised));
    // The patched Pod: the proxy moved, simulated on its own.
    let proxy = s.run.pod.find("proxy").unwrap().index();
    let moved = simulate_pod(&with_layout(&s.run, proxy, Layout::Native)).metrics;
    assert_eq!((moved.exposed_total_ms, moved.ready_ms), (0, Some(6000)));
    // Before 1.29 native sidecars are not on by default: nothing to move to.
    let mut old = s.run.clone();
    old.pod.kubernetes = KubeVersion(28);
    let a = advise_start(&old, 5, None).unwrap();
    assert_eq!(a.layouts.len(), 1);
    assert_eq!(a.advised_layout, None);
}

/// The proxy starts at 2.5 s (after a 2.5 s init container) and answers
/// 3.2 s later, at 5.7 s; its startup probe's ticks fall at multiples of
/// the period. Period 1 s: ticks 3, 4, 5 fail, 6 passes: started at 6 s,
/// threshold at least 4. Period 2 s: 4 fails, 6 passes: 6 s, threshold 2.
/// Period 5 s: 5 fails, 10 passes: 10 s, threshold 2. Period 10 s: 10
/// passes: 10 s, threshold 1. web boots 1 s after: Ready at 7, 7, 11, 11 s.
/// The fastest is 7 s, at 1 or 2 s, and the longer period probes less: 2 s
/// × 2. Within `--max-ready 11s` the longest period fits: 10 s × 1.
#[test]
fn the_startup_probe_is_advised_its_period_and_smallest_threshold() {
    let s = scenario(
        r#"
        name = "probe lag"
        [[containers]]
        name = "fetch"
        kind = "init"
        boot = "2500ms"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "3200ms"
        proxy = true
        startup_probe = { period = "10s", failure_threshold = 3 }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        "#,
    );
    let a = advise_start(&s.run, 10, None).unwrap();
    assert_eq!(a.advised_layout, Some(Layout::Native));
    let p = a.probe.as_ref().expect("the proxy has a startup probe");
    let found: Vec<(u64, Option<u32>, Option<u64>)> = (p.periods.iter())
        .map(|(q, t, f)| (q.as_millis() / 1000, *t, f.ready_p99))
        .collect();
    assert_eq!(
        found,
        [
            (1, Some(4), Some(7000)),
            (2, Some(2), Some(7000)),
            (5, Some(2), Some(11000)),
            (10, Some(1), Some(11000)),
        ]
    );
    assert_eq!(p.advised, Some((secs(2), 2)));
    assert_eq!(a.advised.ready_p99, Some(7000));
    let budget = advise_start(&s.run, 10, Some(secs(11))).unwrap();
    assert_eq!(budget.probe.unwrap().advised, Some((secs(10), 1)));
    // The advised probe, set on the Pod and simulated again: Ready at 7 s.
    let mut run = s.run.clone();
    let proxy = run.pod.find("proxy").unwrap().index();
    let probe = run.pod.containers[proxy].probes[ProbeKind::Startup.index()]
        .as_mut()
        .unwrap();
    (probe.period, probe.failure_threshold) = (secs(2), 2);
    let m = simulate_pod(&run).metrics;
    assert_eq!((m.ready_ms, m.restarts, m.exposed_total_ms), (Some(7000), 0, 0));
}

//! Deployment rollouts on the Service model (disruption-model.md A.5),
//! worked by hand.
//!
//! Every run has one shape: a web app that boots in 1 s (Ready at 1 s, no
//! probes) and exits at SIGTERM, one node, propagation 0 and syncs at once,
//! so traffic starts at 1 s; the kubelet hears of a deletion 50 ms later
//! and the Pod object is gone 1 s after its last container exits. The
//! rollout starts 10 s after traffic: T0 = 11 s. A constant 10 requests/s
//! are sent at multiples of 100 ms, each answered in 10 ms.

use podsim::engine::SimDuration;
use podsim::model::service::{
    Arrival, Cause, Disruption, OnSigterm, Propagation, Rate, Rollout, RolloutFigures, Scaled,
    ServiceMetrics, ServiceSimulator, ServiceSpec, Strategy, TrafficSpec, When,
};
use podsim::model::{ContainerKind, ContainerSpec, PodSpec, RunSpec};

use super::common::secs;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

fn web() -> PodSpec {
    PodSpec::new(vec![ContainerSpec::new("web", ContainerKind::App, secs(1))])
}

/// `replicas` replicas and `rollout` at T0.
fn spec(replicas: u32, rollout: Rollout) -> ServiceSpec {
    let mut s = ServiceSpec {
        replicas,
        nodes: 1,
        propagation: Propagation::Custom(SimDuration::ZERO.into()),
        kubelet_delay: ms(50),
        min_sync_period: SimDuration::ZERO,
        cleanup: secs(1),
        traffic: Some(TrafficSpec {
            rate: Rate::new(10.0).unwrap(),
            arrival: Arrival::Constant,
            service_time: ms(10).into(),
            ..TrafficSpec::default()
        }),
        disruptions: vec![Disruption {
            when: When::AfterReady(secs(10)),
            rollout: Some(rollout),
            ..Disruption::default()
        }],
        ..ServiceSpec::default()
    };
    s.app.on_sigterm = OnSigterm::ExitImmediately;
    s
}

fn run(pod: PodSpec, service: ServiceSpec) -> ServiceMetrics {
    let run = RunSpec {
        service: Some(Box::new(service)),
        ..RunSpec::new(pod)
    };
    ServiceSimulator::new(run).run()
}

fn figures(m: &ServiceMetrics) -> RolloutFigures {
    m.rollout.expect("a rollout scenario has rollout figures")
}

#[test]
fn r3_with_the_defaults_surges_one_at_a_time_and_never_drops_below_three_ready() {
    // 25%/25% of 3: surge 1, unavailable 0. At T0 one new Pod (4 counted);
    // each new Pod Ready 1 s after its creation frees one old Pod, whose
    // place the next new Pod takes: new Ready at 12, 13, 14 s; old Pods
    // deleted then. Complete at 14 s (3 s); the last old Pod exits at
    // 14.05 s and its object is gone at 15.05 s (4.05 s). At 13 s the Pod
    // deleted at 12 s is still there: 2 old + 1 terminating + 3 new = 6.
    let m = run(web(), spec(3, Rollout::default()));
    assert_eq!(m.ready_ms, Some(1000));
    let f = figures(&m);
    assert_eq!((f.rollout_ms, f.rollout_done_ms), (Some(3000), Some(4050)));
    assert_eq!((f.peak_counted_pods, f.peak_pods), (4, 6));
    assert_eq!((m.min_ready_endpoints, m.zero_endpoints_ms), (Some(3), 0));
    // Each old Pod leaves the rules 50 ms before it exits: nothing fails.
    assert_eq!(m.failed, 0);
    assert_eq!(m.deleted.len(), 3);
    assert_eq!(m.replicas.len(), 6);
}

#[test]
fn r4_with_one_and_one_replaces_two_pods_per_round() {
    // 25% of 4: surge 1, unavailable 1 (min available 3, at most 5 counted).
    // T0: one new Pod; 5 counted - 3 - 1 new unavailable leaves room to
    // delete 1 old Pod, and a second new one takes its place. 12 s: both
    // new Ready,
    // each frees one old Pod and makes one more new; 13 s: the last two new
    // Ready, the last old deleted. Complete at 13 s (2 s), the last old
    // object gone at 14.05 s (3.05 s). At 12 s: 4 old objects (one
    // terminating since T0) and 4 new = 8.
    let m = run(web(), spec(4, Rollout::default()));
    let f = figures(&m);
    assert_eq!((f.rollout_ms, f.rollout_done_ms), (Some(2000), Some(3050)));
    assert_eq!((f.peak_counted_pods, f.peak_pods), (5, 8));
    assert_eq!(m.min_ready_endpoints, Some(3));
    assert_eq!(m.failed, 0);
}

#[test]
fn r10_with_three_and_two_creates_five_at_once() {
    // 25% of 10: surge 3 (ceil 2.5), unavailable 2 (floor 2.5): min 8, at
    // most 13 counted. T0: 3 new, 2 old deleted, 2 more new (13 counted,
    // 8 Ready). 12 s: each of the 5 new Pods frees an old one and makes
    // one more new (old 3, new 10). 13 s: the next three free the last old
    // ones; the fifth completes it (2 s); the last old object is gone at
    // 14.05 s (3.05 s). At 12 s all 10 old objects are still there (the
    // two deleted at T0 go at 12.05 s) beside 10 new ones: 20.
    let m = run(web(), spec(10, Rollout::default()));
    let f = figures(&m);
    assert_eq!((f.rollout_ms, f.rollout_done_ms), (Some(2000), Some(3050)));
    assert_eq!((f.peak_counted_pods, f.peak_pods), (13, 20));
    assert_eq!(m.min_ready_endpoints, Some(8));
    assert_eq!(m.failed, 0);
}

#[test]
fn r1_surges_one_and_keeps_the_old_pod_until_the_new_one_is_ready() {
    // 25% of 1: surge 1, unavailable 0. New Pod Ready at 12 s, the old one
    // deleted then, gone at 13.05 s.
    let m = run(web(), spec(1, Rollout::default()));
    let f = figures(&m);
    assert_eq!((f.rollout_ms, f.rollout_done_ms), (Some(1000), Some(2050)));
    assert_eq!((f.peak_counted_pods, f.peak_pods), (2, 2));
    assert_eq!((m.min_ready_endpoints, m.zero_endpoints_ms), (Some(1), 0));
}

#[test]
fn recreate_leaves_no_ready_endpoint_from_the_deletion_to_the_first_new_ready() {
    // T0: every old Pod deleted (no ready endpoint from 11 s: terminating
    // ones are never ready); they exit at 11.05 s, which is when no old Pod
    // runs any more: the new ones are created then and Ready at 12.05 s.
    // zero_endpoints_ms = 12.05 - 11 s. Meanwhile the rules fall back to
    // the terminating Pods (KEP-1669) until they exit, then REJECT: the
    // requests of 11.1 s to 12.0 s, 10 of them, find no endpoint.
    let rollout = Rollout {
        strategy: Strategy::Recreate,
        ..Rollout::default()
    };
    let m = run(web(), spec(3, rollout));
    assert_eq!(m.zero_endpoints_ms, 1050);
    assert_eq!(m.min_ready_endpoints, Some(0));
    assert_eq!(m.failed, 10);
    assert_eq!(m.failed_of(Cause::NoEndpoints), 10);
    let f = figures(&m);
    // Complete at 12.05 s; the old objects go at 12.05 s too (exit + 1 s).
    assert_eq!((f.rollout_ms, f.rollout_done_ms), (Some(1050), Some(1050)));
    assert_eq!((f.peak_counted_pods, f.peak_pods), (3, 6));
}

#[test]
fn min_ready_seconds_hold_the_old_pod_until_the_new_one_is_available() {
    // R = 1, minReadySeconds 5: the new Pod is Ready at 12 s, available at
    // 17 s; only then is the old one deleted (gone at 18.05 s).
    let rollout = Rollout {
        min_ready: secs(5),
        ..Rollout::default()
    };
    let m = run(web(), spec(1, rollout));
    let f = figures(&m);
    assert_eq!((f.rollout_ms, f.rollout_done_ms), (Some(6000), Some(7050)));
    assert_eq!(m.deleted[0].deleted_ms, 17_000);
}

#[test]
fn a_slower_new_template_slows_the_rollout() {
    // The new image boots in 3 s: R = 1 takes 3 s, not 1 s.
    let mut template = web();
    template.containers[0].boot = secs(3).into();
    let rollout = Rollout {
        template: Some(Box::new(template)),
        ..Rollout::default()
    };
    let m = run(web(), spec(1, rollout));
    assert_eq!(figures(&m).rollout_ms, Some(3000));
    // The new Pod's own metrics are its template's: created at T0, Ready
    // 3 s later (a replica's times are on the Service's clock).
    assert_eq!(m.replicas[1].ready_ms, Some(14_000));
}

#[test]
fn a_count_surge_of_zero_makes_way_first() {
    // maxSurge 0, maxUnavailable 1 with R = 3: an old Pod goes first, its
    // replacement is created at once; 3 rounds of 1 s; ready never below 2.
    let rollout = Rollout {
        max_surge: Scaled::Count(0),
        max_unavailable: Scaled::Count(1),
        ..Rollout::default()
    };
    let m = run(web(), spec(3, rollout));
    let f = figures(&m);
    assert_eq!(f.rollout_ms, Some(3000));
    assert_eq!(f.peak_counted_pods, 3);
    assert_eq!(m.min_ready_endpoints, Some(2));
}

#[test]
fn a_scenario_without_a_rollout_has_no_rollout_figures() {
    let mut s = spec(3, Rollout::default());
    s.disruptions[0].rollout = None;
    let m = run(web(), s);
    assert_eq!(m.rollout, None);
    assert_eq!(m.replicas.len(), 3);
}

#[test]
fn the_victim_is_the_old_pod_sharing_a_node_with_the_most_pods_of_the_deployment() {
    // Three nodes, replica r on node r mod 3: each new Pod (3, 4, 5) lands
    // beside old Pod 0, 1, 2 in turn, which is then the only old Pod on a
    // node with two: it goes first (ActivePodsWithRanks: more co-located
    // siblings first). On one node every old Pod ranks the same up to the
    // last tie-break, and the newest (the highest index) goes first.
    let order = |nodes: u32| {
        let mut s = spec(3, Rollout::default());
        s.nodes = nodes;
        let m = run(web(), s);
        m.deleted.iter().map(|d| d.replica).collect::<Vec<u32>>()
    };
    assert_eq!(order(3), [0, 1, 2]);
    assert_eq!(order(1), [2, 1, 0]);
}

#[test]
fn a_rollout_that_ends_on_min_ready_seconds_lets_the_traffic_settle() {
    // R = 1, maxSurge 0, maxUnavailable 1, minReadySeconds 5: the old Pod
    // is deleted at T0 = 11 s and gone at 12.05 s; the new one, created
    // at 11 s, is Ready at 12 s and available at 17 s, the last thing the
    // rollout waits for: complete and done at 17 s. The traffic then
    // stops 10 s later (27 s) and the run ends there, not at the horizon.
    let rollout = Rollout {
        max_surge: Scaled::Count(0),
        max_unavailable: Scaled::Count(1),
        min_ready: secs(5),
        ..Rollout::default()
    };
    let m = run(web(), spec(1, rollout));
    let f = figures(&m);
    assert_eq!((f.rollout_ms, f.rollout_done_ms), (Some(6000), Some(6000)));
    assert!(!m.horizon, "the run went on to the horizon");
    assert!(m.end_ms < 30_000, "the run ended at {} ms", m.end_ms);
}

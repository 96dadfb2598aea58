//! A cluster-autoscaler scale-down of a node (issue 40 item 5), worked by
//! hand: the node tainted, its Pods evicted through the budget with a
//! grace of min(their own, max-graceful-termination-sec), a refused
//! eviction asked again every 10 s for 2 min and then the scale-down given
//! up (the taint removed, the node kept), and, once every Pod is gone,
//! the node deleted at the autoscaler's next 5 s look.
//!
//! The runs are `service`'s: replicas of a web app with no probes (Ready
//! as it boots), replica r on node r mod `nodes`, propagation 0 and syncs
//! at once, the kubelet hearing of a delete 50 ms after it, a Pod object
//! gone 60 s after its last container exits (`cleanup`), traffic from
//! when every replica is Ready. The scale-down starts 5 s after that.

use podsim::engine::SimDuration;
use podsim::model::service::{
    Abort, Budget, Disruption, NodeState, Pdb, ScaleDown, Scaled, ServiceChange, ServiceHistory,
    ServiceMetrics, ServiceSimulator, When,
};
use podsim::model::{ContainerKind, ContainerSpec, Drain, PodSpec, RunSpec};

use super::common::secs;
use super::service::{service, steady};

/// `replicas` on `nodes`, each booting in `boot` and draining 5 s after
/// SIGTERM (or never: `ignores`), node `sd.node` scaled down 5 s after
/// traffic started, with `pdb`; traffic lasts 100 s.
fn scale_down(
    (replicas, nodes): (u32, u32),
    boot: SimDuration,
    ignores: bool,
    sd: ScaleDown,
    pdb: Option<Pdb>,
) -> (ServiceMetrics, ServiceHistory) {
    let mut s = service(replicas, SimDuration::ZERO, secs(5), steady(secs(100)));
    s.nodes = nodes;
    s.pdb = pdb;
    s.disruptions = vec![Disruption {
        when: When::AfterReady(secs(5)),
        scale_down_node: Some(sd),
        ..Disruption::default()
    }];
    let mut web = ContainerSpec::new("web", ContainerKind::App, boot);
    web.drain = match ignores {
        true => Drain::Never,
        false => secs(5).into(),
    };
    let run = RunSpec {
        service: Some(Box::new(s)),
        ..RunSpec::new(PodSpec::new(vec![web]))
    };
    let mut simulator = ServiceSimulator::observed_by(run, ServiceHistory::default());
    let m = simulator.run();
    (m, std::mem::take(simulator.observer_mut()))
}

/// A budget of `n` Pods that must stay available.
fn min_available(n: u32) -> Option<Pdb> {
    Some(Pdb {
        budget: Budget::MinAvailable(Scaled::Count(n)),
        ..Pdb::default()
    })
}

/// Each node state change, as (ms, node, state).
fn states(h: &ServiceHistory) -> Vec<(u64, u32, NodeState)> {
    (h.iter())
        .filter_map(|e| match e.what {
            ServiceChange::Node { node, state } => Some((e.at.as_millis(), node, state)),
            _ => None,
        })
        .collect()
}

/// When each change `pick` matches happened, in ms.
fn when(h: &ServiceHistory, pick: impl Fn(ServiceChange) -> bool) -> Vec<u64> {
    (h.iter())
        .filter(|e| pick(e.what))
        .map(|e| e.at.as_millis())
        .collect()
}

#[test]
fn without_a_budget_the_pod_is_evicted_at_once_and_the_node_deleted_at_the_next_look_after_it_is_gone() {
    // 3 replicas on 3 nodes, Ready at 1 s; node 2 scaled down at 6 s. Its
    // one Pod, replica 2, is evicted then with min(30 s, 600 s) = its own
    // 30 s; the kubelet hears at 6.05 s, the app drains 5 s: it exits at
    // 11.05 s (termination 5 s, the Pod's own count from the kubelet's
    // start of it), the object is gone 60 s later, at
    // 71.05 s. The autoscaler looks from 6 s every 5 s: the first look
    // after 71.05 s is at 76 s, which deletes the node. The ReplicaSet
    // replaces replica 2 at 6 s on node 0 (node 2 is tainted), as replica 3.
    let (m, h) = scale_down((3, 3), secs(1), false, ScaleDown::of(2), None);
    assert_eq!(
        states(&h),
        [(6000, 2, NodeState::ScalingDown), (76_000, 2, NodeState::Deleted)]
    );
    assert_eq!(
        when(&h, |c| matches!(c, ServiceChange::Evicted { replica: 2 })),
        [6000]
    );
    let d = &m.deleted;
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].replica, d[0].deleted_ms, d[0].termination_ms),
        (2, 6000, Some(5000))
    );
    assert_eq!(m.replicas.len(), 4);
    let made = when(&h, |c| matches!(c, ServiceChange::PodMade { node: 0, .. }));
    assert_eq!(made, [6000]);
    let drain = m.drain.expect("a scale-down has the drain's figures");
    assert_eq!((drain.evictions_refused, drain.drain_ms), (0, Some(65_050)));
}

#[test]
fn a_budget_that_allows_no_disruption_stops_the_scale_down_before_any_eviction() {
    // minAvailable 3 of 3: disruptionsAllowed is 0 at 6 s, so the PDB
    // drainability rule blocks the node's Pod: the taint comes off in the
    // same instant, nothing is evicted or refused, no request fails.
    let (m, h) = scale_down((3, 3), secs(1), false, ScaleDown::of(2), min_available(3));
    assert_eq!(
        states(&h),
        [(6000, 2, NodeState::ScalingDown), (6000, 2, NodeState::Ready)]
    );
    let aborted = when(&h, |c| {
        matches!(
            c,
            ServiceChange::ScaleDownAborted {
                node: 2,
                why: Abort::Budget
            }
        )
    });
    assert_eq!(aborted, [6000]);
    assert!(m.deleted.is_empty());
    assert_eq!((m.replicas.len(), m.failed), (3, 0));
    assert_eq!(m.drain.map(|d| d.evictions_refused), Some(0));
}

#[test]
fn an_eviction_refused_for_two_minutes_gives_the_scale_down_up_with_the_first_pod_already_gone() {
    // 3 replicas on 2 nodes: node 0 has replicas 0 and 2. They boot in
    // 150 s, so traffic starts at 150 s and node 0 is scaled down at 155
    // s under minAvailable 2. The budget allows one disruption (3 healthy
    // > 2): the node is taken. Replica 0's eviction passes (3 > 2);
    // replica 2's is refused (2 healthy now, not > 2), and asked again at
    // 165, 175, …, 265 s: 12 refusals, the replacement (replica 3, made at
    // 155 s on node 1) not Ready before 305 s. At 275 s, 2 min after the
    // first, it is given up: the taint comes off, replica 2 stays on node 0.
    let (m, h) = scale_down((3, 2), secs(150), false, ScaleDown::of(0), min_available(2));
    let refused = when(&h, |c| matches!(c, ServiceChange::EvictionRefused { replica: 2 }));
    let want: Vec<u64> = (0..12).map(|k| 155_000 + 10_000 * k).collect();
    assert_eq!(refused, want);
    assert_eq!(
        when(&h, |c| matches!(c, ServiceChange::Evicted { .. })),
        [155_000]
    );
    assert_eq!(
        states(&h),
        [
            (155_000, 0, NodeState::ScalingDown),
            (275_000, 0, NodeState::Ready)
        ]
    );
    let why = |why| move |c| matches!(c, ServiceChange::ScaleDownAborted { node: 0, why: w } if w == why);
    assert_eq!(when(&h, why(Abort::EvictionTimeout)), [275_000]);
    let deleted: Vec<u32> = m.deleted.iter().map(|d| d.replica).collect();
    assert_eq!(deleted, [0]);
    let drain = m.drain.expect("a scale-down has the drain's figures");
    assert_eq!((drain.evictions_refused, drain.drain_ms), (12, None));
}

#[test]
fn a_grace_above_max_graceful_termination_is_cut_to_it() {
    // The app ignores SIGTERM, its grace is the default 30 s, the cap 10
    // s: evicted at 6 s with 10 s, SIGKILL 10 s after the kubelet hears
    // (6.05 s): a termination of 10 s, not 30, ending at 16.05 s.
    let sd = ScaleDown {
        max_graceful_termination: secs(10),
        ..ScaleDown::of(2)
    };
    let (m, h) = scale_down((3, 3), secs(1), true, sd, None);
    assert_eq!(m.deleted[0].termination_ms, Some(10_000));
    assert_eq!(m.replicas[2].sigkilled, 1);
    // Its object goes 60 s after, at 76.05 s; the wait is 10 s + 30 s of
    // headroom from 6 s: looks at 6, 11, …, 41 s find it there, and the
    // one at 46 s is past the wait: given up, the node kept.
    let why = |c| {
        matches!(
            c,
            ServiceChange::ScaleDownAborted {
                why: Abort::PodsRemaining,
                ..
            }
        )
    };
    assert_eq!(when(&h, why), [46_000]);
    assert_eq!(
        states(&h),
        [(6000, 2, NodeState::ScalingDown), (46_000, 2, NodeState::Ready)]
    );
}

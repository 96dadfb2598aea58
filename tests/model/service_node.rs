//! A lost node (issue 40 items 2 and 4), worked by hand: its kubelet stops
//! renewing its Lease, the node controller marks it NotReady at its first
//! check node-monitor-grace-period past the one that saw the last renewal,
//! every other node's rules drop its Pod after the propagation, requests
//! routed there meanwhile time out (no RST from a dead host), and the
//! unreachable taint (a check later) evicts its Pod after 300 s for the
//! ReplicaSet to replace it elsewhere; a spot reclaim first drains the
//! node, which a budget may hold past the notice.
//!
//! The runs share one shape: 2 replicas of a web app that boots in 1 s (no
//! probes: Ready as it is alive), replica r on node r, propagation fixed at
//! 500 ms and syncs at once, one client on node 0 sending 10 requests/s on
//! new connections (the `ideal` client: a 30 s connect timeout), 10 ms of
//! service time. Both replicas are Ready at 1 s and in both nodes' rules at
//! 1.5 s, when traffic starts: request k is sent at 1.6 s + 100 ms · k.
//! Node 1 is lost 5 s later, at 6.5 s; the disruption was scheduled at 1.5
//! s, before the arrival of 6.5 s, so that request already meets it.
//!
//! Unless a test says otherwise the Lease phases are pinned (`pinned`):
//! the kubelet last renewed 3 s before the failure, and the controller's
//! check that saw it came 1 s after the renewal, so 2 s before the failure.
//! Its checks come every 5 s from there; a 50 s grace is 10 of them, so
//! NotReady comes 50 - 2 = 48 s after the failure; the NoExecute taint a
//! check (5 s) later.

use podsim::model::service::{
    Budget, Cause, Disruption, NodeFailure, NodeState, Pdb, Provider, Scaled, ServiceChange, ServiceHistory,
    ServiceMetrics, ServiceSimulator, Spot, When,
};
use podsim::model::{KubeVersion, RunSpec};

use super::common::secs;
use super::service::{ms, service, steady, web};

/// `node` fails, its Lease 3 s old, that renewal seen 1 s after it.
pub(super) fn pinned(node: u32) -> NodeFailure {
    NodeFailure {
        lease_age: Some(secs(3)),
        monitor_lag: Some(secs(1)),
        ..NodeFailure::of(node)
    }
}

/// Node 1 lost (`failure`) 5 s after traffic started, traffic lasting 60
/// s (to 61.5 s), under Kubernetes 1.`minor`, with `pdb`.
pub(super) fn lose(failure: NodeFailure, minor: u32, pdb: Option<Pdb>) -> (ServiceMetrics, ServiceHistory) {
    lose_in(failure, minor, pdb, 0)
}

/// `lose`, in replication `replication` of seed 0.
fn lose_in(
    failure: NodeFailure,
    minor: u32,
    pdb: Option<Pdb>,
    replication: u64,
) -> (ServiceMetrics, ServiceHistory) {
    let mut s = service(2, ms(500), secs(5), steady(secs(60)));
    s.nodes = 2;
    s.pdb = pdb;
    s.disruptions = vec![Disruption {
        when: When::AfterReady(secs(5)),
        node_failure: Some(failure),
        ..Disruption::default()
    }];
    let mut pod = web(secs(5));
    pod.kubernetes = KubeVersion(minor);
    let mut run = RunSpec {
        service: Some(Box::new(s)),
        ..RunSpec::new(pod)
    };
    run.stream.replication = replication;
    let mut simulator = ServiceSimulator::observed_by(run, ServiceHistory::default());
    let m = simulator.run();
    (m, std::mem::take(simulator.observer_mut()))
}

/// When each change `pick` matches happened, in ms.
pub(super) fn when(h: &ServiceHistory, pick: impl Fn(ServiceChange) -> bool) -> Vec<u64> {
    h.iter()
        .filter(|e| pick(e.what))
        .map(|e| e.at.as_millis())
        .collect()
}

/// The requests routed to replica 1, by when they were sent (ms).
fn routed_to_1(h: &ServiceHistory) -> Vec<u64> {
    when(h, |c| matches!(c, ServiceChange::Routed { replica: 1, .. }))
}

#[test]
fn a_failed_node_times_out_new_connections_until_the_other_rules_drop_its_pod() {
    // Kubernetes 1.36: a 50 s grace (kubernetes#126287, 1.32 on). Lost at
    // 6.5 s, last renewed at 3.5 s, seen at the check of 4.5 s → NotReady
    // at the check of 4.5 + 50 = 54.5 s: replica 1's endpoint stops
    // serving, a new slice version that node 0 hears 500 ms later and
    // syncs at once: its rules drop replica 1 at 55.0 s. Node 1's
    // kube-proxy, on the dead machine, hears nothing: never. The sync of
    // 55.0 s was scheduled in that instant, after the arrival of 55.0 s
    // (scheduled at 54.9 s), so that request is still routed by the old rules.
    let (m, h) = lose(pinned(1), 36, None);
    let state = |s: NodeState| move |c| matches!(c, ServiceChange::Node { node: 1, state } if state == s);
    assert_eq!(when(&h, state(NodeState::Gone)), [6500]);
    assert_eq!(when(&h, state(NodeState::NotReady)), [54_500]);
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::RuleDropped { node: 0, replica: 1 }
        )),
        [55_000]
    );
    assert!(when(&h, |c| matches!(c, ServiceChange::RuleDropped { node: 1, .. })).is_empty());
    // Requests 1.6 … 61.4 s: 599, the client's node alive. Each one node
    // 0's rules sent to replica 1 from 6.5 s to 55.0 s (the draw picks
    // one of the two, so which ones is the stream's) found no host: it
    // failed unreachable when its SYN gave up, 30 s after it was sent;
    // before 6.5 s and after 55.0 s none failed, none went to replica 1.
    assert_eq!(m.requests, 599);
    let lost: Vec<u64> = routed_to_1(&h).into_iter().filter(|&t| t >= 6500).collect();
    assert!(
        lost.first() >= Some(&6500) && lost.last() <= Some(&55_000),
        "{lost:?}"
    );
    // 486 sends from 6.5 s to 55.0 s, each to replica 1 with chance 1/2:
    // 243 ± 11 (one standard deviation): within five either way.
    assert!((243 - 56..=243 + 56).contains(&lost.len()), "{}", lost.len());
    assert_eq!(
        (m.failed, m.failed_of(Cause::Unreachable)),
        (lost.len() as u64, lost.len() as u64)
    );
    let failed: Vec<(u64, u64)> = (h.iter())
        .filter_map(|e| match e.what {
            ServiceChange::RequestFailed { sent, cause, .. } => {
                assert_eq!(cause, Cause::Unreachable);
                Some((sent.as_millis(), e.at.as_millis()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(failed, lost.iter().map(|&t| (t, t + 30_000)).collect::<Vec<_>>());
    // The NoExecute taint comes at the next check, 59.5 s, and evicts
    // replica 1 at 59.5 + 300 = 359.5 s (no budget asked), 353 s after the
    // failure; the ReplicaSet makes replica 2 on node 0 (node 1 is
    // tainted), Ready at 360.5 s: two ready endpoints again, 354 s after.
    let n = m.node.as_ref().expect("a lost node's figures");
    assert_eq!(
        n.numbers(),
        [
            Some(lost.len() as u64),
            Some(48_000),
            Some(48_500),
            Some(353_000),
            Some(354_000),
            None
        ]
    );
    assert_eq!(n.lost[0].rules_dropped_ms, [Some(48_500), None]);
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::PodMade {
                replica: 2,
                node: 0,
                ..
            }
        )),
        [359_500]
    );
    assert_eq!(
        when(&h, |c| matches!(c, ServiceChange::TaintEvicted { replica: 1 })),
        [359_500]
    );
}

#[test]
fn before_kubernetes_1_32_the_node_controller_waits_40_seconds() {
    // 1.31: the grace was 40 s, 8 checks: NotReady at 4.5 + 40 = 44.5 s
    // (38 s after the failure), node 0's rules drop replica 1 at 45.0 s.
    let (m, h) = lose(pinned(1), 31, None);
    let n = m.node.expect("a lost node's figures");
    assert_eq!(
        (n.lost[0].not_ready_ms, n.lost[0].rules_dropped_ms[0]),
        (Some(38_000), Some(38_500))
    );
    assert!(routed_to_1(&h).iter().all(|&t| t <= 45_000));
}

#[test]
fn a_partitioned_node_serves_its_own_clients_through_its_last_rules() {
    // Partitioned, not off: replica 1 runs on, so a request from node 1's
    // client routed to it is answered; here the only client is on node 0,
    // across the cut, so every request routed to replica 1 from 6.5 s to
    // 55.0 s times out as before. Node 1's rules still list both.
    let failure = NodeFailure {
        partition: true,
        ..pinned(1)
    };
    let (m, h) = lose(failure, 36, None);
    let lost = routed_to_1(&h).into_iter().filter(|&t| t >= 6500).count() as u64;
    assert_eq!(m.failed_of(Cause::Unreachable), lost);
    let state = |c| {
        matches!(
            c,
            ServiceChange::Node {
                node: 1,
                state: NodeState::CutOff
            }
        )
    };
    assert_eq!(when(&h, state), [6500]);
    // Its Pod never hears of the eviction: it still runs at the end.
    assert_eq!(m.replicas[1].termination_ms, None);
}

#[test]
fn a_budget_holds_a_spot_reclaims_drain_past_the_notice_and_protects_nothing_after() {
    // GCP's notice: 30 s, from 6.5 s. The handler cordons node 1 and asks
    // to evict replica 1 at 6.5 s; minAvailable 2 of 2 refuses (HTTP 429)
    // at 6.5, 11.5, 16.5, 21.5, 26.5, 31.5 s: 6 times. The machine vanishes
    // at 36.5 s, before the retry of 36.5 s (scheduled later than the
    // notice's end): the drain never finishes. The kubelet renewed at
    // 33.5 s, seen at 34.5 s: NotReady at 84.5 s (48 s after the machine
    // vanished), node 0's rules drop replica 1 at 85.0 s; the taint, at the
    // check of 89.5 s, evicts it at 389.5 s (353 s after), budget or not.
    let spot = Spot {
        provider: Provider::Gcp,
        notice: None,
    };
    let failure = NodeFailure {
        spot: Some(spot),
        ..pinned(1)
    };
    let pdb = Pdb {
        budget: Budget::MinAvailable(Scaled::Count(2)),
        ..Pdb::default()
    };
    let (m, h) = lose(failure, 36, Some(pdb));
    let refused = when(&h, |c| matches!(c, ServiceChange::EvictionRefused { replica: 1 }));
    assert_eq!(refused, [6500, 11_500, 16_500, 21_500, 26_500, 31_500]);
    let d = m.drain.expect("the handler's drain");
    assert_eq!((d.evictions_refused, d.drain_ms), (6, None));
    let n = m.node.as_ref().expect("a lost node's figures");
    let l = &n.lost[0];
    assert_eq!((l.notice_ms, l.failed_ms), (Some(6500), Some(36_500)));
    assert_eq!(
        (l.not_ready_ms, l.rules_dropped_ms[0]),
        (Some(48_000), Some(48_500))
    );
    assert_eq!(l.evicted_ms, Some(353_000));
    // Until the notice's end every request is answered; from then on those
    // node 0's rules send to replica 1 (to 85.0 s) time out.
    let lost = routed_to_1(&h).into_iter().filter(|&t| t >= 36_500).count() as u64;
    assert_eq!((m.failed, m.failed_of(Cause::Unreachable)), (lost, lost));
    assert!(
        when(&h, |c| matches!(c, ServiceChange::RequestFailed { .. }))
            .iter()
            .all(|&t| t >= 66_500)
    );
}

#[test]
fn a_budget_of_two_of_three_stops_a_drains_eviction_and_not_a_node_failure() {
    // Three replicas on three nodes (replica r on node r), minAvailable 2.
    // Node 0 fails at 6.5 s: no eviction is asked, so the budget is not:
    // NotReady at 54.5 s (replica 0 no longer healthy; the phases pinned
    // as above), tainted at 59.5 s and evicted by the taint at 359.5 s all
    // the same. Node 1's drain at 61.5 s asks to evict replica 1 with 2
    // healthy of the 2 needed: refused (HTTP 429), and every 5 s after,
    // until the taint's eviction makes replica 3 on node 2 (nodes 0 and 1
    // are cordoned), Ready at 360.5 s: 3 healthy, so the retry of 361.5 s
    // goes through. Refused at 61.5 … 356.5 s: 60.
    let mut s = service(3, ms(500), secs(5), steady(secs(60)));
    s.nodes = 3;
    s.pdb = Some(Pdb {
        budget: Budget::MinAvailable(Scaled::Count(2)),
        ..Pdb::default()
    });
    s.disruptions = vec![
        Disruption {
            when: When::AfterReady(secs(5)),
            node_failure: Some(pinned(0)),
            ..Disruption::default()
        },
        Disruption {
            when: When::AfterReady(secs(60)),
            drain: Some(1),
            ..Disruption::default()
        },
    ];
    let run = RunSpec {
        service: Some(Box::new(s)),
        ..RunSpec::new(web(secs(5)))
    };
    let mut simulator = ServiceSimulator::observed_by(run, ServiceHistory::default());
    let m = simulator.run();
    let h = std::mem::take(simulator.observer_mut());
    assert_eq!(
        when(&h, |c| matches!(c, ServiceChange::TaintEvicted { replica: 0 })),
        [359_500]
    );
    let refused = when(&h, |c| matches!(c, ServiceChange::EvictionRefused { replica: 1 }));
    assert_eq!(refused, (0..60).map(|k| 61_500 + 5000 * k).collect::<Vec<u64>>());
    assert_eq!(
        when(&h, |c| matches!(c, ServiceChange::Evicted { replica: 1 })),
        [361_500]
    );
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::PodMade {
                replica: 3,
                node: 2,
                ..
            }
        )),
        [359_500]
    );
    assert_eq!(m.drain.map(|d| d.evictions_refused), Some(60));
}

#[test]
fn the_grace_counts_from_the_check_that_saw_the_last_renewal_in_whole_checks() {
    // Renewed 1 s before the failure (5.5 s), seen 4 s after that: at the
    // check of 9.5 s, after the failure. 50 s is 10 checks: NotReady at
    // 59.5 s, 53 s after the failure (the latest a 10 s renewal and 5 s
    // checks allow: 50 + 5 - 0, less the lag's and age's last ms).
    let late = NodeFailure {
        lease_age: Some(secs(1)),
        monitor_lag: Some(secs(4)),
        ..NodeFailure::of(1)
    };
    let (m, _) = lose(late, 36, None);
    assert_eq!(m.node.expect("figures").lost[0].not_ready_ms, Some(53_000));
    // A 42 s grace is not a whole number of checks: the check of 4.5 + 40
    // = 44.5 s is 40 s past the probe, not 42; the next one, 49.5 s, is
    // (`now.After(probe + grace)`): 43 s after the failure.
    let between = NodeFailure {
        grace: Some(secs(42)),
        ..pinned(1)
    };
    let (m, _) = lose(between, 36, None);
    assert_eq!(m.node.expect("figures").lost[0].not_ready_ms, Some(43_000));
}

#[test]
fn drawn_phases_spread_not_ready_over_a_renewal_and_a_check() {
    // Drawn per replication: the Lease's age A uniform on [0, 10 s), the
    // lag L on [0, 5 s), so NotReady comes 50 + L - A s after the failure,
    // between 40 and 55 s, mean 47.5 s, standard deviation
    // sqrt(10²/12 + 5²/12) = 3.23 s: over 200 replications the mean is
    // within 4 · 3.23 / sqrt(200) = 0.91 s of 47.5. Below 43 s needs
    // A - L > 7 (chance 4.5/50 = 0.09), above 52 s L - A > 2 (0.09 too):
    // 200 replications with neither has chance 0.91^200 < 1e-8. The
    // taint comes a check (5 s) later and evicts 300 s after it.
    let not_ready: Vec<u64> = (0..200)
        .map(|r| {
            let (m, _) = lose_in(NodeFailure::of(1), 36, None, r);
            let l = m.node.expect("figures").lost[0].clone();
            let at = l.not_ready_ms.expect("NotReady within the run");
            assert_eq!(l.evicted_ms, Some(at + 305_000));
            at
        })
        .collect();
    assert!(
        not_ready.iter().all(|t| (40_000..55_000).contains(t)),
        "{not_ready:?}"
    );
    let mean = not_ready.iter().sum::<u64>() as f64 / 200.0;
    assert!((mean - 47_500.0).abs() < 910.0, "{mean}");
    assert!(not_ready.iter().any(|&t| t < 43_000) && not_ready.iter().any(|&t| t > 52_000));
}

//! What removes a lost node's Pod objects (issue 40 item 2), worked by
//! hand: the taint's eviction leaves them `Terminating` (no kubelet
//! confirms their end); PodGC force-deletes them once the Node object is
//! deleted (the cloud node lifecycle controller, for an instance that is
//! gone) or the node is tainted out-of-service by an operator
//! (non-graceful node shutdown). Neither changes a failed-request count
//! here (the rules dropped the Pods at NotReady): they change when the
//! objects leave the slice and `kubectl get`, and when the replacement
//! comes.
//!
//! The runs are `service_node`'s: node 1 lost at 6.5 s, its Lease 3 s old,
//! the renewal seen at the check of 4.5 s, so NotReady at 54.5 s (48 s
//! after), the NoExecute taint at 59.5 s and its eviction at 359.5 s.
//! PodGC's passes fall on whole multiples of 20 s.

use podsim::model::service::{NodeFailure, NodeState, Provider, ServiceChange, Spot};

use super::common::secs;
use super::service_node::{lose, pinned, when};

#[test]
fn a_terminated_spot_instances_node_is_deleted_and_podgc_removes_its_pods_after_the_quarantine() {
    // An EC2 Spot instance with no notice: terminated, so the cloud
    // controller deletes the Node at its check a period after NotReady:
    // 59.5 s. PodGC's next pass (60 s) sees it missing and quarantines it
    // for 40 s; the pass of 100 s force-deletes replica 1, before the
    // taint's eviction (359.5 s) ever comes. The ReplicaSet makes replica
    // 2 on node 0 at 100 s, Ready at 101 s: whole again 94.5 s after the
    // failure instead of 354 s.
    let spot = Spot {
        provider: Provider::Aws,
        notice: Some(secs(0)),
    };
    let failure = NodeFailure {
        spot: Some(spot),
        ..pinned(1)
    };
    assert!(failure.deletes_node());
    let (m, h) = lose(failure, 36, None);
    let deleted = |c| {
        matches!(
            c,
            ServiceChange::Node {
                node: 1,
                state: NodeState::Deleted
            }
        )
    };
    assert_eq!(when(&h, deleted), [59_500]);
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::PodGarbageCollected { replica: 1 }
        )),
        [100_000]
    );
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::PodMade {
                replica: 2,
                node: 0,
                ..
            }
        )),
        [100_000]
    );
    assert!(when(&h, |c| matches!(c, ServiceChange::TaintEvicted { .. })).is_empty());
    let l = &m.node.as_ref().expect("figures").lost[0];
    assert_eq!(
        (l.not_ready_ms, l.evicted_ms, l.replaced_ms, l.pods_gone_ms),
        (Some(48_000), None, Some(94_500), Some(93_500))
    );
}

#[test]
fn an_out_of_service_taint_replaces_the_pod_at_once_and_podgc_removes_it_once_not_ready() {
    // A failed machine keeps its Node object (no deletion). An operator
    // taints it out-of-service 20 s after the failure, at 26.5 s: the taint
    // eviction controller deletes replica 1 at once (it tolerates only
    // not-ready and unreachable), the ReplicaSet makes replica 2 on node 0
    // (the taint keeps node 1 out), Ready at 27.5 s. Replica 1 is
    // terminating: node 0 hears of it 500 ms later and drops it at 27.0 s,
    // not at 55.0 s. PodGC's gcTerminating wants the node not Ready too:
    // NotReady at 54.5 s, its next pass at 60 s force-deletes replica 1.
    let failure = NodeFailure {
        out_of_service: Some(secs(20)),
        ..pinned(1)
    };
    assert!(!failure.deletes_node());
    let (m, h) = lose(failure, 36, None);
    assert_eq!(
        when(&h, |c| matches!(c, ServiceChange::TaintEvicted { replica: 1 })),
        [26_500]
    );
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::PodMade {
                replica: 2,
                node: 0,
                ..
            }
        )),
        [26_500]
    );
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::RuleDropped { node: 0, replica: 1 }
        )),
        [27_000]
    );
    assert_eq!(
        when(&h, |c| matches!(
            c,
            ServiceChange::PodGarbageCollected { replica: 1 }
        )),
        [60_000]
    );
    let l = &m.node.as_ref().expect("figures").lost[0];
    assert_eq!(
        (
            l.not_ready_ms,
            l.rules_dropped_ms[0],
            l.evicted_ms,
            l.replaced_ms,
            l.pods_gone_ms
        ),
        (
            Some(48_000),
            Some(20_500),
            Some(20_000),
            Some(21_000),
            Some(53_500)
        )
    );
}

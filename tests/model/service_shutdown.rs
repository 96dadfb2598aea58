//! A graceful node shutdown (issue 40 item 3, KEP-2000) worked by hand:
//! the kubelet kills the node's Pods itself, each with its own grace
//! capped by shutdownGracePeriod − shutdownGracePeriodCriticalPods,
//! without deleting them: each stays serving until the node controller's
//! check (or its exit), turns Failed when its containers stop, and only
//! then does the ReplicaSet replace it on the other node.
//!
//! The runs are `service`'s with two nodes: two replicas of a web app
//! booting in 1 s with no probes (replica r on node r mod 2), Ready at
//! 1 s, when traffic starts (propagation 0, syncs at once). The app
//! ignores SIGTERM (R55), so it exits only at the SIGKILL that ends its
//! grace. Node 0 shuts down 5 s after traffic started: at 6 s.

use podsim::engine::{SimDuration, SimTime};
use podsim::model::service::{
    Disruption, NodeShutdown, PodFact, PriorityGroup, ReplicaSet, ServiceMetrics, ServiceSimulator, When,
    simulate_service,
};
use podsim::model::{Drain, RunSpec};

use super::common::secs;
use super::service::{service, steady, web};

/// Node 0 shuts down with a 20 s shutdownGracePeriod, 5 s of it for
/// critical Pods; the Pod's own grace is `grace`.
fn shutdown(grace: SimDuration) -> ServiceMetrics {
    shutdown_of(grace, 0)
}

/// The same, the replicas' priority `priority`.
fn shutdown_of(grace: SimDuration, priority: u32) -> ServiceMetrics {
    shutdown_with(grace, priority, None)
}

/// The same, the kubelet's shutdownGracePeriodByPodPriority `groups` if any.
fn shutdown_with(grace: SimDuration, priority: u32, groups: Option<&[(u32, u64)]>) -> ServiceMetrics {
    ServiceSimulator::new(run_of(grace, priority, groups, Some(secs(2)))).run()
}

/// The run: the node controller's check `lag` after the shutdown began.
fn run_of(
    grace: SimDuration,
    priority: u32,
    groups: Option<&[(u32, u64)]>,
    lag: Option<SimDuration>,
) -> RunSpec {
    let mut s = service(2, SimDuration::ZERO, secs(5), steady(secs(40)));
    s.nodes = 2;
    s.pod_priority = priority;
    let by_priority = groups.map(|g| {
        g.iter()
            .map(|&(priority, seconds)| PriorityGroup {
                priority,
                seconds: secs(seconds),
            })
            .collect()
    });
    s.disruptions = vec![Disruption {
        when: When::AfterReady(secs(5)),
        node_shutdown: Some(NodeShutdown {
            node: 0,
            grace_period: by_priority.is_none().then_some(secs(20)),
            critical_pods: by_priority.is_none().then_some(secs(5)),
            by_priority,
            monitor_lag: lag,
        }),
        ..Disruption::default()
    }];
    let mut pod = web(secs(0));
    pod.containers[0].drain = Drain::Never;
    pod.termination_grace_period = grace;
    RunSpec {
        service: Some(Box::new(s)),
        ..RunSpec::new(pod)
    }
}

/// What the API and the slice showed of `replica` from `from` on, in ms.
fn facts_of(grace: SimDuration, lag: SimDuration, replica: u32, from: u64) -> Vec<(u64, PodFact)> {
    let report = simulate_service(&run_of(grace, 0, None, Some(lag)));
    (report.trace.pod_facts())
        .filter(|&(at, r, _)| r == replica && at >= SimTime(from))
        .map(|(at, _, fact)| (at.as_millis(), fact))
        .collect()
}

#[test]
fn a_shut_down_pod_serves_until_the_node_controllers_check_and_fails_at_its_sigkill() {
    // Killed at 6 s with 15 s of grace (30 s cut), not deleted; the node
    // controller's check 2 s later marks it not Ready (8 s); its app
    // ignores SIGTERM, so the SIGKILL at 21 s stops it: Failed then, and
    // the ReplicaSet creates replica 2 only then. The object stays.
    let facts = facts_of(secs(30), secs(2), 0, 2000);
    let expected = [
        (6000, PodFact::ShutDown),
        (8000, PodFact::Serving(false)),
        (21_000, PodFact::Failed),
    ];
    assert_eq!(facts, expected);
    let made = facts_of(secs(30), secs(2), 2, 0);
    assert_eq!(made.first(), Some(&(21_000, PodFact::Created(ReplicaSet::Old))));
}

#[test]
fn a_shut_down_pod_that_exits_before_the_check_serves_until_its_exit() {
    // The check 20 s after the kill (26 s) comes after the SIGKILL (21 s):
    // the exit ends its serving, and its phase turns Failed the same instant.
    let facts = facts_of(secs(30), secs(20), 0, 2000);
    let expected = [
        (6000, PodFact::ShutDown),
        (21_000, PodFact::Serving(false)),
        (21_000, PodFact::Failed),
    ];
    assert_eq!(facts, expected);
}

#[test]
fn a_30s_grace_is_cut_to_the_regular_pods_15s() {
    // The budget is 20 − 5 = 15 s, below the Pod's 30 s: the kubelet
    // kills replica 0 (node 0's one Pod) at 6 s, hearing of it at once,
    // SIGTERM then, SIGKILL 15 s later: terminated in 15 s, not 30.
    let m = shutdown(secs(30));
    let d = &m.deleted;
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].replica, d[0].shut_down, d[0].deleted_ms, d[0].termination_ms),
        (0, true, 6000, Some(15_000))
    );
    assert_eq!(m.replicas[0].sigkilled, 1);
    // Its replacement, replica 2, goes to node 1 (node 0 is not Ready).
    assert_eq!(m.replicas.len(), 3);
}

#[test]
fn a_grace_within_the_budget_is_the_pods_own() {
    // 10 s is below the 15 s budget: SIGKILL 10 s after the kill.
    let m = shutdown(secs(10));
    assert_eq!(m.deleted[0].termination_ms, Some(10_000));
}

#[test]
fn a_critical_replica_gets_the_critical_share() {
    // system-cluster-critical (2000000000) is `migrateConfig`'s critical
    // group: its seconds are the critical share, 5 s. The regular group
    // before it holds none of node 0's Pods, so the kubelet skips it
    // without waiting: SIGTERM at 6 s, SIGKILL 5 s later, not 15 or 30.
    let m = shutdown_of(secs(30), 2_000_000_000);
    let d = &m.deleted;
    assert_eq!(
        (d[0].replica, d[0].deleted_ms, d[0].termination_ms),
        (0, 6000, Some(5000))
    );
    // system-node-critical (2000001000) is in the same group.
    assert_eq!(
        shutdown_of(secs(30), 2_000_001_000).deleted[0].termination_ms,
        Some(5000)
    );
}

#[test]
fn a_priority_just_below_critical_is_regular() {
    // 1999999999 < 2000000000: the regular group, 20 − 5 = 15 s.
    let m = shutdown_of(secs(30), 1_999_999_999);
    assert_eq!(m.deleted[0].termination_ms, Some(15_000));
}

#[test]
fn a_critical_grace_within_the_share_is_its_own() {
    // 3 s is below the critical share of 5 s: the Pod's own grace stands.
    let m = shutdown_of(secs(3), 2_000_000_000);
    assert_eq!(m.deleted[0].termination_ms, Some(3000));
}

/// shutdownGracePeriodByPodPriority of three groups: priority 100 up gets
/// 8 s, 1000 up 12 s, 2000000000 up 4 s.
const THREE: &[(u32, u64)] = &[(100, 8), (1000, 12), (2_000_000_000, 4)];

#[test]
fn by_priority_a_pod_gets_the_seconds_of_the_highest_group_at_or_below_it() {
    // `groupByPriority`: the group of the highest priority <= the Pod's.
    // The node holds replica 0 alone, so the groups below its own are
    // empty and skipped: it is killed at 6 s, SIGKILLed (its 30 s grace
    // cut) after its group's seconds.
    let termination = |priority| {
        let m = shutdown_with(secs(30), priority, Some(THREE));
        assert_eq!((m.deleted[0].replica, m.deleted[0].deleted_ms), (0, 6000));
        m.deleted[0].termination_ms
    };
    assert_eq!(termination(100), Some(8000));
    assert_eq!(termination(999), Some(8000));
    // At a group's own priority, that group.
    assert_eq!(termination(1000), Some(12_000));
    assert_eq!(termination(1_999_999_999), Some(12_000));
    // Above the highest group, the highest.
    assert_eq!(termination(2_000_001_000), Some(4000));
}

#[test]
fn by_priority_a_pod_below_the_lowest_group_falls_in_the_lowest() {
    // Priority 0 < 100: the kubelet puts it in the lowest group, 8 s.
    let m = shutdown_with(secs(30), 0, Some(THREE));
    assert_eq!(m.deleted[0].termination_ms, Some(8000));
    // Its own grace below the group's seconds stands: 5 s.
    let m = shutdown_with(secs(5), 0, Some(THREE));
    assert_eq!(m.deleted[0].termination_ms, Some(5000));
}

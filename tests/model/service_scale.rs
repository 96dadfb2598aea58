//! A scale-down (issue 40 item 5) worked by hand: `scale_to = 3` of four
//! replicas deletes the one Pod the ReplicaSet's ranking puts first
//! (`ActivePodsWithRanks` in kubernetes/kubernetes
//! pkg/controller/controller_utils.go), and nothing replaces it.
//!
//! The runs are `service`'s: four replicas of a web app booting in 1 s
//! with no probes on one node (so each has the same three Pods beside it),
//! all created at 0 and Ready at 1 s, when traffic starts (propagation 0,
//! syncs at once). Every rule before the last tie is equal unless a test
//! makes it differ: all Running, Ready since 1 s, no restarts, created at
//! 0; the last tie deletes the higher replica number.

use podsim::engine::SimDuration;
use podsim::model::RunSpec;
use podsim::model::service::{Annotate, Disruption, ServiceMetrics, ServiceSimulator, Unready, When};

use super::common::secs;
use super::service::{service, steady, web};

/// Four replicas, `before` the scale-down, which comes 6 s after traffic
/// started (at 7 s).
fn scale_down(before: Vec<Disruption>) -> ServiceMetrics {
    let mut s = service(4, SimDuration::ZERO, secs(6), steady(secs(20)));
    let scale = Disruption {
        when: When::AfterReady(secs(6)),
        scale_to: Some(3),
        ..Disruption::default()
    };
    s.disruptions = before.into_iter().chain([scale]).collect();
    let run = RunSpec {
        service: Some(Box::new(s)),
        ..RunSpec::new(web(secs(1)))
    };
    ServiceSimulator::new(run).run()
}

/// (the replicas deleted, when) and the Pods there were.
fn deleted(m: &ServiceMetrics) -> (Vec<(u32, u64)>, usize) {
    let d = m.deleted.iter().map(|d| (d.replica, d.deleted_ms)).collect();
    (d, m.replicas.len())
}

#[test]
fn with_every_rule_equal_the_higher_replica_goes_and_none_replaces_it() {
    // All four tie on every rule: replica 3, at 1 s + 6 s; still 4 Pods.
    assert_eq!(deleted(&scale_down(Vec::new())), (vec![(3, 7000)], 4));
}

#[test]
fn a_replica_that_is_not_ready_goes_before_the_ready_ones() {
    // Replica 1's readiness fails from 5 s after traffic started for 30 s:
    // at the scale-down it is the one not Ready, ranked before the three
    // Ready ones whatever their numbers.
    let unready = Disruption {
        when: When::AfterReady(secs(5)),
        unready: Some(Unready {
            replica: 1,
            lasts: secs(30),
        }),
        ..Disruption::default()
    };
    assert_eq!(deleted(&scale_down(vec![unready])), (vec![(1, 7000)], 4));
}

#[test]
fn a_lower_deletion_cost_goes_first() {
    // Replica 3 annotated with cost 10 at 1 s after traffic started; the
    // others have none (0): the lowest cost is replica 0, 1 or 2's, and
    // among them the last tie deletes replica 2.
    let annotate = Disruption {
        when: When::AfterReady(secs(1)),
        annotate: Some(Annotate {
            replica: 3,
            deletion_cost: 10,
        }),
        ..Disruption::default()
    };
    assert_eq!(deleted(&scale_down(vec![annotate])), (vec![(2, 7000)], 4));
}

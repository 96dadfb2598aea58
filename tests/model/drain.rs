//! kubectl drain through the Eviction API and a PodDisruptionBudget
//! (disruption-model.md A.5), worked by hand.
//!
//! The shape of `rollout.rs`: a web app that boots in 1 s and exits at
//! SIGTERM; propagation 0, syncs at once, traffic from 1 s; the kubelet
//! hears of a deletion 50 ms later, the object is gone 1 s after the exit.
//! Three replicas on three nodes, replica r on node r; node 0 is drained
//! 10 s after traffic started: T0 = 11 s.

use podsim::engine::SimDuration;
use podsim::model::service::{
    Arrival, Budget, Disruption, EvictionPolicy, OnSigterm, Pdb, Propagation, Rate, Rollout, Scaled,
    ServiceMetrics, ServiceSimulator, ServiceSpec, TrafficSpec, When,
};
use podsim::model::{ContainerKind, ContainerSpec, PodSpec, Probe, ProbeKind, RunSpec};

use super::common::secs;

fn web() -> PodSpec {
    PodSpec::new(vec![ContainerSpec::new("web", ContainerKind::App, secs(1))])
}

/// Three replicas on three nodes, `disruption` at `when`, budget `pdb`.
fn spec(when: When, disruption: Disruption, pdb: Option<Pdb>) -> ServiceSpec {
    let mut s = ServiceSpec {
        replicas: 3,
        nodes: 3,
        propagation: Propagation::Custom(SimDuration::ZERO.into()),
        kubelet_delay: SimDuration::from_millis(50),
        min_sync_period: SimDuration::ZERO,
        cleanup: secs(1),
        traffic: Some(TrafficSpec {
            rate: Rate::new(10.0).unwrap(),
            arrival: Arrival::Constant,
            service_time: SimDuration::from_millis(10).into(),
            ..TrafficSpec::default()
        }),
        disruptions: vec![Disruption { when, ..disruption }],
        pdb,
        ..ServiceSpec::default()
    };
    s.app.on_sigterm = OnSigterm::ExitImmediately;
    s
}

fn drain(node: u32) -> Disruption {
    Disruption {
        drain: Some(node),
        ..Disruption::default()
    }
}

fn min_available(n: u32, policy: EvictionPolicy) -> Option<Pdb> {
    Some(Pdb {
        budget: Budget::MinAvailable(Scaled::Count(n)),
        unhealthy_pod_eviction_policy: policy,
    })
}

fn run(pod: PodSpec, service: ServiceSpec, horizon: SimDuration) -> ServiceMetrics {
    let mut run = RunSpec {
        service: Some(Box::new(service)),
        ..RunSpec::new(pod)
    };
    run.horizon = horizon;
    ServiceSimulator::new(run).run()
}

const T0: When = When::AfterReady(SimDuration::from_secs(10));

#[test]
fn a_drain_without_a_budget_evicts_at_once_and_the_replacement_goes_elsewhere() {
    // Replica 0 evicted at 11 s, exits at 11.05 s, gone at 12.05 s: the
    // drain takes 1.05 s. Its replacement (replica 3) is created at 11 s on
    // node 1 (node 0 is cordoned) and Ready at 12 s: two ready in between.
    let m = run(web(), spec(T0, drain(0), None), secs(3600));
    let d = m.drain.expect("a drain scenario has drain figures");
    assert_eq!((d.drain_ms, d.evictions_refused), (Some(1050), 0));
    assert_eq!(d.below_min_available_ms, 0);
    assert_eq!(m.min_ready_endpoints, Some(2));
    assert_eq!(m.replicas.len(), 4);
    assert_eq!(m.replicas[3].ready_ms, Some(12_000));
    assert_eq!(m.rollout, None);
}

#[test]
fn a_budget_of_every_replica_refuses_every_eviction_and_the_drain_never_ends() {
    // min_available 3 of 3: disruptionsAllowed is 0, so the eviction is
    // refused at 11 s and at each retry 5 s later, up to the 60 s horizon:
    // 11, 16, …, 56 s, ten 429s.
    let m = run(
        web(),
        spec(T0, drain(0), min_available(3, EvictionPolicy::IfHealthyBudget)),
        secs(60),
    );
    let d = m.drain.unwrap();
    assert_eq!((d.drain_ms, d.evictions_refused), (None, 10));
    assert!(m.horizon);
    assert!(m.deleted.is_empty());
    assert_eq!(m.min_ready_endpoints, Some(3));
}

#[test]
fn a_budget_of_every_replica_lets_a_delete_and_a_rollout_through() {
    // The budget guards evictions only: kubectl delete and the rollout's
    // ReplicaSet ignore it.
    let pdb = min_available(3, EvictionPolicy::IfHealthyBudget);
    let delete = run(web(), spec(T0, Disruption::default(), pdb), secs(3600));
    assert_eq!(delete.deleted.len(), 1);
    assert_eq!(delete.deleted[0].deleted_ms, 11_000);
    let rollout = Disruption {
        rollout: Some(Rollout::default()),
        ..Disruption::default()
    };
    let rolled = run(web(), spec(T0, rollout, pdb), secs(3600));
    // As without a budget (rollout.rs): three rounds of 1 s.
    assert_eq!(rolled.rollout.unwrap().rollout_ms, Some(3000));
}

#[test]
fn always_allow_evicts_a_running_pod_that_is_not_ready_which_if_healthy_budget_protects() {
    // A readiness probe that first runs at 100 s: every Pod is Running from
    // 1 s but not Ready, so none is healthy and traffic never starts. The
    // drain at 5 s with min_available 1: IfHealthyBudget keeps the
    // unhealthy Pod (0 healthy < 1), refused at 5, 10, 15, 20 and 25 s
    // before the 28 s horizon; AlwaysAllow evicts it at 5 s, and it is gone
    // at 6.05 s.
    let mut pod = web();
    pod.containers[0].probes[ProbeKind::Readiness.index()] = Some(Probe {
        initial_delay: secs(100),
        ..Probe::default()
    });
    let at = When::At(secs(5));
    let protect = min_available(1, EvictionPolicy::IfHealthyBudget);
    let m = run(pod.clone(), spec(at, drain(0), protect), secs(28));
    let d = m.drain.unwrap();
    assert_eq!((d.drain_ms, d.evictions_refused), (None, 5));
    assert!(m.deleted.is_empty());
    let allow = min_available(1, EvictionPolicy::AlwaysAllow);
    let m = run(pod, spec(at, drain(0), allow), secs(28));
    let d = m.drain.unwrap();
    assert_eq!((d.drain_ms, d.evictions_refused), (Some(1050), 0));
    assert_eq!(m.deleted[0].deleted_ms, 5000);
}

#[test]
fn a_budget_that_allows_one_disruption_drains_two_nodes_one_pod_at_a_time() {
    // min_available 2 of 3 and nodes 0 and 1 drained at T0: replica 0 goes
    // (3 healthy > 2); replica 1 is refused (2 healthy, 2 needed) until
    // replica 0's replacement, on node 2, is Ready at 12 s: allowed at its
    // retry, 16 s; gone at 17.05 s, 6.05 s after T0. Below the budget
    // never: 2 ready at the least.
    let mut s = spec(T0, drain(0), min_available(2, EvictionPolicy::IfHealthyBudget));
    s.disruptions.push(Disruption { when: T0, ..drain(1) });
    let m = run(web(), s, secs(3600));
    let d = m.drain.unwrap();
    assert_eq!((d.drain_ms, d.evictions_refused), (Some(6050), 1));
    assert_eq!(d.below_min_available_ms, 0);
    assert_eq!(m.min_ready_endpoints, Some(2));
    let deleted: Vec<(u32, u64)> = m.deleted.iter().map(|d| (d.replica, d.deleted_ms)).collect();
    assert_eq!(deleted, [(0, 11_000), (1, 16_000)]);
}

#[test]
fn a_budget_with_neither_field_refuses_every_eviction_of_a_running_pod() {
    // Neither minAvailable nor maxUnavailable: getExpectedPodCount leaves
    // expectedCount 0, and updatePdbStatus then sets disruptionsAllowed to
    // 0 (kubernetes pkg/controller/disruption/disruption.go at 003e86297d18;
    // "fail-closed", emqx/emqx-operator#1227). All three healthy, the
    // eviction is still refused at 11, 16, …, 56 s: ten 429s, as with
    // min_available 3. A Running, not Ready Pod (the probe above) is kept
    // too under IfHealthyBudget (desiredHealthy is 0, not above it),
    // refused at 5, 10, …, 25 s, and evicted at once under AlwaysAllow.
    let unset = |policy| {
        Some(Pdb {
            budget: Budget::Unset,
            unhealthy_pod_eviction_policy: policy,
        })
    };
    let m = run(
        web(),
        spec(T0, drain(0), unset(EvictionPolicy::IfHealthyBudget)),
        secs(60),
    );
    let d = m.drain.unwrap();
    assert_eq!((d.drain_ms, d.evictions_refused), (None, 10));
    assert_eq!(d.below_min_available_ms, 0);
    assert!(m.deleted.is_empty());
    let mut pod = web();
    pod.containers[0].probes[ProbeKind::Readiness.index()] = Some(Probe {
        initial_delay: secs(100),
        ..Probe::default()
    });
    let at = When::At(secs(5));
    let m = run(
        pod.clone(),
        spec(at, drain(0), unset(EvictionPolicy::IfHealthyBudget)),
        secs(28),
    );
    assert_eq!(m.drain.unwrap().evictions_refused, 5);
    let m = run(
        pod,
        spec(at, drain(0), unset(EvictionPolicy::AlwaysAllow)),
        secs(28),
    );
    assert_eq!(m.drain.unwrap().drain_ms, Some(1050));
}

//! Issue 16's invariants of the Service model under random Service
//! scenarios (any replica and node count, propagation, sync period,
//! arrival, connection mode, retry, SIGTERM reaction, disruptions at any
//! moment, once or repeating, a web app with or without a proxy sidecar), each checked
//! against the run's whole typed history (every sync's rule changes, every
//! request routed, answered and failed), so the figures and the decisions
//! behind them must agree.

use std::collections::{BTreeMap, BTreeSet};

use podsim::engine::SimDuration;
use podsim::model::service::{
    Arrival, Cause, Connections, Disruption, OnSigterm, Propagation, Rate, Retry, ServiceChange,
    ServiceEntry, ServiceHistory, ServiceMetrics, ServiceSimulator, ServiceSpec, TrafficSpec, When,
};
use podsim::model::{ContainerKind, ContainerSpec, Dist, PodSpec, RunSpec, Stream};
use proptest::prelude::*;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// A fixed duration of 0 to `max` ms, or a lognormal one around it.
fn duration(max: u64) -> impl Strategy<Value = Dist> {
    prop_oneof![
        (0..=max).prop_map(|d| Dist::Fixed(ms(d))),
        (1..=max.max(1)).prop_map(|m| Dist::LogNormal {
            median: ms(m),
            p99: ms(m * 4),
        }),
    ]
}

/// A web app, maybe behind a proxy sidecar (then a request needs both).
fn pod() -> impl Strategy<Value = PodSpec> {
    (
        0u64..3000,
        0u64..5000,
        0u64..5000,
        1u64..30,
        any::<bool>(),
        0u64..2000,
    )
        .prop_map(|(boot, drain, pre_stop, grace, proxied, proxy_boot)| {
            let mut web = ContainerSpec::new("web", ContainerKind::App, ms(boot));
            web.drain = ms(drain).into();
            web.pre_stop = (pre_stop > 0).then(|| ms(pre_stop).into());
            let mut containers = vec![web];
            if proxied {
                let mut proxy = ContainerSpec::new("proxy", ContainerKind::Sidecar, ms(proxy_boot));
                proxy.proxy = true;
                proxy.drain = ms(500).into();
                containers.insert(0, proxy);
            }
            let mut spec = PodSpec::new(containers);
            spec.termination_grace_period = SimDuration::from_secs(grace);
            spec
        })
}

fn traffic() -> impl Strategy<Value = TrafficSpec> {
    (
        (1.0f64..300.0, any::<bool>(), any::<bool>(), 1u32..4, 1u32..4),
        (
            duration(300),
            any::<bool>(),
            proptest::option::of(1u64..40),
            100u64..5000,
        ),
    )
        .prop_map(
            |((rate, constant, keep_alive, pool, clients), (service_time, retry, secs, timeout))| {
                TrafficSpec {
                    rate: Rate::new(rate).unwrap(),
                    arrival: if constant {
                        Arrival::Constant
                    } else {
                        Arrival::Poisson
                    },
                    connections: Some(if keep_alive {
                        Connections::KeepAlive
                    } else {
                        Connections::New
                    }),
                    pool: Some(pool),
                    clients,
                    service_time,
                    retry: if retry { Retry::Once } else { Retry::None },
                    duration: secs.map(SimDuration::from_secs),
                    connect_timeout: Some(ms(timeout)),
                    client: Default::default(),
                    model: Default::default(),
                }
            },
        )
}

/// A Service of 1–4 replicas on 1–3 nodes, deleting some of them.
fn service() -> impl Strategy<Value = RunSpec> {
    let knobs = (
        1u32..5,
        1u32..4,
        duration(3000),
        0u64..500,
        0u64..2000,
        0u64..2000,
    );
    let app = (0usize..OnSigterm::ALL.len(), 0u64..5000);
    let disruption = (
        any::<bool>(),
        0u64..20_000,
        proptest::option::of(1u64..20),
        proptest::option::of(1u64..15_000),
    );
    let disruptions = proptest::collection::vec(disruption, 0..4);
    (knobs, traffic(), app, disruptions, pod(), any::<u64>()).prop_map(
        |(
            (replicas, nodes, propagation, kubelet, sync, cleanup),
            traffic,
            (reaction, delay),
            ds,
            pod,
            seed,
        )| {
            let disruptions = ds
                .into_iter()
                .take(replicas as usize)
                .enumerate()
                .map(|(i, (after_ready, at, grace, every))| Disruption {
                    when: if after_ready {
                        When::AfterReady(ms(at))
                    } else {
                        When::At(ms(at))
                    },
                    replica: i as u32,
                    grace_period: grace.map(SimDuration::from_secs),
                    every: every.map(ms),
                    ..Disruption::default()
                })
                .collect();
            let mut service = ServiceSpec {
                replicas,
                nodes,
                propagation: Propagation::Custom(propagation),
                kubelet_delay: ms(kubelet),
                min_sync_period: ms(sync),
                cleanup: ms(cleanup),
                traffic: Some(traffic),
                disruptions,
                ..ServiceSpec::default()
            };
            service.app.on_sigterm = OnSigterm::ALL[reaction];
            service.app.drain_delay = ms(delay);
            RunSpec {
                horizon: SimDuration::from_secs(600),
                stream: Stream { seed, replication: 0 },
                service: Some(Box::new(service)),
                ..RunSpec::new(pod)
            }
        },
    )
}

/// The run's metrics and its whole history.
fn run(spec: &RunSpec) -> (ServiceMetrics, ServiceHistory) {
    let mut simulator = ServiceSimulator::observed_by(spec.clone(), ServiceHistory::default());
    let metrics = simulator.run();
    (metrics, simulator.observer().clone())
}

/// Each failed request's cause, in the order they failed.
fn failures(history: &[ServiceEntry]) -> Vec<Cause> {
    (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::RequestFailed { cause, .. } => Some(cause),
            _ => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every request sent ends once: answered or failed (by exactly one
    /// cause), and the causes add up to `failed`; a retry answered is one
    /// of the answered.
    #[test]
    fn prop_requests_are_answered_or_failed_once(spec in service()) {
        let (m, history) = run(&spec);
        let answered: Vec<u32> = history.iter().filter_map(|e| match e.what {
            ServiceChange::Answered { request, .. } => Some(request),
            _ => None,
        }).collect();
        let failures = failures(&history);
        prop_assert_eq!(m.failed, m.failed_by.iter().sum::<u64>());
        prop_assert_eq!(failures.len() as u64, m.failed);
        for cause in Cause::ALL {
            let listed = failures.iter().filter(|&&f| f == cause).count() as u64;
            prop_assert_eq!(listed, m.failed_of(cause), "{:?}", cause);
        }
        // Requests still in flight at the horizon are neither.
        if !m.horizon {
            prop_assert_eq!(m.requests, answered.len() as u64 + m.failed);
        }
        prop_assert!(answered.len() as u64 + m.failed <= m.requests);
        let mut seen = std::collections::BTreeSet::new();
        prop_assert!(answered.iter().all(|r| seen.insert(*r)), "a request answered twice");
        prop_assert!(m.retried_ok <= answered.len() as u64);
        let sent = history.iter().filter(|e| matches!(e.what, ServiceChange::RequestSent { .. })).count();
        prop_assert_eq!(sent as u64, m.requests);
    }

    /// A new connection goes only to an endpoint in its node's rules as the
    /// node's last sync installed them: never to a Pod the rules had
    /// already dropped (a kept-alive connection may: conntrack pins it).
    #[test]
    fn prop_no_new_connection_goes_to_a_pod_the_rules_dropped(spec in service()) {
        let (_, history) = run(&spec);
        let mut rules: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for e in &history {
            match e.what {
                ServiceChange::RuleAdded { node, replica } => {
                    prop_assert!(rules.entry(node).or_default().insert(replica), "{:?} added twice", e);
                }
                ServiceChange::RuleDropped { node, replica } => {
                    prop_assert!(rules.entry(node).or_default().remove(&replica), "{:?} not listed", e);
                }
                ServiceChange::Routed { node, replica, fresh: true, request, .. } => {
                    let installed = rules.get(&node).cloned().unwrap_or_default();
                    prop_assert!(
                        installed.contains(&replica),
                        "request {} at {:?} went to replica {} through node {}'s rules {:?}",
                        request, e.at, replica, node, installed
                    );
                }
                _ => {}
            }
        }
    }

    /// Every run ends: by itself before the horizon, or at the horizon and
    /// saying so; nothing in the history is later than the end.
    #[test]
    fn prop_every_run_ends(spec in service()) {
        let (m, history) = run(&spec);
        let horizon = spec.horizon.as_millis();
        prop_assert!(m.end_ms <= horizon);
        prop_assert!(!m.horizon || m.end_ms == horizon);
        prop_assert!(history.iter().all(|e| e.at.as_millis() <= m.end_ms));
    }

    /// The same input gives the same output, also on a simulator that ran
    /// something else before (as a sweep's workers reuse theirs), and with
    /// the history kept or not.
    #[test]
    fn prop_same_input_same_output(spec in service(), other in service()) {
        let (m, history) = run(&spec);
        let again = run(&spec);
        prop_assert_eq!(&m, &again.0);
        prop_assert_eq!(&history, &again.1);
        let mut reused = ServiceSimulator::new(other);
        reused.run();
        *reused.spec_mut() = spec.clone();
        prop_assert_eq!(reused.run(), m);
    }
}

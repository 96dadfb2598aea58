//! What a Service run measures, accumulated while it runs (never by
//! scanning after): `ServiceMeters` observe the Service's changes like any
//! other observer and turn them into `ServiceMetrics` when the run ends,
//! with each replica's own Pod metrics, which the Pod's meters give.
//!
//! Invariant: each figure is counted from the changes that make it, in
//! the order they come: a request once (sent, then answered or failed),
//! the ready endpoints as a level held from one change to the next over
//! the traffic's span.

use super::deployment::RolloutFigures;
use super::drain::DrainFigures;
use super::history::{Fate, PodFact, ServiceChange, ServiceEntry, ServiceObserver};
use super::node_failure::NodeMeter;
use super::outcome::Cause;
use super::outcome::{CrashFigures, Deleted, HopFigures, RetryFigures, ServiceMetrics};
use super::spec::ServiceSpec;
use crate::engine::{RunEnd, SimTime};
use crate::model::pod::Metrics;

/// The observer every Service run has: what `ServiceMetrics` need from the
/// changes, and nothing else, so a sweep pays for no more.
#[derive(Clone, Debug, Default)]
pub struct ServiceMeters {
    /// Nodes: a deleted Pod's `rules_dropped_ms` has one figure per node.
    nodes: usize,
    /// The scenario has a rollout, or a drain: their figures are reported.
    rollout: bool,
    drain: bool,
    /// The scenario crashes apps, and has neither: its crashes are reported.
    crash: bool,
    crashes: u64,
    traffic_started: Option<SimTime>,
    requests: u64,
    failed_by: [u64; 7],
    retried_ok: u64,
    /// The client is not `ideal` untouched: its retries are reported.
    client: bool,
    retry: RetryFigures,
    /// The scenario has a hop: its figures are reported.
    hop: bool,
    hop_figures: HopFigures,
    endpoints: EndpointMeter,
    deleted: Vec<Deleted>,
    /// Per replica, its place in `deleted`, once it is deleted.
    deletion_of: Vec<Option<u32>>,
    /// Per node, per replica: its rules list the replica now.
    rules: Vec<Vec<bool>>,
    controller: ControllerMeter,
    node: NodeMeter,
}

/// The Deployment's figures: the rollout's instants, the Pods at once,
/// the drains and the evictions refused.
#[derive(Clone, Debug, Default)]
struct ControllerMeter {
    started: Option<SimTime>,
    complete: Option<SimTime>,
    done: Option<SimTime>,
    /// Pod objects now (terminating ones too), and the most at once.
    live: u32,
    peak_live: u32,
    /// The most Pods the controller counted at once.
    peak_counted: u32,
    /// Each drain's start and end.
    drains: Vec<(SimTime, Option<SimTime>)>,
    refused: u64,
}

/// The slice's ready endpoints over the traffic's span, as a level held
/// from each change to the next.
#[derive(Clone, Debug, Default)]
struct EndpointMeter {
    /// The budget's desiredHealthy (0 without a budget).
    desired: u32,
    /// Ready endpoints now.
    ready: u32,
    /// Once traffic has started: since when the level holds, and the level.
    open: Option<(SimTime, u32)>,
    /// When the traffic stops, once it is known.
    stop: Option<SimTime>,
    fewest: Option<u32>,
    zero_ms: u64,
    below_ms: u64,
}

impl EndpointMeter {
    /// The traffic starts at `at`, and stops at `until` if that is known.
    fn start(&mut self, at: SimTime, until: Option<SimTime>) {
        self.open = Some((at, self.ready));
        self.fewest = Some(self.ready);
        self.stop = until;
    }

    /// Ready endpoints are `ready` from `at` on; past the traffic's stop
    /// the level no longer counts.
    fn level(&mut self, at: SimTime, ready: u32) {
        self.ready = ready;
        if let Some((since, was)) = self.open
            && self.stop.is_none_or(|stop| at <= stop)
        {
            self.close(since, at, was);
            self.open = Some((at, ready));
            self.fewest = self.fewest.map(|f| f.min(ready));
        }
    }

    fn close(&mut self, from: SimTime, to: SimTime, ready: u32) {
        let span = to.since(from).as_millis();
        if ready == 0 {
            self.zero_ms += span;
        }
        if ready < self.desired {
            self.below_ms += span;
        }
    }

    /// (fewest ready, time with none, time below the budget), the last
    /// level counted up to the traffic's stop or `end`.
    fn figures(&self, end: SimTime) -> (Option<u32>, u64, u64) {
        let Some((since, ready)) = self.open else {
            return (None, 0, 0);
        };
        let mut meter = self.clone();
        meter.close(since, self.stop.unwrap_or(end).min(end), ready);
        (meter.fewest, meter.zero_ms, meter.below_ms)
    }
}

impl ServiceObserver for ServiceMeters {
    const KEEPS_HISTORY: bool = false;

    // Every request passes here several times; a call per change costs
    // more than the match.
    #[inline(always)]
    fn observe(&mut self, entry: ServiceEntry) {
        let at = entry.at;
        let c = &mut self.controller;
        match entry.what {
            ServiceChange::RequestSent { .. } => self.requests += 1,
            ServiceChange::Routed { replica, .. } => {
                if let Some(&Some(i)) = self.deletion_of.get(replica as usize) {
                    let d = &mut self.deleted[i as usize];
                    d.last_request_ms = Some(at.as_millis() - d.deleted_ms);
                }
            }
            ServiceChange::Answered {
                tries,
                sent,
                try_sent,
                ..
            } if tries > 1 => {
                self.retried_ok += 1;
                let extra = try_sent.since(sent).as_millis();
                self.retry.extra_ms += extra;
                self.retry.extra_max_ms = self.retry.extra_max_ms.max(extra);
            }
            ServiceChange::Retried { cause, .. } => self.retry.retried_by[cause as usize] += 1,
            ServiceChange::RequestFailed { cause, .. } => self.failed_by[cause as usize] += 1,
            ServiceChange::ReadyEndpoints { ready } => {
                self.endpoints.level(at, ready);
                self.node_saw(at, entry.what);
            }
            ServiceChange::TrafficStarted { until } => {
                self.traffic_started = Some(at);
                self.endpoints.start(at, until);
            }
            ServiceChange::Settled { until } => self.endpoints.stop = Some(until),
            ServiceChange::Api {
                replica,
                fact: PodFact::Deleted,
            } => self.deleted(at, replica, false),
            ServiceChange::Api {
                replica,
                fact: PodFact::ShutDown,
            } => self.deleted(at, replica, true),
            ServiceChange::Api {
                fact: PodFact::Gone, ..
            } => c.live -= 1,
            ServiceChange::HopRetried { .. } => self.hop_figures.retries += 1,
            ServiceChange::HopAnswered { status, .. } => self.hop_figures.answered[status as usize] += 1,
            ServiceChange::HopRuleDropped { replica } => {
                if let Some(&Some(i)) = self.deletion_of.get(replica as usize) {
                    let d = &mut self.deleted[i as usize];
                    d.hop_dropped_ms.get_or_insert(at.as_millis() - d.deleted_ms);
                }
            }
            ServiceChange::RuleAdded { node, replica } => self.rule(node, replica, true),
            ServiceChange::RuleDropped { node, replica } => self.rule(node, replica, false),
            ServiceChange::Synced { node } => {
                self.synced(at, node);
                self.node_saw(at, entry.what);
            }
            ServiceChange::PodMade { .. } => {
                c.live += 1;
                c.peak_live = c.peak_live.max(c.live);
                self.node_saw(at, entry.what);
            }
            ServiceChange::ReplicaSetsSynced { active } => {
                c.peak_counted = c.peak_counted.max(active[0] + active[1]);
            }
            ServiceChange::RolloutStarted => c.started = Some(at),
            ServiceChange::RolloutComplete => c.complete = Some(at),
            ServiceChange::RolloutDone => c.done = Some(at),
            ServiceChange::DrainStarted { .. } => c.drains.push((at, None)),
            ServiceChange::DrainDone { drain } => c.drains[drain as usize].1 = Some(at),
            ServiceChange::EvictionRefused { .. } => c.refused += 1,
            ServiceChange::TaintEvicted { replica } => {
                self.evicted_after_drop(replica);
                self.node_saw(at, entry.what);
            }
            ServiceChange::Node { .. } => self.node_saw(at, entry.what),
            ServiceChange::PodGarbageCollected { .. } => self.node_saw(at, entry.what),
            ServiceChange::Crashed { .. } => self.crashes += 1,
            ServiceChange::Counted { n, fate, .. } => {
                self.requests += n;
                if let Fate::Failed(cause) = fate {
                    self.failed_by[cause as usize] += n;
                }
            }
            _ => {}
        }
    }

    fn clear(&mut self) {
        self.traffic_started = None;
        self.requests = 0;
        self.failed_by = [0; 7];
        self.retried_ok = 0;
        self.crashes = 0;
        self.retry = RetryFigures::default();
        self.hop_figures = HopFigures::default();
        self.endpoints = EndpointMeter {
            desired: self.endpoints.desired,
            ..EndpointMeter::default()
        };
        self.deleted.clear();
        self.deletion_of.clear();
        self.rules.iter_mut().for_each(Vec::clear);
        let mut drains = std::mem::take(&mut self.controller.drains);
        drains.clear();
        self.controller = ControllerMeter {
            drains,
            ..ControllerMeter::default()
        };
    }
}

impl ServiceMeters {
    /// Ready for a run of `service`, whose replicas all exist from the start.
    pub fn reset(&mut self, service: &ServiceSpec) {
        self.clear();
        let replicas = service.replicas.max(1);
        self.nodes = service.nodes.max(1) as usize;
        self.client = service.traffic.as_ref().is_some_and(|t| !t.client.is_ideal());
        self.hop = service.hop.is_some();
        self.rules.resize_with(self.nodes, Vec::new);
        self.rules.truncate(self.nodes);
        self.rollout = service.disruptions.iter().any(|d| d.rollout.is_some());
        let loses = service.disruptions.iter().any(|d| d.node_failure.is_some());
        self.drain =
            (service.disruptions.iter()).any(|d| d.drain.is_some() || d.scale_down_node.is_some()) || loses;
        self.node.reset(replicas, self.nodes as u32, loses);
        self.crash = !self.rollout && !self.drain && service.disruptions.iter().any(|d| d.crash.is_some());
        self.endpoints.desired = service.pdb.map_or(0, |p| p.desired_healthy(replicas));
        let c = &mut self.controller;
        (c.live, c.peak_live, c.peak_counted) = (replicas, replicas, replicas);
    }

    /// The lost nodes' meter hears a change it reads (`NodeMeter::observe`),
    /// from those changes' arms only: a request's changes, the hot ones,
    /// skip even the look at whether it is on.
    #[inline]
    fn node_saw(&mut self, at: SimTime, what: ServiceChange) {
        if self.node.on {
            self.node.observe(at, what, &self.rules);
        }
    }

    /// A lost node's Pod was evicted: each node whose rules had dropped it
    /// already (when its node went NotReady) dropped it at once.
    fn evicted_after_drop(&mut self, replica: u32) {
        let Some(&Some(i)) = self.deletion_of.get(replica as usize) else {
            return;
        };
        let d = &mut self.deleted[i as usize];
        for (node, dropped) in d.rules_dropped_ms.iter_mut().enumerate() {
            if dropped.is_none() && !self.rules[node].get(replica as usize).is_some_and(|&on| on) {
                *dropped = Some(0);
            }
        }
    }

    /// Replica `replica`'s deletion timestamp was set at `at` (or, if
    /// `shut_down`, its node's kubelet killed it then).
    fn deleted(&mut self, at: SimTime, replica: u32, shut_down: bool) {
        let r = replica as usize;
        if self.deletion_of.len() <= r {
            self.deletion_of.resize(r + 1, None);
        }
        self.deletion_of[r] = Some(self.deleted.len() as u32);
        self.deleted.push(Deleted {
            replica,
            shut_down,
            deleted_ms: at.as_millis(),
            termination_ms: None,
            last_request_ms: None,
            rules_dropped_ms: vec![None; self.nodes],
            hop_dropped_ms: None,
        });
    }

    fn rule(&mut self, node: u32, replica: u32, listed: bool) {
        let (rules, r) = (&mut self.rules[node as usize], replica as usize);
        if rules.len() <= r {
            rules.resize(r + 1, false);
        }
        rules[r] = listed;
    }

    /// Node `node` synced at `at`: each deleted Pod its rules no longer
    /// list is dropped from them now, if it was not before.
    fn synced(&mut self, at: SimTime, node: u32) {
        let rules = &self.rules[node as usize];
        for d in &mut self.deleted {
            let dropped = &mut d.rules_dropped_ms[node as usize];
            if dropped.is_none() && !rules.get(d.replica as usize).is_some_and(|&on| on) {
                *dropped = Some(at.as_millis() - d.deleted_ms);
            }
        }
    }

    /// The figures of a run that ended at `end` for reason `how`, each
    /// replica's Pod having measured `replicas`.
    pub fn metrics(&self, end: SimTime, how: RunEnd, replicas: Vec<Metrics>) -> ServiceMetrics {
        let mut deleted = self.deleted.clone();
        for d in &mut deleted {
            d.termination_ms = replicas[d.replica as usize].termination_ms;
        }
        let (min_ready, zero_ms, below_ms) = self.endpoints.figures(end);
        let c = &self.controller;
        let since_start = |at: Option<SimTime>| Some(at?.since(c.started?).as_millis());
        let rollout = self.rollout.then(|| RolloutFigures {
            started_ms: c.started.map(SimTime::as_millis),
            rollout_ms: since_start(c.complete),
            rollout_done_ms: since_start(c.done),
            peak_pods: c.peak_live,
            peak_counted_pods: c.peak_counted,
        });
        let slowest = (c.drains.iter())
            .map(|&(started, done)| done.map(|t| t.since(started).as_millis()))
            .try_fold(0, |worst, ms| ms.map(|ms| worst.max(ms)));
        let drain = self.drain.then(|| DrainFigures {
            evictions_refused: c.refused,
            drain_ms: slowest.filter(|_| !c.drains.is_empty()),
            below_min_available_ms: below_ms,
        });
        ServiceMetrics {
            ready_ms: self.traffic_started.map(SimTime::as_millis),
            requests: self.requests,
            failed: self.failed_by.iter().sum(),
            failed_by: self.failed_by,
            retried_ok: self.retried_ok,
            retry: self.client.then(|| Box::new(self.retry)),
            hop: self.hop.then(|| {
                // The latest drop, none if one Pod was never dropped.
                let dropped_ms = (deleted.iter())
                    .map(|d| d.hop_dropped_ms)
                    .try_fold(None, |worst: Option<u64>, ms| ms.map(|ms| worst.max(Some(ms))))
                    .flatten();
                Box::new(HopFigures {
                    dropped_ms,
                    ..self.hop_figures
                })
            }),
            min_ready_endpoints: min_ready,
            zero_endpoints_ms: zero_ms,
            rollout,
            drain,
            node: (self.node.on)
                .then(|| Box::new(self.node.figures(self.failed_by[Cause::Unreachable as usize]))),
            crash: self.crash.then_some(CrashFigures {
                crashes: self.crashes,
            }),
            deleted,
            replicas,
            end_ms: end.as_millis(),
            horizon: how != RunEnd::Quiet,
        }
    }
}

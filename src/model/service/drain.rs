//! `kubectl drain` of one node through the Eviction API (disruption-model.md
//! A.5, `k8s.io/kubectl/pkg/drain`): the node is cordoned, every Pod on it
//! is evicted at once, each eviction the budget refuses (HTTP 429) is tried
//! again 5 s later, and the ReplicaSet replaces each evicted Pod on a node
//! that is not cordoned.
//!
//! Invariant: the budget is read at the instant of each eviction, with
//! every earlier allowed eviction already terminating (so not healthy):
//! two evictions in one millisecond never spend the same disruption.

use super::history::{ServiceChange, ServiceObserver};
use super::pdb::Candidate;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::pod::PodPhase;

/// kubectl drain's wait after a 429: "(will retry after 5s)".
pub const EVICTION_RETRY: SimDuration = SimDuration::from_secs(5);

/// One drain: the Pods that were on its node, and whether they are all gone.
#[derive(Clone, Debug)]
pub(super) struct Drain {
    node: u32,
    pods: Vec<usize>,
    /// Every Pod that was on the node is gone.
    pub done: bool,
    /// Its node was lost before it finished (a spot reclaim's notice ran
    /// out): it never will.
    pub cut: bool,
}

impl Drain {
    /// `node` was lost: the drain of it, unfinished, never finishes.
    pub fn cut_on(&mut self, node: u32) {
        self.cut |= self.node == node && !self.done;
    }
}

/// A drain's figures, for the CSV (after the Service's columns) and JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrainFigures {
    /// Evictions refused by the budget (HTTP 429), every retry counted.
    pub evictions_refused: u64,
    /// Drain start → the last Pod of the node gone (the slowest drain); none
    /// if a drain did not finish within the run.
    pub drain_ms: Option<u64>,
    /// Over the traffic's span, time with fewer ready endpoints than the
    /// budget's desiredHealthy (0 without a budget).
    pub below_min_available_ms: u64,
}

impl DrainFigures {
    /// The CSV columns, in row order.
    pub const NAMES: [&'static str; 3] = ["evictions_refused", "drain_ms", "below_min_available_ms"];

    /// The cells in `NAMES` order, `None` for an empty one.
    pub fn numbers(&self) -> [Option<u64>; 3] {
        [
            Some(self.evictions_refused),
            self.drain_ms,
            Some(self.below_min_available_ms),
        ]
    }
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Disruption `index` drains `node`: cordon it, evict its Pods now.
    pub(super) fn start_drain(&mut self, node: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        self.disrupted += 1;
        self.cordon_and_evict(node, now, s);
    }

    /// `kubectl drain` of `node`, or a node-termination handler's: cordon
    /// it, evict its Pods now.
    pub(super) fn cordon_and_evict(&mut self, node: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let pods: Vec<usize> = match &self.deploy {
            Some(d) => (0..d.members.len())
                .filter(|&r| d.members[r].node == node && !self.replicas[r].object_gone)
                .collect(),
            None => return,
        };
        let Some(d) = &mut self.deploy else {
            return;
        };
        if let Some(c) = d.cordoned.get_mut(node as usize) {
            *c = true;
        }
        for &r in &pods {
            s.at(now, ServiceEvent::Evict { replica: r as u32 });
        }
        self.record_drain(node, pods, now);
    }

    /// A drain of `node` that was to empty it of `pods` starts now, for its
    /// figures: kubectl's, a node-termination handler's or the
    /// cluster-autoscaler's.
    pub(super) fn record_drain(&mut self, node: u32, pods: Vec<usize>, now: SimTime) {
        let Some(d) = &mut self.deploy else {
            return;
        };
        let drain = d.drains.len() as u32;
        d.drains.push(Drain {
            node,
            pods,
            done: false,
            cut: false,
        });
        self.emit(now, ServiceChange::DrainStarted { drain, node });
        self.drain_progress(now);
    }

    /// One eviction of replica `r`: deleted if the budget allows, else
    /// refused and tried again in 5 s.
    pub(super) fn evict(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        if self.request_eviction(r, None, now, s) == Some(false) {
            s.after(EVICTION_RETRY, ServiceEvent::Evict { replica: r as u32 });
        }
    }

    /// One request to the Eviction API for replica `r` now, its Pod
    /// deleted with `grace` (`None`: its own) if the budget allows:
    /// `Some(true)` allowed, `Some(false)` refused (HTTP 429), `None` no
    /// Pod to evict (deleted already, gone, or on a lost node, out of the
    /// caller's reach).
    pub(super) fn request_eviction(
        &mut self,
        r: usize,
        grace: Option<SimDuration>,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) -> Option<bool> {
        let d = self.deploy.as_ref()?;
        if self.replicas[r].deleted || self.replicas[r].object_gone || self.replicas[r].unreachable {
            return None;
        }
        let m = d.members[r];
        let pod = if !self.is_active(r, &m) || self.pods[r].phase() == PodPhase::Pending {
            Candidate::Exempt
        } else if self.replicas[r].serving() {
            Candidate::Healthy
        } else {
            Candidate::Unhealthy
        };
        if self.budget_allows(pod) {
            self.emit(now, ServiceChange::Evicted { replica: r as u32 });
            self.delete_pod(r, grace, now, s);
            self.rollout_sync(now, s);
            Some(true)
        } else {
            self.emit(now, ServiceChange::EvictionRefused { replica: r as u32 });
            Some(false)
        }
    }

    /// Whether the budget (if any) allows evicting `pod` now.
    pub(super) fn budget_allows(&self, pod: Candidate) -> bool {
        let Some(d) = &self.deploy else {
            return true;
        };
        let healthy = (0..d.members.len())
            .filter(|&i| self.is_active(i, &d.members[i]) && self.replicas[i].serving())
            .count() as u32;
        let expected = self.service.replicas.max(1);
        self.service
            .pdb
            .is_none_or(|pdb| pdb.allows(pod, healthy, expected))
    }

    /// Marks each drain done once every Pod that was on its node is gone.
    pub(super) fn drain_progress(&mut self, now: SimTime) {
        let replicas = &self.replicas;
        if let Some(d) = &mut self.deploy {
            for (i, drain) in d.drains.iter_mut().enumerate().filter(|(_, x)| !x.done) {
                if drain.pods.iter().all(|&r| replicas[r].object_gone) {
                    drain.done = true;
                    self.observers
                        .emit(now, ServiceChange::DrainDone { drain: i as u32 });
                }
            }
        }
    }
}

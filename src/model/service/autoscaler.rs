//! `[[disruptions]] scale_down_node = N` (issue 40 item 5): the
//! cluster-autoscaler removing an unneeded node (kubernetes/autoscaler
//! cluster-autoscaler, FAQ.md "How does scale-down work?" and "Does CA
//! work with PodDisruptionBudget in scale-down?"; core/scaledown/actuation).
//!
//! - `actuator.go` `StartDeletion`: the node is tainted
//!   `ToBeDeletedByClusterAutoscaler` (NoSchedule: no replacement lands
//!   there; not a cordon), then `deleteNodesAsync` asks
//!   `simulator.GetPodsToMove` with the budgets, whose PDB drainability
//!   rule blocks a Pod whose budget allows no disruption (`DisruptionsAllowed
//!   < 1`): the scale-down is then abandoned at once, the taint removed.
//! - `drain.go` `evictPod`: every Pod of the node is evicted at once through
//!   the Eviction API with a grace of min(its own, `--max-graceful-
//!   termination-sec`, 600 s); an eviction the budget refuses (HTTP 429)
//!   is asked again every `EvictionRetryTime` (10 s) until
//!   `--max-pod-eviction-time` (2 min) from the first is over; one that
//!   never passed fails the drain, and `AbortNodeDeletion`
//!   (`group_deletion_scheduler.go`) removes the taint: the node and the
//!   Pods not yet evicted stay, the evicted ones are gone for good.
//! - `waitPodsToDisappear`: once every eviction passed, the autoscaler
//!   looks every 5 s, from that instant, whether the node's Pods are gone,
//!   for at most the grace budget plus `PodEvictionHeadroom` (30 s); then
//!   the node is deleted, or, with Pods left, the scale-down aborted.
//!
//! Invariant: the ReplicaSet replaces each evicted Pod on another node at
//! once (its own controller, not the autoscaler), and the drain's figures
//! (refusals, start to empty, below the budget) count this drain as
//! `kubectl drain`'s; the scale-down counts as done (`disrupted`) when the
//! node is deleted or the scale-down abandoned, so traffic runs through it.

use super::history::{ServiceChange, ServiceObserver};
use super::node::NodeState;
use super::pdb::Candidate;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};

/// How often `waitPodsToDisappear` looks whether the node's Pods are gone
/// (its `time.Sleep(5 * time.Second)`).
pub const POD_CHECK_PERIOD: SimDuration = SimDuration::from_secs(5);

/// `DefaultPodEvictionHeadroom`: the wait for the Pods beyond the grace
/// budget, "to catch situations when the pod is ignoring SIGTERM".
pub const POD_EVICTION_HEADROOM: SimDuration = SimDuration::from_secs(30);

/// A node the cluster-autoscaler removes, as the scenario states it.
///
/// Named `scale_down_node` after what the autoscaler's FAQ calls it (a
/// scale-down of a node, the node group shrinking by it), and so that it
/// reads apart from `scale_to`, the Deployment's own replicas lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScaleDown {
    /// The node, from 0.
    pub node: u32,
    /// `--max-graceful-termination-sec`: the most grace an evicted Pod
    /// gets, and with the headroom the wait for the Pods to be gone
    /// (600 s; 0: the Pods' own grace, uncapped).
    pub max_graceful_termination: SimDuration,
    /// `--max-pod-eviction-time`: how long a refused eviction is asked
    /// again before the scale-down is given up (2 min).
    pub max_pod_eviction_time: SimDuration,
    /// `EvictionRetryTime`: the wait after a refused eviction (10 s).
    pub eviction_retry_time: SimDuration,
}

impl ScaleDown {
    /// `node` scaled down, every setting the autoscaler's default.
    pub fn of(node: u32) -> Self {
        ScaleDown {
            node,
            max_graceful_termination: SimDuration::from_secs(600),
            max_pod_eviction_time: SimDuration::from_secs(120),
            eviction_retry_time: SimDuration::from_secs(10),
        }
    }

    /// The grace an evicted Pod whose own is `own` is given
    /// (`evictPod`: capped when the cap is above 0).
    pub fn grace(&self, own: SimDuration) -> SimDuration {
        match self.max_graceful_termination {
            SimDuration::ZERO => own,
            cap => own.min(cap),
        }
    }
}

impl Default for ScaleDown {
    fn default() -> Self {
        ScaleDown::of(0)
    }
}

/// Why a scale-down was given up (its taint removed, the node kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Abort {
    /// A Pod's budget allowed no disruption when it started
    /// (`drain.NotEnoughPdb`): nothing was evicted.
    Budget,
    /// An eviction was still refused when `max_pod_eviction_time` ran out.
    EvictionTimeout,
    /// A Pod was still there when the wait for them ran out.
    PodsRemaining,
}

impl Abort {
    crate::model::words::words! {
        /// The spellings, as the views write them.
        Budget => "not enough pod disruption budget",
        EvictionTimeout => "an eviction still refused at max_pod_eviction_time",
        PodsRemaining => "Pods remaining after the wait for them",
    }
}

/// One scale-down under way.
#[derive(Clone, Debug)]
pub(super) struct Actuation {
    /// Its `[[disruptions]]` entry.
    index: u32,
    /// The Pods that were on the node.
    pods: Vec<usize>,
    /// Evictions still asked again.
    trying: u32,
    /// An eviction was given up.
    failed: bool,
    /// When it started: refused evictions are asked until
    /// `max_pod_eviction_time` after.
    started: SimTime,
    /// When the wait for the Pods began (every eviction passed).
    waiting: Option<SimTime>,
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Disruption `index`'s node scaled down.
    fn scale_down_of(&self, index: usize) -> ScaleDown {
        self.service.disruptions[index]
            .scale_down_node
            .expect("a scale-down event comes from a scale_down_node disruption")
    }

    /// Disruption `index`'s actuation, if under way.
    fn actuation(&mut self, index: u32) -> Option<&mut Actuation> {
        let d = self.deploy.as_mut()?;
        d.scale_downs.iter_mut().find(|a| a.index == index)
    }

    /// The autoscaler starts removing disruption `index`'s node now: taint
    /// it, check the budgets, evict every Pod on it.
    pub(super) fn start_scale_down(
        &mut self,
        index: usize,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let sd = self.scale_down_of(index);
        let node = sd.node;
        let pods: Vec<usize> = (0..self.replicas.len())
            .filter(|&r| self.node_of(r) == node)
            .filter(|&r| !self.replicas[r].deleted && !self.replicas[r].object_gone)
            .collect();
        let Some(d) = &mut self.deploy else {
            return;
        };
        if let Some(c) = d.cordoned.get_mut(node as usize) {
            *c = true;
        }
        let state = NodeState::ScalingDown;
        self.emit(now, ServiceChange::Node { node, state });
        if pods.is_empty() {
            return self.scale_down_over(index as u32, node, None, now);
        }
        if !self.budget_allows(Candidate::Healthy) {
            return self.scale_down_over(index as u32, node, Some(Abort::Budget), now);
        }
        self.record_drain(node, pods.clone(), now);
        let index = index as u32;
        let a = Actuation {
            index,
            trying: pods.len() as u32,
            pods: pods.clone(),
            failed: false,
            started: now,
            waiting: None,
        };
        if let Some(d) = &mut self.deploy {
            d.scale_downs.push(a);
        }
        for r in pods {
            self.scale_down_evict(index, r, now, s);
        }
    }

    /// One eviction of replica `r` for disruption `index`'s scale-down:
    /// refused, it is asked again `eviction_retry_time` later, unless
    /// `max_pod_eviction_time` is over by then; when no eviction is left
    /// to ask, the wait for the Pods begins, or the scale-down is given up.
    pub(super) fn scale_down_evict(
        &mut self,
        index: u32,
        r: usize,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let sd = self.scale_down_of(index as usize);
        let Some(a) = self.actuation(index) else {
            return;
        };
        let first = now == a.started;
        let given_up = !first && now >= a.started + sd.max_pod_eviction_time;
        if given_up {
            a.failed = true;
        } else {
            let own = self.pods[r].run_spec().pod.termination_grace_period;
            if self.request_eviction(r, Some(sd.grace(own)), now, s) == Some(false) {
                let replica = r as u32;
                s.after(
                    sd.eviction_retry_time,
                    ServiceEvent::ScaleDownEvict { index, replica },
                );
                return;
            }
        }
        let Some(a) = self.actuation(index) else {
            return;
        };
        a.trying -= 1;
        if a.trying > 0 {
            return;
        }
        if a.failed {
            return self.scale_down_over(index, sd.node, Some(Abort::EvictionTimeout), now);
        }
        a.waiting = Some(now);
        self.pods_checked(index, now, s);
    }

    /// `waitPodsToDisappear`'s look at disruption `index`'s node, every 5 s
    /// from when the last eviction passed: every Pod gone deletes the node;
    /// a look the wait (grace budget plus headroom) no longer covers gives
    /// the scale-down up instead.
    pub(super) fn pods_checked(&mut self, index: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let sd = self.scale_down_of(index as usize);
        let Some(a) = (self.deploy.as_ref()).and_then(|d| d.scale_downs.iter().find(|a| a.index == index))
        else {
            return;
        };
        let Some(from) = a.waiting else {
            return;
        };
        let gone = a.pods.iter().all(|&r| self.replicas[r].object_gone);
        if now.since(from) >= sd.max_graceful_termination + POD_EVICTION_HEADROOM {
            return self.scale_down_over(index, sd.node, Some(Abort::PodsRemaining), now);
        }
        if gone {
            return self.scale_down_over(index, sd.node, None, now);
        }
        s.after(POD_CHECK_PERIOD, ServiceEvent::ScaleDownCheck { index });
    }

    /// Disruption `index`'s scale-down ends now: the node deleted
    /// (`why` none), or the scale-down given up and the taint removed.
    pub(super) fn scale_down_over(&mut self, index: u32, node: u32, why: Option<Abort>, now: SimTime) {
        if let Some(d) = &mut self.deploy {
            d.scale_downs.retain(|a| a.index != index);
            if why.is_some() {
                if let Some(c) = d.cordoned.get_mut(node as usize) {
                    *c = false;
                }
                d.drains.iter_mut().for_each(|x| x.cut_on(node));
            }
        }
        match why {
            Some(why) => {
                self.emit(now, ServiceChange::ScaleDownAborted { node, why });
                let state = NodeState::Ready;
                self.emit(now, ServiceChange::Node { node, state });
            }
            None => {
                let state = NodeState::Deleted;
                self.emit(now, ServiceChange::Node { node, state });
            }
        }
        self.disrupted += 1;
        self.maybe_settle(now);
    }
}

//! A disruption as it happens: each round of a `[[disruptions]]` entry
//! handed to its kind's room (`rollout`, `drain`, `node`, `shutdown`,
//! `scale`, `app`'s crash, `autoscaler`), and what the hand-written kinds do
//! here: a kubectl delete (and its repeats), an unready window. Deleting
//! a Pod is here too, because a delete, a drain's eviction, a lost node's
//! taint eviction and a ReplicaSet scaling down all delete through it (a
//! node shutdown's kubelet kills without deleting: `shutdown`).
//!
//! Invariant: every disruption counts itself done (`disrupted`) exactly
//! once (here, or in its room when it starts there), a repeating delete
//! in its last round and an unready window at its end, so traffic
//! settles only after all have happened.

use super::history::{PodFact, ServiceChange, ServiceObserver};
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::pod::PodEvent;

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Round `round` of disruption `index`: a rollout or a drain starts;
    /// a deletion deletes replica `replica + round`. A repeating deletion's
    /// next round comes `every` later, while a replica is left for it; the
    /// last round (one that finds no replica to delete, too) counts it as
    /// done.
    pub(super) fn disrupt(
        &mut self,
        index: usize,
        round: u32,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let d = &self.service.disruptions[index];
        if d.rollout.is_some() {
            return self.start_rollout(index, now, s);
        }
        if let Some(node) = d.drain {
            return self.start_drain(node, now, s);
        }
        if let Some(u) = d.unready {
            let replica = u.replica;
            s.after(u.lasts, ServiceEvent::ReadyAgain { replica });
            return self.readiness_failing(replica as usize, true, now, s);
        }
        if let Some(replica) = d.crash {
            self.disrupted += 1;
            return self.crash(replica as usize, now, s);
        }
        if d.node_failure.is_some() {
            return self.start_node_failure(index, now, s);
        }
        if d.scale_down_node.is_some() {
            return self.start_scale_down(index, now, s);
        }
        if let Some(shutdown) = d.node_shutdown.clone() {
            self.disrupted += 1;
            return self.shut_down(&shutdown, now, s);
        }
        if d.scale_to.is_some() || d.annotate.is_some() {
            self.disrupted += 1;
            let (scale_to, annotate) = (d.scale_to, d.annotate);
            return self.scale(scale_to, annotate, now, s);
        }
        let (grace, every) = (d.grace_period, d.every);
        let r = (d.replica + round) as usize;
        let last = r + 1 >= self.replicas.len();
        match every {
            Some(every) if !last => {
                let (index, round) = (index as u32, round + 1);
                s.after(every, ServiceEvent::Disrupt { index, round });
            }
            _ => self.disrupted += 1,
        }
        if r >= self.replicas.len() || self.replicas[r].deleted {
            return;
        }
        self.delete_pod(r, grace, now, s);
    }

    /// Replica `r`'s readiness starts failing (`failing`) or passes again
    /// (the end of its window, which counts the disruption as done): its
    /// endpoint follows, its connections stay.
    pub(super) fn readiness_failing(
        &mut self,
        r: usize,
        failing: bool,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let Some(rep) = self.replicas.get_mut(r) else {
            return;
        };
        rep.failing_readiness = failing;
        self.slice.touch(r);
        self.endpoints_changed(now, s);
        // A Deployment's controller reads the Ready condition the probe sets.
        self.pod_changed(r, &[], now, s);
        if !failing {
            self.disrupted += 1;
            self.maybe_settle(now);
        }
    }

    /// Replica `r` is deleted now (by a user or its ReplicaSet): its
    /// endpoint turns terminating, the kubelet hears of it `kubelet_delay`
    /// later, with `grace` if given.
    pub(super) fn delete_pod(
        &mut self,
        r: usize,
        grace: Option<SimDuration>,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        self.replicas[r].deleted = true;
        let fact = PodFact::Deleted;
        self.emit(
            now,
            ServiceChange::Api {
                replica: r as u32,
                fact,
            },
        );
        if let Some(grace) = grace {
            self.pods[r]
                .run_spec_mut_keeping_shape()
                .pod
                .termination_grace_period = grace;
        }
        self.slice.terminate(r);
        self.endpoints_changed(now, s);
        s.after(
            self.service.kubelet_delay,
            ServiceEvent::Pod {
                replica: r as u32,
                event: PodEvent::DeletionRequested,
            },
        );
    }
}

//! `[[disruptions]] scale_to = K` and `annotate = R` (issue 40 item 5): a
//! person or an HPA lowering the Deployment's `replicas`, and the
//! `controller.kubernetes.io/pod-deletion-cost` annotation that steers
//! which Pods go. The old ReplicaSet's `spec.replicas` becomes K, and the
//! ReplicaSet controller (`rollout`'s `reconcile_replica_sets`) deletes
//! the Pods its ranking puts first, each as a delete; nothing replaces
//! them.
//!
//! Invariant: a scale-down and a rollout never meet (`check_service`), so
//! the old ReplicaSet is the only one with Pods.

use super::history::{ServiceChange, ServiceObserver};
use super::rollout::ReplicaSet;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimTime};

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// A scale-down to `replicas`, or an annotation: the annotation is
    /// read at the next ranking, the scale-down syncs the ReplicaSet now.
    pub(super) fn scale(
        &mut self,
        replicas: Option<u32>,
        annotate: Option<Annotate>,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let Some(d) = &mut self.deploy else {
            return;
        };
        if let Some(a) = annotate
            && let Some(m) = d.members.get_mut(a.replica as usize)
        {
            m.deletion_cost = a.deletion_cost;
        }
        if let Some(replicas) = replicas {
            d.spec[ReplicaSet::Old as usize] = replicas;
            let rs = ReplicaSet::Old;
            self.emit(now, ServiceChange::Scaled { rs, replicas });
            self.rollout_sync(now, s);
        }
    }
}

/// `kubectl annotate pod <replica> controller.kubernetes.io/pod-deletion-cost=<cost>`:
/// the ReplicaSet deletes Pods of a lower cost first when it scales down
/// (`ActivePodsWithRanks` in kubernetes/kubernetes
/// pkg/controller/controller_utils.go; the annotation is a best effort,
/// read only then).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Annotate {
    /// The replica, from 0.
    pub replica: u32,
    /// Its cost (the API's int32; podsim takes 0 or more, every Pod
    /// without the annotation being 0).
    pub deletion_cost: u32,
}

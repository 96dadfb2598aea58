//! `[[disruptions]] node_shutdown = N` (issue 40 item 3): a node's
//! graceful shutdown (KEP-2000, kubernetes/enhancements
//! keps/sig-node/2000-graceful-node-shutdown; kubernetes/kubernetes
//! pkg/kubelet/nodeshutdown). systemd tells the kubelet the machine is
//! going down; the kubelet holds it for `shutdownGracePeriod`, reports
//! its node not Ready ("node is shutting down"), and kills every Pod on
//! it itself, group by group (`killPods`): `migrateConfig` turns the two
//! settings into two priority groups, regular Pods (priority 0 up) with
//! `shutdownGracePeriod − shutdownGracePeriodCriticalPods` and critical
//! ones (from `scheduling.SystemCriticalPriority`, 2000000000) with the
//! critical share; each Pod's own grace is capped by its group's seconds
//! (the group's seconds override a longer terminationGracePeriodSeconds).
//! The Deployment's ReplicaSet replaces them on the other nodes: the
//! scheduler places nothing on a node that is not Ready.
//!
//! Invariant: the kubelet starts the kills itself, so they reach the Pods
//! at once (no watch of the API in between, as a delete's `kubelet_delay`).
//! The node holds only the Service's replicas, all of the one priority of
//! their template (`pod_priority`), so all of them fall in one group; the
//! kubelet skips a group with no Pods without waiting (`killPods`: `if
//! len(group.Pods) == 0 { continue }`), so the groups below theirs cost
//! no time and every replica of the node is killed in the same instant,
//! with min(its grace, its group's seconds). Critical replicas get the
//! critical share.

use super::history::{ServiceChange, ServiceObserver};
use super::node::NodeState;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Node `n.node` starts shutting down now: not Ready, every Pod on it
    /// killed with min(its grace, its priority group's seconds).
    pub(super) fn shut_down(&mut self, n: NodeShutdown, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(d) = &mut self.deploy else {
            return;
        };
        if let Some(c) = d.cordoned.get_mut(n.node as usize) {
            *c = true;
        }
        let pods: Vec<usize> = (0..d.members.len())
            .filter(|&r| d.members[r].node == n.node)
            .filter(|&r| !self.replicas[r].deleted && !self.replicas[r].object_gone)
            .collect();
        let budget = n.budget(self.service.pod_priority);
        self.emit(now, ServiceChange::NodeShuttingDown { node: n.node, budget });
        let state = NodeState::ShuttingDown;
        self.emit(now, ServiceChange::Node { node: n.node, state });
        for r in pods {
            let own = self.pods[r].run_spec().pod.termination_grace_period;
            self.delete_pod_after(r, Some(own.min(budget)), SimDuration::ZERO, now, s);
        }
        self.rollout_sync(now, s);
    }
}

/// A node's graceful shutdown as the scenario states it: the node and the
/// kubelet's two settings (KubeletConfiguration `shutdownGracePeriod`,
/// `shutdownGracePeriodCriticalPods`; both 0, the feature off, unless set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeShutdown {
    /// The node, from 0.
    pub node: u32,
    /// shutdownGracePeriod: how long the kubelet holds the shutdown.
    pub grace_period: SimDuration,
    /// shutdownGracePeriodCriticalPods: its share kept for critical Pods.
    pub critical_pods: SimDuration,
}

impl Default for NodeShutdown {
    /// The Kubernetes documentation's example (Graceful node shutdown):
    /// 30 s in all, the last 10 s for critical Pods, so 20 s for the rest.
    fn default() -> Self {
        NodeShutdown {
            node: 0,
            grace_period: SimDuration::from_secs(30),
            critical_pods: SimDuration::from_secs(10),
        }
    }
}

impl NodeShutdown {
    /// The regular Pods' budget: shutdownGracePeriod −
    /// shutdownGracePeriodCriticalPods (`migrateConfig`), the most grace
    /// the kubelet gives any of them.
    pub fn regular_pods(&self) -> SimDuration {
        SimDuration(self.grace_period.0.saturating_sub(self.critical_pods.0))
    }

    /// The seconds of the group a Pod of `priority` falls in, the most
    /// grace the kubelet gives it: `migrateConfig`'s critical group from
    /// `SYSTEM_CRITICAL` up, its regular group (priority 0) below.
    pub fn budget(&self, priority: u32) -> SimDuration {
        match priority >= SYSTEM_CRITICAL {
            true => self.critical_pods,
            false => self.regular_pods(),
        }
    }
}

/// `scheduling.SystemCriticalPriority` (kubernetes/kubernetes
/// pkg/apis/scheduling/types.go: 2 × HighestUserDefinablePriority): the
/// priority from which `migrateConfig` counts a Pod critical.
pub const SYSTEM_CRITICAL: u32 = 2_000_000_000;

/// The built-in PriorityClasses and their values (pkg/apis/scheduling:
/// types.go names them, helpers.go's `systemPriorityClasses` gives
/// `system-cluster-critical` SystemCriticalPriority and
/// `system-node-critical` 1000 more); any other class is the cluster's own.
pub const BUILT_IN_CLASSES: [(&str, u32); 2] = [
    ("system-cluster-critical", SYSTEM_CRITICAL),
    ("system-node-critical", SYSTEM_CRITICAL + 1000),
];

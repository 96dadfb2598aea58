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
//! critical share. `NodeShutdown::by_priority` holds the kubelet's own
//! list (`shutdownGracePeriodByPodPriority`) in place of the two settings.
//!
//! The kubelet kills; it deletes nothing (`SyncTerminatingPod` under
//! `killPods`' status function): the Pods get no deletion timestamp, so
//! they stay active and their endpoints not terminating. Their endpoints
//! stay serving until the node lifecycle controller's first check after
//! the node reported NotReady marks them not Ready (`MarkPodsNotReady`,
//! kubernetes#105780), or until their containers exit, whichever comes
//! first. The status manager holds the terminal phase back until the
//! containers have stopped (`mergePodStatus`): only then is the Pod
//! Failed, out of the slice and of the ReplicaSet's count, which replaces
//! it; the object stays (PodGC's terminated-Pod threshold is far off).

use super::history::{PodFact, ServiceChange, ServiceObserver};
use super::node::NodeState;
use super::node_failure::NODE_MONITOR_PERIOD;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;
use crate::model::pod::PodEvent;

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Node `n.node` starts shutting down now: not Ready, every Pod on it
    /// killed with min(its grace, its priority group's seconds).
    pub(super) fn shut_down(&mut self, n: &NodeShutdown, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
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
            self.kill_for_shutdown(r, own.min(budget), s);
            let (replica, fact) = (r as u32, PodFact::ShutDown);
            self.emit(now, ServiceChange::Api { replica, fact });
        }
        let lag = n.monitor_lag.unwrap_or_else(|| {
            let u = self.stream.uniform(u64::from(n.node), DrawKey::MonitorLag, 1);
            SimDuration::from_millis((NODE_MONITOR_PERIOD.as_millis() as f64 * u) as u64)
        });
        s.after(lag, ServiceEvent::ShutdownNotReady { node: n.node });
    }

    /// The kubelet kills replica `r` with `grace`, hearing of nothing
    /// first: no deletion timestamp, its endpoint untouched.
    fn kill_for_shutdown(&mut self, r: usize, grace: SimDuration, s: &mut Scheduler<'_, ServiceEvent>) {
        self.replicas[r].shut_down = true;
        self.pods[r]
            .run_spec_mut_keeping_shape()
            .pod
            .termination_grace_period = grace;
        let event = PodEvent::DeletionRequested;
        s.after(
            SimDuration::ZERO,
            ServiceEvent::Pod {
                replica: r as u32,
                event,
            },
        );
    }

    /// The node controller's check saw node `node` NotReady: its shut-down
    /// Pods not Ready, their endpoints no longer serving.
    pub(super) fn shutdown_not_ready(
        &mut self,
        node: u32,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let Some(d) = &self.deploy else {
            return;
        };
        let pods: Vec<usize> = (0..d.members.len())
            .filter(|&r| d.members[r].node == node && self.replicas[r].shut_down)
            .collect();
        for r in pods {
            self.replicas[r].node_not_ready = true;
            self.slice.touch(r);
        }
        self.endpoints_changed(now, s);
    }

    /// Shut-down replica `r`'s containers have all stopped: its phase
    /// turns Failed, its endpoint leaves the slice, and the ReplicaSet
    /// (told by `pod_changed`) replaces it. Its object stays.
    pub(super) fn pod_failed(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        self.replicas[r].failed = true;
        let (replica, fact) = (r as u32, PodFact::Failed);
        self.emit(now, ServiceChange::Api { replica, fact });
        self.slice.touch(r);
        self.endpoints_changed(now, s);
        self.maybe_settle(now);
    }
}

/// A node's graceful shutdown as the scenario states it: the node and the
/// kubelet's settings, either the two plain ones (KubeletConfiguration
/// `shutdownGracePeriod`, `shutdownGracePeriodCriticalPods`) or its
/// `shutdownGracePeriodByPodPriority`; the rules refuse both at once, as
/// the kubelet's validation does.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct NodeShutdown {
    /// The node, from 0.
    pub node: u32,
    /// shutdownGracePeriod, if written: how long the kubelet holds the shutdown.
    pub grace_period: Option<SimDuration>,
    /// shutdownGracePeriodCriticalPods, if written: its share kept for critical Pods.
    pub critical_pods: Option<SimDuration>,
    /// shutdownGracePeriodByPodPriority, if written: the groups, in any
    /// order (the kubelet sorts them by priority).
    pub by_priority: Option<Box<[PriorityGroup]>>,
    /// From the node reporting NotReady (the shutdown's start) to the node
    /// lifecycle controller's check that sees it; `None`: drawn per
    /// replication (keyed by the node), uniform below the 5 s
    /// `--node-monitor-period`, as a lost node's lag is.
    pub monitor_lag: Option<SimDuration>,
}

/// One entry of shutdownGracePeriodByPodPriority: the Pods from
/// `priority` up to the next group's get `seconds` between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PriorityGroup {
    /// The group's lowest priority.
    pub priority: u32,
    /// shutdownGracePeriodSeconds: the kubelet's wait for the group, and
    /// the most grace each of its Pods gets.
    pub seconds: SimDuration,
}

/// Written as the two plain settings were before the by-priority list
/// existed (their defaults filled in), the list only when written: a
/// grid's hash is taken over its base's `Debug` text.
impl std::fmt::Debug for NodeShutdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("NodeShutdown");
        d.field("node", &self.node)
            .field("grace_period", &self.grace_period())
            .field("critical_pods", &self.critical_pods());
        if let Some(groups) = &self.by_priority {
            d.field("by_priority", groups);
        }
        if let Some(lag) = &self.monitor_lag {
            d.field("monitor_lag", lag);
        }
        d.finish()
    }
}

impl NodeShutdown {
    /// shutdownGracePeriod, 30 s unless written: the Kubernetes
    /// documentation's example (Graceful node shutdown), 30 s in all, the
    /// last 10 s for critical Pods (the kubelet's own defaults are 0,
    /// which turns the feature off).
    pub fn grace_period(&self) -> SimDuration {
        self.grace_period.unwrap_or(SimDuration::from_secs(30))
    }

    /// shutdownGracePeriodCriticalPods, 10 s unless written (the same example).
    pub fn critical_pods(&self) -> SimDuration {
        self.critical_pods.unwrap_or(SimDuration::from_secs(10))
    }

    /// The regular Pods' budget: shutdownGracePeriod −
    /// shutdownGracePeriodCriticalPods (`migrateConfig`), the most grace
    /// the kubelet gives any of them.
    pub fn regular_pods(&self) -> SimDuration {
        SimDuration(self.grace_period().0.saturating_sub(self.critical_pods().0))
    }

    /// The seconds of the group a Pod of `priority` falls in, the most
    /// grace the kubelet gives it (`groupByPriority`): the group of the
    /// highest priority at or below the Pod's, the lowest group for a Pod
    /// below every group. Without a list, `migrateConfig`'s two groups:
    /// critical from `SYSTEM_CRITICAL` up, regular (priority 0) below.
    pub fn budget(&self, priority: u32) -> SimDuration {
        match &self.by_priority {
            Some(groups) => {
                let at_or_below = groups.iter().filter(|g| g.priority <= priority);
                let group = at_or_below.max_by_key(|g| g.priority);
                let lowest = || groups.iter().min_by_key(|g| g.priority);
                group.or_else(lowest).map_or(SimDuration::ZERO, |g| g.seconds)
            }
            None if priority >= SYSTEM_CRITICAL => self.critical_pods(),
            None => self.regular_pods(),
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

//! A lost node on the Service model (issue 40 items 2 and 4): what the
//! cluster does once a node's kubelet stops posting status, and what the
//! requests meet meanwhile.
//!
//! - The node fails (`lose`): a machine that is off answers nothing, not
//!   even its own clients, and its Pods' own events stop (no kubelet runs
//!   them); a partitioned one runs on, its Pods serving its own clients
//!   through its kube-proxy's last rules, cut off from everything else.
//!   Either way its kube-proxy hears of no slice change any more.
//! - The node lifecycle controller (`pkg/controller/nodelifecycle`)
//!   checks every `--node-monitor-period` when it last saw the node's
//!   Lease renewed (every 10 s until the failure); at the first check
//!   past `--node-monitor-grace-period` after that it marks the node
//!   `NotReady` (Ready `Unknown`) and its Pods not Ready
//!   (`MarkPodsNotReady`): their endpoints stop serving, and every other
//!   node's rules drop them as they sync (`NodeFailure::not_ready_after`
//!   has the instant). The `NoSchedule` unreachable taint comes with it
//!   (no new Pod is scheduled there), the `NoExecute` one a check later,
//!   and the taint eviction controller (`pkg/controller/tainteviction`)
//!   deletes each Pod once its `tolerationSeconds` for that one are over;
//!   the ReplicaSet replaces them on the other nodes (`rollout`'s create
//!   path). No budget is consulted: a taint eviction is a delete, not an
//!   eviction.
//! - A spot reclaim (`notice`) first gives its notice: a node-termination
//!   handler cordons the node and drains it through the Eviction API
//!   (`drain`, so the budget applies and may hold Pods past the notice),
//!   then the machine vanishes as a failed one does.
//!
//! Requests to a lost node's Pods time out, as no host answers with a RST:
//! a SYN after the client's connect timeout, a request on a connection
//! already open after its request timeout (or the kernel's retransmission
//! limit); `Cause::Unreachable` either way.
//!
//! - PodGC force-deletes the lost Pods' objects once the cloud node
//!   lifecycle controller deleted the Node object (`node_deleted`) or an
//!   operator tainted it out-of-service (`out_of_service`, whose taint
//!   also evicts them at once); until then they stay `Terminating`.
//!
//! Invariant: a lost node's Pods never reach their kubelet again (the
//! deletion included); the run settles without them, and without the
//! lost node's kube-proxy.

use super::history::{PodFact, ServiceChange, ServiceObserver};
use super::node_failure::NodeFailure;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;

/// How long the kernel retransmits on an established connection no host
/// answers before it gives up: `net.ipv4.tcp_retries2` = 15, "a
/// hypothetical timeout of 924.6 seconds" (Documentation/networking/
/// ip-sysctl.rst). A client without a request timeout waits this long.
pub const TCP_RETRANSMIT_LIMIT: SimDuration = SimDuration::from_millis(924_600);

/// A node's state as a run reports it: its machine's, then the API's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NodeState {
    /// Up, its kubelet posting status.
    #[default]
    Ready,
    /// A spot reclaim's notice came: cordoned, being drained.
    Reclaiming,
    /// The machine is off (failed, or taken back): the API does not know yet.
    Gone,
    /// Cut off by a network partition, running on: the API does not know yet.
    CutOff,
    /// The node controller marked it NotReady (Ready `Unknown`) and tainted it.
    NotReady,
    /// The cluster-autoscaler tainted it `ToBeDeletedByClusterAutoscaler`
    /// and evicts its Pods.
    ScalingDown,
    /// Its Node object was deleted: by the cluster-autoscaler, empty; or
    /// by the cloud node lifecycle controller, its instance gone.
    Deleted,
    /// Its kubelet is shutting it down gracefully (KEP-2000): not Ready,
    /// its Pods killed.
    ShuttingDown,
}

impl NodeState {
    crate::model::words::words! {
        /// The spellings, as the views write them.
        Ready => "Ready",
        Reclaiming => "reclaiming",
        Gone => "gone",
        CutOff => "cut-off",
        NotReady => "NotReady",
        ScalingDown => "scaling down",
        Deleted => "deleted",
        ShuttingDown => "shutting down",
    }
}

/// Whether a node is up, and if not, how it went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Down {
    #[default]
    Up,
    /// Partitioned: it runs on, alone.
    CutOff,
    /// Off: nothing on it runs.
    Off,
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// The lost node disruption `index` names.
    fn failure(&self, index: usize) -> NodeFailure {
        self.service.disruptions[index]
            .node_failure
            .expect("a node event comes from a node_failure disruption")
    }

    /// The node replica `r` runs on.
    pub(super) fn node_of(&self, r: usize) -> u32 {
        match &self.deploy {
            Some(d) => d.members[r].node,
            None => r as u32 % self.service.nodes.max(1),
        }
    }

    /// Replicas on `node` whose objects are not gone.
    fn pods_on(&self, node: u32) -> Vec<usize> {
        (0..self.replicas.len())
            .filter(|&r| self.node_of(r) == node && !self.replicas[r].object_gone)
            .collect()
    }

    /// Whether `node` is down (its kube-proxy hears nothing).
    pub(super) fn node_down(&self, node: usize) -> bool {
        self.node_down.get(node).is_some_and(|&d| d != Down::Up)
    }

    /// Whether `node` is off (its clients send nothing).
    pub(super) fn node_off(&self, node: u32) -> bool {
        self.node_down.get(node as usize) == Some(&Down::Off)
    }

    /// Whether a packet from a client on `node` to replica `r` goes
    /// unanswered. Free while no node is lost.
    #[inline]
    pub(super) fn cut_off(&self, r: u32, node: u32) -> bool {
        !self.node_down.is_empty() && self.cut_off_now(r as usize, node)
    }

    fn cut_off_now(&self, r: usize, node: u32) -> bool {
        let rep = &self.replicas[r];
        if self.node_of(r) == node {
            return rep.host_down;
        }
        rep.unreachable || self.node_down(node as usize)
    }

    /// Disruption `index` begins: a spot reclaim's notice (cordon, drain,
    /// the machine gone at its end), or the node's failure now.
    pub(super) fn start_node_failure(
        &mut self,
        index: usize,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let f = self.failure(index);
        // No notice leaves the handler no time: the node is simply lost.
        let Some(spot) = f.spot.filter(|spot| spot.notice() > SimDuration::ZERO) else {
            return self.lose_node(index, now, s);
        };
        let node = f.node;
        self.emit(
            now,
            ServiceChange::Node {
                node,
                state: NodeState::Reclaiming,
            },
        );
        self.cordon_and_evict(node, now, s);
        let index = index as u32;
        s.after(spot.notice(), ServiceEvent::NodeLost { index });
    }

    /// Disruption `index`'s node fails now: its Pods go silent, its
    /// kube-proxy deaf; the node controller notices after its grace period.
    pub(super) fn lose_node(&mut self, index: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let f = self.failure(index);
        let node = f.node;
        let down = if f.partition { Down::CutOff } else { Down::Off };
        if let Some(d) = self.node_down.get_mut(node as usize) {
            *d = down;
        }
        for r in self.pods_on(node) {
            let rep = &mut self.replicas[r];
            rep.unreachable = true;
            rep.host_down = down == Down::Off;
        }
        if let Some(d) = &mut self.deploy {
            d.drains.iter_mut().for_each(|x| x.cut_on(node));
        }
        let state = match down {
            Down::CutOff => NodeState::CutOff,
            _ => NodeState::Gone,
        };
        self.emit(now, ServiceChange::Node { node, state });
        let (age, lag) = self.lease_phases(f);
        let not_ready = f.not_ready_after(self.run.pod().kubernetes.0, age, lag);
        let index = index as u32;
        s.after(not_ready, ServiceEvent::NodeNotReady { index });
        // The cloud node lifecycle controller deletes a Node whose instance
        // is gone at its first check once the node is not Ready (its own
        // `--node-monitor-period` loop, taken a whole period after NotReady).
        if f.deletes_node() {
            s.after(not_ready + f.monitor_period, ServiceEvent::NodeDeleted { index });
        }
        // PodGC's `gcTerminating` force-deletes the terminating Pods of a
        // node both tainted out-of-service and not Ready.
        if let Some(at) = f.out_of_service {
            s.after(at, ServiceEvent::OutOfService { index });
            s.at(
                gc_pass_after(now + at.max(not_ready)),
                ServiceEvent::PodGc { index },
            );
        }
        self.maybe_settle(now);
    }

    /// The lost node's Lease age at the failure and the lag from that
    /// renewal to the controller's check that saw it: the scenario's, or
    /// drawn per replication (keyed by the node), uniform over the renew
    /// interval and the monitor period. Nothing ties the instant a machine
    /// fails to the kubelet's 10 s cycle or the controller's 5 s one, so a
    /// sweep's replications spread the NotReady instant over both, and one
    /// run stays reproducible by its seed.
    fn lease_phases(&self, f: NodeFailure) -> (SimDuration, SimDuration) {
        let draw = |fixed: Option<SimDuration>, span: SimDuration, key| {
            fixed.unwrap_or_else(|| {
                let u = self.stream.uniform(u64::from(f.node), key, 1);
                SimDuration::from_millis((span.as_millis() as f64 * u) as u64)
            })
        };
        (
            draw(f.lease_age, f.renew_interval, DrawKey::LeaseAge),
            draw(f.monitor_lag, f.monitor_period, DrawKey::MonitorLag),
        )
    }

    /// The node controller marks the node NotReady and its Pods not
    /// Ready, and taints it: nothing new goes there, and its Pods are
    /// evicted once their toleration is over.
    pub(super) fn node_not_ready(&mut self, index: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let f = self.failure(index);
        let node = f.node;
        self.emit(
            now,
            ServiceChange::Node {
                node,
                state: NodeState::NotReady,
            },
        );
        if let Some(c) = self
            .deploy
            .as_mut()
            .and_then(|d| d.cordoned.get_mut(node as usize))
        {
            *c = true;
        }
        for r in self.pods_on(node) {
            self.replicas[r].node_not_ready = true;
            self.slice.touch(r);
        }
        self.endpoints_changed(now, s);
        // The NoExecute taint comes a check later: the check that marks
        // the node Unknown hands `processTaintBaseEviction` the condition
        // it saw before (Ready), and only the next one, seeing Unknown,
        // queues the node for the unreachable taint (added within the
        // 100 ms `NodeEvictionPeriod`, not modelled); the taint eviction
        // controller counts `tolerationSeconds` from then.
        let index = index as u32;
        s.after(
            f.monitor_period + f.toleration,
            ServiceEvent::TaintEviction { index },
        );
    }

    /// The taint eviction controller deletes the lost node's Pods (no
    /// budget asked); the ReplicaSet replaces them elsewhere.
    pub(super) fn taint_evict(&mut self, index: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let node = self.failure(index).node;
        self.disrupted += 1;
        self.evict_by_taint(node, now, s);
    }

    /// Every Pod of `node` not yet deleted is deleted by the taint
    /// eviction controller; the ReplicaSet replaces them.
    fn evict_by_taint(&mut self, node: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        for r in self.pods_on(node) {
            if self.replicas[r].deleted {
                continue;
            }
            self.delete_pod(r, None, now, s);
            self.emit(now, ServiceChange::TaintEvicted { replica: r as u32 });
        }
        self.rollout_sync(now, s);
        self.maybe_settle(now);
    }

    /// An operator taints the lost node `node.kubernetes.io/out-of-service`
    /// (`NoExecute`, non-graceful node shutdown, KEP-2268): nothing is
    /// scheduled there, and the taint eviction controller deletes at once
    /// every Pod that does not tolerate it (the default tolerations are
    /// for not-ready and unreachable alone).
    pub(super) fn out_of_service(&mut self, index: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let node = self.failure(index).node;
        if let Some(c) = (self.deploy.as_mut()).and_then(|d| d.cordoned.get_mut(node as usize)) {
            *c = true;
        }
        self.evict_by_taint(node, now, s);
    }

    /// The cloud node lifecycle controller deletes the lost node's Node
    /// object; PodGC's `gcOrphaned` sees it missing at its next pass and
    /// force-deletes its Pods once the 40 s quarantine is over
    /// (`quarantineTime`, pkg/controller/podgc).
    pub(super) fn node_deleted(&mut self, index: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let node = self.failure(index).node;
        let state = NodeState::Deleted;
        self.emit(now, ServiceChange::Node { node, state });
        let index = index as u32;
        s.at(
            gc_pass_after(now) + POD_GC_QUARANTINE,
            ServiceEvent::PodGc { index },
        );
    }

    /// PodGC force-deletes (grace 0, after marking them Failed) the lost
    /// node's Pods: their objects leave the slice and `kubectl get`, and
    /// the ReplicaSet replaces any the taint had not evicted yet.
    pub(super) fn pod_gc(&mut self, index: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let node = self.failure(index).node;
        let pods = self.pods_on(node);
        if pods.is_empty() {
            return;
        }
        for r in pods {
            let replica = r as u32;
            if !self.replicas[r].deleted {
                self.replicas[r].deleted = true;
                let fact = PodFact::Deleted;
                self.emit(now, ServiceChange::Api { replica, fact });
                self.slice.terminate(r);
            }
            self.replicas[r].object_gone = true;
            self.slice.touch(r);
            self.emit(now, ServiceChange::PodGarbageCollected { replica });
            let fact = PodFact::Gone;
            self.emit(now, ServiceChange::Api { replica, fact });
        }
        self.endpoints_changed(now, s);
        self.pod_gone(now, s);
        self.maybe_settle(now);
    }
}

/// PodGC's `gcCheckPeriod`: it runs every 20 s (pkg/controller/podgc).
const POD_GC_PERIOD: u64 = 20_000;

/// PodGC's `quarantineTime`: a node missing from its informer is looked
/// up again this long after, before its Pods count as orphaned.
const POD_GC_QUARANTINE: SimDuration = SimDuration::from_millis(40_000);

/// PodGC's first pass after `t`: its passes are taken to fall on whole
/// multiples of its 20 s period since the run began (a fixed phase), and a
/// pass at `t` itself listed the objects before the change.
fn gc_pass_after(t: SimTime) -> SimTime {
    SimTime((t.as_millis() / POD_GC_PERIOD + 1) * POD_GC_PERIOD)
}

//! A lost node as a scenario states it (issue 40 items 2 and 4): which
//! node, a failure or a network partition, the node controller's grace
//! period and the Pods' toleration of the unreachable taint, the Lease
//! and node monitor timings, what garbage-collects the lost Pods, and for
//! a spot reclaim the provider's notice; and the figures a run reports of
//! it, for the CSV (after the Service's and the drain's columns) and JSON.
//!
//! Invariant: every default names its source here, and one that depends
//! on the Kubernetes release (the grace period) is resolved against the
//! scenario's version, never fixed when the scenario is read, so a grid
//! over `pod.kubernetes` moves it.

use super::history::ServiceChange;
use super::node::NodeState;
use crate::engine::{SimDuration, SimTime};

/// A node lost under the Service's Pods (issue 40 items 2 and 4): its
/// kubelet stops posting status, so the node controller marks it
/// `NotReady` (its Ready condition `Unknown`) once the node monitor's
/// grace period is over, which turns its Pods' endpoints not ready and
/// taints it `node.kubernetes.io/unreachable`; the taint evicts its Pods
/// after their `tolerationSeconds`, and the ReplicaSet replaces them on
/// the other nodes. A spot reclaim (`spot`) first gives a notice, in which
/// a node-termination handler cordons and drains the node through the
/// Eviction API (the budget applies), then the node vanishes the same way.
///
/// Named `node_failure` after what the cluster sees (a node that stops
/// answering), whatever the cause: power, kernel, network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeFailure {
    /// The node, from 0.
    pub node: u32,
    /// A network partition rather than a dead machine: the node and its
    /// Pods run on, cut off from the control plane and the other nodes,
    /// and its own clients are still served by its own Pods through its
    /// kube-proxy's last rules.
    pub partition: bool,
    /// kube-controller-manager's `--node-monitor-grace-period`; `None`:
    /// the scenario's Kubernetes version's default (`default_grace`).
    pub grace: Option<SimDuration>,
    /// The Pods' `tolerationSeconds` for the unreachable taint (300 s,
    /// the DefaultTolerationSeconds admission plugin's).
    pub toleration: SimDuration,
    /// `Some`: a spot reclaim, with its notice.
    pub spot: Option<Spot>,
    /// How often the kubelet renews its Lease: a quarter of
    /// `nodeLeaseDurationSeconds` (40 s), so 10 s
    /// (`nodeLeaseRenewIntervalFraction`, pkg/kubelet/kubelet.go).
    pub renew_interval: SimDuration,
    /// kube-controller-manager's `--node-monitor-period`: how often the
    /// node lifecycle controller checks each node's Lease (5 s, cloud-
    /// provider's `SetDefaults_KubeCloudSharedConfiguration`).
    pub monitor_period: SimDuration,
    /// The Lease's age when the node fails (since its last renewal);
    /// `None`: drawn per replication, uniform below `renew_interval`.
    pub lease_age: Option<SimDuration>,
    /// From that last renewal to the controller's check that saw it;
    /// `None`: drawn per replication, uniform below `monitor_period`.
    pub monitor_lag: Option<SimDuration>,
    /// Whether the cloud node lifecycle controller deletes the Node
    /// object (its instance gone); `None`: the kind's default
    /// (`deletes_node`).
    pub node_deleted: Option<bool>,
    /// An operator taints the node `node.kubernetes.io/out-of-service`
    /// this long after it failed (non-graceful node shutdown, GA in 1.28).
    pub out_of_service: Option<SimDuration>,
}

impl NodeFailure {
    /// `node` fails, every other field its default.
    pub fn of(node: u32) -> Self {
        NodeFailure {
            node,
            partition: false,
            grace: None,
            toleration: SimDuration::from_secs(300),
            spot: None,
            renew_interval: SimDuration::from_secs(10),
            monitor_period: NODE_MONITOR_PERIOD,
            lease_age: None,
            monitor_lag: None,
            node_deleted: None,
            out_of_service: None,
        }
    }

    /// Whether the Node object goes: the cloud node lifecycle controller
    /// (cloud-provider's `controllers/nodelifecycle`) deletes a node that
    /// is not Ready once its provider says the instance no longer exists.
    /// An EC2 Spot interruption terminates the instance by default; a
    /// Compute Engine Spot VM is stopped and an Azure Spot VM deallocated
    /// by default, and a failed or partitioned machine still exists: those
    /// keep their Node object unless the scenario says otherwise.
    pub fn deletes_node(&self) -> bool {
        let terminated = self.spot.is_some_and(|s| s.provider == Provider::Aws);
        self.node_deleted.unwrap_or(terminated)
    }

    /// The grace period the node controller waits, under Kubernetes 1.`minor`.
    pub fn grace_under(&self, minor: u32) -> SimDuration {
        self.grace.unwrap_or_else(|| default_grace(minor))
    }

    /// Failure → the node controller's check that marks the node NotReady,
    /// under Kubernetes 1.`minor`, the Lease `age` old at the failure and
    /// its renewal seen `lag` after it was made.
    ///
    /// `tryUpdateNodeHealth` (pkg/controller/nodelifecycle) stamps its own
    /// clock as the probe time at the check that first sees a newer Lease
    /// `renewTime`, and marks the node Unknown at the first check with
    /// `now.After(probeTimestamp + gracePeriod)`. The checks run on
    /// `wait.Until`, which waits the period after each pass ends: the
    /// check `grace` after the probe (grace a whole number of periods)
    /// runs a pass's length after it and is already past. So: the last
    /// renewal, plus the lag to the check that saw it, plus the grace
    /// rounded up to whole periods. A grace shorter than the Lease's age
    /// would have marked the live node NotReady between two renewals
    /// already (flapping, not modelled): NotReady at the failure, then.
    pub fn not_ready_after(&self, minor: u32, age: SimDuration, lag: SimDuration) -> SimDuration {
        let period = self.monitor_period.as_millis().max(1);
        let checks = self.grace_under(minor).as_millis().div_ceil(period);
        SimDuration::from_millis(lag.as_millis() + checks * period) - age
    }
}

/// kube-controller-manager's `--node-monitor-period` default, 5 s
/// (cloud-provider's `SetDefaults_KubeCloudSharedConfiguration`).
pub const NODE_MONITOR_PERIOD: SimDuration = SimDuration::from_secs(5);

/// `--node-monitor-grace-period`'s default: 40 s before 1.32, 50 s from
/// 1.32 on (kubernetes/kubernetes#126287, for #121793: 40 s was shorter
/// than the kubelet's HTTP/2 health checks could notice a broken
/// connection to the API server and renew its Lease).
pub fn default_grace(minor: u32) -> SimDuration {
    SimDuration::from_secs(if minor >= 32 { 50 } else { 40 })
}

/// A spot (preemptible) node's reclaim notice: the provider's, unless
/// the scenario writes its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spot {
    /// Whose notice.
    pub provider: Provider,
    /// The notice written, instead of the provider's.
    pub notice: Option<SimDuration>,
}

impl Spot {
    /// From the notice to the node vanishing.
    pub fn notice(&self) -> SimDuration {
        self.notice.unwrap_or(self.provider.notice())
    }
}

/// A cloud whose spot instances give a notice before they are taken back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Provider {
    /// EC2 Spot: "a Spot Instance interruption notice, which is a warning
    /// that is issued two minutes before Amazon EC2 stops or terminates
    /// your Spot Instance" (EC2 User Guide, spot-instance-termination-notices).
    #[default]
    Aws,
    /// Compute Engine Spot and preemptible VMs: "Compute Engine sends a
    /// preemption notice to the VM in the form of an ACPI G2 Soft Off
    /// signal … 30 seconds" (Compute Engine docs, spot and preemptible).
    Gcp,
    /// Azure Spot VMs: a Preempt scheduled event "with a minimum of 30
    /// seconds notice" (Azure docs, spot-vms and scheduled-events).
    Azure,
}

impl Provider {
    crate::model::words::words! {
        /// The spellings.
        Aws => "aws",
        Gcp => "gcp",
        Azure => "azure",
    }

    /// The provider's notice.
    pub fn notice(self) -> SimDuration {
        SimDuration::from_secs(match self {
            Provider::Aws => 120,
            Provider::Gcp | Provider::Azure => 30,
        })
    }
}

/// What a run reports of its lost nodes: the requests that found no
/// answer, and each node's instants. The CSV takes the slowest node's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeFigures {
    /// Requests that failed because their Pod's node was lost (counted
    /// in `failed` too): a SYN or a request that no host answered.
    pub failed_unreachable: u64,
    /// Each lost node, in the order they were lost.
    pub lost: Vec<LostNode>,
}

/// One lost node's instants, each since it failed (a spot reclaim's:
/// since the machine vanished, at the notice's end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostNode {
    /// The node, from 0.
    pub node: u32,
    /// When the spot reclaim's notice came, since the replicas were created.
    pub notice_ms: Option<u64>,
    /// When it failed, since the replicas were created (a notice longer
    /// than the run: never).
    pub failed_ms: Option<u64>,
    /// Failure → the node controller marked it NotReady.
    pub not_ready_ms: Option<u64>,
    /// Per node, failure → its rules no longer send new connections to
    /// any Pod of the lost node (the lost node's own: never, it hears no
    /// more).
    pub rules_dropped_ms: Vec<Option<u64>>,
    /// Failure → the unreachable taint evicted its Pods.
    pub evicted_ms: Option<u64>,
    /// Failure → the slice has as many ready endpoints as replicas again,
    /// once the taint evicted its Pods (0: a drain had replaced them all).
    pub replaced_ms: Option<u64>,
    /// Failure → PodGC force-deleted its Pods' objects (the Node object
    /// deleted, or the out-of-service taint): they leave the slice and
    /// `kubectl get`.
    pub pods_gone_ms: Option<u64>,
}

impl LostNode {
    /// Failure → the last other node's rules dropped its Pods; none if one never did.
    pub fn last_rule_drop_ms(&self) -> Option<u64> {
        (self.rules_dropped_ms.iter().enumerate())
            .filter(|&(n, _)| n != self.node as usize)
            .try_fold(0, |worst, (_, ms)| ms.map(|ms| worst.max(ms)))
    }
}

impl NodeFigures {
    /// The CSV columns, in row order.
    pub const NAMES: [&'static str; 6] = [
        "failed_unreachable",
        "node_not_ready_ms",
        "last_rule_drop_ms",
        "evicted_ms",
        "replaced_ms",
        "pods_gone_ms",
    ];

    /// The cells in `NAMES` order, the slowest lost node's; `None` for an
    /// empty one (an instant some node never reached within the run).
    pub fn numbers(&self) -> [Option<u64>; 6] {
        let slowest = |f: &dyn Fn(&LostNode) -> Option<u64>| {
            (self.lost.iter())
                .try_fold(0, |worst, l| f(l).map(|ms| worst.max(ms)))
                .filter(|_| !self.lost.is_empty())
        };
        [
            Some(self.failed_unreachable),
            slowest(&|l| l.not_ready_ms),
            slowest(&LostNode::last_rule_drop_ms),
            slowest(&|l| l.evicted_ms),
            slowest(&|l| l.replaced_ms),
            slowest(&|l| l.pods_gone_ms),
        ]
    }
}

/// The lost nodes' figures, accumulated from the changes as they come
/// (`ServiceMeters` hands it the few it reads, and each node's rules).
#[derive(Clone, Debug, Default)]
pub(super) struct NodeMeter {
    /// The scenario loses a node: its figures are reported.
    pub on: bool,
    replicas: u32,
    nodes: u32,
    /// The node of each Pod the controller made, in order (replica
    /// `replicas + i` is the `i`-th).
    made: Vec<u32>,
    lost: Vec<Lost>,
    /// Ready endpoints now.
    ready: u32,
}

/// A lost node's instants as they come, absolute.
#[derive(Clone, Debug)]
struct Lost {
    node: u32,
    notice: Option<SimTime>,
    failed: Option<SimTime>,
    not_ready: Option<SimTime>,
    dropped: Vec<Option<SimTime>>,
    evicted: Option<SimTime>,
    replaced: Option<SimTime>,
    gone: Option<SimTime>,
}

impl NodeMeter {
    /// Ready for a run of `replicas` on `nodes`, reporting if `on`.
    pub fn reset(&mut self, replicas: u32, nodes: u32, on: bool) {
        (self.on, self.replicas, self.nodes) = (on, replicas, nodes);
        self.made.clear();
        self.lost.clear();
        self.ready = 0;
    }

    /// Replica `r`'s node: round robin for the first, else where it was made.
    fn node_of(&self, r: usize) -> u32 {
        match r.checked_sub(self.replicas as usize) {
            None => r as u32 % self.nodes.max(1),
            Some(i) => self.made.get(i).copied().unwrap_or(u32::MAX),
        }
    }

    /// The lost node `node`'s entry, the newest.
    fn entry(&mut self, node: u32) -> Option<&mut Lost> {
        self.lost.iter_mut().rev().find(|l| l.node == node)
    }

    /// Takes note of one change; `rules` are each node's rules now.
    /// `ServiceMeters` hands it only the changes its arms below read: one
    /// more read here needs its call in that change's arm there.
    pub fn observe(&mut self, at: SimTime, what: ServiceChange, rules: &[Vec<bool>]) {
        match what {
            ServiceChange::Node { node, state } => {
                let fresh = |notice| Lost {
                    node,
                    notice,
                    failed: None,
                    not_ready: None,
                    dropped: vec![None; rules.len()],
                    evicted: None,
                    replaced: None,
                    gone: None,
                };
                match state {
                    NodeState::Reclaiming => self.lost.push(fresh(Some(at))),
                    NodeState::Gone | NodeState::CutOff => {
                        match self.entry(node) {
                            Some(l) if l.failed.is_none() => l.failed = Some(at),
                            _ => self.lost.push(Lost {
                                failed: Some(at),
                                ..fresh(None)
                            }),
                        }
                        self.lost_at(at, rules);
                    }
                    NodeState::NotReady => {
                        if let Some(l) = self.entry(node) {
                            l.not_ready = Some(at);
                        }
                    }
                    NodeState::Ready
                    | NodeState::ScalingDown
                    | NodeState::Deleted
                    | NodeState::ShuttingDown => {}
                }
            }
            ServiceChange::TaintEvicted { replica } => {
                let node = self.node_of(replica as usize);
                if let Some(l) = self.entry(node) {
                    l.evicted.get_or_insert(at);
                }
            }
            ServiceChange::PodGarbageCollected { replica } => {
                let node = self.node_of(replica as usize);
                if let Some(l) = self.entry(node) {
                    l.gone.get_or_insert(at);
                }
            }
            ServiceChange::PodMade { node, .. } => self.made.push(node),
            ServiceChange::Synced { node } => {
                let listed = &rules[node as usize];
                for i in 0..self.lost.len() {
                    let l = &self.lost[i];
                    if l.failed.is_none() || l.node == node || l.dropped[node as usize].is_some() {
                        continue;
                    }
                    let still = (0..listed.len()).any(|r| listed[r] && self.node_of(r) == l.node);
                    if !still {
                        self.lost[i].dropped[node as usize] = Some(at);
                    }
                }
            }
            ServiceChange::ReadyEndpoints { ready } => {
                self.ready = ready;
                for l in self
                    .lost
                    .iter_mut()
                    .filter(|l| (l.evicted.is_some() || l.gone.is_some()) && ready >= self.replicas)
                {
                    l.replaced.get_or_insert(at);
                }
            }
            _ => {}
        }
    }

    /// The newest lost node went at `at`: a node whose rules list none of
    /// its Pods (a drain emptied it in time) dropped them then, and if the
    /// endpoints are whole, nothing is left to replace.
    fn lost_at(&mut self, at: SimTime, rules: &[Vec<bool>]) {
        let Some(l) = self.lost.last() else {
            return;
        };
        let listed = |n: usize| (0..rules[n].len()).any(|r| rules[n][r] && self.node_of(r) == l.node);
        let empty: Vec<usize> = (0..rules.len())
            .filter(|&n| n != l.node as usize && !listed(n))
            .collect();
        let whole = empty.len() + 1 == rules.len() && self.ready >= self.replicas;
        let l = self.lost.last_mut().expect("the newest lost node");
        empty.into_iter().for_each(|n| l.dropped[n] = Some(at));
        if whole {
            l.replaced = Some(at);
        }
    }

    /// The figures, with the requests that failed unreachable.
    pub fn figures(&self, failed_unreachable: u64) -> NodeFigures {
        let lost = (self.lost.iter())
            .map(|l| {
                let since = |t: Option<SimTime>| Some(t?.since(l.failed?).as_millis());
                LostNode {
                    node: l.node,
                    notice_ms: l.notice.map(SimTime::as_millis),
                    failed_ms: l.failed.map(SimTime::as_millis),
                    not_ready_ms: since(l.not_ready),
                    rules_dropped_ms: l.dropped.iter().map(|&t| since(t)).collect(),
                    evicted_ms: since(l.evicted),
                    replaced_ms: since(l.replaced),
                    pods_gone_ms: since(l.gone),
                }
            })
            .collect();
        NodeFigures {
            failed_unreachable,
            lost,
        }
    }
}

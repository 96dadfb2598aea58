//! A Service scenario's disruptions: what happens to the replicas or
//! their nodes (a delete, a rollout, a drain, an unready window, a crash,
//! a lost node, a scale-down, an annotation, a graceful node shutdown) and
//! when. Kept apart from the rest of the spec because every new kind of
//! disruption adds a field here (with its line in the hash-stable `Debug`)
//! and nothing else in the spec changes with it.

use crate::engine::SimDuration;
use crate::model::service::autoscaler::ScaleDown;
use crate::model::service::deployment::Rollout;
use crate::model::service::node_failure::NodeFailure;
use crate::model::service::scale::Annotate;
use crate::model::service::shutdown::NodeShutdown;

/// One `kubectl delete pod`, or one rollout of the Deployment.
///
/// A rollout is an `Option` beside the delete's fields rather than an enum
/// of the two so that specs written before rollouts existed still build;
/// the readers refuse a delete's keys on a rollout.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Disruption {
    /// When the delete (or the rollout) is sent.
    pub when: When,
    /// The replica deleted.
    pub replica: u32,
    /// `kubectl delete --grace-period`; `None`: the Pod's own.
    pub grace_period: Option<SimDuration>,
    /// Repeat this often, deleting the next replica each time (`replica`,
    /// then the one after it, …) while one is left; `None`: once. No
    /// ReplicaSet replaces a deleted Pod, so a long soak runs many replicas.
    pub every: Option<SimDuration>,
    /// `Some`: a rollout, and `replica` and `grace_period` are not used.
    pub rollout: Option<Rollout>,
    /// `Some(node)`: `kubectl drain` of that node, and the others are not used.
    pub drain: Option<u32>,
    /// `Some`: one replica's readiness fails for a while, and the others
    /// are not used.
    pub unready: Option<Unready>,
    /// `Some(replica)`: that replica's serving app crashes (issue 40), and
    /// the others are not used.
    pub crash: Option<u32>,
    /// `Some`: a node is lost (issue 40): it fails, or a spot reclaim
    /// takes it after a notice; and the others are not used.
    pub node_failure: Option<NodeFailure>,
    /// `Some(k)`: the Deployment is scaled to `k` replicas (issue 40: a
    /// person or an HPA lowering `replicas`), and its ReplicaSet deletes
    /// the Pods its ranking puts first; the others are not used.
    pub scale_to: Option<u32>,
    /// `Some`: one replica's Pod is annotated with a pod-deletion-cost,
    /// and the others are not used.
    pub annotate: Option<Annotate>,
    /// `Some`: a node shuts down gracefully (KEP-2000), and the others are
    /// not used.
    pub node_shutdown: Option<NodeShutdown>,
    /// `Some`: the cluster-autoscaler removes a node (issue 40 item 5),
    /// and the others are not used.
    pub scale_down_node: Option<ScaleDown>,
}

impl Disruption {
    /// The replica an unready window, a crash or an annotation names, or
    /// the replicas a scale-down leaves: such a disruption deletes no Pod
    /// by hand (a scale-down's ReplicaSet picks its own), and what it
    /// names must be below `replicas`.
    pub fn one_replica(&self) -> Option<u32> {
        (self.unready.map(|u| u.replica).or(self.crash))
            .or(self.scale_to)
            .or(self.annotate.map(|a| a.replica))
    }
}

/// One replica's readiness probe fails while its app still serves (an
/// overloaded replica): its endpoint stops serving, so it leaves the
/// rules as they sync, while its open connections stay pinned to it and
/// are answered; then it passes again and the endpoint returns.
///
/// The window is the time the kubelet reports the Pod not Ready: the
/// probe's own detection (failureThreshold × period) and recovery
/// (successThreshold × period) are for the scenario to count in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unready {
    /// The replica, from 0.
    pub replica: u32,
    /// How long it stays not Ready.
    pub lasts: SimDuration,
}

impl Default for Unready {
    /// Replica 0 for 30 s (issue 39's example).
    fn default() -> Self {
        Unready {
            replica: 0,
            lasts: SimDuration::from_secs(30),
        }
    }
}

/// Written as derived, but without `every`, `rollout`, `drain`, `unready`, `crash`, `node_failure`, `scale_to`, `annotate`, `node_shutdown` and `scale_down_node` when absent, for
/// the grid hash as `ServiceSpec`'s; no `..` here either.
impl std::fmt::Debug for Disruption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Disruption {
            when,
            replica,
            grace_period,
            every,
            rollout,
            drain,
            unready,
            crash,
            node_failure,
            scale_to,
            annotate,
            node_shutdown,
            scale_down_node,
        } = self;
        let mut d = f.debug_struct("Disruption");
        d.field("when", when)
            .field("replica", replica)
            .field("grace_period", grace_period);
        if let Some(every) = every {
            d.field("every", every);
        }
        if let Some(rollout) = rollout {
            d.field("rollout", rollout);
        }
        if let Some(node) = drain {
            d.field("drain", node);
        }
        if let Some(unready) = unready {
            d.field("unready", unready);
        }
        if let Some(replica) = crash {
            d.field("crash", replica);
        }
        if let Some(failure) = node_failure {
            d.field("node_failure", failure);
        }
        if let Some(replicas) = scale_to {
            d.field("scale_to", replicas);
        }
        if let Some(annotate) = annotate {
            d.field("annotate", annotate);
        }
        if let Some(shutdown) = node_shutdown {
            d.field("node_shutdown", shutdown);
        }
        if let Some(scale_down) = scale_down_node {
            d.field("scale_down_node", scale_down);
        }
        d.finish()
    }
}

impl Default for Disruption {
    fn default() -> Self {
        Disruption {
            when: When::AfterReady(SimDuration::ZERO),
            replica: 0,
            grace_period: None,
            every: None,
            rollout: None,
            drain: None,
            unready: None,
            crash: None,
            node_failure: None,
            scale_to: None,
            annotate: None,
            node_shutdown: None,
            scale_down_node: None,
        }
    }
}

/// When a disruption happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum When {
    /// At this time since the replicas were created.
    At(SimDuration),
    /// This long after the Service first had every replica Ready on every node.
    AfterReady(SimDuration),
}

//! Which kind of disruption a `[[disruptions]]` key belongs to: the one
//! list, read by a grid's check that an axis sweeps a disruption of its
//! own kind and by the registry's test that builds such a base for each key.

use super::Field;
use crate::model::service::Disruption;

/// What a disruption is, and what a disruption's key belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisruptionKind {
    /// `delete = R`, or a disruption naming none of the others.
    Delete,
    /// `rollout = ...`: a Deployment's update.
    Rollout,
    /// `drain = N`: kubectl drain of a node.
    Drain,
    /// `node_failure = N` or `spot_reclaim = N`: a lost node.
    Node,
    /// `crash = R`: the CSV has its `crashes` column (`Table::Crash`).
    Crash,
    /// `scale_down_node = N`: the cluster-autoscaler removes a node.
    ScaleDown,
}

impl DisruptionKind {
    /// The kind of `d`, by the key that makes it.
    pub fn of(d: &Disruption) -> DisruptionKind {
        match (&d.rollout, d.drain) {
            (Some(_), _) => DisruptionKind::Rollout,
            (None, Some(_)) => DisruptionKind::Drain,
            _ if d.node_failure.is_some() => DisruptionKind::Node,
            (None, None) if d.crash.is_some() => DisruptionKind::Crash,
            (None, None) if d.scale_down_node.is_some() => DisruptionKind::ScaleDown,
            (None, None) => DisruptionKind::Delete,
        }
    }

    /// The kind as a message names it.
    pub fn name(self) -> &'static str {
        match self {
            DisruptionKind::Delete => "a kubectl delete",
            DisruptionKind::Rollout => "a rollout",
            DisruptionKind::Drain => "a kubectl drain",
            DisruptionKind::Node => "a lost node",
            DisruptionKind::Crash => "a crash",
            DisruptionKind::ScaleDown => "a cluster-autoscaler scale-down",
        }
    }

    /// What to write in a disruption to make it of this kind.
    pub fn how(self) -> &'static str {
        match self {
            DisruptionKind::Delete => "delete = <replica>",
            DisruptionKind::Rollout => "rollout = \"RollingUpdate\"",
            DisruptionKind::Drain => "drain = <node>",
            DisruptionKind::Node => "node_failure = <node>",
            DisruptionKind::Crash => "crash = <replica>",
            DisruptionKind::ScaleDown => "scale_down_node = <node>",
        }
    }
}

impl Field {
    /// The kind of disruption the field belongs to; `None` for a key every
    /// kind has (`at`) and for a field outside `[[disruptions]]`.
    pub fn disruption_kind(self) -> Option<DisruptionKind> {
        match self {
            Field::Rollout | Field::MaxSurge | Field::MaxUnavailable | Field::MinReadySeconds => {
                Some(DisruptionKind::Rollout)
            }
            Field::DrainNode => Some(DisruptionKind::Drain),
            Field::NodeFailure
            | Field::Partition
            | Field::NodeMonitorGracePeriod
            | Field::TolerationSeconds
            | Field::SpotReclaim
            | Field::Provider
            | Field::Notice
            | Field::LeaseRenewInterval
            | Field::NodeMonitorPeriod
            | Field::LeaseAge
            | Field::MonitorLag
            | Field::NodeDeleted
            | Field::OutOfService => Some(DisruptionKind::Node),
            Field::Crash => Some(DisruptionKind::Crash),
            Field::ScaleDownNode
            | Field::MaxGracefulTerminationSec
            | Field::MaxPodEvictionTime
            | Field::EvictionRetryTime => Some(DisruptionKind::ScaleDown),
            Field::Delete | Field::GracePeriod => Some(DisruptionKind::Delete),
            _ => None,
        }
    }
}

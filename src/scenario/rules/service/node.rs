//! The rules of a lost node (`node_failure`, `spot_reclaim`, issue 40):
//! a node that exists, lost once, a disruption of its own, and beside
//! neither a rollout nor a kubectl delete (its replacements come from the
//! Deployment's ReplicaSet, which would replace a deleted Pod too, as a
//! drain's do); a partition is a failure's, never a spot reclaim's; the
//! Lease phases fall within their cycles.
//!
//! Invariant: apart from `service`'s own table, so the lost node's rules
//! read in one place; `check_node_failures` runs before the drain's and
//! the rollout's checks, whose messages speak of deletes.

use std::fmt;

use super::{ServiceProblem, ServiceRule, one_of, problem, written_beside};
use crate::engine::SimDuration;
use crate::model::RunSpec;
use crate::model::service::{Disruption, NodeFailure, ServiceSpec};
use crate::scenario::key::Field;

/// A rule a lost node breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeRule {
    /// A node beyond `nodes`.
    Beyond {
        /// `node_failure` or `spot_reclaim`.
        kind: Field,
        /// The node written.
        node: u32,
        /// How many there are.
        nodes: u32,
    },
    /// A node an earlier disruption already loses.
    Twice {
        /// The node written.
        node: u32,
        /// The disruption that loses it first.
        first: usize,
    },
    /// Another kind's key in the disruption, or a rollout or a delete
    /// elsewhere in the scenario.
    Beside {
        /// `node_failure` or `spot_reclaim`.
        kind: Field,
        /// The other kind's key.
        other: Field,
        /// The disruption that has it, if another.
        elsewhere: Option<usize>,
    },
    /// `partition = true` on a spot reclaim.
    SpotPartition,
    /// `node_monitor_period = 0`: the controller would never check.
    NoMonitorPeriod,
    /// A Lease phase (`lease_age`, `monitor_lag`) not below its cycle.
    PhaseBeyond {
        /// The phase's key.
        field: Field,
        /// Its value.
        value: SimDuration,
        /// Its cycle's key.
        cycle: Field,
        /// The cycle's length.
        length: SimDuration,
    },
}

impl fmt::Display for NodeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeRule::Beyond { kind, node, nodes } => write!(
                f,
                "{} = {node} is beyond the nodes: with nodes = {nodes}, name {}",
                kind.leaf(),
                one_of(*nodes)
            ),
            NodeRule::Twice { node, first } => write!(f, "node {node} is already lost by disruption {first}"),
            NodeRule::Beside {
                kind,
                other,
                elsewhere: None,
            } => write!(
                f,
                "{} belongs to another kind, and {} makes this disruption a lost node; write them as two disruptions",
                other.leaf(),
                kind.leaf()
            ),
            NodeRule::Beside {
                kind,
                other,
                elsewhere: Some(i),
            } => write!(
                f,
                "{} loses a node beside the {} of disruption {i}: the lost node's Pods are the Deployment's, \
                 whose ReplicaSet replaces them (and would replace a deleted one, or take part in the rollout); \
                 drop one of the two",
                kind.leaf(),
                match other {
                    Field::Rollout => "rollout",
                    _ => "kubectl delete",
                }
            ),
            NodeRule::SpotPartition => write!(
                f,
                "partition is a node failure's: a spot reclaim's machine is taken back, not cut off; drop it"
            ),
            NodeRule::NoMonitorPeriod => write!(
                f,
                "node_monitor_period = 0s: the node controller would never check the node; write a period above 0 \
                 (default 5s)"
            ),
            NodeRule::PhaseBeyond {
                field,
                value,
                cycle,
                length,
            } => write!(
                f,
                "{} = {value} is not below {} = {length}: the phase falls within one cycle; write less, or leave \
                 it out to draw it",
                field.leaf(),
                cycle.leaf()
            ),
        }
    }
}

/// `node_failure` or `spot_reclaim`, as `d` is one.
fn kind_of(d: &Disruption) -> Field {
    match d.node_failure.and_then(|f| f.spot) {
        Some(_) => Field::SpotReclaim,
        None => Field::NodeFailure,
    }
}

/// Every lost node against the rules above.
pub(super) fn check_node_failures(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    for (i, d) in service.disruptions.iter().enumerate() {
        let Some(f) = d.node_failure else {
            continue;
        };
        let kind = kind_of(d);
        let at = |field, rule| problem(field, Some(i), ServiceRule::LostNode(rule));
        if let Some(other) = written_beside(d, Field::NodeFailure) {
            let rule = NodeRule::Beside {
                kind,
                other,
                elsewhere: None,
            };
            return at(other, rule);
        }
        let plain_delete = |e: &Disruption| {
            e.rollout.is_none()
                && e.drain.is_none()
                && e.one_replica().is_none()
                && e.node_failure.is_none()
                && e.scale_down_node.is_none()
        };
        let beside = (service.disruptions.iter().enumerate()).find_map(|(j, e)| match () {
            _ if e.rollout.is_some() => Some((j, Field::Rollout)),
            _ if plain_delete(e) => Some((j, Field::Delete)),
            _ => None,
        });
        if let Some((j, other)) = beside {
            let rule = NodeRule::Beside {
                kind,
                other,
                elsewhere: Some(j),
            };
            return at(kind, rule);
        }
        if f.node >= service.nodes {
            let nodes = service.nodes;
            return at(
                kind,
                NodeRule::Beyond {
                    kind,
                    node: f.node,
                    nodes,
                },
            );
        }
        if let Some(first) =
            (service.disruptions[..i].iter()).position(|e| e.node_failure.is_some_and(|e| e.node == f.node))
        {
            return at(kind, NodeRule::Twice { node: f.node, first });
        }
        if f.partition && f.spot.is_some() {
            return at(Field::Partition, NodeRule::SpotPartition);
        }
        if let Some((field, rule)) = lease_rule(f) {
            return at(field, rule);
        }
    }
    Ok(())
}

/// The Lease timings' rule `f` breaks, with the key to blame.
fn lease_rule(f: NodeFailure) -> Option<(Field, NodeRule)> {
    if f.monitor_period == SimDuration::ZERO {
        return Some((Field::NodeMonitorPeriod, NodeRule::NoMonitorPeriod));
    }
    let phases = [
        (
            Field::LeaseAge,
            f.lease_age,
            Field::LeaseRenewInterval,
            f.renew_interval,
        ),
        (
            Field::MonitorLag,
            f.monitor_lag,
            Field::NodeMonitorPeriod,
            f.monitor_period,
        ),
    ];
    for (field, value, cycle, length) in phases {
        if let Some(value) = value.filter(|&v| v >= length) {
            let rule = NodeRule::PhaseBeyond {
                field,
                value,
                cycle,
                length,
            };
            return Some((field, rule));
        }
    }
    None
}

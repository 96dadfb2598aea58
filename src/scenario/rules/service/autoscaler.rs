//! The rules of a cluster-autoscaler scale-down (`scale_down_node`, issue
//! 40): a node that exists, scaled down once, a disruption of its own, not
//! beside a rollout or a kubectl delete (its evicted Pods are replaced by
//! the Deployment's ReplicaSet, which would replace a deleted Pod too, as
//! a drain's are), and a retry wait above zero.
//!
//! Invariant: apart from `service`'s own table, so the scale-down's rules
//! read in one place; `check_scale_downs` runs before the lost node's, the
//! drain's and the rollout's checks, which let a scale-down by.

use std::fmt;

use super::{ServiceProblem, ServiceRule, one_of, problem, written_beside};
use crate::engine::SimDuration;
use crate::model::RunSpec;
use crate::model::service::{Disruption, ServiceSpec};
use crate::scenario::key::Field;

/// A rule a scale-down breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScaleDownRule {
    /// A node beyond `nodes`.
    Beyond {
        /// The node written.
        node: u32,
        /// How many there are.
        nodes: u32,
    },
    /// A node an earlier disruption already scales down.
    Twice {
        /// The node written.
        node: u32,
        /// The disruption that scales it down first.
        first: usize,
    },
    /// A rollout (else a kubectl delete) in disruption `elsewhere`.
    Beside {
        /// Whether the other is a rollout.
        rollout: bool,
        /// The disruption that has it.
        elsewhere: usize,
    },
    /// `eviction_retry_time = "0s"`.
    RetryZero,
}

impl fmt::Display for ScaleDownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScaleDownRule::Beyond { node, nodes } => write!(
                f,
                "scale_down_node = {node} is beyond the nodes: with nodes = {nodes}, name {}",
                one_of(*nodes)
            ),
            ScaleDownRule::Twice { node, first } => {
                write!(f, "node {node} is already scaled down by disruption {first}")
            }
            ScaleDownRule::Beside { rollout, elsewhere } => write!(
                f,
                "scale_down_node evicts a node's Pods beside the {} of disruption {elsewhere}: the evicted \
                 Pods are the Deployment's, whose ReplicaSet replaces them (and would replace a deleted one, \
                 or take part in the rollout); drop one of the two",
                if *rollout { "rollout" } else { "kubectl delete" }
            ),
            ScaleDownRule::RetryZero => write!(
                f,
                "eviction_retry_time \"0s\" would ask a refused eviction again in the same instant forever; \
                 write more than 0s (the autoscaler's is 10s)"
            ),
        }
    }
}

/// Every scale-down against the rules above.
pub(super) fn check_scale_downs(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    for (i, d) in service.disruptions.iter().enumerate() {
        let Some(sd) = d.scale_down_node else {
            continue;
        };
        let at = |field, rule| problem(field, Some(i), ServiceRule::ScaleDown(rule));
        if let Some(field) = written_beside(d, Field::ScaleDownNode) {
            let kind = Field::ScaleDownNode;
            return problem(field, Some(i), ServiceRule::BesideUnready { kind, field });
        }
        let plain_delete = |e: &Disruption| {
            e.rollout.is_none()
                && e.drain.is_none()
                && e.one_replica().is_none()
                && e.node_failure.is_none()
                && e.node_shutdown.is_none()
                && e.scale_down_node.is_none()
        };
        let beside = (service.disruptions.iter().enumerate())
            .find(|(_, e)| e.rollout.is_some() || plain_delete(e))
            .map(|(j, e)| (j, e.rollout.is_some()));
        if let Some((elsewhere, rollout)) = beside {
            return at(Field::ScaleDownNode, ScaleDownRule::Beside { rollout, elsewhere });
        }
        if sd.node >= service.nodes {
            let (node, nodes) = (sd.node, service.nodes);
            return at(Field::ScaleDownNode, ScaleDownRule::Beyond { node, nodes });
        }
        if let Some(first) = (service.disruptions[..i].iter())
            .position(|e| e.scale_down_node.is_some_and(|e| e.node == sd.node))
        {
            return at(
                Field::ScaleDownNode,
                ScaleDownRule::Twice { node: sd.node, first },
            );
        }
        if sd.eviction_retry_time == SimDuration::ZERO {
            return at(Field::EvictionRetryTime, ScaleDownRule::RetryZero);
        }
    }
    Ok(())
}

//! The rules of a Service's disruptions (`[[disruptions]]`): kubectl
//! deletes, unready windows, crashes, scale-downs and annotations of a
//! replica that exists, drains of nodes that exist, at most one rollout
//! with the fenceposts the API accepts, a graceful node shutdown alone in
//! its disruption, and lengths in whole seconds.
//!
//! Invariant: apart from `service`'s table, as a lost node's are in
//! `node`, so what each kind of disruption may be written beside reads in
//! one place; the table in `service` keeps the order they are reported in.

use super::{ServiceProblem, ServiceRule, problem, written_beside};
use crate::engine::SimDuration;
use crate::model::RunSpec;
use crate::model::service::{Disruption, NodeShutdown, Scaled, ServiceSpec};
use crate::scenario::key::Field;

/// Each kubectl delete: a time between repeats, a replica that exists,
/// each replica once; each unready window and crash: of a replica that exists.
pub(super) fn check_deletes(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    for (i, d) in service.disruptions.iter().enumerate() {
        if let Some(n) = &d.node_shutdown {
            check_shutdown(i, d, n, service.nodes)?;
            continue;
        }
        if d.every == Some(SimDuration::ZERO) {
            return problem(Field::Every, Some(i), ServiceRule::EveryZero);
        }
        let replicas = service.replicas;
        if let Some(replica) = d.one_replica() {
            // The first kind written; any later one is beside it.
            let kind = if d.unready.is_some() {
                Field::Unready
            } else if d.crash.is_some() {
                Field::Crash
            } else if d.scale_to.is_some() {
                Field::ScaleTo
            } else {
                Field::Annotate
            };
            let other = [
                (Field::Rollout, d.rollout.is_some()),
                (Field::DrainNode, d.drain.is_some()),
                (Field::Every, d.every.is_some()),
                (Field::GracePeriod, d.grace_period.is_some()),
                (Field::Crash, kind == Field::Unready && d.crash.is_some()),
                (Field::ScaleTo, kind != Field::ScaleTo && d.scale_to.is_some()),
                (Field::Annotate, kind != Field::Annotate && d.annotate.is_some()),
            ];
            if let Some(&(field, _)) = other.iter().find(|(_, written)| *written) {
                return problem(field, Some(i), ServiceRule::BesideUnready { kind, field });
            }
            if replica >= replicas {
                let rule = ServiceRule::UnreadyBeyond {
                    kind,
                    replica,
                    replicas,
                };
                return problem(kind, Some(i), rule);
            }
            continue;
        }
        if d.rollout.is_some() || d.drain.is_some() || d.node_failure.is_some() || d.scale_down_node.is_some()
        {
            continue;
        }
        if d.replica >= replicas {
            let rule = ServiceRule::ReplicaBeyond {
                replica: d.replica,
                replicas,
            };
            return problem(Field::Delete, Some(i), rule);
        }
        if let Some(first) = service.disruptions[..i]
            .iter()
            .position(|e| e.replica == d.replica && e.one_replica().is_none() && e.node_shutdown.is_none())
        {
            let rule = ServiceRule::ReplicaTwice {
                replica: d.replica,
                first,
            };
            return problem(Field::Delete, Some(i), rule);
        }
    }
    Ok(())
}

/// Drains: of nodes that exist, each node once, and not beside a rollout
/// or a delete (the ReplicaSet that replaces evicted Pods would replace
/// deleted ones too, which a delete-only scenario does not).
pub(super) fn check_drains(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    let Some(drain) = service.disruptions.iter().position(|d| d.drain.is_some()) else {
        return Ok(());
    };
    for (i, d) in service.disruptions.iter().enumerate() {
        let Some(node) = d.drain else {
            let other_kind =
                d.node_failure.is_some() || d.node_shutdown.is_some() || d.scale_down_node.is_some();
            if d.one_replica().is_some() || other_kind {
                continue;
            }
            let rollout = d.rollout.is_some();
            let field = if rollout { Field::Rollout } else { Field::Delete };
            return problem(field, Some(i), ServiceRule::BesideDrain { drain, rollout });
        };
        let nodes = service.nodes;
        if node >= nodes {
            return problem(Field::DrainNode, Some(i), ServiceRule::NodeBeyond { node, nodes });
        }
        if let Some(first) = service.disruptions[..i]
            .iter()
            .position(|e| e.drain == Some(node))
        {
            return problem(Field::DrainNode, Some(i), ServiceRule::NodeTwice { node, first });
        }
    }
    Ok(())
}

/// A disruption's `grace_period` and a rollout's `min_ready_seconds` in
/// whole seconds, as the API keeps them (a pod's own are `check_spec`'s).
pub(super) fn check_whole_seconds(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    for (i, d) in service.disruptions.iter().enumerate() {
        let lengths = [
            (Field::GracePeriod, d.grace_period),
            (Field::MinReadySeconds, d.rollout.as_ref().map(|r| r.min_ready)),
            (Field::TolerationSeconds, d.node_failure.map(|f| f.toleration)),
        ];
        for (field, length) in lengths {
            if let Some(length) = length.filter(|l| l.floor_secs() != *l) {
                return problem(field, Some(i), ServiceRule::NotWholeSeconds(field, length));
            }
        }
    }
    Ok(())
}

/// A rollout: one per scenario, no hand deletion beside it, and the
/// fenceposts the API accepts.
pub(super) fn check_rollouts(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    let rollouts: Vec<usize> = (service.disruptions.iter().enumerate())
        .filter(|(_, d)| d.rollout.is_some())
        .map(|(i, _)| i)
        .collect();
    let Some(&first) = rollouts.first() else {
        return Ok(());
    };
    if let Some(&second) = rollouts.get(1) {
        return problem(Field::Rollout, Some(second), ServiceRule::SecondRollout { first });
    }
    if let Some(i) = (service.disruptions.iter())
        .position(|d| d.rollout.is_none() && d.one_replica().is_none() && d.node_shutdown.is_none())
    {
        let rule = ServiceRule::DeleteBesideRollout { rollout: first };
        return problem(Field::Delete, Some(i), rule);
    }
    if let Some(i) = (service.disruptions.iter()).position(|d| d.scale_to.is_some()) {
        let rule = ServiceRule::ScaleBesideRollout { rollout: first };
        return problem(Field::ScaleTo, Some(i), rule);
    }
    let Some(r) = &service.disruptions[first].rollout else {
        return Ok(());
    };
    if r.max_surge.is_zero() && r.max_unavailable.is_zero() {
        return problem(Field::MaxUnavailable, Some(first), ServiceRule::NoPodReplaced);
    }
    if let Scaled::Percent(p) = r.max_unavailable
        && p > 100
    {
        return problem(
            Field::MaxUnavailable,
            Some(first),
            ServiceRule::UnavailableOver100(p),
        );
    }
    Ok(())
}

/// A node shutdown: of a node that exists, its critical share within the whole.
fn check_shutdown(i: usize, d: &Disruption, n: &NodeShutdown, nodes: u32) -> Result<(), ServiceProblem> {
    if let Some(field) = written_beside(d, Field::NodeShutdown) {
        let kind = Field::NodeShutdown;
        return problem(field, Some(i), ServiceRule::BesideUnready { kind, field });
    }
    if n.node >= nodes {
        let rule = ServiceRule::ShutdownBeyond { node: n.node, nodes };
        return problem(Field::NodeShutdown, Some(i), rule);
    }
    // ValidateKubeletConfiguration (pkg/kubelet/apis/config/validation):
    // the list beside a plain setting above 0 is refused.
    if n.by_priority.is_some() {
        let above_0 = |d: Option<SimDuration>| d.is_some_and(|d| d > SimDuration::ZERO);
        let plain = [
            (Field::ShutdownGracePeriod, above_0(n.grace_period)),
            (Field::ShutdownGracePeriodCriticalPods, above_0(n.critical_pods)),
        ];
        if let Some(&(field, _)) = plain.iter().find(|(_, written)| *written) {
            return problem(field, Some(i), ServiceRule::PlainBesideByPriority { field });
        }
    }
    // The kubelet runs its shutdown manager only with a period above 0:
    // "both configuration options ... are set to zero, thus not activating
    // the graceful node shutdown functionality" (kubernetes.io, Node
    // Shutdowns); pkg/kubelet/nodeshutdown's manager test "feature gate
    // enabled; shutdownGracePeriodRequested > 0; enables feature".
    if n.by_priority.is_none() && n.grace_period() == SimDuration::ZERO {
        return problem(Field::ShutdownGracePeriod, Some(i), ServiceRule::ShutdownOff);
    }
    if n.critical_pods() > n.grace_period() {
        let rule = ServiceRule::CriticalOverGrace {
            grace: n.grace_period(),
            critical: n.critical_pods(),
        };
        return problem(Field::ShutdownGracePeriodCriticalPods, Some(i), rule);
    }
    Ok(())
}

/// What `unready` (or `for`), `crash`, `scale_to` and `annotate` (or
/// `deletion_cost`) make of a disruption, for the messages.
pub(crate) fn one_replica_kind(key: Field) -> &'static str {
    match key {
        Field::Crash => "a crash of its app (its Pod stays)",
        Field::ScaleTo => "a scale-down (its ReplicaSet picks the Pods)",
        Field::Annotate | Field::DeletionCost => "an annotation of a Pod's deletion cost",
        Field::NodeShutdown
        | Field::ShutdownGracePeriod
        | Field::ShutdownGracePeriodCriticalPods
        | Field::ShutdownGracePeriodByPodPriority => {
            "a graceful shutdown of a node (its kubelet kills its Pods)"
        }
        Field::ScaleDownNode
        | Field::MaxGracefulTerminationSec
        | Field::MaxPodEvictionTime
        | Field::EvictionRetryTime => {
            "the cluster-autoscaler's scale-down of a node (it evicts the node's Pods)"
        }
        _ => "a readiness failure (its Pod stays)",
    }
}

//! The rules of a Service scenario (`[service]`, `[traffic]`, `[app]`,
//! `[[disruptions]]`, `[pdb]`), checked after reading, whatever wrote the
//! values: a scenario file, a manifest or a grid axis.
//!
//! Invariant: a `RunSpec` with a `service` that passes `check_service` runs
//! without surprises: at least one replica and one node, disruptions that
//! name a replica that exists, one way to say when, no Pod-level deletion
//! competing with them, and at most one rollout, alone, whose fenceposts
//! the API would accept.

use std::fmt;

use crate::engine::SimDuration;
use crate::model::service::{Budget, ClientPreset, Retry, Scaled, ServiceSpec};
use crate::model::{Deletion, RunSpec};
use crate::scenario::key::Field;

use super::work::{OverBudget, check_work};

mod node;
#[cfg(test)]
mod tests;

pub use node::NodeRule;

/// A rule a Service breaks, with what its message needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServiceRule {
    /// `replicas = 0`.
    NoReplica,
    /// `nodes = 0`.
    NoNode,
    /// `[traffic] clients = 0`.
    NoClient,
    /// A Pod-level deletion (`stop_at`, `stop_after_ready`) in a Service
    /// scenario, which deletes its Pods by disruptions.
    PodDeletion(Field),
    /// A disruption's `every` of 0 s.
    EveryZero,
    /// A delete of a replica beyond `replicas`.
    ReplicaBeyond {
        /// The replica written.
        replica: u32,
        /// How many there are.
        replicas: u32,
    },
    /// A replica that an earlier disruption already deletes.
    ReplicaTwice {
        /// The replica written.
        replica: u32,
        /// The disruption that deletes it first.
        first: usize,
    },
    /// A rollout or delete (`rollout`) beside the drain of disruption `drain`.
    BesideDrain {
        /// The first disruption that drains.
        drain: usize,
        /// Whether the other is a rollout (else a kubectl delete).
        rollout: bool,
    },
    /// A drain of a node beyond `nodes`.
    NodeBeyond {
        /// The node written.
        node: u32,
        /// How many there are.
        nodes: u32,
    },
    /// A node that an earlier disruption already drains.
    NodeTwice {
        /// The node written.
        node: u32,
        /// The disruption that drains it first.
        first: usize,
    },
    /// A second rollout, beside the one of disruption `first`.
    SecondRollout {
        /// The disruption that is the rollout.
        first: usize,
    },
    /// A kubectl delete beside the rollout of disruption `rollout`.
    DeleteBesideRollout {
        /// The disruption that is the rollout.
        rollout: usize,
    },
    /// `max_surge` and `max_unavailable` both 0.
    NoPodReplaced,
    /// A rollout's `max_unavailable` above 100 %.
    UnavailableOver100(u32),
    /// A budget's percentage above 100 %, on `field`.
    BudgetOver100(Field, u32),
    /// A length the API keeps in whole seconds (`kubectl delete
    /// --grace-period`, `minReadySeconds`) written with a fraction.
    NotWholeSeconds(Field, SimDuration),
    /// A size or traffic over the work estimate's budget (`work`).
    OverBudget(OverBudget),
    /// A key of a delete, a rollout, a drain or another one-replica kind
    /// (`field`) in a disruption that `kind` (`unready` or `crash`) makes
    /// a readiness failure or a crash.
    BesideUnready {
        /// `unready` or `crash`.
        kind: Field,
        /// The other kind's key.
        field: Field,
    },
    /// An `unready` or a `crash` (`kind`) of a replica beyond `replicas`.
    UnreadyBeyond {
        /// `unready` or `crash`.
        kind: Field,
        /// The replica written.
        replica: u32,
        /// How many there are.
        replicas: u32,
    },
    /// `retry = "once"` with a client other than `ideal`, whose retries
    /// are its own keys.
    RetryBesideClient(ClientPreset),
    /// A lost node's rule (`node`).
    LostNode(NodeRule),
    /// A scale-down beside the rollout of disruption `rollout`.
    ScaleBesideRollout {
        /// The disruption that is the rollout.
        rollout: usize,
    },
    /// A node shutdown of a node beyond `nodes`.
    ShutdownBeyond {
        /// The node written.
        node: u32,
        /// How many there are.
        nodes: u32,
    },
    /// shutdownGracePeriodCriticalPods above shutdownGracePeriod (the
    /// kubelet then runs no graceful shutdown: `migrateConfig` returns none).
    CriticalOverGrace {
        /// shutdownGracePeriod.
        grace: SimDuration,
        /// shutdownGracePeriodCriticalPods.
        critical: SimDuration,
    },
}

/// A rule a Service breaks: the field to point at (with the disruption's
/// index for a disruption's field) and which rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceProblem {
    /// The key to point at.
    pub field: Field,
    /// The disruption's index, for a disruption's key.
    pub index: Option<usize>,
    /// What is wrong.
    pub rule: ServiceRule,
}

/// What is wrong, and what would do, in every reader's words; a
/// disruption's problem after its index (`disruption 2: …`).
impl fmt::Display for ServiceProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(i) = self.index {
            write!(f, "disruption {i}: ")?;
        }
        match &self.rule {
            ServiceRule::NoReplica => write!(f, "replicas must be 1 or more"),
            ServiceRule::NoNode => write!(f, "nodes must be 1 or more"),
            ServiceRule::NoClient => write!(f, "clients must be 1 or more"),
            ServiceRule::PodDeletion(field) => write!(
                f,
                "{}: a Service scenario deletes Pods with [[disruptions]] (at or after_ready, delete = <replica>); \
                 remove it from [pod]",
                field.name()
            ),
            ServiceRule::EveryZero => write!(
                f,
                "every must be above 0s: write the time between two deletions, such as \"10m\""
            ),
            ServiceRule::ReplicaBeyond { replica, replicas } => write!(
                f,
                "delete = {replica} is beyond the replicas: with replicas = {replicas}, delete one of 0 to {}",
                replicas - 1
            ),
            ServiceRule::ReplicaTwice { replica, first } => {
                write!(f, "replica {replica} is already deleted by disruption {first}")
            }
            ServiceRule::BesideDrain { drain, rollout } => write!(
                f,
                "a {} beside the drain of disruption {drain}: a scenario with a drain drains nodes only \
                 (one disruption per node); drop one of the two",
                if *rollout { "rollout" } else { "kubectl delete" }
            ),
            ServiceRule::NodeBeyond { node, nodes } => write!(
                f,
                "drain = {node} is beyond the nodes: with nodes = {nodes}, drain one of 0 to {}",
                nodes - 1
            ),
            ServiceRule::NodeTwice { node, first } => {
                write!(f, "node {node} is already drained by disruption {first}")
            }
            ServiceRule::SecondRollout { first } => write!(
                f,
                "disruption {first} is already a rollout, and a scenario has one rollout; sweep the two as \
                 an axis instead"
            ),
            ServiceRule::DeleteBesideRollout { rollout } => write!(
                f,
                "a kubectl delete beside the rollout of disruption {rollout}: with a rollout the Pods are the \
                 Deployment's, whose ReplicaSet would replace the deleted one; drop one of the two"
            ),
            ServiceRule::NoPodReplaced => write!(
                f,
                "max_unavailable may not be 0 when max_surge is 0 (the API refuses it: no Pod could ever be \
                 replaced); make one of them 1 or more"
            ),
            ServiceRule::UnavailableOver100(p) => {
                write!(
                    f,
                    "max_unavailable = \"{p}%\" is above 100%; write \"100%\" at most"
                )
            }
            ServiceRule::NotWholeSeconds(field, length) => {
                let api = match field {
                    Field::GracePeriod => "kubectl delete --grace-period",
                    _ => "the Deployment's minReadySeconds",
                };
                let floor = length.floor_secs();
                write!(
                    f,
                    "{} \"{length}\" is not a whole number of seconds, and the Kubernetes API keeps {api} in \
                     whole seconds; write \"{floor}\" or \"{}\"",
                    field.leaf(),
                    floor + SimDuration::from_secs(1)
                )
            }
            ServiceRule::BudgetOver100(field, p) => write!(
                f,
                "[pdb] {} = \"{p}%\" is above 100%; write \"100%\" at most (the API refuses more)",
                field.leaf()
            ),
            ServiceRule::OverBudget(over) => write!(f, "{over}"),
            ServiceRule::BesideUnready { kind, field } => write!(
                f,
                "{} belongs to {}, and {} makes this disruption {}; write them as two disruptions",
                field.leaf(),
                match field {
                    Field::Unready | Field::Crash | Field::ScaleTo | Field::Annotate => "another kind",
                    _ => "a delete, a rollout or a drain",
                },
                kind.leaf(),
                one_replica_kind(*kind)
            ),
            ServiceRule::UnreadyBeyond {
                kind: Field::ScaleTo,
                replica,
                replicas,
            } => write!(
                f,
                "scale_to = {replica} is not below the replicas: with replicas = {replicas}, scale down to \
                 one of 0 to {}",
                replicas - 1
            ),
            ServiceRule::UnreadyBeyond {
                kind,
                replica,
                replicas,
            } => write!(
                f,
                "{} = {replica} is beyond the replicas: with replicas = {replicas}, name one of 0 to {}",
                kind.leaf(),
                replicas - 1
            ),
            ServiceRule::ShutdownBeyond { node, nodes } => write!(
                f,
                "node_shutdown = {node} is beyond the nodes: with nodes = {nodes}, shut down one of 0 to {}",
                nodes - 1
            ),
            ServiceRule::CriticalOverGrace { grace, critical } => write!(
                f,
                "shutdown_grace_period_critical_pods \"{critical}\" is above shutdown_grace_period \"{grace}\": \
                 the critical Pods' share is part of the whole (the kubelet runs no graceful shutdown then); \
                 write at most \"{grace}\""
            ),
            ServiceRule::ScaleBesideRollout { rollout } => write!(
                f,
                "a scale-down beside the rollout of disruption {rollout}: the Deployment controller would \
                 scale both ReplicaSets in proportion, which podsim does not model; write them in two scenarios"
            ),
            ServiceRule::RetryBesideClient(client) => write!(
                f,
                "retry = \"once\" is the ideal client's; client = \"{}\" retries as its library does: \
                 set connect_retries and reset_retries instead",
                client.name()
            ),
            ServiceRule::LostNode(rule) => write!(f, "{rule}"),
        }
    }
}

fn problem(field: Field, index: Option<usize>, rule: ServiceRule) -> Result<(), ServiceProblem> {
    Err(ServiceProblem { field, index, rule })
}

type Check = fn(&RunSpec, &ServiceSpec) -> Result<(), ServiceProblem>;

/// Every rule of the Service, in the order `check_service` reports them.
const SERVICE_RULES: [Check; 10] = [
    check_sizes,
    check_client,
    check_whole_seconds,
    check_work_estimate,
    check_deletion,
    node::check_node_failures,
    check_drains,
    check_rollouts,
    check_budget,
    check_deletes,
];

/// Checks the Service of `run`, if it has one.
pub fn check_service(run: &RunSpec) -> Result<(), ServiceProblem> {
    let Some(service) = run.service.as_deref() else {
        return Ok(());
    };
    SERVICE_RULES.iter().try_for_each(|check| check(run, service))
}

/// At least one replica, one node and, with traffic, one client.
fn check_sizes(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    if service.replicas == 0 {
        return problem(Field::Replicas, None, ServiceRule::NoReplica);
    }
    if service.nodes == 0 {
        return problem(Field::Nodes, None, ServiceRule::NoNode);
    }
    if let Some(t) = &service.traffic
        && t.clients == 0
    {
        return problem(Field::Clients, None, ServiceRule::NoClient);
    }
    Ok(())
}

/// `retry` belongs to the ideal client: another has retries of its own.
fn check_client(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    match &service.traffic {
        Some(t) if t.retry == Retry::Once && t.client.preset != ClientPreset::Ideal => problem(
            Field::Retry,
            None,
            ServiceRule::RetryBesideClient(t.client.preset),
        ),
        _ => Ok(()),
    }
}

/// Within the work estimate's budgets, pointed at the key that lowers
/// it: the replicas for the size, the rate for the traffic.
fn check_work_estimate(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    match check_work(service) {
        Err(over @ OverBudget::Memory { .. }) => {
            problem(Field::Replicas, None, ServiceRule::OverBudget(over))
        }
        Err(over) => problem(Field::Rate, None, ServiceRule::OverBudget(over)),
        Ok(()) => Ok(()),
    }
}

/// No Pod-level deletion beside the disruptions.
fn check_deletion(run: &RunSpec, _: &ServiceSpec) -> Result<(), ServiceProblem> {
    let deletion = match run.pod.deletion {
        Deletion::Never => None,
        Deletion::At(_) => Some(Field::StopAt),
        Deletion::AfterReady(_) => Some(Field::StopAfterReady),
    };
    match deletion {
        Some(field) => problem(field, None, ServiceRule::PodDeletion(field)),
        None => Ok(()),
    }
}

/// Each kubectl delete: a time between repeats, a replica that exists,
/// each replica once; each unready window and crash: of a replica that exists.
fn check_deletes(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    for (i, d) in service.disruptions.iter().enumerate() {
        if let Some(n) = d.node_shutdown {
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
        if d.rollout.is_some() || d.drain.is_some() || d.node_failure.is_some() {
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
fn check_drains(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    let Some(drain) = service.disruptions.iter().position(|d| d.drain.is_some()) else {
        return Ok(());
    };
    for (i, d) in service.disruptions.iter().enumerate() {
        let Some(node) = d.drain else {
            if d.one_replica().is_some() || d.node_failure.is_some() || d.node_shutdown.is_some() {
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
fn check_whole_seconds(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    for (i, d) in service.disruptions.iter().enumerate() {
        let lengths = [
            (Field::GracePeriod, d.grace_period),
            (Field::MinReadySeconds, d.rollout.as_ref().map(|r| r.min_ready)),
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
fn check_rollouts(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
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

/// What a budget with neither field does (`Budget::Unset`), after its
/// name, the fields named as the input names them: the API takes such a
/// budget, and it blocks every drain.
pub fn neither_budget(min: &str, max: &str) -> String {
    format!(
        "sets neither {min} nor {max}: the disruption controller then allows no disruption (expectedCount 0), \
         so the eviction of every Ready Pod is refused (HTTP 429) and a drain of its node never ends; \
         write {min} or {max}"
    )
}

/// A budget's percentage is at most 100%, on either field, as the API has
/// it (`IsNotMoreThan100Percent` in `ValidatePodDisruptionBudgetSpec`).
fn check_budget(_: &RunSpec, service: &ServiceSpec) -> Result<(), ServiceProblem> {
    let (field, n) = match service.pdb.map(|p| p.budget) {
        Some(Budget::MinAvailable(n)) => (Field::MinAvailable, n),
        Some(Budget::MaxUnavailable(n)) => (Field::PdbMaxUnavailable, n),
        Some(Budget::Unset) | None => return Ok(()),
    };
    match n {
        Scaled::Percent(p) if p > 100 => problem(field, None, ServiceRule::BudgetOver100(field, p)),
        _ => Ok(()),
    }
}

/// A node shutdown: of a node that exists, its critical share within the whole.
fn check_shutdown(
    i: usize,
    d: &crate::model::service::Disruption,
    n: crate::model::service::NodeShutdown,
    nodes: u32,
) -> Result<(), ServiceProblem> {
    let other = [
        (Field::Rollout, d.rollout.is_some()),
        (Field::DrainNode, d.drain.is_some()),
        (Field::Every, d.every.is_some()),
        (Field::GracePeriod, d.grace_period.is_some()),
        (Field::Unready, d.unready.is_some()),
        (Field::Crash, d.crash.is_some()),
        (Field::ScaleTo, d.scale_to.is_some()),
        (Field::Annotate, d.annotate.is_some()),
    ];
    if let Some(&(field, _)) = other.iter().find(|(_, written)| *written) {
        let kind = Field::NodeShutdown;
        return problem(field, Some(i), ServiceRule::BesideUnready { kind, field });
    }
    if n.node >= nodes {
        let rule = ServiceRule::ShutdownBeyond { node: n.node, nodes };
        return problem(Field::NodeShutdown, Some(i), rule);
    }
    if n.critical_pods > n.grace_period {
        let rule = ServiceRule::CriticalOverGrace {
            grace: n.grace_period,
            critical: n.critical_pods,
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
        Field::NodeShutdown | Field::ShutdownGracePeriod | Field::ShutdownGracePeriodCriticalPods => {
            "a graceful shutdown of a node (its kubelet kills its Pods)"
        }
        _ => "a readiness failure (its Pod stays)",
    }
}

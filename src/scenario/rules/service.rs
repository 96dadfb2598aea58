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
use crate::model::service::{Budget, ClientPreset, Disruption, Retry, Scaled, ServiceSpec};
use crate::model::{Deletion, RunSpec};
use crate::scenario::key::Field;

use super::work::{OverBudget, check_work};

mod autoscaler;
mod disruption;
mod node;
#[cfg(test)]
mod tests;
mod written;

pub(crate) use disruption::one_replica_kind;
pub use node::NodeRule;
pub use written::{check_written, named_by};

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
    /// A cluster-autoscaler scale-down's rule (`autoscaler`).
    ScaleDown(autoscaler::ScaleDownRule),
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
    /// A node shutdown with `shutdown_grace_period` 0 and no list: the
    /// kubelet's graceful node shutdown is then off (its manager is
    /// built only for a period above 0), and the machine goes down under
    /// its Pods as a failed one does.
    ShutdownOff,
    /// A node shutdown's plain setting beside the by-priority list: the
    /// kubelet's ValidateKubeletConfiguration refuses the two together.
    PlainBesideByPriority {
        /// The plain key written.
        field: Field,
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
                "delete = {replica} is beyond the replicas: with replicas = {replicas}, delete {}",
                one_of(*replicas)
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
                "drain = {node} is beyond the nodes: with nodes = {nodes}, drain {}",
                one_of(*nodes)
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
                    // core/v1 Toleration.TolerationSeconds is an *int64 of seconds.
                    Field::TolerationSeconds => "a toleration's tolerationSeconds",
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
                "scale_to = {replica} is not below the replicas: with replicas = {replicas}, scale down to {}",
                one_of(*replicas)
            ),
            ServiceRule::UnreadyBeyond {
                kind,
                replica,
                replicas,
            } => write!(
                f,
                "{} = {replica} is beyond the replicas: with replicas = {replicas}, name {}",
                kind.leaf(),
                one_of(*replicas)
            ),
            ServiceRule::ShutdownBeyond { node, nodes } => write!(
                f,
                "node_shutdown = {node} is beyond the nodes: with nodes = {nodes}, shut down {}",
                one_of(*nodes)
            ),
            ServiceRule::CriticalOverGrace { grace, critical } => write!(
                f,
                "shutdown_grace_period_critical_pods \"{critical}\" is above shutdown_grace_period \"{grace}\": \
                 the critical Pods' share is part of the whole (the kubelet runs no graceful shutdown then); \
                 write at most \"{grace}\""
            ),
            ServiceRule::ShutdownOff => write!(
                f,
                "shutdown_grace_period \"0s\" turns the kubelet's graceful node shutdown off, and the machine \
                 then goes down under its Pods as a failed one does; write node_failure = <node> for that, \
                 or a shutdown_grace_period above 0s"
            ),
            ServiceRule::PlainBesideByPriority { field } => write!(
                f,
                "{} and shutdown_grace_period_by_pod_priority are both set: the kubelet refuses \
                 shutdownGracePeriod or shutdownGracePeriodCriticalPods beside shutdownGracePeriodByPodPriority; \
                 keep the list (with a group from 2000000000 for critical Pods), or the two plain settings",
                field.leaf()
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
            ServiceRule::ScaleDown(rule) => write!(f, "{rule}"),
        }
    }
}

/// The first key of another kind written on `d` beside its own kind's
/// `own`: a `[[disruptions]]` entry is one kind, and each kind's check
/// refuses the others' keys by this one list (a delete's `every` and
/// `grace_period` included).
fn written_beside(d: &Disruption, own: Field) -> Option<Field> {
    [
        (Field::Rollout, d.rollout.is_some()),
        (Field::DrainNode, d.drain.is_some()),
        (Field::Every, d.every.is_some()),
        (Field::GracePeriod, d.grace_period.is_some()),
        (Field::Unready, d.unready.is_some()),
        (Field::Crash, d.crash.is_some()),
        (Field::NodeFailure, d.node_failure.is_some()),
        (Field::ScaleTo, d.scale_to.is_some()),
        (Field::Annotate, d.annotate.is_some()),
        (Field::NodeShutdown, d.node_shutdown.is_some()),
        (Field::ScaleDownNode, d.scale_down_node.is_some()),
    ]
    .into_iter()
    .find(|&(field, written)| written && field != own)
    .map(|(field, _)| field)
}

/// The replicas or nodes that exist, of `count` (at least one), as a
/// message offers them: `one of 0 to 2`, or `0` where 0 is the only one.
fn one_of(count: u32) -> String {
    match count {
        1 => "0".into(),
        n => format!("one of 0 to {}", n - 1),
    }
}

fn problem(field: Field, index: Option<usize>, rule: ServiceRule) -> Result<(), ServiceProblem> {
    Err(ServiceProblem { field, index, rule })
}

type Check = fn(&RunSpec, &ServiceSpec) -> Result<(), ServiceProblem>;

/// Every rule of the Service, in the order `check_service` reports them.
const SERVICE_RULES: [Check; 11] = [
    check_sizes,
    check_client,
    disruption::check_whole_seconds,
    check_work_estimate,
    check_deletion,
    autoscaler::check_scale_downs,
    node::check_node_failures,
    disruption::check_drains,
    disruption::check_rollouts,
    check_budget,
    disruption::check_deletes,
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

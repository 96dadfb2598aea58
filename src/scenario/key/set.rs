//! A key of one container, the Pod, the run or the Service, and the one way
//! it is set on a `RunSpec`.

use crate::engine::SimDuration;
use crate::model::{
    ActionKind, ActionTime, Backoff, ContainerKind, Deletion, PodMode, PodSpec, Probe, ProbeOutcome,
    RestartPolicy, RunSpec, Signal,
};

use crate::model::service::{
    Annotate, Arrival, Balance, Budget, ClientPreset, ClusterSpec, Connections, Disruption, EvictionPolicy,
    HopPreset, NodeFailure, NodeShutdown, OnClosed, OnSigterm, Pdb, Preset, Propagation, Provider, ProxyMode,
    Retry, Rollout, ScaleDown, Spot, Strategy, TrafficModel, TrafficSpec, Unready, When,
};

use super::unit::*;
use super::{Field, ProbeField, Scope, service_field};

/// A field of one container, or of the Pod or the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Which setting.
    pub field: Field,
    /// The container's index in `PodSpec::containers`, for container fields.
    pub container: Option<usize>,
}

impl Key {
    /// A Pod or run field.
    pub fn pod(field: Field) -> Key {
        Key {
            field,
            container: None,
        }
    }

    /// A field of container `index`.
    pub fn container(field: Field, index: usize) -> Key {
        Key {
            field,
            container: Some(index),
        }
    }

    /// Sets the field to `value`, which has the field's unit (its axis unit
    /// for a list). The one place a key changes a spec: cheap, because a
    /// sweep calls it for every changed axis of every run (each arm reads
    /// only the part of `value` it needs, and `value` is borrowed, so
    /// setting moves nothing out of an axis and drops nothing).
    pub fn set(self, run: &mut RunSpec, value: &Value) {
        let pod = &mut run.pod;
        let container = self.container.and_then(|i| pod.containers.get_mut(i));
        match (self.field, container) {
            (Field::Horizon, _) => run.horizon = value.millis(),
            (Field::Seed, _) => run.stream.seed = u64::from(value.count()),
            (Field::RestartPolicy, _) => pod.restart_policy = RestartPolicy::ALL[value.word().min(2)],
            (Field::TerminationGracePeriod, _) => pod.termination_grace_period = value.millis(),
            (Field::StopAt, _) => pod.deletion = Deletion::At(value.millis()),
            (Field::StopAfterReady, _) => pod.deletion = Deletion::AfterReady(value.millis()),
            (Field::Mode, _) => pod.mode = PodMode::ALL[value.word().min(1)],
            (Field::BackoffLimit, _) => run.job.backoff_limit = Some(value.count()),
            (Field::BackoffLimitPerIndex, _) => run.job.backoff_limit_per_index = Some(value.count()),
            (
                field @ (Field::ActionAt
                | Field::ActionAfterReady
                | Field::ActionGracePeriod
                | Field::ActionDown),
                _,
            ) => set_action(field, self.container, pod, value.millis()),
            (Field::Kubernetes, _) => {
                if let Value::Version(v) = value {
                    pod.kubernetes = *v;
                }
            }
            (Field::BackoffInitial, _) => pod.backoff.initial = value.millis(),
            (Field::BackoffCap, _) => pod.backoff.cap = value.millis(),
            (Field::BackoffImmediateFirstRestart, _) => pod.backoff.immediate_first_restart = value.flag(),
            (field @ service_field!(), _) => set_service(field, self.container, run, value),
            (_, None) => {}
            (Field::Kind, Some(c)) => c.kind = ContainerKind::ALL[value.word().min(2)],
            (Field::Boot, Some(c)) => c.boot = value.to_dist(),
            (Field::Drain, Some(c)) => c.drain = value.to_drain(),
            (Field::PreStop, Some(c)) => c.pre_stop = Some(value.to_dist()),
            (Field::Fails, Some(c)) => c.fails = value.count(),
            (Field::FailProbability, Some(c)) => c.fail_probability = value.chance(),
            (Field::Proxy, Some(c)) => c.proxy = value.flag(),
            (Field::Run, Some(c)) => c.run = Some(value.to_dist()),
            (Field::ExitCode, Some(c)) => c.exit_code = value.count() as i32,
            (Field::ContainerRestartPolicy, Some(c)) => {
                c.restart_policy = Some(RestartPolicy::ALL[value.word().min(2)])
            }
            (Field::ExitCodeOnSigterm, Some(c)) => c.exit_code_on_sigterm = value.count() as i32,
            (Field::StopSignal, Some(c)) => {
                c.stop_signal = Signal::ALL[value.word().min(Signal::ALL.len() - 1)]
            }
            (Field::DrainsOn, Some(c)) => c.drains_on = Signal::ALL[value.word().min(Signal::ALL.len() - 1)],
            (Field::PostStart, Some(c)) => c.post_start = Some(value.to_post_start()),
            (Field::PostStartFails, Some(c)) => c.post_start_fails = value.flag(),
            (Field::ImagePull, Some(c)) => {
                if let Value::Pulls(pulls) = value {
                    c.image_pull = *pulls;
                }
            }
            (Field::CrashAfter, Some(c)) => match value {
                Value::DistList(list) => c.crash_after.clone_from(list),
                // One duration (an axis): the first attempt crashes then.
                // Reuses the list's allocation run after run.
                other => {
                    c.crash_after.clear();
                    c.crash_after.push(other.to_dist());
                }
            },
            (Field::Probe(kind, field), Some(c)) => {
                let probe = c.probes[kind.index()].get_or_insert_with(Probe::default);
                let ms = value.millis();
                match field {
                    ProbeField::InitialDelay => probe.initial_delay = ms,
                    ProbeField::Period => probe.period = ms,
                    ProbeField::Timeout => probe.timeout = ms,
                    ProbeField::SuccessThreshold => probe.success_threshold = value.count(),
                    ProbeField::FailureThreshold => probe.failure_threshold = value.count(),
                    ProbeField::TerminationGracePeriod => probe.termination_grace_period = Some(ms),
                    ProbeField::Outcome => {
                        probe.outcome = ProbeOutcome::ALL[value.word().min(ProbeOutcome::ALL.len() - 1)]
                    }
                    ProbeField::PassAfter => probe.pass_after = ms,
                    ProbeField::PassUntil => probe.pass_until = Some(ms),
                }
            }
        }
    }
}

/// Sets a field of the Service's scopes, making the `[service]` (and
/// `[traffic]`) it belongs to if need be; `index` is a disruption's.
fn set_service(field: Field, index: Option<usize>, run: &mut RunSpec, value: &Value) {
    let (ms, count, word) = (value.millis(), value.count(), value.word());
    let service = run.service.get_or_insert_with(Default::default);
    if field.scope() == Scope::Traffic {
        let t = service.traffic.get_or_insert_with(TrafficSpec::default);
        match field {
            Field::Rate => {
                if let Value::Rate(r) = value {
                    t.rate = *r;
                }
            }
            Field::Arrival => t.arrival = Arrival::ALL[word.min(1)],
            Field::Connections => t.connections = Some(Connections::ALL[word.min(1)]),
            Field::Pool => t.pool = Some(count),
            Field::Clients => t.clients = count,
            Field::ServiceTime => t.service_time = value.to_dist(),
            Field::Retry => t.retry = Retry::ALL[word.min(1)],
            Field::Duration => t.duration = Some(ms),
            Field::ConnectTimeout => t.connect_timeout = Some(ms),
            Field::Client => t.client.preset = ClientPreset::ALL[word.min(ClientPreset::ALL.len() - 1)],
            Field::OnClosed => t.client.on_closed = Some(OnClosed::ALL[word.min(OnClosed::ALL.len() - 1)]),
            Field::ConnectRetries => t.client.connect_retries = Some(count),
            Field::ResetRetries => t.client.reset_retries = Some(count),
            Field::RetryBackoff => t.client.retry_backoff = Some(ms),
            Field::IdleTimeout => t.client.idle_timeout = Some(ms),
            Field::Timeout => t.client.timeout = Some(ms),
            Field::Idempotent => t.client.idempotent = Some(value.flag()),
            Field::TrafficModel => t.model = TrafficModel::ALL[word.min(TrafficModel::ALL.len() - 1)],
            Field::StatusRetries => t.client.status_retries = Some(count),
            _ => {}
        }
        return;
    }
    if field.scope() == Scope::Hop {
        let hop = service.hop.get_or_insert_with(Default::default);
        match field {
            Field::HopKind => hop.preset = HopPreset::ALL[word.min(HopPreset::ALL.len() - 1)],
            Field::HopPropagation => hop.propagation = Some(propagation(value)),
            Field::HopBalance => hop.balance = Some(Balance::ALL[word.min(Balance::ALL.len() - 1)]),
            Field::HopTries => hop.tries = Some(count),
            Field::HopConnectTimeout => hop.connect_timeout = Some(ms),
            Field::HopHealthInterval => hop.health_interval = Some(ms),
            Field::HopUnhealthyThreshold => hop.unhealthy_threshold = Some(count),
            Field::HopDeregistrationDelay => hop.deregistration_delay = Some(ms),
            Field::HopConnectionTermination => hop.connection_termination = Some(value.flag()),
            Field::HopConsecutive5xx => hop.consecutive_5xx = Some(count),
            Field::HopBaseEjectionTime => hop.base_ejection_time = Some(ms),
            _ => {}
        }
        return;
    }
    if field.scope() == Scope::Pdb {
        let pdb = service.pdb.get_or_insert_with(Pdb::default);
        match (field, value) {
            (Field::MinAvailable, Value::Scaled(n)) => pdb.budget = Budget::MinAvailable(*n),
            (Field::PdbMaxUnavailable, Value::Scaled(n)) => pdb.budget = Budget::MaxUnavailable(*n),
            (Field::UnhealthyPodEvictionPolicy, _) => {
                pdb.unhealthy_pod_eviction_policy = EvictionPolicy::ALL[word.min(1)]
            }
            _ => {}
        }
        return;
    }
    if field.scope() == Scope::Cluster {
        let c = service.cluster.get_or_insert_with(ClusterSpec::default);
        match field {
            Field::ClusterServices => c.services = count,
            Field::ClusterEndpoints => c.endpoints = count,
            Field::Churn => {
                if let Value::Rate(r) = value {
                    c.churn = Some(*r);
                }
            }
            Field::Rolling => c.rolling = count,
            Field::Stagger => c.stagger = ms,
            Field::ProxyMode => c.mode = ProxyMode::ALL[word.min(ProxyMode::ALL.len() - 1)],
            Field::SyncTime => c.sync_time = Some(ms),
            Field::LineCost => c.line_cost = ms,
            Field::FullSync => c.full_sync = Some(ms),
            _ => {}
        }
        return;
    }
    if field.scope() == Scope::Disruption {
        let Some(d) = index.and_then(|i| service.disruptions.get_mut(i)) else {
            return;
        };
        match field {
            Field::At => d.when = When::At(ms),
            Field::AfterReady => d.when = When::AfterReady(ms),
            Field::Delete => d.replica = count,
            Field::GracePeriod => d.grace_period = Some(ms),
            Field::Every => d.every = Some(ms),
            // A rollout's key makes the disruption a rollout.
            Field::Rollout => {
                d.rollout.get_or_insert_with(Rollout::default).strategy = Strategy::ALL[word.min(1)]
            }
            Field::MaxSurge | Field::MaxUnavailable => {
                if let Value::Scaled(n) = value {
                    let rollout = d.rollout.get_or_insert_with(Rollout::default);
                    match field {
                        Field::MaxSurge => rollout.max_surge = *n,
                        _ => rollout.max_unavailable = *n,
                    }
                }
            }
            Field::MinReadySeconds => d.rollout.get_or_insert_with(Rollout::default).min_ready = ms,
            Field::DrainNode => d.drain = Some(count),
            // Either key makes the disruption a readiness failure.
            Field::Unready => d.unready.get_or_insert_with(Unready::default).replica = count,
            Field::UnreadyFor => d.unready.get_or_insert_with(Unready::default).lasts = ms,
            Field::Crash => d.crash = Some(count),
            // Either kind's node makes the disruption a lost node; the
            // other keys tune it.
            Field::NodeFailure => node(d).node = count,
            Field::SpotReclaim => {
                let f = node(d);
                f.node = count;
                f.spot.get_or_insert_with(Spot::default);
            }
            Field::Partition => node(d).partition = value.flag(),
            Field::NodeMonitorGracePeriod => node(d).grace = Some(ms),
            Field::TolerationSeconds => node(d).toleration = ms,
            Field::Provider => {
                node(d).spot.get_or_insert_with(Spot::default).provider =
                    Provider::ALL[word.min(Provider::ALL.len() - 1)]
            }
            Field::Notice => node(d).spot.get_or_insert_with(Spot::default).notice = Some(ms),
            Field::LeaseRenewInterval => node(d).renew_interval = ms,
            Field::NodeMonitorPeriod => node(d).monitor_period = ms,
            Field::LeaseAge => node(d).lease_age = Some(ms),
            Field::MonitorLag => node(d).monitor_lag = Some(ms),
            Field::NodeDeleted => node(d).node_deleted = Some(value.flag()),
            Field::OutOfService => node(d).out_of_service = Some(ms),
            Field::ScaleTo => d.scale_to = Some(count),
            // Either key makes the disruption an annotation.
            Field::Annotate => d.annotate.get_or_insert_with(Annotate::default).replica = count,
            Field::DeletionCost => d.annotate.get_or_insert_with(Annotate::default).deletion_cost = count,
            // Any of the four makes the disruption a node shutdown.
            Field::NodeShutdown => d.node_shutdown.get_or_insert_with(NodeShutdown::default).node = count,
            Field::ShutdownGracePeriod => {
                d.node_shutdown
                    .get_or_insert_with(NodeShutdown::default)
                    .grace_period = Some(ms)
            }
            Field::ShutdownGracePeriodCriticalPods => {
                d.node_shutdown
                    .get_or_insert_with(NodeShutdown::default)
                    .critical_pods = Some(ms)
            }
            Field::ShutdownGracePeriodByPodPriority => {
                d.node_shutdown
                    .get_or_insert_with(NodeShutdown::default)
                    .by_priority = Some(value.priority_groups())
            }
            // Any of the four makes the disruption an autoscaler's scale-down.
            Field::ScaleDownNode => d.scale_down_node.get_or_insert_with(ScaleDown::default).node = count,
            Field::MaxGracefulTerminationSec => {
                (d.scale_down_node.get_or_insert_with(ScaleDown::default)).max_graceful_termination = ms
            }
            Field::MaxPodEvictionTime => {
                (d.scale_down_node.get_or_insert_with(ScaleDown::default)).max_pod_eviction_time = ms
            }
            Field::EvictionRetryTime => {
                (d.scale_down_node.get_or_insert_with(ScaleDown::default)).eviction_retry_time = ms
            }
            _ => {}
        }
        return;
    }
    match field {
        Field::Replicas => service.replicas = count,
        Field::Nodes => service.nodes = count,
        Field::Propagation => service.propagation = propagation(value),
        Field::KubeletDelay => service.kubelet_delay = ms,
        Field::MinSyncPeriod => service.min_sync_period = ms,
        Field::Cleanup => service.cleanup = ms,
        Field::PodPriority => service.pod_priority = count,
        Field::OnSigterm => service.app.on_sigterm = OnSigterm::ALL[word.min(4)],
        Field::DrainDelay => service.app.drain_delay = ms,
        _ => {}
    }
}

/// The lost node disruption `d` states, made one if it was not.
fn node(d: &mut Disruption) -> &mut NodeFailure {
    d.node_failure.get_or_insert_with(|| NodeFailure::of(0))
}

/// A propagation key's value: a named preset, or any duration or distribution.
fn propagation(value: &Value) -> Propagation {
    match value {
        Value::Preset(i) => Propagation::Preset(Preset::ALL[(*i).min(Preset::ALL.len() - 1)]),
        other => Propagation::Custom(other.to_dist()),
    }
}

/// Sets a field of action `index`: its time, a delete's grace, or a
/// reboot's down time.
fn set_action(field: Field, index: Option<usize>, pod: &mut PodSpec, ms: SimDuration) {
    let Some(action) = index.and_then(|i| pod.actions.get_mut(i)) else {
        return;
    };
    match (field, &mut action.kind) {
        (Field::ActionAt, _) => action.when = ActionTime::At(ms),
        (Field::ActionAfterReady, _) => action.when = ActionTime::AfterReady(ms),
        (Field::ActionGracePeriod, ActionKind::Delete { grace_period }) => *grace_period = Some(ms),
        (Field::ActionDown, ActionKind::NodeReboot { down }) => *down = ms,
        _ => {}
    }
}

/// The Kubernetes default cap, which versions before 1.32 cannot change.
pub fn default_backoff_cap() -> SimDuration {
    Backoff::default().cap
}

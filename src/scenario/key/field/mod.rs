//! Every key a scenario may set: its name, scope, group, unit, meaning,
//! and the manifest field that owns it when a manifest has one.
//!
//! This file lists the keys (`Field`, `Field::ALL`) and their groups; the
//! name of each is in `leaf`, its table in `scope`, how a value is written
//! in `value`, what a key means to a reader in `doc`, when the Pod model
//! reads it in `reads`, so adding a key touches one arm in each (and a
//! disruption's key its kind's arm in `disruption`).

mod disruption;
mod doc;
mod leaf;
mod reads;
mod scope;
mod service;
mod value;

pub use disruption::DisruptionKind;
pub use reads::WhenRead;
pub(crate) use service::service_field;

use crate::model::ProbeKind;

use super::{Group, ProbeField, Scope};

/// One setting of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `horizon`: how long a run may last at most.
    Horizon,
    /// `seed`: the seed of the run's random draws.
    Seed,
    /// `[pod] restart_policy`: Always, OnFailure or Never.
    RestartPolicy,
    /// `[pod] termination_grace_period`: the SIGKILL deadline after deletion.
    TerminationGracePeriod,
    /// `[pod] stop_at`: when the Pod is deleted.
    StopAt,
    /// `[pod] stop_after_ready`: the Pod is deleted this long after it is Ready.
    StopAfterReady,
    /// `[pod] mode`: a Pod that serves until deleted, or a Job's Pod that completes.
    Mode,
    /// `[pod] kubernetes`: the version whose kubelet rules apply.
    Kubernetes,
    /// `backoff.initial`: the first CrashLoopBackOff delay.
    BackoffInitial,
    /// `backoff.cap`: the longest CrashLoopBackOff delay.
    BackoffCap,
    /// `backoff.immediate_first_restart`: the first restart has no delay (1.35+).
    BackoffImmediateFirstRestart,
    /// `kind`: init, sidecar or app.
    Kind,
    /// `boot`: from the container's start to its process being up.
    Boot,
    /// `drain`: from SIGTERM to the process exiting by itself.
    Drain,
    /// `pre_stop`: the preStop hook's duration, before SIGTERM.
    PreStop,
    /// `fails`: the first attempts that exit 1 at the end of boot.
    Fails,
    /// `fail_probability`: each attempt after the scripted `fails` fails with this probability.
    FailProbability,
    /// `proxy`: the app's traffic goes through this container.
    Proxy,
    /// `crash_after`: each attempt's running time before it crashes.
    CrashAfter,
    /// `run`: an app's running time before it exits by itself.
    Run,
    /// `exit_code`: the code an app exits with after `run`.
    ExitCode,
    /// A field of one of the container's probes.
    Probe(ProbeKind, ProbeField),
    /// `exit_code_on_sigterm`: the code the container exits with after SIGTERM (R54).
    ExitCodeOnSigterm,
    /// `[service] replicas`: Pods behind the Service.
    Replicas,
    /// `[service] nodes`: nodes the replicas and clients are spread over.
    Nodes,
    /// `[service] propagation`: endpoint change to a node's sync request.
    Propagation,
    /// `[service] kubelet_delay`: deletion to the kubelet's first step.
    KubeletDelay,
    /// `[service] min_sync_period`: kube-proxy's least time between syncs.
    MinSyncPeriod,
    /// `[service] cleanup`: last container exit to the Pod object gone.
    Cleanup,
    /// `[service] pod_priority`: the replicas' resolved `spec.priority`.
    PodPriority,
    /// `[traffic] rate`: requests per second to the Service.
    Rate,
    /// `[traffic] arrival`: poisson or constant.
    Arrival,
    /// `[traffic] connections`: new or keep-alive.
    Connections,
    /// `[traffic] pool`: keep-alive connections per client.
    Pool,
    /// `[traffic] clients`: how many clients send.
    Clients,
    /// `[traffic] service_time`: how long the app takes to answer.
    ServiceTime,
    /// `[traffic] retry`: none or once.
    Retry,
    /// `[traffic] duration`: how long traffic runs.
    Duration,
    /// `[traffic] connect_timeout`: a connect to a gone Pod gives up after this.
    ConnectTimeout,
    /// `[traffic] client`: the client library's preset profile.
    Client,
    /// `[traffic] on_closed`: what the client does with a pooled connection its server closed.
    OnClosed,
    /// `[traffic] connect_retries`: tries sent again after a failed connect.
    ConnectRetries,
    /// `[traffic] reset_retries`: tries sent again after a reused connection's reset.
    ResetRetries,
    /// `[traffic] retry_backoff`: the wait before the first retry.
    RetryBackoff,
    /// `[traffic] model`: per-request, counting or auto (issue 41).
    TrafficModel,
    /// `[traffic] idle_timeout`: the client closes an idle pooled connection after this.
    IdleTimeout,
    /// `[traffic] timeout`: the client's own timeout per try.
    Timeout,
    /// `[traffic] idempotent`: the requests may be sent twice.
    Idempotent,
    /// `[app] on_sigterm`: the app's reaction to SIGTERM.
    OnSigterm,
    /// `[app] drain_delay`: delay-then-drain's delay.
    DrainDelay,
    /// `[[disruptions]] at`: when the delete is sent.
    At,
    /// `[[disruptions]] after_ready`: the delete this long after every replica is Ready.
    AfterReady,
    /// `[[disruptions]] delete`: the replica deleted.
    Delete,
    /// `[[disruptions]] grace_period`: kubectl delete --grace-period.
    GracePeriod,
    /// `[[disruptions]] every`: repeat, deleting the next replica each time.
    Every,
    /// `[[disruptions]] rollout`: the Deployment's strategy, RollingUpdate or Recreate.
    Rollout,
    /// `[[disruptions]] max_surge`: Pods above the replicas during a RollingUpdate.
    MaxSurge,
    /// `[[disruptions]] max_unavailable`: Pods below the replicas during a RollingUpdate.
    MaxUnavailable,
    /// `[[disruptions]] min_ready_seconds`: Ready this long before a Pod is available.
    MinReadySeconds,
    /// `[[disruptions]] drain`: kubectl drain of this node.
    DrainNode,
    /// `[[disruptions]] unready`: this replica's readiness fails for a while.
    Unready,
    /// `[[disruptions]] for`: how long the replica stays unready.
    UnreadyFor,
    /// `[[disruptions]] crash`: this replica's serving app crashes.
    Crash,
    /// `[[disruptions]] node_failure`: this node fails.
    NodeFailure,
    /// `[[disruptions]] partition`: the failed node is partitioned, not off.
    Partition,
    /// `[[disruptions]] node_monitor_grace_period`: failure → NotReady.
    NodeMonitorGracePeriod,
    /// `[[disruptions]] toleration_seconds`: NotReady → the Pods evicted.
    TolerationSeconds,
    /// `[[disruptions]] spot_reclaim`: this spot node is taken back.
    SpotReclaim,
    /// `[[disruptions]] provider`: whose spot notice.
    Provider,
    /// `[[disruptions]] notice`: the spot notice, instead of the provider's.
    Notice,
    /// `[[disruptions]] lease_renew_interval`: how often the kubelet renews its Lease.
    LeaseRenewInterval,
    /// `[[disruptions]] node_monitor_period`: how often the node controller checks.
    NodeMonitorPeriod,
    /// `[[disruptions]] lease_age`: the Lease's age when the node fails.
    LeaseAge,
    /// `[[disruptions]] monitor_lag`: that renewal → the check that saw it.
    MonitorLag,
    /// `[[disruptions]] node_deleted`: the lost node's Node object is deleted.
    NodeDeleted,
    /// `[[disruptions]] out_of_service`: failure → an operator's out-of-service taint.
    OutOfService,
    /// `[[disruptions]] scale_to`: the Deployment is scaled to this many replicas.
    ScaleTo,
    /// `[[disruptions]] annotate`: this replica's Pod gets a deletion cost.
    Annotate,
    /// `[[disruptions]] deletion_cost`: the cost `annotate` gives.
    DeletionCost,
    /// `[[disruptions]] node_shutdown`: this node shuts down gracefully.
    NodeShutdown,
    /// `[[disruptions]] shutdown_grace_period`: the kubelet's shutdownGracePeriod.
    ShutdownGracePeriod,
    /// `[[disruptions]] shutdown_grace_period_critical_pods`: its critical share.
    ShutdownGracePeriodCriticalPods,
    /// `[[disruptions]] shutdown_grace_period_by_pod_priority`: the
    /// kubelet's shutdownGracePeriodByPodPriority, instead of the two.
    ShutdownGracePeriodByPodPriority,
    /// `[[disruptions]] scale_down_node`: the cluster-autoscaler removes this node.
    ScaleDownNode,
    /// `[[disruptions]] max_graceful_termination_sec`: the autoscaler's grace cap.
    MaxGracefulTerminationSec,
    /// `[[disruptions]] max_pod_eviction_time`: how long it asks a refused eviction again.
    MaxPodEvictionTime,
    /// `[[disruptions]] eviction_retry_time`: its wait after a refused eviction.
    EvictionRetryTime,
    /// `[pdb] min_available`: Pods that must stay healthy.
    MinAvailable,
    /// `[pdb] max_unavailable`: Pods that may be unhealthy.
    PdbMaxUnavailable,
    /// `[pdb] unhealthy_pod_eviction_policy`: IfHealthyBudget or AlwaysAllow.
    UnhealthyPodEvictionPolicy,
    /// A container's own `restart_policy` (KEP-5307), overriding the Pod's.
    ContainerRestartPolicy,
    /// `stop_signal`: the signal the runtime stops the container with (KEP-4960, R59).
    StopSignal,
    /// `drains_on`: the signal the container's process handles by draining (R59).
    DrainsOn,
    /// `[job] backoff_limit`: counted Pod failures the Job tolerates.
    BackoffLimit,
    /// `[job] backoff_limit_per_index`: the same, for the one index of an Indexed Job.
    BackoffLimitPerIndex,
    /// `post_start`: the postStart hook's duration (R65).
    PostStart,
    /// `post_start_fails`: the postStart hook fails (R66).
    PostStartFails,
    /// `image_pull`: failed image pulls before one succeeds, or `"fails"` (R67).
    ImagePull,
    /// `[[actions]] at`: when the action reaches the kubelet.
    ActionAt,
    /// `[[actions]] after_ready`: the action this long after the Pod is first Ready.
    ActionAfterReady,
    /// `[[actions]] grace_period`: a delete's `--grace-period` (R70).
    ActionGracePeriod,
    /// `[[actions]] down`: how long a rebooted node is gone (R76).
    ActionDown,
    /// `[traffic] status_retries`: tries sent again after a hop's error answer.
    StatusRetries,
    /// `[hop] preset`: the hop's preset (not `kind`: an annotation
    /// `hop.kind` would name a container's key).
    HopKind,
    /// `[hop] propagation`: endpoint change to the hop's view.
    HopPropagation,
    /// `[hop] balance`: how the hop picks a Pod.
    HopBalance,
    /// `[hop] tries`: tries of one request at the hop.
    HopTries,
    /// `[hop] connect_timeout`: the hop's connect to a gone Pod gives up after this.
    HopConnectTimeout,
    /// `[hop] health_interval`: time between two health checks of a target.
    HopHealthInterval,
    /// `[hop] unhealthy_threshold`: failed checks that take a target out.
    HopUnhealthyThreshold,
    /// `[hop] deregistration_delay`: a target out of rotation drains this long.
    HopDeregistrationDelay,
    /// `[hop] connection_termination`: the drained target's connections are reset.
    HopConnectionTermination,
    /// `[hop] consecutive_5xx`: failed tries in a row that eject an upstream.
    HopConsecutive5xx,
    /// `[hop] base_ejection_time`: an upstream's first ejection lasts this long.
    HopBaseEjectionTime,
    /// `[cluster] services`: other Services every node's kube-proxy syncs too.
    ClusterServices,
    /// `[cluster] endpoints`: endpoints of each other Service.
    ClusterEndpoints,
    /// `[cluster] churn`: their endpoint changes per second.
    Churn,
    /// `[cluster] rolling`: other Deployments whose endpoints change whenever ours do.
    Rolling,
    /// `[cluster] stagger`: the k-th rolling Deployment changes k × this after ours.
    Stagger,
    /// `[cluster] proxy_mode`: iptables, iptables-full, nftables or ipvs.
    ProxyMode,
    /// `[cluster] sync_time`: every sync takes this long (overrides the lines).
    SyncTime,
    /// `[cluster] line_cost`: the time 1,000 lines of rules take to write.
    LineCost,
    /// `[cluster] full_sync`: when every node's hourly full resync falls.
    FullSync,
}

impl Field {
    /// Every field, in the order the key reference (docs/keys.md) lists them.
    pub const ALL: [Field; 149] = {
        use ProbeField as P;
        use ProbeKind::{Liveness as L, Readiness as R, Startup as S};
        [
            Field::Horizon,
            Field::Seed,
            Field::RestartPolicy,
            Field::TerminationGracePeriod,
            Field::StopAt,
            Field::StopAfterReady,
            Field::BackoffInitial,
            Field::BackoffCap,
            Field::BackoffImmediateFirstRestart,
            Field::Mode,
            Field::Kubernetes,
            Field::Kind,
            Field::Boot,
            Field::Drain,
            Field::PreStop,
            Field::Fails,
            Field::FailProbability,
            Field::Proxy,
            Field::CrashAfter,
            Field::Run,
            Field::ExitCode,
            Field::ContainerRestartPolicy,
            Field::Probe(S, P::InitialDelay),
            Field::Probe(S, P::Period),
            Field::Probe(S, P::Timeout),
            Field::Probe(S, P::SuccessThreshold),
            Field::Probe(S, P::FailureThreshold),
            Field::Probe(S, P::TerminationGracePeriod),
            Field::Probe(R, P::InitialDelay),
            Field::Probe(R, P::Period),
            Field::Probe(R, P::Timeout),
            Field::Probe(R, P::SuccessThreshold),
            Field::Probe(R, P::FailureThreshold),
            Field::Probe(R, P::TerminationGracePeriod),
            Field::Probe(L, P::InitialDelay),
            Field::Probe(L, P::Period),
            Field::Probe(L, P::Timeout),
            Field::Probe(L, P::SuccessThreshold),
            Field::Probe(L, P::FailureThreshold),
            Field::Probe(L, P::TerminationGracePeriod),
            Field::Replicas,
            Field::Nodes,
            Field::Propagation,
            Field::KubeletDelay,
            Field::MinSyncPeriod,
            Field::Cleanup,
            Field::PodPriority,
            Field::Rate,
            Field::Arrival,
            Field::Connections,
            Field::Pool,
            Field::Clients,
            Field::ServiceTime,
            Field::Retry,
            Field::Duration,
            Field::ConnectTimeout,
            Field::Client,
            Field::OnClosed,
            Field::ConnectRetries,
            Field::ResetRetries,
            Field::RetryBackoff,
            Field::IdleTimeout,
            Field::Timeout,
            Field::Idempotent,
            Field::TrafficModel,
            Field::OnSigterm,
            Field::DrainDelay,
            Field::At,
            Field::AfterReady,
            Field::Delete,
            Field::GracePeriod,
            Field::Every,
            Field::Rollout,
            Field::MaxSurge,
            Field::MaxUnavailable,
            Field::MinReadySeconds,
            Field::DrainNode,
            Field::Unready,
            Field::UnreadyFor,
            Field::Crash,
            Field::NodeFailure,
            Field::Partition,
            Field::NodeMonitorGracePeriod,
            Field::TolerationSeconds,
            Field::SpotReclaim,
            Field::Provider,
            Field::Notice,
            Field::LeaseRenewInterval,
            Field::NodeMonitorPeriod,
            Field::LeaseAge,
            Field::MonitorLag,
            Field::NodeDeleted,
            Field::OutOfService,
            Field::ScaleTo,
            Field::Annotate,
            Field::DeletionCost,
            Field::NodeShutdown,
            Field::ShutdownGracePeriod,
            Field::ShutdownGracePeriodCriticalPods,
            Field::ShutdownGracePeriodByPodPriority,
            Field::ScaleDownNode,
            Field::MaxGracefulTerminationSec,
            Field::MaxPodEvictionTime,
            Field::EvictionRetryTime,
            Field::MinAvailable,
            Field::PdbMaxUnavailable,
            Field::UnhealthyPodEvictionPolicy,
            Field::BackoffLimit,
            Field::BackoffLimitPerIndex,
            Field::Probe(S, P::Outcome),
            Field::Probe(S, P::PassAfter),
            Field::Probe(S, P::PassUntil),
            Field::Probe(R, P::Outcome),
            Field::Probe(R, P::PassAfter),
            Field::Probe(R, P::PassUntil),
            Field::Probe(L, P::Outcome),
            Field::Probe(L, P::PassAfter),
            Field::Probe(L, P::PassUntil),
            Field::ExitCodeOnSigterm,
            Field::StopSignal,
            Field::DrainsOn,
            Field::PostStart,
            Field::PostStartFails,
            Field::ImagePull,
            Field::ActionAt,
            Field::ActionAfterReady,
            Field::ActionGracePeriod,
            Field::ActionDown,
            Field::StatusRetries,
            Field::HopKind,
            Field::HopPropagation,
            Field::HopBalance,
            Field::HopTries,
            Field::HopConnectTimeout,
            Field::HopHealthInterval,
            Field::HopUnhealthyThreshold,
            Field::HopDeregistrationDelay,
            Field::HopConnectionTermination,
            Field::HopConsecutive5xx,
            Field::HopBaseEjectionTime,
            Field::ClusterServices,
            Field::ClusterEndpoints,
            Field::Churn,
            Field::Rolling,
            Field::Stagger,
            Field::ProxyMode,
            Field::SyncTime,
            Field::LineCost,
            Field::FullSync,
        ]
    };

    /// The group the field sits in, if any.
    pub fn group(self) -> Option<Group> {
        match self {
            Field::BackoffInitial | Field::BackoffCap | Field::BackoffImmediateFirstRestart => {
                Some(Group::Backoff)
            }
            Field::Probe(kind, _) => Some(Group::Probe(kind)),
            _ => None,
        }
    }

    /// The key within its scope's table: `boot`, `backoff.cap`,
    /// `startup_probe.period`.
    pub fn name(self) -> String {
        match self.group() {
            Some(group) => format!("{}.{}", group.name(), self.leaf()),
            None => self.leaf().to_string(),
        }
    }

    /// The field named `name` (as `Field::name` spells it) in `scope`.
    pub fn find(scope: Scope, name: &str) -> Option<Field> {
        Field::ALL
            .into_iter()
            .find(|f| f.scope() == scope && f.name() == name)
    }
    /// The scope's keys for suggestions and messages: its fields outside
    /// groups, then each group's name.
    pub fn names(scope: Scope) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Field::ALL
            .iter()
            .filter(|f| f.scope() == scope && f.group().is_none())
            .map(|f| f.leaf())
            .collect();
        names.extend(Group::ALL.iter().filter(|g| g.scope() == scope).map(|g| g.name()));
        names
    }

    /// The keys of a group's table.
    pub fn names_in(group: Group) -> Vec<&'static str> {
        Field::ALL
            .iter()
            .filter(|f| f.group() == Some(group))
            .map(|f| f.leaf())
            .collect()
    }
}

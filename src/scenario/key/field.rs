//! Every key a scenario may set: its name, scope, group, unit, meaning,
//! and the manifest field that owns it when a manifest has one.

use crate::model::{ContainerKind, ProbeKind, ProbeOutcome, RestartPolicy, Signal};

use crate::model::service::{Arrival, Connections, EvictionPolicy, OnSigterm, Retry, Strategy};

use super::unit::*;
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
}

impl Field {
    /// Every field, in the order the README's tables list them.
    pub const ALL: [Field; 91] = {
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
            Field::Rate,
            Field::Arrival,
            Field::Connections,
            Field::Pool,
            Field::Clients,
            Field::ServiceTime,
            Field::Retry,
            Field::Duration,
            Field::ConnectTimeout,
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
        ]
    };

    /// Whether the field belongs to the run, the Pod or a container.
    pub fn scope(self) -> Scope {
        match self {
            Field::Horizon | Field::Seed => Scope::Run,
            Field::RestartPolicy
            | Field::TerminationGracePeriod
            | Field::StopAt
            | Field::StopAfterReady
            | Field::Mode
            | Field::Kubernetes
            | Field::BackoffInitial
            | Field::BackoffCap
            | Field::BackoffImmediateFirstRestart => Scope::Pod,
            Field::Kind
            | Field::Boot
            | Field::Drain
            | Field::PreStop
            | Field::Fails
            | Field::FailProbability
            | Field::Proxy
            | Field::CrashAfter
            | Field::Run
            | Field::ExitCode
            | Field::ContainerRestartPolicy
            | Field::ExitCodeOnSigterm
            | Field::StopSignal
            | Field::DrainsOn
            | Field::PostStart
            | Field::PostStartFails
            | Field::ImagePull
            | Field::Probe(..) => Scope::Container,
            Field::Replicas
            | Field::Nodes
            | Field::Propagation
            | Field::KubeletDelay
            | Field::MinSyncPeriod
            | Field::Cleanup => Scope::Service,
            Field::Rate
            | Field::Arrival
            | Field::Connections
            | Field::Pool
            | Field::Clients
            | Field::ServiceTime
            | Field::Retry
            | Field::Duration
            | Field::ConnectTimeout => Scope::Traffic,
            Field::OnSigterm | Field::DrainDelay => Scope::App,
            Field::At
            | Field::AfterReady
            | Field::Delete
            | Field::GracePeriod
            | Field::Every
            | Field::Rollout
            | Field::MaxSurge
            | Field::MaxUnavailable
            | Field::MinReadySeconds
            | Field::DrainNode => Scope::Disruption,
            Field::MinAvailable | Field::PdbMaxUnavailable | Field::UnhealthyPodEvictionPolicy => Scope::Pdb,
            Field::BackoffLimit | Field::BackoffLimitPerIndex => Scope::Job,
            Field::ActionAt | Field::ActionAfterReady | Field::ActionGracePeriod | Field::ActionDown => {
                Scope::Action
            }
        }
    }

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

    /// The key within its group's table, or within its scope's table.
    pub fn leaf(self) -> &'static str {
        match self {
            Field::Horizon => "horizon",
            Field::Seed => "seed",
            Field::RestartPolicy => "restart_policy",
            Field::TerminationGracePeriod => "termination_grace_period",
            Field::StopAt => "stop_at",
            Field::StopAfterReady => "stop_after_ready",
            Field::Mode => "mode",
            Field::Kubernetes => "kubernetes",
            Field::BackoffInitial => "initial",
            Field::BackoffCap => "cap",
            Field::BackoffImmediateFirstRestart => "immediate_first_restart",
            Field::Kind => "kind",
            Field::Boot => "boot",
            Field::Drain => "drain",
            Field::PreStop => "pre_stop",
            Field::Fails => "fails",
            Field::FailProbability => "fail_probability",
            Field::Proxy => "proxy",
            Field::CrashAfter => "crash_after",
            Field::Run => "run",
            Field::ExitCode => "exit_code",
            Field::ContainerRestartPolicy => "restart_policy",
            Field::ExitCodeOnSigterm => "exit_code_on_sigterm",
            Field::StopSignal => "stop_signal",
            Field::DrainsOn => "drains_on",
            Field::PostStart => "post_start",
            Field::PostStartFails => "post_start_fails",
            Field::ImagePull => "image_pull",
            Field::Probe(_, field) => field.name(),
            Field::Replicas => "replicas",
            Field::Nodes => "nodes",
            Field::Propagation => "propagation",
            Field::KubeletDelay => "kubelet_delay",
            Field::MinSyncPeriod => "min_sync_period",
            Field::Cleanup => "cleanup",
            Field::Rate => "rate",
            Field::Arrival => "arrival",
            Field::Connections => "connections",
            Field::Pool => "pool",
            Field::Clients => "clients",
            Field::ServiceTime => "service_time",
            Field::Retry => "retry",
            Field::Duration => "duration",
            Field::ConnectTimeout => "connect_timeout",
            Field::OnSigterm => "on_sigterm",
            Field::DrainDelay => "drain_delay",
            Field::At => "at",
            Field::AfterReady => "after_ready",
            Field::Delete => "delete",
            Field::GracePeriod => "grace_period",
            Field::Every => "every",
            Field::Rollout => "rollout",
            Field::MaxSurge => "max_surge",
            Field::MaxUnavailable => "max_unavailable",
            Field::MinReadySeconds => "min_ready_seconds",
            Field::DrainNode => "drain",
            Field::MinAvailable => "min_available",
            Field::PdbMaxUnavailable => "max_unavailable",
            Field::UnhealthyPodEvictionPolicy => "unhealthy_pod_eviction_policy",
            Field::BackoffLimit => "backoff_limit",
            Field::BackoffLimitPerIndex => "backoff_limit_per_index",
            Field::ActionAt => "at",
            Field::ActionAfterReady => "after_ready",
            Field::ActionGracePeriod => "grace_period",
            Field::ActionDown => "down",
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

    /// How the field's value is written and read.
    pub fn unit(self) -> Unit {
        match self {
            Field::Horizon
            | Field::TerminationGracePeriod
            | Field::StopAt
            | Field::StopAfterReady
            | Field::BackoffInitial
            | Field::BackoffCap
            | Field::KubeletDelay
            | Field::MinSyncPeriod
            | Field::Cleanup
            | Field::Duration
            | Field::ConnectTimeout
            | Field::DrainDelay
            | Field::At
            | Field::AfterReady
            | Field::GracePeriod
            | Field::Every
            | Field::MinReadySeconds
            | Field::ActionAt
            | Field::ActionAfterReady
            | Field::ActionGracePeriod
            | Field::ActionDown => Unit::Millis,
            Field::Boot | Field::PreStop | Field::Run | Field::ServiceTime | Field::PostStart => Unit::Dist,
            Field::Drain => Unit::Drain,
            Field::ImagePull => Unit::Pulls,
            Field::Replicas | Field::Nodes | Field::Pool | Field::Clients | Field::Delete => Unit::Count,
            Field::Rate => Unit::Rate,
            Field::MaxSurge | Field::MaxUnavailable | Field::MinAvailable | Field::PdbMaxUnavailable => {
                Unit::Scaled
            }
            Field::DrainNode => Unit::Count,
            Field::UnhealthyPodEvictionPolicy => Unit::Word {
                what: "unhealthy_pod_eviction_policy",
                names: &EvictionPolicy::NAMES,
            },
            Field::Rollout => Unit::Word {
                what: "rollout",
                names: &Strategy::NAMES,
            },
            Field::Propagation => Unit::Propagation,
            Field::Arrival => Unit::Word {
                what: "arrival",
                names: &Arrival::NAMES,
            },
            Field::Connections => Unit::Word {
                what: "connections",
                names: &Connections::NAMES,
            },
            Field::Retry => Unit::Word {
                what: "retry",
                names: &Retry::NAMES,
            },
            Field::OnSigterm => Unit::Word {
                what: "on_sigterm",
                names: &OnSigterm::NAMES,
            },
            Field::CrashAfter => Unit::DistList,
            Field::FailProbability => Unit::Probability,
            Field::Seed
            | Field::Fails
            | Field::ExitCode
            | Field::ExitCodeOnSigterm
            | Field::BackoffLimit
            | Field::BackoffLimitPerIndex => Unit::Count,
            Field::Proxy | Field::BackoffImmediateFirstRestart | Field::PostStartFails => Unit::Flag,
            Field::RestartPolicy | Field::ContainerRestartPolicy => Unit::Word {
                what: "restart_policy",
                names: &RestartPolicy::NAMES,
            },
            Field::StopSignal => Unit::Word {
                what: "stop_signal",
                names: &Signal::NAMES,
            },
            Field::DrainsOn => Unit::Word {
                what: "drains_on",
                names: &Signal::NAMES,
            },
            Field::Kind => Unit::Word {
                what: "kind",
                names: &ContainerKind::NAMES,
            },
            Field::Mode => Unit::Word {
                what: "mode",
                names: &MODE_NAMES,
            },
            Field::Kubernetes => Unit::Version,
            Field::Probe(_, field) => match field {
                ProbeField::SuccessThreshold | ProbeField::FailureThreshold => Unit::Count,
                ProbeField::Outcome => Unit::Word {
                    what: "outcome",
                    names: &ProbeOutcome::NAMES,
                },
                _ => Unit::Millis,
            },
        }
    }

    /// What the field means, for the README's tables and `--help`.
    pub fn doc(self) -> &'static str {
        match self {
            Field::Horizon => {
                "stop the run at this simulated time (an endless crash loop becomes an outcome); default 24h"
            }
            Field::Seed => {
                "the seed of every draw (with the replication, the container, the key and the attempt); default 0"
            }
            Field::RestartPolicy => "the Pod's restartPolicy: Always, OnFailure or Never; default Always",
            Field::TerminationGracePeriod => {
                "terminationGracePeriodSeconds; default 30s (the kubelet never uses less than 1s)"
            }
            Field::StopAt => "delete the Pod at this time",
            Field::StopAfterReady => "delete the Pod this long after it became Ready",
            Field::Mode => "service (default) or job: a Job's Pod runs to completion",
            Field::Kubernetes => "the kubelet simulated, \"1.20\" … \"1.36\" (default)",
            Field::BackoffInitial => "CrashLoopBackOff's first non-zero delay; default 10s",
            Field::BackoffCap => "CrashLoopBackOff's ceiling (maxContainerRestartPeriod); default 300s",
            Field::BackoffImmediateFirstRestart => {
                "the first restart happens at once, as the kubelet does; false gives the seed's curve; default true"
            }
            Field::Kind => "init, sidecar (an initContainers entry with restartPolicy: Always) or app",
            Field::Boot => {
                "init: start → exit 0; sidecar, app: start → started (with probes: start → answers them); a distribution draws it for each attempt"
            }
            Field::Drain => {
                "SIGTERM → exit; default 0s; or a distribution; or \"never\": it ignores SIGTERM and SIGKILL ends it (exit 137)"
            }
            Field::PreStop => {
                "how long the preStop hook runs; default no hook (\"0s\" is a hook that returns at once); or a distribution"
            }
            Field::Fails => "the first N attempts exit 1 at the end of boot; default 0",
            Field::FailProbability => {
                "every later attempt exits 1 at the end of boot with this probability, 0 to 1; default 0"
            }
            Field::Proxy => {
                "carries the Pod's traffic: an app alive while no proxy is alive is exposed; default false"
            }
            Field::CrashAfter => {
                "attempt i crashes (exit 1) this long after its start; a list of durations or distributions, one per attempt"
            }
            Field::Run => {
                "apps and sidecars: exits with exit_code this long after it is healthy (a Job's work; a sidecar then restarts); or a distribution"
            }
            Field::ExitCode => "the exit code of that exit; default 0; needs run",
            Field::ContainerRestartPolicy => {
                "an app's or init container's own restartPolicy (Always, OnFailure, Never; not Always on init), overriding the Pod's; Kubernetes 1.34+"
            }
            Field::ExitCodeOnSigterm => {
                "the exit code when SIGTERM stops it within its stop timeout: 0 (default, a graceful handler) or 143 (the signal ends it)"
            }
            Field::StopSignal => {
                "the signal the runtime stops it with (lifecycle.stopSignal, KEP-4960, 1.33+ behind its gate): SIGTERM (default), SIGQUIT, SIGINT, SIGKILL, …"
            }
            Field::DrainsOn => {
                "the signal its process handles by draining (drain, exit_code_on_sigterm); SIGKILL and others it has no handler for end it at once (128 + signal) or never (SIGCHLD, SIGWINCH, SIGSTOP); default SIGTERM"
            }
            Field::PostStart => {
                "sidecars, apps: how long the postStart hook runs; the container is not started, and the Pod's next container does not start, until it returns; default no hook; or a distribution"
            }
            Field::PostStartFails => {
                "the postStart hook fails when it returns: the kubelet kills the container (preStop, grace) and restarts it per policy; needs post_start; default false"
            }
            Field::ImagePull => {
                "failed image pulls before one succeeds (ErrImagePull, then ImagePullBackOff for 10s, 20s, … 300s), or \"fails\" for an image that never pulls; default 0"
            }
            Field::Probe(_, ProbeField::InitialDelay) => "initialDelaySeconds; default 0s",
            Field::Probe(_, ProbeField::Period) => "periodSeconds; default 10s",
            Field::Probe(_, ProbeField::Timeout) => "timeoutSeconds; default 1s",
            Field::Probe(_, ProbeField::SuccessThreshold) => {
                "successThreshold; default 1 (must be 1 for startup, liveness)"
            }
            Field::Probe(_, ProbeField::FailureThreshold) => "failureThreshold; default 3",
            Field::Probe(_, ProbeField::TerminationGracePeriod) => {
                "probe-level terminationGracePeriodSeconds for the kill (not on readiness)"
            }
            Field::Probe(_, ProbeField::Outcome) => {
                "what the probe finds: passes (default), fails, hangs (each run fails at its timeout) or fails_after_sigterm"
            }
            Field::Probe(_, ProbeField::PassAfter) => {
                "it passes no sooner than this after the end of boot; default 0s"
            }
            Field::Probe(_, ProbeField::PassUntil) => {
                "it fails from this long after the end of boot on (a container that turns unhealthy); default never"
            }
            Field::Replicas => {
                "replicas of the Pod behind the Service, placed round robin on the nodes; default 3"
            }
            Field::Nodes => "nodes, each with its kube-proxy; clients are placed round robin too; default 3",
            Field::Propagation => {
                "per node, endpoint change → sync request: a preset (tiny, medium, large, gcp-lb, azure-lb, nlb-ip) or a duration or distribution; default tiny"
            }
            Field::KubeletDelay => "deletion → the kubelet starts preStop/SIGTERM; default 100ms",
            Field::MinSyncPeriod => {
                "kube-proxy's minSyncPeriod (token bucket, burst 2); 0s syncs at once; default 1s"
            }
            Field::Cleanup => {
                "last container exit → the Pod object is gone (endpoint removed, IP silent); default 1s"
            }
            Field::Rate => "requests per second to the whole Service, above 0",
            Field::Arrival => "poisson (default) or constant",
            Field::Connections => "new (default): one connection per request; keep-alive: a pool per client",
            Field::Pool => "keep-alive: idle connections each client keeps; default 2",
            Field::Clients => "load generators, placed round robin on the nodes; default 1",
            Field::ServiceTime => "how long the app takes to answer; default 50ms; or a distribution",
            Field::Retry => {
                "none (default) or once: a connection-level failure is sent once more on a fresh connection"
            }
            Field::Duration => {
                "traffic runs this long from its start; default until 10s after the last disruption settled"
            }
            Field::ConnectTimeout => "a SYN to a vanished Pod IP fails after this; default 30s",
            Field::OnSigterm => {
                "exit-immediately, ignore, delay-then-drain, close-then-drain (default, Go) or close-keep-busy (Node)"
            }
            Field::DrainDelay => "delay-then-drain: the listener stays open this long after SIGTERM",
            Field::At => "delete the replica at this time since the replicas were created",
            Field::AfterReady => {
                "delete the replica this long after traffic started (every replica Ready on every node)"
            }
            Field::Delete => "the replica to delete, from 0",
            Field::GracePeriod => "kubectl delete --grace-period; default the Pod's",
            Field::Every => {
                "repeat this often, deleting the next replica (delete + 1, + 2, …) while one is left; default once"
            }
            Field::Rollout => {
                "makes the disruption a rollout of the Deployment: RollingUpdate (default) or Recreate"
            }
            Field::MaxSurge => {
                "RollingUpdate: Pods above replicas the controller may count, a count or a percentage rounded up; default \"25%\""
            }
            Field::MaxUnavailable => {
                "RollingUpdate: Pods below replicas that may be unavailable, a count or a percentage rounded down; default \"25%\""
            }
            Field::MinReadySeconds => "a new Pod counts as available once Ready this long; default 0s",
            Field::DrainNode => {
                "makes the disruption a kubectl drain of this node, from 0: cordon, evict every Pod on it, 429 → retry in 5s"
            }
            Field::MinAvailable => {
                "Pods that must stay healthy for an eviction, a count or a percentage of replicas rounded up"
            }
            Field::PdbMaxUnavailable => {
                "Pods that may be unhealthy for an eviction, a count or a percentage rounded up (instead of min_available)"
            }
            Field::UnhealthyPodEvictionPolicy => {
                "IfHealthyBudget (default): a Running, not Ready Pod is evicted only while the budget is met; AlwaysAllow: always"
            }
            Field::BackoffLimit => {
                "failed Pods counted before the Job fails (BackoffLimitExceeded); default 6, or no limit with backoff_limit_per_index"
            }
            Field::BackoffLimitPerIndex => {
                "an Indexed Job's limit for its one index: more counted failures fail it (FailedIndexes); allows FailIndex rules"
            }
            Field::ActionAt => "the action reaches the kubelet at this time after the Pod's creation",
            Field::ActionAfterReady => {
                "the action this long after the Pod first became Ready (never if it never does)"
            }
            Field::ActionGracePeriod => {
                "a delete's --grace-period; default the Pod's termination_grace_period; a later delete may shorten the grace, not lengthen it"
            }
            Field::ActionDown => {
                "how long a node_reboot's node is gone before its kubelet is back; default 30s"
            }
        }
    }

    /// Where a Kubernetes manifest says this already: annotations and the
    /// timings overlay carry only what Kubernetes does not know, so they
    /// refuse these keys and name the manifest field to edit instead.
    pub fn manifest_field(self) -> Option<String> {
        match self {
            Field::RestartPolicy => Some("spec.restartPolicy".into()),
            Field::TerminationGracePeriod => Some("spec.terminationGracePeriodSeconds".into()),
            Field::Mode => Some("the manifest's kind (a Job runs to completion)".into()),
            Field::BackoffLimit => Some("the Job's spec.backoffLimit".into()),
            Field::BackoffLimitPerIndex => Some("the Job's spec.backoffLimitPerIndex".into()),
            Field::Kind => Some("where the container is listed (initContainers, with restartPolicy: Always for a native sidecar, or containers)".into()),
            Field::ContainerRestartPolicy => Some("the container's restartPolicy".into()),
            Field::StopSignal => Some("the container's lifecycle.stopSignal".into()),
            Field::Probe(kind, field) => field
                .k8s_name()
                .map(|k8s| format!("the container's {}Probe.{k8s}", kind.name())),
            _ => None,
        }
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

//! The one list of scenario keys: every setting a scenario, an annotation,
//! a timings overlay or a grid axis may name, with its unit, what it means,
//! and the one way it is set on a `RunSpec`.
//!
//! Invariant: every reader (the TOML scenario, `podsim.dev/` annotations,
//! the `--timings` overlay, grid axes) looks keys up here and sets them with
//! `Key::set`, so a key means the same, is spelt the same and is checked the
//! same wherever it is written. Adding a key is one `Field` variant and its
//! arms below, plus its rule in `rules` if it has one.

use crate::engine::SimDuration;
use crate::model::{
    Backoff, ContainerKind, Deletion, Dist, KubeVersion, PodMode, PodSpec, Probability, Probe, ProbeKind,
    RestartPolicy, RunSpec,
};

use crate::model::service::{
    Arrival, Connections, OnSigterm, Preset, Propagation, Rate, Retry, TrafficSpec, When,
};

use super::dist::{parse_dist_list_text, parse_dist_text, parse_probability};
use super::duration::parse_duration;

/// Which table of a scenario a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The run as a whole (top level of a scenario: `horizon`).
    Run,
    /// `[pod]`.
    Pod,
    /// One `[[containers]]` entry.
    Container,
    /// `[service]`: the replicas, nodes and kube-proxy.
    Service,
    /// `[traffic]`: the requests sent to the Service.
    Traffic,
    /// `[app]`: how the serving app reacts to SIGTERM.
    App,
    /// One `[[disruptions]]` entry (a `Key`'s index is the entry's).
    Disruption,
}

impl Scope {
    /// The Service's scopes: the table each is written in, as a grid
    /// axis's path starts (`service.replicas`, `disruptions.0.at`).
    pub const SERVICE: [Scope; 4] = [Scope::Service, Scope::Traffic, Scope::App, Scope::Disruption];

    /// The table's name, for the Service's scopes.
    pub fn table(self) -> &'static str {
        match self {
            Scope::Run => "",
            Scope::Pod => "pod",
            Scope::Container => "containers",
            Scope::Service => "service",
            Scope::Traffic => "traffic",
            Scope::App => "app",
            Scope::Disruption => "disruptions",
        }
    }
}

/// A field of a probe table (R27).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeField {
    /// `initial_delay` (`initialDelaySeconds`): the first probe waits this long.
    InitialDelay,
    /// `period` (`periodSeconds`): time between two probes.
    Period,
    /// `timeout` (`timeoutSeconds`): a probe slower than this fails.
    Timeout,
    /// `success_threshold`: successes in a row that make a readiness probe pass.
    SuccessThreshold,
    /// `failure_threshold`: failures in a row that fail the probe.
    FailureThreshold,
    /// Probe-level grace for the kill a failure causes (liveness, startup).
    TerminationGracePeriod,
}

impl ProbeField {
    /// Every probe field, in the order the README lists them.
    pub const ALL: [ProbeField; 6] = [
        ProbeField::InitialDelay,
        ProbeField::Period,
        ProbeField::Timeout,
        ProbeField::SuccessThreshold,
        ProbeField::FailureThreshold,
        ProbeField::TerminationGracePeriod,
    ];

    /// The key inside a probe table.
    pub fn name(self) -> &'static str {
        match self {
            ProbeField::InitialDelay => "initial_delay",
            ProbeField::Period => "period",
            ProbeField::Timeout => "timeout",
            ProbeField::SuccessThreshold => "success_threshold",
            ProbeField::FailureThreshold => "failure_threshold",
            ProbeField::TerminationGracePeriod => "termination_grace_period",
        }
    }

    /// The Kubernetes probe field this is.
    fn k8s_name(self) -> &'static str {
        match self {
            ProbeField::InitialDelay => "initialDelaySeconds",
            ProbeField::Period => "periodSeconds",
            ProbeField::Timeout => "timeoutSeconds",
            ProbeField::SuccessThreshold => "successThreshold",
            ProbeField::FailureThreshold => "failureThreshold",
            ProbeField::TerminationGracePeriod => "terminationGracePeriodSeconds",
        }
    }
}

/// A table of keys inside a scope's table: `[pod] backoff = { … }` and a
/// container's probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// `[pod] backoff = { initial, cap, immediate_first_restart }` (R18).
    Backoff,
    /// A container's probe of this kind (R27).
    Probe(ProbeKind),
}

impl Group {
    /// Every group, in the order the README lists them.
    pub const ALL: [Group; 4] = [
        Group::Backoff,
        Group::Probe(ProbeKind::Startup),
        Group::Probe(ProbeKind::Readiness),
        Group::Probe(ProbeKind::Liveness),
    ];

    /// The key that holds the group's table.
    pub fn name(self) -> &'static str {
        match self {
            Group::Backoff => "backoff",
            Group::Probe(ProbeKind::Startup) => "startup_probe",
            Group::Probe(ProbeKind::Readiness) => "readiness_probe",
            Group::Probe(ProbeKind::Liveness) => "liveness_probe",
        }
    }

    /// Where the group's table is written: under `[pod]` or in a container.
    pub fn scope(self) -> Scope {
        match self {
            Group::Backoff => Scope::Pod,
            Group::Probe(_) => Scope::Container,
        }
    }

    /// What writing the group's table does by itself: a probe table makes
    /// the container have that probe, with Kubernetes' defaults (R27).
    pub fn open(self, run: &mut RunSpec, container: Option<usize>) {
        if let (Group::Probe(kind), Some(i)) = (self, container)
            && let Some(c) = run.pod.containers.get_mut(i)
        {
            c.probes[kind.index()].get_or_insert_with(Probe::default);
        }
    }
}

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
}

/// What kind of value a field takes: how it is read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A duration with a unit (`"3s"`), written in CSV as integer
    /// milliseconds: a setting, which does not vary from run to run.
    Millis,
    /// A duration, or a distribution drawn anew for each container instance
    /// (`{ dist = "lognormal", median = "3s", p99 = "10s" }`).
    Dist,
    /// A probability, 0 to 1 (`0.2`).
    Probability,
    /// A whole number, 0 or more.
    Count,
    /// `true` or `false`.
    Flag,
    /// One of these words (`what` names them in messages).
    Word {
        /// What the words name, for messages (`kind`, `restart policy`).
        what: &'static str,
        /// The valid words, in the order an axis indexes them.
        names: &'static [&'static str],
    },
    /// A Kubernetes version, `"1.20"` … `"1.36"`.
    Version,
    /// Durations or distributions, one per attempt; as an axis, one (the
    /// first attempt).
    DistList,
    /// Requests per second, a number above 0 (`8.3`).
    Rate,
    /// A propagation preset's name, or a duration or distribution.
    Propagation,
}

/// A value of some `Unit`, parsed and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A duration; also a fixed value of a `Unit::Dist` key.
    Millis(SimDuration),
    /// A distribution that is not fixed.
    Dist(Dist),
    /// A probability, 0 to 1.
    Probability(Probability),
    /// A whole number.
    Count(u32),
    /// `true` or `false`.
    Flag(bool),
    /// The index of a word in its unit's names.
    Word(usize),
    /// A Kubernetes minor version.
    Version(KubeVersion),
    /// One duration or distribution per attempt.
    DistList(Vec<Dist>),
    /// A rate, requests per second.
    Rate(Rate),
    /// The index of a propagation preset in `Preset::ALL`.
    Preset(usize),
}

/// Marks a preset in an encoded `Unit::Propagation` value (a duration never reaches it).
const PRESET_TAG: u64 = 1 << 63;

const FLAG_NAMES: [&str; 2] = ["false", "true"];
const KINDS: [ContainerKind; 3] = [ContainerKind::Init, ContainerKind::Sidecar, ContainerKind::App];
const POLICIES: [RestartPolicy; 3] = [
    RestartPolicy::Always,
    RestartPolicy::OnFailure,
    RestartPolicy::Never,
];
const MODES: [PodMode; 2] = [PodMode::Service, PodMode::Job];
const MODE_NAMES: [&str; 2] = ["service", "job"];

impl Field {
    /// Every field, in the order the README's tables list them.
    pub const ALL: [Field; 60] = {
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
            Field::At | Field::AfterReady | Field::Delete | Field::GracePeriod => Scope::Disruption,
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
            | Field::GracePeriod => Unit::Millis,
            Field::Boot | Field::Drain | Field::PreStop | Field::Run | Field::ServiceTime => Unit::Dist,
            Field::Replicas | Field::Nodes | Field::Pool | Field::Clients | Field::Delete => Unit::Count,
            Field::Rate => Unit::Rate,
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
            Field::Seed | Field::Fails | Field::ExitCode => Unit::Count,
            Field::Proxy | Field::BackoffImmediateFirstRestart => Unit::Flag,
            Field::RestartPolicy => Unit::Word {
                what: "restart_policy",
                names: &RestartPolicy::NAMES,
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
            Field::Drain => "SIGTERM → exit; default 0s; or a distribution",
            Field::PreStop => "how long the preStop hook runs; default 0s (no hook); or a distribution",
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
                "apps only: exits with exit_code this long after it is healthy (a Job's work); or a distribution"
            }
            Field::ExitCode => "the exit code of that exit; default 0; needs run",
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
            Field::Kind => Some("where the container is listed (initContainers, with restartPolicy: Always for a native sidecar, or containers)".into()),
            Field::Probe(kind, field) => Some(format!("the container's {}Probe.{}", kind.name(), field.k8s_name())),
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

impl Unit {
    /// The unit of the field as a sweep axis (one value per run).
    pub fn axis(self) -> Unit {
        match self {
            Unit::DistList => Unit::Dist,
            other => other,
        }
    }

    /// A value written as text (an annotation, a CSV cell).
    pub fn parse_text(self, key: &str, text: &str) -> Result<Value, String> {
        let trimmed = text.trim();
        match self {
            Unit::Millis => parse_duration(text).map(Value::Millis),
            Unit::Dist => parse_dist_text(text).map(Value::from_dist),
            Unit::Probability => parse_probability(key, trimmed).map(Value::Probability),
            Unit::Count => trimmed
                .parse()
                .map(Value::Count)
                .map_err(|_| format!("{key} must be a whole number, 0 or more (e.g. \"2\"), not \"{text}\"")),
            Unit::Flag => match trimmed {
                "true" => Ok(Value::Flag(true)),
                "false" => Ok(Value::Flag(false)),
                _ => Err(format!("{key} must be \"true\" or \"false\", not \"{text}\"")),
            },
            Unit::Word { what, names } => word(what, names, trimmed),
            Unit::Version => parse_kube_version(trimmed).map(Value::Version),
            Unit::DistList => parse_dist_list_text(trimmed).map(Value::DistList),
            Unit::Rate => parse_rate(trimmed).map(Value::Rate),
            Unit::Propagation => match Preset::NAMES.iter().position(|n| *n == trimmed) {
                Some(i) => Ok(Value::Preset(i)),
                None if trimmed.starts_with(|c: char| c.is_ascii_digit()) => {
                    parse_dist_text(text).map(Value::from_dist)
                }
                None => Err(unknown_preset(trimmed)),
            },
        }
    }

    /// The value `encoded` (as `Value::encode` made it) of this axis unit.
    pub fn decode(self, encoded: u64) -> Value {
        match self {
            Unit::Millis | Unit::Dist | Unit::DistList => Value::Millis(SimDuration::from_millis(encoded)),
            Unit::Probability => Value::Probability(Probability::from_bits(encoded)),
            Unit::Count => Value::Count(encoded as u32),
            Unit::Flag => Value::Flag(encoded != 0),
            Unit::Word { .. } => Value::Word(encoded as usize),
            Unit::Version => Value::Version(KubeVersion(encoded as u32)),
            Unit::Rate => Value::Rate(Rate::from_bits(encoded)),
            Unit::Propagation if encoded & PRESET_TAG != 0 => Value::Preset((encoded & !PRESET_TAG) as usize),
            Unit::Propagation => Value::Millis(SimDuration::from_millis(encoded)),
        }
    }

    /// `encoded` as a person writes it in a grid (`250ms`, `3`, `true`, `"app"`).
    pub fn describe(self, encoded: u64) -> String {
        match self {
            Unit::Millis | Unit::Dist | Unit::DistList => SimDuration::from_millis(encoded).to_string(),
            Unit::Probability => Probability::from_bits(encoded).to_string(),
            Unit::Count => encoded.to_string(),
            Unit::Flag => FLAG_NAMES[usize::from(encoded != 0)].to_string(),
            Unit::Word { names, .. } => format!("\"{}\"", names[encoded as usize]),
            Unit::Version => format!("\"1.{encoded}\""),
            Unit::Rate => Rate::from_bits(encoded).get().to_string(),
            Unit::Propagation if encoded & PRESET_TAG != 0 => {
                format!("\"{}\"", Preset::NAMES[(encoded & !PRESET_TAG) as usize])
            }
            Unit::Propagation => SimDuration::from_millis(encoded).to_string(),
        }
    }

    /// `encoded` as a CSV cell: digits for numbers, the word for words.
    pub fn cell(self, encoded: u64, buf: &mut Vec<u8>) {
        match self {
            Unit::Millis | Unit::Dist | Unit::DistList | Unit::Count => {
                buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes())
            }
            Unit::Probability => {
                buf.extend_from_slice(Probability::from_bits(encoded).to_string().as_bytes())
            }
            Unit::Flag => buf.extend_from_slice(FLAG_NAMES[usize::from(encoded != 0)].as_bytes()),
            Unit::Word { names, .. } => buf.extend_from_slice(names[encoded as usize].as_bytes()),
            Unit::Version => {
                buf.extend_from_slice(b"1.");
                buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes());
            }
            Unit::Rate => buf.extend_from_slice(Rate::from_bits(encoded).get().to_string().as_bytes()),
            // A preset by its name; a fixed delay in milliseconds.
            Unit::Propagation if encoded & PRESET_TAG != 0 => {
                buf.extend_from_slice(Preset::NAMES[(encoded & !PRESET_TAG) as usize].as_bytes())
            }
            Unit::Propagation => buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes()),
        }
    }
}

/// The word `text` of `names`, or the message naming the valid ones.
pub fn word(what: &str, names: &[&str], text: &str) -> Result<Value, String> {
    names
        .iter()
        .position(|n| *n == text)
        .map(Value::Word)
        .ok_or_else(|| super::diagnostic::unknown_word(what, text, names))
}

/// A rate of requests per second: a finite number above 0.
pub fn parse_rate(text: &str) -> Result<Rate, String> {
    text.parse::<f64>()
        .ok()
        .and_then(Rate::new)
        .ok_or_else(|| format!("rate must be a number of requests per second above 0 (e.g. 8.3), not {text}"))
}

/// The message for a propagation that is no preset and no duration.
pub fn unknown_preset(text: &str) -> String {
    super::diagnostic::unknown_word("propagation preset", text, &Preset::NAMES)
        + "; or write a duration such as \"2s\" or a distribution"
}

/// Parses `"1.33"` into a version podsim knows.
pub fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    let minor = text.strip_prefix("1.").and_then(|m| m.parse::<u32>().ok());
    let (oldest, newest) = (KubeVersion::OLDEST.0, KubeVersion::NEWEST.0);
    match minor {
        Some(m) if (oldest..=newest).contains(&m) => Ok(KubeVersion(m)),
        _ => Err(format!(
            "unknown kubernetes version \"{text}\"; podsim knows \"1.{oldest}\" to \"1.{newest}\""
        )),
    }
}

impl Value {
    /// The value as one `u64` (milliseconds, a count, a word's index, a
    /// version's minor), for axes; `None` for a list.
    pub fn encode(&self) -> Option<u64> {
        match self {
            Value::Millis(d) => Some(d.as_millis()),
            Value::Probability(p) => Some(p.get().to_bits()),
            Value::Dist(_) => None,
            Value::Count(n) => Some(u64::from(*n)),
            Value::Flag(b) => Some(u64::from(*b)),
            Value::Word(i) => Some(*i as u64),
            Value::Version(v) => Some(u64::from(v.0)),
            Value::DistList(_) => None,
            Value::Rate(r) => Some(r.get().to_bits()),
            Value::Preset(i) => Some(*i as u64 | PRESET_TAG),
        }
    }

    /// A distribution as a value: a fixed one is a plain duration, so it
    /// encodes, prints and compares as one.
    pub fn from_dist(dist: Dist) -> Value {
        match dist.fixed() {
            Some(d) => Value::Millis(d),
            None => Value::Dist(dist),
        }
    }

    /// The value of a `Unit::Dist` key as a distribution.
    pub fn into_dist(self) -> Dist {
        match self {
            Value::Dist(d) => d,
            Value::Millis(d) => Dist::Fixed(d),
            _ => Dist::default(),
        }
    }
}

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

    /// The path a grid axis uses: `horizon`, `pod.backoff.cap`,
    /// `containers.web.startup_probe.period`.
    pub fn path(&self, spec: &PodSpec) -> String {
        match (self.field.scope(), self.container) {
            (Scope::Run, _) => self.field.name(),
            (Scope::Pod, _) => format!("pod.{}", self.field.name()),
            (Scope::Container, i) => {
                let name = i
                    .and_then(|i| spec.containers.get(i))
                    .map_or("?", |c| c.name.as_str());
                format!("containers.{name}.{}", self.field.name())
            }
            (Scope::Disruption, i) => format!("disruptions.{}.{}", i.unwrap_or(0), self.field.name()),
            (scope, _) => format!("{}.{}", scope.table(), self.field.name()),
        }
    }

    /// Sets the field to `value`, which has the field's unit (its axis unit
    /// for a list). The one place a key changes a spec: cheap, because a
    /// sweep calls it for every changed axis of every run.
    pub fn set(self, run: &mut RunSpec, value: Value) {
        let pod = &mut run.pod;
        let container = self.container.and_then(|i| pod.containers.get_mut(i));
        let ms = match value {
            Value::Millis(d) => d,
            _ => SimDuration::ZERO,
        };
        let count = match value {
            Value::Count(n) => n,
            _ => 0,
        };
        let flag = matches!(value, Value::Flag(true));
        let chance = match value {
            Value::Probability(p) => p,
            _ => Probability::NEVER,
        };
        let word = match value {
            Value::Word(i) => i,
            _ => 0,
        };
        match (self.field, container) {
            (Field::Horizon, _) => run.horizon = ms,
            (Field::Seed, _) => run.stream.seed = u64::from(count),
            (Field::RestartPolicy, _) => pod.restart_policy = POLICIES[word.min(2)],
            (Field::TerminationGracePeriod, _) => pod.termination_grace_period = ms,
            (Field::StopAt, _) => pod.deletion = Deletion::At(ms),
            (Field::StopAfterReady, _) => pod.deletion = Deletion::AfterReady(ms),
            (Field::Mode, _) => pod.mode = MODES[word.min(1)],
            (Field::Kubernetes, _) => {
                if let Value::Version(v) = value {
                    pod.kubernetes = v;
                }
            }
            (Field::BackoffInitial, _) => pod.backoff.initial = ms,
            (Field::BackoffCap, _) => pod.backoff.cap = ms,
            (Field::BackoffImmediateFirstRestart, _) => pod.backoff.immediate_first_restart = flag,
            (
                field @ (Field::Replicas
                | Field::Nodes
                | Field::Propagation
                | Field::KubeletDelay
                | Field::MinSyncPeriod
                | Field::Cleanup
                | Field::Rate
                | Field::Arrival
                | Field::Connections
                | Field::Pool
                | Field::Clients
                | Field::ServiceTime
                | Field::Retry
                | Field::Duration
                | Field::ConnectTimeout
                | Field::OnSigterm
                | Field::DrainDelay
                | Field::At
                | Field::AfterReady
                | Field::Delete
                | Field::GracePeriod),
                _,
            ) => set_service(field, self.container, run, value, ms, count, word),
            (_, None) => {}
            (Field::Kind, Some(c)) => c.kind = KINDS[word.min(2)],
            (Field::Boot, Some(c)) => c.boot = value.into_dist(),
            (Field::Drain, Some(c)) => c.drain = value.into_dist(),
            (Field::PreStop, Some(c)) => c.pre_stop = value.into_dist(),
            (Field::Fails, Some(c)) => c.fails = count,
            (Field::FailProbability, Some(c)) => c.fail_probability = chance,
            (Field::Proxy, Some(c)) => c.proxy = flag,
            (Field::Run, Some(c)) => c.run = Some(value.into_dist()),
            (Field::ExitCode, Some(c)) => c.exit_code = count as i32,
            (Field::CrashAfter, Some(c)) => match value {
                Value::DistList(list) => c.crash_after = list,
                // One duration (an axis): the first attempt crashes then.
                // Reuses the list's allocation run after run.
                other => {
                    c.crash_after.clear();
                    c.crash_after.push(other.into_dist());
                }
            },
            (Field::Probe(kind, field), Some(c)) => {
                let probe = c.probes[kind.index()].get_or_insert_with(Probe::default);
                match field {
                    ProbeField::InitialDelay => probe.initial_delay = ms,
                    ProbeField::Period => probe.period = ms,
                    ProbeField::Timeout => probe.timeout = ms,
                    ProbeField::SuccessThreshold => probe.success_threshold = count,
                    ProbeField::FailureThreshold => probe.failure_threshold = count,
                    ProbeField::TerminationGracePeriod => probe.termination_grace_period = Some(ms),
                }
            }
        }
    }
}

/// Sets a field of the Service's scopes, making the `[service]` (and
/// `[traffic]`) it belongs to if need be; `index` is a disruption's.
fn set_service(
    field: Field,
    index: Option<usize>,
    run: &mut RunSpec,
    value: Value,
    ms: SimDuration,
    count: u32,
    word: usize,
) {
    let service = run.service.get_or_insert_with(Default::default);
    if field.scope() == Scope::Traffic {
        let t = service.traffic.get_or_insert_with(TrafficSpec::default);
        match field {
            Field::Rate => {
                if let Value::Rate(r) = value {
                    t.rate = r;
                }
            }
            Field::Arrival => t.arrival = Arrival::ALL[word.min(1)],
            Field::Connections => t.connections = Connections::ALL[word.min(1)],
            Field::Pool => t.pool = count,
            Field::Clients => t.clients = count,
            Field::ServiceTime => t.service_time = value.into_dist(),
            Field::Retry => t.retry = Retry::ALL[word.min(1)],
            Field::Duration => t.duration = Some(ms),
            Field::ConnectTimeout => t.connect_timeout = ms,
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
            _ => {}
        }
        return;
    }
    match field {
        Field::Replicas => service.replicas = count,
        Field::Nodes => service.nodes = count,
        Field::Propagation => {
            service.propagation = match value {
                Value::Preset(i) => Propagation::Preset(Preset::ALL[i.min(Preset::ALL.len() - 1)]),
                other => Propagation::Custom(other.into_dist()),
            }
        }
        Field::KubeletDelay => service.kubelet_delay = ms,
        Field::MinSyncPeriod => service.min_sync_period = ms,
        Field::Cleanup => service.cleanup = ms,
        Field::OnSigterm => service.app.on_sigterm = OnSigterm::ALL[word.min(4)],
        Field::DrainDelay => service.app.drain_delay = ms,
        _ => {}
    }
}

/// The Kubernetes default cap, which versions before 1.32 cannot change.
pub fn default_backoff_cap() -> SimDuration {
    Backoff::default().cap
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ContainerSpec;

    #[test]
    fn decoding_tables_follow_the_name_lists() {
        for (i, kind) in KINDS.iter().enumerate() {
            assert_eq!(kind.name(), ContainerKind::NAMES[i]);
        }
        for (i, policy) in POLICIES.iter().enumerate() {
            assert_eq!(policy.name(), RestartPolicy::NAMES[i]);
        }
    }

    #[test]
    fn every_field_is_listed_once_and_found_by_its_name() {
        for field in Field::ALL {
            assert_eq!(
                Field::find(field.scope(), &field.name()),
                Some(field),
                "{field:?}"
            );
        }
        let mut seen = std::collections::HashSet::new();
        assert!(Field::ALL.iter().all(|f| seen.insert(*f)));
    }

    #[test]
    fn every_scalar_value_survives_encoding() {
        let mut run = RunSpec::new(PodSpec::new(vec![ContainerSpec::new(
            "web",
            ContainerKind::App,
            SimDuration::ZERO,
        )]));
        for field in Field::ALL {
            let unit = field.unit().axis();
            let value = match unit {
                Unit::Millis | Unit::Dist => Value::Millis(SimDuration::from_millis(1500)),
                Unit::Probability => Value::Probability(Probability::new(0.25).unwrap()),
                Unit::Count => Value::Count(2),
                Unit::Flag => Value::Flag(true),
                Unit::Word { .. } => Value::Word(1),
                Unit::Version => Value::Version(KubeVersion(33)),
                Unit::DistList => unreachable!("an axis unit is never a list"),
                Unit::Rate => Value::Rate(Rate::new(8.5).unwrap()),
                Unit::Propagation => Value::Preset(1),
            };
            assert_eq!(unit.decode(value.encode().unwrap()), value, "{field:?}");
            Key::container(field, 0).set(&mut run, value);
        }
        let web = &run.pod.containers[0];
        assert_eq!(
            (web.boot.fixed().map(|d| d.as_millis()), web.fails, web.proxy),
            (Some(1500), 2, true)
        );
        assert_eq!(web.crash_after, [SimDuration::from_millis(1500)]);
        assert_eq!(web.fail_probability.get(), 0.25);
        assert_eq!(run.stream.seed, 2);
        assert_eq!(run.pod.kubernetes, KubeVersion(33));
        assert_eq!(run.horizon, SimDuration::from_millis(1500));
    }
}

//! What each key means to a person: the prose the README's tables and
//! `--help` print, and the manifest field that already says it, so the
//! wording lives apart from the key list it describes.

use super::Field;
use crate::scenario::key::ProbeField;

impl Field {
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
                "sidecars, apps: how long the postStart hook runs; the container is not started, and the Pod's next container does not start, until it returns; default no hook; or a distribution; or \"until-booted\": it returns when the container's boot is over (a hook that waits for its own process, as a mesh proxy's does)"
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
            Field::Delete => {
                "the replica to delete, from 0; default 0: a disruption with neither rollout keys nor drain is a kubectl delete"
            }
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
                "Pods that must stay healthy for an eviction, a count or a percentage of replicas rounded up (at most 100%); \
                 a `[pdb]` with neither this nor max_unavailable allows no eviction of a Ready Pod"
            }
            Field::PdbMaxUnavailable => {
                "Pods that may be unhealthy for an eviction, a count or a percentage rounded up, at most 100% (instead of min_available)"
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
}

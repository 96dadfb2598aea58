//! The Pod model's events: past-tense facts that happen at one instant.
//!
//! Invariant: every container event carries the attempt (container instance)
//! it was scheduled for, so an event outlived by a restart or a kill is
//! recognised as stale at pop time instead of being searched for and removed.

use super::spec::{ContainerId, ProbeKind};

/// What the engine's queue holds for a Pod: the instants at which something
/// is due, each handled by `PodModel` (the history reports what it changed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodEvent {
    /// The Pod was created on the node: the kubelet's first sync.
    Created,
    /// `kubectl delete` reached the kubelet: termination begins (R34).
    DeletionRequested,
    /// The rebooted node is back: the kubelet finds the sandbox gone (R77).
    NodeBack,
    /// Action `action` of `PodSpec::actions` is due (R70–R79).
    ActionDue {
        /// Its index in `PodSpec::actions`.
        action: u32,
    },
    /// The container's CrashLoopBackOff wait elapsed: it may start again.
    BackOffExpired {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// The boot finished: an init container completed, a sidecar or app is
    /// alive (and, without probes, started), or a scripted failure exits 1.
    BootFinished {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// A scripted crash (`crash_after`) of a running container: exit 1.
    Crashed {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// An app's `run` is over: it exits with its `exit_code`.
    RunFinished {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// A probe worker's tick (R28); `generation` drops ticks of a reset ticker.
    ProbeDue {
        /// The probed container.
        container: ContainerId,
        /// Which of its probes.
        probe: ProbeKind,
        /// The ticker generation it was scheduled in: stale if rescheduled since.
        generation: u32,
    },
    /// The postStart hook returned (R65), or failed (R66).
    PostStartFinished {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// The image pull back-off is over: the next sync pulls again (R67).
    PullBackOffExpired {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for (a failed pull starts none).
        attempt: u32,
    },
    /// The kubelet's next sync after a failed start shows the back-off's
    /// reason (R68).
    BackOffShown {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// The preStop hook returned, or the grace period cut it off (R35).
    PreStopFinished {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// A sidecar waited for its turn as long as its grace allowed (R35).
    TurnWaitExpired {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// The process finished draining after SIGTERM and exited by itself.
    Drained {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
    /// The stop timeout elapsed: the runtime sent SIGKILL.
    Killed {
        /// The container it happens to.
        container: ContainerId,
        /// The instance it was scheduled for: stale if the container restarted since.
        attempt: u32,
    },
}

impl PodEvent {
    /// The container a container event concerns, with the attempt (or, for a
    /// probe tick, the ticker generation) it was scheduled for.
    pub fn target(&self) -> Option<(ContainerId, u32)> {
        match *self {
            PodEvent::Created
            | PodEvent::DeletionRequested
            | PodEvent::NodeBack
            | PodEvent::ActionDue { .. } => None,
            PodEvent::ProbeDue {
                container,
                generation,
                ..
            } => Some((container, generation)),
            PodEvent::BackOffExpired { container, attempt }
            | PodEvent::BootFinished { container, attempt }
            | PodEvent::Crashed { container, attempt }
            | PodEvent::RunFinished { container, attempt }
            | PodEvent::PostStartFinished { container, attempt }
            | PodEvent::PullBackOffExpired { container, attempt }
            | PodEvent::BackOffShown { container, attempt }
            | PodEvent::PreStopFinished { container, attempt }
            | PodEvent::TurnWaitExpired { container, attempt }
            | PodEvent::Drained { container, attempt }
            | PodEvent::Killed { container, attempt } => Some((container, attempt)),
        }
    }
}

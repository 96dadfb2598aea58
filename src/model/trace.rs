//! The timeline of a run: what happened to whom and when, for people to read.
//!
//! Invariant: recording is optional and never changes a run; a sweep runs
//! with no trace at all, `podsim run` with one.

use std::fmt;

use super::metrics::PodPhase;
use super::spec::{ContainerId, ProbeKind};
use crate::engine::{SimDuration, SimTime};

/// Why a container's process ended, and the exit code it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitReason {
    /// An init container finished its work: exit 0.
    Completed,
    /// A scripted failure at the end of boot (exit 1), or a `run` that ends
    /// with a non-zero `exit_code`.
    Failed(i32),
    /// A scripted crash while running (`crash_after`): exit 1.
    Crashed,
    /// Stopped by SIGTERM within its stop timeout; a graceful handler exits 0.
    Terminated,
    /// SIGKILL at the stop timeout: exit 137.
    Killed,
}

impl ExitReason {
    pub fn code(self) -> i32 {
        match self {
            ExitReason::Completed | ExitReason::Terminated => 0,
            ExitReason::Failed(code) => code,
            ExitReason::Crashed => 1,
            ExitReason::Killed => 137,
        }
    }

    pub fn is_success(self) -> bool {
        self.code() == 0
    }
}

/// One line of the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Happening {
    /// The container's process was started (attempt 1 is the first start).
    Starting {
        attempt: u32,
    },
    /// A probed container finished booting: it answers its probes now.
    Healthy,
    /// The kubelet counts the container started (R21): at the end of boot
    /// without probes, else at its start or its startup probe's success.
    Started,
    /// The readiness probe succeeded (R30).
    Ready,
    /// A startup or liveness probe failed `failure_threshold` times: kill (R12).
    ProbeFailed(ProbeKind),
    Exited(ExitReason),
    /// CrashLoopBackOff: the next start waits this long (R14).
    BackOff {
        delay: SimDuration,
    },
    PreStopStarted,
    /// `cut_off`: the grace period ended the hook before it returned.
    PreStopFinished {
        cut_off: bool,
    },
    /// A sidecar waits for the apps and later sidecars to exit (R36).
    AwaitingTurn,
    /// SIGTERM sent; SIGKILL follows after `timeout` unless it exits first.
    Sigterm {
        timeout: SimDuration,
    },
    Sigkill,
    PodReady,
    DeletionRequested {
        grace: SimDuration,
    },
    /// A regular init container failed under `restartPolicy: Never` (R9).
    PodFailed,
    /// No app container runs or will run again (R43): sidecars are stopped.
    AppsFinished,
    /// The Pod phase changed (recorded at each change and at the end).
    PodPhase(PodPhase),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    pub at: SimTime,
    /// `None` for what happens to the Pod as a whole.
    pub container: Option<ContainerId>,
    pub what: Happening,
}

impl fmt::Display for Happening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Happening::Starting { attempt: 1 } => write!(f, "starting"),
            Happening::Starting { attempt } => write!(f, "restarting (attempt {attempt})"),
            Happening::Healthy => write!(f, "healthy (answers its probes)"),
            Happening::Started => write!(f, "started"),
            Happening::Ready => write!(f, "ready"),
            Happening::ProbeFailed(kind) => write!(f, "{} probe failed: killing", kind.name()),
            Happening::Exited(reason) => {
                let why = match reason {
                    ExitReason::Completed => "completed",
                    ExitReason::Failed(_) => "failed",
                    ExitReason::Crashed => "crashed",
                    ExitReason::Terminated => "stopped by SIGTERM",
                    ExitReason::Killed => "SIGKILL",
                };
                write!(f, "exited {} ({why})", reason.code())
            }
            Happening::BackOff { delay } if delay.as_millis() == 0 => {
                write!(f, "restarting at once (first restart, no back-off yet)")
            }
            Happening::BackOff { delay } => write!(f, "CrashLoopBackOff: restart in {delay}"),
            Happening::PreStopStarted => write!(f, "preStop hook started"),
            Happening::PreStopFinished { cut_off: false } => write!(f, "preStop hook finished"),
            Happening::PreStopFinished { cut_off: true } => {
                write!(f, "preStop hook cut off by the grace period")
            }
            Happening::AwaitingTurn => {
                write!(f, "waiting for app containers and later sidecars to exit")
            }
            Happening::Sigterm { timeout } => write!(f, "SIGTERM (SIGKILL in {timeout})"),
            Happening::Sigkill => write!(f, "SIGKILL"),
            Happening::PodReady => write!(f, "Pod Ready"),
            Happening::DeletionRequested { grace } => {
                write!(f, "deletion requested (grace period {grace})")
            }
            Happening::PodFailed => write!(f, "init container failed under restartPolicy Never: Pod failed"),
            Happening::AppsFinished => {
                write!(f, "no app container runs or will run again: stopping sidecars")
            }
            Happening::PodPhase(phase) => write!(f, "Pod phase {}", phase.name()),
        }
    }
}

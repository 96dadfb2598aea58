//! The event timeline's words for each change, apart from the changes
//! themselves: the model and the meters only make and count `Change`s, and
//! only the timeline's views read these words, so rewording a line, or
//! choosing which changes get one, touches nothing the model does.
//!
//! `Change::line` lives here with `Line` because it alone makes one; the
//! field stays private, so a `Line` is always a change the timeline prints.

use std::fmt;

use super::{Change, ExitReason, UpdateEffect};

impl Change {
    /// The change in the event timeline's words, or `None` for a change the
    /// timeline does not print: one that another line at the same instant
    /// already says (without probes a container is alive when it is started,
    /// and without a readiness probe Ready when it is started), and the ones
    /// only views and meters read (API status, exposure, the end of termination).
    pub fn line(self) -> Option<Line> {
        match self {
            Change::Running
            | Change::Alive { probed: false }
            | Change::Ready { probed: false }
            | Change::ContainersStopped
            | Change::Probed { .. }
            | Change::BackOffShown
            | Change::ExposureBegan
            | Change::ExposureEnded => None,
            shown => Some(Line(shown)),
        }
    }
}

/// A change that has a line in the event timeline; `Display` words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line(Change);

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Change::Starting { attempt: 1 } => write!(f, "starting"),
            Change::Starting { attempt } => write!(f, "restarting (attempt {attempt})"),
            Change::Alive { .. } => write!(f, "healthy (answers its probes)"),
            Change::Started => write!(f, "started"),
            Change::Ready { .. } => write!(f, "ready"),
            Change::Unready => write!(f, "not ready (readiness probe failed)"),
            Change::ProbeFailed { probe } => write!(f, "{} probe failed: killing", probe.name()),
            Change::Exited(reason) => {
                let why = match reason {
                    ExitReason::Completed => "completed",
                    ExitReason::Failed(_) => "failed",
                    ExitReason::Crashed => "crashed",
                    ExitReason::Terminated(_) => "stopped by SIGTERM",
                    ExitReason::Killed => "SIGKILL",
                    ExitReason::NodeLost => "Unknown: the node went down",
                    ExitReason::Signalled(signal) => {
                        return write!(f, "exited {} (ended by {})", reason.code(), signal.name());
                    }
                };
                write!(f, "exited {} ({why})", reason.code())
            }
            Change::BackOff { delay } if delay.as_millis() == 0 => {
                write!(f, "restarting at once (first restart, no back-off yet)")
            }
            Change::BackOff { delay } => write!(f, "CrashLoopBackOff: restart in {delay}"),
            Change::PostStartFinished { failed: false } => write!(f, "postStart hook finished"),
            Change::PostStartFinished { failed: true } => {
                write!(f, "postStart hook failed (FailedPostStartHook): killing")
            }
            Change::ImagePullFailed { back_off } => {
                write!(f, "image pull failed (ErrImagePull): next pull in {back_off}")
            }
            Change::PreStopStarted => write!(f, "preStop hook started"),
            Change::PreStopFinished { cut_off: false } => write!(f, "preStop hook finished"),
            Change::PreStopFinished { cut_off: true } => {
                write!(f, "preStop hook cut off by the grace period")
            }
            Change::AwaitingTurn => {
                write!(f, "waiting for app containers and later sidecars to exit")
            }
            Change::Sigterm { timeout, signal } => write!(f, "{} (SIGKILL in {timeout})", signal.name()),
            Change::Sigkill => write!(f, "SIGKILL"),
            Change::PodReady => write!(f, "Pod Ready"),
            Change::PodNotReady => write!(f, "Pod not Ready"),
            Change::DeletionRequested { grace } => {
                write!(f, "deletion requested (grace period {grace})")
            }
            Change::DeletionRepeated {
                grace,
                shortened: true,
            } => {
                write!(f, "deleted again: grace period shortened to {grace}")
            }
            Change::DeletionRepeated {
                grace,
                shortened: false,
            } => {
                write!(
                    f,
                    "deleted again: grace period stays {grace} (it can only shrink)"
                )
            }
            Change::ImageUpdated(effect) => write!(
                f,
                "image updated: {}",
                match effect {
                    UpdateEffect::Restart => "killing, the new image starts after the exit",
                    UpdateEffect::AfterStartup => "restarts once its startup probe passes",
                    UpdateEffect::StartsNow => "fresh back-off, starting the new image now",
                    UpdateEffect::NextStart => "its next start runs the new image",
                    UpdateEffect::Ignored => "nothing to do",
                }
            ),
            Change::KubeletRestarted => write!(f, "kubelet restarted: it reads the containers anew"),
            Change::ProbesRestarted { started: false, .. } => {
                write!(f, "new probe workers: not started until its startup probe passes")
            }
            Change::ProbesRestarted { ready: false, .. } => {
                write!(f, "new probe workers: not ready until its readiness probe passes")
            }
            Change::ProbesRestarted { .. } => write!(f, "new probe workers"),
            Change::PodFailed => write!(f, "init container failed under restartPolicy Never: Pod failed"),
            Change::AllContainersRestarting => {
                write!(f, "RestartAllContainers: every container killed, starting over")
            }
            Change::NodeRebooted { down } => {
                write!(f, "node rebooted: sandbox and containers gone, back in {down}")
            }
            Change::NodeBack {
                sandbox_recreated: true,
            } => write!(
                f,
                "node back: new sandbox, starting over from the first init container"
            ),
            Change::NodeBack {
                sandbox_recreated: false,
            } => write!(f, "node back: restartPolicy Never, no new sandbox"),
            Change::AppsFinished => {
                write!(f, "no app container runs or will run again: stopping sidecars")
            }
            Change::Phase(phase) => write!(f, "Pod phase {}", phase.name()),
            // `Change::line` makes no `Line` of the rest.
            Change::Running
            | Change::ContainersStopped
            | Change::Probed { .. }
            | Change::BackOffShown
            | Change::ExposureBegan
            | Change::ExposureEnded => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::Signal;

    #[test]
    fn silent_changes_have_no_line_and_the_others_keep_their_words() {
        let silent = [
            Change::Running,
            Change::Alive { probed: false },
            Change::Ready { probed: false },
            Change::ContainersStopped,
            Change::ExposureBegan,
            Change::ExposureEnded,
        ];
        assert!(silent.iter().all(|c| c.line().is_none()));
        let words = |c: Change| c.line().map(|l| l.to_string());
        assert_eq!(
            words(Change::Sigterm {
                timeout: SimDuration::from_secs(27),
                signal: Signal::Term,
            }),
            Some("SIGTERM (SIGKILL in 27s)".to_string())
        );
        assert_eq!(
            words(Change::Alive { probed: true }),
            Some("healthy (answers its probes)".to_string())
        );
        assert_eq!(words(Change::Ready { probed: true }), Some("ready".to_string()));
    }
}

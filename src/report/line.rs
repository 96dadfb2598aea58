//! The event timeline's words for each change of the Pod's history: the
//! model and the meters only make and count typed `Change`s, and only the
//! views word them (the text timeline, the SVG's marks, JSON's `event`),
//! so rewording a line, or choosing which changes get one, touches nothing
//! the model does, and the model's tests check changes, not words.
//!
//! `Line::of` alone makes a `Line`; the fields stay private, so a `Line` is
//! always a change the timeline prints.

use std::fmt;

use crate::model::{Change, ExitReason, TraceEntry, UpdateEffect};

/// The changes of `trace` the event timeline prints, each with its words.
/// A restart without back-off is the first restart only the first time a
/// container restarts; later ones (after a run that outlasted the
/// back-off's reset, or a new image) say the back-off was reset.
pub fn lines(trace: &[TraceEntry]) -> impl Iterator<Item = (&TraceEntry, Line)> {
    let mut restarted: Vec<bool> = Vec::new();
    trace.iter().filter_map(move |e| {
        let mut line = Line::of(e.what)?;
        if let (Change::BackOff { .. }, Some(id)) = (e.what, e.container) {
            if restarted.len() <= id.index() {
                restarted.resize(id.index() + 1, false);
            }
            line.again = std::mem::replace(&mut restarted[id.index()], true);
        }
        Some((e, line))
    })
}

/// A change that has a line in the event timeline; `Display` words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    change: Change,
    /// For a restart: the container has restarted before in this run.
    again: bool,
}

impl Line {
    /// The change in the event timeline's words, or `None` for a change the
    /// timeline does not print: one that another line at the same instant
    /// already says (without probes a container is alive when it is started,
    /// and without a readiness probe Ready when it is started), and the ones
    /// only views and meters read (API status, exposure, the end of termination).
    pub fn of(change: Change) -> Option<Line> {
        match change {
            Change::Running
            | Change::Alive { probed: false }
            | Change::Ready { probed: false }
            | Change::ContainersStopped
            | Change::Probed { .. }
            | Change::BackOffShown
            | Change::ExposureBegan
            | Change::ExposureEnded => None,
            shown => Some(Line {
                change: shown,
                again: false,
            }),
        }
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.change {
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
            Change::BackOff { delay } if delay.as_millis() == 0 && self.again => {
                write!(f, "restarting at once (back-off reset)")
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
            Change::PodFailed => write!(
                f,
                "init container failed under restartPolicy Never: stopping the Pod (Failed once stopped)"
            ),
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
            // `Line::of` makes no `Line` of the rest.
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
    use crate::model::{PodPhase, ProbeKind, Signal};

    /// The adapter Pod of the CKAD lab: `app` (a `sleep 3600`) exits every
    /// hour and, having run over the back-off's reset (10 min, R16),
    /// restarts at once each time; `web` restarts at once once. Only each
    /// container's first restart is its first.
    #[test]
    fn only_a_containers_first_restart_is_its_first() {
        use crate::engine::SimTime;
        use crate::model::ContainerId;
        let at_once = Change::BackOff {
            delay: SimDuration::ZERO,
        };
        let entry = |s: u64, c: u32, what: Change| TraceEntry {
            at: SimTime(s * 1000),
            container: Some(ContainerId(c)),
            what,
        };
        let trace = [
            entry(3601, 0, Change::Exited(ExitReason::Completed)),
            entry(3601, 0, at_once),
            entry(3700, 1, at_once),
            entry(7202, 0, at_once),
            entry(
                7300,
                1,
                Change::BackOff {
                    delay: SimDuration::from_secs(10),
                },
            ),
            entry(10_803, 0, at_once),
        ];
        let said: Vec<(u64, String)> = lines(&trace)
            .map(|(e, line)| (e.at.as_millis() / 1000, line.to_string()))
            .collect();
        let first = "restarting at once (first restart, no back-off yet)";
        let reset = "restarting at once (back-off reset)";
        assert_eq!(
            said,
            [
                (3601, "exited 0 (completed)".to_string()),
                (3601, first.to_string()),
                (3700, first.to_string()),
                (7202, reset.to_string()),
                (7300, "CrashLoopBackOff: restart in 10s".to_string()),
                (10_803, reset.to_string()),
            ]
        );
    }

    fn words(change: Change) -> Option<String> {
        Line::of(change).map(|line| line.to_string())
    }

    #[test]
    fn changes_another_line_says_or_only_views_read_have_no_line() {
        let silent = [
            Change::Running,
            Change::Alive { probed: false },
            Change::Ready { probed: false },
            Change::Probed {
                probe: ProbeKind::Readiness,
                runs: 3,
                failures: 1,
            },
            Change::BackOffShown,
            Change::ContainersStopped,
            Change::ExposureBegan,
            Change::ExposureEnded,
        ];
        for change in silent {
            assert_eq!(words(change), None, "{change:?}");
        }
    }

    /// The one test of the timeline's wording: every change that has a
    /// line, in each of its forms, with its words. The model's tests check
    /// the typed changes and never these words.
    #[test]
    fn every_change_with_a_line_has_its_words() {
        let s = SimDuration::from_secs;
        let table: Vec<(Change, &str)> = vec![
            (Change::Starting { attempt: 1 }, "starting"),
            (Change::Starting { attempt: 3 }, "restarting (attempt 3)"),
            (Change::Alive { probed: true }, "healthy (answers its probes)"),
            (Change::Started, "started"),
            (Change::Ready { probed: true }, "ready"),
            (Change::Unready, "not ready (readiness probe failed)"),
            (
                Change::ProbeFailed {
                    probe: ProbeKind::Liveness,
                },
                "liveness probe failed: killing",
            ),
            (
                Change::ProbeFailed {
                    probe: ProbeKind::Startup,
                },
                "startup probe failed: killing",
            ),
            (Change::Exited(ExitReason::Completed), "exited 0 (completed)"),
            (Change::Exited(ExitReason::Failed(3)), "exited 3 (failed)"),
            (Change::Exited(ExitReason::Crashed), "exited 1 (crashed)"),
            (
                Change::Exited(ExitReason::Terminated(0)),
                "exited 0 (stopped by SIGTERM)",
            ),
            (
                Change::Exited(ExitReason::Terminated(143)),
                "exited 143 (stopped by SIGTERM)",
            ),
            (Change::Exited(ExitReason::Killed), "exited 137 (SIGKILL)"),
            (
                Change::Exited(ExitReason::Signalled(Signal::Quit)),
                "exited 131 (ended by SIGQUIT)",
            ),
            (
                Change::Exited(ExitReason::NodeLost),
                "exited 255 (Unknown: the node went down)",
            ),
            (
                Change::BackOff { delay: s(0) },
                "restarting at once (first restart, no back-off yet)",
            ),
            (
                Change::BackOff { delay: s(20) },
                "CrashLoopBackOff: restart in 20s",
            ),
            (
                Change::PostStartFinished { failed: false },
                "postStart hook finished",
            ),
            (
                Change::PostStartFinished { failed: true },
                "postStart hook failed (FailedPostStartHook): killing",
            ),
            (
                Change::ImagePullFailed { back_off: s(10) },
                "image pull failed (ErrImagePull): next pull in 10s",
            ),
            (Change::PreStopStarted, "preStop hook started"),
            (
                Change::PreStopFinished { cut_off: false },
                "preStop hook finished",
            ),
            (
                Change::PreStopFinished { cut_off: true },
                "preStop hook cut off by the grace period",
            ),
            (
                Change::AwaitingTurn,
                "waiting for app containers and later sidecars to exit",
            ),
            (
                Change::Sigterm {
                    timeout: s(27),
                    signal: Signal::Term,
                },
                "SIGTERM (SIGKILL in 27s)",
            ),
            (
                Change::Sigterm {
                    timeout: s(10),
                    signal: Signal::Quit,
                },
                "SIGQUIT (SIGKILL in 10s)",
            ),
            (Change::Sigkill, "SIGKILL"),
            (
                Change::DeletionRequested { grace: s(30) },
                "deletion requested (grace period 30s)",
            ),
            (
                Change::DeletionRepeated {
                    grace: s(4),
                    shortened: true,
                },
                "deleted again: grace period shortened to 4s",
            ),
            (
                Change::DeletionRepeated {
                    grace: s(30),
                    shortened: false,
                },
                "deleted again: grace period stays 30s (it can only shrink)",
            ),
            (
                Change::ImageUpdated(UpdateEffect::Restart),
                "image updated: killing, the new image starts after the exit",
            ),
            (
                Change::ImageUpdated(UpdateEffect::AfterStartup),
                "image updated: restarts once its startup probe passes",
            ),
            (
                Change::ImageUpdated(UpdateEffect::StartsNow),
                "image updated: fresh back-off, starting the new image now",
            ),
            (
                Change::ImageUpdated(UpdateEffect::NextStart),
                "image updated: its next start runs the new image",
            ),
            (
                Change::ImageUpdated(UpdateEffect::Ignored),
                "image updated: nothing to do",
            ),
            (
                Change::KubeletRestarted,
                "kubelet restarted: it reads the containers anew",
            ),
            (
                Change::ProbesRestarted {
                    started: false,
                    ready: false,
                },
                "new probe workers: not started until its startup probe passes",
            ),
            (
                Change::ProbesRestarted {
                    started: true,
                    ready: false,
                },
                "new probe workers: not ready until its readiness probe passes",
            ),
            (
                Change::ProbesRestarted {
                    started: true,
                    ready: true,
                },
                "new probe workers",
            ),
            (Change::PodReady, "Pod Ready"),
            (Change::PodNotReady, "Pod not Ready"),
            (
                Change::PodFailed,
                "init container failed under restartPolicy Never: stopping the Pod (Failed once stopped)",
            ),
            (
                Change::AppsFinished,
                "no app container runs or will run again: stopping sidecars",
            ),
            (
                Change::AllContainersRestarting,
                "RestartAllContainers: every container killed, starting over",
            ),
            (
                Change::NodeRebooted { down: s(30) },
                "node rebooted: sandbox and containers gone, back in 30s",
            ),
            (
                Change::NodeBack {
                    sandbox_recreated: true,
                },
                "node back: new sandbox, starting over from the first init container",
            ),
            (
                Change::NodeBack {
                    sandbox_recreated: false,
                },
                "node back: restartPolicy Never, no new sandbox",
            ),
            (Change::Phase(PodPhase::Pending), "Pod phase Pending"),
            (Change::Phase(PodPhase::Failed), "Pod phase Failed"),
        ];
        for (change, expected) in table {
            assert_eq!(words(change).as_deref(), Some(expected), "{change:?}");
        }
    }
}

//! kubectl's view of a run: the lines `kubectl get pod -w` would print as the
//! Pod moves (NAME, READY, STATUS, RESTARTS, AGE), folded from the run's
//! history with kubectl's own rules (kubelet rules R47–R50).
//!
//! Invariant: a line is printed when the Pod's status changes — once when the
//! Pod appears, then once per instant (the state after everything that
//! happened at that instant), as the API server would show it, and before
//! that a container's exit when it restarts or backs off in the same instant
//! (R70). What the
//! API shows of a container (Running, started, Ready) is the model's word,
//! never worked out here from the spec. How the lines are printed (the
//! Pods' names, AGE, the padded columns) is `print`'s.

use crate::engine::SimTime;
use crate::model::{Change, ContainerKind, ExitReason, PodPhase, PodSpec, TraceEntry};

mod print;

pub(crate) use print::ALPHANUMS;
pub use print::{human_age, name_suffix, pods, watch_text};

/// A container's state as the API shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shown {
    Waiting(&'static str),
    Running,
    Terminated(ExitReason),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ContainerView {
    shown: Shown,
    started: bool,
    ready: bool,
    restarts: u32,
    /// Ran or exited at least once in the current sandbox (R24's "an app
    /// container has started", R79).
    ran: bool,
    /// When its latest instance exited.
    exited_at: Option<SimTime>,
    /// `lastState.terminated.finishedAt`: the exit before the current
    /// state, or the latest exit once the container waits to start again.
    last_termination: Option<SimTime>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct PodView {
    containers: Vec<ContainerView>,
    phase: PodPhase,
    deleted: bool,
}

/// One line of `kubectl get pod -w`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchLine {
    /// When the status changed (the AGE column).
    pub at: SimTime,
    /// READY: ready containers over apps and sidecars.
    pub ready: String,
    /// STATUS, as `printPod` words it.
    pub status: String,
    /// RESTARTS: the restart count `printPod` adds up (R69).
    pub restarts: u32,
    /// The latest `lastState.terminated.finishedAt` among the containers
    /// counted, on the same clock as `at`: RESTARTS shows its age.
    pub last_restart: Option<SimTime>,
}

impl WatchLine {
    /// RESTARTS as kubectl prints it (R69): the count, and once a container
    /// has restarted the age of its last termination at the line's time,
    /// `1 (10s ago)`.
    pub fn restarts_column(&self) -> String {
        match self.last_restart {
            Some(last) if self.restarts != 0 => {
                format!(
                    "{} ({} ago)",
                    self.restarts,
                    human_age(SimTime(self.at.since(last).as_millis()))
                )
            }
            _ => self.restarts.to_string(),
        }
    }
}

impl PodView {
    /// READY: ready apps plus started-and-ready sidecars, over both (R50).
    fn ready_column(&self, spec: &PodSpec) -> String {
        let counted = spec
            .containers
            .iter()
            .zip(&self.containers)
            .filter(|(c, _)| c.kind != ContainerKind::Init);
        let (mut ready, mut total) = (0, 0);
        for (spec, view) in counted {
            total += 1;
            let running = view.shown == Shown::Running;
            let sidecar_ok = spec.kind == ContainerKind::App || view.started;
            if running && view.ready && sidecar_ok {
                ready += 1;
            }
        }
        format!("{ready}/{total}")
    }

    /// R24: every init completed and every sidecar started, or an app ran.
    fn initialized(&self, spec: &PodSpec) -> bool {
        let pairs = || spec.containers.iter().zip(&self.containers);
        let init_done = pairs().all(|(c, v)| match c.kind {
            ContainerKind::Init => v.shown == Shown::Terminated(ExitReason::Completed),
            ContainerKind::Sidecar => v.started,
            ContainerKind::App => true,
        });
        init_done || pairs().any(|(c, v)| c.kind == ContainerKind::App && v.ran)
    }

    fn pod_ready(&self, spec: &PodSpec) -> bool {
        spec.containers
            .iter()
            .zip(&self.containers)
            .all(|(c, v)| c.kind == ContainerKind::Init || (v.ready && v.shown == Shown::Running))
    }

    /// STATUS, RESTARTS and the last restart, as kubectl's `printPod`
    /// derives them (R50, R69): while the Pod initializes RESTARTS counts
    /// the init containers up to the one that holds it; from then on the
    /// sidecars and the apps, no longer the regular init containers.
    fn status_column(&self, spec: &PodSpec) -> (String, u32, Option<SimTime>) {
        let mut reason = self.phase.name().to_string();
        let mut initializing = false;
        let (mut restarts, mut last) = (0, None);
        let (mut sidecar_restarts, mut sidecar_last) = (0, None);
        let inits: Vec<_> = spec
            .containers
            .iter()
            .zip(&self.containers)
            .filter(|(c, _)| c.kind != ContainerKind::App)
            .collect();
        for (i, (c, v)) in inits.iter().enumerate() {
            restarts += v.restarts;
            last = last.max(v.last_termination);
            if c.kind == ContainerKind::Sidecar {
                sidecar_restarts += v.restarts;
                sidecar_last = sidecar_last.max(v.last_termination);
            }
            match v.shown {
                Shown::Terminated(r) if r.code() == 0 => continue,
                _ if c.kind == ContainerKind::Sidecar && v.started => continue,
                Shown::Terminated(r) => reason = format!("Init:{}", terminated_reason(r)),
                Shown::Waiting(w) if w != "PodInitializing" => reason = format!("Init:{w}"),
                _ => reason = format!("Init:{i}/{}", inits.len()),
            }
            initializing = true;
            break;
        }
        if !initializing || self.initialized(spec) {
            (restarts, last) = (sidecar_restarts, sidecar_last);
            let mut has_running = false;
            // The kubelet reports the apps' statuses sorted by name
            // (`convertToAPIContainerStatuses`: SortedContainerStatuses, init
            // containers alone in spec order), and kubectl walks them from
            // the last: the first name's reason is the one shown.
            let mut apps: Vec<_> = spec
                .containers
                .iter()
                .zip(&self.containers)
                .filter(|(c, _)| c.kind == ContainerKind::App)
                .collect();
            apps.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name));
            for (_, v) in apps.into_iter().rev() {
                restarts += v.restarts;
                last = last.max(v.last_termination);
                match v.shown {
                    Shown::Waiting(w) => reason = w.to_string(),
                    Shown::Terminated(r) => reason = terminated_reason(r).to_string(),
                    Shown::Running if v.ready => has_running = true,
                    Shown::Running => {}
                }
            }
            if reason == "Completed" && has_running {
                reason = if self.pod_ready(spec) {
                    "Running"
                } else {
                    "NotReady"
                }
                .to_string();
            }
        }
        if self.deleted && !self.phase.is_terminal() {
            reason = "Terminating".to_string();
        }
        (reason, restarts, last)
    }
}

fn terminated_reason(reason: ExitReason) -> &'static str {
    match reason {
        ExitReason::Completed | ExitReason::Terminated(0) => "Completed",
        ExitReason::Failed(_)
        | ExitReason::Terminated(_)
        | ExitReason::Crashed
        | ExitReason::Killed
        | ExitReason::Signalled(_) => "Error",
        ExitReason::NodeLost => "Unknown",
    }
}

/// The watch lines of `trace`, the history of a run of `spec`.
pub fn watch(spec: &PodSpec, trace: &[TraceEntry]) -> Vec<WatchLine> {
    let has_inits = spec.containers.iter().any(|c| c.kind != ContainerKind::App);
    let default_wait = if has_inits {
        "PodInitializing"
    } else {
        "ContainerCreating"
    };
    let fresh = ContainerView {
        shown: Shown::Waiting(default_wait),
        started: false,
        ready: false,
        restarts: 0,
        ran: false,
        exited_at: None,
        last_termination: None,
    };
    // Whose latest instance was killed for a failed postStart hook (R66):
    // the kubelet's reason cache, not API status, so no line of its own.
    let mut hook_failed = vec![false; spec.containers.len()];
    let mut view = PodView {
        containers: vec![fresh; spec.containers.len()],
        phase: PodPhase::Pending,
        deleted: false,
    };
    let mut lines = Vec::new();
    let mut shown: Option<PodView> = None;
    let mut emit = |at: SimTime, view: &PodView, lines: &mut Vec<WatchLine>| {
        if shown.as_ref() != Some(view) {
            let (status, restarts, last_restart) = view.status_column(spec);
            lines.push(WatchLine {
                at,
                ready: view.ready_column(spec),
                status,
                restarts,
                last_restart,
            });
            shown = Some(view.clone());
        }
    };
    emit(SimTime::ZERO, &view, &mut lines);
    for (i, entry) in trace.iter().enumerate() {
        // R70: the sync that finds a container exited writes its terminated
        // state (`Error`, `Completed`) before it restarts it or caches its
        // back-off, and a watch is sent that update however soon the next
        // follows: one line, at the exit's instant, before the restart's.
        if let (Some(id), Change::BackOff { .. }) = (entry.container, entry.what)
            && !hook_failed[id.index()]
        {
            emit(entry.at, &view, &mut lines);
        }
        if let Some(id) = entry.container {
            let v = &mut view.containers[id.index()];
            match entry.what {
                Change::Starting { attempt } => {
                    if attempt > 1 {
                        v.restarts += 1;
                        v.last_termination = v.exited_at;
                    }
                    // Waiting until the model says the API shows it Running.
                    v.shown = Shown::Waiting(default_wait);
                    v.started = false;
                    v.ready = false;
                    hook_failed[id.index()] = false;
                }
                Change::Running => {
                    v.shown = Shown::Running;
                    v.ran = true;
                }
                Change::Started => v.started = true,
                Change::Ready { .. } => v.ready = true,
                Change::Unready => v.ready = false,
                Change::ProbesRestarted { started, ready } => {
                    v.started &= started;
                    v.ready &= ready;
                }
                Change::Exited(reason) => {
                    *v = ContainerView {
                        shown: Shown::Terminated(reason),
                        started: false,
                        ready: false,
                        ran: true,
                        exited_at: Some(entry.at),
                        ..*v
                    };
                }
                Change::PostStartFinished { failed } => hook_failed[id.index()] = failed,
                // A container to be started again waits with the reason its
                // last start left (R49, R68), its exit as its last state.
                Change::BackOff { delay } if hook_failed[id.index()] || delay.as_millis() > 0 => {
                    v.shown = Shown::Waiting(if hook_failed[id.index()] {
                        "PostStartHookError"
                    } else {
                        "CrashLoopBackOff"
                    });
                    v.last_termination = v.exited_at;
                }
                Change::ImagePullFailed { .. } => v.shown = Shown::Waiting("ErrImagePull"),
                Change::BackOffShown => {
                    v.shown = Shown::Waiting(match v.shown {
                        Shown::Waiting("ErrImagePull") => "ImagePullBackOff",
                        _ => "CrashLoopBackOff",
                    })
                }
                _ => {}
            }
        } else {
            match entry.what {
                Change::Phase(phase) => view.phase = phase,
                Change::DeletionRequested { .. } => view.deleted = true,
                // R79: the Initialized condition reads the new sandbox's
                // containers only: none of its apps has started yet.
                Change::NodeBack {
                    sandbox_recreated: true,
                } => view.containers.iter_mut().for_each(|v| v.ran = false),
                _ => {}
            }
        }
        let instant_over = trace.get(i + 1).is_none_or(|next| next.at != entry.at);
        if instant_over {
            emit(entry.at, &view, &mut lines);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::{ContainerId, ContainerSpec};

    /// One app container: Running and Ready at 0 s; it crashes at 40 s and,
    /// its first restart, starts again at once; it fails (exit 2) at 50 s
    /// and backs off 10 s. Each exit is a line of its own, `Error`, at its
    /// instant, before the restart's `Running` or the `CrashLoopBackOff`
    /// (R82): the sync that found the exit wrote it first.
    #[test]
    fn an_exit_shows_error_before_the_restart_or_the_back_off() {
        let spec = PodSpec::new(vec![ContainerSpec::new(
            "web",
            ContainerKind::App,
            SimDuration::ZERO,
        )]);
        let web = |s: u64, what: Change| TraceEntry {
            at: SimTime(s * 1000),
            container: Some(ContainerId(0)),
            what,
        };
        let pod = |s: u64, what: Change| TraceEntry {
            at: SimTime(s * 1000),
            container: None,
            what,
        };
        let trace = [
            web(0, Change::Starting { attempt: 1 }),
            web(0, Change::Running),
            web(0, Change::Ready { probed: false }),
            pod(0, Change::Phase(PodPhase::Running)),
            web(40, Change::Exited(ExitReason::Crashed)),
            web(
                40,
                Change::BackOff {
                    delay: SimDuration::ZERO,
                },
            ),
            web(40, Change::Starting { attempt: 2 }),
            web(40, Change::Running),
            web(40, Change::Ready { probed: false }),
            web(50, Change::Exited(ExitReason::Failed(2))),
            web(
                50,
                Change::BackOff {
                    delay: SimDuration::from_secs(10),
                },
            ),
        ];
        let shown: Vec<(u64, String, String, String)> = watch(&spec, &trace)
            .into_iter()
            .map(|l| {
                (
                    l.at.as_millis() / 1000,
                    l.ready.clone(),
                    l.status.clone(),
                    l.restarts_column(),
                )
            })
            .collect();
        let row = |s: u64, ready: &str, status: &str, restarts: &str| {
            (s, ready.to_string(), status.to_string(), restarts.to_string())
        };
        assert_eq!(
            shown,
            [
                row(0, "0/1", "ContainerCreating", "0"),
                row(0, "1/1", "Running", "0"),
                row(40, "0/1", "Error", "0"),
                row(40, "1/1", "Running", "1 (0s ago)"),
                // lastState is the 40 s exit until the back-off makes 50 s's the last.
                row(50, "0/1", "Error", "1 (10s ago)"),
                row(50, "0/1", "CrashLoopBackOff", "1 (0s ago)"),
            ]
        );
    }
}

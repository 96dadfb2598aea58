//! The one history of a run: typed changes the Pod model reports as they
//! happen, to its meters and to whatever else observes the run.
//!
//! Invariant: every view of a run — the metrics, the event lines, the bands,
//! the kubectl watch, JSON — is built from these changes alone; none looks at
//! the model's state or works it out again from the spec. Changes come in
//! the order the model made them, several at one instant included. The
//! model says what changed, never in words: the event timeline's wording is
//! the views' (`report::line`).

use super::metrics::PodPhase;
use super::spec::{ContainerId, ProbeKind, Signal};
use crate::engine::{SimDuration, SimTime};

/// Why a container's process ended, and the exit code it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitReason {
    /// It finished its work: an init container's boot, or an app's `run`, exit 0.
    Completed,
    /// A scripted failure at the end of boot (exit 1), or a `run` that ends
    /// with a non-zero `exit_code`.
    Failed(i32),
    /// A scripted crash while running (`crash_after`): exit 1.
    Crashed,
    /// Stopped by SIGTERM within its stop timeout, with the container's
    /// `exit_code_on_sigterm`: 0 for a graceful handler, 143 for a process
    /// the signal ends (R54).
    Terminated(i32),
    /// SIGKILL at the stop timeout: exit 137.
    Killed,
    /// Ended at once by a stop signal it has no handler for (R59): exit
    /// 128 + the signal's number.
    Signalled(Signal),
    /// Gone with the node (R76): the runtime reports exit 255, reason
    /// `Unknown`, for a container that was running when the node went down.
    NodeLost,
}

impl ExitReason {
    /// The exit code the container status reports.
    pub fn code(self) -> i32 {
        match self {
            ExitReason::Completed => 0,
            ExitReason::Failed(code) | ExitReason::Terminated(code) => code,
            ExitReason::Crashed => 1,
            ExitReason::Killed => 137,
            ExitReason::Signalled(signal) => signal.exit_code(),
            ExitReason::NodeLost => 255,
        }
    }

    /// Exit code 0: what restart policies and the Pod phase look at (R9, R11, R44).
    pub fn is_success(self) -> bool {
        self.code() == 0
    }

    /// The reason in one lowercase word, as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            ExitReason::Completed => "completed",
            ExitReason::Failed(_) => "failed",
            ExitReason::Crashed => "crashed",
            ExitReason::Terminated(_) => "terminated",
            ExitReason::Killed => "killed",
            ExitReason::Signalled(_) => "signalled",
            ExitReason::NodeLost => "node_lost",
        }
    }
}

/// What the kubelet does when a container's image changes (R71–R73).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UpdateEffect {
    /// It is killed now (preStop, grace) and the new image starts after
    /// its exit, whatever the restart policy.
    Restart,
    /// A sidecar whose startup probe has not passed yet: it is restarted
    /// once it has (`computeInitContainerActions` looks at the change then).
    AfterStartup,
    /// It waits out a CrashLoopBackOff: the new image has a fresh back-off
    /// (R17) and starts now.
    StartsNow,
    /// Not running now: its next start, if any, runs the new image.
    NextStart,
    /// Nothing changes: the Pod is terminating, the container exited for
    /// good, or it is a regular init container that already ran.
    Ignored,
}

impl UpdateEffect {
    /// The effect in one lowercase word, as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            UpdateEffect::Restart => "restart",
            UpdateEffect::AfterStartup => "after_startup",
            UpdateEffect::StartsNow => "starts_now",
            UpdateEffect::NextStart => "next_start",
            UpdateEffect::Ignored => "ignored",
        }
    }
}

/// Something that changed at one instant, for one container or for the Pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The container's process was started; attempt 1 is the first start,
    /// every later one a restart (R20).
    Starting {
        /// Which instance this is, from 1.
        attempt: u32,
    },
    /// The API shows the container Running from now on: at its start for an
    /// init container or one with probes, at the end of its boot (image pull,
    /// create, postStart: R7) for the others.
    Running,
    /// Booted: the process does its job now, which is what exposure counts.
    Alive {
        /// The kubelet learns of it only through probes; without them it
        /// counts the container started at this very instant (`Started`).
        probed: bool,
    },
    /// The kubelet counts the container started (R21).
    Started,
    /// The kubelet counts the container Ready (R21).
    Ready {
        /// Its readiness probe succeeded (R30); without one it is Ready as
        /// soon as it is started.
        probed: bool,
    },
    /// A readiness probe failed `failure_threshold` times in a row while the
    /// container was Ready: it is not Ready any more, and still runs (R53).
    Unready,
    /// Probe runs of one worker since its last report: how many ran and
    /// how many failed (a run that hangs fails at its timeout). Reported
    /// when the worker's plan changes and at the end of the run, only to an
    /// observer that keeps a history.
    Probed {
        /// Which probe ran.
        probe: ProbeKind,
        /// Runs since the last report.
        runs: u32,
        /// Those of them that failed.
        failures: u32,
    },
    /// A startup or liveness probe failed `failure_threshold` times in a
    /// row: the kubelet kills the container (R12, R30).
    ProbeFailed {
        /// Which probe failed.
        probe: ProbeKind,
    },
    /// The process ended. The container is no longer alive, started or ready.
    Exited(ExitReason),
    /// CrashLoopBackOff: the next start waits `delay` (R14, R15). While a
    /// non-zero delay runs the API shows the container waiting in
    /// CrashLoopBackOff (R49).
    BackOff {
        /// From the exit to the restart.
        delay: SimDuration,
    },
    /// The postStart hook returned (R65); a failed one makes the kubelet
    /// kill the container (FailedPostStartHook, R66).
    PostStartFinished {
        /// The hook failed.
        failed: bool,
    },
    /// The image pull failed: the API shows the container waiting in
    /// ErrImagePull, and the next pull waits `back_off` (R67).
    ImagePullFailed {
        /// From the failure to the next pull.
        back_off: SimDuration,
    },
    /// The kubelet's next sync shows the back-off of a failed start: the
    /// waiting reason becomes ImagePullBackOff after a failed pull,
    /// CrashLoopBackOff after a failed postStart hook (R68).
    BackOffShown,
    /// The preStop hook began: the first step of a kill (R35).
    PreStopStarted,
    /// The preStop hook is over.
    PreStopFinished {
        /// The grace period ended it before it returned (R38).
        cut_off: bool,
    },
    /// A sidecar waits for the apps and later sidecars to exit (R36).
    AwaitingTurn,
    /// The stop signal sent (SIGTERM unless `stop_signal` says, R59);
    /// SIGKILL follows `timeout` later unless it exits first.
    Sigterm {
        /// The stop timeout: the grace left, at least 2 s (R35).
        timeout: SimDuration,
        /// The signal sent.
        signal: Signal,
    },
    /// SIGKILL: the stop timeout ran out.
    Sigkill,
    /// `kubectl delete` reached the kubelet: termination begins (R33, R34).
    DeletionRequested {
        /// The grace period the kubelet uses (at least 1 s).
        grace: SimDuration,
    },
    /// A delete reached the kubelet after the first (R70): the grace it
    /// gives is `grace` from now on, shorter than before, or the delete
    /// changed nothing (a grace can only shrink).
    DeletionRepeated {
        /// The grace the termination has from now on.
        grace: SimDuration,
        /// The delete shortened it.
        shortened: bool,
    },
    /// The container's image changed in the Pod's spec (R71–R73), with
    /// what the kubelet does about it.
    ImageUpdated(UpdateEffect),
    /// The kubelet restarted (R74): it reads the containers' state anew.
    KubeletRestarted,
    /// The restarted kubelet's new probe workers hold no result yet (R74):
    /// what it counts the container now.
    ProbesRestarted {
        /// Still started: it has no startup probe.
        started: bool,
        /// Still Ready: it has neither a startup nor a readiness probe.
        ready: bool,
    },
    /// Every app and sidecar is Ready at once: the Pod is Ready (R22, R23),
    /// for the first time or again.
    PodReady,
    /// The Pod was Ready and one of its apps or sidecars no longer is: it
    /// failed its readiness probe or exited (R22). Not reported once
    /// termination has begun.
    PodNotReady,
    /// A regular init container failed under `restartPolicy: Never` (R9).
    PodFailed,
    /// No app container runs or will run again (R43): sidecars are stopped.
    AppsFinished,
    /// A `RestartAllContainers` rule matched (R61): the Pod's condition
    /// `AllContainersRestarting`; every container is killed at once and the
    /// startup begins again from the first init container.
    AllContainersRestarting,
    /// The node went down (R76): the sandbox and every container are gone;
    /// the kubelet is back `down` later.
    NodeRebooted {
        /// How long the node is gone.
        down: SimDuration,
    },
    /// The rebooted node's kubelet found the sandbox gone (R77, R78): it
    /// makes a new one and starts over, or, under `restartPolicy: Never`,
    /// does not.
    NodeBack {
        /// A new sandbox was made and the startup begins again.
        sandbox_recreated: bool,
    },
    /// Every container has stopped since termination began (R34): the end
    /// that `termination_ms` and `completed_ms` measure.
    ContainersStopped,
    /// An app is alive with no proxy alive: exposure begins.
    ExposureBegan,
    /// A proxy is alive again, or no app is: exposure ends.
    ExposureEnded,
    /// The Pod phase changed (R47, R48), and once more at the end of a run.
    /// Only a history asks for it (`Observer::KEEPS_HISTORY`).
    Phase(PodPhase),
}

impl Change {
    /// The change's name in snake_case: JSON's `type`.
    pub fn name(self) -> &'static str {
        match self {
            Change::Starting { .. } => "starting",
            Change::Running => "running",
            Change::Alive { .. } => "alive",
            Change::Started => "started",
            Change::Ready { .. } => "ready",
            Change::Unready => "unready",
            Change::Probed { .. } => "probed",
            Change::ProbeFailed { .. } => "probe_failed",
            Change::Exited(_) => "exited",
            Change::BackOff { .. } => "back_off",
            Change::PostStartFinished { .. } => "post_start_finished",
            Change::ImagePullFailed { .. } => "image_pull_failed",
            Change::BackOffShown => "back_off_shown",
            Change::PreStopStarted => "pre_stop_started",
            Change::PreStopFinished { .. } => "pre_stop_finished",
            Change::AwaitingTurn => "awaiting_turn",
            Change::Sigterm { .. } => "sigterm",
            Change::Sigkill => "sigkill",
            Change::DeletionRequested { .. } => "deletion_requested",
            Change::DeletionRepeated { .. } => "deletion_repeated",
            Change::ImageUpdated(_) => "image_updated",
            Change::KubeletRestarted => "kubelet_restarted",
            Change::ProbesRestarted { .. } => "probes_restarted",
            Change::PodReady => "pod_ready",
            Change::PodNotReady => "pod_not_ready",
            Change::PodFailed => "pod_failed",
            Change::AppsFinished => "apps_finished",
            Change::ContainersStopped => "containers_stopped",
            Change::AllContainersRestarting => "all_containers_restarting",
            Change::NodeRebooted { .. } => "node_rebooted",
            Change::NodeBack { .. } => "node_back",
            Change::ExposureBegan => "exposure_began",
            Change::ExposureEnded => "exposure_ended",
            Change::Phase(_) => "phase",
        }
    }
}

/// One change, when and to whom it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    /// The instant of the change.
    pub at: SimTime,
    /// `None` for what happens to the Pod as a whole.
    pub container: Option<ContainerId>,
    /// What changed.
    pub what: Change,
}

/// The whole history of a run, in order: what `podsim run` shows.
pub type Trace = Vec<TraceEntry>;

/// Whoever watches a run; the model hands it every change as it happens.
///
/// The model takes its observer as a type parameter, so a simulator that
/// keeps nothing (`()`, the sweep's) compiles the reporting away and pays
/// only for its meters.
pub trait Observer {
    /// Whether this observer keeps the history. Only then does the model
    /// work out what nothing else needs (the Pod phase after every change,
    /// a look at each container).
    const KEEPS_HISTORY: bool;

    /// Takes note of one change.
    fn observe(&mut self, entry: TraceEntry);

    /// Forgets the last run before the next, keeping allocations.
    fn clear(&mut self);
}

/// Keeps nothing: a sweep's runs need their metrics only.
impl Observer for () {
    const KEEPS_HISTORY: bool = false;

    #[inline]
    fn observe(&mut self, _: TraceEntry) {}

    fn clear(&mut self) {}
}

impl Observer for Trace {
    const KEEPS_HISTORY: bool = true;

    fn observe(&mut self, entry: TraceEntry) {
        self.push(entry);
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }
}

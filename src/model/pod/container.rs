//! One container's state, in two parts: what survives its restarts
//! (`Container`) and the instance that runs now (`Instance`), which each
//! start creates afresh and each exit drops.
//!
//! Invariant: nothing lists by hand which fields survive a restart: those
//! that do live in `Container`, the others in `Instance`, and a start
//! replaces the whole `Instance`.

use super::history::ExitReason;
use crate::engine::{SimDuration, SimTime};

/// What the model knows of one container across all its instances.
#[derive(Clone, Copy, Debug)]
pub(super) struct Container {
    pub state: State,
    /// Instances started so far; events carry it to detect staleness.
    pub attempt: u32,
    /// Scripted failures (`fails`) already spent.
    pub failures_used: u32,
    /// Image pulls that failed so far (R67); once one succeeds the image
    /// is on the node and no later start pulls it.
    pub pulls_failed: u32,
    /// Restarts since the back-off was last reset (R16).
    pub backoff_streak: u32,
    /// When the latest instance started: the back-off reset (R16) and the
    /// probes' initial delay (R29) count from it.
    pub last_start: SimTime,
    /// The API has shown it Running or Terminated at least once, so it no
    /// longer keeps the Pod Pending (R47).
    pub has_run: bool,
    /// Where its probe workers are in `PodModel::workers`, by
    /// `ProbeKind::index`: only a probe it has gets one. They outlive
    /// instances (R28).
    pub workers: [Option<u32>; 3],
    /// The instance runs an image the spec no longer names, and is to be
    /// restarted once its startup probe passes (a sidecar, R72).
    pub outdated: bool,
    /// The `[[actions]]` entry whose image the next instance runs (R71).
    pub image: Option<u32>,
    /// The runtime holds a record of an instance of it: it started in this
    /// Pod and no kubelet restart forgot it (R75). The init walk's frontier
    /// is the last init container or sidecar with a record.
    pub recorded: bool,
}

impl Container {
    /// A container of a Pod that was just created.
    pub const NEW: Container = Container {
        state: State::Waiting,
        attempt: 0,
        failures_used: 0,
        pulls_failed: 0,
        backoff_streak: 0,
        last_start: SimTime::ZERO,
        has_run: false,
        workers: [None; 3],
        outdated: false,
        image: None,
        recorded: false,
    };

    pub fn is_running(&self) -> bool {
        matches!(self.state, State::Running(_))
    }

    pub fn instance(&self) -> Option<&Instance> {
        match &self.state {
            State::Running(instance) => Some(instance),
            _ => None,
        }
    }

    pub fn instance_mut(&mut self) -> Option<&mut Instance> {
        match &mut self.state {
            State::Running(instance) => Some(instance),
            _ => None,
        }
    }
}

/// Where a container is in its life, as the runtime sees it.
#[derive(Clone, Copy, Debug)]
pub(super) enum State {
    /// Not started: held by the init order, or its back-off expired.
    Waiting,
    /// An instance runs (booting, serving or being killed).
    Running(Instance),
    /// Exited, waiting out its CrashLoopBackOff delay (R14).
    BackOff,
    /// Never started: its image pull failed, and the next one waits out
    /// the image back-off (R67).
    PullBackOff,
    /// Exited, not to be started again.
    Exited(ExitReason),
}

/// The instance that runs now: everything a new start resets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Instance {
    /// Booted: the process does its job (and is alive for exposure).
    pub booted: bool,
    /// What the kubelet counts it (R21).
    pub condition: Condition,
    /// A kill under way, if any (R35).
    pub kill: Option<Kill>,
    /// When its boot ends: from then on it answers its probes.
    pub boot_end: SimTime,
    /// When it got SIGTERM, if it did (`fails_after_sigterm`, R53).
    pub sigterm_at: Option<SimTime>,
    /// Its postStart hook runs: it is not started yet (R65).
    pub in_post_start: bool,
}

impl Instance {
    /// A process just started.
    pub const NEW: Instance = Instance {
        booted: false,
        condition: Condition::NotStarted,
        kill: None,
        boot_end: SimTime::ZERO,
        sigterm_at: None,
        in_post_start: false,
    };
}

/// The kubelet's `Started` and `Ready` (R21), in the only order they come:
/// Ready implies Started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Condition {
    NotStarted,
    Started,
    Ready,
}

/// A kill of the instance: who asked, and how far it has got.
#[derive(Clone, Copy, Debug)]
pub(super) struct Kill {
    pub by: Killer,
    pub stop: Stop,
}

/// Who kills an instance; a probe's kill is followed by a restart (R12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Killer {
    /// The Pod's termination (R34).
    Termination,
    /// A startup or liveness probe that failed (R12, R31).
    Probe,
    /// Its postStart hook, which failed (R66).
    PostStart,
    /// A changed image (R71): the new one starts after the exit.
    Update,
}

/// The steps of `killContainer` (R35).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The preStop hook runs since `since`, with `grace` to spend in all.
    Hook { since: SimTime, grace: SimDuration },
    /// A sidecar waits for its turn since `since`, with `budget` of grace left (R36).
    AwaitingTurn { since: SimTime, budget: SimDuration },
    /// SIGTERM sent: the process drains until it exits or SIGKILL.
    Draining,
}

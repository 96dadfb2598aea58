//! Termination (R33–R41): every running container is killed at once with the
//! Pod's grace period — preStop first, then SIGTERM, SIGKILL at the stop
//! timeout — except that a sidecar's SIGTERM waits for the apps and for the
//! sidecars declared after it (`sidecar_waits_for_apps`). A failed probe's
//! kill (R12) takes the same steps for one container.
//!
//! Invariant: one budget per kill. The grace counts from the kill's start
//! and pays for the preStop hook and the wait for a sidecar's turn, each
//! truncated to whole seconds as the kubelet does; the only extra time
//! anyone gets is the 2 s floor of the stop timeout (R37).

use super::container::{Kill, Killer, Stop};
use super::event::PodEvent;
use super::history::{Change, Observer};
use super::spec::{ContainerId, ContainerKind, Drain, PodRun, Reaction};
use super::{Cause, PodModel, Stage};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;

/// The kubelet's per-container minimum stop timeout (`minimumGracePeriodInSeconds`, R35).
const MIN_STOP_TIMEOUT: SimDuration = SimDuration::from_secs(2);
/// The kubelet never terminates a Pod with less grace than this (R33).
pub(super) const MIN_POD_GRACE: SimDuration = SimDuration::from_secs(1);

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The Pod's own grace period, as the kubelet floors it (R33): what a
    /// termination, an update or a failed postStart hook gives a kill.
    pub(super) fn pod_grace(&self) -> SimDuration {
        self.run.pod().termination_grace_period.max(MIN_POD_GRACE)
    }

    /// `kubectl delete` reached the kubelet (R33, R34), with its own
    /// `--grace-period` if it has one (R70).
    pub(super) fn deletion_requested(
        &mut self,
        now: SimTime,
        grace_period: Option<SimDuration>,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let grace = grace_period
            .unwrap_or(self.run.pod().termination_grace_period)
            .max(MIN_POD_GRACE);
        if self.deleted {
            return self.deleted_again(now, grace, s);
        }
        self.deleted = true;
        self.grace = grace;
        self.emit(now, None, Change::DeletionRequested { grace });
        // SyncTerminatingPod generates the status first (R52). A sync held
        // by a postStart hook or a probe's kill runs to its end first (R13,
        // R41, R65).
        self.synced(now, s);
        if !self.is_terminating() && self.held_by.is_none() {
            self.begin_termination(now, Cause::Deleted, s);
        }
    }

    /// Kill every running container (R34): preStop hooks all start now.
    pub(super) fn begin_termination(&mut self, now: SimTime, cause: Cause, s: &mut Scheduler<'_, PodEvent>) {
        let grace = self.grace;
        self.stage = Stage::Terminating(cause);
        self.stop_liveness_and_startup(now);
        // Nothing starts from here on (R40), so whatever runs now is what
        // ran when termination began.
        self.last_sidecar = self.running_sidecar_before(self.containers.len());
        for id in self.ids() {
            // A container already being killed (a probe failure) keeps its own kill.
            let unkilled = self.container(id).instance().is_some_and(|i| i.kill.is_none());
            if unkilled {
                self.begin_kill(id, now, grace, Killer::Termination, s);
            }
        }
        self.note_if_stopped(now);
        self.note_phase(now);
    }

    /// Once termination has begun, an exit may end it, and may be the one a
    /// waiting sidecar waited for. No container restarts any more (R40).
    pub(super) fn exited_while_terminating(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        if self.last_sidecar == Some(id) {
            // Each exit moves the search down; a termination scans once in all.
            self.last_sidecar = self.running_sidecar_before(id.index());
        }
        self.release_waiting_sidecar(now, s);
        self.note_if_stopped(now);
        self.note_phase(now);
    }

    /// Termination is over when no container runs any more.
    pub(super) fn note_if_stopped(&mut self, now: SimTime) {
        if let Stage::Terminating(cause) = self.stage
            && self.running == 0
        {
            self.stage = Stage::Stopped(cause);
            self.emit(now, None, Change::ContainersStopped);
        }
    }

    /// `killContainer` (R35): the preStop hook first, within `grace`.
    #[inline]
    pub(super) fn begin_kill(
        &mut self,
        id: ContainerId,
        now: SimTime,
        grace: SimDuration,
        by: Killer,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        self.has_killed = true;
        let Some(hook) = &self.spec_of(id).pre_stop else {
            return self.after_pre_stop(id, now, grace, by, s);
        };
        let pre_stop = self.draw(id, DrawKey::PreStop, hook);
        self.emit(now, Some(id), Change::PreStopStarted);
        if pre_stop == SimDuration::ZERO {
            // R58: a hook that returns at once ran, and took no time; no
            // event in between keeps every other change in its order.
            self.emit(now, Some(id), Change::PreStopFinished { cut_off: false });
            return self.after_pre_stop(id, now, grace, by, s);
        }
        let attempt = self.enter_stop(id, by, Stop::Hook { since: now, grace });
        s.after(
            pre_stop.min(grace),
            PodEvent::PreStopFinished {
                container: id,
                attempt,
            },
        );
    }

    /// The hook returned, or the grace period cut it off (R38).
    pub(super) fn pre_stop_finished(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let kill = self.container(id).instance().and_then(|i| i.kill);
        let Some(Kill {
            by,
            stop: Stop::Hook { since, grace },
        }) = kill
        else {
            return;
        };
        let elapsed = now.since(since);
        let hook = self.spec_of(id).pre_stop.as_ref();
        let cut_off = hook.is_some_and(|d| self.draw(id, DrawKey::PreStop, d) > elapsed);
        self.emit(now, Some(id), Change::PreStopFinished { cut_off });
        self.after_pre_stop(id, now, grace - elapsed.floor_secs(), by, s);
    }

    /// The rest of `killContainer` once the hook is over, with `budget` of
    /// grace left: a sidecar may have to wait for its turn (R35, R36).
    #[inline]
    fn after_pre_stop(
        &mut self,
        id: ContainerId,
        now: SimTime,
        budget: SimDuration,
        by: Killer,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let ordered = self.is_terminating() && self.run.pod().kubernetes.orders_sidecar_termination();
        let must_wait = ordered
            && self.kind(id) == ContainerKind::Sidecar
            && budget > SimDuration::ZERO
            && self.sidecar_waits_for_apps(id);
        if !must_wait {
            return self.sigterm(id, now, budget, by, s);
        }
        let attempt = self.enter_stop(id, by, Stop::AwaitingTurn { since: now, budget });
        self.emit(now, Some(id), Change::AwaitingTurn);
        s.after(
            budget,
            PodEvent::TurnWaitExpired {
                container: id,
                attempt,
            },
        );
    }

    /// R36: a sidecar's SIGTERM waits until every app container and every
    /// later-declared sidecar that was running when termination began has
    /// exited; regular init containers never hold it back (R41).
    fn sidecar_waits_for_apps(&self, sidecar: ContainerId) -> bool {
        self.running_apps > 0 || self.last_sidecar.is_some_and(|last| last > sidecar)
    }

    /// The last-declared sidecar still running among the first `end` containers.
    fn running_sidecar_before(&self, end: usize) -> Option<ContainerId> {
        (0..end as u32)
            .rev()
            .map(ContainerId)
            .find(|&id| self.kind(id) == ContainerKind::Sidecar && self.container(id).is_running())
    }

    /// After an exit: the sidecar whose turn has come gets SIGTERM. Only
    /// the last-declared one still running can be it, since it holds back
    /// every earlier one until it exits.
    fn release_waiting_sidecar(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let Some(last) = self.last_sidecar else {
            return;
        };
        let waiting = matches!(
            self.container(last).instance().and_then(|i| i.kill),
            Some(Kill {
                stop: Stop::AwaitingTurn { .. },
                ..
            })
        );
        if waiting && !self.sidecar_waits_for_apps(last) {
            self.end_turn_wait(last, now, s);
        }
    }

    /// The turn came, or the wait used up the budget (R37): SIGTERM now.
    pub(super) fn end_turn_wait(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let kill = self.container(id).instance().and_then(|i| i.kill);
        let Some(Kill {
            by,
            stop: Stop::AwaitingTurn { since, budget },
        }) = kill
        else {
            return;
        };
        self.sigterm(id, now, budget - now.since(since).floor_secs(), by, s);
    }

    /// Moves `id`'s instance to the next stage of its kill; returns the
    /// attempt, which the event that ends the stage carries (so a restart
    /// in between makes that event stale).
    fn enter_stop(&mut self, id: ContainerId, by: Killer, stop: Stop) -> u32 {
        let c = self.container_mut(id);
        if let Some(instance) = c.instance_mut() {
            instance.kill = Some(Kill { by, stop });
        }
        c.attempt
    }

    /// SIGTERM with a stop timeout of what is left of the grace, at least
    /// 2 s; the process exits after its drain, or SIGKILL at the timeout.
    #[inline]
    fn sigterm(
        &mut self,
        id: ContainerId,
        now: SimTime,
        budget: SimDuration,
        by: Killer,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let timeout = budget.max(MIN_STOP_TIMEOUT);
        let spec = self.spec_of(id);
        let signal = spec.stop_signal;
        // R55: a process that ignores the signal lives until SIGKILL; R59:
        // one it has no handler for ends it at once, or leaves it running.
        let drain = match (Reaction::of(signal, spec.drains_on), &spec.drain) {
            (Reaction::Drains, Drain::After(dist)) => Some(self.draw(id, DrawKey::Drain, dist)),
            (Reaction::Dies(_), _) => Some(SimDuration::ZERO),
            (Reaction::Drains, Drain::Never) | (Reaction::Survives, _) => None,
        };
        let attempt = self.enter_stop(id, by, Stop::Draining);
        self.emit(now, Some(id), Change::Sigterm { timeout, signal });
        self.probes_see_sigterm(id, now, s);
        let (after, event) = match drain {
            Some(drain) if drain <= timeout => (
                drain,
                PodEvent::Drained {
                    container: id,
                    attempt,
                },
            ),
            _ => (
                timeout,
                PodEvent::Killed {
                    container: id,
                    attempt,
                },
            ),
        };
        s.after(after, event);
    }
}

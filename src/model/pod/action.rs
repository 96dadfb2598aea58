//! What `[[actions]]` scripts during a run, as the kubelet meets it
//! (docs/kubelet-rules.md R70–R75): a later delete that shortens the grace,
//! a container's image changed in the running Pod, a kubelet restart; a
//! node reboot is `restart_all`'s (R76–R79).
//!
//! Invariant: an image's new timings are swapped into the run's `PodSpec`
//! only for the rest of the run, and swapped back, in reverse order, when
//! the run ends (`restore_images`), so the spec a sweep writes its axes
//! into between runs is always the scenario's own.

use super::container::{Condition, Killer, State, Stop};
use super::event::PodEvent;
use super::history::{Change, ExitReason, Observer, UpdateEffect};
use super::spec::{ActionKind, ActionTime, ContainerId, ContainerKind, PodRun, PodSpec, ProbeKind};
use super::{PodModel, Stage};
use crate::engine::{Scheduler, SimDuration, SimTime};

/// The kubelet's per-container minimum stop timeout (R35), as termination has it.
const MIN_STOP_TIMEOUT: SimDuration = SimDuration::from_secs(2);

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// Schedules every action whose time is `of` that kind: those `At` a
    /// time at creation, those `AfterReady` when the Pod is first Ready.
    #[inline]
    pub(super) fn schedule_actions(
        &mut self,
        of: fn(SimDuration) -> ActionTime,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        // Most Pods script nothing: that check stays inline.
        if !self.run.pod().actions.is_empty() {
            self.schedule_actions_of(of, now, s);
        }
    }

    #[inline(never)]
    fn schedule_actions_of(
        &mut self,
        of: fn(SimDuration) -> ActionTime,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        for (i, action) in self.run.pod().actions.iter().enumerate() {
            let delay = match action.when {
                ActionTime::At(d) | ActionTime::AfterReady(d) => d,
            };
            if action.when == of(delay) {
                s.at(now + delay, PodEvent::ActionDue { action: i as u32 });
            }
        }
    }

    /// Action `index` is due.
    pub(super) fn action_due(&mut self, index: u32, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let Some(action) = self.run.pod().actions.get(index as usize) else {
            return;
        };
        match action.kind {
            ActionKind::Delete { grace_period } => self.deletion_requested(now, grace_period, s),
            ActionKind::UpdateImage { container, .. } => self.update_image(index, container, now, s),
            ActionKind::KubeletRestart { forget_exited_init } => {
                self.kubelet_restart(forget_exited_init, now, s)
            }
            ActionKind::NodeReboot { down } => self.node_reboot(down, now, s),
        }
    }

    /// R74, R75: the kubelet restarts. Containers run on; it re-reads their
    /// state, its probe workers start afresh, and its first sync may find
    /// the Pod not initialized if the runtime forgot the init containers.
    /// A terminating Pod goes on terminating (podsim does not kill twice).
    fn kubelet_restart(&mut self, forget_exited_init: bool, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        self.emit(now, None, Change::KubeletRestarted);
        // A node that is down has no kubelet to restart.
        if self.is_terminating() || self.stage == Stage::NodeDown {
            return;
        }
        for id in self.ids() {
            self.restart_workers(id, now, s);
        }
        if forget_exited_init {
            self.forget_exited_init();
        }
        // The new kubelet's first sync.
        self.synced(now, s);
        self.sync(now, s);
        self.note_phase(now);
    }

    /// R75: the runtime's records of completed init containers are gone.
    /// `computeInitContainerActions` counts the Pod initialized only while
    /// an app container runs (or is created); otherwise it walks the init
    /// list to the last container it has a record of, and what comes after
    /// it runs again: with no record at all, from the first init container.
    /// A regular init container without a record before that one is
    /// skipped (`status == nil` → `continue`), so a forgotten container
    /// keeps its exit (the API keeps a terminated status too,
    /// `convertToAPIContainerStatuses`): only the walk's own start runs it
    /// again. podsim looks at this at the restart's sync only.
    fn forget_exited_init(&mut self) {
        let app_runs = self
            .ids()
            .any(|id| self.kind(id) == ContainerKind::App && self.container(id).is_running());
        if app_runs {
            return;
        }
        let mut forgot = false;
        for id in self.ids() {
            let init = self.kind(id) == ContainerKind::Init;
            let c = self.container_mut(id);
            if init && matches!(c.state, State::Exited(ExitReason::Completed)) && c.recorded {
                c.recorded = false;
                forgot = true;
            }
        }
        if forgot {
            self.stage = Stage::Initializing;
            self.frontier = self
                .ids()
                .rev()
                .find(|&id| self.kind(id) != ContainerKind::App && self.container(id).recorded);
        }
    }

    /// R70: a delete after the first may shorten the grace, never lengthen
    /// it; every kill under way then ends by the new deadline, counted from
    /// now: a preStop hook or a sidecar's wait is cut off `grace` from now,
    /// and a container draining gets SIGKILL `max(grace, 2 s)` from now.
    /// Each cut is one more event; whichever of it and the kill's own comes
    /// first acts, and makes the other stale.
    pub(super) fn deleted_again(
        &mut self,
        now: SimTime,
        grace: SimDuration,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let shortened = grace < self.grace;
        if shortened {
            self.grace = grace;
        }
        let grace = self.grace;
        self.emit(now, None, Change::DeletionRepeated { grace, shortened });
        if !shortened {
            return;
        }
        for id in self.ids() {
            let c = self.container_mut(id);
            let attempt = c.attempt;
            let Some(kill) = c.instance_mut().and_then(|i| i.kill.as_mut()) else {
                continue;
            };
            // What the stage had to spend, and what it may spend now: the
            // seconds it used (truncated, R35) and the new grace.
            let (event, cut) = match &mut kill.stop {
                Stop::Hook { since, grace: budget } | Stop::AwaitingTurn { since, budget } => {
                    *budget = (*budget).min(now.since(*since).floor_secs() + grace);
                    let event = match kill.stop {
                        Stop::Hook { .. } => PodEvent::PreStopFinished {
                            container: id,
                            attempt,
                        },
                        _ => PodEvent::TurnWaitExpired {
                            container: id,
                            attempt,
                        },
                    };
                    (event, grace)
                }
                Stop::Draining => (
                    PodEvent::Killed {
                        container: id,
                        attempt,
                    },
                    grace.max(MIN_STOP_TIMEOUT),
                ),
            };
            s.at(now + cut, event);
        }
    }

    /// R71–R73: container `id`'s image changed in the Pod's spec, with the
    /// timings of action `index`. What the kubelet does depends on where
    /// the Pod and the container are (`computePodActions`,
    /// `computeInitContainerActions`).
    fn update_image(&mut self, index: u32, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        // R73: a terminating Pod's containers are only killed.
        if self.is_terminating() {
            return self.emit(now, Some(id), Change::ImageUpdated(UpdateEffect::Ignored));
        }
        let kind = self.kind(id);
        let startup_probe = self.spec_of(id).probe(ProbeKind::Startup).is_some();
        let initialized = self.stage == Stage::Initialized;
        let c = self.container(id);
        let effect = match (kind, &c.state) {
            // R77: the node is down; every container starts again when it is
            // back, with the new image.
            _ if self.stage == Stage::NodeDown => UpdateEffect::NextStart,
            // R72: after initialization no regular init container runs
            // again; before it, a running one runs on, and a completed one
            // is done.
            (ContainerKind::Init, _) if initialized => UpdateEffect::Ignored,
            (ContainerKind::Init, State::Running(_) | State::Waiting) => UpdateEffect::NextStart,
            // R75: one the runtime forgot runs its spec if the walk starts it again.
            (ContainerKind::Init, State::Exited(_)) if !c.recorded => UpdateEffect::NextStart,
            (ContainerKind::Init, State::Exited(_)) => UpdateEffect::Ignored,
            // A kill under way (a probe's) ends in a restart anyway; the
            // restart runs the new image.
            (_, State::Running(i)) if i.kill.is_some() => UpdateEffect::NextStart,
            // R72: a sidecar is looked at for a change only once its
            // startup probe has passed.
            (ContainerKind::Sidecar, State::Running(i))
                if startup_probe && i.condition < Condition::Started =>
            {
                UpdateEffect::AfterStartup
            }
            (_, State::Running(_)) => UpdateEffect::Restart,
            (_, State::Waiting) => UpdateEffect::NextStart,
            // R17: the back-off key holds the image, so the new one has none.
            (_, State::BackOff) => UpdateEffect::StartsNow,
            // R67: so does the image back-off's: the new image is pulled at once.
            (_, State::PullBackOff) => UpdateEffect::StartsNow,
            // R11: an app that exited for good stays exited.
            (_, State::Exited(_)) => UpdateEffect::Ignored,
        };
        self.emit(now, Some(id), Change::ImageUpdated(effect));
        if effect != UpdateEffect::Ignored {
            // The next instance runs it; a later update replaces it.
            self.container_mut(id).image = Some(index);
        }
        match effect {
            UpdateEffect::Restart => self.kill_for_update(id, now, s),
            UpdateEffect::StartsNow => self.start_new_image(id, now, s),
            // R17: whatever ends the old instance first — its startup probe
            // passing (a sidecar's deferred restart), a crash, a probe kill,
            // a failed init container's exit — the next start is the new
            // image's, whose back-off key has no entry: `doBackOff` starts it
            // at once, and its streak starts from zero.
            UpdateEffect::AfterStartup => {
                let c = self.container_mut(id);
                c.outdated = true;
                c.backoff_streak = 0;
            }
            UpdateEffect::NextStart => self.container_mut(id).backoff_streak = 0,
            UpdateEffect::Ignored => {}
        }
    }

    /// A sidecar updated before its startup probe passed: it has now (R72).
    #[inline]
    pub(super) fn restart_if_outdated(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        if self.container(id).outdated {
            self.container_mut(id).outdated = false;
            self.kill_for_update(id, now, s);
        }
    }

    /// R71: `killContainer` with the Pod's grace (no probe's, no deletion's:
    /// `setTerminationGracePeriod` with no reason); the new image starts
    /// after the exit (`start_new_image`).
    fn kill_for_update(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let grace = self.pod_grace();
        self.begin_kill(id, now, grace, Killer::Update, s);
    }

    /// The old image exited, or waited out a back-off: the new one starts
    /// at once, whatever the restart policy (R71), with a back-off of its
    /// own from zero (R17).
    pub(super) fn start_new_image(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let c = self.container_mut(id);
        c.backoff_streak = 0;
        c.state = State::Waiting;
        self.sync_after_back_off(id, now, s);
    }

    /// The instance starting now runs the image its container waits for:
    /// action `index`'s timings take the container's place, the old ones
    /// kept in the action, to be swapped back when the run ends.
    #[inline(never)]
    pub(super) fn swap_image(&mut self, id: ContainerId) {
        let Some(index) = self.container_mut(id).image.take() else {
            return;
        };
        if swap_timings(self.run.pod_mut(), index) {
            self.swapped.push(index);
        }
    }

    /// The scenario's own timings back in place, last swap first.
    pub(super) fn restore_images(&mut self) {
        while let Some(index) = self.swapped.pop() {
            swap_timings(self.run.pod_mut(), index);
        }
    }
}

/// Swaps action `index`'s image timings with its container's, both ways
/// alike (a swap undoes itself), so the start and the end of a run cannot
/// disagree on which timings go where; whether there was anything to swap.
#[inline(always)]
fn swap_timings(pod: &mut PodSpec, index: u32) -> bool {
    if let Some(ActionKind::UpdateImage {
        container,
        timings: Some(timings),
    }) = pod.actions.get_mut(index as usize).map(|a| &mut a.kind)
        && let Some(spec) = pod.containers.get_mut(container.index())
    {
        std::mem::swap(spec, timings.as_mut());
        return true;
    }
    false
}

//! postStart hooks (R65, R66): `startContainer` runs the hook right after
//! the runtime started the process and blocks on it, so the container is
//! not started until it returns, and the Pod worker's sync — which starts
//! the Pod's containers one after another — starts nothing else meanwhile.
//! A failed hook kills the container (FailedPostStartHook) inside the same
//! sync; it restarts per policy.
//!
//! Invariant: `held_by` names the container whose hook (or the kill after
//! its failure), or whose failed probe's kill (R13), holds the sync; while
//! it is set `start` starts nothing, and whoever clears it resumes the
//! sync, so a container the hold kept waiting starts the instant the hold
//! ends, in spec order.

use super::container::Killer;
use super::event::PodEvent;
use super::history::{Change, Observer};
use super::spec::{ContainerId, PodRun, PostStart};
use super::{Cause, PodModel};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The runtime started `id`'s process; its postStart hook runs now and
    /// holds the sync until it returns (R65).
    pub(super) fn begin_post_start(&mut self, id: ContainerId, s: &mut Scheduler<'_, PodEvent>) {
        let Some(hook) = self.spec_of(id).post_start.as_ref() else {
            return;
        };
        let duration = match hook {
            PostStart::For(d) => self.draw(id, DrawKey::PostStart, d),
            // The boot's end is known from the start on; a hook that waits
            // for it returns after the boot (its event is queued first).
            PostStart::UntilBooted => self
                .container(id)
                .instance()
                .map_or(SimDuration::ZERO, |i| i.boot_end.since(s.now())),
        };
        let c = self.container_mut(id);
        if let Some(instance) = c.instance_mut() {
            instance.in_post_start = true;
        }
        let attempt = c.attempt;
        self.held_by = Some(id);
        s.after(
            duration,
            PodEvent::PostStartFinished {
                container: id,
                attempt,
            },
        );
    }

    /// The hook returned (R65) or failed (R66).
    pub(super) fn post_start_finished(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let Some(instance) = self.container_mut(id).instance_mut() else {
            return;
        };
        instance.in_post_start = false;
        // A termination that could not wait (its apps finished) may have
        // begun the kill already; the hook's result changes nothing then.
        let killed = instance.kill.is_some();
        let failed = self.spec_of(id).post_start_fails;
        self.emit(now, Some(id), Change::PostStartFinished { failed });
        if failed && !killed {
            // `killContainer` with the Pod's grace, preStop included; the
            // sync stays held until the container has exited.
            let grace = self.pod_grace();
            return self.begin_kill(id, now, grace, Killer::PostStart, s);
        }
        if !killed {
            let booted = self.container(id).instance().is_some_and(|i| i.booted);
            self.start_returned(id, booted, now, s);
        }
        if self.take_hold(id) {
            self.resume_sync(now, s);
        }
    }

    /// Clears the hold if `id` has it; says whether it had.
    #[inline]
    pub(super) fn take_hold(&mut self, id: ContainerId) -> bool {
        let held = self.held_by == Some(id);
        if held {
            self.held_by = None;
        }
        held
    }

    /// The held sync goes on: a deletion that arrived meanwhile begins the
    /// termination now (R41); otherwise the containers still to start do.
    pub(super) fn resume_sync(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        if self.deleted && !self.is_terminating() {
            return self.begin_termination(now, Cause::Deleted, s);
        }
        self.sync(now, s);
    }
}

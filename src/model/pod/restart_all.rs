//! The Pod started over from its first init container: a
//! `RestartAllContainers` rule (KEP-5532, R61) kills every container at
//! once — no preStop, no grace — keeping the sandbox; a node reboot
//! (R76–R79) loses the sandbox and every container with the node, and the
//! kubelet, back, makes a new sandbox and starts over the same way.
//!
//! Invariant: after a start-over no container has a status the init order
//! could read (`Container::recorded`), so `sync` starts the chain from
//! the top exactly as at creation; attempts keep counting, so every
//! container that starts again counts a restart (R20) and draws afresh.

use super::container::State;
use super::event::PodEvent;
use super::history::{Change, ExitReason, Observer};
use super::spec::{ContainerKind, PodRun, RestartPolicy};
use super::{Cause, PodModel, Stage};
use crate::engine::{Scheduler, SimDuration, SimTime};

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The kubelet sets `AllContainersRestarting`, removes every container
    /// and runs the normal startup again (R61).
    pub(super) fn restart_all(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        self.emit(now, None, Change::AllContainersRestarting);
        self.end_all(now, ExitReason::Killed, s);
        self.start_over(false, now, s);
    }

    /// R76: the node goes down. Every running container stops at once
    /// with the node (nothing runs a preStop hook or waits for a grace),
    /// and nothing starts until the node is back. A Pod already
    /// terminating ends its termination here: nothing is left to stop.
    pub(super) fn node_reboot(&mut self, down: SimDuration, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        if matches!(self.stage, Stage::NodeDown | Stage::Stopped(_)) {
            return;
        }
        self.emit(now, None, Change::NodeRebooted { down });
        let terminating = self.is_terminating();
        if !terminating {
            self.stage = Stage::NodeDown;
        }
        self.end_all(now, ExitReason::NodeLost, s);
        if terminating {
            self.note_if_stopped(now);
        } else {
            s.at(now + down, PodEvent::NodeBack);
        }
        self.note_phase(now);
    }

    /// R77, R78: the kubelet is back and finds the Pod's sandbox gone
    /// (`podSandboxChanged`). Under `restartPolicy: Never` a Pod whose
    /// containers have statuses gets no new sandbox: its containers stay
    /// exited and the Pod fails. Otherwise every container is killed and
    /// the init containers start again from the first. A Pod deleted
    /// meanwhile is terminated already.
    pub(super) fn node_back(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        if self.stage != Stage::NodeDown {
            return;
        }
        let policy = self.run.pod().restart_policy;
        let recreated = policy != RestartPolicy::Never;
        self.emit(
            now,
            None,
            Change::NodeBack {
                sandbox_recreated: recreated,
            },
        );
        if recreated {
            self.start_over(policy == RestartPolicy::OnFailure, now, s);
        } else {
            self.stage = Stage::Stopped(Cause::NodeLost);
            self.emit(now, None, Change::ContainersStopped);
            self.note_phase(now);
        }
    }

    /// Every running container ends now for `reason`; a postStart hook
    /// under way holds the sync no longer.
    fn end_all(&mut self, now: SimTime, reason: ExitReason, s: &mut Scheduler<'_, PodEvent>) {
        self.held_by = None;
        for id in self.ids() {
            if self.container(id).is_running() {
                if reason == ExitReason::Killed {
                    // Killed with no grace: SIGKILL at once, 137.
                    self.emit(now, Some(id), Change::Sigkill);
                }
                self.end_instance(id, now, reason, s);
            }
        }
    }

    /// The startup from the first init container. With `keep_succeeded`
    /// (R79, `restartPolicy: OnFailure` after a new sandbox) an app that
    /// exited 0 is not started again.
    fn start_over(&mut self, keep_succeeded: bool, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        self.apps_done = 0;
        for id in self.ids() {
            let app = self.kind(id) == ContainerKind::App;
            let c = self.container_mut(id);
            if keep_succeeded && app && matches!(c.state, State::Exited(r) if r.is_success()) {
                self.apps_done += 1;
                continue;
            }
            // Pending back-offs are void: their events find it Waiting.
            c.state = State::Waiting;
            c.has_run = false;
            c.recorded = false;
        }
        self.stage = Stage::Initializing;
        self.frontier = None;
        self.note_phase(now);
        self.sync(now, s);
    }
}

//! `RestartAllContainers` (KEP-5532, R61): an app's exit that matches such
//! a rule kills every container at once — no preStop, no grace — and the
//! Pod, keeping its sandbox, starts over from its first init container.
//!
//! Invariant: after the restart no container has a status the init order
//! could read (`Container::recorded`), so `sync` starts the chain from
//! the top exactly as at creation; attempts keep counting, so every
//! container that starts again counts a restart (R20) and draws afresh.

use super::container::State;
use super::{PodModel, Stage};
use crate::engine::{Scheduler, SimTime};
use crate::model::event::PodEvent;
use crate::model::history::{Change, ExitReason, Observer};

impl<O: Observer> PodModel<O> {
    /// The kubelet sets `AllContainersRestarting`, removes every container
    /// and runs the normal startup again (R61).
    pub(super) fn restart_all(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        self.emit(now, None, Change::AllContainersRestarting);
        for id in self.ids() {
            if self.container(id).is_running() {
                // Killed with no grace: SIGKILL at once, 137.
                self.emit(now, Some(id), Change::Sigkill);
                self.end_instance(id, now, ExitReason::Killed, s);
            }
            let c = self.container_mut(id);
            // Pending back-offs are void: their events find it Waiting.
            c.state = State::Waiting;
            c.has_run = false;
            c.recorded = false;
        }
        self.apps_done = 0;
        self.stage = Stage::Initializing;
        self.note_phase(now);
        self.sync(now, s);
    }
}

//! A run's state saved just before its deletion is handled, and runs that
//! resume from it: a sweep's rows that differ only in what a kill reads
//! (drains, preStop hooks, stop signals, the grace period,
//! `Field::read_from_the_first_kill_on`) share everything up to their
//! deletion, so all but the first of them start from there.
//!
//! Invariant: a run resumed from a saved state ends exactly as it would
//! from Pod creation. That holds when nothing before the pause read a
//! field the resumed spec may change: no container was killed, no
//! deletion arrived (an action's, whose grace the model keeps) and no
//! update swapped timings into the spec. A run that killed first does not
//! pause, so it saves nothing.

use super::PodModel;
use super::event::PodEvent;
use super::history::Observer;
use super::spec::PodRun;

impl<O: Observer + Clone, R: PodRun> PodModel<O, R> {
    /// Whether a run may pause before `event` to save its state: it is
    /// the deletion, and nothing a resumed spec may change was read yet.
    pub(crate) fn pauses_before(&self, event: &PodEvent) -> bool {
        matches!(event, PodEvent::DeletionRequested)
            && !self.has_killed
            && !self.deleted
            && self.swapped.is_empty()
    }

    /// Takes `saved`'s run state, keeping this model's spec. Every field is
    /// named, so a field added to the model must be placed here. The
    /// grace noted at the reset comes along: nothing reads it before the
    /// deletion, which notes the spec's afresh.
    pub(crate) fn copy_run_state_from(&mut self, saved: &Self) {
        let PodModel {
            run: _,
            containers,
            workers,
            stage,
            held_by,
            shape,
            deleted,
            has_killed,
            grace,
            has_been_ready,
            pod_ready,
            ready_count,
            awaiting_readiness,
            alive_apps,
            alive_proxies,
            running,
            running_apps,
            apps_done,
            last_sidecar,
            frontier,
            exposed,
            meters,
            observer,
            reported_phase,
            swapped,
        } = saved;
        self.containers.clone_from(containers);
        self.workers.clone_from(workers);
        self.stage = *stage;
        self.held_by = *held_by;
        self.shape = *shape;
        self.deleted = *deleted;
        self.has_killed = *has_killed;
        self.grace = *grace;
        self.has_been_ready = *has_been_ready;
        self.pod_ready = *pod_ready;
        self.ready_count = *ready_count;
        self.awaiting_readiness = *awaiting_readiness;
        self.alive_apps = *alive_apps;
        self.alive_proxies = *alive_proxies;
        self.running = *running;
        self.running_apps = *running_apps;
        self.apps_done = *apps_done;
        self.last_sidecar = *last_sidecar;
        self.frontier = *frontier;
        self.exposed = *exposed;
        self.meters = *meters;
        self.observer.clone_from(observer);
        self.reported_phase = *reported_phase;
        self.swapped.clone_from(swapped);
    }
}

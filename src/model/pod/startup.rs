//! Startup order: the kubelet's sync starts init containers one at a time,
//! sidecars as gates, then every app together (R1, R4–R7); and what a start
//! and the end of a boot change.
//!
//! Invariant: only a sync starts a container, and a sync runs only where a
//! start can follow: at creation, when an init container completed, when a
//! sidecar started, when a back-off expired, when a postStart hook that
//! held the sync is over (R65), and when a failed probe's kill that held it
//! is over (R13).

use super::container::{Condition, Instance, State};
use super::event::PodEvent;
use super::history::{Change, ExitReason, Observer};
use super::spec::{ContainerId, ContainerKind, PodRun, ProbeKind};
use super::{PodModel, Stage};
use crate::engine::{Scheduler, SimTime};
use crate::model::dist::Probability;
use crate::model::draw::DrawKey;

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The kubelet's sync (R1, R4–R6): start whatever may start now.
    pub(super) fn sync(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        match self.stage {
            Stage::NodeDown | Stage::Terminating(_) | Stage::Stopped(_) => return,
            Stage::Initialized => {}
            Stage::Initializing => {
                if !self.sync_init_containers(now, s) {
                    return;
                }
                self.stage = Stage::Initialized;
            }
        }
        // Apps start together (R6); after initialization a sidecar restarts
        // independently of the others (R10).
        for id in self.ids() {
            if self.kind(id) != ContainerKind::Init && matches!(self.container(id).state, State::Waiting) {
                self.start(id, now, s);
            }
        }
    }

    /// `computeInitContainerActions` (R4, R5, R51): the init list is
    /// walked from its end to the last container that ever started, the
    /// frontier. Only the frontier decides whether the next one starts; every
    /// container before it that must run again (a sidecar, or a failed init
    /// container whose back-off is over) starts on its own schedule, whatever
    /// the others do. Returns whether the Pod is initialized now.
    fn sync_init_containers(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) -> bool {
        let Some(frontier) = self.frontier else {
            // Nothing started yet: the first init container starts.
            if let Some(first) = self.ids().find(|&id| self.kind(id) != ContainerKind::App) {
                self.start(first, now, s);
                return false;
            }
            return true;
        };
        for id in self.ids().take_while(|&id| id < frontier) {
            if self.kind(id) != ContainerKind::App && matches!(self.container(id).state, State::Waiting) {
                self.start(id, now, s);
            }
        }
        // A sidecar started above that counts as started at once syncs
        // again (`mark_started`, R5), and that sync may have moved the
        // frontier past a completed one: the walk goes on from where it is
        // now, or it would start the next init container a second time.
        let frontier = self.frontier.unwrap_or(frontier);
        let c = self.container(frontier);
        let initialized = match (self.kind(frontier), &c.state) {
            (ContainerKind::Init, State::Exited(ExitReason::Completed)) => true,
            (ContainerKind::Sidecar, State::Running(i)) => i.condition >= Condition::Started,
            (_, State::Waiting) => {
                self.start(frontier, now, s);
                false
            }
            _ => false,
        };
        if !initialized {
            return false;
        }
        match self
            .ids()
            .find(|&id| id > frontier && self.kind(id) != ContainerKind::App)
        {
            Some(next) => {
                self.start(next, now, s);
                false
            }
            None => true,
        }
    }

    /// The sync after `id`'s back-off expired. Once the Pod is initialized
    /// it can start nothing else: every other app and sidecar runs or waits
    /// out a back-off of its own (restarts are independent then, R10), so
    /// it starts `id` without walking every container, which made a crash
    /// loop cost O(containers) per restart.
    pub(super) fn sync_after_back_off(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        match self.stage {
            Stage::Initialized if self.kind(id) != ContainerKind::Init => self.start(id, now, s),
            _ => self.sync(now, s),
        }
    }

    /// A new instance: its boot begins, and its scripted crash is set. A
    /// sync held by a postStart hook starts nothing (R65), and a container
    /// whose image does not pull does not start (R67).
    fn start(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        if self.held_by.is_some() || (self.shape().pulls_may_fail && self.pull_blocks(id, now, s)) {
            return;
        }
        if self.container(id).image.is_some() {
            self.swap_image(id);
        }
        self.running += 1;
        if self.kind(id) == ContainerKind::App {
            self.running_apps += 1;
        } else if self.frontier < Some(id) {
            self.frontier = Some(id);
        }
        let c = self.container_mut(id);
        c.attempt += 1;
        c.last_start = now;
        c.outdated = false;
        c.recorded = true;
        c.state = State::Running(Instance::NEW);
        let attempt = c.attempt;
        // The attempt is counted first: its draws are keyed by it.
        let spec = self.spec_of(id);
        let hooked = spec.post_start.is_some();
        let boot = self.draw(id, DrawKey::Boot, &spec.boot);
        let crash = spec
            .crash_after
            .get(attempt as usize - 1)
            .map(|d| self.draw(id, DrawKey::CrashAfter, d));
        if let Some(instance) = self.container_mut(id).instance_mut() {
            instance.boot_end = now + boot;
        }
        self.emit(now, Some(id), Change::Starting { attempt });
        s.after(
            boot,
            PodEvent::BootFinished {
                container: id,
                attempt,
            },
        );
        if let Some(after) = crash {
            s.after(
                after,
                PodEvent::Crashed {
                    container: id,
                    attempt,
                },
            );
        }
        if hooked {
            self.begin_post_start(id, s);
        } else {
            // A new instance has not booted yet.
            self.start_returned(id, false, now, s);
        }
        self.note_phase(now);
    }

    /// `startContainer` returned: at the start, or when the postStart hook
    /// did (R65). An init container's boot is its work, and a probed
    /// container's boot is the time until it answers its probes: both show
    /// Running from here. Without probes, boot is image pull, create and
    /// the rest of the process's start-up, and the API shows the container
    /// waiting until both the boot and the hook are over (R7). Inlined
    /// into `start`, where `booted` is false, it costs what the code it
    /// replaced did (out of line it cost a sweep 3 %).
    #[inline(always)]
    pub(super) fn start_returned(
        &mut self,
        id: ContainerId,
        booted: bool,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let spec = self.spec_of(id);
        let (kind, probed) = (spec.kind, spec.has_probes());
        let startup_probe = spec.probe(ProbeKind::Startup).is_some();
        if kind == ContainerKind::Init || probed || booted {
            self.show_running(id, now, s);
        }
        if probed {
            // Without a startup probe the kubelet counts it started at once (R21).
            if startup_probe {
                self.plan_probe(id, ProbeKind::Startup, now, s);
            } else {
                self.mark_started(id, now, s);
            }
        } else if booted {
            self.mark_started(id, now, s);
        }
    }

    /// The API shows the container Running from now on; the start is a
    /// sync of the Pod (PLEG), which triggers readiness runs (R52).
    fn show_running(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        self.container_mut(id).has_run = true;
        self.emit(now, Some(id), Change::Running);
        self.synced(now, s);
    }

    /// The boot is over: an init container completed (or failed), another
    /// container is alive and, without probes, started.
    pub(super) fn boot_finished(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let spec = self.spec_of(id);
        let (fails, kind, probed) = (spec.fails, spec.kind, spec.has_probes());
        let failure = ExitReason::Failed(spec.failure_code());
        let chance = spec.fail_probability;
        let run = spec.run.as_ref().map(|d| self.draw(id, DrawKey::Run, d));
        let fails_by_chance =
            chance != Probability::NEVER && chance.happens(self.uniform(id, DrawKey::Failure));
        let c = self.container_mut(id);
        if c.failures_used < fails {
            c.failures_used += 1;
            return self.exit(id, now, failure, s);
        }
        if fails_by_chance {
            return self.exit(id, now, failure, s);
        }
        if kind == ContainerKind::Init {
            return self.exit(id, now, ExitReason::Completed, s);
        }
        let attempt = c.attempt;
        let mut hooked = false;
        if let Some(instance) = c.instance_mut() {
            instance.booted = true;
            hooked = instance.in_post_start;
        }
        // Its hook still runs: the end of the hook makes it started (R65).
        let shown = !probed && !hooked;
        if shown {
            self.show_running(id, now, s);
        }
        self.emit(now, Some(id), Change::Alive { probed });
        self.set_alive(id, true, now);
        if let Some(run) = run {
            s.after(
                run,
                PodEvent::RunFinished {
                    container: id,
                    attempt,
                },
            );
        }
        if shown {
            self.mark_started(id, now, s);
        }
    }
}

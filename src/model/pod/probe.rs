//! Started and Ready (R21–R23), and the probes that decide them (R27–R32,
//! R52, R53): one worker per container and probe, ticking on a grid
//! anchored at its creation, counting consecutive results.
//!
//! Invariant: only the tick that decides something is scheduled. Whatever a
//! probe finds, it passes inside one window of the instance's life and fails
//! outside it, so the tick that publishes a change is known when the worker
//! starts a stretch (`Stretch::decisive`); the ticks before it change
//! nothing and cost nothing, and are counted when the stretch ends. A Pod
//! whose probes cannot change anything any more has an empty queue.

use super::PodModel;
use super::container::{Condition, Killer};
use super::event::PodEvent;
use super::history::{Change, Observer};
use super::spec::{ActionTime, ContainerId, ContainerKind, Deletion, PodRun, Probe, ProbeKind, ProbeOutcome};
use super::stretch::{Stretch, Window};
use super::termination::MIN_POD_GRACE;
use super::worker::Worker;
use crate::engine::{Scheduler, SimDuration, SimTime};

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The kubelet counts the container started (R21); without a readiness
    /// probe it is Ready at once.
    pub(super) fn mark_started(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        if let Some(instance) = self.container_mut(id).instance_mut() {
            instance.condition = Condition::Started;
        }
        self.emit(now, Some(id), Change::Started);
        if self.spec_of(id).probe(ProbeKind::Readiness).is_none() {
            self.mark_ready(id, now, s);
        } else {
            self.awaiting_readiness += 1;
        }
        self.plan_probe(id, ProbeKind::Liveness, now, s);
        self.note_phase(now);
        // The start is a sync: it triggers readiness runs (R52).
        self.synced(now, s);
        // A started app unblocks nothing; a started sidecar may (R5), and
        // an image changed before it started restarts it now (R72).
        if self.kind(id) != ContainerKind::App {
            self.sync(now, s);
            self.restart_if_outdated(id, now, s);
        }
    }

    /// The container is Ready (R21); the Pod is Ready whenever every app and
    /// sidecar is at the same time (R22, R23).
    fn mark_ready(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let Some(instance) = self.container_mut(id).instance_mut() else {
            return;
        };
        if instance.condition == Condition::Ready {
            return;
        }
        instance.condition = Condition::Ready;
        let probed = self.spec_of(id).probe(ProbeKind::Readiness).is_some();
        if probed {
            self.awaiting_readiness -= 1;
        }
        self.emit(now, Some(id), Change::Ready { probed });
        self.ready_count += 1;
        if !self.pod_ready && !self.is_terminating() && self.ready_count == self.shape().needed_for_ready {
            self.pod_ready = true;
            self.emit(now, None, Change::PodReady);
            if !self.has_been_ready {
                self.has_been_ready = true;
                if let Deletion::AfterReady(delay) = self.run.pod().deletion {
                    s.after(delay, PodEvent::DeletionRequested);
                }
                self.schedule_actions(ActionTime::AfterReady, now, s);
            }
        }
    }

    /// The container is no longer Ready, by a readiness failure or its exit;
    /// a Ready Pod leaves Ready with it (R22, R53).
    pub(super) fn lose_ready(&mut self, id: ContainerId, now: SimTime, failed: bool) {
        if failed {
            if let Some(instance) = self.container_mut(id).instance_mut() {
                instance.condition = Condition::Started;
            }
            self.awaiting_readiness += 1;
            self.emit(now, Some(id), Change::Unready);
        }
        self.ready_count -= 1;
        if self.pod_ready {
            self.pod_ready = false;
            if !self.is_terminating() {
                self.emit(now, None, Change::PodNotReady);
            }
        }
    }

    /// Whether worker `w` probes its container now (R29, R32): not before
    /// it exists, liveness and readiness only once it is started, startup
    /// only before; liveness and startup stop at termination and on hold,
    /// readiness goes on while the container is killed (R26).
    fn probing(&self, w: usize) -> bool {
        let worker = &self.workers[w];
        let c = self.container(worker.container);
        let Some(instance) = c.instance() else {
            return false;
        };
        let started = instance.condition >= Condition::Started;
        let held = worker.held_for == Some(c.attempt) || self.is_terminating();
        match worker.kind {
            ProbeKind::Startup => !started && !held,
            ProbeKind::Liveness => started && !held,
            ProbeKind::Readiness => started,
        }
    }

    /// Ends worker `w`'s stretch at `now`: the ticks before `now` ran (those
    /// at `now` belong to whatever comes next), and are counted.
    fn end_stretch(&mut self, w: usize, now: SimTime) {
        self.end_stretch_before(w, now, now);
    }

    /// Ends the stretch: the ticks before `before` ran; reported at `now`.
    /// Most workers asked have no stretch: that check stays inline.
    #[inline]
    fn end_stretch_before(&mut self, w: usize, before: SimTime, now: SimTime) {
        if let Some(stretch) = &self.workers[w].stretch {
            let n = stretch.ticks_before(before);
            self.count_ticks(w, n, now);
        }
    }

    /// The first `n` ticks of worker `w`'s stretch ran: the counter moves
    /// on, the history hears how many ran and failed, and the stretch is over.
    #[inline(never)]
    fn count_ticks(&mut self, w: usize, n: u64, now: SimTime) {
        let terminating = self.is_terminating();
        let worker = &mut self.workers[w];
        let Some(stretch) = worker.stretch.take() else {
            return;
        };
        worker.pending = None;
        worker.generation += 1;
        // Once the Pod terminates no instance follows (R40): the counter
        // and the grid matter only to a history that counts the runs.
        if terminating && !O::KEEPS_HISTORY {
            return;
        }
        worker.run = stretch.run_after(n);
        if n > 0 {
            worker.last_tick = Some(stretch.tick(n - 1));
            if O::KEEPS_HISTORY {
                let (id, probe) = (worker.container, worker.kind);
                let (runs, failures) = (n as u32, stretch.failures(n) as u32);
                self.emit(
                    now,
                    Some(id),
                    Change::Probed {
                        probe,
                        runs,
                        failures,
                    },
                );
            }
        }
    }

    /// Every stretch of `id` ends now, at its exit: the ticks before ran.
    /// Every exit comes here, most of containers without probes: that
    /// check stays inline.
    #[inline(always)]
    pub(super) fn end_probes(&mut self, id: ContainerId, now: SimTime) {
        if self.container(id).workers != [None; 3] {
            self.end_stretches(id, now);
        }
    }

    #[inline(never)]
    fn end_stretches(&mut self, id: ContainerId, now: SimTime) {
        for kind in ProbeKind::ALL {
            if let Some(w) = self.slot(id, kind) {
                self.end_stretch(w, now);
            }
        }
    }

    /// The run ends at `end`: every stretch ends, the ticks at `end`
    /// included. Only a history counts runs, so only it pays for this.
    pub(super) fn end_probes_at_finish(&mut self, end: SimTime) {
        if !O::KEEPS_HISTORY {
            return;
        }
        for w in 0..self.workers.len() {
            self.end_stretch_before(w, end + SimDuration(1), end);
        }
    }

    /// Liveness and startup stop at termination (R32); readiness goes on.
    /// (A container's startup and liveness stretches never run at once, the
    /// one before it is started, the other after: the order is moot.)
    pub(super) fn stop_liveness_and_startup(&mut self, now: SimTime) {
        for w in 0..self.workers.len() {
            if self.workers[w].kind != ProbeKind::Readiness {
                self.end_stretch(w, now);
            }
        }
    }

    /// (Re)plans the worker of `kind` from `now`: a new stretch, and the
    /// tick that will decide something in it, if any (R28–R31, R53).
    #[inline]
    pub(super) fn plan_probe(
        &mut self,
        id: ContainerId,
        kind: ProbeKind,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        // Most containers have no probe of this kind: that check stays inline.
        if let Some(w) = self.slot(id, kind) {
            self.plan_probe_of(w, now, s);
        }
    }

    /// Plans worker `w`. Its container's image may lack its probe (R71):
    /// then it has no stretch to end (stretches begin here, and an image
    /// changes only at a start, after every stretch ended at the exit), and
    /// it begins none.
    #[inline(never)]
    fn plan_probe_of(&mut self, w: usize, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        self.end_stretch(w, now);
        let Some((stretch, decisive)) = self.next_stretch(w, now) else {
            return;
        };
        let worker = &mut self.workers[w];
        worker.stretch = Some(stretch);
        if let Some((k, passes)) = decisive {
            worker.pending = Some((k, passes));
            let event = PodEvent::ProbeDue {
                container: worker.container,
                probe: worker.kind,
                generation: worker.generation,
            };
            s.at(stretch.tick(k) + stretch.delay, event);
        }
    }

    /// The stretch worker `w` starts at `now`, if it probes, and its
    /// decisive tick.
    fn next_stretch(&self, w: usize, now: SimTime) -> Option<(Stretch, Option<(u64, bool)>)> {
        let worker = &self.workers[w];
        let (id, kind) = (worker.container, worker.kind);
        let probe = self.spec_of(id).probe(kind)?;
        if !self.probing(w) {
            return None;
        }
        let instance = self.container(id).instance()?;
        let ready = instance.condition == Condition::Ready;
        let stretch = Stretch {
            first: self.next_tick(w, probe, now),
            period: probe.period,
            window: window(probe, instance.boot_end, instance.sigterm_at),
            delay: match probe.outcome {
                ProbeOutcome::Hangs => probe.timeout,
                _ => SimDuration::ZERO,
            },
            run: worker.run,
        };
        // What a published result would change (R31): a readiness failure
        // matters only to a Ready container, a success only to one that is not.
        let (successes, failures) = match kind {
            ProbeKind::Startup => (Some(probe.success_threshold), Some(probe.failure_threshold)),
            ProbeKind::Liveness => (None, Some(probe.failure_threshold)),
            ProbeKind::Readiness if ready => (None, Some(probe.failure_threshold)),
            ProbeKind::Readiness => (Some(probe.success_threshold), None),
        };
        // The common case, a healthy container whose probe passes from now
        // on for good, decides nothing: no need to look for a tick.
        let settled =
            successes.is_none() && stretch.window.until.0 == u64::MAX && stretch.first >= stretch.window.from;
        let decisive = if settled {
            None
        } else {
            stretch.decisive(successes, failures)
        };
        Some((stretch, decisive))
    }

    /// A kubelet sync generated the Pod's status (R52): every started
    /// container whose readiness is not Success gets a readiness run now,
    /// and its ticker restarts from now (`probeTicker.Reset`).
    #[inline]
    pub(super) fn synced(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        // No container waits for its readiness: nothing to run, and that
        // check stays inline in every handler that syncs.
        if self.awaiting_readiness != 0 {
            self.run_readiness(now, s);
        }
    }

    #[inline(never)]
    fn run_readiness(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        for w in 0..self.workers.len() {
            let worker = &self.workers[w];
            let id = worker.container;
            let due = worker.kind == ProbeKind::Readiness
                && worker.triggered_at != Some(now)
                && self.spec_of(id).probe(ProbeKind::Readiness).is_some()
                && self
                    .container(id)
                    .instance()
                    .is_some_and(|i| i.condition == Condition::Started);
            if due {
                self.end_stretch(w, now);
                let worker = &mut self.workers[w];
                worker.anchor = now;
                worker.triggered_at = Some(now);
                self.plan_probe_of(w, now, s);
            }
        }
    }

    /// The container got SIGTERM: a probe that fails from then on is
    /// planned again (R53).
    pub(super) fn probes_see_sigterm(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        if let Some(instance) = self.container_mut(id).instance_mut() {
            instance.sigterm_at = Some(now);
        }
        for kind in ProbeKind::ALL {
            let outcome = self.spec_of(id).probe(kind).map(|p| p.outcome);
            if outcome == Some(ProbeOutcome::FailsAfterSigterm)
                && let Some(w) = self.slot(id, kind)
                && self.workers[w].stretch.is_some()
            {
                self.plan_probe_of(w, now, s);
            }
        }
    }

    /// R74: the kubelet restarted, and the container's probe workers are
    /// new: tickers from now (podsim leaves out the random wait of up to a
    /// period a worker makes when the kubelet has just started), counters
    /// empty, no result. A container with a startup probe is not started
    /// until it passes again, one with a readiness probe not Ready until
    /// that passes; every worker runs at once (`doProbe` before the first
    /// tick), readiness also by the restart's sync (R52). A container being
    /// killed keeps its workers (podsim's simplification).
    pub(super) fn restart_workers(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let spec = self.spec_of(id);
        let startup = spec.probe(ProbeKind::Startup).is_some();
        let readiness = spec.probe(ProbeKind::Readiness).is_some();
        let Some(instance) = self.container(id).instance() else {
            return;
        };
        if !spec.has_probes() || instance.kill.is_some() {
            return;
        }
        let was = instance.condition;
        let is = match (startup, readiness) {
            (true, _) => Condition::NotStarted,
            (false, true) => was.min(Condition::Started),
            (false, false) => was,
        };
        self.end_probes(id, now);
        for w in self.container(id).workers.into_iter().flatten() {
            let worker = &mut self.workers[w as usize];
            *worker = Worker {
                generation: worker.generation + 1,
                ..Worker::new(id, worker.kind, now)
            };
        }
        if was == Condition::Ready && is < Condition::Ready {
            self.lose_ready(id, now, false);
        }
        match (was, is) {
            (Condition::Started, Condition::NotStarted) if readiness => self.awaiting_readiness -= 1,
            (Condition::Ready, Condition::Started) => self.awaiting_readiness += 1,
            _ => {}
        }
        if let Some(instance) = self.container_mut(id).instance_mut() {
            instance.condition = is;
        }
        let (started, ready) = (is >= Condition::Started, is == Condition::Ready);
        self.emit(now, Some(id), Change::ProbesRestarted { started, ready });
        if is == Condition::NotStarted {
            self.plan_probe(id, ProbeKind::Startup, now, s);
        } else {
            self.plan_probe(id, ProbeKind::Liveness, now, s);
        }
    }

    /// A published liveness failure or startup result holds worker `w`
    /// until the next instance, and starts its counter over (R30).
    fn hold(&mut self, w: usize) {
        let worker = &mut self.workers[w];
        worker.held_for = Some(self.containers[worker.container.index()].attempt);
        worker.run.len = 0;
    }

    /// The first tick at or after `from` that worker `w` has not used yet,
    /// no sooner than the initial delay after the container's start (R29).
    fn next_tick(&self, w: usize, probe: &Probe, from: SimTime) -> SimTime {
        let worker = &self.workers[w];
        let earliest = from.max(self.container(worker.container).last_start + probe.initial_delay);
        let period = probe.period.as_millis().max(1);
        let periods = earliest.since(worker.anchor).as_millis().div_ceil(period);
        let tick = worker.anchor + SimDuration(periods * period);
        if worker.last_tick == Some(tick) {
            tick + SimDuration(period)
        } else {
            tick
        }
    }

    /// The deciding probe run (R30, R31): its threshold is reached now.
    pub(super) fn probe_tick(
        &mut self,
        id: ContainerId,
        kind: ProbeKind,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let Some(w) = self.slot(id, kind) else {
            return;
        };
        let worker = &self.workers[w];
        let (true, Some((k, passes))) = (worker.stretch.is_some(), worker.pending) else {
            return;
        };
        let Some(grace) = self.spec_of(id).probe(kind).map(|p| p.termination_grace_period) else {
            return;
        };
        self.count_ticks(w, k + 1, now);
        match (kind, passes) {
            (ProbeKind::Startup, true) => {
                self.hold(w);
                return self.mark_started(id, now, s);
            }
            (ProbeKind::Readiness, true) => {
                self.mark_ready(id, now, s);
                self.synced(now, s);
            }
            (ProbeKind::Readiness, false) => {
                self.lose_ready(id, now, true);
                self.synced(now, s);
            }
            (ProbeKind::Startup | ProbeKind::Liveness, _) => {
                self.hold(w);
                self.emit(now, Some(id), Change::ProbeFailed { probe: kind });
                let grace = grace.unwrap_or(self.run.pod().termination_grace_period);
                // R13: the sync kills it and blocks until it exited; nothing
                // of the Pod starts or restarts meanwhile (`take_hold` at
                // the exit resumes the sync).
                if self.held_by.is_none() {
                    self.held_by = Some(id);
                }
                return self.begin_kill(id, now, grace.max(MIN_POD_GRACE), Killer::Probe, s);
            }
        }
        self.plan_probe_of(w, now, s);
    }
}

/// When the probe passes (R53): from `pass_after` after the end of the boot
/// until `pass_until` after it, and before SIGTERM for `fails_after_sigterm`.
fn window(probe: &Probe, boot_end: SimTime, sigterm_at: Option<SimTime>) -> Window {
    let forever = SimTime(u64::MAX);
    let until = probe.pass_until.map_or(forever, |u| boot_end + u);
    match probe.outcome {
        ProbeOutcome::Fails | ProbeOutcome::Hangs => Window::NEVER,
        ProbeOutcome::Passes => Window {
            from: boot_end + probe.pass_after,
            until,
        },
        ProbeOutcome::FailsAfterSigterm => Window {
            from: boot_end + probe.pass_after,
            until: until.min(sigterm_at.unwrap_or(forever)),
        },
    }
}

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
use super::container::{Condition, Killer, Ticker};
use super::stretch::{Stretch, Window};
use super::termination::MIN_POD_GRACE;
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::action::ActionTime;
use crate::model::event::PodEvent;
use crate::model::history::{Change, Observer};
use crate::model::spec::{ContainerId, ContainerKind, Deletion, Probe, ProbeKind, ProbeOutcome};

impl<O: Observer> PodModel<O> {
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
        if !self.pod_ready && !self.is_terminating() && self.ready_count == self.needed_for_ready {
            self.pod_ready = true;
            self.emit(now, None, Change::PodReady);
            if !self.has_been_ready {
                self.has_been_ready = true;
                if let Deletion::AfterReady(delay) = self.run.pod.deletion {
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

    /// Whether the worker of `kind` probes the container now (R29, R32): not
    /// before it exists, liveness and readiness only once it is started,
    /// startup only before; liveness and startup stop at termination and on
    /// hold, readiness goes on while the container is killed (R26).
    fn probing(&self, id: ContainerId, kind: ProbeKind) -> bool {
        let c = self.container(id);
        let Some(instance) = c.instance() else {
            return false;
        };
        let started = instance.condition >= Condition::Started;
        let held = c.tickers[kind.index()].on_hold || self.is_terminating();
        match kind {
            ProbeKind::Startup => !started && !held,
            ProbeKind::Liveness => started && !held,
            ProbeKind::Readiness => started,
        }
    }

    /// Ends the worker's stretch at `now`: the ticks before `now` ran (those
    /// at `now` belong to whatever comes next), and are counted.
    fn end_stretch(&mut self, id: ContainerId, kind: ProbeKind, now: SimTime) {
        self.end_stretch_before(id, kind, now, now);
    }

    /// Ends the stretch: the ticks before `before` ran; reported at `now`.
    fn end_stretch_before(&mut self, id: ContainerId, kind: ProbeKind, before: SimTime, now: SimTime) {
        let ticker = &self.container(id).tickers[kind.index()];
        if let Some(stretch) = ticker.stretch {
            self.count_ticks(id, kind, stretch, stretch.ticks_before(before), now);
        }
    }

    /// The first `n` ticks of `stretch` ran: the counter moves on, the
    /// history hears how many ran and failed, and the stretch is over.
    fn count_ticks(&mut self, id: ContainerId, kind: ProbeKind, stretch: Stretch, n: u64, now: SimTime) {
        let terminating = self.is_terminating();
        let ticker = &mut self.container_mut(id).tickers[kind.index()];
        ticker.stretch = None;
        ticker.pending = None;
        ticker.generation += 1;
        // Once the Pod terminates no instance follows (R40): the counter
        // and the grid matter only to a history that counts the runs.
        if terminating && !O::KEEPS_HISTORY {
            return;
        }
        ticker.run = stretch.run_after(n);
        if n > 0 {
            ticker.last_tick = Some(stretch.tick(n - 1));
            if O::KEEPS_HISTORY {
                let (runs, failures) = (n as u32, stretch.failures(n) as u32);
                self.emit(
                    now,
                    Some(id),
                    Change::Probed {
                        probe: kind,
                        runs,
                        failures,
                    },
                );
            }
        }
    }

    /// Every stretch of `id` ends now, at its exit: the ticks before ran.
    pub(super) fn end_probes(&mut self, id: ContainerId, now: SimTime) {
        if !self.spec_of(id).has_probes() {
            return;
        }
        for kind in ProbeKind::ALL {
            self.end_stretch(id, kind, now);
        }
    }

    /// The run ends at `end`: every stretch ends, the ticks at `end`
    /// included. Only a history counts runs, so only it pays for this.
    pub(super) fn end_probes_at_finish(&mut self, end: SimTime) {
        if !O::KEEPS_HISTORY {
            return;
        }
        for id in self.ids() {
            for kind in ProbeKind::ALL {
                self.end_stretch_before(id, kind, end + SimDuration(1), end);
            }
        }
    }

    /// Liveness and startup stop at termination (R32); readiness goes on.
    pub(super) fn stop_liveness_and_startup(&mut self, now: SimTime) {
        for id in self.ids() {
            self.end_stretch(id, ProbeKind::Liveness, now);
            self.end_stretch(id, ProbeKind::Startup, now);
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
        if let Some(probe) = self.spec_of(id).probe(kind).copied() {
            self.plan_probe_of(id, kind, probe, now, s);
        }
    }

    #[inline(never)]
    fn plan_probe_of(
        &mut self,
        id: ContainerId,
        kind: ProbeKind,
        probe: Probe,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        self.end_stretch(id, kind, now);
        if !self.probing(id, kind) {
            return;
        }
        let Some(instance) = self.container(id).instance() else {
            return;
        };
        let ready = instance.condition == Condition::Ready;
        let stretch = Stretch {
            first: self.next_tick(id, kind, &probe, now),
            period: probe.period,
            window: window(&probe, instance.boot_end, instance.sigterm_at),
            delay: match probe.outcome {
                ProbeOutcome::Hangs => probe.timeout,
                _ => SimDuration::ZERO,
            },
            run: self.container(id).tickers[kind.index()].run,
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
        let ticker = &mut self.container_mut(id).tickers[kind.index()];
        ticker.stretch = Some(stretch);
        if let Some((k, passes)) = decisive {
            ticker.pending = Some((k, passes));
            let generation = ticker.generation;
            s.at(
                stretch.tick(k) + stretch.delay,
                PodEvent::ProbeDue {
                    container: id,
                    probe: kind,
                    generation,
                },
            );
        }
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
        for id in self.ids() {
            let c = self.container(id);
            let due = self.spec_of(id).probe(ProbeKind::Readiness).is_some()
                && c.instance().is_some_and(|i| i.condition == Condition::Started)
                && c.tickers[ProbeKind::Readiness.index()].triggered_at != Some(now);
            if due {
                self.end_stretch(id, ProbeKind::Readiness, now);
                let ticker = &mut self.container_mut(id).tickers[ProbeKind::Readiness.index()];
                ticker.anchor = now;
                ticker.triggered_at = Some(now);
                self.plan_probe(id, ProbeKind::Readiness, now, s);
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
                && self.container(id).tickers[kind.index()].stretch.is_some()
            {
                self.plan_probe(id, kind, now, s);
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
        for ticker in &mut self.container_mut(id).tickers {
            *ticker = Ticker {
                anchor: now,
                generation: ticker.generation + 1,
                ..Ticker::NEW
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

    /// A published liveness failure or startup result holds the worker
    /// until the next instance, and starts its counter over (R30).
    fn hold(&mut self, id: ContainerId, kind: ProbeKind) {
        let ticker = &mut self.container_mut(id).tickers[kind.index()];
        ticker.on_hold = true;
        ticker.run.len = 0;
    }

    /// The first tick at or after `from` that the worker has not used yet,
    /// no sooner than the initial delay after the container's start (R29).
    fn next_tick(&self, id: ContainerId, kind: ProbeKind, probe: &Probe, from: SimTime) -> SimTime {
        let c = self.container(id);
        let ticker = &c.tickers[kind.index()];
        let earliest = from.max(c.last_start + probe.initial_delay);
        let period = probe.period.as_millis().max(1);
        let periods = earliest.since(ticker.anchor).as_millis().div_ceil(period);
        let tick = ticker.anchor + SimDuration(periods * period);
        if ticker.last_tick == Some(tick) {
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
        let ticker = &self.container(id).tickers[kind.index()];
        let (Some(stretch), Some((k, passes))) = (ticker.stretch, ticker.pending) else {
            return;
        };
        let Some(probe) = self.spec_of(id).probe(kind).copied() else {
            return;
        };
        self.count_ticks(id, kind, stretch, k + 1, now);
        match (kind, passes) {
            (ProbeKind::Startup, true) => {
                self.hold(id, kind);
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
                self.hold(id, kind);
                self.emit(now, Some(id), Change::ProbeFailed { probe: kind });
                let grace = probe
                    .termination_grace_period
                    .unwrap_or(self.run.pod.termination_grace_period);
                return self.begin_kill(id, now, grace.max(MIN_POD_GRACE), Killer::Probe, s);
            }
        }
        self.plan_probe(id, kind, now, s);
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

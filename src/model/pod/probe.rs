//! Started and Ready (R21–R23), and the probes that decide them (R27–R32):
//! one worker per container and probe, ticking on a grid anchored at its
//! creation, counting the current instance's consecutive results.
//!
//! Invariant: a tick is scheduled only while its result could change
//! something (`probe_matters`); a tick that could not is never scheduled, so
//! a probed Pod at rest has an empty queue.

use super::PodModel;
use super::container::{Condition, Killer, Streak};
use super::termination::MIN_POD_GRACE;
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::event::PodEvent;
use crate::model::history::{Change, Observer};
use crate::model::spec::{ContainerId, ContainerKind, Deletion, Probe, ProbeKind};

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
            // The sync that notices the start triggers a readiness probe at
            // once and resets its ticker (R28).
            self.container_mut(id).tickers[ProbeKind::Readiness.index()].anchor = now;
            self.schedule_probes(id, now, s);
        }
        self.note_phase(now);
        // A started app unblocks nothing; a started sidecar may (R5).
        if self.kind(id) != ContainerKind::App {
            self.sync(now, s);
        }
    }

    /// The container is Ready (R21); the Pod is Ready once every app and
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
        self.emit(now, Some(id), Change::Ready { probed });
        self.ready_count += 1;
        if !self.has_been_ready && !self.is_terminating() && self.ready_count == self.needed_for_ready {
            self.has_been_ready = true;
            self.emit(now, None, Change::PodReady);
            if let Deletion::AfterReady(delay) = self.run.pod.deletion {
                s.after(delay, PodEvent::DeletionRequested);
            }
        }
    }

    /// Whether a tick of `kind` could change anything now (R29–R31).
    fn probe_matters(&self, id: ContainerId, kind: ProbeKind) -> bool {
        let Some(instance) = self.container(id).instance() else {
            return false;
        };
        let unkilled = instance.kill.is_none();
        let started = instance.condition >= Condition::Started;
        match kind {
            ProbeKind::Startup => unkilled && !started,
            // Liveness and startup stop at deletion (R32); a booted container
            // passes liveness, so only a started one still booting is at risk.
            ProbeKind::Liveness => unkilled && started && !instance.booted && !self.is_terminating(),
            // Readiness goes on while the container is killed (R26).
            ProbeKind::Readiness => started && instance.booted && instance.condition != Condition::Ready,
        }
    }

    /// Schedules the next tick of each probe that matters: the next multiple
    /// of the period from the ticker's anchor, once the initial delay since
    /// the container's start has passed (R28, R29).
    pub(super) fn schedule_probes(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        for kind in ProbeKind::ALL {
            let Some(probe) = self.spec_of(id).probe(kind).copied() else {
                continue;
            };
            if self.container(id).tickers[kind.index()].pending || !self.probe_matters(id, kind) {
                continue;
            }
            let at = self.next_tick(id, kind, &probe, now);
            let ticker = &mut self.container_mut(id).tickers[kind.index()];
            ticker.generation += 1;
            ticker.pending = true;
            let generation = ticker.generation;
            s.at(
                at,
                PodEvent::ProbeDue {
                    container: id,
                    probe: kind,
                    generation,
                },
            );
        }
    }

    /// The first tick at or after `from` that the worker has not used yet.
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

    /// One probe run (R30): the container answers it iff it has booted.
    pub(super) fn probe_tick(
        &mut self,
        id: ContainerId,
        kind: ProbeKind,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let ticker = &mut self.container_mut(id).tickers[kind.index()];
        ticker.pending = false;
        ticker.last_tick = Some(now);
        let Some(probe) = self.spec_of(id).probe(kind).copied() else {
            return;
        };
        if !self.probe_matters(id, kind) {
            return;
        }
        let Some(instance) = self.container_mut(id).instance_mut() else {
            return;
        };
        let streak = instance.streaks[kind.index()].after(instance.booted);
        instance.streaks[kind.index()] = streak;
        let (successes, failures) = match streak {
            Streak::None => (0, 0),
            Streak::Successes(n) => (n, 0),
            Streak::Failures(n) => (0, n),
        };
        if successes >= probe.success_threshold {
            match kind {
                ProbeKind::Startup => return self.mark_started(id, now, s),
                ProbeKind::Readiness => self.mark_ready(id, now, s),
                ProbeKind::Liveness => {}
            }
        } else if failures >= probe.failure_threshold && kind != ProbeKind::Readiness {
            self.emit(now, Some(id), Change::ProbeFailed { probe: kind });
            let grace = probe
                .termination_grace_period
                .unwrap_or(self.run.pod.termination_grace_period);
            return self.begin_kill(id, now, grace.max(MIN_POD_GRACE), Killer::Probe, s);
        }
        self.schedule_probes(id, now, s);
    }
}

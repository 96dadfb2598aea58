//! Started and Ready (R21–R23), and the probes that decide them (R27–R32):
//! one worker per container and probe, ticking on a grid anchored at its
//! creation, counting the current instance's consecutive results.
//!
//! Invariant: only the tick that decides something is scheduled. An
//! instance fails its probes until its boot ends and passes them after, so
//! the tick that reaches a threshold is known when the worker starts
//! waiting (`decisive_tick`); the ticks before it change nothing and cost
//! nothing. A tick is scheduled only while its result could change
//! something (`probe_matters`), so a probed Pod at rest has an empty queue.

use super::PodModel;
use super::container::{Condition, Killer, Verdict};
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

    /// Schedules, for each probe that matters, the tick that will decide
    /// it: the first tick is the next multiple of the period from the
    /// ticker's anchor once the initial delay since the container's start
    /// has passed (R28, R29).
    pub(super) fn schedule_probes(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        for kind in ProbeKind::ALL {
            let Some(probe) = self.spec_of(id).probe(kind).copied() else {
                continue;
            };
            if self.container(id).tickers[kind.index()].pending.is_some() || !self.probe_matters(id, kind) {
                continue;
            }
            let Some(instance) = self.container(id).instance() else {
                continue;
            };
            let first = self.next_tick(id, kind, &probe, now);
            // A failed readiness probe does nothing (R26); liveness matters
            // only before the boot ends, when every tick fails (R31).
            let (successes, failures) = match kind {
                ProbeKind::Startup => (Some(probe.success_threshold), Some(probe.failure_threshold)),
                ProbeKind::Liveness => (None, Some(probe.failure_threshold)),
                ProbeKind::Readiness => (Some(probe.success_threshold), None),
            };
            let Some((at, verdict)) =
                decisive_tick(first, probe.period, instance.boot_end, successes, failures)
            else {
                continue;
            };
            let ticker = &mut self.container_mut(id).tickers[kind.index()];
            ticker.generation += 1;
            ticker.pending = Some(verdict);
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

    /// The deciding probe run (R30, R31): its threshold is reached now.
    pub(super) fn probe_tick(
        &mut self,
        id: ContainerId,
        kind: ProbeKind,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let ticker = &mut self.container_mut(id).tickers[kind.index()];
        let verdict = ticker.pending.take();
        ticker.last_tick = Some(now);
        let Some(probe) = self.spec_of(id).probe(kind).copied() else {
            return;
        };
        if !self.probe_matters(id, kind) {
            return;
        }
        match (verdict, kind) {
            (Some(Verdict::Passes), ProbeKind::Startup) => return self.mark_started(id, now, s),
            (Some(Verdict::Passes), ProbeKind::Readiness) => self.mark_ready(id, now, s),
            (Some(Verdict::Fails), ProbeKind::Startup | ProbeKind::Liveness) => {
                self.emit(now, Some(id), Change::ProbeFailed { probe: kind });
                let grace = probe
                    .termination_grace_period
                    .unwrap_or(self.run.pod.termination_grace_period);
                return self.begin_kill(id, now, grace.max(MIN_POD_GRACE), Killer::Probe, s);
            }
            _ => {}
        }
        self.schedule_probes(id, now, s);
    }
}

/// The tick that decides a probe (R30): ticks come at `first` and every
/// `period` after; the container fails every tick before `healthy_from`
/// and passes every tick from then on, so the first `failures` ticks all
/// failing, or `successes` passing in a row, come at a known tick. `None`:
/// no tick decides anything (a threshold that does not matter is `None`).
fn decisive_tick(
    first: SimTime,
    period: SimDuration,
    healthy_from: SimTime,
    successes: Option<u32>,
    failures: Option<u32>,
) -> Option<(SimTime, Verdict)> {
    let period = period.as_millis().max(1);
    let tick = |k: u64| first + SimDuration(k.saturating_mul(period));
    let failing = healthy_from.since(first).as_millis().div_ceil(period);
    match failures.map(|f| u64::from(f.max(1))) {
        Some(f) if failing >= f => Some((tick(f - 1), Verdict::Fails)),
        _ => successes.map(|n| (tick(failing + u64::from(n.max(1)) - 1), Verdict::Passes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs(s)
    }

    #[test]
    fn the_decisive_tick_counts_failures_before_the_boot_ends_and_successes_after() {
        let p = SimDuration::from_secs(10);
        // Ticks at 0, 10, 20, 30 …; healthy from 25 s: 0, 10, 20 fail.
        // Three failures kill at the third tick, 20 s (R31).
        assert_eq!(
            decisive_tick(at(0), p, at(25), Some(1), Some(3)),
            Some((at(20), Verdict::Fails))
        );
        // Four allowed: the first passing tick, 30 s, starts it.
        assert_eq!(
            decisive_tick(at(0), p, at(25), Some(1), Some(4)),
            Some((at(30), Verdict::Passes))
        );
        // A tick at the very instant the boot ends passes.
        assert_eq!(
            decisive_tick(at(0), p, at(20), Some(1), Some(3)),
            Some((at(20), Verdict::Passes))
        );
        // Readiness, healthy already, two successes needed: 5 s and 15 s.
        assert_eq!(
            decisive_tick(at(5), p, at(1), Some(2), None),
            Some((at(15), Verdict::Passes))
        );
        // Liveness with fewer failing ticks than its threshold decides nothing.
        assert_eq!(decisive_tick(at(0), p, at(25), None, Some(4)), None);
    }
}

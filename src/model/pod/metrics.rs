//! What a run measures, accumulated while it runs (never by scanning after):
//! `Meters` observe the model's changes like any other observer and turn
//! them into `Metrics`.
//!
//! Invariant: `exposed_total_ms == exposed_startup_ms + exposed_shutdown_ms`.

use super::history::{Change, Observer, TraceEntry};
use super::spec::ContainerId;
use crate::engine::SimTime;

/// The Pod phase (R47, R48).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PodPhase {
    /// Accepted, but some app or sidecar has not run yet.
    Pending,
    /// Every app and sidecar has run; not finished.
    Running,
    /// Terminal: every app container exited 0.
    Succeeded,
    /// Terminal: an app container failed, or an init container under `Never`.
    Failed,
}

impl PodPhase {
    /// Succeeded or Failed: the kubelet never moves a Pod out of them (R48).
    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }

    /// The phase as the API spells it.
    pub fn name(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
        }
    }
}

/// How the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Nothing more would ever happen: the Pod settled.
    Settled,
    /// The horizon cut an unfinished run short (an endless crash loop).
    Horizon,
    /// A Job's Pod settled without completing: this app never exits, so the
    /// Pod stays Running (R46) — a proxy left in `containers` (a legacy
    /// sidecar), or the Job's own work written without a `run`.
    Stuck(ContainerId),
}

impl Outcome {
    /// The outcome as CSV and JSON write it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Settled => "settled",
            Outcome::Horizon => "horizon",
            Outcome::Stuck(_) => "stuck",
        }
    }
}

/// The figures of one run. Times are milliseconds since the Pod was created,
/// except `termination_ms` which counts from the deletion request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Metrics {
    /// When every app and sidecar was first started at once (the Pod Ready).
    pub ready_ms: Option<u64>,
    /// Exposed (an app alive, no proxy alive) before the deletion request.
    pub exposed_startup_ms: u64,
    /// Exposed from the deletion request on.
    pub exposed_shutdown_ms: u64,
    /// Both together.
    pub exposed_total_ms: u64,
    /// Deletion request → last container exited.
    pub termination_ms: Option<u64>,
    /// When the Pod reached Succeeded or Failed, its sidecars stopped (R44).
    pub completed_ms: Option<u64>,
    /// Container restarts, all containers together (R20).
    pub restarts: u32,
    /// Containers that had to be SIGKILLed at their stop timeout.
    pub sigkilled: u32,
    /// The phase at the end of the run.
    pub phase: PodPhase,
    /// How the run ended.
    pub outcome: Outcome,
    /// The simulated time at which the run ended.
    pub end_ms: u64,
}

/// One metric's value, typed so each output format writes it its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Milliseconds, absent when the moment never came.
    Millis(Option<u64>),
    /// A number of things (restarts, SIGKILLs).
    Count(u32),
    /// A name (phase, outcome).
    Text(&'static str),
}

impl Metrics {
    /// The metric names, in output order: CSV columns, JSON keys, table rows.
    pub const NAMES: [&'static str; 11] = [
        "ready_ms",
        "exposed_startup_ms",
        "exposed_shutdown_ms",
        "exposed_total_ms",
        "termination_ms",
        "completed_ms",
        "restarts",
        "sigkilled",
        "phase",
        "outcome",
        "end_ms",
    ];

    /// The values in the order of `NAMES`.
    pub fn fields(&self) -> [Field; 11] {
        let mut fields = [Field::Count(0); 11];
        let mut slots = fields.iter_mut();
        self.each_field(|field| {
            if let Some(slot) = slots.next() {
                *slot = field;
            }
        });
        fields
    }

    /// Calls `visit` with each value in the order of `NAMES`: the one list
    /// of the metrics' values. Always inlined, so a writer's `match` on each
    /// `Field` folds away (the CSV writes millions of rows through it).
    #[inline(always)]
    pub fn each_field(&self, mut visit: impl FnMut(Field)) {
        visit(Field::Millis(self.ready_ms));
        visit(Field::Millis(Some(self.exposed_startup_ms)));
        visit(Field::Millis(Some(self.exposed_shutdown_ms)));
        visit(Field::Millis(Some(self.exposed_total_ms)));
        visit(Field::Millis(self.termination_ms));
        visit(Field::Millis(self.completed_ms));
        visit(Field::Count(self.restarts));
        visit(Field::Count(self.sigkilled));
        visit(Field::Text(self.phase.name()));
        visit(Field::Text(self.outcome.name()));
        visit(Field::Millis(Some(self.end_ms)));
    }
}

/// Accumulates the time during which an app is alive with no proxy alive,
/// split at the deletion request.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExposureMeter {
    exposed_since: Option<SimTime>,
    deleted_at: Option<SimTime>,
    startup_ms: u64,
    shutdown_ms: u64,
}

impl ExposureMeter {
    /// Records the exposure state from `now` on.
    pub fn set(&mut self, now: SimTime, exposed: bool) {
        match (self.exposed_since, exposed) {
            (None, true) => self.exposed_since = Some(now),
            (Some(_), false) => {
                self.close(now);
                self.exposed_since = None;
            }
            _ => {}
        }
    }

    /// Marks the deletion request: exposure from here on counts as shutdown.
    pub fn deletion(&mut self, now: SimTime) {
        if self.exposed_since.is_some() {
            self.close(now);
            self.exposed_since = Some(now);
        }
        self.deleted_at = Some(now);
    }

    /// (startup, shutdown) totals, counting an open interval up to `end`.
    pub fn totals(&self, end: SimTime) -> (u64, u64) {
        let mut meter = *self;
        meter.close(end);
        (meter.startup_ms, meter.shutdown_ms)
    }

    fn close(&mut self, now: SimTime) {
        if let Some(since) = self.exposed_since {
            let span = now.since(since).as_millis();
            if self.deleted_at.is_some() {
                self.shutdown_ms += span;
            } else {
                self.startup_ms += span;
            }
            self.exposed_since = Some(now);
        }
    }
}

/// The observer every run has: what `Metrics` need from the changes, and
/// nothing else, so a sweep pays for no more.
#[derive(Clone, Copy, Debug, Default)]
pub struct Meters {
    exposure: ExposureMeter,
    ready_at: Option<SimTime>,
    deleted_at: Option<SimTime>,
    stopped_at: Option<SimTime>,
    restarts: u32,
    sigkilled: u32,
}

impl Observer for Meters {
    const KEEPS_HISTORY: bool = false;

    // Every change passes here; a call per change costs more than the match.
    #[inline(always)]
    fn observe(&mut self, entry: TraceEntry) {
        let at = entry.at;
        match entry.what {
            Change::Starting { attempt } if attempt > 1 => self.restarts += 1,
            Change::Sigkill => self.sigkilled += 1,
            // `ready_ms` is the first time the Pod is Ready (R53).
            Change::PodReady => {
                self.ready_at.get_or_insert(at);
            }
            Change::DeletionRequested { .. } => {
                self.deleted_at = Some(at);
                self.exposure.deletion(at);
            }
            Change::ContainersStopped => self.stopped_at = Some(at),
            Change::ExposureBegan => self.exposure.set(at, true),
            Change::ExposureEnded => self.exposure.set(at, false),
            _ => {}
        }
    }

    fn clear(&mut self) {
        *self = Meters::default();
    }
}

impl Meters {
    /// The figures of a run that ended at `end` in `phase`, for reason `outcome`.
    pub fn metrics(&self, end: SimTime, phase: PodPhase, outcome: Outcome) -> Metrics {
        let (startup, shutdown) = self.exposure.totals(end);
        Metrics {
            ready_ms: self.ready_at.map(SimTime::as_millis),
            exposed_startup_ms: startup,
            exposed_shutdown_ms: shutdown,
            exposed_total_ms: startup + shutdown,
            termination_ms: self
                .deleted_at
                .and_then(|deleted| self.stopped_at.map(|stopped| stopped.since(deleted).as_millis())),
            completed_ms: self
                .stopped_at
                .filter(|_| phase.is_terminal())
                .map(SimTime::as_millis),
            restarts: self.restarts,
            sigkilled: self.sigkilled,
            phase,
            outcome,
            end_ms: end.as_millis(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposure_is_split_at_the_deletion_request() {
        let mut m = ExposureMeter::default();
        m.set(SimTime(3000), true);
        m.set(SimTime(5000), false);
        m.set(SimTime(9000), true);
        m.deletion(SimTime(10_000));
        m.set(SimTime(12_500), false);
        assert_eq!(m.totals(SimTime(20_000)), (3000, 2500));
    }

    #[test]
    fn an_open_interval_counts_up_to_the_end() {
        let mut m = ExposureMeter::default();
        m.set(SimTime(1000), true);
        assert_eq!(m.totals(SimTime(4000)), (3000, 0));
    }
}

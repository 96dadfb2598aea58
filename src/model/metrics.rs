//! What a run measures, accumulated while it runs (never by scanning after).
//!
//! Invariant: `exposed_total_ms == exposed_startup_ms + exposed_shutdown_ms`.

use crate::engine::SimTime;

/// The Pod phase (R47, R48).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PodPhase {
    Pending,
    Running,
    Succeeded,
    Failed,
}

impl PodPhase {
    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }

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
    /// A Job's Pod settled without completing: an app that never exits (a
    /// proxy left in `containers`) keeps it Running (R46).
    Stuck,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Settled => "settled",
            Outcome::Horizon => "horizon",
            Outcome::Stuck => "stuck: legacy sidecar kept the Pod running",
        }
    }
}

/// The figures of one run. Times are milliseconds since the Pod was created,
/// except `termination_ms` which counts from the deletion request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Metrics {
    /// When every app and sidecar was first started at once (the Pod Ready).
    pub ready_ms: Option<u64>,
    pub exposed_startup_ms: u64,
    pub exposed_shutdown_ms: u64,
    pub exposed_total_ms: u64,
    /// Deletion request → last container exited.
    pub termination_ms: Option<u64>,
    /// When the Pod reached Succeeded or Failed, its sidecars stopped (R44).
    pub completed_ms: Option<u64>,
    /// Container restarts, all containers together (R20).
    pub restarts: u32,
    /// Containers that had to be SIGKILLed at their stop timeout.
    pub sigkilled: u32,
    pub phase: PodPhase,
    pub outcome: Outcome,
    /// The simulated time at which the run ended.
    pub end_ms: u64,
}

/// One metric's value, typed so each output format writes it its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Milliseconds, absent when the moment never came.
    Millis(Option<u64>),
    Count(u32),
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
        [
            Field::Millis(self.ready_ms),
            Field::Millis(Some(self.exposed_startup_ms)),
            Field::Millis(Some(self.exposed_shutdown_ms)),
            Field::Millis(Some(self.exposed_total_ms)),
            Field::Millis(self.termination_ms),
            Field::Millis(self.completed_ms),
            Field::Count(self.restarts),
            Field::Count(self.sigkilled),
            Field::Text(self.phase.name()),
            Field::Text(self.outcome.name()),
            Field::Millis(Some(self.end_ms)),
        ]
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

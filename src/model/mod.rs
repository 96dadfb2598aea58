//! The Kubernetes models that run on the engine. For now one: the lifecycle of
//! a single Pod (`pod`), described by a `PodSpec` and measured into `Metrics`.
//!
//! Invariant: a `PodSimulator` gives the same `Metrics` for the same spec
//! however many runs it did before; reuse only saves allocations.

mod event;
mod metrics;
mod pod;
mod spec;
mod trace;

pub use event::PodEvent;
pub use metrics::{ExposureMeter, Field, Metrics, Outcome, PodPhase};
pub use pod::{PodModel, Status};
pub use spec::{
    BACKOFF_RESET_AFTER, Backoff, ContainerId, ContainerKind, ContainerSpec, Deletion, KubeVersion, PodMode,
    PodSpec, Probe, ProbeKind, RestartPolicy,
};
pub use trace::{ExitReason, Happening, TraceEntry};

use crate::engine::{DEFAULT_HORIZON, RunEnd, SimDuration, Simulation};

/// Runs one Pod spec after another on the same buffers: the unit of work of
/// a sweep, where allocating per run would cost more than simulating.
pub struct PodSimulator {
    sim: Simulation<PodModel>,
}

impl PodSimulator {
    /// A simulator for `spec`; `record_trace` keeps the timeline of each run.
    pub fn new(spec: PodSpec, horizon: SimDuration, record_trace: bool) -> Self {
        PodSimulator {
            sim: Simulation::new(PodModel::new(spec, record_trace), horizon),
        }
    }

    pub fn spec(&self) -> &PodSpec {
        self.sim.model().spec()
    }

    /// The spec of the next run; changes take effect at the next `run`.
    pub fn spec_mut(&mut self) -> &mut PodSpec {
        self.sim.model_mut().spec_mut()
    }

    /// The horizon of the next run (a grid may sweep it like any spec key).
    pub fn set_horizon(&mut self, horizon: SimDuration) {
        self.sim.set_horizon(horizon);
    }

    /// Simulates the current spec from Pod creation to the end.
    pub fn run(&mut self) -> Metrics {
        self.sim.rewind();
        self.sim.model_mut().reset();
        let (created, deletion) = self.sim.model().initial_events();
        self.sim.schedule(created.0, created.1);
        if let Some((at, event)) = deletion {
            self.sim.schedule(at, event);
        }
        let how = self.sim.run();
        let end = match how {
            RunEnd::Quiet => self.sim.time(),
            RunEnd::Horizon => self.sim.horizon(),
        };
        self.sim.model_mut().finish(end, how)
    }

    /// The timeline of the last run (empty unless recording was asked for).
    pub fn trace(&self) -> &[TraceEntry] {
        self.sim.model().trace()
    }

    /// Events handled and stale events dropped in the last run.
    pub fn event_counts(&self) -> (u64, u64) {
        self.sim.counts()
    }
}

/// One run with its timeline: what `podsim run` shows.
#[derive(Clone, Debug)]
pub struct RunReport {
    pub metrics: Metrics,
    pub trace: Vec<TraceEntry>,
}

/// Simulates `spec` once, recording the timeline.
pub fn simulate(spec: &PodSpec, horizon: Option<SimDuration>) -> RunReport {
    let mut simulator = PodSimulator::new(spec.clone(), horizon.unwrap_or(DEFAULT_HORIZON), true);
    let metrics = simulator.run();
    RunReport {
        metrics,
        trace: simulator.trace().to_vec(),
    }
}

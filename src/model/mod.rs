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
    PodSpec, Probe, ProbeKind, RestartPolicy, RunSpec,
};
pub use trace::{ExitReason, Happening, TraceEntry};

use crate::engine::{RunEnd, Simulation};

/// Runs one Pod spec after another on the same buffers: the unit of work of
/// a sweep, where allocating per run would cost more than simulating.
pub struct PodSimulator {
    sim: Simulation<PodModel>,
}

impl PodSimulator {
    /// A simulator for `run`; `record_trace` keeps the timeline of each run.
    pub fn new(run: RunSpec, record_trace: bool) -> Self {
        let horizon = run.horizon;
        PodSimulator {
            sim: Simulation::new(PodModel::new(run, record_trace), horizon),
        }
    }

    pub fn spec(&self) -> &RunSpec {
        self.sim.model().run_spec()
    }

    /// The spec of the next run (Pod and horizon); changes take effect at
    /// the next `run`.
    pub fn spec_mut(&mut self) -> &mut RunSpec {
        self.sim.model_mut().run_spec_mut()
    }

    /// Simulates the current spec from Pod creation to the end.
    pub fn run(&mut self) -> Metrics {
        let horizon = self.sim.model().run_spec().horizon;
        self.sim.set_horizon(horizon);
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

/// Simulates `run` once, recording the timeline.
pub fn simulate(run: &RunSpec) -> RunReport {
    let mut simulator = PodSimulator::new(run.clone(), true);
    let metrics = simulator.run();
    RunReport {
        metrics,
        trace: simulator.trace().to_vec(),
    }
}

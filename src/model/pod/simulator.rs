//! Running Pods one after another on the same buffers: the unit of work of
//! a sweep, where allocating per run would cost more than simulating.
//!
//! Invariant: a `PodSimulator` gives the same `Metrics` and the same history
//! for the same spec however many runs it did before; reuse only saves
//! allocations.

use super::PodModel;
use super::history::{Observer, Trace, TraceEntry};
use super::metrics::Metrics;
use super::spec::{PodRun, PodRunSpec};
use crate::engine::{Halt, Limits, Simulation};

/// Runs one Pod spec after another on the same buffers. The observer `O`
/// is what is kept of each run besides its metrics: nothing (`()`, the
/// sweep's) or the whole history (`Trace`); `R` lends the run its Pod
/// (`spec::run`).
pub struct PodSimulator<O: Observer = (), R: PodRun = PodRunSpec> {
    sim: Simulation<PodModel<O, R>>,
}

impl<R: PodRun> PodSimulator<(), R> {
    /// A simulator for `run` that keeps the metrics of each run only.
    pub fn new(run: R) -> Self {
        PodSimulator::observed_by(run, ())
    }
}

impl<R: PodRun> PodSimulator<Trace, R> {
    /// A simulator for `run` that keeps the history of each run too.
    pub fn recording(run: R) -> Self {
        PodSimulator::observed_by(run, Trace::new())
    }

    /// The history of the last run.
    pub fn trace(&self) -> &[TraceEntry] {
        self.sim.model().observer()
    }
}

impl<O: Observer, R: PodRun> PodSimulator<O, R> {
    /// A simulator for `run` whose runs `observer` watches.
    pub fn observed_by(run: R, observer: O) -> Self {
        let horizon = run.horizon();
        PodSimulator {
            sim: Simulation::new(PodModel::new(run, observer), horizon),
        }
    }

    /// What watches the runs.
    pub fn observer(&self) -> &O {
        self.sim.model().observer()
    }

    /// What watches the runs, to set it up before the next.
    pub fn observer_mut(&mut self) -> &mut O {
        self.sim.model_mut().observer_mut()
    }

    /// The spec of the next run.
    pub fn spec(&self) -> &R {
        self.sim.model().run_spec()
    }

    /// The spec of the next run (Pod and horizon); changes take effect at
    /// the next `run`.
    pub fn spec_mut(&mut self) -> &mut R {
        self.sim.model_mut().run_spec_mut()
    }

    /// The spec of the next run, for changes that leave its shape as it
    /// was (no `Field::shapes_the_pod` field): the next `run` does not work
    /// the shape out again. A sweep's rows mostly change only durations.
    pub fn spec_mut_keeping_shape(&mut self) -> &mut R {
        self.sim.model_mut().run_spec_mut_keeping_shape()
    }

    /// Simulates the current spec from Pod creation to the end. Never
    /// inlined: a run is one function to count in (BENCHMARKS.md, "How to
    /// profile").
    #[inline(never)]
    pub fn run(&mut self) -> Metrics {
        self.begin();
        self.run_to_the_end()
    }

    /// A new run of the current spec: the Pod not yet created.
    fn begin(&mut self) {
        let horizon = self.sim.model().run_spec().horizon();
        self.sim.set_horizon(horizon);
        self.sim.rewind();
        self.sim.model_mut().reset();
        let (created, deletion) = self.sim.model().initial_events();
        self.sim.schedule(created.0, created.1);
        if let Some((at, event)) = deletion {
            self.sim.schedule(at, event);
        }
    }

    /// The rest of a run, from wherever it stands, and its metrics.
    fn run_to_the_end(&mut self) -> Metrics {
        let how = self.sim.run();
        let end = self.sim.end_time(how);
        self.sim.model_mut().finish(end, how)
    }

    /// Events handled and stale events dropped in the last run.
    pub fn event_counts(&self) -> (u64, u64) {
        self.sim.counts()
    }

    /// Runs from now on obey `limits` (a stop request, an event budget).
    pub fn set_limits(&mut self, limits: Limits) {
        self.sim.set_limits(limits);
    }

    /// Why the limits halted the last run, if they did: then its metrics
    /// are no result.
    pub fn halted(&self) -> Option<Halt> {
        self.sim.halted()
    }
}

impl<O: Observer + Clone, R: PodRun> PodSimulator<O, R> {
    /// `run`, from `prefix`'s saved state if it holds one; otherwise
    /// from Pod creation, saving the state there when the run reaches its
    /// deletion before any kill (`PodModel::pauses_before`). The caller
    /// vouches that the spec differs from the one the state was saved
    /// under only in fields read from the first kill on
    /// (`Field::read_from_the_first_kill_on`); the metrics and history
    /// are then those of `run`.
    pub fn run_with_prefix(&mut self, prefix: &mut RunPrefix<O, R>) -> Metrics {
        if prefix.saved {
            self.sim.copy_from(&prefix.sim, PodModel::copy_run_state_from);
        } else {
            self.begin();
            if self.sim.run_until(PodModel::pauses_before) {
                prefix.sim.copy_from(&self.sim, PodModel::copy_run_state_from);
                prefix.saved = true;
            }
        }
        self.run_to_the_end()
    }
}

/// Room for a run's state as it stood just before its deletion: a sweep
/// keeps one for each combination of the axes a kill does not read, and
/// the rows that turn only the others resume from it (`run_with_prefix`).
pub struct RunPrefix<O: Observer = (), R: PodRun = PodRunSpec> {
    sim: Simulation<PodModel<O, R>>,
    saved: bool,
}

impl<O: Observer + Clone, R: PodRun + Clone> RunPrefix<O, R> {
    /// Empty room, sized for runs of `run` (its spec is never run here).
    pub fn new(run: &R, observer: O) -> Self {
        RunPrefix {
            sim: Simulation::new(PodModel::new(run.clone(), observer), run.horizon()),
            saved: false,
        }
    }

    /// A state is saved.
    pub fn is_saved(&self) -> bool {
        self.saved
    }

    /// Forgets the saved state: the spec changed in a field before the
    /// first kill.
    pub fn forget(&mut self) {
        self.saved = false;
    }
}

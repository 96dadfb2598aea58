//! The Kubernetes models that run on the engine. For now one: the lifecycle of
//! a single Pod (`pod`), described by a `PodSpec`, reporting what changes to
//! observers (`history`) and measured into `Metrics` by the meters.
//!
//! Invariant: a `PodSimulator` gives the same `Metrics` and the same history
//! for the same spec however many runs it did before; reuse only saves
//! allocations.

mod action;
mod canonical;
mod dist;
mod draw;
mod event;
mod history;
pub mod job;
mod metrics;
mod pod;
mod probe_spec;
mod restart_rule;
pub mod service;
mod spec;
mod stop;
mod version;

pub use action::{ActionKind, ActionTime, NODE_DOWN, TimedAction};
pub use dist::{Dist, Probability, Z99, normal_cdf, normal_quantile};
pub use draw::{DrawKey, Stream, name_hash};
pub use event::PodEvent;
pub use history::{Change, ExitReason, Line, Observer, Trace, TraceEntry, UpdateEffect};
pub use metrics::{ExposureMeter, Field, Meters, Metrics, Outcome, PodPhase};
pub use pod::PodModel;
pub use spec::{
    BACKOFF_RESET_AFTER, Backoff, ContainerId, ContainerKind, ContainerSpec, Deletion, ExitCodes,
    IMAGE_BACKOFF, ImagePull, KubeVersion, PodMode, PodSpec, PostStart, Probe, ProbeKind, ProbeOutcome,
    RestartPolicy, RestartRule, RuleAction, RunSpec,
};
pub use stop::{Disposition, Drain, Reaction, Signal};

use crate::engine::Simulation;

/// Runs one Pod spec after another on the same buffers: the unit of work of
/// a sweep, where allocating per run would cost more than simulating. The
/// observer `O` is what is kept of each run besides its metrics: nothing
/// (`()`, the sweep's) or the whole history (`Trace`).
pub struct PodSimulator<O: Observer = ()> {
    sim: Simulation<PodModel<O>>,
}

impl PodSimulator {
    /// A simulator for `run` that keeps the metrics of each run only.
    pub fn new(run: RunSpec) -> Self {
        PodSimulator::observed_by(run, ())
    }
}

impl PodSimulator<Trace> {
    /// A simulator for `run` that keeps the history of each run too.
    pub fn recording(run: RunSpec) -> Self {
        PodSimulator::observed_by(run, Trace::new())
    }

    /// The history of the last run.
    pub fn trace(&self) -> &[TraceEntry] {
        self.sim.model().observer()
    }
}

impl<O: Observer> PodSimulator<O> {
    /// A simulator for `run` whose runs `observer` watches.
    pub fn observed_by(run: RunSpec, observer: O) -> Self {
        let horizon = run.horizon;
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
    pub fn spec(&self) -> &RunSpec {
        self.sim.model().run_spec()
    }

    /// The spec of the next run (Pod and horizon); changes take effect at
    /// the next `run`.
    pub fn spec_mut(&mut self) -> &mut RunSpec {
        self.sim.model_mut().run_spec_mut()
    }

    /// The spec of the next run, for changes that leave its shape as it
    /// was (no `Field::shapes_the_pod` field): the next `run` does not work
    /// the shape out again. A sweep's rows mostly change only durations.
    pub fn spec_mut_keeping_shape(&mut self) -> &mut RunSpec {
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
        let horizon = self.sim.model().run_spec().horizon;
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
}

impl<O: Observer + Clone> PodSimulator<O> {
    /// `run`, from `prefix`'s saved state if it holds one; otherwise
    /// from Pod creation, saving the state there when the run reaches its
    /// deletion before any kill (`PodModel::pauses_before`). The caller
    /// vouches that the spec differs from the one the state was saved
    /// under only in fields read from the first kill on
    /// (`Field::read_from_the_first_kill_on`); the metrics and history
    /// are then those of `run`.
    pub fn run_with_prefix(&mut self, prefix: &mut RunPrefix<O>) -> Metrics {
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
pub struct RunPrefix<O: Observer = ()> {
    sim: Simulation<PodModel<O>>,
    saved: bool,
}

impl<O: Observer + Clone> RunPrefix<O> {
    /// Empty room, sized for runs of `run` (its spec is never run here).
    pub fn new(run: &RunSpec, observer: O) -> Self {
        RunPrefix {
            sim: Simulation::new(PodModel::new(run.clone(), observer), run.horizon),
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

/// One run with its history: what `podsim run` shows.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The run's figures (a Job's: its first Pod's).
    pub metrics: Metrics,
    /// Every change, in order; views read it, and nothing else. A Job's
    /// first Pod's.
    pub trace: Vec<TraceEntry>,
    /// A Job's Pods and how the Job ended, for a Job's Pod.
    pub job: Option<JobReport>,
}

/// What the Job controller did over a run: every Pod it made and the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobReport {
    /// The Job's figures.
    pub figures: job::JobFigures,
    /// Its Pods, in the order they were created.
    pub pods: Vec<job::JobPod>,
    /// The histories of the Pods after the first (the first's is the
    /// report's `trace`), each from its own creation: times are the Pod's
    /// age, as kubectl's AGE column counts it.
    pub later: Vec<Vec<TraceEntry>>,
}

impl RunReport {
    /// The changes the event timeline prints, each with its words.
    pub fn lines(&self) -> impl Iterator<Item = (&TraceEntry, Line)> {
        self.trace
            .iter()
            .filter_map(|e| e.what.line().map(|line| (e, line)))
    }
}

/// Simulates `run` once, recording its history; a Job's Pod runs under the
/// Job controller, and every Pod's history is kept (the first's as the
/// report's trace, which the timeline and the metrics are of).
pub fn simulate(run: &RunSpec) -> RunReport {
    if run.pod.mode == PodMode::Job {
        let mut simulator = job::JobSimulator::observed_by(run.clone(), Trace::new());
        let mut histories = Vec::new();
        let (metrics, figures) = simulator.run(|_, pod| histories.push(pod.to_vec()));
        let mut histories = histories.into_iter();
        return RunReport {
            metrics,
            trace: histories.next().unwrap_or_default(),
            job: figures.map(|figures| JobReport {
                figures,
                pods: simulator.pods().to_vec(),
                later: histories.collect(),
            }),
        };
    }
    let mut simulator = PodSimulator::recording(run.clone());
    let metrics = simulator.run();
    RunReport {
        metrics,
        trace: simulator.trace().to_vec(),
        job: None,
    }
}

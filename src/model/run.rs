//! What runs a scenario, above the three rooms: the spec of one run
//! (`RunSpec`: the Pod, and a Job's or a Service's settings beside it),
//! which simulator a run takes (`Simulator`) and what it measured
//! (`Measured`), and one recorded run for `podsim run` (`simulate`, giving
//! a `RunReport`).
//!
//! Invariant: only this module names all three rooms, and only it chooses
//! between them (from the spec: a `service`, a Job's `mode`); the layers
//! above call `simulate` or `Simulator::for_run` and read the kind of
//! report or figures they get. No room names this module: a `RunSpec`
//! lends each room what it reads (`PodRun`, `JobRun`, `ServiceRun`)
//! without a copy, so a sweep sets its keys on the value the model runs
//! from.

use super::draw::Stream;
use super::job::{JobFigures, JobPod, JobRun, JobSimulator, JobSpec};
use super::pod::spec::{PodMode, PodRun, PodSpec};
use super::pod::{Metrics, PodSimulator, Trace, TraceEntry};
use super::service::{
    ServiceMetrics, ServiceReport, ServiceRun, ServiceSimulator, ServiceSpec, simulate_service_within,
};
use crate::engine::{DEFAULT_HORIZON, Halt, Limits, SimDuration};

/// Everything one run needs: the Pod and when to stop looking at it. A
/// grid axis, a scenario key or a flag may set any of it, so it is one value
/// rather than a spec plus loose settings beside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RunSpec {
    /// The Pod to run.
    pub pod: PodSpec,
    /// Runs stop here: an endless crash loop becomes an outcome, not a hang.
    pub horizon: SimDuration,
    /// The seed and replication every draw of the run is keyed by.
    pub stream: Stream,
    /// A Service in front of replicas of `pod`, if the scenario has one.
    pub service: Option<Box<ServiceSpec>>,
    /// The Job controller's rules, for a Job's Pod (`PodMode::Job`).
    pub job: JobSpec,
}

impl RunSpec {
    /// A run of `pod` with the default horizon (24 h).
    pub fn new(pod: PodSpec) -> Self {
        RunSpec {
            pod,
            horizon: DEFAULT_HORIZON,
            stream: Stream::default(),
            service: None,
            job: JobSpec::default(),
        }
    }
}

impl PodRun for RunSpec {
    #[inline(always)]
    fn parts(&self) -> (&PodSpec, &SimDuration, &Stream) {
        (&self.pod, &self.horizon, &self.stream)
    }

    #[inline(always)]
    fn parts_mut(&mut self) -> (&mut PodSpec, &mut SimDuration, &mut Stream) {
        (&mut self.pod, &mut self.horizon, &mut self.stream)
    }
}

impl JobRun for RunSpec {
    fn job_mut(&mut self) -> &mut JobSpec {
        &mut self.job
    }
}

impl ServiceRun for RunSpec {
    fn service(&self) -> Option<&ServiceSpec> {
        self.service.as_deref()
    }
}

/// The simulator a run of a `RunSpec` takes, reused run after run: a
/// Pod's, a Job's (its Pods one after another under the controller) or a
/// Service's (its replicas behind the Service).
pub enum Simulator {
    /// One Pod.
    Pod(Box<PodSimulator<(), RunSpec>>),
    /// A Job's Pods.
    Job(Box<JobSimulator<(), RunSpec>>),
    /// A Service and its replicas.
    Service(Box<ServiceSimulator<(), RunSpec>>),
}

/// What one run of a `Simulator` measured, by the simulator's kind.
#[derive(Clone, Debug)]
pub enum Measured {
    /// A Pod's figures.
    Pod(Metrics),
    /// A Job's first Pod's figures, and the Job's (none for a spec that is
    /// not a Job's: a grid's `pod.mode` axis).
    Job(Metrics, Option<JobFigures>),
    /// A Service's figures.
    Service(ServiceMetrics),
}

impl Simulator {
    /// The simulator for runs of `run`: a Service's if it has a Service, a
    /// Job's if `jobs` (some run may be a Job's Pod: a grid's `pod.mode`
    /// axis), else a Pod's.
    pub fn for_run(run: RunSpec, jobs: bool) -> Self {
        match run.service {
            Some(_) => Simulator::Service(Box::new(ServiceSimulator::new(run))),
            None if jobs => Simulator::Job(Box::new(JobSimulator::new(run))),
            None => Simulator::Pod(Box::new(PodSimulator::new(run))),
        }
    }

    /// The spec of the next run; `reshaped` says whether the changes to
    /// come may change the Pod's shape (`PodSimulator::spec_mut_keeping_shape`).
    #[inline]
    pub fn spec_mut(&mut self, reshaped: bool) -> &mut RunSpec {
        match self {
            Simulator::Pod(s) => {
                if reshaped {
                    s.spec_mut()
                } else {
                    s.spec_mut_keeping_shape()
                }
            }
            Simulator::Job(s) => s.spec_mut(),
            Simulator::Service(s) => s.spec_mut(),
        }
    }

    /// Runs from now on obey `limits` (a stop request, an event budget).
    pub fn set_limits(&mut self, limits: Limits) {
        match self {
            Simulator::Pod(s) => s.set_limits(limits),
            Simulator::Job(s) => s.set_limits(limits),
            Simulator::Service(s) => s.set_limits(limits),
        }
    }

    /// Why the limits halted the last run, if they did: then its figures
    /// are no result.
    #[inline]
    pub fn halted(&self) -> Option<Halt> {
        match self {
            Simulator::Pod(s) => s.halted(),
            Simulator::Job(s) => s.halted(),
            Simulator::Service(s) => s.halted(),
        }
    }

    /// Simulates the current spec once (`spec_mut` sets the next). A sweep
    /// runs its simulator itself, a Pod's from a shared prefix; this is
    /// for a caller that only wants the figures (`halted` says whether
    /// they are a result, under limits).
    pub fn run(&mut self) -> Measured {
        match self {
            Simulator::Pod(s) => Measured::Pod(s.run()),
            Simulator::Job(s) => {
                let (metrics, job) = s.run(|_, _| {});
                Measured::Job(metrics, job)
            }
            Simulator::Service(s) => Measured::Service(s.run()),
        }
    }
}

/// One recorded run, as `podsim run` shows it: a Pod's (a Job's Pods'
/// too), or a Service's.
// One report per run, made once and moved into its view: boxing either
// variant buys nothing but an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum RunReport {
    /// A Pod, or a Job's Pods.
    Pod(PodReport),
    /// A Service and its replicas.
    Service(ServiceReport),
}

/// One Pod's run with its history, and a Job's Pods for a Job's Pod.
#[derive(Clone, Debug)]
pub struct PodReport {
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
    pub figures: JobFigures,
    /// Its Pods, in the order they were created.
    pub pods: Vec<JobPod>,
    /// The histories of the Pods after the first (the first's is the
    /// report's `trace`), each from its own creation: times are the Pod's
    /// age, as kubectl's AGE column counts it.
    pub later: Vec<Vec<TraceEntry>>,
}

/// Simulates `run` once, recording its history: its Service's, if it has
/// one, else its Pod's (`simulate_pod`).
pub fn simulate(run: &RunSpec) -> RunReport {
    unlimited(simulate_within(run, &Limits::default()))
}

/// `simulate` under `limits`: why they halted the run, if they did.
pub fn simulate_within(run: &RunSpec, limits: &Limits) -> Result<RunReport, Halt> {
    match run.service {
        Some(_) => simulate_service_within(run, limits).map(RunReport::Service),
        None => simulate_pod_within(run, limits).map(RunReport::Pod),
    }
}

/// The report of a run without limits, which nothing halts.
fn unlimited<T>(report: Result<T, Halt>) -> T {
    match report {
        Ok(report) => report,
        Err(_) => unreachable!("a run without limits is never halted"),
    }
}

/// Simulates the Pod of `run` once, recording its history, whatever its
/// Service; a Job's Pod runs under the Job controller, and every Pod's
/// history is kept (the first's as the report's trace, which the timeline
/// and the metrics are of).
pub fn simulate_pod(run: &RunSpec) -> PodReport {
    unlimited(simulate_pod_within(run, &Limits::default()))
}

/// `simulate_pod` under `limits`: why they halted the run, if they did.
fn simulate_pod_within(run: &RunSpec, limits: &Limits) -> Result<PodReport, Halt> {
    if run.pod.mode == PodMode::Job {
        let mut simulator = JobSimulator::observed_by(run.clone(), Trace::new());
        simulator.set_limits(limits.clone());
        let mut histories = Vec::new();
        let (metrics, figures) = simulator.run(|_, pod| histories.push(pod.to_vec()));
        if let Some(halt) = simulator.halted() {
            return Err(halt);
        }
        let mut histories = histories.into_iter();
        return Ok(PodReport {
            metrics,
            trace: histories.next().unwrap_or_default(),
            job: figures.map(|figures| JobReport {
                figures,
                pods: simulator.pods().to_vec(),
                later: histories.collect(),
            }),
        });
    }
    let mut simulator = PodSimulator::recording(run.clone());
    simulator.set_limits(limits.clone());
    let metrics = simulator.run();
    if let Some(halt) = simulator.halted() {
        return Err(halt);
    }
    Ok(PodReport {
        metrics,
        trace: simulator.trace().to_vec(),
        job: None,
    })
}

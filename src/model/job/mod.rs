//! The Job controller over a Job's Pods (`pkg/controller/job`): a Pod that
//! fails is replaced by a new one after the controller's back-off, until
//! one succeeds, `backoffLimit` is exceeded, or a `podFailurePolicy` rule
//! ends the Job; under `restartPolicy: OnFailure` the containers' restarts
//! count instead, and the Job fails (deleting its Pod) once they reach the
//! limit. Rules J1–J6 in docs/kubelet-rules.md, with their sources.
//!
//! Invariant: every Pod of the Job is a whole run of the Pod model on the
//! template, one after another (a Job of one completion and parallelism 1
//! has one Pod at a time); the Job's figures come only from what each run
//! reported (its metrics and the changes `JobWatch` saw), so the same spec
//! gives the same Job on every thread.

mod policy;

pub use policy::{
    Action, ConditionPattern, DEFAULT_BACKOFF_LIMIT, FailedPod, FailureRule, Fired, JobSpec, Requirement,
    matches,
};

use super::pod::spec::{ContainerId, Deletion, PodMode, PodRun, RestartPolicy};
use super::pod::{Change, Metrics, Observer, Outcome, PodPhase, PodSimulator, TraceEntry};
use crate::engine::{Halt, Limits, SimDuration, SimTime};

/// Lends a Job's run its Pod template, horizon and stream (`PodRun`) and
/// the controller's rules: the Job room names no caller above it, and a
/// sweep sets its keys on the very value the Pods run from.
pub trait JobRun: PodRun {
    /// The Job controller's rules (`PodMode::Job`), taken for a run and
    /// put back after it.
    fn job_mut(&mut self) -> &mut JobSpec;
}

/// The controller's back-off before a failed Pod's replacement: 10 s, doubled
/// per failure since the last success, at most 10 min
/// (`DefaultJobPodFailureBackOff`, `MaxJobPodFailureBackOff`; J3).
pub fn replacement_delay(failures: u32) -> SimDuration {
    const FIRST: u64 = 10_000;
    const MAX: u64 = 600_000;
    let doublings = failures.saturating_sub(1).min(16);
    SimDuration::from_millis((FIRST << doublings).min(MAX))
}

/// Why the Job failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobFailure {
    /// More counted failures than `backoffLimit`, or (OnFailure) restarts
    /// that reached it (J2, J4).
    BackoffLimitExceeded,
    /// A `FailJob` rule matched (J5).
    PodFailurePolicy(Fired),
    /// The one index failed: more failures than `backoffLimitPerIndex`, or
    /// a `FailIndex` rule (J6).
    FailedIndexes(Option<Fired>),
}

impl JobFailure {
    /// The Job's `Failed` condition reason, as the API spells it.
    pub fn reason(self) -> &'static str {
        match self {
            JobFailure::BackoffLimitExceeded => "BackoffLimitExceeded",
            JobFailure::PodFailurePolicy(_) => "PodFailurePolicy",
            JobFailure::FailedIndexes(_) => "FailedIndexes",
        }
    }

    /// The rule that fired, if one did.
    pub fn fired(self) -> Option<Fired> {
        match self {
            JobFailure::PodFailurePolicy(fired) | JobFailure::FailedIndexes(Some(fired)) => Some(fired),
            _ => None,
        }
    }
}

/// How the Job ended, times from its creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobOutcome {
    /// A Pod succeeded: the Job is Complete.
    Complete {
        /// When that Pod turned Succeeded.
        at: SimTime,
    },
    /// The Job failed.
    Failed {
        /// When the controller decided (the `FailureTarget` condition).
        decided: SimTime,
        /// When its last Pod was terminal: the `Failed` condition (1.31+).
        at: SimTime,
        /// Why.
        reason: JobFailure,
    },
    /// Neither by the end of the run: a Pod stuck Running (its app never
    /// exits), a Pod cut by the horizon, or a replacement not made in time.
    Running,
}

impl JobOutcome {
    /// The Job's state in one word: its terminal condition, or Running.
    pub fn name(self) -> &'static str {
        match self {
            JobOutcome::Complete { .. } => "Complete",
            JobOutcome::Failed { .. } => "Failed",
            JobOutcome::Running => "Running",
        }
    }

    /// When the Job reached its terminal condition.
    pub fn at(self) -> Option<SimTime> {
        match self {
            JobOutcome::Complete { at } | JobOutcome::Failed { at, .. } => Some(at),
            JobOutcome::Running => None,
        }
    }
}

/// One Pod of the Job, times from the Job's creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobPod {
    /// When the controller created it.
    pub created: SimTime,
    /// When it was terminal (its last container stopped), if it was.
    pub finished: Option<SimTime>,
    /// Its phase at the end of its run.
    pub phase: PodPhase,
    /// How its run ended (a stuck app is named).
    pub outcome: Outcome,
    /// Container restarts in it (R20).
    pub restarts: u32,
    /// The `podFailurePolicy` rule its failure matched.
    pub fired: Option<Fired>,
    /// Its failure counted towards `backoffLimit`.
    pub counted: bool,
}

/// The Job's figures: how it ended, the Pods it made, the failures it counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobFigures {
    /// How it ended.
    pub outcome: JobOutcome,
    /// Pods created.
    pub pods: u32,
    /// Failures counted towards `backoffLimit`.
    pub failed: u32,
}

impl JobFigures {
    /// The CSV columns a Job grid adds after the Pod's (of its first Pod).
    pub const NAMES: [&'static str; 6] = [
        "job_outcome",
        "job_reason",
        "job_rule",
        "job_pods",
        "job_failed",
        "job_ms",
    ];
}

/// What the Job controller reads of a Pod's run, besides its metrics: each
/// container's last exit code, when the last container stopped, whether an
/// init container failed, and (OnFailure) when the restarts reached the
/// limit. It passes every change on to the observer `O`.
#[derive(Debug)]
pub struct JobWatch<O> {
    inner: O,
    exits: Vec<Option<i32>>,
    last_exit: Option<SimTime>,
    init_failed: bool,
    restarts: u32,
    /// Set before a run: the restart count at which the Job fails.
    restart_limit: Option<u32>,
    limit_reached: Option<SimTime>,
}

impl<O: Observer> Observer for JobWatch<O> {
    const KEEPS_HISTORY: bool = O::KEEPS_HISTORY;

    fn observe(&mut self, entry: TraceEntry) {
        let slot = entry.container.map(ContainerId::index);
        match entry.what {
            Change::Starting { attempt } => {
                if let Some(i) = slot {
                    self.slot(i).take();
                }
                if attempt > 1 {
                    self.restarts += 1;
                    if self.limit_reached.is_none() && self.restart_limit.is_some_and(|l| self.restarts >= l)
                    {
                        self.limit_reached = Some(entry.at);
                    }
                }
            }
            Change::Exited(reason) => {
                if let Some(i) = slot {
                    *self.slot(i) = Some(reason.code());
                }
                self.last_exit = Some(entry.at);
            }
            Change::PodFailed => self.init_failed = true,
            _ => {}
        }
        self.inner.observe(entry);
    }

    fn clear(&mut self) {
        self.exits.clear();
        self.last_exit = None;
        self.init_failed = false;
        self.restarts = 0;
        self.limit_reached = None;
        self.inner.clear();
    }
}

impl<O> JobWatch<O> {
    fn slot(&mut self, i: usize) -> &mut Option<i32> {
        if self.exits.len() <= i {
            self.exits.resize(i + 1, None);
        }
        &mut self.exits[i]
    }

    /// The observer it passes the changes on to.
    pub fn inner(&self) -> &O {
        &self.inner
    }
}

/// Runs a Job's Pods one after another on the same buffers, as
/// `PodSimulator` runs one Pod; the observer `O` sees each Pod's changes.
pub struct JobSimulator<O: Observer, R: JobRun> {
    pods: PodSimulator<JobWatch<O>, R>,
    record: Vec<JobPod>,
    /// Why the limits halted the last run's Pod, if they did.
    halted: Option<Halt>,
}

impl<R: JobRun> JobSimulator<(), R> {
    /// A simulator for the Job whose template `run` is.
    pub fn new(run: R) -> Self {
        JobSimulator::observed_by(run, ())
    }
}

impl<O: Observer, R: JobRun> JobSimulator<O, R> {
    /// A simulator whose Pods `observer` watches.
    pub fn observed_by(run: R, observer: O) -> Self {
        let watch = JobWatch {
            inner: observer,
            exits: Vec::new(),
            last_exit: None,
            init_failed: false,
            restarts: 0,
            restart_limit: None,
            limit_reached: None,
        };
        JobSimulator {
            pods: PodSimulator::observed_by(run, watch),
            record: Vec::new(),
            halted: None,
        }
    }

    /// Runs from now on obey `limits`, each Pod's run on its own.
    pub fn set_limits(&mut self, limits: Limits) {
        self.pods.set_limits(limits);
    }

    /// Why the limits halted a Pod of the last run, if they did: the Job
    /// went no further, and its figures are no result.
    pub fn halted(&self) -> Option<Halt> {
        self.halted
    }

    /// The spec of the next run; changes take effect at the next `run`.
    pub fn spec_mut(&mut self) -> &mut R {
        self.pods.spec_mut()
    }

    /// The Pods of the last run, in the order they were created.
    pub fn pods(&self) -> &[JobPod] {
        &self.record
    }

    /// Simulates the Job from its creation to its end or the horizon.
    /// `each` is called after every Pod's run with its metrics and the
    /// observer (a recording one holds that Pod's history then); the first
    /// Pod's metrics are returned beside the Job's figures. A spec that is
    /// not a Job's (a grid's `pod.mode` axis) runs its one Pod: no figures.
    pub fn run(&mut self, mut each: impl FnMut(&Metrics, &O)) -> (Metrics, Option<JobFigures>) {
        self.record.clear();
        if self.pods.spec().pod().mode != PodMode::Job {
            let metrics = self.pods.run();
            self.halted = self.pods.halted();
            each(&metrics, self.pods.observer().inner());
            return (metrics, None);
        }
        let spec = self.pods.spec_mut();
        let job = std::mem::take(spec.job_mut());
        let (pod, &mut horizon, &mut stream) = spec.parts_mut();
        let deletion = pod.deletion;
        let on_failure = pod.restart_policy == RestartPolicy::OnFailure;
        let limit = job.effective_backoff_limit();
        let (mut counted, mut index_failures, mut since_success) = (0u32, 0u32, 0u32);
        let mut created = SimTime::ZERO;
        let mut first = None;
        let outcome = loop {
            let n = self.record.len() as u32;
            let (pod, run_horizon, run_stream) = self.pods.spec_mut().parts_mut();
            *run_stream = stream.moved(n);
            *run_horizon = horizon - created.since(SimTime::ZERO);
            pod.deletion = if n == 0 { deletion } else { Deletion::Never };
            // J4: under OnFailure the restarts count; once they reach the
            // limit the Job fails and deletes the Pod: the run again, with
            // the deletion 1 ms (podsim's resolution) after that restart.
            self.pods.observer_mut().restart_limit = on_failure.then_some(limit.max(1));
            let mut metrics = self.pods.run();
            let decided = self.pods.observer_mut().limit_reached.take();
            if let Some(at) = decided {
                self.pods.observer_mut().restart_limit = None;
                self.pods.spec_mut().pod_mut().deletion =
                    Deletion::At(at.since(SimTime::ZERO) + SimDuration::from_millis(1));
                metrics = self.pods.run();
            }
            self.halted = self.pods.halted();
            each(&metrics, self.pods.observer().inner());
            first.get_or_insert(metrics);
            let watch = self.pods.observer();
            // A halted Pod did not finish: the Job stops with it.
            let finished = (metrics.phase.is_terminal() && self.halted.is_none())
                .then(|| created + watch.last_exit.unwrap_or_default().since(SimTime::ZERO));
            let mut pod = JobPod {
                created,
                finished,
                phase: metrics.phase,
                outcome: metrics.outcome,
                restarts: metrics.restarts,
                fired: None,
                counted: false,
            };
            let Some(at) = finished else {
                self.record.push(pod);
                break JobOutcome::Running;
            };
            if let Some(when) = decided {
                self.record.push(pod);
                break JobOutcome::Failed {
                    decided: created + when.since(SimTime::ZERO),
                    at,
                    reason: JobFailure::BackoffLimitExceeded,
                };
            }
            if metrics.phase == PodPhase::Succeeded {
                self.record.push(pod);
                break JobOutcome::Complete { at };
            }
            // J5: the policy looks at Failed Pods only (and needs Never).
            let failed = FailedPod {
                exits: &watch.exits,
                initialized: !watch.init_failed,
            };
            pod.fired = matches(&job.pod_failure_policy, self.pods.spec().pod(), &failed);
            since_success += 1;
            let failure = match pod.fired.map(|f| f.action) {
                Some(Action::FailJob) => pod.fired.map(JobFailure::PodFailurePolicy),
                Some(Action::FailIndex) => Some(JobFailure::FailedIndexes(pod.fired)),
                Some(Action::Ignore) => None,
                Some(Action::Count) | None => {
                    pod.counted = true;
                    counted += 1;
                    index_failures += 1;
                    if job.backoff_limit_per_index.is_some_and(|l| index_failures > l) {
                        Some(JobFailure::FailedIndexes(None))
                    } else {
                        (counted > limit).then_some(JobFailure::BackoffLimitExceeded)
                    }
                }
            };
            self.record.push(pod);
            if let Some(reason) = failure {
                break JobOutcome::Failed {
                    decided: at,
                    at,
                    reason,
                };
            }
            created = at + replacement_delay(since_success);
            if created >= SimTime::ZERO + horizon {
                break JobOutcome::Running;
            }
        };
        let spec = self.pods.spec_mut();
        *spec.job_mut() = job;
        let (pod, run_horizon, run_stream) = spec.parts_mut();
        (*run_stream, *run_horizon, pod.deletion) = (stream, horizon, deletion);
        let figures = JobFigures {
            outcome,
            pods: self.record.len() as u32,
            failed: counted,
        };
        (
            first.expect("the loop runs the first Pod before it can end"),
            Some(figures),
        )
    }
}

//! Measuring one candidate: the scenario with the advised keys set to
//! candidate values, run over a range of replications, each run reduced to
//! the few figures a target or a cost reads (`Run`), together a `Sample`.
//!
//! Why a room of its own: the search must count every simulated run (the
//! point of searching instead of sweeping is to run fewer), must not run a
//! candidate twice (bisection and the report ask for the same point), and
//! must give every candidate the same replications (common random numbers:
//! replication r draws the same propagation delays and arrivals whatever
//! the preStop, so two candidates differ by their setting, not by luck).
//! All three live here, in `Measurer`.
//!
//! Invariant: a `Sample`'s runs are in replication order and do not depend
//! on the thread count (each replication is its own stream).
//!
//! The measurer also keeps the order candidates were first measured in
//! (`Measured`): the frontier picture draws what the search ran, in a
//! stable order, and nothing else. Under `Limits` (`podsim serve`'s
//! budget) a halted run halts the measurer: later candidates run nothing,
//! and the caller reports the halt instead of an advice.

use std::collections::HashMap;
use std::ops::Range;

use rayon::prelude::*;

use crate::engine::{Halt, Limits, SimDuration};
use crate::model::RunSpec;
use crate::model::service::{Cause, Scaled, ServiceMetrics, ServiceSimulator};
use crate::scenario::key::{Field, Key, Value};
use crate::sweep::summary::nearest_rank;

/// What one run measured, as far as advice reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Failed requests, all causes.
    pub failed: u64,
    /// Failed requests by `Cause::ALL` order.
    pub failed_by: [u64; 7],
    /// Containers SIGKILLed, all replicas.
    pub sigkilled: u32,
    /// The slowest deleted Pod's deletion (at the kubelet) → last exit.
    pub termination_ms: Option<u64>,
    /// A rollout's start → the last old Pod gone.
    pub rollout_done_ms: Option<u64>,
    /// A drain's start → the last Pod of the node gone.
    pub drain_ms: Option<u64>,
    /// The fewest ready endpoints in the slice while traffic ran.
    pub min_ready: Option<u32>,
    /// A rollout's most Pod objects at once, terminating ones included.
    pub peak_pods: Option<u32>,
    /// A rollout's most Pods the controller counted at once (≤ replicas + surge).
    pub counted_pods: Option<u32>,
}

impl Run {
    fn of(m: &ServiceMetrics) -> Run {
        Run {
            failed: m.failed,
            failed_by: m.failed_by,
            sigkilled: m.sigkilled(),
            termination_ms: m.termination_ms(),
            rollout_done_ms: m.rollout.as_ref().and_then(|r| r.rollout_done_ms),
            drain_ms: m.drain.as_ref().and_then(|d| d.drain_ms),
            min_ready: m.min_ready_endpoints,
            peak_pods: m.rollout.as_ref().map(|r| r.peak_pods),
            counted_pods: m.rollout.as_ref().map(|r| r.peak_counted_pods),
        }
    }
}

/// The runs of one candidate over a range of replications.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The replications run (`replications.start` is the first run's).
    pub replications: Range<u64>,
    /// One per replication, in order.
    pub runs: Vec<Run>,
}

impl Sample {
    /// The nearest-rank percentile `p` (0–100) of failed requests.
    pub fn failed_percentile(&self, p: u64) -> u64 {
        let mut failed: Vec<u64> = self.runs.iter().map(|r| r.failed).collect();
        failed.sort_unstable();
        if failed.is_empty() {
            0
        } else {
            nearest_rank(&failed, p)
        }
    }

    /// Mean failed requests per run.
    pub fn failed_mean(&self) -> f64 {
        self.mean(|r| Some(r.failed)).unwrap_or(0.0)
    }

    /// Mean failed requests per run for `cause`.
    pub fn cause_mean(&self, cause: Cause) -> f64 {
        self.mean(|r| Some(r.failed_by[cause as usize])).unwrap_or(0.0)
    }

    /// Runs in which a container was SIGKILLed.
    pub fn killed_runs(&self) -> u64 {
        self.runs.iter().filter(|r| r.sigkilled > 0).count() as u64
    }

    /// The mean of `figure` over the runs that have it (`None` if none has).
    pub fn mean(&self, figure: impl Fn(&Run) -> Option<u64>) -> Option<f64> {
        let values: Vec<u64> = self.runs.iter().filter_map(figure).collect();
        (!values.is_empty()).then(|| values.iter().sum::<u64>() as f64 / values.len() as f64)
    }
}

/// A candidate: the advised keys' values, `None` for the value as the
/// scenario writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Point {
    /// The preStop sleep.
    pub pre_stop: Option<SimDuration>,
    /// terminationGracePeriodSeconds.
    pub grace: Option<SimDuration>,
    /// The rollout's strategy.
    pub rollout: Option<RolloutPoint>,
}

impl Point {
    /// The scenario as written.
    pub const TODAY: Point = Point {
        pre_stop: None,
        grace: None,
        rollout: None,
    };
}

/// A RollingUpdate's three settings, as the Deployment writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RolloutPoint {
    /// `maxSurge`.
    pub max_surge: Scaled,
    /// `maxUnavailable`.
    pub max_unavailable: Scaled,
    /// `minReadySeconds`.
    pub min_ready: SimDuration,
}

/// Runs candidates of one scenario and counts the runs.
pub struct Measurer {
    base: RunSpec,
    pre_stop: Key,
    /// The Pod's proxy's preStop, set to the same value as the app's when
    /// the app's alone cannot meet the target (`steps::with_proxy`).
    proxy: Option<Key>,
    grace: Key,
    /// The rollout's disruption, whose keys a `RolloutPoint` sets.
    rollout: Option<usize>,
    /// Simulated runs so far.
    runs: u64,
    cache: HashMap<(Point, u64), Sample>,
    /// The samples in the order first measured: `(point, first replication)`.
    order: Vec<(Point, u64)>,
    /// What every run obeys.
    limits: Limits,
    /// Why the limits halted a run, if they did.
    halted: Option<Halt>,
}

/// One candidate the search ran, with its sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The candidate.
    pub point: Point,
    /// Its runs (on the search's replications or on the fresh ones).
    pub sample: Sample,
    /// Its preStop was set on the Pod's proxy too (`with_proxy`), not on
    /// the app alone: the frontier picture marks the two apart.
    pub proxy: bool,
}

impl Measurer {
    /// A measurer of `base` (a Service scenario) whose candidates set
    /// `pre_stop` and `grace`, two keys of the registry resolved on it.
    pub fn new(base: RunSpec, pre_stop: Key, grace: Key) -> Measurer {
        Measurer {
            base,
            pre_stop,
            proxy: None,
            grace,
            rollout: None,
            runs: 0,
            cache: HashMap::new(),
            order: Vec::new(),
            limits: Limits::default(),
            halted: None,
        }
    }

    /// The same measurer, its runs under `limits`.
    pub fn within(self, limits: &Limits) -> Measurer {
        Measurer {
            limits: limits.clone(),
            ..self
        }
    }

    /// The same, whose candidates may also set the rollout of disruption
    /// `index` (its `max_surge`, `max_unavailable`, `min_ready_seconds`).
    pub fn with_rollout(self, index: usize) -> Measurer {
        Measurer {
            rollout: Some(index),
            ..self
        }
    }

    /// The same, whose candidates' preStop also sets `proxy` (the Pod's
    /// proxy's preStop key) to the same value.
    pub fn with_proxy(self, proxy: Key) -> Measurer {
        Measurer {
            proxy: Some(proxy),
            ..self
        }
    }

    /// Why the limits halted a run, if they did: then no sample is a result.
    pub fn halted(&self) -> Option<Halt> {
        self.halted
    }

    /// Every sample measured, in the order first measured.
    pub fn into_measured(mut self) -> Vec<Measured> {
        let proxy = self.proxy.is_some();
        (self.order.iter())
            .filter_map(|&(point, start)| {
                let sample = self.cache.remove(&(point, start))?;
                Some(Measured { point, sample, proxy })
            })
            .collect()
    }

    /// Simulated runs so far.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// `point` over `replications`; a sample already measured is not run
    /// again. A sample measured over a shorter range from the same start
    /// (a screening's) is extended by the runs it lacks, so a candidate
    /// screened then confirmed costs no run twice; one measured over a
    /// longer range is returned whole. Once halted, a new point's sample
    /// is empty and not counted.
    pub fn sample(&mut self, point: Point, replications: Range<u64>) -> &Sample {
        let key = (point, replications.start);
        let from = match self.cache.get(&key) {
            Some(s) if s.replications.end >= replications.end => return &self.cache[&key],
            Some(s) => s.replications.end,
            None => replications.start,
        };
        let ran = match self.halted {
            Some(halt) => Err(halt),
            None => self.run(point, from..replications.end),
        };
        match ran {
            Ok(more) => {
                self.runs += replications.end - from;
                let sample = self.cache.entry(key).or_insert_with(|| {
                    self.order.push(key);
                    Sample {
                        replications: replications.start..replications.start,
                        runs: Vec::new(),
                    }
                });
                sample.replications.end = replications.end;
                sample.runs.extend(more.runs);
            }
            Err(halt) => {
                self.halted = Some(halt);
                self.cache.entry(key).or_insert(Sample {
                    replications,
                    runs: Vec::new(),
                });
            }
        }
        &self.cache[&key]
    }

    /// The spec of `point`, set through the key registry as a grid axis sets it.
    pub fn spec(&self, point: Point) -> RunSpec {
        let mut spec = self.base.clone();
        if let Some(p) = point.pre_stop {
            self.pre_stop.set(&mut spec, &Value::Millis(p));
            if let Some(proxy) = &self.proxy {
                proxy.set(&mut spec, &Value::Millis(p));
            }
        }
        if let Some(g) = point.grace {
            self.grace.set(&mut spec, &Value::Millis(g));
        }
        if let (Some(r), Some(index)) = (point.rollout, self.rollout) {
            let key = |field| Key::container(field, index);
            key(Field::MaxSurge).set(&mut spec, &Value::Scaled(r.max_surge));
            key(Field::MaxUnavailable).set(&mut spec, &Value::Scaled(r.max_unavailable));
            key(Field::MinReadySeconds).set(&mut spec, &Value::Millis(r.min_ready));
        }
        spec
    }

    /// The runs of `point`, shared out over the cores, each thread on a
    /// simulator of its own; collected in replication order, or the first
    /// halt.
    fn run(&self, point: Point, replications: Range<u64>) -> Result<Sample, Halt> {
        let spec = self.spec(point);
        let runs = replications
            .clone()
            .into_par_iter()
            .map_init(
                || {
                    let mut simulator = ServiceSimulator::new(spec.clone());
                    simulator.set_limits(self.limits.clone());
                    simulator
                },
                |simulator, r| {
                    simulator.spec_mut().stream.replication = r;
                    let metrics = simulator.run();
                    match simulator.halted() {
                        Some(halt) => Err(halt),
                        None => Ok(Run::of(&metrics)),
                    }
                },
            )
            .collect::<Result<_, _>>()?;
        Ok(Sample { replications, runs })
    }
}

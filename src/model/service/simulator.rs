//! Running a Service: what a Service's run reads (`ServiceRun`), the
//! simulator a sweep reuses run after run, and one recorded run for
//! `podsim run`.
//!
//! As the Pod reads its run through `PodRun` and the Job through `JobRun`,
//! the Service reads its through `ServiceRun`, so that the Service room
//! names no room above it (`model::RunSpec` lends it in place) and a sweep
//! sets its keys on the very value the replicas are made from.

use super::history::ServiceObserver;
use super::{ServiceEvent, ServiceMetrics, ServiceModel, ServiceSpec, ServiceTrace, When};
use crate::engine::{Halt, Limits, SimDuration, SimTime, Simulation};
use crate::model::pod::spec::PodRun;
use crate::model::pod::{PodEvent, Trace};

/// Lends a Service's run its Pod template, horizon and stream (`PodRun`)
/// and the Service in front of the replicas.
pub trait ServiceRun: PodRun {
    /// The Service, read once per run (a run without one runs the
    /// default Service).
    fn service(&self) -> Option<&ServiceSpec>;
}

/// Runs Service specs one after another on the same buffers, like
/// `PodSimulator` for Pods. The observer `O` is what is kept of each run
/// besides its metrics: nothing (`()`, the sweep's), every change
/// (`ServiceHistory`), or what `podsim run` shows (`ServiceTrace`).
pub struct ServiceSimulator<O: ServiceObserver, R: ServiceRun> {
    sim: Simulation<ServiceModel<O, R>>,
}

impl<R: ServiceRun> ServiceSimulator<(), R> {
    /// A simulator for `run` that keeps nothing but the metrics.
    pub fn new(run: R) -> Self {
        ServiceSimulator::observed_by(run, ())
    }
}

impl<O: ServiceObserver, R: ServiceRun> ServiceSimulator<O, R> {
    /// A simulator for `run` whose changes `observer` watches.
    pub fn observed_by(run: R, observer: O) -> Self {
        let horizon = run.horizon();
        ServiceSimulator {
            sim: Simulation::new(ServiceModel::new(run, observer), horizon),
        }
    }

    /// The spec of the next run; changes take effect at the next `run`.
    pub fn spec_mut(&mut self) -> &mut R {
        &mut self.sim.model_mut().run
    }

    /// Simulates the current spec from the replicas' creation to the end.
    pub fn run(&mut self) -> ServiceMetrics {
        let horizon = self.sim.model().run.horizon();
        self.sim.set_horizon(horizon);
        // A node's sync handles every replica (a change each, as its rules
        // are first filled), and the Deployment controller ranks them all
        // at each of its syncs (a sort): at 150,000 replicas the usual
        // 4,096 events between two looks at a stop were 4 s, and a rollout
        // of 2,000 on a loaded machine still took 1 to 3 s to stop at 2²²
        // replicas' worth. Look every 2¹⁶ replicas' worth (the usual 4,096
        // events up to 16 replicas; a look is a few instructions, an event
        // of a thousand replicas thousands).
        let replicas = self.sim.model().run.service().map_or(1, |s| s.replicas.max(1));
        self.sim.set_check_every((1 << 16) / u64::from(replicas));
        self.sim.rewind();
        self.sim.model_mut().reset();
        for replica in 0..self.sim.model().pods.len() as u32 {
            let event = PodEvent::Created;
            self.sim
                .schedule(SimTime::ZERO, ServiceEvent::Pod { replica, event });
        }
        let at: Vec<(u32, SimDuration)> = (self.sim.model().service.disruptions.iter().enumerate())
            .filter_map(|(i, d)| match d.when {
                When::At(at) => Some((i as u32, at)),
                When::AfterReady(_) => None,
            })
            .collect();
        for (index, at) in at {
            self.sim
                .schedule(SimTime::ZERO + at, ServiceEvent::Disrupt { index, round: 0 });
        }
        if let Some(at) = self.sim.model_mut().first_churn() {
            self.sim.schedule(at, ServiceEvent::Churn);
        }
        if let Some(at) = self.sim.model().full_sync_at() {
            self.sim.schedule(at, ServiceEvent::FullSync);
        }
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

    /// What the observer kept of the last run.
    pub fn observer(&self) -> &O {
        self.sim.model().observer()
    }

    /// What the observer kept of the last run, to take it away.
    pub fn observer_mut(&mut self) -> &mut O {
        self.sim.model_mut().observer_mut()
    }
}

/// One Service run with its history: what `podsim run` shows.
#[derive(Clone, Debug)]
pub struct ServiceReport {
    /// The run's figures.
    pub metrics: ServiceMetrics,
    /// The run's history, as `podsim run` keeps it; the views read it and
    /// the metrics, nothing else.
    pub trace: ServiceTrace,
}

impl ServiceReport {
    /// Each replica's Pod history.
    pub fn replica_traces(&self) -> Vec<Trace> {
        self.trace.replica_traces(self.metrics.replicas.len())
    }
}

/// Simulates the Service of `run` once, recording its history.
pub fn simulate_service<R: ServiceRun + Clone>(run: &R) -> ServiceReport {
    match simulate_service_within(run, &Limits::default()) {
        Ok(report) => report,
        Err(_) => unreachable!("a run without limits is never halted"),
    }
}

/// `simulate_service` under `limits`: why they halted it, if they did.
pub fn simulate_service_within<R: ServiceRun + Clone>(
    run: &R,
    limits: &Limits,
) -> Result<ServiceReport, Halt> {
    let mut simulator = ServiceSimulator::observed_by(run.clone(), ServiceTrace::default());
    simulator.set_limits(limits.clone());
    let metrics = simulator.run();
    if let Some(halt) = simulator.halted() {
        return Err(halt);
    }
    Ok(ServiceReport {
        trace: std::mem::take(simulator.observer_mut()),
        metrics,
    })
}

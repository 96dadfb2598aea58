//! Running a Service: the simulator a sweep reuses run after run, and one
//! recorded run for `podsim run`.

use super::history::ServiceObserver;
use super::{ServiceEvent, ServiceMetrics, ServiceModel, ServiceTrace, When};
use crate::engine::{SimDuration, SimTime, Simulation};
use crate::model::RunSpec;
use crate::model::pod::PodEvent;
use crate::model::pod::Trace;

/// Runs Service specs one after another on the same buffers, like
/// `PodSimulator` for Pods. The observer `O` is what is kept of each run
/// besides its metrics: nothing (`()`, the sweep's), every change
/// (`ServiceHistory`), or what `podsim run` shows (`ServiceTrace`).
pub struct ServiceSimulator<O: ServiceObserver = ()> {
    sim: Simulation<ServiceModel<O>>,
}

impl<O: ServiceObserver + Default> ServiceSimulator<O> {
    /// A simulator for `run`, which has a `service`.
    pub fn new(run: RunSpec) -> Self {
        let horizon = run.horizon;
        ServiceSimulator {
            sim: Simulation::new(ServiceModel::new(run, O::default()), horizon),
        }
    }
}

impl<O: ServiceObserver> ServiceSimulator<O> {
    /// The run being simulated.
    pub fn spec(&self) -> &RunSpec {
        &self.sim.model().run
    }

    /// The spec of the next run; changes take effect at the next `run`.
    pub fn spec_mut(&mut self) -> &mut RunSpec {
        &mut self.sim.model_mut().run
    }

    /// Simulates the current spec from the replicas' creation to the end.
    pub fn run(&mut self) -> ServiceMetrics {
        let horizon = self.sim.model().run.horizon;
        self.sim.set_horizon(horizon);
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
        let how = self.sim.run();
        let end = self.sim.end_time(how);
        self.sim.model_mut().finish(end, how)
    }

    /// Events handled and stale events dropped in the last run.
    pub fn event_counts(&self) -> (u64, u64) {
        self.sim.counts()
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
pub fn simulate_service(run: &RunSpec) -> ServiceReport {
    let mut simulator = ServiceSimulator::<ServiceTrace>::new(run.clone());
    let metrics = simulator.run();
    ServiceReport {
        trace: std::mem::take(simulator.observer_mut()),
        metrics,
    }
}

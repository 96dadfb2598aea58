//! Running a Service: the simulator a sweep reuses run after run, and one
//! recorded run for `podsim run`.

use super::{FailedRequest, PodRecord, SentTimes, ServiceEvent, ServiceMetrics, ServiceModel, When};
use crate::engine::{SimDuration, SimTime, Simulation};
use crate::model::RunSpec;
use crate::model::pod::PodEvent;
use crate::model::pod::{Observer, Trace};

/// Runs Service specs one after another on the same buffers, like
/// `PodSimulator` for Pods.
pub struct ServiceSimulator<O: Observer + Default = ()> {
    sim: Simulation<ServiceModel<O>>,
}

impl<O: Observer + Default> ServiceSimulator<O> {
    /// A simulator for `run`, which has a `service`.
    pub fn new(run: RunSpec) -> Self {
        let horizon = run.horizon;
        ServiceSimulator {
            sim: Simulation::new(ServiceModel::new(run), horizon),
        }
    }

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

    /// Keeps the routing log (`ServiceModel::log`) from the next run on.
    pub fn keep_log(&mut self) {
        self.sim.model_mut().keep_log();
    }

    /// The model, to read its state after a run.
    pub fn model(&self) -> &ServiceModel<O> {
        self.sim.model()
    }
}

/// One Service run with its history: what `podsim run` shows.
#[derive(Clone, Debug)]
pub struct ServiceReport {
    /// The run's figures.
    pub metrics: ServiceMetrics,
    /// Each replica's Pod history.
    pub traces: Vec<Trace>,
    /// Each failed request, in the order they failed.
    pub failures: Vec<FailedRequest>,
    /// When the answered requests were sent (one by one for a few, else
    /// counted per bucket of time).
    pub answered: SentTimes,
    /// What the API and the slice showed of each Pod, in the order it happened.
    pub pods: Vec<PodRecord>,
    /// Ready endpoints in the slice from the traffic's start, at each change.
    pub ready_endpoints: Vec<(SimTime, u32)>,
}

/// Simulates the Service of `run` once, recording its history.
pub fn simulate_service(run: &RunSpec) -> ServiceReport {
    let mut simulator = ServiceSimulator::<Trace>::new(run.clone());
    let metrics = simulator.run();
    let model = simulator.model();
    ServiceReport {
        traces: (0..model.pods.len())
            .map(|r| model.replica_observer(r).clone())
            .collect(),
        failures: model.failures().to_vec(),
        answered: model.answered_sent().clone(),
        pods: model.pod_log().to_vec(),
        ready_endpoints: model.ready_history().to_vec(),
        metrics,
    }
}

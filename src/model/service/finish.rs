//! The end of a Service run: each replica's Pod ends where its own last
//! event was (or at the horizon), reports its last changes (its probes'
//! totals, its phase), and the meters make the run's figures of what they
//! observed. It lives apart from the handlers because it runs after the
//! last event and needs none of the rules that drive the run.

use super::history::ServiceObserver;
use super::{ServiceMetrics, ServiceModel, ServiceRun};
use crate::engine::{RunEnd, SimTime};

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// The metrics of a run that ended at `end` for reason `how`.
    pub fn finish(&mut self, end: SimTime, how: RunEnd) -> ServiceMetrics {
        if self.counting.on {
            self.count_at_end(end);
        }
        let mut replicas = Vec::with_capacity(self.pods.len());
        for r in 0..self.pods.len() {
            let own_end = match how {
                RunEnd::Quiet => self.last_pod_event[r],
                RunEnd::Horizon | RunEnd::Halted(_) => end,
            };
            replicas.push(self.pods[r].finish(own_end, how));
            let mut changes = self.report_pod_changes(r);
            changes.clear();
            self.pods[r].observer_mut().changes = changes;
        }
        self.observers.meters.metrics(end, how, replicas)
    }
}

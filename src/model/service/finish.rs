//! The metrics of a Service run, worked out once at its end from what the
//! handlers kept (each replica's Pod, the deletions, the ready endpoints
//! over time, the failures). It lives apart from those handlers because it
//! runs after the last event: reading it needs none of the rules that drive
//! the run, only what the run left behind.

use super::{ServiceMetrics, ServiceModel};
use crate::engine::{RunEnd, SimTime};
use crate::model::pod::Observer;

impl<O: Observer + Default> ServiceModel<O> {
    /// The metrics of a run that ended at `end` for reason `how`.
    pub fn finish(&mut self, end: SimTime, how: RunEnd) -> ServiceMetrics {
        let mut replicas = Vec::with_capacity(self.pods.len());
        for (r, pod) in self.pods.iter_mut().enumerate() {
            let own_end = match how {
                RunEnd::Quiet => self.last_pod_event[r],
                RunEnd::Horizon => end,
            };
            replicas.push(pod.finish(own_end, how));
        }
        for d in &mut self.deleted {
            d.termination_ms = replicas[d.replica as usize].termination_ms;
        }
        let desired = (self.service.pdb).map_or(0, |p| p.desired_healthy(self.service.replicas.max(1)));
        let (min_ready, zero_ms, below_ms) = self.endpoint_figures(end, desired);
        ServiceMetrics {
            ready_ms: self.started.map(SimTime::as_millis),
            requests: u64::from(self.sent),
            failed: self.failed_by.iter().sum(),
            failed_by: self.failed_by,
            retried_ok: self.retried_ok,
            min_ready_endpoints: min_ready,
            zero_endpoints_ms: zero_ms,
            rollout: self.rollout_figures(),
            drain: self.drain_figures(below_ms),
            deleted: self.deleted.clone(),
            replicas,
            end_ms: end.as_millis(),
            horizon: how == RunEnd::Horizon,
        }
    }

    /// Over the traffic's span: the fewest ready endpoints, the time with
    /// none and the time with fewer than `desired`.
    fn endpoint_figures(&self, end: SimTime, desired: u32) -> (Option<u32>, u64, u64) {
        let Some((start, stop)) = self.traffic_span() else {
            return (None, 0, 0);
        };
        let stop = stop.unwrap_or(end).min(end).max(start);
        let mut min = None::<u32>;
        let (mut zero, mut below) = (0, 0);
        for (i, &(at, ready)) in self.ready_history.iter().enumerate() {
            if at > stop {
                break;
            }
            let until = self.ready_history.get(i + 1).map_or(stop, |n| n.0.min(stop));
            min = Some(min.map_or(ready, |m| m.min(ready)));
            let span = until.since(at).as_millis();
            if ready == 0 {
                zero += span;
            }
            if ready < desired {
                below += span;
            }
        }
        (min, zero, below)
    }
}

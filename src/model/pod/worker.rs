//! A Pod's probe workers (R28): one per probe a container has, kept by the
//! Pod in one list and found through the container's slots, so a container
//! without probes carries no worker and costs nothing at a reset, a start
//! or an exit.
//!
//! Invariant: a container has a worker for every probe kind that any image
//! its run may use has (its own spec's, or the timings of an `update_image`
//! action for it, R71), built at `reset`; the list is in container order,
//! and in `ProbeKind::index` order within a container.

use super::PodModel;
use super::container::Container;
use super::history::Observer;
use super::spec::{ActionKind, ContainerId, ContainerSpec, PodRun, PodSpec, ProbeKind};
use super::stretch::{Run, Stretch};
use crate::engine::SimTime;

/// One probe worker and its ticker: the anchor and the last tick used,
/// which survive restarts, the counter of consecutive results (R30), and a
/// generation that voids pending ticks.
#[derive(Clone, Copy, Debug)]
pub(super) struct Worker {
    pub container: ContainerId,
    pub kind: ProbeKind,
    pub anchor: SimTime,
    pub last_tick: Option<SimTime>,
    pub generation: u32,
    /// The last manual trigger (R52): one per instant is enough.
    pub triggered_at: Option<SimTime>,
    /// The counter while no stretch runs; a stretch carries its own.
    pub run: Run,
    /// The attempt whose instance a published failure (liveness) or any
    /// published startup result holds the worker for (R30): the next
    /// instance has another attempt, so a start needs not release it.
    pub held_for: Option<u32>,
    /// The worker probes on this plan now, if it probes at all.
    pub stretch: Option<Stretch>,
    /// The tick of the current generation that is scheduled, and whether
    /// it passes: the ticks before it change nothing, so none is.
    pub pending: Option<(u64, bool)>,
}

impl Worker {
    /// The worker of a Pod just created, or of a kubelet just restarted
    /// (R74) from `anchor` on.
    pub fn new(container: ContainerId, kind: ProbeKind, anchor: SimTime) -> Worker {
        Worker {
            container,
            kind,
            anchor,
            last_tick: None,
            generation: 0,
            triggered_at: None,
            run: Run {
                passing: None,
                len: 0,
            },
            held_for: None,
            stretch: None,
            pending: None,
        }
    }
}

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// Where the worker of `id`'s probe of `kind` is, if it has one.
    #[inline]
    pub(super) fn slot(&self, id: ContainerId, kind: ProbeKind) -> Option<usize> {
        self.container(id).workers[kind.index()].map(|w| w as usize)
    }
}

/// The workers of container `id` (a new `c`) for a new run, onto `workers`.
pub(super) fn add(pod: &PodSpec, id: ContainerId, c: &mut Container, workers: &mut Vec<Worker>) {
    let spec = &pod.containers[id.index()];
    for kind in ProbeKind::ALL {
        if may_probe(pod, id, spec, kind) {
            c.workers[kind.index()] = Some(workers.len() as u32);
            workers.push(Worker::new(id, kind, SimTime::ZERO));
        }
    }
}

/// Whether container `id` (of spec `spec`) may have a probe of `kind` in
/// this run: in its own spec, or in a new image's timings (R71).
fn may_probe(pod: &PodSpec, id: ContainerId, spec: &ContainerSpec, kind: ProbeKind) -> bool {
    spec.probe(kind).is_some()
        || pod.actions.iter().any(|a| match &a.kind {
            ActionKind::UpdateImage {
                container,
                timings: Some(timings),
            } => *container == id && timings.probe(kind).is_some(),
            _ => false,
        })
}

//! What one run of a Pod reads besides the Pod: when to stop looking at it
//! and the stream its draws are keyed by.
//!
//! The Pod model takes any value that lends these three (`PodRun`), not one
//! type, so that the Pod room names no room above it and yet no run pays a
//! copy: the caller that runs a whole scenario (`model::RunSpec`, which
//! holds a Job's and a Service's settings too) lends its own fields, and a
//! sweep sets its keys on the very value the model reads. A Service's
//! replicas, which are only Pods, run on the plain `PodRunSpec`.

use super::PodSpec;
use crate::engine::SimDuration;
use crate::model::draw::Stream;

/// Lends a Pod run its Pod, horizon and stream. Implementors give the two
/// borrows; the readers are written once here and inline to field reads.
pub trait PodRun {
    /// The Pod, the horizon and the stream.
    fn parts(&self) -> (&PodSpec, &SimDuration, &Stream);

    /// The same, to change between runs.
    fn parts_mut(&mut self) -> (&mut PodSpec, &mut SimDuration, &mut Stream);

    /// The Pod to run.
    #[inline(always)]
    fn pod(&self) -> &PodSpec {
        self.parts().0
    }

    /// The Pod, to change between runs (or, for the model, to swap an
    /// action's image in: `pod::action`).
    #[inline(always)]
    fn pod_mut(&mut self) -> &mut PodSpec {
        self.parts_mut().0
    }

    /// Runs stop here: an endless crash loop becomes an outcome, not a hang.
    #[inline(always)]
    fn horizon(&self) -> SimDuration {
        *self.parts().1
    }

    /// The seed and replication every draw of the run is keyed by.
    #[inline(always)]
    fn stream(&self) -> &Stream {
        self.parts().2
    }
}

/// A run of one Pod and nothing else: a Service's replica.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PodRunSpec {
    /// The Pod to run.
    pub pod: PodSpec,
    /// Runs stop here.
    pub horizon: SimDuration,
    /// The seed and replication every draw of the run is keyed by.
    pub stream: Stream,
}

impl PodRun for PodRunSpec {
    #[inline(always)]
    fn parts(&self) -> (&PodSpec, &SimDuration, &Stream) {
        (&self.pod, &self.horizon, &self.stream)
    }

    #[inline(always)]
    fn parts_mut(&mut self) -> (&mut PodSpec, &mut SimDuration, &mut Stream) {
        (&mut self.pod, &mut self.horizon, &mut self.stream)
    }
}

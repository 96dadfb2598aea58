//! What a recorded Service run keeps beyond its figures: every change of
//! each replica's Pod (`Tap`, which the Service reacts to as it happens);
//! in a run with a history, what the API and the slice showed of each Pod
//! (`PodRecord`: created in which ReplicaSet, serving, deleted, gone), which
//! the kubelet's own history cannot say; and, when asked for, the routing
//! log (`Record`): each node's rules as each sync installed them, each
//! request routed and each answered, in the order they happened, so a test
//! can replay the run's decisions.
//!
//! Invariant: each log is written in one place (`ServiceModel::record`,
//! `ServiceModel::note_pod`), only when it was asked for: a sweep's runs
//! keep no per-Pod or per-request state, so a day-long run's memory does
//! not grow with it.

use super::{FailedRequest, ReplicaSet, SentTimes, ServiceModel};
use crate::engine::SimTime;
use crate::model::pod::{Observer, TraceEntry};

/// A replica's observer: every change goes to the Service (`changes`,
/// drained after each Pod event) and to the observer `O`.
#[derive(Clone, Debug, Default)]
pub struct Tap<O> {
    pub(super) changes: Vec<TraceEntry>,
    /// The observer the replica's changes also go to.
    pub inner: O,
}

impl<O: Observer> Observer for Tap<O> {
    const KEEPS_HISTORY: bool = O::KEEPS_HISTORY;

    #[inline]
    fn observe(&mut self, entry: TraceEntry) {
        self.changes.push(entry);
        self.inner.observe(entry);
    }

    fn clear(&mut self) {
        self.changes.clear();
        self.inner.clear();
    }
}
/// What the API server or the EndpointSlice showed of a Pod: the facts
/// the Deployment's and the slice's views are drawn from, which no
/// kubelet history holds (the deletion reaches the kubelet later, and the
/// object outlives its containers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodFact {
    /// The Pod object was created, owned by this ReplicaSet.
    Created(ReplicaSet),
    /// Its endpoint turned serving (every app and sidecar Ready), or stopped.
    Serving(bool),
    /// Its deletion timestamp was set: `kubectl delete`, a scale-down, an eviction.
    Deleted,
    /// Its object is gone: it leaves the slice and `kubectl get`.
    Gone,
}

/// One `PodFact`, in the order of the run (several at one instant in the
/// order the Service made them: a scale-down before the Pod it makes room for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PodRecord {
    /// When.
    pub at: SimTime,
    /// The replica, from 0 (new Pods are numbered on after the old ones).
    pub replica: u32,
    /// What happened.
    pub fact: PodFact,
}

/// One routing fact, in the order of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// Node `node`'s sync ran: its rules are now `rules` (replica indices).
    Synced {
        /// When.
        at: SimTime,
        /// The node, from 0.
        node: u32,
        /// The endpoints its rules now send new connections to.
        rules: Vec<u32>,
    },
    /// A try of request `request` went to replica `replica`: through
    /// `node`'s rules on a new connection (`fresh`), or on a pooled one.
    Routed {
        /// When.
        at: SimTime,
        /// The request's number in the run, from 0.
        request: u32,
        /// 1, or 2 for the retry.
        tries: u32,
        /// The client's node.
        node: u32,
        /// The replica it went to.
        replica: u32,
        /// A new connection, chosen by the rules (else a kept-alive one, pinned).
        fresh: bool,
    },
    /// Request `request` was answered.
    Answered {
        /// When.
        at: SimTime,
        /// The request's number in the run, from 0.
        request: u32,
    },
}

impl<O: Observer> ServiceModel<O> {
    /// Starts keeping the routing log from the next run on.
    pub fn keep_log(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }

    /// The routing log of the last run (empty unless `keep_log` was called).
    pub fn log(&self) -> &[Record] {
        self.log.as_deref().unwrap_or_default()
    }

    /// Each failed request, when the observer keeps the history.
    pub fn failures(&self) -> &[FailedRequest] {
        &self.failures
    }

    /// When the answered requests were sent, when the observer keeps the
    /// history: with `failures`, every request the picture's strip draws.
    pub fn answered_sent(&self) -> &SentTimes {
        &self.answered_sent
    }

    /// What replica `r`'s observer kept.
    pub fn replica_observer(&self, r: usize) -> &O {
        &self.pods[r].observer().inner
    }

    /// What the API and the slice showed of each Pod, in a run with a history.
    pub fn pod_log(&self) -> &[PodRecord] {
        &self.pod_log
    }

    /// Ready endpoints in the slice from the traffic's start, at each
    /// change (what `min_ready_endpoints` and `zero_endpoints_ms` read).
    pub fn ready_history(&self) -> &[(SimTime, u32)] {
        &self.ready_history
    }

    /// Notes `fact` of replica `r`, in a run with a history.
    pub(super) fn note_pod(&mut self, at: SimTime, r: usize, fact: PodFact) {
        if O::KEEPS_HISTORY {
            let replica = r as u32;
            self.pod_log.push(PodRecord { at, replica, fact });
        }
    }

    /// Appends what `make` says, if the log is kept (`make` is not called otherwise).
    pub(super) fn record(&mut self, make: impl FnOnce(&Self) -> Record) {
        if self.log.is_some() {
            let record = make(self);
            self.log.get_or_insert_with(Vec::new).push(record);
        }
    }
}

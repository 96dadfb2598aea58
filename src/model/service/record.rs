//! What a recorded Service run keeps beyond its figures: every change of
//! each replica's Pod (`Tap`, which the Service reacts to as it happens)
//! and, when asked for, the routing log (`Record`): each node's rules as
//! each sync installed them, each request routed and each answered, in the
//! order they happened, so a test can replay the run's decisions.
//!
//! Invariant: the log is written in one place (`ServiceModel::record`),
//! only when it was asked for: a sweep's and `podsim run`'s runs keep no
//! per-request state, so a day-long run's memory does not grow with it.

use super::ServiceModel;
use crate::engine::SimTime;
use crate::model::history::{Observer, TraceEntry};

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

    /// Appends what `make` says, if the log is kept (`make` is not called otherwise).
    pub(super) fn record(&mut self, make: impl FnOnce(&Self) -> Record) {
        if self.log.is_some() {
            let record = make(self);
            self.log.get_or_insert_with(Vec::new).push(record);
        }
    }
}

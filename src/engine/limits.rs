//! What may end a run before its horizon: a request to stop, shared with
//! whoever may ask (a signal handler, a server's deadline), and a budget
//! of events. A run checks them every `CHECK_EVERY` handled events, so a
//! stop request ends even a run of 10⁹ events within milliseconds, at the
//! cost of one comparison per event.
//!
//! Invariant: the limits never change what a run does, only whether it
//! finishes: a run that is not halted is the run without limits, event for
//! event. The engine keeps no clock: a deadline is someone else's thread
//! that requests the stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Handled events between two looks at the limits: at the slowest
/// models' ten million events a second, well under a millisecond.
pub(super) const CHECK_EVERY: u64 = 1 << 12;

/// A request to stop, shared between those who may ask and the runs that
/// obey. Cloning shares it.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag not yet raised.
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    /// Asks every run that watches the flag to stop.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    #[inline]
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for a signal handler to raise (`signal_hook`).
    pub fn shared(&self) -> &Arc<AtomicBool> {
        &self.0
    }
}

/// What a run may not go past besides its horizon.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Ends the run once raised.
    pub stop: Option<StopFlag>,
    /// The most events one run may handle: past it, the run is halted.
    pub events: Option<u64>,
}

impl Limits {
    /// Limits that only a stop request ends a run within.
    pub fn stopped_by(stop: &StopFlag) -> Limits {
        Limits {
            stop: Some(stop.clone()),
            events: None,
        }
    }
}

/// Why a run ended before its end: its figures describe a run cut short
/// for the caller's reasons, not the model's, and are not results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A stop was requested (`StopFlag`).
    Stopped,
    /// The run needed more events than its budget, this many.
    OverBudget(u64),
}

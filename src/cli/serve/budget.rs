//! What one `/api` request may cost: a time budget (`--max-seconds`), kept
//! by a thread that raises the runs' stop flag at the deadline, and a
//! budget of events per run. Past either, the runs end within
//! milliseconds (the engine looks at its limits every 4,096 events) and
//! the request is answered 503 with the reason, so a scenario that would
//! run for an hour neither hangs its request nor holds a server thread.
//!
//! Memory is bounded before the run, by the work estimate every scenario
//! passes (`scenario::rules::work`: at most 10⁶ requests in flight, about
//! 100 MB), and during it by the event budget, which caps what a run's
//! history can record.
//!
//! Invariant: the deadline's thread ends when the request does (dropping
//! the budget wakes it), so no request leaves a thread behind.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use podsim::engine::{Halt, Limits, StopFlag};
use podsim::scenario::numbers::grouped;

use super::api::Reply;

/// The most events one run of a request may handle: a few seconds of
/// work at the engine's millions of events a second.
pub const MAX_EVENTS: u64 = 100_000_000;

/// One request's limits, in force while it lives.
pub struct Budget {
    /// What every run of the request obeys.
    pub limits: Limits,
    seconds: u64,
    /// Dropped with the budget: tells the deadline's thread to end.
    _done: mpsc::Sender<()>,
}

impl Budget {
    /// Starts the clock: the runs are stopped `seconds` from now.
    pub fn start(seconds: u64) -> Budget {
        let stop = StopFlag::new();
        let (done, finished) = mpsc::channel::<()>();
        let deadline = stop.clone();
        std::thread::spawn(move || {
            if finished.recv_timeout(Duration::from_secs(seconds)) == Err(RecvTimeoutError::Timeout) {
                deadline.request();
            }
        });
        Budget {
            limits: Limits {
                stop: Some(stop),
                events: Some(MAX_EVENTS),
            },
            seconds,
            _done: done,
        }
    }

    /// The 503 for a run the budget halted, saying which budget and how
    /// to go on.
    pub fn exceeded(&self, halt: Halt) -> Reply {
        let why = match halt {
            Halt::Stopped => format!(
                "the request ran past podsim serve's time budget of {} s (--max-seconds)",
                self.seconds
            ),
            Halt::OverBudget(events) => format!(
                "a run needed more than {} events, podsim serve's work budget for one run",
                grouped(events)
            ),
        };
        Reply::error(
            503,
            &format!(
                "{why}; lower the traffic's rate or duration, or the horizon, or run it with `podsim run`, \
                 which has no such budget"
            ),
        )
    }
}

//! CrashLoopBackOff (R14–R16): an exited container waits before its next
//! start, 0, 10, 20, 40 … 300 s (`Backoff::delay`), the streak starting over
//! after a run longer than 10 minutes.
//!
//! Invariant: the wait ends in `BackOffExpired` and a sync
//! (`sync_after_back_off`), never in a start of its own, so a restart keeps
//! to the startup order (R5, R10).

use super::PodModel;
use super::container::State;
use super::event::PodEvent;
use super::history::{Change, Observer};
use super::spec::{BACKOFF_RESET_AFTER, ContainerId, PodRun};
use crate::engine::SimDuration;
use crate::engine::{Scheduler, SimTime};

/// The kubelet's next sync of a Pod after a failed start, which shows the
/// back-off's reason (R68): the PLEG relist (R1), 1 s.
pub(super) const NEXT_SYNC: SimDuration = SimDuration::from_secs(1);

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The container waits out its back-off, then the next sync starts it;
    /// returns the wait.
    pub(super) fn schedule_restart(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) -> SimDuration {
        let backoff = self.run.pod().backoff;
        let c = self.container_mut(id);
        // R16: the key expires when the last instance ran long enough.
        if now.since(c.last_start) > BACKOFF_RESET_AFTER {
            c.backoff_streak = 0;
        }
        let delay = backoff.delay(c.backoff_streak);
        c.backoff_streak += 1;
        c.state = State::BackOff;
        let attempt = c.attempt;
        self.emit(now, Some(id), Change::BackOff { delay });
        s.after(
            delay,
            PodEvent::BackOffExpired {
                container: id,
                attempt,
            },
        );
        delay
    }

    /// The back-off (a restart's, or an image pull's, R67) is over: the
    /// container may start again.
    pub(super) fn back_off_expired(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        self.container_mut(id).state = State::Waiting;
        // The requeued sync generates the status: readiness runs (R52).
        self.synced(now, s);
        self.sync_after_back_off(id, now, s);
    }
}

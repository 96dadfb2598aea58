//! Image pulls that fail (R67, R68): a container whose pull fails does not
//! start; it waits in ErrImagePull, then ImagePullBackOff from the kubelet's
//! next sync, until the image back-off (10 s, doubling, 300 s at most) is
//! over and a sync pulls again.
//!
//! Invariant: a failed pull starts no instance: the attempt, the restart
//! count and every draw keyed by the attempt stay as they were, so a
//! container that pulls at the third try runs exactly as one that pulled at
//! once, only later.

use super::PodModel;
use super::backoff::NEXT_SYNC;
use super::container::State;
use super::event::PodEvent;
use super::history::{Change, Observer};
use super::spec::{ContainerId, IMAGE_BACKOFF, PodRun};
use crate::engine::{Scheduler, SimTime};

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// Whether `id` cannot start now: it waits out an image back-off (a
    /// sync that starts the next init container asks for it again), or its
    /// pull fails now. Asked only of a Pod where a pull may fail.
    #[inline(never)]
    pub(super) fn pull_blocks(
        &mut self,
        id: ContainerId,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) -> bool {
        let c = self.container(id);
        if matches!(c.state, State::PullBackOff) {
            return true;
        }
        let fails = self.spec_of(id).image_pull.fails_after(c.pulls_failed);
        if fails {
            self.pull_failed(id, now, s);
        }
        fails
    }

    fn pull_failed(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let c = self.container_mut(id);
        // `Backoff.Next`: 10 s after the first failure, doubling, capped.
        let back_off = IMAGE_BACKOFF.delay(c.pulls_failed);
        c.pulls_failed = c.pulls_failed.saturating_add(1);
        c.state = State::PullBackOff;
        let attempt = c.attempt;
        self.emit(now, Some(id), Change::ImagePullFailed { back_off });
        s.after(
            back_off,
            PodEvent::PullBackOffExpired {
                container: id,
                attempt,
            },
        );
        // The image back-off is never shorter than the next sync.
        s.after(
            NEXT_SYNC,
            PodEvent::BackOffShown {
                container: id,
                attempt,
            },
        );
        self.note_phase(now);
    }
}

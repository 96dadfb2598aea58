//! The Pod phase (R47, R48) and completion (R43, R44): Pending until every
//! app and sidecar has run, terminal once termination is over (a failed
//! init container's too), decided by the app containers alone.
//!
//! Invariant: the phase is a function of the state, worked out when asked;
//! the model reports its changes only to an observer that keeps a history,
//! so a sweep never pays for it.

use super::container::State;
use super::history::{Change, Observer};
use super::metrics::PodPhase;
use super::spec::{ContainerId, ContainerKind, PodRun};
use super::{Cause, PodModel, Stage};
use crate::engine::SimTime;

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The Pod phase as the kubelet would report it now (R47, R48).
    pub fn phase(&self) -> PodPhase {
        match self.stage {
            // R47 step 4 makes a Pod whose init container failed under
            // Never Failed, but the status manager holds a terminal phase
            // back while a container could still run (`mergePodStatus`):
            // until the last one stopped, the phase is what it was.
            Stage::Stopped(Cause::InitFailed) => PodPhase::Failed,
            // R44: app containers alone decide, sidecars' exit codes do not.
            Stage::Stopped(_) => {
                let apps_succeeded = self.with_specs().all(|(spec, c)| {
                    spec.kind != ContainerKind::App || matches!(c.state, State::Exited(r) if r.is_success())
                });
                if apps_succeeded {
                    PodPhase::Succeeded
                } else {
                    PodPhase::Failed
                }
            }
            // R47 step 5: an app or sidecar that never ran keeps the Pod Pending.
            _ if self
                .with_specs()
                .any(|(spec, c)| spec.kind != ContainerKind::Init && !c.has_run) =>
            {
                PodPhase::Pending
            }
            _ => PodPhase::Running,
        }
    }

    /// Reports the phase if it changed, when the observer keeps a history.
    pub(super) fn note_phase(&mut self, now: SimTime) {
        if O::KEEPS_HISTORY {
            let phase = self.phase();
            if phase != self.reported_phase {
                self.reported_phase = phase;
                self.emit(now, None, Change::Phase(phase));
            }
        }
    }

    /// The first app (in declaration order) that has not exited for good:
    /// what keeps a settled Job's Pod from completing (R46).
    pub(super) fn unfinished_app(&self) -> Option<ContainerId> {
        self.ids().find(|&id| {
            self.kind(id) == ContainerKind::App && !matches!(self.container(id).state, State::Exited(_))
        })
    }

    /// Every app container has exited for good (R43).
    pub(super) fn apps_finished(&self) -> bool {
        self.apps_done == self.shape().apps
    }
}

//! The facts of the rollout's stack: how many Pods of each ReplicaSet are
//! in each state, step by step, folded from what the run's history says
//! the API and the slice showed of each Pod (`PodFact`). The states
//! are what the API and the slice show, not the kubelet's detail:
//! `Ready` (serving, no deletion timestamp: exactly the slice's ready
//! endpoints), `Starting` (created, not yet Ready: what maxSurge pays for),
//! `NotReady` (was Ready, lost it without being deleted: a crash or a
//! failing probe) and `Terminating` (deletion timestamp set, object not
//! yet gone: counted by `peak_pods`, not by the controller).
//!
//! Invariant: each Pod the history created is in exactly one state until its
//! object is gone, and a step holds the counts after everything at its
//! instant: a change undone within one millisecond is no step.

use crate::engine::SimTime;
use crate::model::service::{PodFact, ReplicaSet, ServiceChange, ServiceEntry};

/// A Pod's state as the stack draws it, in stacking order (bottom first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodState {
    /// Serving and not deleted: a ready endpoint.
    Ready,
    /// Created, not Ready yet.
    Starting,
    /// Was Ready, is not, and is not deleted.
    NotReady,
    /// Deleted, its object not gone yet.
    Terminating,
}

impl PodState {
    /// Every state, in stacking order.
    pub const ALL: [PodState; 4] = [
        PodState::Ready,
        PodState::Starting,
        PodState::NotReady,
        PodState::Terminating,
    ];

    /// Its word in the legend and the data attributes.
    pub fn name(self) -> &'static str {
        match self {
            PodState::Ready => "ready",
            PodState::Starting => "starting",
            PodState::NotReady => "not ready",
            PodState::Terminating => "terminating",
        }
    }
}

/// From `at` until the next step: Pods per ReplicaSet (old, new) and state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// When the counts became these.
    pub at: SimTime,
    /// `[ReplicaSet as usize][PodState as usize]`.
    pub pods: [[u32; 4]; 2],
}

impl Step {
    /// Every Pod object of the step, terminating ones included.
    pub fn total(&self) -> u32 {
        self.pods.iter().flatten().sum()
    }

    /// Ready Pods, both ReplicaSets.
    pub fn ready(&self) -> u32 {
        self.pods[0][0] + self.pods[1][0]
    }
}

/// What the history has said of one Pod so far.
#[derive(Clone, Copy, Debug)]
struct Seen {
    rs: ReplicaSet,
    serving: bool,
    was_ready: bool,
    deleted: bool,
    gone: bool,
}

impl Seen {
    fn state(self) -> Option<PodState> {
        match self {
            Seen { gone: true, .. } => None,
            Seen { deleted: true, .. } => Some(PodState::Terminating),
            Seen { serving: true, .. } => Some(PodState::Ready),
            Seen { was_ready: true, .. } => Some(PodState::NotReady),
            _ => Some(PodState::Starting),
        }
    }
}

/// The stack of a run's history: what the API and the slice showed of
/// each Pod, counted after everything at each instant, one step per
/// instant at which the counts changed.
pub fn steps(history: &[ServiceEntry]) -> Vec<Step> {
    let mut facts = (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::Api { replica, fact } => Some((e.at, replica, fact)),
            _ => None,
        })
        .peekable();
    let mut seen: Vec<Option<Seen>> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    while let Some((at, replica, fact)) = facts.next() {
        let r = replica as usize;
        if seen.len() <= r {
            seen.resize(r + 1, None);
        }
        match (fact, &mut seen[r]) {
            (PodFact::Created(rs), slot) => {
                *slot = Some(Seen {
                    rs,
                    serving: false,
                    was_ready: false,
                    deleted: false,
                    gone: false,
                })
            }
            (PodFact::Serving(on), Some(s)) => {
                s.serving = on;
                s.was_ready |= on;
            }
            (PodFact::Deleted, Some(s)) => s.deleted = true,
            // A Failed Pod's object stays, but it is in none of the states.
            (PodFact::Gone | PodFact::Failed, Some(s)) => s.gone = true,
            (PodFact::ShutDown, _) | (_, None) => {}
        }
        if facts.peek().is_some_and(|next| next.0 == at) {
            continue;
        }
        let mut pods = [[0u32; 4]; 2];
        for s in seen.iter().flatten() {
            if let Some(state) = s.state() {
                pods[s.rs as usize][state as usize] += 1;
            }
        }
        if steps.last().is_none_or(|last| last.pods != pods) {
            steps.push(Step { at, pods });
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ms: u64, replica: u32, fact: PodFact) -> ServiceEntry {
        ServiceEntry {
            at: SimTime(ms),
            what: ServiceChange::Api { replica, fact },
        }
    }

    #[test]
    fn a_surge_step_counts_each_pod_once_in_its_state() {
        use PodFact::*;
        use ReplicaSet::*;
        // One old Pod Ready at 2 s; the new one created at 10 s, Ready at 13 s,
        // when the old one is deleted; it stops serving at 14 s, is gone at 15 s.
        let log = [
            rec(0, 0, Created(Old)),
            rec(2000, 0, Serving(true)),
            rec(10_000, 1, Created(New)),
            rec(13_000, 1, Serving(true)),
            rec(13_000, 0, Deleted),
            rec(14_000, 0, Serving(false)),
            rec(15_000, 0, Gone),
        ];
        let steps = steps(&log);
        let at: Vec<u64> = steps.iter().map(|s| s.at.as_millis()).collect();
        // 14 s changes nothing drawn: a terminating Pod stays terminating.
        assert_eq!(at, [0, 2000, 10_000, 13_000, 15_000]);
        let s = |i: usize| steps[i].pods;
        assert_eq!(s(0), [[0, 1, 0, 0], [0; 4]]);
        assert_eq!(s(1), [[1, 0, 0, 0], [0; 4]]);
        assert_eq!(s(2), [[1, 0, 0, 0], [0, 1, 0, 0]]);
        assert_eq!(s(3), [[0, 0, 0, 1], [1, 0, 0, 0]]);
        assert_eq!(s(4), [[0; 4], [1, 0, 0, 0]]);
        assert_eq!(steps.iter().map(Step::total).max(), Some(2));
    }

    #[test]
    fn a_pod_that_loses_readiness_undeleted_is_not_ready_not_starting() {
        use PodFact::*;
        let log = [
            rec(0, 0, Created(ReplicaSet::Old)),
            rec(1000, 0, Serving(true)),
            rec(5000, 0, Serving(false)),
            // A blip within one instant draws nothing.
            rec(6000, 0, Serving(true)),
            rec(6000, 0, Serving(false)),
        ];
        let steps = steps(&log);
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[2].pods[0], [0, 0, 1, 0]);
        assert_eq!(steps[2].at, SimTime(5000));
    }
}

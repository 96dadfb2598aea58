//! A Deployment rollout as a scenario states it: the strategy, maxSurge and
//! maxUnavailable (a count or a percentage of the replicas), minReadySeconds
//! and the new Pod template; and the numbers the controller makes of them
//! (`ResolveFenceposts` in `pkg/controller/deployment/util`,
//! disruption-model.md A.5).
//!
//! Invariant: a percentage is kept as written and scaled only against the
//! replicas of the run, so `"25%"` means the same on any grid point.

use crate::engine::SimDuration;
use crate::model::pod::spec::PodSpec;

/// How the old Pods make way for the new ones (`spec.strategy.type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// New Pods come up while old ones go, within maxSurge / maxUnavailable.
    #[default]
    RollingUpdate,
    /// Every old Pod is deleted; new ones are created once none runs any more.
    Recreate,
}

impl Strategy {
    crate::model::words::words! {
        /// The spellings, as `spec.strategy.type` has them.
        RollingUpdate => "RollingUpdate",
        Recreate => "Recreate",
    }
}

/// An `IntOrString` of the Deployment API: a count of Pods, or a
/// percentage of the replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scaled {
    /// This many Pods.
    Count(u32),
    /// This percentage of the replicas.
    Percent(u32),
}

impl Scaled {
    /// The number of Pods out of `replicas`: a percentage rounds up (maxSurge)
    /// or down (maxUnavailable), as `GetScaledValueFromIntOrPercent` does.
    pub fn of(self, replicas: u32, round_up: bool) -> u32 {
        match self {
            Scaled::Count(n) => n,
            Scaled::Percent(p) => {
                let scaled = u64::from(p) * u64::from(replicas);
                let n = if round_up {
                    scaled.div_ceil(100)
                } else {
                    scaled / 100
                };
                n.min(u64::from(u32::MAX)) as u32
            }
        }
    }

    /// Zero as written (`0` or `"0%"`), which the API refuses for both at once.
    pub fn is_zero(self) -> bool {
        matches!(self, Scaled::Count(0) | Scaled::Percent(0))
    }
}

impl std::fmt::Display for Scaled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scaled::Count(n) => write!(f, "{n}"),
            Scaled::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// One rollout of the Deployment that owns the replicas.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rollout {
    /// RollingUpdate or Recreate.
    pub strategy: Strategy,
    /// RollingUpdate: Pods above the replicas the controller may count (25%).
    pub max_surge: Scaled,
    /// RollingUpdate: Pods below the replicas that may be unavailable (25%).
    pub max_unavailable: Scaled,
    /// A Ready Pod is available once it has been Ready this long (0 s).
    pub min_ready: SimDuration,
    /// The new Pod template; `None`: the old one (`kubectl rollout restart`).
    pub template: Option<Box<PodSpec>>,
}

impl Default for Rollout {
    fn default() -> Self {
        Rollout {
            strategy: Strategy::RollingUpdate,
            max_surge: Scaled::Percent(25),
            max_unavailable: Scaled::Percent(25),
            min_ready: SimDuration::ZERO,
            template: None,
        }
    }
}

impl Rollout {
    /// (surge, unavailable) for `replicas`: surge rounds up, unavailable
    /// down, and both 0 make unavailable 1 (`ResolveFenceposts`).
    pub fn fenceposts(&self, replicas: u32) -> (u32, u32) {
        let surge = self.max_surge.of(replicas, true);
        let unavailable = self.max_unavailable.of(replicas, false);
        if surge == 0 && unavailable == 0 {
            (0, 1)
        } else {
            (surge, unavailable)
        }
    }
}

/// A rollout's figures, for the CSV (after the Service's columns) and JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RolloutFigures {
    /// When the rollout started, since the replicas were created: what
    /// `rollout_ms` and `rollout_done_ms` count from (none if it never did).
    pub started_ms: Option<u64>,
    /// Rollout start → the new ReplicaSet fully available (`kubectl rollout status` returns).
    pub rollout_ms: Option<u64>,
    /// Rollout start → the last old Pod object gone.
    pub rollout_done_ms: Option<u64>,
    /// The most Pod objects at once, terminating ones included.
    pub peak_pods: u32,
    /// The most Pods the controller counted at once (never above replicas + surge).
    pub peak_counted_pods: u32,
}

impl RolloutFigures {
    /// The CSV columns, in row order.
    pub const NAMES: [&'static str; 4] = ["rollout_ms", "rollout_done_ms", "peak_pods", "peak_counted_pods"];

    /// The cells in `NAMES` order, `None` for an empty one.
    pub fn numbers(&self) -> [Option<u64>; 4] {
        [
            self.rollout_ms,
            self.rollout_done_ms,
            Some(u64::from(self.peak_pods)),
            Some(u64::from(self.peak_counted_pods)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_resolve_as_the_controller_resolves_them() {
        // disruption-model.md A.5: R=3 → 1/0, R=4 → 1/1, R=10 → 3/2, R=1 → 1/0.
        let r = Rollout::default();
        let got: Vec<(u32, u32)> = [3, 4, 10, 1].iter().map(|&n| r.fenceposts(n)).collect();
        assert_eq!(got, [(1, 0), (1, 1), (3, 2), (1, 0)]);
    }

    #[test]
    fn a_surge_and_an_unavailable_that_round_to_zero_leave_one_unavailable() {
        let r = Rollout {
            max_surge: Scaled::Percent(0),
            max_unavailable: Scaled::Percent(10),
            ..Rollout::default()
        };
        // 10% of 3 floors to 0, 0% of 3 is 0: the fencepost makes it 1.
        assert_eq!(r.fenceposts(3), (0, 1));
        assert_eq!(Scaled::Count(2).of(10, true), 2);
        assert_eq!(Scaled::Percent(30).of(10, false), 3);
        assert_eq!(Scaled::Percent(26).of(10, true), 3);
    }
}

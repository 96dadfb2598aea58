//! A PodDisruptionBudget and the Eviction API's decision (disruption-model.md
//! A.5, part c): `desiredHealthy` from `min_available` (a percentage of the
//! expected Pods rounded up) or expected − `max_unavailable` (rounded up
//! too, `GetScaledValueFromIntOrPercent(..., true)` in the disruption
//! controller), and whether one eviction is allowed now
//! (`pkg/registry/core/pod/storage/eviction.go`).
//!
//! A budget with neither field refuses every eviction of a Running Pod:
//! `getExpectedPodCount` then leaves expectedCount at 0, and
//! `updatePdbStatus` makes disruptionsAllowed 0 whenever expectedCount is
//! not above 0 (`pkg/controller/disruption/disruption.go`, kubernetes
//! 003e86297d18; "fail-closed", emqx/emqx-operator#1227).
//!
//! Invariant: only the Eviction API consults a budget: a `kubectl delete`,
//! a ReplicaSet's scale-down in a rollout and a crash never do.

use super::deployment::Scaled;

/// The budget a PDB states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// `spec.minAvailable`.
    MinAvailable(Scaled),
    /// `spec.maxUnavailable`.
    MaxUnavailable(Scaled),
    /// Neither field: the API accepts it and has no default for it, and
    /// the disruption controller allows no disruption (module doc).
    Unset,
}

/// `spec.unhealthyPodEvictionPolicy` (KEP-3017, GA 1.31).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EvictionPolicy {
    /// A Running, not Ready Pod may go only while the budget is met.
    #[default]
    IfHealthyBudget,
    /// A Running, not Ready Pod may always go.
    AlwaysAllow,
}

impl EvictionPolicy {
    crate::model::words::words! {
        /// The spellings, as the API has them.
        IfHealthyBudget => "IfHealthyBudget",
        AlwaysAllow => "AlwaysAllow",
    }
}

/// A PodDisruptionBudget over the Service's Pods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pdb {
    /// min_available or max_unavailable.
    pub budget: Budget,
    /// What becomes of Running Pods that are not Ready.
    pub unhealthy_pod_eviction_policy: EvictionPolicy,
}

/// A budget as the API stores one with no field written: neither
/// minAvailable nor maxUnavailable, IfHealthyBudget.
impl Default for Pdb {
    fn default() -> Self {
        Pdb {
            budget: Budget::Unset,
            unhealthy_pod_eviction_policy: EvictionPolicy::IfHealthyBudget,
        }
    }
}

/// The Pod an eviction is asked for, as the Eviction API sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// Pending, terminal or already terminating: the budget does not apply.
    Exempt,
    /// Running and Ready: it counts as healthy.
    Healthy,
    /// Running, not Ready.
    Unhealthy,
}

impl Pdb {
    /// `desiredHealthy` for `expected` Pods (the controller's scale).
    pub fn desired_healthy(&self, expected: u32) -> u32 {
        match self.budget {
            Budget::MinAvailable(n) => n.of(expected, true),
            Budget::MaxUnavailable(n) => expected.saturating_sub(n.of(expected, true)),
            Budget::Unset => 0,
        }
    }

    /// Whether evicting `pod` is allowed with `healthy` Pods healthy now
    /// out of `expected`; refused means HTTP 429.
    pub fn allows(&self, pod: Candidate, healthy: u32, expected: u32) -> bool {
        let desired = self.desired_healthy(expected);
        match (pod, self.unhealthy_pod_eviction_policy) {
            (Candidate::Exempt, _) | (Candidate::Unhealthy, EvictionPolicy::AlwaysAllow) => true,
            // expectedCount 0: disruptionsAllowed is 0 whatever is healthy.
            _ if self.budget == Budget::Unset => false,
            // Not counted as healthy, so nothing to decrement: allowed while the budget is met.
            (Candidate::Unhealthy, EvictionPolicy::IfHealthyBudget) if healthy >= desired && desired > 0 => {
                true
            }
            // checkAndDecrement: disruptionsAllowed = currentHealthy − desiredHealthy.
            _ => healthy > desired,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_up_for_both_budgets() {
        let min = |s| Pdb {
            budget: Budget::MinAvailable(s),
            ..Pdb::default()
        };
        let max = |s| Pdb {
            budget: Budget::MaxUnavailable(s),
            ..Pdb::default()
        };
        // 50% of 3 = 1.5 → 2 needed; 25% of 3 unavailable = 0.75 → 1, so 2 needed.
        assert_eq!(min(Scaled::Percent(50)).desired_healthy(3), 2);
        assert_eq!(max(Scaled::Percent(25)).desired_healthy(3), 2);
        assert_eq!(max(Scaled::Count(1)).desired_healthy(3), 2);
        assert_eq!(min(Scaled::Count(3)).desired_healthy(3), 3);
    }

    #[test]
    fn an_unhealthy_pod_is_protected_only_under_if_healthy_budget() {
        let pdb = Pdb {
            budget: Budget::MinAvailable(Scaled::Count(2)),
            ..Pdb::default()
        };
        // 1 healthy of 3, 2 needed: a healthy one may not go, nor an unhealthy one.
        assert!(!pdb.allows(Candidate::Healthy, 1, 3));
        assert!(!pdb.allows(Candidate::Unhealthy, 1, 3));
        // 2 healthy: the budget is met, so the unhealthy one may go, not a healthy one.
        assert!(pdb.allows(Candidate::Unhealthy, 2, 3));
        assert!(!pdb.allows(Candidate::Healthy, 2, 3));
        let always = Pdb {
            unhealthy_pod_eviction_policy: EvictionPolicy::AlwaysAllow,
            ..pdb
        };
        assert!(always.allows(Candidate::Unhealthy, 0, 3));
        assert!(pdb.allows(Candidate::Exempt, 0, 3));
    }

    #[test]
    fn a_budget_with_neither_field_refuses_every_running_pod() {
        // disruption.go: neither field leaves expectedCount 0, so
        // disruptionsAllowed is 0 (checkAndDecrement answers 429) even with
        // all 3 of 3 healthy; eviction.go lets an unhealthy Pod go under
        // IfHealthyBudget only while desiredHealthy > 0, which it is not.
        let pdb = Pdb::default();
        assert_eq!(pdb.budget, Budget::Unset);
        assert_eq!(pdb.desired_healthy(3), 0);
        assert!(!pdb.allows(Candidate::Healthy, 3, 3));
        assert!(!pdb.allows(Candidate::Unhealthy, 2, 3));
        // A Pending or terminating Pod never asks the budget, and
        // AlwaysAllow lets a Running, not Ready one go before it is asked.
        assert!(pdb.allows(Candidate::Exempt, 3, 3));
        let always = Pdb {
            unhealthy_pod_eviction_policy: EvictionPolicy::AlwaysAllow,
            ..pdb
        };
        assert!(always.allows(Candidate::Unhealthy, 2, 3));
        assert!(!always.allows(Candidate::Healthy, 3, 3));
    }
}

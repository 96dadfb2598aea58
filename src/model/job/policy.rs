//! A Job's `podFailurePolicy` (KEP-3329, GA 1.31) and `backoffLimit`: what
//! the Job controller makes of one failed Pod, from the Pod's final
//! container statuses and conditions.
//!
//! Invariant: `matches` follows `pod_failure_policy.go` rule by rule —
//! rules in order, the first that matches decides; `onExitCodes` looks at
//! the app containers' statuses first, then the init containers' (native
//! sidecars included), skips containers that did not terminate and every
//! exit code 0; `onPodConditions` matches a condition of the same type and
//! status.

use crate::model::pod::spec::{ContainerId, ContainerKind, PodSpec};

/// Kubernetes' `spec.backoffLimit` when none is written.
pub const DEFAULT_BACKOFF_LIMIT: u32 = 6;

/// The Job's retry rules; the Pod template is the run's `PodSpec`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct JobSpec {
    /// `spec.backoffLimit` as written; `None` means Kubernetes' default: 6,
    /// or no limit when `backoff_limit_per_index` is set (API defaulting).
    pub backoff_limit: Option<u32>,
    /// `spec.backoffLimitPerIndex` of an Indexed Job (one index here).
    pub backoff_limit_per_index: Option<u32>,
    /// `spec.podFailurePolicy.rules`, in order.
    pub pod_failure_policy: Vec<FailureRule>,
}

impl JobSpec {
    /// The limit on counted failures: more than this many fail the Job.
    pub fn effective_backoff_limit(&self) -> u32 {
        match (self.backoff_limit, self.backoff_limit_per_index) {
            (Some(limit), _) => limit,
            (None, Some(_)) => i32::MAX as u32,
            (None, None) => DEFAULT_BACKOFF_LIMIT,
        }
    }
}

/// One `podFailurePolicy` rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FailureRule {
    /// What the Job controller does when the rule matches.
    pub action: Action,
    /// What the rule looks at.
    pub on: Requirement,
}

/// A rule's `action`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The Job fails at once (reason PodFailurePolicy).
    FailJob,
    /// The Pod's index fails (needs `backoffLimitPerIndex`); with one index, the Job.
    FailIndex,
    /// The failure is not counted towards `backoffLimit`; a replacement is made.
    Ignore,
    /// Counted, as without a policy.
    Count,
}

impl Action {
    crate::model::words::words! {
        /// Every action, as the API spells them.
        FailJob => "FailJob",
        FailIndex => "FailIndex",
        Ignore => "Ignore",
        Count => "Count",
    }
}

impl FailureRule {
    /// An `onExitCodes` rule: `container`'s (or any container's) non-zero
    /// exit code is (`is_in`) or is not among `values`.
    pub fn on_exit_codes(
        action: Action,
        container: Option<ContainerId>,
        is_in: bool,
        values: &[i32],
    ) -> Self {
        FailureRule {
            action,
            on: Requirement::ExitCodes {
                container,
                is_in,
                values: values.to_vec(),
            },
        }
    }
}

/// `onExitCodes` or `onPodConditions`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Requirement {
    /// Some terminated container's non-zero exit code is (`In`) or is not
    /// (`NotIn`) among `values`; only `container` if one is named.
    ExitCodes {
        /// `containerName`, resolved against the template.
        container: Option<ContainerId>,
        /// `operator: In` is true, `NotIn` false.
        is_in: bool,
        /// `values`.
        values: Vec<i32>,
    },
    /// Some pattern matches a condition the failed Pod has.
    PodConditions(Vec<ConditionPattern>),
}

/// One `onPodConditions` entry: a condition type and its status.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConditionPattern {
    /// `type`, as written (`DisruptionTarget`, `Ready`, …).
    pub condition: String,
    /// `status`: `True` (the API's default), `False` or `Unknown`.
    pub status: String,
}

/// How a failed Pod ended, as the Job controller reads its status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedPod<'a> {
    /// Each container's exit code if its last instance terminated, by index.
    pub exits: &'a [Option<i32>],
    /// Every regular init container completed (the `Initialized` condition).
    pub initialized: bool,
}

impl FailedPod<'_> {
    /// The conditions a failed Pod reports, with their status: scheduled,
    /// initialized if its init containers completed, and neither ready nor
    /// with its containers ready (the kubelet sets both False when the Pod
    /// turns terminal). podsim never evicts or preempts a Job's Pod, so
    /// `DisruptionTarget` is never among them.
    pub fn conditions(&self) -> [(&'static str, &'static str); 4] {
        let initialized = if self.initialized { "True" } else { "False" };
        [
            ("PodScheduled", "True"),
            ("Initialized", initialized),
            ("ContainersReady", "False"),
            ("Ready", "False"),
        ]
    }
}

/// What matched: the rule's index and action, and for `onExitCodes` the
/// container and the exit code that matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fired {
    /// The rule's index in `podFailurePolicy.rules`.
    pub rule: usize,
    /// Its action.
    pub action: Action,
    /// The container and its exit code, for an `onExitCodes` rule.
    pub exit: Option<(ContainerId, i32)>,
}

/// The first rule that matches `pod`, if any (`matchPodFailurePolicy`).
pub fn matches(rules: &[FailureRule], spec: &PodSpec, pod: &FailedPod<'_>) -> Option<Fired> {
    rules.iter().enumerate().find_map(|(index, rule)| {
        let fired = |exit| Fired {
            rule: index,
            action: rule.action,
            exit,
        };
        match &rule.on {
            Requirement::ExitCodes {
                container,
                is_in,
                values,
            } => status_order(spec)
                .filter(|id| container.is_none_or(|named| named == *id))
                .find_map(|id| {
                    let code = pod.exits.get(id.index()).copied().flatten()?;
                    (code != 0 && values.contains(&code) == *is_in).then_some((id, code))
                })
                .map(|exit| fired(Some(exit))),
            Requirement::PodConditions(patterns) => pod
                .conditions()
                .iter()
                .any(|(condition, status)| {
                    patterns
                        .iter()
                        .any(|p| p.condition == *condition && p.status == *status)
                })
                .then(|| fired(None)),
        }
    })
}

/// The containers in the order the Pod status lists them: `containerStatuses`
/// (the apps) first, then `initContainerStatuses` (init and sidecar), each
/// in declaration order.
fn status_order(spec: &PodSpec) -> impl Iterator<Item = ContainerId> + '_ {
    let ids = move |app: bool| {
        spec.containers
            .iter()
            .enumerate()
            .filter(move |(_, c)| (c.kind == ContainerKind::App) == app)
            .map(|(i, _)| ContainerId(i as u32))
    };
    ids(true).chain(ids(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::pod::spec::ContainerSpec;

    fn pod() -> PodSpec {
        PodSpec::new(vec![
            ContainerSpec::new("proxy", ContainerKind::Sidecar, SimDuration::ZERO),
            ContainerSpec::new("main", ContainerKind::App, SimDuration::ZERO),
        ])
    }

    fn exit_rule(action: Action, container: Option<u32>, is_in: bool, values: &[i32]) -> FailureRule {
        FailureRule::on_exit_codes(action, container.map(ContainerId), is_in, values)
    }

    #[test]
    fn exit_code_zero_never_matches_and_apps_are_looked_at_before_sidecars() {
        // main failed 42, the proxy was SIGKILLed (137) while stopping.
        let failed = FailedPod {
            exits: &[Some(137), Some(42)],
            initialized: true,
        };
        let not_in_zero = [exit_rule(Action::FailJob, None, false, &[0])];
        assert_eq!(
            matches(&not_in_zero, &pod(), &failed).map(|f| f.exit),
            Some(Some((ContainerId(1), 42))),
            "the app's status comes first"
        );
        // "Ignore everything but 42" also ignores… nothing: 42 is In, so the
        // NotIn rule skips main and matches the proxy's 137.
        let trap = [exit_rule(Action::Ignore, None, false, &[42])];
        assert_eq!(
            matches(&trap, &pod(), &failed).map(|f| (f.action, f.exit)),
            Some((Action::Ignore, Some((ContainerId(0), 137))))
        );
        // Named to main, the same rule does not match.
        let named = [exit_rule(Action::Ignore, Some(1), false, &[42])];
        assert_eq!(matches(&named, &pod(), &failed), None);
        // A proxy that stopped with 0 gives a NotIn rule nothing to match.
        let clean = FailedPod {
            exits: &[Some(0), Some(42)],
            initialized: true,
        };
        assert_eq!(matches(&trap, &pod(), &clean), None);
    }

    #[test]
    fn the_first_matching_rule_decides_and_conditions_match_type_and_status() {
        let failed = FailedPod {
            exits: &[Some(0), Some(1)],
            initialized: true,
        };
        let condition = |t: &str, s: &str| FailureRule {
            action: Action::Ignore,
            on: Requirement::PodConditions(vec![ConditionPattern {
                condition: t.into(),
                status: s.into(),
            }]),
        };
        let rules = [
            condition("DisruptionTarget", "True"),
            exit_rule(Action::Count, None, true, &[1, 2]),
            exit_rule(Action::FailJob, None, true, &[1]),
        ];
        let fired = matches(&rules, &pod(), &failed).unwrap();
        assert_eq!((fired.rule, fired.action), (1, Action::Count));
        assert_eq!(
            matches(&[condition("Ready", "False")], &pod(), &failed).map(|f| f.rule),
            Some(0)
        );
        assert_eq!(matches(&[condition("Ready", "True")], &pod(), &failed), None);
        let in_init = FailedPod {
            exits: &[None, None],
            initialized: false,
        };
        assert!(matches(&[condition("Initialized", "False")], &pod(), &in_init).is_some());
    }

    #[test]
    fn the_default_limit_is_six_and_unlimited_beside_a_per_index_limit() {
        assert_eq!(JobSpec::default().effective_backoff_limit(), 6);
        let per_index = JobSpec {
            backoff_limit_per_index: Some(1),
            ..JobSpec::default()
        };
        assert_eq!(per_index.effective_backoff_limit(), 2_147_483_647);
    }
}

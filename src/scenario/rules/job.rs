//! The Job's rules as the API validates them (`validatePodFailurePolicy` in
//! `pkg/apis/batch/validation`), shared by the TOML reader and the manifest
//! reader: each builds a `podFailurePolicy` rule from what it read and
//! points the message here at the key it came from.
//!
//! Invariant: a rule the readers accept is one the API server accepts for
//! a Job of one completion: exactly one of `on_exit_codes` and
//! `on_pod_conditions`, exit codes ordered, distinct and not 0 under `In`,
//! a container the template has, `restartPolicy: Never`, and `FailIndex`
//! only beside `backoff_limit_per_index`.

use crate::model::job::{Action, ConditionPattern, Requirement};
use crate::model::{PodMode, PodSpec, RestartPolicy, RunSpec};
use crate::scenario::diagnostic::unknown_word;

/// At most this many rules, and patterns in one rule (the API's limits).
pub const MAX_RULES: usize = 20;
/// At most this many exit codes in one rule.
pub const MAX_VALUES: usize = 255;

/// Which part of a rule a message is about, so a reader points at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The rule as a whole.
    Rule,
    /// `action`.
    Action,
    /// `on_exit_codes.container` (`containerName`).
    Container,
    /// `on_exit_codes.operator`.
    Operator,
    /// `on_exit_codes.values`.
    Values,
    /// An `on_pod_conditions` entry.
    Pattern,
}

/// A rule's `action`, or what would be valid.
pub fn action(word: &str) -> Result<Action, String> {
    Action::parse(word).ok_or_else(|| unknown_word("action", word, &Action::NAMES))
}

/// An `onExitCodes` requirement, or the part that is wrong and why.
pub fn exit_codes(
    pod: &PodSpec,
    container: Option<&str>,
    operator: &str,
    values: &[i64],
) -> Result<Requirement, (Part, String)> {
    let container = match container {
        None => None,
        Some(name) => Some(pod.find(name).ok_or_else(|| {
            let names: Vec<&str> = pod.containers.iter().map(|c| c.name.as_str()).collect();
            (Part::Container, unknown_word("container", name, &names))
        })?),
    };
    let is_in = match operator {
        "In" => true,
        "NotIn" => false,
        other => {
            return Err((Part::Operator, unknown_word("operator", other, &["In", "NotIn"])));
        }
    };
    if values.is_empty() || values.len() > MAX_VALUES {
        return Err((Part::Values, format!("values: give 1 to {MAX_VALUES} exit codes")));
    }
    let mut codes = Vec::with_capacity(values.len());
    for &v in values {
        let code =
            i32::try_from(v).map_err(|_| (Part::Values, format!("values: {v} is not an exit code")))?;
        if is_in && code == 0 {
            return Err((
                Part::Values,
                "values: 0 cannot be used with In (exit code 0 never matches a rule)".into(),
            ));
        }
        if let Some(&previous) = codes.last() {
            if previous == code {
                return Err((Part::Values, format!("values: {code} is listed twice")));
            }
            if previous > code {
                return Err((
                    Part::Values,
                    format!("values: must be ordered ({previous} before {code})"),
                ));
            }
        }
        codes.push(code);
    }
    Ok(Requirement::ExitCodes {
        container,
        is_in,
        values: codes,
    })
}

/// One `onPodConditions` pattern: `status` defaults to True.
pub fn pattern(condition: &str, status: Option<&str>) -> Result<ConditionPattern, String> {
    if condition.is_empty() {
        return Err("type: name the Pod condition, such as DisruptionTarget".into());
    }
    let status = status.unwrap_or("True");
    if !["True", "False", "Unknown"].contains(&status) {
        return Err(unknown_word("status", status, &["True", "False", "Unknown"]));
    }
    Ok(ConditionPattern {
        condition: condition.to_string(),
        status: status.to_string(),
    })
}

/// What a Job's rules refuse as a whole, and the rule index it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobProblem {
    /// A policy with a restart policy other than Never.
    PolicyNeedsNever,
    /// A `FailIndex` rule without `backoff_limit_per_index`.
    FailIndexNeedsPerIndex(usize),
    /// More than `MAX_RULES` rules.
    TooManyRules,
    /// Job settings on a Pod that is not a Job's.
    NotAJob,
}

impl JobProblem {
    /// The message, in the words of the API server's refusal.
    pub fn message(&self) -> String {
        match self {
            JobProblem::PolicyNeedsNever => "pod_failure_policy: only restart_policy = \"Never\" is supported \
                 with a pod failure policy (the API refuses the Job); set it in [pod]"
                .into(),
            JobProblem::FailIndexNeedsPerIndex(i) => format!(
                "pod_failure_policy rule {i}: action FailIndex needs backoff_limit_per_index in [job] \
                 (an Indexed Job's limit per index)"
            ),
            JobProblem::TooManyRules => format!("pod_failure_policy: at most {MAX_RULES} rules"),
            JobProblem::NotAJob => {
                "[job] is for a Job's Pod, and [pod] mode is \"service\": write mode = \"job\" or remove [job]".into()
            }
        }
    }
}

/// The rules that span keys, checked once everything is read.
pub fn check_job(run: &RunSpec) -> Result<(), JobProblem> {
    let job = &run.job;
    let written = job.backoff_limit.is_some()
        || job.backoff_limit_per_index.is_some()
        || !job.pod_failure_policy.is_empty();
    if written && run.pod.mode != PodMode::Job {
        return Err(JobProblem::NotAJob);
    }
    if job.pod_failure_policy.len() > MAX_RULES {
        return Err(JobProblem::TooManyRules);
    }
    if !job.pod_failure_policy.is_empty() && run.pod.restart_policy != RestartPolicy::Never {
        return Err(JobProblem::PolicyNeedsNever);
    }
    if job.backoff_limit_per_index.is_none()
        && let Some(i) = job
            .pod_failure_policy
            .iter()
            .position(|r| r.action == Action::FailIndex)
    {
        return Err(JobProblem::FailIndexNeedsPerIndex(i));
    }
    Ok(())
}

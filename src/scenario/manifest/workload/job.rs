//! A Job's own spec as the Job controller's rules: `backoffLimit`,
//! `backoffLimitPerIndex` and `podFailurePolicy` (J2–J6), read from a Job
//! or a CronJob's `jobTemplate` and checked as the TOML `[job]` is
//! (`scenario::rules::job`), each refusal at the field that breaks it.
//!
//! Invariant: the same Job written as a manifest and as TOML gives the
//! same `JobSpec`.

use k8s_openapi::api::batch::v1::JobSpec as K8sJobSpec;

use crate::model::RunSpec;
use crate::model::job::{FailureRule, Requirement};
use crate::scenario::diagnostic::{Diagnostic, Wrong};
use crate::scenario::manifest::yaml::{Document, Stream};
use crate::scenario::rules::job::{self as rules, JobProblem, Part};

/// Sets `run.job` from `spec`, found at `at` in `doc`; notes what podsim
/// leaves out (several completions or Pods at once) in `notices`.
pub fn read(
    stream: &Stream,
    doc: &Document,
    at: &[&str],
    spec: &K8sJobSpec,
    run: &mut RunSpec,
    notices: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let path = |rest: &[&str]| -> Vec<String> { at.iter().chain(rest).map(|s| s.to_string()).collect() };
    let error = |rest: &[&str], wrong: Wrong| {
        let p = path(rest);
        let p: Vec<&str> = p.iter().map(String::as_str).collect();
        stream.at_value(doc, &p, wrong)
    };
    let count = |value: Option<i32>, key: &str| match value {
        Some(n) if n < 0 => {
            let wrong = Wrong::Negative {
                value: n.into(),
                write: Some("0 or more"),
            };
            Err(error(&[key], wrong))
        }
        other => Ok(other.map(|n| n as u32)),
    };
    run.job.backoff_limit = count(spec.backoff_limit, "backoffLimit")?;
    run.job.backoff_limit_per_index = count(spec.backoff_limit_per_index, "backoffLimitPerIndex")?;
    if run.job.backoff_limit_per_index.is_some() && spec.completion_mode.as_deref() != Some("Indexed") {
        return Err(error(
            &["backoffLimitPerIndex"],
            "needs completionMode: Indexed (the API refuses it on a NonIndexed Job)".into(),
        ));
    }
    for (key, value) in [
        ("completions", spec.completions),
        ("parallelism", spec.parallelism),
    ] {
        if value.is_some_and(|n| n > 1) {
            let p = path(&[key]);
            let p: Vec<&str> = p.iter().map(String::as_str).collect();
            notices.push(
                stream
                    .error(
                        doc.value_offset(&p),
                        format!("{key}: podsim simulates a Job of one completion, one Pod at a time"),
                    )
                    .warning(),
            );
        }
    }
    let rules_list = spec.pod_failure_policy.iter().flat_map(|p| &p.rules);
    for (i, rule) in rules_list.enumerate() {
        let index = i.to_string();
        let at_rule = |rest: &[&str]| -> Vec<String> {
            ["podFailurePolicy", "rules", index.as_str()]
                .iter()
                .chain(rest)
                .map(|s| s.to_string())
                .collect()
        };
        let fail = |rest: &[&str], message: String| {
            let r = at_rule(rest);
            let r: Vec<&str> = r.iter().map(String::as_str).collect();
            error(&r, message.into())
        };
        let action = rules::action(&rule.action).map_err(|m| fail(&["action"], m))?;
        let on = match (&rule.on_exit_codes, &rule.on_pod_conditions) {
            (Some(codes), None) => {
                let values: Vec<i64> = codes.values.iter().map(|&v| i64::from(v)).collect();
                rules::exit_codes(
                    &run.pod,
                    codes.container_name.as_deref(),
                    &codes.operator,
                    &values,
                )
                .map_err(|(part, m)| {
                    let key = match part {
                        Part::Container => "containerName",
                        Part::Operator => "operator",
                        _ => "values",
                    };
                    fail(&["onExitCodes", key], m)
                })?
            }
            (None, Some(patterns)) if !patterns.is_empty() => {
                let mut parsed = Vec::with_capacity(patterns.len());
                for (j, p) in patterns.iter().enumerate() {
                    let status = p.status.as_deref().filter(|s| !s.is_empty());
                    let j = j.to_string();
                    parsed.push(
                        rules::pattern(&p.type_, status)
                            .map_err(|m| fail(&["onPodConditions", j.as_str()], m))?,
                    );
                }
                Requirement::PodConditions(parsed)
            }
            (Some(_), Some(_)) => {
                return Err(fail(
                    &["onPodConditions"],
                    "write onExitCodes or onPodConditions, not both".into(),
                ));
            }
            _ => {
                return Err(fail(
                    &[],
                    "say what the rule matches: onExitCodes or onPodConditions".into(),
                ));
            }
        };
        run.job.pod_failure_policy.push(FailureRule { action, on });
    }
    rules::check_job(run).map_err(|problem| {
        let key = match problem {
            JobProblem::PolicyNeedsNever => "template.spec.restartPolicy".to_string(),
            JobProblem::FailIndexNeedsPerIndex(i) => format!("podFailurePolicy.rules.{i}.action"),
            JobProblem::TooManyRules | JobProblem::NotAJob => "podFailurePolicy".to_string(),
        };
        let keys: Vec<&str> = key.split('.').collect();
        error(&keys, manifest_words(&problem.message()).into())
    })
}

/// A message written for TOML keys, in the manifest's field names.
fn manifest_words(message: &str) -> String {
    message
        .replace("restart_policy = \"Never\"", "restartPolicy: Never")
        .replace("; set it in [pod]", "")
        .replace("pod_failure_policy", "podFailurePolicy")
        .replace("backoff_limit_per_index in [job]", "backoffLimitPerIndex")
}

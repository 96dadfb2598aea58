//! A Job's story under its controller (`podsim run` of a Job's Pod): each
//! Pod it made, when, how it ended and what the controller made of it, and
//! how the Job ended — in the words of the Job's conditions and of the
//! controller's own messages, as text and as JSON.
//!
//! Invariant: everything here is read from the run's `JobReport` and the
//! Pod spec; nothing is worked out again from the model.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::model::job::{Fired, JobFailure, JobOutcome, JobPod};
use crate::model::{JobReport, Outcome, PodSpec};

/// The controller's message for a rule that fired, as `matchPodFailurePolicy` words it.
fn rule_words(spec: &PodSpec, fired: Fired) -> String {
    match fired.exit {
        Some((id, code)) => format!(
            "container {} failed with exit code {code} matching {} rule at index {}",
            spec.container(id).name,
            fired.action.name(),
            fired.rule
        ),
        None => format!(
            "a Pod condition matched {} rule at index {}",
            fired.action.name(),
            fired.rule
        ),
    }
}

/// Why a Pod that settled Running never completes (R46), and what to write.
fn stuck_words(spec: &PodSpec, outcome: Outcome) -> Option<String> {
    let Outcome::Stuck(id) = outcome else {
        return None;
    };
    let c = spec.container(id);
    Some(if c.proxy {
        format!(
            "the proxy \"{}\" is listed among the apps (a legacy sidecar) and never exits, so the Pod stays \
             Running (R46): make it a native sidecar (kind = \"sidecar\", an initContainers entry with \
             restartPolicy: Always)",
            c.name
        )
    } else {
        format!(
            "\"{name}\" never exits, so the Pod stays Running (R46): give it a `run` (how long its work \
             takes; podsim.dev/{name}.run on a manifest), or, if it is a helper such as a log shipper or a \
             proxy, make it a native sidecar (kind = \"sidecar\", an initContainers entry with restartPolicy: \
             Always)",
            name = c.name
        )
    })
}

fn pods(n: u32) -> String {
    if n == 1 {
        "1 Pod".into()
    } else {
        format!("{n} Pods")
    }
}

fn failures(n: u32) -> String {
    if n == 1 {
        "1 failure".into()
    } else {
        format!("{n} failures")
    }
}

/// The Job's lines for `podsim run`: one per Pod, then the end.
pub fn text(spec: &PodSpec, job: &JobReport) -> String {
    let mut out = String::new();
    for (i, pod) in job.pods.iter().enumerate() {
        let _ = write!(
            out,
            "job Pod {:<3} created {:>10}  ",
            i + 1,
            pod.created.to_string()
        );
        match pod.finished {
            Some(at) => {
                let _ = write!(out, "{} at {at}", pod.phase.name());
            }
            None => {
                let _ = write!(out, "{} at the end", pod.phase.name());
            }
        }
        if pod.restarts > 0 {
            let _ = write!(out, ", {} restarts", pod.restarts);
        }
        if let Some(fired) = pod.fired {
            let _ = write!(out, "; {}", rule_words(spec, fired));
        }
        if pod.counted {
            out.push_str("; counted");
        }
        out.push('\n');
    }
    let figures = job.figures;
    let _ = match figures.outcome {
        JobOutcome::Complete { at } => writeln!(out, "job Complete at {at} after {}", pods(figures.pods)),
        JobOutcome::Failed { decided, at, reason } => {
            let why = match reason {
                JobFailure::BackoffLimitExceeded => "Job has reached the specified backoff limit".to_string(),
                JobFailure::PodFailurePolicy(fired) => rule_words(spec, fired),
                JobFailure::FailedIndexes(Some(fired)) => rule_words(spec, fired),
                JobFailure::FailedIndexes(None) => {
                    "the index failed more than backoffLimitPerIndex".to_string()
                }
            };
            let decided = if decided == at {
                String::new()
            } else {
                format!(" (FailureTarget at {decided}, once its Pod was terminal)")
            };
            writeln!(
                out,
                "job Failed ({}) at {at}{decided} after {}, {} counted: {why}",
                reason.reason(),
                pods(figures.pods),
                failures(figures.failed)
            )
        }
        JobOutcome::Running => {
            let last = job.pods.last().map(|p| p.outcome);
            match last.and_then(|o| stuck_words(spec, o)) {
                Some(words) => writeln!(out, "job still Running: {words}"),
                None => writeln!(
                    out,
                    "job still Running at the end of the run after {} ({} counted)",
                    pods(figures.pods),
                    failures(figures.failed)
                ),
            }
        }
    };
    out
}

/// The Job as a JSON object: `outcome`, `reason`, `rule`, `pods`,
/// `failed`, `job_ms` (the CSV's columns) and each Pod.
pub fn json(spec: &PodSpec, job: &JobReport) -> Value {
    let figures = job.figures;
    let reason = match figures.outcome {
        JobOutcome::Failed { reason, .. } => Some(reason),
        _ => None,
    };
    let pods: Vec<Value> = job.pods.iter().map(|p| pod_json(spec, p)).collect();
    json!({
        "outcome": figures.outcome.name(),
        "reason": reason.map(JobFailure::reason),
        "rule": reason.and_then(JobFailure::fired).map(|f| f.rule),
        "pods": figures.pods,
        "failed": figures.failed,
        "job_ms": figures.outcome.at().map(|t| t.as_millis()),
        "stuck": job.pods.last().and_then(|p| stuck_words(spec, p.outcome)),
        "pod_list": pods,
    })
}

fn pod_json(spec: &PodSpec, pod: &JobPod) -> Value {
    json!({
        "created_ms": pod.created.as_millis(),
        "finished_ms": pod.finished.map(|t| t.as_millis()),
        "phase": pod.phase.name(),
        "restarts": pod.restarts,
        "rule": pod.fired.map(|f| rule_words(spec, f)),
        "counted": pod.counted,
    })
}

//! What `podsim advise` shows for a Job (`advise::JobAdvice`): whether it
//! completes today and with the fixes, a row per fix (what it buys, what
//! it costs), why, the API's rules for applying it; the same as JSON; and
//! the patch.
//!
//! Why the patch writes the whole `podFailurePolicy.rules`: the list has
//! no merge key, so a strategic merge replaces it whole. And why it goes
//! into the manifest: a Job's `spec.podFailurePolicy` and `spec.template`
//! cannot change once it exists (`ValidateJobSpecUpdate` in
//! `pkg/apis/batch/validation/validation.go`), so it is created again; a
//! CronJob's `jobTemplate` can change, and its next Job takes it.

use std::fmt::Write;

use serde_json::{Value, json};

use super::start::move_container;
use crate::advise::{Culprit, Fix, JobAdvice, JobTally, Layout};
use crate::model::RunSpec;
use crate::model::job::{FailureRule, Requirement};
use crate::scenario::manifest::WorkloadKind;

/// The API's rules the advice leans on, for the text and the guide.
const RULES: &str = "podFailurePolicy needs restartPolicy: Never on the template (the API refuses it with \
                     OnFailure); a Job's spec.podFailurePolicy and spec.template cannot change once it exists: \
                     patch the manifest and create the Job again (a CronJob's jobTemplate can change: its next \
                     Job takes it)";

/// The table and the evidence, for people.
pub fn text(name: &str, source: &str, a: &JobAdvice, today: &RunSpec) -> String {
    let mut out = String::new();
    let r = a.replications;
    let _ = writeln!(out, "== advise: {name} ({source})");
    let _ = writeln!(
        out,
        "target: the Job completes, over {r} replications (seed {})",
        a.seed
    );
    let _ = writeln!(out);
    let rows: Vec<[String; 5]> = (a.culprits.iter().zip(&a.fixes))
        .map(|(c, f)| row(c, f, today))
        .collect();
    if rows.is_empty() {
        let _ = writeln!(out, "nothing to change: no sidecar keeps the Job from completing");
    } else {
        out.push_str(&super::table(&rows));
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "today:   {}", tally(&a.today, r));
    if !a.fixes.is_empty() {
        let _ = writeln!(out, "advised: {}", tally(&a.advised, r));
    }
    for c in &a.culprits {
        let _ = writeln!(out, "why: {}", why(c));
    }
    if let Some(c) = &a.unfixed {
        let _ = writeln!(
            out,
            "what limits it: {}; Kubernetes 1.{} has no native sidecars on by default (1.29 on), and no \
             podFailurePolicy rule makes a Failed Pod succeed: the sidecar must exit 0 once the work is done",
            why(c),
            a.kubernetes.0
        );
    }
    if a.fixes.iter().any(|f| matches!(f, Fix::NarrowRule { .. })) {
        let _ = writeln!(out, "rules: {RULES}");
    }
    let _ = writeln!(out, "runs: {} simulated", a.runs);
    out
}

fn tally(t: &JobTally, r: u64) -> String {
    let mean = t.complete_ms.map_or(String::new(), |ms| {
        format!("; Complete after {:.3}s (mean)", ms / 1000.0)
    });
    format!(
        "Complete in {} of {r} runs, Failed in {}, still Running in {}; {:.1} Pods per run{mean}",
        t.complete, t.failed, t.running, t.pods
    )
}

fn why(c: &Culprit) -> String {
    match c {
        Culprit::Blocks(name) => format!(
            "{name} is listed among the apps and never exits, so the Pod stays Running and the Job never completes (R46)"
        ),
        Culprit::FailsPod(name, code) => format!(
            "{name} is listed among the apps and exited {code}, so the Pod is Failed though the work succeeded (R44)"
        ),
        Culprit::RuleOnSidecar {
            rule,
            action,
            container,
            code,
        } => format!(
            "{container} exited {code} and matched {} rule {rule}, which names no container: onExitCodes reads every \
             container's code, native sidecars' too (J5)",
            action.name()
        ),
    }
}

fn row(c: &Culprit, f: &Fix, today: &RunSpec) -> [String; 5] {
    match f {
        Fix::Native(name) => [
            format!("{name} placement"),
            Layout::SideBySide.name().into(),
            Layout::Native.name().into(),
            "the kubelet stops it once the apps are done, and its exit code is not the Pod's (R43, R44)"
                .into(),
            format!("the apps start once {name} has started"),
        ],
        Fix::NarrowRule { rule, to } => {
            let code = match c {
                Culprit::RuleOnSidecar { container, code, .. } => format!("{container}'s {code}"),
                _ => "a sidecar's code".into(),
            };
            [
                format!("podFailurePolicy rule {rule}"),
                describe(&today.job.pod_failure_policy[*rule], today),
                format!("containerName: {}", to.join(", ")),
                format!("{code} no longer matches it"),
                "the rule no longer sees sidecars' codes".into(),
            ]
        }
    }
}

/// A rule in a few words.
fn describe(rule: &FailureRule, run: &RunSpec) -> String {
    let v = rule_json(rule, run);
    let on = v.get("onExitCodes").map_or_else(
        || "pod conditions".into(),
        |e| format!("{} {}", e["operator"].as_str().unwrap_or(""), e["values"]),
    );
    format!("{} on {on}", rule.action.name())
}

/// A rule as the API writes it, containers by name.
fn rule_json(rule: &FailureRule, run: &RunSpec) -> Value {
    let on = match &rule.on {
        Requirement::ExitCodes {
            container,
            is_in,
            values,
        } => {
            let mut e = json!({ "operator": if *is_in { "In" } else { "NotIn" }, "values": values });
            if let Some(id) = container {
                e["containerName"] = json!(run.pod.container(*id).name);
            }
            json!({ "onExitCodes": e })
        }
        Requirement::PodConditions(patterns) => json!({
            "onPodConditions": patterns.iter().map(|p| json!({ "type": p.condition, "status": p.status })).collect::<Vec<_>>()
        }),
    };
    let mut v = json!({ "action": rule.action.name() });
    if let (Value::Object(map), Value::Object(on)) = (&mut v, on) {
        map.extend(on);
    }
    v
}

/// The advice as one JSON document, the patch included.
pub fn json(name: &str, source: &str, a: &JobAdvice, patch: &str, manifest: bool) -> Value {
    let t = |t: &JobTally| {
        json!({
            "complete": t.complete, "failed": t.failed, "running": t.running,
            "complete_ms_mean": t.complete_ms, "pods_mean": t.pods,
        })
    };
    json!({
        "name": name,
        "source": source,
        "advice": "job",
        "replications": a.replications,
        "seed": a.seed,
        "today": t(&a.today),
        "advised": t(&a.advised),
        "why": a.culprits.iter().map(why).collect::<Vec<_>>(),
        "fixes": a.fixes.iter().map(|f| match f {
            Fix::Native(c) => json!({ "native_sidecar": c }),
            Fix::NarrowRule { rule, to } => json!({ "narrow_rule": rule, "container_names": to }),
        }).collect::<Vec<_>>(),
        "unfixed": a.unfixed.as_ref().map(why),
        "pod_failure_policy": a.spec.job.pod_failure_policy.iter().map(|r| rule_json(r, &a.spec)).collect::<Vec<_>>(),
        "runs": a.runs,
        "patch": { "format": if manifest { "strategic-merge-yaml" } else { "podsim-keys" }, "text": patch },
    })
}

/// The patch: for a manifest's Job (or CronJob) of `kind`, a strategic
/// merge; `original(name)` is a container as the manifest writes it. For
/// a TOML scenario (`None`), the keys and rules to write.
pub fn patch(
    a: &JobAdvice,
    kind: Option<WorkloadKind>,
    name: &str,
    origin: &str,
    original: &dyn Fn(&str) -> Option<Value>,
) -> String {
    let mut out = String::new();
    let moved: Vec<&String> = (a.fixes.iter())
        .filter_map(|f| if let Fix::Native(c) = f { Some(c) } else { None })
        .collect();
    let rules = a.fixes.iter().any(|f| matches!(f, Fix::NarrowRule { .. }));
    let Some(kind) = kind else {
        if a.fixes.is_empty() {
            let _ = writeln!(out, "# podsim advise: nothing to change in {origin}");
            return out;
        }
        let _ = writeln!(out, "# podsim advise: what to write in {origin}");
        for c in moved {
            let _ = writeln!(out, "containers.{c}.kind = \"sidecar\"");
        }
        if rules {
            let _ = writeln!(out, "# [[job.pod_failure_policy]], replaced whole:");
            for r in &a.spec.job.pod_failure_policy {
                let v = rule_json(r, &a.spec);
                let _ = writeln!(
                    out,
                    "[[job.pod_failure_policy]]\naction = \"{}\"",
                    r.action.name()
                );
                if let Some(e) = v.get("onExitCodes") {
                    let container = e
                        .get("containerName")
                        .map_or(String::new(), |c| format!("container = {c}, "));
                    let _ = writeln!(
                        out,
                        "on_exit_codes = {{ {container}operator = {}, values = {} }}",
                        e["operator"], e["values"]
                    );
                } else if let Some(p) = v.get("onPodConditions") {
                    let _ = writeln!(out, "on_pod_conditions = {}", toml_list(p));
                }
            }
        }
        return out;
    };
    if a.fixes.is_empty() {
        return super::empty_patch(kind, name);
    }
    let _ = writeln!(out, "{}", super::apply_line(kind, name));
    let template = kind.template();
    let (job_spec, _) = template.split_at(template.len() - 1);
    for (depth, key) in job_spec.iter().enumerate() {
        let _ = writeln!(out, "{:w$}{key}:", "", w = depth * 2);
    }
    let pad = |d: usize| " ".repeat(d * 2);
    let d = job_spec.len();
    if rules {
        let list: Vec<Value> = (a.spec.job.pod_failure_policy.iter())
            .map(|r| rule_json(r, &a.spec))
            .collect();
        let _ = writeln!(out, "{}podFailurePolicy:", pad(d));
        let _ = writeln!(out, "{}rules: {}", pad(d + 1), Value::Array(list));
    }
    if !moved.is_empty() {
        let _ = writeln!(out, "{}template:\n{}spec:", pad(d), pad(d + 1));
        for c in moved {
            let original = original(c);
            move_container(
                &mut out,
                &pad(d + 2),
                (c, original.as_ref()),
                (Layout::SideBySide, Layout::Native),
                None,
            );
        }
    }
    out
}

/// A JSON list of conditions as a TOML inline list.
fn toml_list(v: &Value) -> String {
    let items: Vec<String> = (v.as_array().into_iter().flatten())
        .map(|p| format!("{{ type = {}, status = {} }}", p["type"], p["status"]))
        .collect();
    format!("[{}]", items.join(", "))
}

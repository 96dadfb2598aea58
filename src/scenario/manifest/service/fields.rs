//! The fields of a Deployment and of a PodDisruptionBudget that a Service
//! scenario reads, as `Derived` keys with the API's defaults: replicas,
//! `spec.strategy` and `minReadySeconds`; `minAvailable` or
//! `maxUnavailable` and `unhealthyPodEvictionPolicy`.
//!
//! Invariant: a value the API server would refuse is refused here, at its
//! line (`ValidateDeploymentStrategy`, `ValidatePodDisruptionBudgetSpec`),
//! so a scenario never runs what `kubectl apply` would not create.

use k8s_openapi::api::apps::v1::DeploymentSpec;
use k8s_openapi::api::policy::v1::PodDisruptionBudgetSpec;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::Derived;
use crate::engine::SimDuration;
use crate::model::service::{EvictionPolicy, Scaled, Strategy};
use crate::scenario::diagnostic::{Diagnostic, Wrong};
use crate::scenario::key::{Field, Value};
use crate::scenario::manifest::Found;
use crate::scenario::manifest::yaml::{Stream, dotted};
use crate::scenario::rules::neither_budget;

/// An `IntOrString` of the API as a count or a percentage: an int of 0 or
/// more, or a string of digits and `%` (the API refuses "3" and "-1").
fn scaled(value: &IntOrString) -> Result<Scaled, String> {
    match value {
        IntOrString::Int(n) => u32::try_from(*n)
            .map(Scaled::Count)
            .map_err(|_| format!("{n} is negative; write 0 or more, or a percentage such as \"25%\"")),
        IntOrString::String(s) => s
            .strip_suffix('%')
            .and_then(|p| p.parse().ok())
            .map(Scaled::Percent)
            .ok_or_else(|| format!("\"{s}\" is neither a count nor a percentage; write 1 or \"25%\"")),
    }
}

/// The field at `path` under `at`, read: its value as a key's, and how
/// messages say it (`spec.replicas: 3 (12:3)`).
struct Reader<'a> {
    stream: &'a Stream<'a>,
    at: &'a Found<'a>,
    /// `the Deployment's` or `PodDisruptionBudget "zk-pdb"'s`.
    whose: String,
}

impl Reader<'_> {
    fn path<'p>(&'p self, path: &[&'p str]) -> Vec<&'p str> {
        self.at.at(path)
    }

    fn error(&self, path: &[&str], wrong: impl Into<Wrong>) -> Diagnostic {
        self.stream.at_value(self.at.doc, &self.path(path), wrong)
    }

    /// A key set by the field at `path` (written: `shown`), or by its default.
    fn key(
        &self,
        field: Field,
        value: Option<Value>,
        path: &[&str],
        shown: Option<String>,
        default: &str,
    ) -> Derived {
        let name = dotted(path);
        let said = match shown {
            Some(shown) => format!(
                "{} {name}: {shown} ({})",
                self.whose,
                self.stream.line_col(self.at.doc.value_offset(&self.path(path)))
            ),
            None => format!("{} {name}, unset ({default})", self.whose),
        };
        Derived { field, value, said }
    }
}

/// The Deployment's rollout keys (`spec.strategy`, `spec.minReadySeconds`),
/// with the API's defaults, and behind a Service its `spec.replicas`.
pub(super) fn deployment_keys(
    stream: &Stream,
    at: &Found,
    spec: &DeploymentSpec,
    behind_service: bool,
) -> Result<Vec<Derived>, Diagnostic> {
    let r = Reader {
        stream,
        at,
        whose: "the Deployment's".into(),
    };
    let mut keys = Vec::new();
    let path = ["spec", "replicas"];
    match spec.replicas.filter(|_| behind_service) {
        _ if !behind_service => {}
        None => keys.push(r.key(
            Field::Replicas,
            Some(Value::Count(1)),
            &path,
            None,
            "the API's default: 1",
        )),
        Some(n) if n >= 1 => {
            let count = Field::Replicas
                .within_limit(Value::Count(n as u32))
                .map_err(|m| r.error(&path, format!("replicas: {m}")))?;
            keys.push(r.key(Field::Replicas, Some(count), &path, Some(n.to_string()), ""))
        }
        Some(n) => {
            return Err(r.error(
                &path,
                format!("{n} replicas behind a Service leave nothing to simulate; write 1 or more"),
            ));
        }
    }
    let strategy = spec.strategy.clone().unwrap_or_default();
    let type_path = ["spec", "strategy", "type"];
    let word = strategy.type_.as_deref().unwrap_or("RollingUpdate");
    let Some(index) = Strategy::NAMES.iter().position(|n| *n == word) else {
        let wrong = Wrong::Unknown {
            what: "strategy type",
            word: word.to_string(),
            valid: &Strategy::NAMES,
        };
        return Err(r.error(&type_path, wrong));
    };
    let shown = strategy.type_.clone();
    keys.push(r.key(
        Field::Rollout,
        Some(Value::Word(index)),
        &type_path,
        shown,
        "the API's default: RollingUpdate",
    ));
    let rolling = ["spec", "strategy", "rollingUpdate"];
    if Strategy::ALL[index] == Strategy::Recreate {
        if strategy.rolling_update.is_some() {
            return Err(r.error(
                &rolling,
                "may not be set when the strategy type is Recreate (the API refuses it): drop it, or write \
                 type: RollingUpdate",
            ));
        }
        // A Recreate has neither: an annotation of either contradicts it.
        for field in [Field::MaxSurge, Field::MaxUnavailable] {
            keys.push(r.key(field, None, &type_path, Some("Recreate".into()), ""));
        }
    } else {
        let update = strategy.rolling_update.clone().unwrap_or_default();
        let mut both = Vec::new();
        for (field, leaf, value) in [
            (Field::MaxSurge, "maxSurge", update.max_surge),
            (Field::MaxUnavailable, "maxUnavailable", update.max_unavailable),
        ] {
            let path = [rolling[0], rolling[1], rolling[2], leaf];
            let Some(value) = value else {
                both.push(Scaled::Percent(25));
                keys.push(r.key(
                    field,
                    Some(Value::Scaled(Scaled::Percent(25))),
                    &path,
                    None,
                    "the API's default: 25%",
                ));
                continue;
            };
            let n = scaled(&value).map_err(|m| r.error(&path, m))?;
            if let (Field::MaxUnavailable, Scaled::Percent(p)) = (field, n)
                && p > 100
            {
                return Err(r.error(&path, Wrong::OverAHundred(p)));
            }
            both.push(n);
            keys.push(r.key(field, Some(Value::Scaled(n)), &path, Some(n.to_string()), ""));
        }
        if both.iter().all(|n| n.is_zero()) {
            return Err(r.error(
                &[rolling[0], rolling[1], rolling[2], "maxUnavailable"],
                "may not be 0 when maxSurge is 0 (the API refuses it: no Pod could ever be replaced); make one of \
                 them 1 or more",
            ));
        }
    }
    let ready = ["spec", "minReadySeconds"];
    keys.push(match spec.min_ready_seconds {
        None => r.key(
            Field::MinReadySeconds,
            Some(Value::Millis(SimDuration::ZERO)),
            &ready,
            None,
            "the API's default: 0",
        ),
        Some(s) if s >= 0 => r.key(
            Field::MinReadySeconds,
            Some(Value::Millis(SimDuration::from_secs(s as u64))),
            &ready,
            Some(s.to_string()),
            "",
        ),
        Some(s) => {
            let wrong = Wrong::Negative {
                value: s.into(),
                write: Some("0 or more seconds"),
            };
            return Err(r.error(&ready, wrong));
        }
    });
    Ok(keys)
}

/// A budget's `[pdb]` keys: minAvailable or maxUnavailable (not both, as
/// the API has it) and unhealthyPodEvictionPolicy.
pub(super) fn budget_keys(
    stream: &Stream,
    at: &Found,
    spec: &PodDisruptionBudgetSpec,
    notices: &mut Vec<Diagnostic>,
) -> Result<Vec<Derived>, Diagnostic> {
    let name = at.scalar(&["metadata", "name"]).unwrap_or("");
    let r = Reader {
        stream,
        at,
        whose: format!("PodDisruptionBudget \"{name}\"'s"),
    };
    let mut keys = Vec::new();
    let min = ["spec", "minAvailable"];
    let max = ["spec", "maxUnavailable"];
    match (&spec.min_available, &spec.max_unavailable) {
        (Some(_), Some(_)) => {
            return Err(r.error(
                &max,
                "a budget has minAvailable or maxUnavailable, not both (the API refuses both); drop one",
            ));
        }
        (Some(v), None) | (None, Some(v)) => {
            let (field, other, path) = match spec.min_available {
                Some(_) => (Field::MinAvailable, Field::PdbMaxUnavailable, &min),
                None => (Field::PdbMaxUnavailable, Field::MinAvailable, &max),
            };
            let n = scaled(v).map_err(|m| r.error(path, m))?;
            if let Scaled::Percent(p) = n
                && p > 100
            {
                // IsNotMoreThan100Percent, on both fields (ValidatePodDisruptionBudgetSpec).
                return Err(r.error(path, Wrong::OverAHundred(p)));
            }
            keys.push(r.key(field, Some(Value::Scaled(n)), path, Some(n.to_string()), ""));
            keys.push(r.key(other, None, path, Some(n.to_string()), ""));
        }
        (None, None) => {
            notices.push(
                stream
                    .error(
                        at.doc.offset(&at.at(&["spec"])),
                        format!(
                            "PodDisruptionBudget \"{name}\" {}",
                            neither_budget("minAvailable", "maxUnavailable")
                        ),
                    )
                    .warning(),
            );
            // No value: the budget stays `Budget::Unset` (the policy's key
            // makes it), and an annotation of either field contradicts it.
            let unset = "no budget: no disruption allowed";
            keys.push(r.key(Field::MinAvailable, None, &min, None, unset));
            keys.push(r.key(Field::PdbMaxUnavailable, None, &max, None, unset));
        }
    }
    let policy = ["spec", "unhealthyPodEvictionPolicy"];
    let written = spec.unhealthy_pod_eviction_policy.as_deref();
    let word = written.unwrap_or("IfHealthyBudget");
    let Some(index) = EvictionPolicy::NAMES.iter().position(|n| *n == word) else {
        let wrong = Wrong::Unknown {
            what: "unhealthyPodEvictionPolicy",
            word: word.to_string(),
            valid: &EvictionPolicy::NAMES,
        };
        return Err(r.error(&policy, wrong));
    };
    keys.push(r.key(
        Field::UnhealthyPodEvictionPolicy,
        Some(Value::Word(index)),
        &policy,
        written.map(str::to_string),
        "the API's default: IfHealthyBudget",
    ));
    Ok(keys)
}

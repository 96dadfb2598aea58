//! The scenario file exactly as written: a serde mirror of the TOML with
//! every key optional where the format allows and positions kept for errors.
//!
//! Invariant: unknown keys are refused here (`deny_unknown_fields`), so a typo
//! never silently falls back to a default.

use serde::Deserialize;
use toml::Spanned;

/// Keys of each table, in the order the README lists them (for suggestions).
pub const TOP_KEYS: &[&str] = &["name", "horizon", "pod", "containers"];
pub const POD_KEYS: &[&str] = &[
    "restart_policy",
    "termination_grace_period",
    "stop_at",
    "stop_after_ready",
    "backoff",
];
pub const BACKOFF_KEYS: &[&str] = &["initial", "cap", "immediate_first_restart"];
pub const CONTAINER_KEYS: &[&str] = &[
    "name",
    "kind",
    "boot",
    "drain",
    "pre_stop",
    "fails",
    "proxy",
    "startup_probe",
    "readiness_probe",
    "liveness_probe",
    "crash_after",
    "run",
    "exit_code",
];
pub const PROBE_KEYS: &[&str] = &[
    "initial_delay",
    "period",
    "timeout",
    "success_threshold",
    "failure_threshold",
    "termination_grace_period",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub name: Option<String>,
    pub horizon: Option<Spanned<RawDuration>>,
    #[serde(default)]
    pub pod: RawPod,
    #[serde(default)]
    pub containers: Vec<Spanned<RawContainer>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPod {
    pub restart_policy: Option<Spanned<String>>,
    pub termination_grace_period: Option<Spanned<RawDuration>>,
    pub stop_at: Option<Spanned<RawDuration>>,
    pub stop_after_ready: Option<Spanned<RawDuration>>,
    pub backoff: Option<RawBackoff>,
    pub mode: Option<Spanned<String>>,
    pub kubernetes: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBackoff {
    pub initial: Option<Spanned<RawDuration>>,
    pub cap: Option<Spanned<RawDuration>>,
    pub immediate_first_restart: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContainer {
    pub name: Spanned<String>,
    pub kind: Spanned<String>,
    pub boot: Spanned<RawDuration>,
    pub drain: Option<Spanned<RawDuration>>,
    pub pre_stop: Option<Spanned<RawDuration>>,
    pub fails: Option<Spanned<u32>>,
    pub proxy: Option<Spanned<bool>>,
    pub startup_probe: Option<Spanned<RawProbe>>,
    pub readiness_probe: Option<Spanned<RawProbe>>,
    pub liveness_probe: Option<Spanned<RawProbe>>,
    pub crash_after: Option<Spanned<Vec<Spanned<RawDuration>>>>,
    pub run: Option<Spanned<RawDuration>>,
    pub exit_code: Option<Spanned<i32>>,
}

/// A probe table; every key optional, Kubernetes' defaults apply (R27).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProbe {
    pub initial_delay: Option<Spanned<RawDuration>>,
    pub period: Option<Spanned<RawDuration>>,
    pub timeout: Option<Spanned<RawDuration>>,
    pub success_threshold: Option<u32>,
    pub failure_threshold: Option<u32>,
    pub termination_grace_period: Option<Spanned<RawDuration>>,
}

/// A duration string, not yet parsed; a bare number gets a helpful error.
#[derive(Debug)]
pub struct RawDuration(pub String);

impl<'de> Deserialize<'de> for RawDuration {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = RawDuration;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a duration string such as \"3s\" or \"250ms\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawDuration, E> {
                Ok(RawDuration(v.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RawDuration, E> {
                Err(E::custom(format!(
                    "a duration needs a unit and quotes: write \"{v}s\" or \"{v}ms\", not {v}"
                )))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RawDuration, E> {
                self.visit_i64(v as i64)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<RawDuration, E> {
                Err(E::custom(format!(
                    "a duration needs a unit and quotes: write \"{v}s\", not {v}"
                )))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

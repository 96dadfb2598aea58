//! Timings Kubernetes does not know (how long a container boots, drains, ...)
//! and when the Pod is deleted: read from `podsim.dev/` pod annotations and
//! from a `--timings FILE.toml` overlay, in the words of TOML scenarios.
//!
//! Invariant: both sources go through `Settings::set`, so a key means the
//! same and is checked the same wherever it is written; every value is
//! validated when it is read, so mapping only has to pick one.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::engine::SimDuration;
use crate::model::KubeVersion;
use crate::scenario::{ScenarioError, parse_duration, parse_kube_version, toml_error, unknown_word};

/// The annotation prefix: `podsim.dev/<container>.<key>` and `podsim.dev/<key>`.
pub const PREFIX: &str = "podsim.dev/";

/// Per-container keys, as in a TOML scenario's `[[containers]]`.
pub const CONTAINER_KEYS: [&str; 8] = [
    "boot",
    "drain",
    "pre_stop",
    "fails",
    "proxy",
    "crash_after",
    "run",
    "exit_code",
];

/// Pod keys, as in a TOML scenario's `[pod]` (plus its top-level `horizon`).
pub const POD_KEYS: [&str; 4] = ["stop_at", "stop_after_ready", "horizon", "kubernetes"];

/// The timings of one container, each unset until a source sets it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContainerTimings {
    pub boot: Option<SimDuration>,
    pub drain: Option<SimDuration>,
    pub pre_stop: Option<SimDuration>,
    pub fails: Option<u32>,
    pub proxy: Option<bool>,
    /// Comma-separated durations in an annotation, a list in the overlay.
    pub crash_after: Option<Vec<SimDuration>>,
    pub run: Option<SimDuration>,
    pub exit_code: Option<i32>,
}

/// When the Pod is deleted and when the run stops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodTimings {
    pub stop_at: Option<SimDuration>,
    pub stop_after_ready: Option<SimDuration>,
    pub horizon: Option<SimDuration>,
    pub kubernetes: Option<KubeVersion>,
}

impl ContainerTimings {
    /// Sets `key` from its text; the error says what would be valid.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "boot" => self.boot = Some(parse_duration(value)?),
            "drain" => self.drain = Some(parse_duration(value)?),
            "pre_stop" => self.pre_stop = Some(parse_duration(value)?),
            "fails" => {
                self.fails = Some(value.trim().parse().map_err(|_| {
                    format!("fails must be a whole number of failed starts (e.g. \"2\"), not \"{value}\"")
                })?)
            }
            "proxy" => {
                self.proxy = Some(match value.trim() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("proxy must be \"true\" or \"false\", not \"{value}\"")),
                })
            }
            "crash_after" => {
                let list = value.trim().trim_start_matches('[').trim_end_matches(']');
                let items = list
                    .split(',')
                    .map(|d| parse_duration(d.trim().trim_matches('"')));
                self.crash_after = Some(items.collect::<Result<_, _>>()?);
            }
            "run" => self.run = Some(parse_duration(value)?),
            "exit_code" => {
                self.exit_code =
                    Some(value.trim().parse().map_err(|_| {
                        format!("exit_code must be a whole number (e.g. \"1\"), not \"{value}\"")
                    })?)
            }
            _ => return Err(unknown_word("timing key", key, &CONTAINER_KEYS)),
        }
        Ok(())
    }

    /// Each key set here wins over the same key in `under`.
    pub fn over(&self, under: &ContainerTimings) -> ContainerTimings {
        ContainerTimings {
            boot: self.boot.or(under.boot),
            drain: self.drain.or(under.drain),
            pre_stop: self.pre_stop.or(under.pre_stop),
            fails: self.fails.or(under.fails),
            proxy: self.proxy.or(under.proxy),
            crash_after: self.crash_after.clone().or_else(|| under.crash_after.clone()),
            run: self.run.or(under.run),
            exit_code: self.exit_code.or(under.exit_code),
        }
    }
}

impl PodTimings {
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        if key == "kubernetes" {
            self.kubernetes = Some(parse_kube_version(value.trim())?);
            return Ok(());
        }
        let duration = Some(parse_duration(value)?);
        match key {
            "stop_at" => self.stop_at = duration,
            "stop_after_ready" => self.stop_after_ready = duration,
            "horizon" => self.horizon = duration,
            _ => return Err(unknown_word("pod key", key, &POD_KEYS)),
        }
        Ok(())
    }

    /// Each key set here wins over the same key in `under`; a deletion
    /// time set here replaces both of `under`'s (a Pod is deleted once).
    pub fn over(&self, under: &PodTimings) -> PodTimings {
        let ours = self.stop_at.is_some() || self.stop_after_ready.is_some();
        PodTimings {
            stop_at: if ours { self.stop_at } else { under.stop_at },
            stop_after_ready: if ours {
                self.stop_after_ready
            } else {
                under.stop_after_ready
            },
            horizon: self.horizon.or(under.horizon),
            kubernetes: self.kubernetes.or(under.kubernetes),
        }
    }
}

/// A `--timings` overlay, checked except for container names, which only a
/// manifest can check (hence the spans kept for them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timings {
    pub origin: String,
    text: String,
    pub pod: PodTimings,
    /// Container name, the span of its table name, its timings.
    pub containers: Vec<(String, Range<usize>, ContainerTimings)>,
}

/// The overlay file as written; values stay TOML values so that both
/// sources share `set`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTimings {
    #[serde(default)]
    pod: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    containers: BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
}

impl Timings {
    pub fn load(path: &Path) -> Result<Timings, ScenarioError> {
        let (origin, text) = crate::scenario::read_input(path, "timings")?;
        Timings::parse(&text, &origin)
    }

    pub fn parse(text: &str, origin: &str) -> Result<Timings, ScenarioError> {
        let raw: RawTimings = toml::from_str(text).map_err(|e| toml_error(origin, text, &e))?;
        let error =
            |span: Range<usize>, message: String| ScenarioError::at(origin, text, Some(span), message);
        let mut pod = PodTimings::default();
        for (key, value) in &raw.pod {
            pod.set(key.get_ref(), &value_text(value.get_ref()))
                .map_err(|m| error(value.span(), format!("[pod] {}: {m}", key.get_ref())))?;
        }
        if let (Some(_), Some(_)) = (pod.stop_at, pod.stop_after_ready) {
            let span = raw
                .pod
                .keys()
                .find(|k| k.get_ref() == "stop_after_ready")
                .map(Spanned::span);
            return Err(error(
                span.unwrap_or(0..0),
                "stop_at and stop_after_ready are both set; keep one (a deletion happens once)".into(),
            ));
        }
        let mut containers = Vec::new();
        for (name, keys) in &raw.containers {
            let mut timings = ContainerTimings::default();
            for (key, value) in keys {
                let prefix = format!("[containers.{}] {}", name.get_ref(), key.get_ref());
                let at = if CONTAINER_KEYS.contains(&key.get_ref().as_str()) {
                    value.span()
                } else {
                    key.span()
                };
                timings
                    .set(key.get_ref(), &value_text(value.get_ref()))
                    .map_err(|m| error(at, format!("{prefix}: {m}")))?;
            }
            containers.push((name.get_ref().clone(), name.span(), timings));
        }
        Ok(Timings {
            origin: origin.to_string(),
            text: text.to_string(),
            pod,
            containers,
        })
    }

    /// An error about this overlay at `span`.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::at(&self.origin, &self.text, Some(span), message)
    }
}

/// A TOML value as the text an annotation would hold.
fn value_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlay_reads_every_key_in_typed_units() {
        let t = Timings::parse(
            "[pod]\nstop_after_ready = \"5s\"\n[containers.web]\nboot = \"2s\"\nfails = 1\nproxy = true\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(t.pod.stop_after_ready, Some(SimDuration::from_secs(5)));
        let (name, _, web) = &t.containers[0];
        assert_eq!(name, "web");
        assert_eq!(
            (web.boot, web.fails, web.proxy),
            (Some(SimDuration::from_secs(2)), Some(1), Some(true))
        );
    }

    #[test]
    fn overlay_typos_are_positioned_and_suggest() {
        let e = Timings::parse("[containers.web]\nbot = \"2s\"\n", "t.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.toml:2:1: [containers.web] bot: unknown timing key \"bot\"; did you mean \"boot\"? \
             expected one of boot, drain, pre_stop, fails, proxy, crash_after, run, exit_code"
        );
        let e = Timings::parse("[containers.web]\nboot = 2\n", "t.toml").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.toml:2:8: [containers.web] boot: duration \"2\" needs a unit")
        );
        let e = Timings::parse("[pods]\n", "t.toml").unwrap_err();
        assert!(e.to_string().contains("did you mean \"pod\"?"), "{e}");
    }

    #[test]
    fn the_overlay_wins_and_a_deletion_is_replaced_whole() {
        let mut annotated = PodTimings::default();
        annotated.set("stop_at", "10s").unwrap();
        let mut overlay = PodTimings::default();
        overlay.set("stop_after_ready", "3s").unwrap();
        let merged = overlay.over(&annotated);
        assert_eq!(
            (merged.stop_at, merged.stop_after_ready),
            (None, Some(SimDuration::from_secs(3)))
        );
    }
}

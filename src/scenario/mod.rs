//! Reading scenarios: TOML scenario files and Kubernetes manifests, each
//! into a validated `RunSpec`, with diagnostics that name the file, line,
//! column and key, and say what would be valid.
//!
//! This module is the front door (`Scenario::load`, `Scenario::parse`);
//! below it, `toml` reads scenario files and `manifest` reads Kubernetes
//! YAML, both through the one list of keys in `key` and the rules in
//! `rules`, reporting through `diagnostic`. Invariant: every `Scenario`
//! returned here passes `rules::check_spec`, which the sweep also applies to
//! each combination it builds.

pub mod diagnostic;
pub mod dist;
mod duration;
pub mod key;
pub mod manifest;
pub mod numbers;
pub mod rules;
mod text;
pub mod toml;

use std::path::Path;

pub use diagnostic::{Diagnostic, Input, Problem, Scripted, Severity, closest, line_col, unknown_word};
pub use duration::parse_duration;
pub use rules::check_service;
pub use rules::check_spec;
pub use text::{MAX_INPUT_BYTES, read_capped, read_input};

use crate::model::RunSpec;

/// A scenario ready to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// The `name` key, or the file name without its extension.
    pub name: String,
    /// Where it came from (a path, or a label for inline text).
    pub origin: String,
    /// The Pod and the horizon (24 h unless the scenario says otherwise).
    pub run: RunSpec,
    /// The Kubernetes kind, when the scenario came from a manifest.
    pub workload: Option<manifest::WorkloadKind>,
    /// What loading had to assume or leave out, or what the chosen
    /// Kubernetes version needs, for the user to read (warnings).
    pub notices: Vec<Diagnostic>,
}

/// How an input is read: a TOML scenario, or a manifest in YAML or JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// A podsim scenario.
    Toml,
    /// A Kubernetes manifest, in this syntax.
    Manifest(manifest::Syntax),
}

impl InputFormat {
    /// By extension: `.yaml`, `.yml` and `.json` are manifests, anything else TOML.
    pub fn of_path(path: &Path) -> InputFormat {
        manifest::syntax_of(path).map_or(InputFormat::Toml, InputFormat::Manifest)
    }

    /// For text without a name (standard input): JSON if it opens with `{`
    /// or `[` (but not a TOML table header), TOML if its first line is a
    /// TOML table or `key = value`, else YAML.
    pub fn sniff(text: &str) -> InputFormat {
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        let table = first.starts_with('[')
            && first.ends_with(']')
            && first
                .trim_matches(['[', ']'])
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-\"".contains(c));
        let assignment = first.split_once('=').is_some_and(|(key, _)| {
            let key = key.trim();
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-\"".contains(c))
        });
        // `[pod` still being typed is a TOML table, not a JSON array: a JSON
        // array's first element is never a bare word.
        let unfinished_table = first
            .strip_prefix('[')
            .map(|rest| rest.trim_start_matches('['))
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| c.is_ascii_alphabetic() && !first.contains(['{', '"', ',']));
        if table && !first.trim_matches(['[', ']']).is_empty() || assignment || unfinished_table {
            InputFormat::Toml
        } else if first.starts_with('{') || first.starts_with('[') {
            InputFormat::Manifest(manifest::Syntax::Json)
        } else {
            InputFormat::Manifest(manifest::Syntax::Yaml)
        }
    }
}

impl Scenario {
    /// Reads and validates a scenario file that holds one scenario: a
    /// Kubernetes manifest if it ends in `.yaml`, `.yml` or `.json`, else TOML.
    pub fn load(path: &Path) -> Result<Scenario, Diagnostic> {
        Scenario::load_with(path, None)
    }

    /// `load`, with a timings overlay for manifests (a TOML scenario holds
    /// its own timings, so it refuses one).
    pub fn load_with(path: &Path, timings: Option<&manifest::Timings>) -> Result<Scenario, Diagnostic> {
        let (origin, text) = read_input(path, Input::Scenario)?;
        let scenario = match InputFormat::of_path(path) {
            InputFormat::Manifest(syntax) => manifest::parse_one(&text, &origin, syntax, timings)?,
            InputFormat::Toml => {
                let mut all = Scenario::read_all(&text, &origin, InputFormat::Toml, timings);
                all.remove(0)?
            }
        };
        Ok(named(scenario, &origin))
    }

    /// Reads and validates every scenario of a file (a manifest may hold
    /// several workloads), each a scenario or why it was refused.
    pub fn load_all(
        path: &Path,
        format: InputFormat,
        timings: Option<&manifest::Timings>,
    ) -> Vec<Result<Scenario, Diagnostic>> {
        match read_input(path, Input::Scenario) {
            Ok((origin, text)) => Scenario::read_all(&text, &origin, format, timings),
            Err(e) => vec![Err(e)],
        }
    }

    /// `load_all` on text already read; `origin` names it in errors (and
    /// gives an unnamed scenario its name).
    pub fn read_all(
        text: &str,
        origin: &str,
        format: InputFormat,
        timings: Option<&manifest::Timings>,
    ) -> Vec<Result<Scenario, Diagnostic>> {
        let all = match (format, timings) {
            (InputFormat::Manifest(syntax), _) => manifest::parse_all(text, origin, syntax, timings),
            (InputFormat::Toml, None) => vec![Scenario::parse(text, origin)],
            (InputFormat::Toml, Some(t)) => vec![Err(Diagnostic::whole(
                origin,
                format!(
                    "the timings file {} applies to Kubernetes manifests (.yaml, .json); write the timings \
                     into this TOML scenario instead",
                    t.origin
                ),
            ))],
        };
        all.into_iter().map(|r| r.map(|s| named(s, origin))).collect()
    }

    /// Parses and validates TOML scenario text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Scenario, Diagnostic> {
        toml::parse(text, origin)
    }
}

/// `scenario`, named after its file (without the extension) if it has no name.
fn named(mut scenario: Scenario, origin: &str) -> Scenario {
    if scenario.name.is_empty() {
        scenario.name = Path::new(origin)
            .file_stem()
            .map(|s| s.to_string_lossy().trim_matches(['<', '>']).to_string())
            .unwrap_or_default();
    }
    scenario
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::{ContainerKind, Deletion};

    const SEED_SIDECAR: &str = r#"
name = "seed"
[pod]
stop_at = "10s"
backoff = { initial = "1s", cap = "8s", immediate_first_restart = false }
[[containers]]
name = "config-fetch"
kind = "init"
boot = "2s"
[[containers]]
name = "proxy"
kind = "sidecar"
boot = "3s"
drain = "1s"
proxy = true
[[containers]]
name = "web"
kind = "app"
boot = "1s"
drain = "3s"
"#;

    fn error_of(text: &str) -> String {
        Scenario::parse(text, "x.toml").unwrap_err().to_string()
    }

    #[test]
    fn parses_every_key_into_typed_units() {
        let s = Scenario::parse(SEED_SIDECAR, "seed.toml").unwrap();
        assert_eq!(s.name, "seed");
        assert_eq!(s.run.pod.deletion, Deletion::At(SimDuration::from_secs(10)));
        assert_eq!(s.run.pod.backoff.initial, SimDuration::from_secs(1));
        assert!(!s.run.pod.backoff.immediate_first_restart);
        assert_eq!(s.run.pod.termination_grace_period, SimDuration::from_secs(30));
        let proxy = &s.run.pod.containers[1];
        assert_eq!(
            (proxy.kind, proxy.boot.clone(), proxy.drain.clone(), proxy.proxy),
            (
                ContainerKind::Sidecar,
                SimDuration::from_secs(3).into(),
                SimDuration::from_secs(1).into(),
                true
            )
        );
    }

    #[test]
    fn unknown_key_names_line_and_suggests() {
        let text = SEED_SIDECAR.replace("boot = \"1s\"", "boto = \"1s\"");
        let e = error_of(&text);
        assert!(e.starts_with("x.toml:"), "{e}");
        assert!(e.contains("unknown key \"boto\"; did you mean \"boot\"?"), "{e}");
    }

    #[test]
    fn unknown_kind_points_at_the_value() {
        let text = SEED_SIDECAR.replace("kind = \"app\"", "kind = \"ap\"");
        assert_eq!(
            error_of(&text),
            "x.toml:18:8: container \"web\": unknown kind \"ap\"; did you mean \"app\"? expected one of init, sidecar, app"
        );
    }

    #[test]
    fn spec_rules_are_positioned_on_the_offending_key() {
        let text = SEED_SIDECAR.replace("kind = \"sidecar\"", "kind = \"init\"");
        let e = error_of(&text);
        assert!(
            e.starts_with("x.toml:15:9: container \"proxy\": proxy is not allowed"),
            "{e}"
        );
    }
}

/// The registry against every reader (each key in a scenario, a grid
/// axis, annotations, the timings overlay and the README): a test of the
/// whole crate that only sits here, so it is kept apart from `Scenario`.
#[cfg(test)]
mod registry;

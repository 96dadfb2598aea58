//! Reading scenario files into a validated `PodSpec`, with errors that name
//! the file, line, column and key, and say what would be valid.
//!
//! Loading has two stages: `raw` mirrors the TOML (serde, unknown keys
//! refused), then `build` turns it into typed units and checks the rules a
//! Pod spec must obey. Kubernetes manifests (`.yaml`) go through `manifest`
//! instead and end in the same checks. Invariant: every `Scenario` this
//! module returns passes `check_spec`, which the sweep also applies to each
//! combination it builds.

mod duration;
pub mod manifest;
pub mod raw;

use std::fmt;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;

pub use duration::parse_duration;
use raw::{RawContainer, RawDuration, RawProbe, RawScenario};

use crate::engine::{DEFAULT_HORIZON, SimDuration};
use crate::model::{
    Backoff, ContainerKind, ContainerSpec, Deletion, KubeVersion, PodMode, PodSpec, Probe, ProbeKind,
    RestartPolicy, RunSpec,
};

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
    /// Kubernetes version needs, for the user to read (`origin: text`).
    pub notices: Vec<String>,
}

/// A problem with a scenario, positioned for a compiler-style message:
/// `origin:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    pub origin: String,
    /// 1-based line and column, when the problem has a place in the file.
    pub position: Option<(usize, usize)>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, col)) => write!(f, "{}:{line}:{col}: {}", self.origin, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl ScenarioError {
    /// An error at byte `span` of `text`.
    pub fn at(origin: &str, text: &str, span: Option<Range<usize>>, message: impl Into<String>) -> Self {
        ScenarioError {
            origin: origin.to_string(),
            position: span.map(|s| line_col(text, s.start)),
            message: message.into(),
        }
    }
}

/// The text of an input file and its name for messages; `what` says what
/// kind of file could not be read (scenario, grid, timings).
pub fn read_input(path: &Path, what: &str) -> Result<(String, String), ScenarioError> {
    let origin = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => Ok((origin, text)),
        Err(e) => Err(ScenarioError {
            origin,
            position: None,
            message: format!("cannot read {what}: {e}"),
        }),
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The valid word closest to `word`, if one is close enough to be a typo
/// or `word` is the start of it (`ready` for `ready_ms`).
pub fn closest<'a>(word: &str, valid: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    if let Some(longer) = valid
        .iter()
        .filter(|v| lower.len() >= 3 && v.to_lowercase().starts_with(&lower))
        .min_by_key(|v| v.len())
    {
        return Some(longer);
    }
    valid
        .iter()
        .map(|&v| {
            (
                strsim::damerau_levenshtein(&word.to_lowercase(), &v.to_lowercase()),
                v,
            )
        })
        .filter(|&(d, v)| d <= 2.max(v.len() / 3))
        .min_by_key(|&(d, _)| d)
        .map(|(_, v)| v)
}

/// `unknown X "word"; did you mean "y"? expected one of a, b, c`.
pub fn unknown_word(what: &str, word: &str, valid: &[&str]) -> String {
    let hint = closest(word, valid)
        .map(|v| format!("did you mean \"{v}\"? "))
        .unwrap_or_default();
    format!(
        "unknown {what} \"{word}\"; {hint}expected one of {}",
        valid.join(", ")
    )
}

impl Scenario {
    /// Reads and validates a scenario file: a Kubernetes manifest if it
    /// ends in `.yaml` or `.yml`, else TOML.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::load_with(path, None)
    }

    /// `load`, with a `--timings` overlay for manifests.
    pub fn load_with(path: &Path, timings: Option<&manifest::Timings>) -> Result<Scenario, ScenarioError> {
        let (origin, text) = read_input(path, "scenario")?;
        let mut scenario = match timings {
            _ if manifest::is_manifest(path) => manifest::parse(&text, &origin, timings)?,
            None => Scenario::parse(&text, &origin)?,
            Some(t) => {
                return Err(ScenarioError {
                    origin,
                    position: None,
                    message: format!(
                        "--timings {} applies to Kubernetes manifests (.yaml); write the timings \
                         into this TOML scenario instead",
                        t.origin
                    ),
                });
            }
        };
        if scenario.name.is_empty() {
            scenario.name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        Ok(scenario)
    }

    /// Parses and validates scenario text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let raw: RawScenario = toml::from_str(text).map_err(|e| toml_error(origin, text, &e))?;
        Builder { origin, text }.build(raw)
    }
}

/// Turns a toml/serde error into ours, adding a suggestion for unknown keys.
pub fn toml_error(origin: &str, text: &str, error: &toml::de::Error) -> ScenarioError {
    let message = error.message().trim_end();
    let message = match parse_unknown_field(message) {
        Some((field, _)) if field == "base" || field == "axes" => format!(
            "unknown key \"{field}\": this looks like a grid file, not a scenario; run it with \
             `podsim sweep --grid {origin}`"
        ),
        Some((field, expected)) => unknown_word(
            "key",
            &field,
            &expected.iter().map(String::as_str).collect::<Vec<_>>(),
        ),
        None => message.to_string(),
    };
    ScenarioError::at(origin, text, error.span(), message)
}

/// Picks `boto` and `[name, kind, ...]` out of serde's
/// "unknown field `boto`, expected one of `name`, `kind`, ..." message.
fn parse_unknown_field(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (field, rest) = rest.split_once('`')?;
    let expected = rest.split('`').skip(1).step_by(2).map(str::to_string).collect();
    Some((field.to_string(), expected))
}

struct Builder<'a> {
    origin: &'a str,
    text: &'a str,
}

impl Builder<'_> {
    fn error<T>(&self, span: Range<usize>, message: impl Into<String>) -> Result<T, ScenarioError> {
        Err(ScenarioError::at(self.origin, self.text, Some(span), message))
    }

    fn duration(&self, raw: &Spanned<RawDuration>, key: &str) -> Result<SimDuration, ScenarioError> {
        parse_duration(&raw.get_ref().0).or_else(|e| self.error(raw.span(), format!("{key}: {e}")))
    }

    fn optional_duration(
        &self,
        raw: &Option<Spanned<RawDuration>>,
        key: &str,
        default: SimDuration,
    ) -> Result<SimDuration, ScenarioError> {
        raw.as_ref().map_or(Ok(default), |r| self.duration(r, key))
    }

    fn build(&self, raw: RawScenario) -> Result<Scenario, ScenarioError> {
        let pod = &raw.pod;
        let restart_policy = match &pod.restart_policy {
            None => RestartPolicy::Always,
            Some(p) => RestartPolicy::parse(p.get_ref()).map_or_else(
                || {
                    self.error(
                        p.span(),
                        unknown_word("restart_policy", p.get_ref(), &RestartPolicy::NAMES),
                    )
                },
                Ok,
            )?,
        };
        let deletion = match (&pod.stop_at, &pod.stop_after_ready) {
            (Some(_), Some(after)) => {
                return self.error(
                    after.span(),
                    "stop_at and stop_after_ready are both set; keep one (a deletion happens once)",
                );
            }
            (Some(at), None) => Deletion::At(self.duration(at, "stop_at")?),
            (None, Some(after)) => Deletion::AfterReady(self.duration(after, "stop_after_ready")?),
            (None, None) => Deletion::Never,
        };
        let defaults = Backoff::default();
        let backoff = match &pod.backoff {
            None => defaults,
            Some(b) => Backoff {
                initial: self.optional_duration(&b.initial, "backoff.initial", defaults.initial)?,
                cap: self.optional_duration(&b.cap, "backoff.cap", defaults.cap)?,
                immediate_first_restart: b
                    .immediate_first_restart
                    .unwrap_or(defaults.immediate_first_restart),
            },
        };
        let mode = match &pod.mode {
            None => PodMode::Service,
            Some(m) => match m.get_ref().as_str() {
                "service" => PodMode::Service,
                "job" => PodMode::Job,
                other => return self.error(m.span(), unknown_word("mode", other, &["service", "job"])),
            },
        };
        let kubernetes = match &pod.kubernetes {
            None => KubeVersion::NEWEST,
            Some(v) => parse_kube_version(v.get_ref()).or_else(|e| self.error(v.span(), e))?,
        };
        let mut containers = Vec::with_capacity(raw.containers.len());
        for container in &raw.containers {
            containers.push(self.container(container)?);
        }
        let spec = PodSpec {
            restart_policy,
            termination_grace_period: self.optional_duration(
                &pod.termination_grace_period,
                "termination_grace_period",
                PodSpec::DEFAULT_GRACE,
            )?,
            deletion,
            backoff,
            mode,
            kubernetes,
            containers,
        };
        if let Err(problem) = check_spec(&spec) {
            let span = match problem.container {
                Some(i) => raw.containers.get(i).map(|c| locate(c, problem.key)),
                None => match problem.key {
                    "restart_policy" => pod.restart_policy.as_ref().map(Spanned::span),
                    "mode" => pod.mode.as_ref().map(Spanned::span),
                    "kubernetes" => pod.kubernetes.as_ref().map(Spanned::span),
                    "backoff.cap" => pod
                        .backoff
                        .as_ref()
                        .and_then(|b| b.cap.as_ref())
                        .map(Spanned::span),
                    _ => None,
                },
            };
            return Err(ScenarioError::at(self.origin, self.text, span, problem.message));
        }
        let notices = version_notices(&spec, self.origin);
        let horizon = self.optional_duration(&raw.horizon, "horizon", DEFAULT_HORIZON)?;
        Ok(Scenario {
            name: raw.name.unwrap_or_default(),
            origin: self.origin.to_string(),
            run: RunSpec { pod: spec, horizon },
            workload: None,
            notices,
        })
    }

    fn container(&self, raw: &Spanned<RawContainer>) -> Result<ContainerSpec, ScenarioError> {
        let c = raw.get_ref();
        let name = c.name.get_ref();
        if name.is_empty() {
            return self.error(c.name.span(), "container name is empty");
        }
        let kind = ContainerKind::parse(c.kind.get_ref()).map_or_else(
            || {
                self.error(
                    c.kind.span(),
                    format!(
                        "container \"{name}\": {}",
                        unknown_word("kind", c.kind.get_ref(), &ContainerKind::NAMES)
                    ),
                )
            },
            Ok,
        )?;
        let key = |k: &str| format!("container \"{name}\": {k}");
        Ok(ContainerSpec {
            name: name.clone(),
            kind,
            boot: self.duration(&c.boot, &key("boot"))?,
            drain: self.optional_duration(&c.drain, &key("drain"), SimDuration::ZERO)?,
            pre_stop: self.optional_duration(&c.pre_stop, &key("pre_stop"), SimDuration::ZERO)?,
            fails: c.fails.as_ref().map_or(0, |f| *f.get_ref()),
            proxy: c.proxy.as_ref().is_some_and(|p| *p.get_ref()),
            probes: [
                c.startup_probe
                    .as_ref()
                    .map(|p| self.probe(p, &key("startup_probe")))
                    .transpose()?,
                c.readiness_probe
                    .as_ref()
                    .map(|p| self.probe(p, &key("readiness_probe")))
                    .transpose()?,
                c.liveness_probe
                    .as_ref()
                    .map(|p| self.probe(p, &key("liveness_probe")))
                    .transpose()?,
            ],
            crash_after: match &c.crash_after {
                None => Vec::new(),
                Some(list) => list
                    .get_ref()
                    .iter()
                    .map(|d| self.duration(d, &key("crash_after")))
                    .collect::<Result<_, _>>()?,
            },
            run: c
                .run
                .as_ref()
                .map(|r| self.duration(r, &key("run")))
                .transpose()?,
            exit_code: c.exit_code.as_ref().map_or(0, |e| *e.get_ref()),
        })
    }

    fn probe(&self, raw: &Spanned<RawProbe>, key: &str) -> Result<Probe, ScenarioError> {
        let p = raw.get_ref();
        let d = Probe::default();
        let field = |name: &str| format!("{key}.{name}");
        Ok(Probe {
            initial_delay: self.optional_duration(
                &p.initial_delay,
                &field("initial_delay"),
                d.initial_delay,
            )?,
            period: self.optional_duration(&p.period, &field("period"), d.period)?,
            timeout: self.optional_duration(&p.timeout, &field("timeout"), d.timeout)?,
            success_threshold: p.success_threshold.unwrap_or(d.success_threshold),
            failure_threshold: p.failure_threshold.unwrap_or(d.failure_threshold),
            termination_grace_period: p
                .termination_grace_period
                .as_ref()
                .map(|g| self.duration(g, &field("termination_grace_period")))
                .transpose()?,
        })
    }
}

/// Where in a raw container a key was written (the container itself if not).
fn locate(c: &Spanned<RawContainer>, key: &str) -> Range<usize> {
    let r = c.get_ref();
    match key {
        "name" => Some(r.name.span()),
        "kind" => Some(r.kind.span()),
        "drain" => r.drain.as_ref().map(Spanned::span),
        "pre_stop" => r.pre_stop.as_ref().map(Spanned::span),
        "proxy" => r.proxy.as_ref().map(Spanned::span),
        "startup_probe" => r.startup_probe.as_ref().map(Spanned::span),
        "readiness_probe" => r.readiness_probe.as_ref().map(Spanned::span),
        "liveness_probe" => r.liveness_probe.as_ref().map(Spanned::span),
        "crash_after" => r.crash_after.as_ref().map(Spanned::span),
        "run" => r.run.as_ref().map(Spanned::span),
        "exit_code" => r.exit_code.as_ref().map(Spanned::span),
        _ => None,
    }
    .unwrap_or_else(|| c.span())
}

/// What the chosen Kubernetes version needs switched on for this Pod (the
/// version's hard limits are errors in `check_spec`).
pub fn version_notices(spec: &PodSpec, origin: &str) -> Vec<String> {
    let mut notices = Vec::new();
    let version = spec.kubernetes;
    if version.0 == 28 && spec.containers.iter().any(|c| c.kind == ContainerKind::Sidecar) {
        notices.push(format!(
            "{origin}: native sidecars are alpha in Kubernetes 1.28 (feature gate SidecarContainers, off by \
             default); they start in order but are stopped together with the apps"
        ));
    }
    if spec.backoff.cap != Backoff::default().cap
        && let Some(state) = version.configurable_backoff_cap().filter(|_| version.0 < 35)
    {
        notices.push(format!(
            "{origin}: a CrashLoopBackOff cap other than 300s is {state} in Kubernetes 1.{}",
            version.0
        ));
    }
    notices
}

/// Parses `"1.33"` into a version podsim knows.
pub fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    let minor = text.strip_prefix("1.").and_then(|m| m.parse::<u32>().ok());
    let (oldest, newest) = (KubeVersion::OLDEST.0, KubeVersion::NEWEST.0);
    match minor {
        Some(m) if (oldest..=newest).contains(&m) => Ok(KubeVersion(m)),
        _ => Err(format!(
            "unknown kubernetes version \"{text}\"; podsim knows \"1.{oldest}\" to \"1.{newest}\""
        )),
    }
}

/// The rules for one container: (key, message) of the first one broken.
fn check_container(spec: &PodSpec, c: &ContainerSpec) -> Result<(), (&'static str, String)> {
    const PROBE_KEYS: [&str; 3] = ["startup_probe", "readiness_probe", "liveness_probe"];
    if c.kind == ContainerKind::Init {
        // R8: regular init containers may not have probes.
        if let Some(i) = c.probes.iter().position(Option::is_some) {
            let key = PROBE_KEYS[i];
            return Err((
                key,
                format!("{key} is not allowed on an init container; make it kind = \"sidecar\""),
            ));
        }
        if !c.crash_after.is_empty() {
            let message = "crash_after is for sidecars and apps; an init container's failures are `fails`";
            return Err(("crash_after", message.into()));
        }
    }
    if c.kind == ContainerKind::Sidecar && !spec.kubernetes.has_native_sidecars() {
        let message = format!(
            "native sidecars need Kubernetes 1.28 or later (this Pod says 1.{}); use kind = \"app\"",
            spec.kubernetes.0
        );
        return Err(("kind", message));
    }
    if c.kind != ContainerKind::App && (c.run.is_some() || c.exit_code != 0) {
        let key = if c.run.is_some() { "run" } else { "exit_code" };
        let message = format!(
            "{key} is for app containers (a {} does not finish by itself)",
            c.kind.name()
        );
        return Err((key, message));
    }
    if c.exit_code != 0 && c.run.is_none() {
        return Err((
            "exit_code",
            "exit_code needs run (the time after which the app exits)".into(),
        ));
    }
    for kind in ProbeKind::ALL {
        let Some(p) = c.probe(kind) else { continue };
        let key = PROBE_KEYS[kind.index()];
        let second = SimDuration::from_secs(1);
        let problem = if p.period < second {
            "period must be at least 1s".to_string()
        } else if p.timeout < second {
            "timeout must be at least 1s".into()
        } else if p.success_threshold == 0 || p.failure_threshold == 0 {
            "success_threshold and failure_threshold must be at least 1".into()
        } else if kind != ProbeKind::Readiness && p.success_threshold != 1 {
            format!("success_threshold must be 1 for a {} probe", kind.name())
        } else if kind == ProbeKind::Readiness && p.termination_grace_period.is_some() {
            "termination_grace_period is not allowed on a readiness probe (it never kills)".into()
        } else {
            continue;
        };
        return Err((key, format!("{key}: {problem}")));
    }
    Ok(())
}

/// A rule of the Pod spec that a scenario breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecProblem {
    /// Index of the container concerned, if one is.
    pub container: Option<usize>,
    /// The key to point at.
    pub key: &'static str,
    pub message: String,
}

/// The rules a typed spec must obey, whatever file or grid produced it.
pub fn check_spec(spec: &PodSpec) -> Result<(), SpecProblem> {
    for (i, c) in spec.containers.iter().enumerate() {
        if let Some(first) = spec.containers[..i].iter().position(|o| o.name == c.name) {
            let _ = first;
            return Err(SpecProblem {
                container: Some(i),
                key: "name",
                message: format!(
                    "duplicate container name \"{}\"; names must be unique in a Pod",
                    c.name
                ),
            });
        }
        if c.kind == ContainerKind::Init {
            // R8: regular init containers may not have lifecycle hooks; they
            // run to completion, so they neither drain nor carry traffic.
            let misplaced = [
                ("proxy", c.proxy),
                ("drain", c.drain > SimDuration::ZERO),
                ("pre_stop", c.pre_stop > SimDuration::ZERO),
            ];
            if let Some((key, _)) = misplaced.iter().find(|(_, set)| *set) {
                return Err(SpecProblem {
                    container: Some(i),
                    key,
                    message: format!(
                        "container \"{}\": {key} is not allowed on an init container (it runs to completion); \
                         make it kind = \"sidecar\" or \"app\"",
                        c.name
                    ),
                });
            }
        }
    }
    for (i, c) in spec.containers.iter().enumerate() {
        check_container(spec, c).map_err(|(key, message)| SpecProblem {
            container: Some(i),
            key,
            message: format!("container \"{}\": {message}", c.name),
        })?;
    }
    let pod_problem = |key: &'static str, message: String| {
        Err(SpecProblem {
            container: None,
            key,
            message,
        })
    };
    if spec.mode == PodMode::Job && spec.restart_policy == RestartPolicy::Always {
        return pod_problem(
            "restart_policy",
            "a Job's Pod needs restart_policy = \"Never\" or \"OnFailure\" (Kubernetes refuses Always)"
                .into(),
        );
    }
    let cap_is_custom = spec.backoff.cap != Backoff::default().cap;
    if cap_is_custom && spec.kubernetes.configurable_backoff_cap().is_none() {
        return pod_problem(
            "backoff.cap",
            format!(
                "Kubernetes 1.{} cannot change the CrashLoopBackOff cap (maxContainerRestartPeriod \
                 exists from 1.32); remove backoff.cap or set kubernetes = \"1.32\" or later",
                spec.kubernetes.0
            ),
        );
    }
    if !spec.containers.iter().any(|c| c.kind == ContainerKind::App) {
        return Err(SpecProblem {
            container: None,
            key: "containers",
            message: "the Pod has no app container; add a [[containers]] entry with kind = \"app\"".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            (proxy.kind, proxy.boot, proxy.drain, proxy.proxy),
            (
                ContainerKind::Sidecar,
                SimDuration::from_secs(3),
                SimDuration::from_secs(1),
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

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\ncdé\nx", 8), (3, 1));
        assert_eq!(line_col("ab\ncdé", 5), (2, 3));
    }
}

//! How a broken Pod-spec rule reads: `SpecProblem::message` words each
//! `Rule` for the reader's `Format` (a TOML scenario's keys or a manifest's
//! fields and annotations).
//!
//! Apart from `pod`, which holds the rules and their checks, because the
//! wording is a view: it changes when a message is improved, never when a
//! rule does, and it is as long as all the checks together.

use crate::engine::SimDuration;
use crate::model::PodSpec;
use crate::scenario::key::Field;

use super::{ProbeProblem, Rule, SpecProblem};
use crate::scenario::rules::Format;

/// `Rule::TwoDeletions` in words, which the overlay and the annotations,
/// meeting the second key as they read it, say as well.
pub const TWO_DELETIONS: &str =
    "stop_at and stop_after_ready are both set; keep one (a deletion happens once)";

impl SpecProblem {
    /// The message for a reader of `format`; `name` is the container's.
    pub fn message(&self, spec: &PodSpec, format: Format) -> String {
        let name = self
            .container
            .and_then(|i| spec.containers.get(i))
            .map_or("", |c| c.name.as_str());
        let toml = format == Format::Toml;
        match &self.rule {
            Rule::DuplicateName => {
                format!("duplicate container name \"{name}\"; names must be unique in a Pod")
            }
            Rule::NotOnInit(field) if toml => format!(
                "container \"{name}\": {} is not allowed on an init container (it runs to completion); \
                 make it kind = \"sidecar\" or \"app\"",
                field.name()
            ),
            Rule::NotOnInit(field) => format!(
                "init container \"{name}\": {key} does not apply to an init container (it runs to \
                 completion); drop podsim.dev/{name}.{key} (or its entry in the timings file), or add \
                 restartPolicy: Always to make it a native sidecar",
                key = field.name()
            ),
            Rule::ProbeOnInit(kind) => format!(
                "container \"{name}\": {}_probe is not allowed on an init container; make it kind = \"sidecar\"",
                kind.name()
            ),
            Rule::CrashOnInit => format!(
                "container \"{name}\": crash_after is for sidecars and apps; an init container's failures \
                 are `fails`"
            ),
            Rule::NativeSidecarsNeed128(version) => format!(
                "container \"{name}\": native sidecars need Kubernetes 1.28 or later (this Pod says 1.{}); {}",
                version.0,
                if toml {
                    "use kind = \"app\""
                } else {
                    "list the container under containers instead"
                }
            ),
            Rule::RunOnInit(field) => format!(
                "container \"{name}\": {} does not apply to an init container: its boot is its whole run \
                 (it exits 0 when boot is over; `fails` makes attempts exit 1, or exit_code)",
                field.name()
            ),
            Rule::ExitCodeOver255(field, code) => format!(
                "container \"{name}\": {} {code} is not an exit code; a process exits with 0 to 255",
                field.name()
            ),
            Rule::ExitCodeNeedsRun => {
                format!(
                    "container \"{name}\": exit_code needs run (the time after which the app exits), \
                     or fails or fail_probability (the attempts that exit with it)"
                )
            }
            Rule::Probe(kind, problem) => {
                let key = format!("{}_probe", kind.name());
                let problem = match problem {
                    ProbeProblem::PeriodUnderASecond => "period must be at least 1s".to_string(),
                    ProbeProblem::TimeoutUnderASecond => "timeout must be at least 1s".into(),
                    ProbeProblem::ThresholdZero => {
                        "success_threshold and failure_threshold must be at least 1".into()
                    }
                    ProbeProblem::SuccessThresholdNotOne => {
                        format!("success_threshold must be 1 for a {} probe", kind.name())
                    }
                    ProbeProblem::GraceOnReadiness => {
                        "termination_grace_period is not allowed on a readiness probe (it never kills)".into()
                    }
                };
                format!("container \"{name}\": {key}: {problem}")
            }
            Rule::JobRestartsAlways => {
                "a Job's Pod needs restart_policy = \"Never\" or \"OnFailure\" (Kubernetes refuses Always)"
                    .into()
            }
            Rule::BackoffCapFixed(version) => format!(
                "Kubernetes 1.{} cannot change the CrashLoopBackOff cap (maxContainerRestartPeriod exists \
                 from 1.32); {}",
                version.0,
                if toml {
                    "remove backoff.cap or set kubernetes = \"1.32\" or later"
                } else {
                    "remove podsim.dev/backoff.cap or set podsim.dev/kubernetes: \"1.32\" or later"
                }
            ),
            Rule::BackoffUnderASecond(field) => format!(
                "{} must be at least 1s: the kubelet's CrashLoopBackOff delay is never shorter (R18)",
                if toml {
                    format!("backoff.{}", field.leaf())
                } else {
                    format!("podsim.dev/backoff.{}", field.leaf())
                }
            ),
            Rule::NoApp => {
                "the Pod has no app container; add a [[containers]] entry with kind = \"app\"".into()
            }
            Rule::TwoDeletions => TWO_DELETIONS.into(),
            // A manifest's sidecar is its restartPolicy: Always, never this.
            Rule::PolicyOnSidecar => format!(
                "container \"{name}\": a sidecar always restarts (it is an init container with restartPolicy: \
                 Always); remove restart_policy"
            ),
            Rule::AlwaysOnInit => format!(
                "container \"{name}\": restart_policy = \"Always\" makes an init container a sidecar: write \
                 kind = \"sidecar\" (an init container may have OnFailure or Never)"
            ),
            Rule::RulesNeedPolicy if toml => format!(
                "container \"{name}\": restart_policy_rules need the container's own restart_policy (the API \
                 refuses them without one)"
            ),
            Rule::FailsNeedsHook if toml => format!(
                "container \"{name}\": post_start_fails needs a postStart hook to fail; set post_start \
                 (\"0s\" for a hook that fails at once)"
            ),
            Rule::FailsNeedsHook => format!(
                "container \"{name}\": post_start_fails needs a postStart hook to fail; give the container \
                 a lifecycle.postStart"
            ),
            Rule::RulesNeedPolicy => format!(
                "container \"{name}\": restartPolicyRules need the container's own restartPolicy (the API \
                 refuses them without one)"
            ),
            Rule::RestartAllNeeds135(version) => format!(
                "container \"{name}\": action RestartAllContainers needs Kubernetes 1.35 or later \
                 (RestartAllContainersOnContainerExits: alpha in 1.35, on by default from 1.36); this Pod says 1.{}",
                version.0
            ),
            Rule::SidecarRulesNeed135(version) => format!(
                "container \"{name}\": restart rules on a sidecar need Kubernetes 1.35 or later (they came with \
                 RestartAllContainersOnContainerExits: alpha in 1.35, on by default from 1.36); this Pod says 1.{}",
                version.0
            ),
            Rule::StopSignalNeeds133(version) => format!(
                "container \"{name}\": a stop signal other than SIGTERM needs Kubernetes 1.33 or later \
                 (ContainerStopSignals, alpha from 1.33); this Pod says 1.{}",
                version.0
            ),
            Rule::NotWholeSeconds(field, length) => {
                let api = match field {
                    Field::Probe(kind, probe) => {
                        format!("{}Probe.{}", kind.name(), probe.k8s_name().unwrap_or_default())
                    }
                    _ => "terminationGracePeriodSeconds".into(),
                };
                let floor = length.floor_secs();
                let container = match self.container {
                    Some(_) => format!("container \"{name}\": "),
                    None => String::new(),
                };
                format!(
                    "{container}{} \"{length}\" is not a whole number of seconds, and the Kubernetes API keeps \
                     {api} in whole seconds; write \"{floor}\" or \"{}\"",
                    field.name(),
                    floor + SimDuration::from_secs(1)
                )
            }
            Rule::ContainerPolicyNeeds134(version) => format!(
                "container \"{name}\": a container's own restart policy needs Kubernetes 1.34 or later \
                 (ContainerRestartRules: alpha in 1.34, on by default from 1.35); this Pod says 1.{}",
                version.0
            ),
        }
    }
}

//! What the chosen Kubernetes version needs switched on for a Pod: the
//! features it uses that are alpha (off by default) or beta in that
//! release, as notices beside the scenario, not refusals.
//!
//! Invariant: a version's hard limits (a feature it does not have at all)
//! are errors in `check_spec`; only what the version has behind a gate is
//! told here.

use crate::model::{Backoff, ContainerKind, ContainerSpec, PodSpec, RuleAction, Signal};

/// What the chosen Kubernetes version needs switched on for this Pod (the
/// version's hard limits are errors in `check_spec`), as notice texts.
pub fn version_notices(spec: &PodSpec) -> Vec<String> {
    let mut notices = Vec::new();
    let version = spec.kubernetes;
    if version.0 == 28 && spec.containers.iter().any(|c| c.kind == ContainerKind::Sidecar) {
        notices.push(
            "native sidecars are alpha in Kubernetes 1.28 (feature gate SidecarContainers, off by default); \
             they start in order but are stopped together with the apps"
                .to_string(),
        );
    }
    if version.0 == 34 && spec.containers.iter().any(|c| c.restart_policy.is_some()) {
        notices.push(
            "a container's own restart policy is alpha in Kubernetes 1.34 (feature gate ContainerRestartRules, \
             off by default)"
                .to_string(),
        );
    }
    let restarts_all =
        |c: &ContainerSpec| (c.restart_rules.iter()).any(|r| r.action == RuleAction::RestartAllContainers);
    if version.0 == 35 && spec.containers.iter().any(restarts_all) {
        notices.push(
            "action RestartAllContainers is alpha in Kubernetes 1.35 (feature gate \
             RestartAllContainersOnContainerExits, off by default)"
                .to_string(),
        );
    }
    if spec.containers.iter().any(|c| c.stop_signal != Signal::Term) && version.has_stop_signals() {
        notices.push(format!(
            "a container's stop signal (lifecycle.stopSignal) is alpha in Kubernetes 1.{} (feature gate \
             ContainerStopSignals, off by default)",
            version.0
        ));
    }
    if spec.backoff.cap != Backoff::default().cap
        && let Some(state) = version.configurable_backoff_cap().filter(|_| version.0 < 35)
    {
        notices.push(format!(
            "a CrashLoopBackOff cap other than 300s is {state} in Kubernetes 1.{}",
            version.0
        ));
    }
    notices
}

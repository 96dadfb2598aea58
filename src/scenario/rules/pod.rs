//! The rules a Pod spec must obey (kubelet rules R8, R27, the
//! version table in docs/concepts.md), each one entry of `SPEC_RULES`, as typed
//! problems worded for a TOML scenario or a manifest.
//!
//! Invariant: `check_spec` runs every entry in order, the first broken
//! one wins; a reader that checks the Pod's shape (names and kinds) before
//! its timings are read runs `check_shape` then `check_timings`, which
//! together are `check_spec`, each rule run once. How each rule reads
//! for a TOML scenario or a manifest is `message`'s.

use crate::engine::SimDuration;
use crate::model::{
    Backoff, ContainerKind, ContainerSpec, KubeVersion, PodMode, PodSpec, Probability, ProbeKind,
    RestartPolicy, RuleAction, Signal,
};

use crate::scenario::key::{Field, ProbeField};

mod message;

pub use message::TWO_DELETIONS;

/// What a probe table gets wrong (R27).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeProblem {
    /// `periodSeconds` is at least 1.
    PeriodUnderASecond,
    /// `timeoutSeconds` is at least 1.
    TimeoutUnderASecond,
    /// `failureThreshold` and `successThreshold` are at least 1.
    ThresholdZero,
    /// Liveness and startup probes need `successThreshold: 1`.
    SuccessThresholdNotOne,
    /// A readiness probe never kills, so it has no kill grace.
    GraceOnReadiness,
}

/// A rule of the Pod spec, with what the message needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Two containers of one Pod share a name.
    DuplicateName,
    /// R8: a regular init container runs to completion: it has no hooks
    /// and carries no traffic (`proxy`, `pre_stop`); it may drain (R57).
    NotOnInit(Field),
    /// R8: no probes on a regular init container.
    ProbeOnInit(ProbeKind),
    /// Init containers fail by `fails`, not by crashing while they serve.
    CrashOnInit,
    /// Native sidecars (`restartPolicy: Always` on an init container) need
    /// Kubernetes 1.28 or later (behind a feature gate there, on by default from 1.29).
    NativeSidecarsNeed128(KubeVersion),
    /// `run` on a regular init container: its `boot` is its whole run
    /// already, and `fails` its failures (R56).
    RunOnInit(Field),
    /// `exit_code` without `run`, `fails` or `fail_probability`: a
    /// container that never exits on its own has no exit code.
    ExitCodeNeedsRun,
    /// A process exits with 0 to 255; Kubernetes reports nothing else.
    ExitCodeOver255(Field, i32),
    /// A probe table breaks one of R27's rules.
    Probe(ProbeKind, ProbeProblem),
    /// Kubernetes refuses a Job whose Pods restart `Always`.
    JobRestartsAlways,
    /// Before 1.32 the CrashLoopBackOff cap is fixed at 300 s (R18).
    BackoffCapFixed(KubeVersion),
    /// The kubelet's back-off is never under a second (R18: the cap is 1 s
    /// to 300 s, the initial delay 10 s or 1 s); shorter would let a
    /// container that fails at once restart at the same instant forever.
    BackoffUnderASecond(Field),
    /// A Pod needs at least one app container.
    NoApp,
    /// `stop_at` and `stop_after_ready` together (a deletion happens once).
    TwoDeletions,
    /// A sidecar has a restart policy by definition (Always): R60.
    PolicyOnSidecar,
    /// `restart_policy = "Always"` on an init container makes it a sidecar.
    AlwaysOnInit,
    /// `restart_policy_rules` need the container's own `restart_policy`.
    RulesNeedPolicy,
    /// `post_start_fails` without a `post_start` hook to fail (R66).
    FailsNeedsHook,
    /// A container's own restart policy needs Kubernetes 1.34 or later.
    ContainerPolicyNeeds134(KubeVersion),
    /// A `RestartAllContainers` rule needs Kubernetes 1.35 or later (KEP-5532, R61).
    RestartAllNeeds135(KubeVersion),
    /// Rules on a sidecar came with `RestartAllContainers` (1.35, R61).
    SidecarRulesNeed135(KubeVersion),
    /// `stop_signal` needs Kubernetes 1.33 or later (KEP-4960, R59).
    StopSignalNeeds133(KubeVersion),
    /// A length the API keeps in whole seconds (`periodSeconds`,
    /// `terminationGracePeriodSeconds`) written with a fraction (`"1.5s"`):
    /// refused rather than rounded, so no run differs from what it says.
    NotWholeSeconds(Field, SimDuration),
}

/// A rule a spec breaks, and where: a container's field, its name, or the Pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecProblem {
    /// Index of the container concerned, if one is.
    pub container: Option<usize>,
    /// The field to point at; `None` for the container's name (or the Pod).
    pub field: Option<Field>,
    /// Which rule.
    pub rule: Rule,
}

/// The rules for one container, the first one broken.
fn check_container(spec: &PodSpec, c: &ContainerSpec) -> Result<(), (Option<Field>, Rule)> {
    if c.kind == ContainerKind::Init {
        let misplaced = [
            (Field::Proxy, c.proxy),
            (Field::PreStop, c.pre_stop.is_some()),
            (Field::PostStart, c.post_start.is_some()),
            (Field::PostStartFails, c.post_start_fails),
        ];
        if let Some((field, _)) = misplaced.iter().find(|(_, set)| *set) {
            return Err((Some(*field), Rule::NotOnInit(*field)));
        }
        if let Some(kind) = ProbeKind::ALL.into_iter().find(|k| c.probe(*k).is_some()) {
            return Err((
                Some(Field::Probe(kind, ProbeField::Period)),
                Rule::ProbeOnInit(kind),
            ));
        }
        if !c.crash_after.is_empty() {
            return Err((Some(Field::CrashAfter), Rule::CrashOnInit));
        }
    }
    if c.kind == ContainerKind::Sidecar && !spec.kubernetes.has_native_sidecars() {
        return Err((Some(Field::Kind), Rule::NativeSidecarsNeed128(spec.kubernetes)));
    }
    // R56: a sidecar may exit on its own (and restarts); an init
    // container's run is its boot, and its exit_code its failures' (R9).
    if c.kind == ContainerKind::Init && c.run.is_some() {
        return Err((Some(Field::Run), Rule::RunOnInit(Field::Run)));
    }
    if c.post_start_fails && c.post_start.is_none() {
        return Err((Some(Field::PostStartFails), Rule::FailsNeedsHook));
    }
    // R60: a container's own restart policy and rules (KEP-5307).
    if c.restart_policy.is_some() || !c.restart_rules.is_empty() {
        let policy = Some(Field::ContainerRestartPolicy);
        match c.kind {
            ContainerKind::Sidecar if c.restart_policy.is_some() => {
                return Err((policy, Rule::PolicyOnSidecar));
            }
            // R61: a sidecar's rules, its policy being its kind.
            ContainerKind::Sidecar if !spec.kubernetes.has_restart_all_containers() => {
                return Err((None, Rule::SidecarRulesNeed135(spec.kubernetes)));
            }
            ContainerKind::Sidecar => {}
            ContainerKind::Init if c.restart_policy == Some(RestartPolicy::Always) => {
                return Err((policy, Rule::AlwaysOnInit));
            }
            _ if c.restart_policy.is_none() => return Err((None, Rule::RulesNeedPolicy)),
            _ if !spec.kubernetes.has_container_restart_policy() => {
                return Err((policy, Rule::ContainerPolicyNeeds134(spec.kubernetes)));
            }
            _ => {}
        }
    }
    let restarts_all =
        |c: &ContainerSpec| (c.restart_rules.iter()).any(|r| r.action == RuleAction::RestartAllContainers);
    if restarts_all(c) && !spec.kubernetes.has_restart_all_containers() {
        return Err((None, Rule::RestartAllNeeds135(spec.kubernetes)));
    }
    if c.stop_signal != Signal::Term && !spec.kubernetes.has_stop_signals() {
        return Err((Some(Field::StopSignal), Rule::StopSignalNeeds133(spec.kubernetes)));
    }
    for (field, code) in [
        (Field::ExitCode, c.exit_code),
        (Field::ExitCodeOnSigterm, c.exit_code_on_sigterm),
    ] {
        if !(0..=255).contains(&code) {
            return Err((Some(field), Rule::ExitCodeOver255(field, code)));
        }
    }
    let scripted_failure = c.fails > 0 || c.fail_probability != Probability::NEVER;
    if c.exit_code != 0 && c.run.is_none() && !scripted_failure {
        return Err((Some(Field::ExitCode), Rule::ExitCodeNeedsRun));
    }
    for kind in ProbeKind::ALL {
        let Some(p) = c.probe(kind) else { continue };
        let second = SimDuration::from_secs(1);
        let lengths = [
            (ProbeField::Period, Some(p.period)),
            (ProbeField::Timeout, Some(p.timeout)),
            (ProbeField::InitialDelay, Some(p.initial_delay)),
            (ProbeField::TerminationGracePeriod, p.termination_grace_period),
        ];
        let fraction = lengths
            .into_iter()
            .find_map(|(f, d)| d.filter(|d| d.floor_secs() != *d).map(|d| (f, d)));
        let (field, problem) = if p.period < second {
            (ProbeField::Period, ProbeProblem::PeriodUnderASecond)
        } else if p.timeout < second {
            (ProbeField::Timeout, ProbeProblem::TimeoutUnderASecond)
        } else if p.success_threshold == 0 || p.failure_threshold == 0 {
            let field = if p.success_threshold == 0 {
                ProbeField::SuccessThreshold
            } else {
                ProbeField::FailureThreshold
            };
            (field, ProbeProblem::ThresholdZero)
        } else if kind != ProbeKind::Readiness && p.success_threshold != 1 {
            (ProbeField::SuccessThreshold, ProbeProblem::SuccessThresholdNotOne)
        } else if kind == ProbeKind::Readiness && p.termination_grace_period.is_some() {
            (ProbeField::TerminationGracePeriod, ProbeProblem::GraceOnReadiness)
        } else if let Some((field, length)) = fraction {
            let field = Field::Probe(kind, field);
            return Err((Some(field), Rule::NotWholeSeconds(field, length)));
        } else {
            continue;
        };
        return Err((Some(Field::Probe(kind, field)), Rule::Probe(kind, problem)));
    }
    Ok(())
}

/// When a reader can check a rule: on the Pod's shape alone (its
/// containers' names and kinds, known before any timing is read), or only
/// once everything is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Shape,
    Timings,
}

type Check = fn(&PodSpec) -> Result<(), SpecProblem>;

/// Every rule of the Pod spec, in the order `check_spec` reports them.
const SPEC_RULES: [(Stage, Check); 7] = [
    (Stage::Shape, unique_names),
    (Stage::Timings, whole_grace),
    (Stage::Timings, containers),
    (Stage::Timings, job_restarts),
    (Stage::Timings, backoff_delays),
    (Stage::Timings, backoff_cap),
    (Stage::Shape, has_app),
];

fn pod_problem(field: Option<Field>, rule: Rule) -> Result<(), SpecProblem> {
    Err(SpecProblem {
        container: None,
        field,
        rule,
    })
}

fn unique_names(spec: &PodSpec) -> Result<(), SpecProblem> {
    for (i, c) in spec.containers.iter().enumerate() {
        if spec.containers[..i].iter().any(|o| o.name == c.name) {
            return Err(SpecProblem {
                container: Some(i),
                field: None,
                rule: Rule::DuplicateName,
            });
        }
    }
    Ok(())
}

fn containers(spec: &PodSpec) -> Result<(), SpecProblem> {
    for (i, c) in spec.containers.iter().enumerate() {
        check_container(spec, c).map_err(|(field, rule)| SpecProblem {
            container: Some(i),
            field,
            rule,
        })?;
    }
    Ok(())
}

fn whole_grace(spec: &PodSpec) -> Result<(), SpecProblem> {
    let grace = spec.termination_grace_period;
    if grace.floor_secs() != grace {
        let field = Field::TerminationGracePeriod;
        return pod_problem(Some(field), Rule::NotWholeSeconds(field, grace));
    }
    Ok(())
}

fn job_restarts(spec: &PodSpec) -> Result<(), SpecProblem> {
    if spec.mode == PodMode::Job && spec.restart_policy == RestartPolicy::Always {
        return pod_problem(Some(Field::RestartPolicy), Rule::JobRestartsAlways);
    }
    Ok(())
}

fn backoff_delays(spec: &PodSpec) -> Result<(), SpecProblem> {
    for (field, delay) in [
        (Field::BackoffInitial, spec.backoff.initial),
        (Field::BackoffCap, spec.backoff.cap),
    ] {
        if delay < SimDuration::from_secs(1) {
            return pod_problem(Some(field), Rule::BackoffUnderASecond(field));
        }
    }
    Ok(())
}

fn backoff_cap(spec: &PodSpec) -> Result<(), SpecProblem> {
    if spec.backoff.cap != Backoff::default().cap && spec.kubernetes.configurable_backoff_cap().is_none() {
        return pod_problem(Some(Field::BackoffCap), Rule::BackoffCapFixed(spec.kubernetes));
    }
    Ok(())
}

fn has_app(spec: &PodSpec) -> Result<(), SpecProblem> {
    if !spec.containers.iter().any(|c| c.kind == ContainerKind::App) {
        return pod_problem(None, Rule::NoApp);
    }
    Ok(())
}

/// The rules of `stage`, in order; the first one broken.
fn check_stage(spec: &PodSpec, stage: Option<Stage>) -> Result<(), SpecProblem> {
    SPEC_RULES
        .iter()
        .filter(|(s, _)| stage.is_none_or(|stage| *s == stage))
        .try_for_each(|(_, check)| check(spec))
}

/// The rules a typed spec must obey; the first one broken.
pub fn check_spec(spec: &PodSpec) -> Result<(), SpecProblem> {
    check_stage(spec, None)
}

/// The rules that only the containers' names and kinds can break, for a
/// reader that checks them before reading any timing.
pub fn check_shape(spec: &PodSpec) -> Result<(), SpecProblem> {
    check_stage(spec, Some(Stage::Shape))
}

/// The rest, once everything is read: after `check_shape` passed on the
/// same names and kinds, the problem `check_spec` would report.
pub fn check_timings(spec: &PodSpec) -> Result<(), SpecProblem> {
    check_stage(spec, Some(Stage::Timings))
}

//! Advice for a Job: whether it completes, and when a sidecar keeps it
//! from completing, the fix: a native sidecar where the cluster has them,
//! and the `podFailurePolicy` rule that keeps a sidecar's exit code from
//! failing it.
//!
//! Why these, and why not an `Ignore` rule: a sidecar stops a Job three
//! ways. Side by side (in `containers`) it is an app: if it never exits
//! the Pod stays Running and the Job never completes (R46); if it exits
//! non-zero (143 after the SIGTERM that ends it) the Pod is Failed (R44).
//! No `podFailurePolicy` rule helps either: the policy only says what a
//! Failed Pod counts for (J5), never that it succeeded, and `Ignore` only
//! retries the whole work, uncounted, for ever. A native sidecar does: the
//! kubelet stops it once the apps are done (R43) and its exit code is not
//! the Pod's (R44). The third way is a rule written for the app without
//! `containerName`: `onExitCodes` reads every container's code, native
//! sidecars' included (J5), so a sidecar's 143, on a Pod the app failed
//! for a reason the rule lets through, matches a `FailJob` meant for the
//! app. The fix is the rule itself, narrowed to the containers it was
//! meant for (one copy per container, in the status order the controller
//! reads, so the first match is the same for them); a rule put before it
//! for the sidecar (`Ignore` or `Count` on its 143) would match first on
//! every failed Pod whose sidecar was stopped, and hide the app's codes
//! from every rule after it.
//!
//! How: the Job is run over replications 0 to R − 1; replication 0's Pods
//! are read for the culprit (the container a stuck Pod waits on, a
//! side-by-side sidecar's non-zero exit, the rule that fired on a
//! sidecar's code); its fix is applied and the Job run again, at most
//! `ROUNDS` times, until nothing is left to fix.

use crate::model::job::{Action, JobOutcome, JobSimulator, Requirement};
use crate::model::{
    Change, ContainerId, ContainerKind, KubeVersion, Outcome, PodPhase, RunSpec, simulate_pod,
};

use super::layout::{Layout, native_available, with_layout};
use rayon::prelude::*;

/// Fixes applied one after another at most: a move, then a rule.
pub const ROUNDS: usize = 3;

/// What keeps the Job from completing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Culprit {
    /// A side-by-side container that never exits keeps the Pod Running (R46).
    Blocks(String),
    /// A side-by-side sidecar exited with this code and failed the Pod (R44).
    FailsPod(String, i32),
    /// Rule `rule`, with no `containerName`, matched this sidecar's code (J5).
    RuleOnSidecar {
        /// The rule's index.
        rule: usize,
        /// Its action.
        action: Action,
        /// The sidecar.
        container: String,
        /// Its exit code.
        code: i32,
    },
}

/// A change to the Job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fix {
    /// Move this container to `initContainers` with `restartPolicy: Always`.
    Native(String),
    /// Give rule `rule` a `containerName`: one copy for each of these.
    NarrowRule {
        /// The rule's index in today's rules.
        rule: usize,
        /// The containers it was meant for, in status order.
        to: Vec<String>,
    },
}

/// How the Job ended over the replications.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JobTally {
    /// Runs in which it was Complete.
    pub complete: u64,
    /// Runs in which it Failed.
    pub failed: u64,
    /// Runs in which it was still Running at the horizon.
    pub running: u64,
    /// Mean time to Complete over the runs that completed, ms.
    pub complete_ms: Option<f64>,
    /// Mean Pods per run.
    pub pods: f64,
}

/// The advice for a Job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobAdvice {
    /// The kubelet simulated.
    pub kubernetes: KubeVersion,
    /// Replications (R).
    pub replications: u64,
    /// The seed of every run.
    pub seed: u64,
    /// The Job as written.
    pub today: JobTally,
    /// What kept it from completing, in the order found.
    pub culprits: Vec<Culprit>,
    /// The fixes, in the order applied.
    pub fixes: Vec<Fix>,
    /// A culprit no fix reaches (a side-by-side sidecar before 1.29).
    pub unfixed: Option<Culprit>,
    /// The Job with the fixes.
    pub advised: JobTally,
    /// The Job with the fixes, to run again.
    pub spec: RunSpec,
    /// Every run simulated.
    pub runs: u64,
}

/// Advises the Job `run` over `replications` replications.
pub fn advise_job(run: &RunSpec, replications: u64) -> JobAdvice {
    let mut runs = 0;
    let mut tally = |spec: &RunSpec| {
        runs += replications;
        tally_of(spec, replications)
    };
    let today = tally(run);
    let (mut spec, mut advised) = (run.clone(), today);
    let (mut culprits, mut fixes, mut unfixed) = (Vec::new(), Vec::new(), None);
    for _ in 0..ROUNDS {
        let Some(culprit) = culprit(&spec) else { break };
        let Some(fix) = fix(&spec, &culprit) else {
            unfixed = Some(culprit);
            break;
        };
        spec = apply(&spec, &fix);
        culprits.push(culprit);
        fixes.push(fix);
        advised = tally(&spec);
    }
    JobAdvice {
        kubernetes: run.pod.kubernetes,
        replications,
        seed: run.stream.seed,
        today,
        culprits,
        fixes,
        unfixed,
        advised,
        spec,
        runs,
    }
}

fn tally_of(spec: &RunSpec, replications: u64) -> JobTally {
    let outcomes: Vec<(JobOutcome, u32)> = (0..replications)
        .into_par_iter()
        .map_init(
            || JobSimulator::new(spec.clone()),
            |sim, r| {
                sim.spec_mut().stream.replication = r;
                let (_, figures) = sim.run(|_, _| {});
                figures.map_or((JobOutcome::Running, 1), |f| (f.outcome, f.pods))
            },
        )
        .collect();
    let count = |f: fn(&JobOutcome) -> bool| outcomes.iter().filter(|(o, _)| f(o)).count() as u64;
    let done: Vec<u64> = (outcomes.iter())
        .filter_map(|(o, _)| match o {
            JobOutcome::Complete { at } => Some(at.as_millis()),
            _ => None,
        })
        .collect();
    JobTally {
        complete: count(|o| matches!(o, JobOutcome::Complete { .. })),
        failed: count(|o| matches!(o, JobOutcome::Failed { .. })),
        running: count(|o| matches!(o, JobOutcome::Running)),
        complete_ms: (!done.is_empty()).then(|| done.iter().sum::<u64>() as f64 / done.len() as f64),
        pods: outcomes.iter().map(|(_, p)| f64::from(*p)).sum::<f64>() / outcomes.len().max(1) as f64,
    }
}

/// A sidecar: native, or a proxy listed among the apps.
fn is_sidecar(run: &RunSpec, id: ContainerId) -> bool {
    let c = run.pod.container(id);
    c.kind == ContainerKind::Sidecar || (c.kind == ContainerKind::App && c.proxy)
}

/// What replication 0's Pods show keeps the Job from completing.
fn culprit(run: &RunSpec) -> Option<Culprit> {
    let report = simulate_pod(run);
    let job = report.job.as_ref()?;
    let name = |id: ContainerId| run.pod.container(id).name.clone();
    let traces = std::iter::once(&report.trace).chain(&job.later);
    for (pod, trace) in job.pods.iter().zip(traces) {
        if let Some(fired) = pod.fired
            && let Some((id, code)) = fired.exit
            && is_sidecar(run, id)
            && matches!(
                &run.job.pod_failure_policy[fired.rule].on,
                Requirement::ExitCodes { container: None, .. }
            )
            && fired.action != Action::Ignore
        {
            return Some(Culprit::RuleOnSidecar {
                rule: fired.rule,
                action: fired.action,
                container: name(id),
                code,
            });
        }
        if let Outcome::Stuck(id) = pod.outcome {
            // Stuck beside an app that finishes: a legacy sidecar, not the work.
            let finishes =
                (run.pod.containers.iter()).any(|c| c.kind == ContainerKind::App && c.run.is_some());
            return (finishes && run.pod.container(id).run.is_none()).then(|| Culprit::Blocks(name(id)));
        }
        let failed_by = trace.iter().find_map(|e| match (e.what, e.container) {
            (Change::Exited(reason), Some(id)) if reason.code() != 0 && is_sidecar(run, id) => {
                (run.pod.container(id).kind == ContainerKind::App).then_some((id, reason.code()))
            }
            _ => None,
        });
        if let (Some((id, code)), false) = (failed_by, pod.phase == PodPhase::Succeeded) {
            return Some(Culprit::FailsPod(name(id), code));
        }
    }
    None
}

/// The fix for `culprit`, if the cluster has one.
fn fix(run: &RunSpec, culprit: &Culprit) -> Option<Fix> {
    match culprit {
        Culprit::Blocks(c) | Culprit::FailsPod(c, _) => {
            native_available(run.pod.kubernetes).then(|| Fix::Native(c.clone()))
        }
        Culprit::RuleOnSidecar { rule, .. } => {
            // Apps first, then init containers: the order the controller reads (J5).
            let meant = |app: bool| {
                (run.pod.containers.iter().enumerate())
                    .filter(move |(_, c)| (c.kind == ContainerKind::App) == app)
                    .filter(|&(i, _)| !is_sidecar(run, ContainerId(i as u32)))
                    .map(|(_, c)| c.name.clone())
            };
            let to: Vec<String> = meant(true).chain(meant(false)).collect();
            // At most 20 rules (`validatePodFailurePolicy`); the rule is replaced by its copies.
            let fits = !to.is_empty() && run.job.pod_failure_policy.len() + to.len() <= 21;
            fits.then_some(Fix::NarrowRule { rule: *rule, to })
        }
    }
}

/// `run` with `fix` applied.
fn apply(run: &RunSpec, fix: &Fix) -> RunSpec {
    match fix {
        Fix::Native(c) => {
            let index = run.pod.find(c).expect("the culprit is a container").index();
            with_layout(run, index, Layout::Native)
        }
        Fix::NarrowRule { rule, to } => {
            let mut out = run.clone();
            let rules = &mut out.job.pod_failure_policy;
            let old = rules.remove(*rule);
            for (k, name) in to.iter().enumerate() {
                let mut copy = old.clone();
                if let Requirement::ExitCodes { container, .. } = &mut copy.on {
                    *container = run.pod.find(name);
                }
                rules.insert(rule + k, copy);
            }
            out
        }
    }
}

//! The Pod as the model sees it: validated container specs and pod settings,
//! and, in rooms of their own, the parts a container or a run adds to them:
//! probes (`probe`), restart rules (`restart_rule`), how a process answers
//! being stopped (`stop`), scripted actions (`action`), what one run of the
//! Pod reads besides (`run`), and the `Debug` form a grid's hash is made of
//! (`canonical`).
//!
//! Invariant: a `PodSpec` built by `scenario` is already valid (unique names,
//! at least one app, no hooks on init containers); the model still never
//! panics on an odd one, it only gives an odd answer.

mod action;
mod canonical;
mod probe;
mod restart_rule;
mod run;
mod stop;

pub use action::{ActionKind, ActionTime, NODE_DOWN, TimedAction};
pub use probe::{Probe, ProbeKind, ProbeOutcome};
pub use restart_rule::{ExitCodes, RestartRule, RuleAction};
pub use run::{PodRun, PodRunSpec};
pub use stop::{Disposition, Drain, Reaction, Signal};

use crate::engine::SimDuration;
use crate::model::dist::{Dist, Probability};
pub use crate::model::version::KubeVersion;

/// Index of a container in `PodSpec::containers`, which is declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContainerId(pub u32);

impl ContainerId {
    /// The position in `PodSpec::containers`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a container sits in the start order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContainerKind {
    /// A regular init container: runs to completion before the next starts.
    Init,
    /// A native sidecar (`initContainers` entry with `restartPolicy: Always`):
    /// lets the next init container start once it is started, keeps running,
    /// and stops after every app container.
    Sidecar,
    /// An app container (`containers` entry); all start together.
    App,
}

impl ContainerKind {
    crate::model::words::words! {
        /// The kinds as scenario files spell them.
        Init => "init",
        Sidecar => "sidecar",
        App => "app",
    }
}

/// The Pod's `spec.restartPolicy` (R9, R11); sidecars ignore it (R10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RestartPolicy {
    /// Restart every exited container (init containers only on failure).
    #[default]
    Always,
    /// Restart containers that exited non-zero.
    OnFailure,
    /// Restart nothing (but sidecars).
    Never,
}

impl RestartPolicy {
    crate::model::words::words! {
        /// The policies as Kubernetes spells them.
        Always => "Always",
        OnFailure => "OnFailure",
        Never => "Never",
    }
}

/// The CrashLoopBackOff curve (R14–R16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Backoff {
    /// The first non-zero delay (kubelet: 10 s).
    pub initial: SimDuration,
    /// The ceiling of the doubling (kubelet: 300 s, node-configurable).
    pub cap: SimDuration,
    /// The kubelet restarts after the first crash at once (R15, A1); the seed
    /// chapter waited `initial` already for the first restart.
    pub immediate_first_restart: bool,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            initial: SimDuration::from_secs(10),
            cap: SimDuration::from_secs(300),
            immediate_first_restart: true,
        }
    }
}

/// A run of the container longer than this resets its back-off (R16).
pub const BACKOFF_RESET_AFTER: SimDuration = SimDuration::from_secs(600);

impl Backoff {
    /// The wait before restart number `streak + 1` since the last reset.
    pub fn delay(&self, streak: u32) -> SimDuration {
        let doublings = if self.immediate_first_restart {
            if streak == 0 {
                return SimDuration::ZERO;
            }
            streak - 1
        } else {
            streak
        };
        let factor = 1u64.checked_shl(doublings.min(63)).unwrap_or(u64::MAX);
        SimDuration(self.initial.0.saturating_mul(factor).min(self.cap.0))
    }
}

/// When the Pod is deleted, if ever.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deletion {
    /// The Pod is never deleted.
    #[default]
    Never,
    /// At this instant after the Pod was created (`stop_at`).
    At(SimDuration),
    /// This long after the Pod first became Ready (`stop_after_ready`).
    AfterReady(SimDuration),
}

/// What the Pod is for: serving until deleted, or running to completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PodMode {
    /// Serves until deleted.
    #[default]
    Service,
    /// A Job's Pod: it completes when its apps have exited (R43–R45).
    Job,
}

impl PodMode {
    crate::model::words::words! {
        /// The modes as scenario files spell them.
        Service => "service",
        Job => "job",
    }
}

/// One container's script: how long each phase of its life takes. `Debug`
/// is in `canonical`: a grid's hash is made of it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ContainerSpec {
    /// Unique within the Pod.
    pub name: String,
    /// Where it sits in the start order.
    pub kind: ContainerKind,
    /// Init: start → exit 0. Sidecar and app: start → started. Drawn
    /// anew for each attempt, like every `Dist` of the container.
    pub boot: Dist,
    /// SIGTERM → exit, or never (R55).
    pub drain: Drain,
    /// The preStop hook and how long it runs, if the container has one; a
    /// hook of 0 s runs and returns at once (R58).
    pub pre_stop: Option<Dist>,
    /// The first `fails` attempts exit at the end of boot with
    /// `failure_code` (1 unless `exit_code` says otherwise).
    pub fails: u32,
    /// Every later attempt fails so at the end of boot with this probability.
    pub fail_probability: Probability,
    /// Carries the Pod's traffic; an app alive while no proxy is alive is exposed.
    pub proxy: bool,
    /// Startup, readiness and liveness probes, by `ProbeKind::index`.
    pub probes: [Option<Probe>; 3],
    /// Attempt i (from 1) crashes with exit 1 `crash_after[i - 1]` after it started.
    pub crash_after: Vec<Dist>,
    /// An app that finishes: it exits with `exit_code` this long after it is healthy.
    pub run: Option<Dist>,
    /// The code a finished `run` exits with, and a scripted failure's
    /// (`fails`, `fail_probability`) if it is not 0.
    pub exit_code: i32,
    /// The code it exits with when SIGTERM stops it in time (R54): 0 for a
    /// graceful handler, 143 (128 + 15) for a process the signal ends.
    pub exit_code_on_sigterm: i32,
    /// The signal the runtime stops it with: `lifecycle.stopSignal`
    /// (KEP-4960), SIGTERM by default (R59).
    pub stop_signal: Signal,
    /// The signal its process handles by draining (R59): SIGTERM unless said.
    pub drains_on: Signal,
    /// The container's own `restartPolicy` (KEP-5307), overriding the
    /// Pod's for an app or a regular init container; `None` follows the Pod.
    pub restart_policy: Option<RestartPolicy>,
    /// Its postStart hook, if it has one (R65): the container is not
    /// started, and the Pod's next start waits, until it returns.
    pub post_start: Option<PostStart>,
    /// The postStart hook fails when it returns: the kubelet kills the
    /// container and restarts it per policy (R66).
    pub post_start_fails: bool,
    /// Whether its image can be pulled (R67).
    pub image_pull: ImagePull,
    /// Its `restartPolicyRules`, tried in order on the exit code before its
    /// policy (R60, R61).
    pub restart_rules: Vec<RestartRule>,
}

/// How long a postStart hook runs (R65).
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum PostStart {
    /// This long after the start (a distribution draws it for each instance).
    For(Dist),
    /// Until the container's own boot is over: a hook that waits for its
    /// process to answer, as a mesh proxy's does (Istio's `pilot-agent
    /// wait`, Linkerd's `linkerd-await`) so that the apps after it start
    /// only once it serves. Written apart from a duration because it moves
    /// with the boot: a boot drawn at random, or swept, takes the hook along.
    UntilBooted,
}

impl PostStart {
    /// The word scenario files use for `UntilBooted`.
    pub const UNTIL_BOOTED: &'static str = "until-booted";
}

/// Whether a container's image pull succeeds (R67). The pull's own time is
/// part of `boot`; a failed pull takes none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ImagePull {
    /// The first pull succeeds.
    #[default]
    Pulls,
    /// This many pulls fail (ErrImagePull) before one succeeds.
    FailsFirst(u32),
    /// Every pull fails: the container never starts.
    Fails,
}

impl ImagePull {
    /// Whether pull number `failed + 1` fails, `failed` having failed before.
    pub fn fails_after(self, failed: u32) -> bool {
        match self {
            ImagePull::Pulls => false,
            ImagePull::FailsFirst(n) => failed < n,
            ImagePull::Fails => true,
        }
    }
}

/// The kubelet's image pull back-off (R67): 10 s after the first failed
/// pull, doubling, at most 300 s (`flowcontrol.NewBackOff(backOffPeriod,
/// MaxContainerBackOff)` in `kubelet.go`).
pub const IMAGE_BACKOFF: Backoff = Backoff {
    initial: SimDuration::from_secs(10),
    cap: SimDuration::from_secs(300),
    immediate_first_restart: false,
};

impl ContainerSpec {
    /// A container that boots in `boot` and otherwise takes no time: no
    /// drain, no hook, no failures, no probes.
    pub fn new(name: &str, kind: ContainerKind, boot: SimDuration) -> Self {
        ContainerSpec {
            name: name.to_string(),
            kind,
            boot: Dist::Fixed(boot),
            drain: Drain::default(),
            pre_stop: None,
            fails: 0,
            fail_probability: Probability::NEVER,
            proxy: false,
            probes: [None; 3],
            crash_after: Vec::new(),
            run: None,
            exit_code: 0,
            exit_code_on_sigterm: 0,
            stop_signal: Signal::Term,
            drains_on: Signal::Term,
            restart_policy: None,
            restart_rules: Vec::new(),
            post_start: None,
            post_start_fails: false,
            image_pull: ImagePull::Pulls,
        }
    }

    /// Its probe of `kind`, if it has one.
    pub fn probe(&self, kind: ProbeKind) -> Option<&Probe> {
        self.probes[kind.index()].as_ref()
    }

    /// With probes, `boot` is the time until the container answers them and
    /// the kubelet's view follows the probes (R21); without, the container is
    /// started when its boot (image pull, create, postStart) ends.
    pub fn has_probes(&self) -> bool {
        self.probes.iter().any(Option::is_some)
    }

    /// The code a scripted failure (`fails`, `fail_probability`) exits
    /// with: `exit_code`, or 1 where that is 0, a success. The kubelet reads
    /// any non-zero code of an init container as a failure
    /// (`isInitContainerFailed`, R4, R9).
    pub fn failure_code(&self) -> i32 {
        if self.exit_code == 0 { 1 } else { self.exit_code }
    }
}

/// Everything the Pod model needs to run one scenario. `Debug` is in
/// `canonical`: a grid's hash is made of it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PodSpec {
    /// `spec.restartPolicy` (R9, R11).
    pub restart_policy: RestartPolicy,
    /// `terminationGracePeriodSeconds`; the kubelet never uses less than 1 s (R33).
    pub termination_grace_period: SimDuration,
    /// When the Pod is deleted, if ever.
    pub deletion: Deletion,
    /// The node's CrashLoopBackOff curve.
    pub backoff: Backoff,
    /// Serving, or a Job's run to completion.
    pub mode: PodMode,
    /// Whose kubelet rules apply.
    pub kubernetes: KubeVersion,
    /// Declaration order: init-list order for init and sidecar containers.
    pub containers: Vec<ContainerSpec>,
    /// What `[[actions]]` scripts, in the order written (R70–R79).
    pub actions: Vec<TimedAction>,
}

impl PodSpec {
    /// Kubernetes' default `terminationGracePeriodSeconds`.
    pub const DEFAULT_GRACE: SimDuration = SimDuration::from_secs(30);

    /// A Pod of `containers` with Kubernetes' defaults, never deleted.
    pub fn new(containers: Vec<ContainerSpec>) -> Self {
        PodSpec {
            restart_policy: RestartPolicy::Always,
            termination_grace_period: Self::DEFAULT_GRACE,
            deletion: Deletion::Never,
            backoff: Backoff::default(),
            mode: PodMode::Service,
            kubernetes: KubeVersion::NEWEST,
            containers,
            actions: Vec::new(),
        }
    }

    /// The container `id` names.
    pub fn container(&self, id: ContainerId) -> &ContainerSpec {
        &self.containers[id.index()]
    }

    /// The container called `name`, if any.
    pub fn find(&self, name: &str) -> Option<ContainerId> {
        self.containers
            .iter()
            .position(|c| c.name == name)
            .map(|i| ContainerId(i as u32))
    }

    /// Exposure is measured only when the Pod declares a proxy and an app
    /// behind it; without a proxy the app serves directly and nothing is exposed.
    pub fn measures_exposure(&self) -> bool {
        self.containers.iter().any(|c| c.proxy)
            && self
                .containers
                .iter()
                .any(|c| c.kind == ContainerKind::App && !c.proxy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(b: Backoff, n: u32) -> Vec<u64> {
        (0..n).map(|s| b.delay(s).as_millis() / 1000).collect()
    }

    #[test]
    fn kubelet_curve_is_0_10_20_40_capped_at_300() {
        // R15: "0, 10, 20, 40, 80, 160, 300, 300 … s".
        assert_eq!(
            curve(Backoff::default(), 9),
            [0, 10, 20, 40, 80, 160, 300, 300, 300]
        );
    }

    #[test]
    fn seed_curve_is_1_2_4_8_capped() {
        let seed = Backoff {
            initial: SimDuration::from_secs(1),
            cap: SimDuration::from_secs(8),
            immediate_first_restart: false,
        };
        assert_eq!(curve(seed, 6), [1, 2, 4, 8, 8, 8]);
    }

    #[test]
    fn a_cap_below_initial_lowers_the_initial_delay() {
        // R18: "if it is below the initial delay, initial := max".
        let b = Backoff {
            cap: SimDuration::from_secs(5),
            ..Backoff::default()
        };
        assert_eq!(curve(b, 3), [0, 5, 5]);
    }

    #[test]
    fn huge_streaks_do_not_overflow() {
        assert_eq!(Backoff::default().delay(u32::MAX), SimDuration::from_secs(300));
    }
}

//! `podsim advise`: the smallest safe settings for a Service scenario, what
//! they buy and what they cost, found by a search rather than a grid.
//!
//! Why: a platform engineer wants to know what to set, not a CSV to read.
//! This first slice advises the two settings that decide whether deleting
//! a Pod of a Service hurts: the serving container's preStop sleep (the
//! endpoint race: the process must outlive every node's rules) and
//! terminationGracePeriodSeconds (SIGKILL must not cut the hook or the
//! drain after it); and, for a RollingUpdate, the strategy (maxSurge,
//! maxUnavailable, minReadySeconds). A Pod's start (where its proxy sits,
//! its startup probe) is `pod_start`'s, a Job's completion (a native
//! sidecar, a `podFailurePolicy` rule narrowed) `job`'s.
//!
//! How (each step's reason is in `search` and `measure`):
//!
//! 1. The preStop sleep: the smallest value on the grid 0, step, 2·step, …
//!    up to `PRE_STOP_TOP` for which the target holds (by default: the
//!    99th percentile of a run's failed requests is 0). Bisection assumes
//!    failed requests do not increase with a longer preStop: a longer sleep
//!    keeps the listener open longer and changes nothing else, since every
//!    candidate runs the same replications (common random numbers). While
//!    searching, the grace is raised to preStop + today's grace, so the
//!    hook is never cut and the drain after it keeps today's budget. The
//!    answer is then checked on fresh replications (R to 2R − 1) and
//!    walked up a step at a time while it fails there.
//! 2. The grace, with that preStop: the smallest whole number of seconds,
//!    never below today's, that is at least the hook (the API refuses a
//!    `sleep` longer than the grace; a shorter grace cuts the hook) and
//!    with which no container of any replication is SIGKILLed. A longer
//!    grace never brings a SIGKILL sooner, so bisection holds here too.
//! 3. A RollingUpdate's strategy, with that preStop and grace: every
//!    combination of a bounded set (`rollout`), since none of the three
//!    is known to move failed requests, ready endpoints or the rollout's
//!    time one way (the brute-force fallback, `search::Order`); the
//!    fastest that keeps the target and the ready floor, or, with a
//!    rollout-time budget, the one with the fewest Pods at once within it.
//!    A screening on a prefix of the replications first drops the
//!    strategies sure to be unsafe on all of them, which keeps the brute
//!    force's answer at a fraction of its runs (`rollout::screen`).
//!
//! A percentile target is judged by nearest rank, or with `--confidence`
//! by a binomial test on enough replications (`confidence`).
//!
//! Keys are set through the key registry (`Key::set`), as a grid axis sets
//! them, so a new setting to advise is a key, and a new target a metric.
//!
//! Invariant: every simulated run is counted (`Advice::runs`), and the
//! advice's figures (today's, the advised) come from the same
//! replications 0 to R − 1.

mod confidence;
mod job;
mod layout;
mod measure;
mod pod_start;
mod question;
mod rollout;
mod search;
mod steps;

pub use confidence::{P99_EXCESS, allowed_exceedances, replications_for};
pub use measure::{Measured, Measurer, Point, RolloutPoint, Run, Sample};
pub use question::{ASSUMED_AFTER_READY, ASSUMED_RATE, assume_question};
pub use rollout::{MIN_READY_SECONDS, RolloutAdvice, RolloutFigures};
pub use search::{Checked, Order, WALK, bisect, confirm, rank, smallest};
pub use steps::{advise, advise_within};

pub use job::{Culprit, Fix, JobAdvice, JobTally, ROUNDS, advise_job};
pub use layout::{Layout, native_available, with_layout};
pub use pod_start::{NotStart, PERIODS, ProbeAdvice, StartAdvice, StartFigures, THRESHOLD_TOP, advise_start};

use crate::engine::{Halt, SimDuration};
use crate::model::service::Cause;
use crate::model::{Dist, KubeVersion};

/// The longest preStop searched: two minutes covers every propagation
/// preset's p99 (the `large` preset's is 30 s) with room to spare.
pub const PRE_STOP_TOP: SimDuration = SimDuration::from_secs(120);

/// The default step of the preStop grid: whole seconds, as the native
/// `sleep` action takes them.
pub const DEFAULT_STEP: SimDuration = SimDuration::from_secs(1);

/// The default number of replications per candidate. The 99th percentile
/// by nearest rank of R values is the ⌈0.99·R⌉-th smallest: below 100
/// replications that is the largest, a worst case rather than a
/// percentile. At 300 it is the 297th, with three replications above it,
/// so one unlucky draw does not decide the answer, and a candidate costs
/// about a tenth of a second on two cores.
pub const DEFAULT_REPLICATIONS: u64 = 300;

/// How much grace above preStop + today's grace the grace search looks:
/// a drain that needs more than five extra minutes is not one a grace
/// should wait for.
pub const GRACE_HEADROOM: SimDuration = SimDuration::from_secs(300);

/// What "safe" means: a bound on a run's failed requests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The 99th percentile (nearest rank) of failed requests per run is at most this.
    FailedP99(u64),
    /// The mean of failed requests per run is at most this.
    FailedMean(f64),
}

impl Target {
    /// Whether `sample` meets the target.
    pub fn holds(self, sample: &Sample) -> bool {
        match self {
            Target::FailedP99(n) => sample.failed_percentile(99) <= n,
            Target::FailedMean(x) => sample.failed_mean() <= x,
        }
    }

    /// The target's metric of `sample`, as a number a person reads.
    pub fn metric(self, sample: &Sample) -> f64 {
        match self {
            Target::FailedP99(_) => sample.failed_percentile(99) as f64,
            Target::FailedMean(_) => sample.failed_mean(),
        }
    }

    /// The metric's name: `failed p99` or `failed mean`.
    pub fn name(self) -> &'static str {
        match self {
            Target::FailedP99(_) => "failed p99",
            Target::FailedMean(_) => "failed mean",
        }
    }

    /// The bound.
    pub fn bound(self) -> f64 {
        match self {
            Target::FailedP99(n) => n as f64,
            Target::FailedMean(x) => x,
        }
    }
}

/// What to search and how hard.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// What safe means.
    pub target: Target,
    /// Replications per candidate (R); the fresh check runs R more.
    pub replications: u64,
    /// The preStop grid's step (at least 1 ms).
    pub step: SimDuration,
    /// A percentile target holds by a binomial test at this confidence
    /// (`confidence`), not by nearest rank; `None`: by nearest rank.
    pub confidence: Option<f64>,
    /// A rollout never leaves fewer ready endpoints than this; `None`:
    /// the replicas less today's maxUnavailable (what the user accepts).
    pub min_ready: Option<u32>,
    /// A rollout's p99 (start → last old Pod gone) is at most this; with
    /// it the strategy advised is the one with the fewest Pods at once
    /// within it, else the fastest.
    pub max_rollout: Option<SimDuration>,
    /// Screen the rollout strategies on a prefix of the replications
    /// before running the survivors on all R (`rollout`); `false`: run
    /// every strategy on all R, as a brute-force grid does. The answer is
    /// the same either way; only the runs differ.
    pub screen: bool,
}

impl Request {
    /// The request with the defaults: `target`, R replications, a 1 s step.
    pub fn new(target: Target, replications: u64) -> Request {
        Request {
            target,
            replications,
            step: DEFAULT_STEP,
            confidence: None,
            min_ready: None,
            max_rollout: None,
            screen: true,
        }
    }

    /// Whether `sample` meets the target: a percentile by `within`, a mean as it is.
    pub fn holds(&self, sample: &Sample) -> bool {
        match (self.target, self.confidence) {
            (Target::FailedP99(bound), Some(_)) => self.within(sample.runs.iter().map(|r| r.failed), bound),
            (target, _) => target.holds(sample),
        }
    }

    /// Whether the 99th percentile of `values` is at most `bound`: few
    /// enough exceed it (`confidence::allowed_exceedances`).
    pub fn within(&self, values: impl ExactSizeIterator<Item = u64>, bound: u64) -> bool {
        let runs = values.len() as u64;
        !self.exceeds(values, bound, runs)
    }

    /// Whether the 99th percentile of `full` values that begin with
    /// `values` must be above `bound`, whatever the rest are: more of
    /// these exceed it than `full` values may. Why it is exact: the
    /// exceedances only grow as values are added, and the verdict on
    /// `full` values is a bound on their count. With `full` the count of
    /// `values`, it is `!within`.
    pub fn exceeds(&self, values: impl Iterator<Item = u64>, bound: u64, full: u64) -> bool {
        let over = values.filter(|&v| v > bound).count() as u64;
        allowed_exceedances(full, P99_EXCESS, self.confidence).is_none_or(|allowed| over > allowed)
    }

    /// Whether a sample of `full` runs that begins with `sample`'s runs
    /// must miss the target, whatever the other runs are (a screening's
    /// verdict, `rollout`): a percentile by `exceeds`; a mean when these
    /// runs' failures alone, shared over `full` runs, are above it (no
    /// run fails fewer than none). With `full` the sample's own runs, it
    /// is `!holds`.
    pub fn misses(&self, sample: &Sample, full: u64) -> bool {
        let failed = sample.runs.iter().map(|r| r.failed);
        match self.target {
            Target::FailedMean(x) => failed.sum::<u64>() as f64 / full as f64 > x,
            Target::FailedP99(bound) => self.exceeds(failed, bound, full),
        }
    }
}

/// Why a scenario cannot be advised.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotAdvised {
    /// No Service: the preStop and the grace are a Service's settings.
    #[error(
        "the preStop sleep and the grace are advised for a Service scenario: give it a [service] table, or a \
         Deployment with its Service"
    )]
    NotService,
    /// No app container to serve the requests (every app is a proxy).
    #[error("the Pod has no app container that serves the Service's requests (one that is not a proxy)")]
    NoServingApp,
    /// The limits the caller set (`podsim serve`'s budget) halted a run.
    #[error("a run was halted by the limits it ran under")]
    Halted(Halt),
}

/// How one setting's search went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// Values on its grid: what a brute-force sweep of the range runs.
    pub values: u64,
    /// Values the search ran (bisection and fresh check together).
    pub evaluated: u64,
    /// The bisection's answer on replications 0 to R − 1, if any value was safe.
    pub bisected: Option<SimDuration>,
    /// The fresh check of that answer, if there was one.
    pub checked: Option<Checked>,
}

/// The preStop sleep advised.
#[derive(Clone, Debug, PartialEq)]
pub struct PreStopAdvice {
    /// The key, as a grid axis names it (`containers.web.pre_stop`).
    pub path: String,
    /// Today's hook, if the container has one.
    pub today: Option<Dist>,
    /// The smallest safe value, held on fresh replications; `None` when
    /// no value in range is safe (or none held on fresh replications).
    pub advised: Option<SimDuration>,
    /// How the search went.
    pub searched: Searched,
    /// The failures left at the top of the range (mean per run, by cause)
    /// when even `PRE_STOP_TOP` is not safe.
    pub left_at_top: Vec<(Cause, f64)>,
    /// The failures one step below the advice (mean per run, by cause),
    /// on the replications that rejected that value: what decides it.
    pub decided_by: Vec<(Cause, f64)>,
    /// The app keeps kept-alive connections serving after SIGTERM until
    /// they sit idle (`on_sigterm = "close-keep-busy"`): a preStop then
    /// buys the clients time to drop them, not the nodes time to drop it.
    pub keeps_busy: bool,
    /// The Pod's proxy, when the app's preStop alone met no target and
    /// this searched the same sleep on both: the proxy must outlive the
    /// endpoint race as the app must (`steps::with_proxy`).
    pub proxy: Option<ProxyHook>,
}

/// The Pod's proxy, whose preStop is advised with the app's.
#[derive(Clone, Debug, PartialEq)]
pub struct ProxyHook {
    /// Its container's name (the patch's strategic merge goes by it).
    pub container: String,
    /// Its hook today, if it has one.
    pub today: Option<Dist>,
}

/// terminationGracePeriodSeconds advised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraceAdvice {
    /// The key, as a grid axis names it.
    pub path: String,
    /// Today's grace.
    pub today: SimDuration,
    /// The smallest safe whole-second grace (never below today's): the
    /// smallest with no SIGKILL, or, when SIGKILL stays at every grace
    /// (`kills_remain`), the advised preStop + today's grace, with which
    /// the preStop was found; `None` when neither exists.
    pub advised: Option<SimDuration>,
    /// No grace up to `top` keeps SIGKILL away.
    pub kills_remain: bool,
    /// The largest grace searched.
    pub top: SimDuration,
    /// Runs with a SIGKILL at `top`, when nothing was safe.
    pub killed_at_top: u64,
    /// Runs with a SIGKILL at today's grace with the advised preStop.
    pub killed_today: u64,
    /// How the search went.
    pub searched: Searched,
    /// A disruption's own `grace_period` (`kubectl delete --grace-period`)
    /// overrides the Pod's for the Pod it deletes.
    pub overridden: bool,
}

/// The advice for one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    /// The serving container's name.
    pub container: String,
    /// The kubelet simulated: whether the native `sleep` action exists.
    pub kubernetes: KubeVersion,
    /// The request it answers.
    pub request: Request,
    /// The seed of every run.
    pub seed: u64,
    /// The preStop sleep.
    pub pre_stop: PreStopAdvice,
    /// The grace period.
    pub grace: GraceAdvice,
    /// A RollingUpdate's strategy, in a scenario with one.
    pub rollout: Option<RolloutAdvice>,
    /// The scenario as written, over replications 0 to R − 1.
    pub today: Sample,
    /// The scenario with the advised values, over the same replications.
    pub advised: Sample,
    /// Every run simulated.
    pub runs: u64,
    /// Every candidate the search ran, in the order first run: what the
    /// frontier picture draws.
    pub measured: Vec<Measured>,
}

impl Advice {
    /// The runs a brute-force grid over the same ranges would take: every
    /// value of each setting, R replications each; the preStop's range
    /// twice when the proxy's was searched too (once on the app alone,
    /// once on both, as the search ran it).
    pub fn grid_runs(&self) -> u64 {
        let rollout = self.rollout.as_ref().map_or(0, |r| r.candidates);
        (self.pre_stop_values() + self.grace.searched.values + rollout) * self.request.replications
    }

    /// The preStop values a grid runs: its range, once per container set searched.
    pub fn pre_stop_values(&self) -> u64 {
        let searches = 1 + u64::from(self.pre_stop.proxy.is_some());
        self.pre_stop.searched.values * searches
    }
}

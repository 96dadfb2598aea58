//! What a Service run measures: requests, failures by cause (A.3), the
//! endpoints left, and each deleted Pod's timings.
//!
//! Invariant: `failed` is the sum of `failed_by`, and a request is counted
//! once: as failed with the cause of its last try, or as answered (and, if
//! a retry answered it, in `retried_ok` too).

use crate::engine::SimTime;
use crate::model::pod::Metrics;

/// Why a request failed (disruption-model.md A.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cause {
    /// The endpoint race: the rule still points at a Pod whose listener closed (RST).
    Refused,
    /// No endpoint in the node's rules: REJECT.
    NoEndpoints,
    /// The rule points at a Pod whose IP is gone: the SYN goes unanswered.
    Timeout,
    /// In progress when the process exited or was SIGKILLed.
    Inflight,
    /// Sent on a kept-alive connection its process's death had reset: in
    /// that instant, or later by a client that does not check (`fails-next`).
    Reset,
    /// Sent on a kept-alive connection the server closed: in that instant
    /// (the race), or later by a client that does not check.
    KeepaliveRace,
    /// Routed to a Pod of a lost node (issue 40): no host answers, not
    /// even with a RST, so the client's timeout decides (a SYN's connect
    /// timeout, or a request's own).
    Unreachable,
}

impl Cause {
    /// Every cause, in the order the CSV's columns list them.
    pub const ALL: [Cause; 7] = [
        Cause::Refused,
        Cause::NoEndpoints,
        Cause::Timeout,
        Cause::Inflight,
        Cause::Reset,
        Cause::KeepaliveRace,
        Cause::Unreachable,
    ];

    /// The CSV column of the cause's count.
    pub fn column(self) -> &'static str {
        match self {
            Cause::Refused => "failed_refused",
            Cause::NoEndpoints => "failed_no_endpoints",
            Cause::Timeout => "failed_timeout",
            Cause::Inflight => "failed_inflight",
            Cause::Reset => "failed_reset",
            Cause::KeepaliveRace => "failed_keepalive_race",
            Cause::Unreachable => "failed_unreachable",
        }
    }

    /// The cause in JSON and on the timeline.
    pub fn name(self) -> &'static str {
        &self.column()["failed_".len()..]
    }
}

/// One failed request, for `--format json` and the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedRequest {
    /// When it failed (for a timeout, when the connect attempt gave up).
    pub at: SimTime,
    /// When it was sent.
    pub sent: SimTime,
    /// Why it failed.
    pub cause: Cause,
    /// The replica it was routed to, if it got that far.
    pub replica: Option<u32>,
    /// The client that sent it, from 0.
    pub client: u32,
}

/// What a client's retries did: every try sent again, by the cause of the
/// try that failed, and the latency they added to the requests a retry
/// answered. Reported for a client other than `ideal` untouched (whose runs
/// keep their bytes, `retried_ok` counting its one retry as before).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetryFigures {
    /// By `Cause::ALL` order: tries sent again after a try failed so (the
    /// names list the first six: a lost node's come with its figures).
    pub retried_by: [u64; 7],
    /// Over the requests a retry answered: the time from their first send
    /// to the answered try's, summed.
    pub extra_ms: u64,
    /// The same, at most.
    pub extra_max_ms: u64,
}

impl RetryFigures {
    /// The names, after the Service's own (JSON, the report's table).
    pub const NAMES: [&'static str; 9] = [
        "retries",
        "retried_refused",
        "retried_no_endpoints",
        "retried_timeout",
        "retried_inflight",
        "retried_reset",
        "retried_keepalive_race",
        "retry_extra_ms",
        "retry_extra_max_ms",
    ];

    /// Tries sent again, every cause together.
    pub fn retries(&self) -> u64 {
        self.retried_by.iter().sum()
    }

    /// The cells in `NAMES` order.
    pub fn numbers(&self) -> [Option<u64>; 9] {
        let by = self.retried_by.map(Some);
        [
            Some(self.retries()),
            by[0],
            by[1],
            by[2],
            by[3],
            by[4],
            by[5],
            Some(self.extra_ms),
            Some(self.extra_max_ms),
        ]
    }
}

/// What a hop did: its own retries, its error answers by code, and how
/// late its view dropped the deleted Pods. Reported for a run with a hop
/// (JSON, the report), not in the CSV, whose columns every Service grid shares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HopFigures {
    /// Tries the hop sent to its next upstream.
    pub retries: u64,
    /// By `Status::ALL` order: requests the hop answered with 502, 503, 504.
    pub answered: [u64; 3],
    /// The latest, over the deleted Pods, from the deletion to the hop's
    /// view dropping the Pod; `None` while one was never dropped.
    pub dropped_ms: Option<u64>,
}

impl HopFigures {
    /// The names, after the Service's own (JSON, the report's table).
    pub const NAMES: [&'static str; 5] = ["hop_retries", "hop_502", "hop_503", "hop_504", "hop_dropped_ms"];

    /// The cells in `NAMES` order.
    pub fn numbers(&self) -> [Option<u64>; 5] {
        let a = self.answered.map(Some);
        [Some(self.retries), a[0], a[1], a[2], self.dropped_ms]
    }
}

/// The crashes' figures (`[[disruptions]] crash`), for the CSV (after the
/// Service's columns) and JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrashFigures {
    /// Apps that crashed while their process ran, booting or serving (a
    /// crash that found its app down, in its back-off, is not one).
    pub crashes: u64,
}

impl CrashFigures {
    /// The CSV columns, in row order.
    pub const NAMES: [&'static str; 1] = ["crashes"];

    /// The cells in `NAMES` order.
    pub fn numbers(&self) -> [Option<u64>; 1] {
        [Some(self.crashes)]
    }
}

/// One disruption's deleted Pod, as the Service saw it go (or one its
/// node's kubelet killed in a graceful shutdown: `shut_down`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deleted {
    /// The replica deleted, from 0.
    pub replica: u32,
    /// Not deleted: killed by its node's kubelet in a graceful shutdown,
    /// its phase Failed once its containers stopped (`deleted_ms` is the
    /// kill, and the instants below count from it).
    pub shut_down: bool,
    /// When `kubectl delete` ran.
    pub deleted_ms: u64,
    /// Deletion → last container exited.
    pub termination_ms: Option<u64>,
    /// Deletion → the last request routed to it (new connection or reused).
    pub last_request_ms: Option<u64>,
    /// Per node, deletion → its rules no longer list the Pod.
    pub rules_dropped_ms: Vec<Option<u64>>,
    /// Deletion → the hop's view no longer lists the Pod (a run with a hop).
    pub hop_dropped_ms: Option<u64>,
}

impl Deleted {
    /// How its Pod ended, as the run's text says it: a shut-down Pod was
    /// never deleted.
    pub fn how(&self) -> &'static str {
        if self.shut_down {
            "failed by node shutdown"
        } else {
            "deleted"
        }
    }
}

/// The figures of one Service run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceMetrics {
    /// When traffic started: every replica Ready in every node's rules.
    pub ready_ms: Option<u64>,
    /// Requests sent (retries not counted again).
    pub requests: u64,
    /// Requests that failed, every cause together.
    pub failed: u64,
    /// By `Cause::ALL` order.
    pub failed_by: [u64; 7],
    /// Requests that failed once and succeeded on the retry.
    pub retried_ok: u64,
    /// The retries' figures, for a client other than `ideal` untouched.
    /// Boxed: most runs have none, and a `RunReport` holds the metrics by value.
    pub retry: Option<Box<RetryFigures>>,
    /// The hop's figures, in a run with a hop.
    pub hop: Option<Box<HopFigures>>,
    /// Over the traffic's span, the fewest ready endpoints in the slice.
    pub min_ready_endpoints: Option<u32>,
    /// Over the traffic's span, time with no ready endpoint.
    pub zero_endpoints_ms: u64,
    /// The rollout's figures, in a scenario with a rollout.
    pub rollout: Option<super::RolloutFigures>,
    /// The drains' figures, in a scenario with a drain or a lost node.
    pub drain: Option<super::DrainFigures>,
    /// The lost nodes' figures, in a scenario that loses one.
    pub node: Option<Box<super::NodeFigures>>,
    /// The crashes' figures, in a scenario with a crash and neither a
    /// rollout nor a drain (whose CSV columns are theirs: `Table::of`).
    pub crash: Option<CrashFigures>,
    /// One per Pod deleted: by a disruption, or by a rollout's ReplicaSet.
    pub deleted: Vec<Deleted>,
    /// Each replica's own Pod metrics.
    pub replicas: Vec<Metrics>,
    /// When the run ended, and whether the horizon cut it.
    pub end_ms: u64,
    /// The horizon cut the run short.
    pub horizon: bool,
}

impl ServiceMetrics {
    /// The CSV columns, in row order.
    pub const NAMES: [&'static str; 17] = [
        "ready_ms",
        "requests",
        "failed",
        "failed_refused",
        "failed_no_endpoints",
        "failed_timeout",
        "failed_inflight",
        "failed_reset",
        "failed_keepalive_race",
        "retried_ok",
        "min_ready_endpoints",
        "zero_endpoints_ms",
        "last_request_to_deleted_ms",
        "termination_ms",
        "sigkilled",
        "outcome",
        "end_ms",
    ];

    /// Requests that failed for `cause`.
    pub fn failed_of(&self, cause: Cause) -> u64 {
        self.failed_by[cause as usize]
    }

    /// The latest of the deleted Pods' last requests.
    pub fn last_request_to_deleted_ms(&self) -> Option<u64> {
        self.deleted.iter().filter_map(|d| d.last_request_ms).max()
    }

    /// The slowest deleted Pod's termination.
    pub fn termination_ms(&self) -> Option<u64> {
        self.deleted.iter().filter_map(|d| d.termination_ms).max()
    }

    /// Containers SIGKILLed, all replicas together.
    pub fn sigkilled(&self) -> u32 {
        self.replicas.iter().map(|m| m.sigkilled).sum()
    }

    /// How the run ended, as the CSV writes it.
    pub fn outcome(&self) -> &'static str {
        if self.horizon { "horizon" } else { "settled" }
    }

    /// The cells in `NAMES` order: a number, or `None` for an empty cell,
    /// except `outcome`, which `outcome()` writes.
    pub fn numbers(&self) -> [Option<u64>; 17] {
        let f = |c: Cause| Some(self.failed_of(c));
        [
            self.ready_ms,
            Some(self.requests),
            Some(self.failed),
            f(Cause::Refused),
            f(Cause::NoEndpoints),
            f(Cause::Timeout),
            f(Cause::Inflight),
            f(Cause::Reset),
            f(Cause::KeepaliveRace),
            Some(self.retried_ok),
            self.min_ready_endpoints.map(u64::from),
            Some(self.zero_endpoints_ms),
            self.last_request_to_deleted_ms(),
            self.termination_ms(),
            Some(u64::from(self.sigkilled())),
            None,
            Some(self.end_ms),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cause_names_are_their_columns_without_the_prefix() {
        let names: Vec<&str> = Cause::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(
            names,
            [
                "refused",
                "no_endpoints",
                "timeout",
                "inflight",
                "reset",
                "keepalive_race",
                "unreachable"
            ]
        );
        for (i, c) in Cause::ALL[..6].iter().enumerate() {
            assert_eq!(ServiceMetrics::NAMES[3 + i], c.column());
        }
        assert_eq!(super::super::NodeFigures::NAMES[0], Cause::Unreachable.column());
    }
}

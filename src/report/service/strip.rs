//! The request strip's facts: every request of a Service run at the
//! instant it was sent, answered or failed by cause, one by one or counted
//! per column of time when there are too many to draw one by one. The SVG
//! and the terminal chart both read it, so they count alike.
//!
//! Invariant: each request the run recorded (its answered ones' `SentTimes`,
//! its `RequestFailed` changes) is
//! counted once, in exactly one column: the counts per outcome add up to
//! the run's metrics. A busy run keeps its answered requests counted per
//! bucket of time (`SentTimes`), and a bucket's requests fall in the
//! column of the bucket's start.

use crate::engine::SimTime;
use crate::model::service::{Cause, FailedRequest, FailedSpan, SentTimes, ServiceReport};

/// What became of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Its answer came back.
    Answered,
    /// It failed, for this cause.
    Failed(Cause),
}

impl Outcome {
    /// Every outcome, in the strip's lane order (the CSV's order of causes).
    pub const ALL: [Outcome; 8] = [
        Outcome::Answered,
        Outcome::Failed(Cause::Refused),
        Outcome::Failed(Cause::NoEndpoints),
        Outcome::Failed(Cause::Timeout),
        Outcome::Failed(Cause::Inflight),
        Outcome::Failed(Cause::Reset),
        Outcome::Failed(Cause::KeepaliveRace),
        Outcome::Failed(Cause::Unreachable),
    ];

    /// The outcomes a legend of `report` lists: all of them where a node
    /// was lost, else all but `unreachable`, which no other run can have
    /// (its pictures keep their bytes).
    pub fn in_legend(report: &ServiceReport) -> &'static [Outcome] {
        match report.metrics.node {
            Some(_) => &Outcome::ALL,
            None => &Outcome::ALL[..7],
        }
    }

    /// Its place in `ALL`.
    pub fn index(self) -> usize {
        match self {
            Outcome::Answered => 0,
            Outcome::Failed(cause) => 1 + cause as usize,
        }
    }

    /// `answered`, or the cause's name as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Answered => "answered",
            Outcome::Failed(cause) => cause.name(),
        }
    }

    /// The colour of its marks: grey for the answered, a colour per cause.
    pub fn color(self) -> &'static str {
        match self {
            Outcome::Answered => "#9e9e9e",
            Outcome::Failed(Cause::Refused) => "#d62728",
            Outcome::Failed(Cause::NoEndpoints) => "#7b1fa2",
            Outcome::Failed(Cause::Timeout) => "#ff7f0e",
            Outcome::Failed(Cause::Inflight) => "#1f77b4",
            Outcome::Failed(Cause::Reset) => "#8c564b",
            Outcome::Failed(Cause::KeepaliveRace) => "#e377c2",
            Outcome::Failed(Cause::Unreachable) => "#17becf",
        }
    }

    /// Its glyph in the terminal chart's failed row (`·` for answered).
    pub fn glyph(self) -> char {
        match self {
            Outcome::Answered => '·',
            Outcome::Failed(Cause::Refused) => 'r',
            Outcome::Failed(Cause::NoEndpoints) => 'n',
            Outcome::Failed(Cause::Timeout) => 't',
            Outcome::Failed(Cause::Inflight) => 'i',
            Outcome::Failed(Cause::Reset) => 'e',
            Outcome::Failed(Cause::KeepaliveRace) => 'k',
            Outcome::Failed(Cause::Unreachable) => 'u',
        }
    }
}

/// One request on the strip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// When it was sent: where the strip draws it.
    pub at: SimTime,
    /// What became of it.
    pub outcome: Outcome,
    /// The failure's record, if it failed.
    pub failure: Option<FailedRequest>,
}

/// Every request of `report`, in the order they were sent (the answered
/// first at a shared instant), if the run kept each answered request's
/// instant (`SentTimes::exact`: every run but the busiest).
pub fn requests(report: &ServiceReport) -> Option<Vec<Sent>> {
    let answered = report.trace.answered().exact()?.iter().map(|&at| Sent {
        at,
        outcome: Outcome::Answered,
        failure: None,
    });
    let failed = report.trace.failures().map(|f| Sent {
        at: f.sent,
        outcome: Outcome::Failed(f.cause),
        failure: Some(f),
    });
    let mut all: Vec<Sent> = answered.chain(failed).collect();
    all.sort_by_key(|s| (s.at, s.outcome.index()));
    Some(all)
}

/// Requests per column and outcome (`Outcome::index` order): `columns`
/// columns, request instants placed by `column_of` (clamped to the last).
pub fn counts(report: &ServiceReport, columns: usize, column_of: impl Fn(SimTime) -> usize) -> Vec<[u64; 8]> {
    tally(
        report.trace.answered(),
        report.trace.failure_spans(),
        columns,
        column_of,
    )
}

/// How many requests of each outcome `report` holds.
pub fn totals(report: &ServiceReport) -> [u64; 8] {
    counts(report, 1, |_| 0)[0]
}

fn tally(
    answered: &SentTimes,
    failures: impl IntoIterator<Item = FailedSpan>,
    columns: usize,
    column_of: impl Fn(SimTime) -> usize,
) -> Vec<[u64; 8]> {
    let mut counts = vec![[0u64; 8]; columns];
    if columns == 0 {
        return counts;
    }
    let mut add = |at: SimTime, outcome: Outcome, n: u64| {
        counts[column_of(at).min(columns - 1)][outcome.index()] += n;
    };
    answered.each(|at, n| add(at, Outcome::Answered, n));
    for span in failures {
        span.each(|f, n| add(f.sent, Outcome::Failed(f.cause), n));
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sent: u64) -> FailedRequest {
        FailedRequest {
            at: SimTime(sent + 1),
            sent: SimTime(sent),
            cause: Cause::Refused,
            replica: Some(0),
            client: 0,
        }
    }

    #[test]
    fn every_request_lands_in_one_column_and_late_ones_in_the_last() {
        let mut answered = SentTimes::default();
        answered.note(SimTime(0));
        answered.note(SimTime(999));
        let failures = [refused(1000), refused(5000)].map(|first| FailedSpan {
            first,
            to: first.sent,
            n: 1,
        });
        let c = tally(&answered, failures, 2, |t| (t.as_millis() / 1000) as usize);
        assert_eq!(c[0], [2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(c[1], [0, 2, 0, 0, 0, 0, 0, 0]);
        assert_eq!(tally(&answered, failures, 1, |_| 0)[0], [2, 2, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn requests_counted_per_bucket_land_in_their_buckets_column() {
        // 100,000 requests, one a millisecond from 0: past the instants kept
        // one by one, in 2 ms buckets (99,999 ms needs 2 ms to fit 65,536
        // buckets). Columns of 1,000 ms start on even instants, so no bucket
        // straddles one: 1,000 answered requests a column, as one by one.
        let mut answered = SentTimes::default();
        for ms in 0..100_000 {
            answered.note(SimTime(ms));
        }
        assert_eq!(answered.exact(), None);
        let c = tally(&answered, [], 100, |t| (t.as_millis() / 1000) as usize);
        assert!(c.iter().all(|col| col[0] == 1000), "{:?}", &c[..3]);
    }

    #[test]
    fn outcomes_index_their_lanes() {
        for (i, o) in Outcome::ALL.iter().enumerate() {
            assert_eq!(o.index(), i);
        }
    }
}

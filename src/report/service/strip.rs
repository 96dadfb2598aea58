//! The request strip's facts: every request of a Service run at the
//! instant it was sent, answered or failed by cause, one by one or counted
//! per column of time when there are too many to draw one by one. The SVG
//! and the terminal chart both read it, so they count alike.
//!
//! Invariant: each request the run recorded (`answered`, `failures`) is
//! one entry, and falls in exactly one column: the counts per outcome add
//! up to the run's metrics.

use crate::engine::SimTime;
use crate::model::service::{Cause, FailedRequest, ServiceReport};

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
    pub const ALL: [Outcome; 7] = [
        Outcome::Answered,
        Outcome::Failed(Cause::Refused),
        Outcome::Failed(Cause::NoEndpoints),
        Outcome::Failed(Cause::Timeout),
        Outcome::Failed(Cause::Inflight),
        Outcome::Failed(Cause::Reset),
        Outcome::Failed(Cause::KeepaliveRace),
    ];

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
/// first at a shared instant).
pub fn requests(report: &ServiceReport) -> Vec<Sent> {
    let answered = report.answered.iter().map(|&at| Sent {
        at,
        outcome: Outcome::Answered,
        failure: None,
    });
    let failed = report.failures.iter().map(|f| Sent {
        at: f.sent,
        outcome: Outcome::Failed(f.cause),
        failure: Some(*f),
    });
    let mut all: Vec<Sent> = answered.chain(failed).collect();
    all.sort_by_key(|s| (s.at, s.outcome.index()));
    all
}

/// Requests per column and outcome (`Outcome::index` order): `columns`
/// columns, request instants placed by `column_of` (clamped to the last).
pub fn counts(requests: &[Sent], columns: usize, column_of: impl Fn(SimTime) -> usize) -> Vec<[u64; 7]> {
    let mut counts = vec![[0u64; 7]; columns];
    if columns == 0 {
        return counts;
    }
    for r in requests {
        counts[column_of(r.at).min(columns - 1)][r.outcome.index()] += 1;
    }
    counts
}

/// How many requests of each outcome `requests` holds.
pub fn totals(requests: &[Sent]) -> [u64; 7] {
    counts(requests, 1, |_| 0)[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(at: u64, outcome: Outcome) -> Sent {
        Sent {
            at: SimTime(at),
            outcome,
            failure: None,
        }
    }

    #[test]
    fn every_request_lands_in_one_column_and_late_ones_in_the_last() {
        let refused = Outcome::Failed(Cause::Refused);
        let all = [
            sent(0, Outcome::Answered),
            sent(999, Outcome::Answered),
            sent(1000, refused),
            sent(5000, refused),
        ];
        let c = counts(&all, 2, |t| (t.as_millis() / 1000) as usize);
        assert_eq!(c[0], [2, 0, 0, 0, 0, 0, 0]);
        assert_eq!(c[1], [0, 2, 0, 0, 0, 0, 0]);
        assert_eq!(totals(&all), [2, 2, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn outcomes_index_their_lanes() {
        for (i, o) in Outcome::ALL.iter().enumerate() {
            assert_eq!(o.index(), i);
        }
    }
}

//! Step 3: a RollingUpdate's maxSurge, maxUnavailable and minReadySeconds,
//! with the preStop and grace the first two steps advised.
//!
//! Why brute force: none of the three moves the outcome one way. A larger
//! surge replaces Pods sooner but deletes more old ones at once, which
//! kube-proxy's token bucket then drops later (a preStop that covered one
//! deletion may not cover three); a larger maxUnavailable is faster and
//! leaves fewer ready endpoints; minReadySeconds slows the rollout but
//! lets a new Pod's endpoint reach every node before an old one goes. So
//! `Order::of` declares none of them monotone, and every combination of a
//! small bounded set is run (`search::rank`): for three replicas, 4
//! surges × 4 unavailabilities (less the pair of zeros the API refuses)
//! × 6 minReadySeconds = 90 candidates.
//!
//! What safe means: the failed-request target, no run with fewer ready
//! endpoints than the floor (`--min-ready`, by default the replicas less
//! today's maxUnavailable: as many as the user already accepts to lose),
//! every run's rollout finished, and, with `--max-rollout`, its p99 within
//! the budget. Of the safe ones: the fastest (mean rollout start → last old
//! Pod gone), or, with a budget, the one with the fewest Pods at once (the
//! capacity a rollout borrows: Pod objects, terminating ones included,
//! then the Pods the controller counts, which maxSurge bounds), then the
//! fastest. The choice is
//! checked on fresh replications, and the next in rank taken while it fails.
//! Before all that, a screening on the first tenth and third of the
//! replications drops the strategies sure to be unsafe (`screen`), so
//! the brute force's answer costs a fraction of its runs.

use std::ops::Range;

use super::Request;
use super::measure::{Measurer, Point, RolloutPoint, Sample};
use super::search::{Checked, confirm, rank};
use crate::engine::SimDuration;
use crate::model::service::{Rollout, Scaled, ServiceSpec, Strategy};

/// The minReadySeconds searched, in seconds: none, about a propagation's
/// median, its p99 for the `tiny`/`medium` presets, and the `large` one's.
pub const MIN_READY_SECONDS: [u64; 6] = [0, 1, 2, 5, 10, 30];

/// Above this many replicas, maxSurge and maxUnavailable are searched as
/// percentages, not as every count.
const COUNTS_UP_TO: u32 = 5;

/// The percentages searched above `COUNTS_UP_TO` replicas.
const PERCENTS: [u32; 5] = [0, 10, 25, 50, 100];

/// What a sample of rollouts shows, as the table reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RolloutFigures {
    /// Mean rollout start → last old Pod gone, of the runs where it ended.
    pub done_ms: Option<f64>,
    /// Mean most Pod objects at once.
    pub peak_pods: Option<f64>,
    /// Mean most Pods the controller counted at once.
    pub counted_pods: Option<f64>,
    /// The fewest ready endpoints of any run.
    pub min_ready: Option<u32>,
}

impl RolloutFigures {
    fn of(s: &Sample) -> RolloutFigures {
        RolloutFigures {
            done_ms: s.mean(|r| r.rollout_done_ms),
            peak_pods: s.mean(|r| r.peak_pods.map(u64::from)),
            counted_pods: s.mean(|r| r.counted_pods.map(u64::from)),
            min_ready: s.runs.iter().filter_map(|r| r.min_ready).min(),
        }
    }
}

/// The rollout strategy advised.
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutAdvice {
    /// The disruption that is the rollout (its keys: `disruptions.N.…`).
    pub index: usize,
    /// The Deployment's replicas.
    pub replicas: u32,
    /// Today's strategy, as written.
    pub today: RolloutPoint,
    /// The strategy advised; `None` when no candidate is safe (or none
    /// held on fresh replications).
    pub advised: Option<RolloutPoint>,
    /// The ready-endpoint floor every run kept.
    pub min_ready: u32,
    /// Today's strategy, with the advised preStop and grace.
    pub today_figures: RolloutFigures,
    /// The advised one, on the same replications.
    pub advised_figures: Option<RolloutFigures>,
    /// Candidates: what the brute force runs, and what a grid runs.
    pub candidates: u64,
    /// Candidates that held on replications 0 to R − 1.
    pub safe: u64,
    /// Candidates that broke each condition: the failed-request target,
    /// the ready floor, an unfinished rollout, the budget. One dropped at
    /// the screening counts for the conditions its screening runs broke
    /// (at least one; all R runs might break more).
    pub broke: [u64; 4],
    /// Candidates dropped at the screening, never run on all R.
    pub screened_out: u64,
    /// The fresh check, over the safe ones in rank order.
    pub checked: Option<Checked>,
}

/// The first disruption that is a RollingUpdate, and its rollout.
pub fn rolling_update(service: &ServiceSpec) -> Option<(usize, &Rollout)> {
    (service.disruptions.iter().enumerate())
        .find_map(|(i, d)| d.rollout.as_ref().map(|r| (i, r)))
        .filter(|(_, r)| r.strategy == Strategy::RollingUpdate)
}

/// The candidates: every surge × unavailability × minReadySeconds, less
/// the pair of zeros.
fn candidates(replicas: u32) -> Vec<RolloutPoint> {
    let scaled: Vec<Scaled> = match replicas <= COUNTS_UP_TO {
        true => (0..=replicas).map(Scaled::Count).collect(),
        false => PERCENTS.iter().map(|&p| Scaled::Percent(p)).collect(),
    };
    let mut all = Vec::new();
    for &max_surge in &scaled {
        for &max_unavailable in &scaled {
            if max_surge.is_zero() && max_unavailable.is_zero() {
                continue;
            }
            for &s in &MIN_READY_SECONDS {
                all.push(RolloutPoint {
                    max_surge,
                    max_unavailable,
                    min_ready: SimDuration::from_secs(s),
                });
            }
        }
    }
    all
}

/// Which conditions a sample of `full` runs that begins with `s` must
/// break, whatever its other runs are, in `RolloutAdvice::broke` order.
/// Each is exact on a prefix: a run below the floor or unfinished stays
/// in the sample, and the target and the budget are bounds on how many
/// runs exceed (`Request::misses`, `Request::exceeds`). With `full` the
/// runs of `s`, it is the verdict on `s` itself.
fn broken(s: &Sample, request: &Request, floor: u32, full: u64) -> [bool; 4] {
    let done = |r: &super::Run| r.rollout_done_ms.unwrap_or(u64::MAX);
    [
        request.misses(s, full),
        s.runs.iter().any(|r| r.min_ready.is_some_and(|m| m < floor)),
        s.runs.iter().any(|r| r.rollout_done_ms.is_none()),
        request
            .max_rollout
            .is_some_and(|b| request.exceeds(s.runs.iter().map(done), b.as_millis(), full)),
    ]
}

/// The screening's stages: a tenth, then a third of R replications.
const STAGES: [u64; 2] = [10, 3];

/// The screening: every candidate on the first R/10 replications, the
/// ones left on the first R/3, each dropped as soon as its runs show it
/// must break a condition on all R (`broken`); what it broke is added to
/// `broke`. Returns which candidates are left, to be run on all R.
///
/// Why it cannot change the answer: a candidate is dropped only when all
/// R runs would break a condition too (the runs are the same, common
/// random numbers: replication r is the same run whether asked for in a
/// prefix or in all R), so the safe set, their figures on all R and so
/// their rank are the brute force's. Why only the unsafe are dropped, not
/// the dominated: a candidate is ranked by a mean over all R runs (its
/// rollout time, its Pods), and no prefix bounds a mean of runs not yet
/// run, so dropping one as slower than another could drop the answer.
fn screen(
    m: &mut Measurer,
    points: &[Point],
    (base, r): (u64, u64),
    (request, floor): (&Request, u32),
    broke: &mut [u64; 4],
) -> Vec<bool> {
    let mut left = vec![true; points.len()];
    if !request.screen {
        return left;
    }
    for n in STAGES.iter().map(|d| r / d).filter(|&n| n > 0 && n < r) {
        for (point, left) in points.iter().zip(&mut left).filter(|(_, l)| **l) {
            let why = broken(m.sample(*point, base..base + n), request, floor, r);
            if why.iter().any(|&b| b) {
                *left = false;
                for (count, b) in broke.iter_mut().zip(why) {
                    *count += u64::from(b);
                }
            }
        }
    }
    left
}

/// Step 3 on `m` (a measurer `with_rollout(index)`), the preStop and grace
/// fixed at `base`'s.
pub fn rollout(
    m: &mut Measurer,
    (base, fresh): (Range<u64>, Range<u64>),
    request: &Request,
    (index, today): (usize, &Rollout),
    point: Point,
    replicas: u32,
) -> RolloutAdvice {
    let today_point = RolloutPoint {
        max_surge: today.max_surge,
        max_unavailable: today.max_unavailable,
        min_ready: today.min_ready,
    };
    let floor = request
        .min_ready
        .unwrap_or_else(|| replicas.saturating_sub(today.fenceposts(replicas).1));
    let all = candidates(replicas);
    let at = |r: RolloutPoint| Point {
        rollout: Some(r),
        ..point
    };
    let mut broke = [0; 4];
    let r = base.end - base.start;
    let points: Vec<Point> = all.iter().map(|&c| at(c)).collect();
    let left = screen(m, &points, (base.start, r), (request, floor), &mut broke);
    let ranked = rank(all.len() as u64, |i| {
        if !left[i as usize] {
            return None;
        }
        let s = m.sample(points[i as usize], base.clone());
        let why = broken(s, request, floor, r);
        for (count, b) in broke.iter_mut().zip(why) {
            *count += u64::from(b);
        }
        if why.iter().any(|&b| b) {
            return None;
        }
        let f = RolloutFigures::of(s);
        let [time, pods, counted] = [f.done_ms, f.peak_pods, f.counted_pods].map(|x| x.unwrap_or(f64::MAX));
        Some(match request.max_rollout {
            Some(_) => [pods, counted, time],
            None => [time, pods, counted],
        })
    });
    let checked = (!ranked.is_empty()).then(|| {
        confirm(0, ranked.len() as u64 - 1, |j| {
            let candidate = all[ranked[j as usize] as usize];
            !broken(m.sample(at(candidate), fresh.clone()), request, floor, r)
                .iter()
                .any(|&b| b)
        })
    });
    let advised = checked
        .filter(|c| c.held)
        .map(|c| all[ranked[c.index as usize] as usize]);
    let today_figures = RolloutFigures::of(m.sample(at(today_point), base.clone()));
    let advised_figures = advised.map(|a| RolloutFigures::of(m.sample(at(a), base.clone())));
    RolloutAdvice {
        index,
        replicas,
        today: today_point,
        advised,
        min_ready: floor,
        today_figures,
        advised_figures,
        candidates: all.len() as u64,
        safe: ranked.len() as u64,
        broke,
        screened_out: left.iter().filter(|&&l| !l).count() as u64,
        checked,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Run, Target};
    use super::*;

    fn sample(failed: &[u64]) -> Sample {
        let run = |&failed: &u64| Run {
            failed,
            failed_by: [0; 7],
            sigkilled: 0,
            termination_ms: None,
            rollout_done_ms: Some(1000),
            drain_ms: None,
            min_ready: Some(3),
            peak_pods: None,
            counted_pods: None,
        };
        Sample {
            replications: 0..failed.len() as u64,
            runs: failed.iter().map(run).collect(),
        }
    }

    /// On a whole sample the screening's verdict is the target's; on a
    /// prefix it never calls unsafe what all the runs would call safe.
    /// 200 runs, of which the first `over` fail 2 requests: by nearest
    /// rank 2 may exceed 0 (200 − ⌈0.99·200⌉), at C = 0.95 none (200 <
    /// 299 runs show nothing), a mean of 0.02 allows one such run.
    #[test]
    fn the_screening_drops_only_what_all_the_runs_would_drop() {
        let mean = Request::new(Target::FailedMean(0.02), 200);
        let rank = Request::new(Target::FailedP99(0), 200);
        let sure = Request {
            confidence: Some(0.95),
            ..rank
        };
        for over in 0..6usize {
            let failed: Vec<u64> = (0..200).map(|i| if i < over { 2 } else { 0 }).collect();
            let whole = sample(&failed);
            for request in [&mean, &rank, &sure] {
                assert_eq!(request.misses(&whole, 200), !request.holds(&whole), "{over} over");
                let first = sample(&failed[..20]);
                assert!(!request.misses(&first, 200) || request.misses(&whole, 200));
            }
            assert_eq!(rank.misses(&sample(&failed[..20]), 200), over > 2);
            assert_eq!(mean.misses(&sample(&failed[..20]), 200), over > 2);
        }
        // Too few runs for the test: every sample misses it.
        assert!(sure.misses(&sample(&[0; 20]), 200));
    }

    /// Three replicas: surges and unavailabilities 0 to 3 (16 pairs, less
    /// 0/0) × 6 minReadySeconds = 90; seven: 5 percentages each, 24 pairs,
    /// 144.
    #[test]
    fn the_candidates_are_every_combination_but_the_refused_one() {
        assert_eq!(candidates(3).len(), 90);
        assert_eq!(candidates(7).len(), 144);
        assert!(
            candidates(3)
                .iter()
                .all(|c| !(c.max_surge.is_zero() && c.max_unavailable.is_zero()))
        );
    }
}

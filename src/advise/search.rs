//! The search on a grid of candidates: bisection under monotonicity, a
//! brute-force fallback where no monotonicity is declared (`Order`), then
//! a check on fresh replications with a bounded walk up.
//!
//! Why bisection: a brute-force grid runs every candidate; when the
//! predicate is monotone (false up to some index, true from it on), the
//! first true index is found in about log2(n) + 2 evaluations. Where the
//! predicate is not monotone, bisection may return a true index that is
//! not the first; the caller states which monotonicity it assumes.
//!
//! Why the fresh check: the bisection evaluates every candidate on the same
//! replications (common random numbers), so its answer is tuned to them; a
//! value that only just passes there may fail on others. Checking it on
//! replications the search never saw, and stepping up while it fails, keeps
//! the answer honest at a bounded cost.

use crate::scenario::key::Field;

/// Steps the fresh check may walk up before it gives up.
pub const WALK: u64 = 10;

/// What is known of how a setting moves its target, which decides how its
/// values are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Once safe, safe at every larger value: bisection.
    Monotone,
    /// Nothing known: every value is run (the brute-force fallback).
    Unknown,
}

impl Order {
    /// What the advice assumes of `field`: monotone only where the
    /// module doc of `advise` argues it (a longer preStop keeps the
    /// listener open longer and changes nothing else; a longer grace only
    /// brings the kill later). Every other key is searched by brute force,
    /// so a new setting is safe to advise before anyone proves anything.
    pub fn of(field: Field) -> Order {
        match field {
            Field::PreStop | Field::TerminationGracePeriod => Order::Monotone,
            _ => Order::Unknown,
        }
    }
}

/// The smallest index in `lo..=hi` for which `ok` holds: by bisection
/// for a monotone setting, else by running every index from `lo` up to
/// the first that holds.
pub fn smallest(lo: u64, hi: u64, order: Order, mut ok: impl FnMut(u64) -> bool) -> Option<u64> {
    match order {
        Order::Monotone => bisect(lo, hi, ok),
        Order::Unknown => (lo..=hi).find(|&i| ok(i)),
    }
}

/// Brute force over `0..n` candidates of several settings (none known to
/// be monotone, nor how they interact): every one is run; those that hold
/// (`judge` gives their cost) are returned cheapest first, ties in index
/// order.
pub fn rank<C: PartialOrd>(n: u64, mut judge: impl FnMut(u64) -> Option<C>) -> Vec<u64> {
    let mut held: Vec<(C, u64)> = (0..n).filter_map(|i| judge(i).map(|c| (c, i))).collect();
    held.sort_by(|a, b| {
        a.0.partial_cmp(&b.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    held.into_iter().map(|(_, i)| i).collect()
}

/// The smallest index in `lo..=hi` for which `ok` holds, assuming `ok` is
/// monotone (once true, true for every larger index); `None` when `ok(hi)`
/// is false. Evaluates `hi` first, then `lo`, then halves the interval.
pub fn bisect(lo: u64, hi: u64, mut ok: impl FnMut(u64) -> bool) -> Option<u64> {
    if lo > hi || !ok(hi) {
        return None;
    }
    if lo == hi || ok(lo) {
        return Some(if lo == hi { hi } else { lo });
    }
    // Invariant: ok(bad) is false, ok(good) is true.
    let (mut bad, mut good) = (lo, hi);
    while good - bad > 1 {
        let mid = bad + (good - bad) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// What the fresh check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The index finally advised: the bisection's, or where the walk stopped.
    pub index: u64,
    /// Whether it held on fresh replications (false: the walk gave up).
    pub held: bool,
    /// Steps walked up from the bisection's index.
    pub walked: u64,
}

/// Checks `found` with `fresh`, stepping up one index at a time while it
/// fails, at most `WALK` steps and never past `hi`.
pub fn confirm(found: u64, hi: u64, mut fresh: impl FnMut(u64) -> bool) -> Checked {
    let mut index = found;
    loop {
        let held = fresh(index);
        let walked = index - found;
        if held || index >= hi || walked >= WALK {
            return Checked { index, held, walked };
        }
        index += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bisection over every threshold of a small grid finds the threshold,
    /// in at most 2 + ceil(log2(n)) evaluations.
    #[test]
    fn bisection_finds_the_first_true_index_in_logarithmic_evaluations() {
        for threshold in 0..=20u64 {
            let mut calls = 0;
            let found = bisect(0, 20, |i| {
                calls += 1;
                i >= threshold
            });
            assert_eq!(found, Some(threshold));
            // 21 values: hi, lo, then at most ceil(log2(20)) = 5 halvings.
            assert!(calls <= 7, "threshold {threshold}: {calls} calls");
        }
        assert_eq!(bisect(0, 20, |_| false), None);
        assert_eq!(bisect(5, 5, |_| true), Some(5));
        assert_eq!(bisect(3, 9, |i| i >= 1), Some(3));
    }

    #[test]
    fn the_fresh_check_walks_up_until_it_holds_and_no_further_than_allowed() {
        // Holds from 7: found 5 walks two steps.
        assert_eq!(
            confirm(5, 20, |i| i >= 7),
            Checked {
                index: 7,
                held: true,
                walked: 2
            }
        );
        // Never holds: stops at the top of the range, or after WALK steps.
        assert_eq!(confirm(5, 8, |_| false).index, 8);
        assert!(!confirm(5, 8, |_| false).held);
        assert_eq!(confirm(0, 100, |_| false).walked, WALK);
    }

    /// Not monotone (holds at 3 and from 7): bisection may land on 7 or
    /// 3 depending on its midpoints; the scan finds 3 after 4 calls.
    #[test]
    fn the_fallback_runs_every_value_up_to_the_first_that_holds() {
        let ok = |i: u64| i == 3 || i >= 7;
        let mut calls = 0;
        let found = smallest(0, 20, Order::Unknown, |i| {
            calls += 1;
            ok(i)
        });
        assert_eq!((found, calls), (Some(3), 4));
        assert_eq!(smallest(0, 20, Order::Monotone, |i| i >= 7), Some(7));
        assert_eq!(Order::of(Field::MaxSurge), Order::Unknown);
    }

    #[test]
    fn brute_force_ranks_the_candidates_that_hold_cheapest_first() {
        // Costs 5, 1, none, 1, 3: index 1 and 3 tie at 1 (index order).
        let costs = [Some(5), Some(1), None, Some(1), Some(3)];
        assert_eq!(rank(5, |i| costs[i as usize]), vec![1, 3, 4, 0]);
    }
}

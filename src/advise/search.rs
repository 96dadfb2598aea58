//! The search on a grid of candidates: bisection under monotonicity, then
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

/// Steps the fresh check may walk up before it gives up.
pub const WALK: u64 = 10;

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
}

//! When a percentile target holds: by nearest rank on the runs (a point
//! estimate), or, with `--confidence C`, as a one-sided binomial test, and
//! how many replications that test needs.
//!
//! Why a test: "the p99 of failed requests is at most N" says that the
//! share θ of runs with more than N failed requests is at most q = 1 %.
//! Nearest rank on R runs accepts up to R − ⌈0.99 R⌉ such runs whatever
//! R is: with 300 runs and 3 of them over, θ may well be 2 %. A test
//! accepts only when the runs make θ > q unlikely: with k runs over out
//! of R, the value is safe when P(Bin(R, q) ≤ k) ≤ 1 − C, i.e. if θ were
//! q (or more: the probability only falls), a sample this clean would be
//! seen at most 1 − C of the time. With k = 0 this reads (1 − q)^R ≤
//! 1 − C, so R ≥ ln(1 − C) / ln(1 − q): 299 runs for C = 0.95 and
//! q = 1 % (0.99^299 = 0.0495), 459 for C = 0.99. Below that no sample,
//! however clean, shows the target, so `--confidence` chooses that R,
//! and a larger `--replications` allows the k the test then allows.
//!
//! Invariant: with no confidence the verdict is the nearest-rank one,
//! exactly as before (`exceedances ≤ R − ⌈p·R⌉` is `p-th value ≤ bound`).

/// The share of runs a 99th percentile lets exceed its bound.
pub const P99_EXCESS: f64 = 0.01;

/// The fewest replications with which `confidence` can show that at most
/// `excess` of the runs exceed a bound: the smallest R with
/// (1 − excess)^R ≤ 1 − confidence.
pub fn replications_for(excess: f64, confidence: f64) -> u64 {
    let estimate = ((1.0 - confidence).ln() / (1.0 - excess).ln()).ceil().max(1.0) as u64;
    // The float may land one off either way: settle it on the inequality.
    let clean = |r: u64| (1.0 - excess).powf(r as f64) <= 1.0 - confidence;
    let mut r = estimate.saturating_sub(1).max(1);
    while !clean(r) {
        r += 1;
    }
    r
}

/// How many of `runs` runs may exceed the bound: by nearest rank at the
/// percentile 1 − `excess` (no confidence), or the largest k with
/// P(Bin(runs, excess) ≤ k) ≤ 1 − `confidence`; `None` when not even a
/// run with no exceedance shows it (too few runs).
pub fn allowed_exceedances(runs: u64, excess: f64, confidence: Option<f64>) -> Option<u64> {
    let Some(c) = confidence else {
        let percentile = ((1.0 - excess) * 100.0).round() as u64;
        return Some(runs - (runs * percentile).div_ceil(100).max(1).min(runs));
    };
    // The binomial's cumulative distribution, term by term in logs (the
    // first terms underflow for large R, and are negligible then).
    let (ln_q, ln_p) = (excess.ln(), (1.0 - excess).ln());
    let mut ln_term = runs as f64 * ln_p;
    let mut cdf = 0.0;
    let mut allowed = None;
    for k in 0..=runs {
        cdf += ln_term.exp();
        if cdf > 1.0 - c {
            break;
        }
        allowed = Some(k);
        ln_term += ((runs - k) as f64).ln() - ((k + 1) as f64).ln() + ln_q - ln_p;
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ln(0.05)/ln(0.99) = 298.07 → 299 (0.99^298 = 0.0500 > 0.05,
    /// 0.99^299 = 0.0495); ln(0.01)/ln(0.99) = 458.2 → 459.
    #[test]
    fn replications_are_the_smallest_whose_clean_sample_shows_the_target() {
        assert_eq!(replications_for(0.01, 0.95), 299);
        assert_eq!(replications_for(0.01, 0.99), 459);
        assert_eq!(replications_for(0.01, 0.5), 69);
    }

    /// By nearest rank, the p99 of 300 runs is the 297th: 3 may exceed;
    /// of 100, the 99th: 1; below 100 the largest: none.
    #[test]
    fn without_confidence_the_nearest_rank_decides() {
        assert_eq!(allowed_exceedances(300, 0.01, None), Some(3));
        assert_eq!(allowed_exceedances(100, 0.01, None), Some(1));
        assert_eq!(allowed_exceedances(40, 0.01, None), Some(0));
    }

    /// At C = 0.95: 298 runs show nothing, 299 allow none over. With 1000
    /// runs: P(Bin(1000, 0.01) ≤ 4) = 0.0289 and ≤ 5 is 0.0661 (the sums
    /// of C(1000, k)·0.01^k·0.99^(1000−k)), so 4 may exceed.
    #[test]
    fn with_confidence_the_binomial_test_decides() {
        assert_eq!(allowed_exceedances(298, 0.01, Some(0.95)), None);
        assert_eq!(allowed_exceedances(299, 0.01, Some(0.95)), Some(0));
        assert_eq!(allowed_exceedances(1000, 0.01, Some(0.95)), Some(4));
    }
}

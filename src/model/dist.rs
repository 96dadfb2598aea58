//! Durations that vary from one container instance to the next: a `Dist` is
//! a duration as a distribution, `Fixed` being the degenerate one. Sampling
//! is by inverse CDF from one uniform (`draw`), so a draw is a function of
//! its uniform alone and a fixed duration never touches the generator.
//!
//! Invariant: every parameter is a whole number of milliseconds (so a spec
//! stays `Eq` and `Hash`, and a grid's hash is exact), and every sample is a
//! whole number of milliseconds, 0 or more, rounded to the nearest.

use std::fmt;
use std::sync::Arc;

use crate::engine::SimDuration;

/// z such that Φ(z) = 0.99: a lognormal's sigma is ln(p99 / median) / z.
pub const Z99: f64 = 2.326_347_874_040_841;

/// Samples are capped here (about 285 years): far past any horizon, and
/// still exact as an `f64`.
const MAX_SAMPLE_MS: f64 = 9.0e15;

/// A duration, fixed or drawn anew for each container instance.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Dist {
    /// Always this duration: no draw at all.
    Fixed(SimDuration),
    /// ln X is normal with median `median` and 99th percentile `p99`.
    LogNormal {
        /// The 50th percentile.
        median: SimDuration,
        /// The 99th percentile (above the median).
        p99: SimDuration,
    },
    /// Every millisecond between `min` and `max` equally likely.
    Uniform {
        /// The shortest value.
        min: SimDuration,
        /// The longest value.
        max: SimDuration,
    },
    /// Memoryless, as the gaps of a Poisson process.
    Exponential {
        /// The mean (1/rate).
        mean: SimDuration,
    },
    /// Normal, truncated at 0 (conditioned on being 0 or more).
    Normal {
        /// The mean before truncation.
        mean: SimDuration,
        /// The standard deviation before truncation.
        sd: SimDuration,
    },
    /// One of these, each equally likely (repeat a value to weight it).
    Empirical(Arc<[SimDuration]>),
}

impl Dist {
    /// The spellings of `dist = "…"`.
    pub const NAMES: [&'static str; 5] = ["lognormal", "uniform", "exponential", "normal", "empirical"];

    /// The duration, when it does not vary.
    #[inline]
    pub fn fixed(&self) -> Option<SimDuration> {
        match self {
            Dist::Fixed(d) => Some(*d),
            _ => None,
        }
    }

    /// Fixed at zero: no hook, no drain. A distribution is not, even one
    /// that may draw 0, since it may draw more.
    pub fn is_zero(&self) -> bool {
        self.fixed() == Some(SimDuration::ZERO)
    }

    /// The sample whose CDF is `u` (in (0, 1)), rounded to the millisecond.
    pub fn sample(&self, u: f64) -> SimDuration {
        let ms = |d: &SimDuration| d.as_millis() as f64;
        let x = match self {
            Dist::Fixed(d) => return *d,
            Dist::LogNormal { median, p99 } => {
                let sigma = (ms(p99) / ms(median)).ln() / Z99;
                ms(median) * (sigma * normal_quantile(u)).exp()
            }
            Dist::Uniform { min, max } => ms(min) + u * (ms(max) - ms(min)),
            Dist::Exponential { mean } => -ms(mean) * (-u).ln_1p(),
            Dist::Normal { mean, sd } if sd.as_millis() == 0 => ms(mean),
            Dist::Normal { mean, sd } => {
                // Inverse CDF of the truncated normal: u is spread over the
                // part of the normal's CDF above 0.
                let below = normal_cdf(-ms(mean) / ms(sd));
                ms(mean) + ms(sd) * normal_quantile(below + u * (1.0 - below))
            }
            Dist::Empirical(values) => {
                let i = ((u * values.len() as f64) as usize).min(values.len().saturating_sub(1));
                return values.get(i).copied().unwrap_or_default();
            }
        };
        SimDuration::from_millis(x.round().clamp(0.0, MAX_SAMPLE_MS) as u64)
    }
}

impl From<SimDuration> for Dist {
    fn from(d: SimDuration) -> Self {
        Dist::Fixed(d)
    }
}

impl Default for Dist {
    fn default() -> Self {
        Dist::Fixed(SimDuration::ZERO)
    }
}

/// Lets tests and checks compare a fixed duration with a plain one.
impl PartialEq<SimDuration> for Dist {
    fn eq(&self, other: &SimDuration) -> bool {
        self.fixed() == Some(*other)
    }
}

/// A fixed duration debug-prints as the duration itself, so specs without
/// distributions print (and hash, in a grid's canonical form) as before.
impl fmt::Debug for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dist::Fixed(d) => d.fmt(f),
            other => write!(f, "Dist({other})"),
        }
    }
}

/// The shortest spelling: `3s`, or `lognormal median=2s p99=7s` (no commas,
/// so a CSV cell needs no quotes).
impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dist::Fixed(d) => write!(f, "{d}"),
            Dist::LogNormal { median, p99 } => write!(f, "lognormal median={median} p99={p99}"),
            Dist::Uniform { min, max } => write!(f, "uniform min={min} max={max}"),
            Dist::Exponential { mean } => write!(f, "exponential mean={mean}"),
            Dist::Normal { mean, sd } => write!(f, "normal mean={mean} sd={sd}"),
            Dist::Empirical(values) => {
                write!(f, "empirical values=")?;
                for (i, v) in values.iter().enumerate() {
                    write!(f, "{}{v}", if i == 0 { "" } else { "/" })?;
                }
                Ok(())
            }
        }
    }
}

/// A probability in [0, 1], kept as written (`0.2`); equal and hashed by
/// its bits, so a spec holding one stays `Eq` and `Hash`.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub struct Probability(f64);

impl Probability {
    /// Never: the default, which costs no draw.
    pub const NEVER: Probability = Probability(0.0);

    /// `p`, if it is a probability.
    pub fn new(p: f64) -> Option<Probability> {
        (0.0..=1.0).contains(&p).then_some(Probability(p))
    }

    /// The probability, 0 to 1.
    pub fn get(self) -> f64 {
        self.0
    }

    /// The probability whose `get().to_bits()` is `bits` (an axis value).
    pub fn from_bits(bits: u64) -> Probability {
        Probability(f64::from_bits(bits))
    }

    /// Whether an event of this probability happens for uniform `u` in (0, 1).
    pub fn happens(self, u: f64) -> bool {
        u < self.0
    }
}

impl Eq for Probability {}

impl std::hash::Hash for Probability {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl fmt::Debug for Probability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The shortest form that reads back as the same number (`0.2`).
impl fmt::Display for Probability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Φ⁻¹(p) by Acklam's rational approximation (relative error below
/// 1.15e-9, far below the millisecond a sample is rounded to).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const LOW: f64 = 0.02425;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let p = p.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON / 2.0);
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (-p).ln_1p()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Φ(x) through the complementary error function of Numerical Recipes
/// (`erfcc`, fractional error below 1.2e-7): only the truncated normal's
/// mass below 0 needs it.
pub fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 { 1.0 - erfc / 2.0 } else { erfc / 2.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::draw::{DrawKey, Stream};

    fn s(secs: f64) -> SimDuration {
        SimDuration::from_millis((secs * 1000.0) as u64)
    }

    /// `n` samples of `dist`, from replications 0..n of seed 1.
    fn samples(dist: &Dist, n: u64) -> Vec<f64> {
        (0..n)
            .map(|r| {
                let u = Stream {
                    seed: 1,
                    replication: r,
                }
                .uniform(5, DrawKey::Boot, 1);
                dist.sample(u).as_millis() as f64
            })
            .collect()
    }

    fn mean(xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    #[test]
    fn the_normal_quantile_and_cdf_match_the_tables() {
        // Standard normal table: Φ(1.959964) = 0.975, Φ(2.326348) = 0.99.
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-6);
        assert!((normal_quantile(0.99) - Z99).abs() < 1e-6);
        assert!((normal_quantile(0.01) + Z99).abs() < 1e-6);
        assert!(normal_quantile(0.5).abs() < 1e-12);
        assert!((normal_quantile(1e-10) + 6.361_340_9).abs() < 1e-5);
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(-Z99) - 0.01).abs() < 1e-6);
    }

    #[test]
    fn a_fixed_duration_ignores_its_uniform() {
        assert_eq!(Dist::Fixed(s(3.0)).sample(0.001), s(3.0));
        assert_eq!(Dist::Fixed(s(3.0)).sample(0.999), s(3.0));
    }

    #[test]
    fn exponential_mean_is_within_four_standard_errors() {
        // Mean 2 s: sd 2 s too, so the mean of 100,000 has a standard
        // error of 2000 / sqrt(100,000) ≈ 6.32 ms.
        let xs = samples(&Dist::Exponential { mean: s(2.0) }, 100_000);
        let se = 2000.0 / (100_000f64).sqrt();
        assert!((mean(&xs) - 2000.0).abs() < 4.0 * se, "{}", mean(&xs));
    }

    #[test]
    fn lognormal_median_and_p99_are_within_their_confidence_intervals() {
        // The k-th order statistic of n samples covers the p-quantile with
        // k ~ Binomial(n, p): for n = 100,000, p = 0.99 the count below
        // the true p99 is 99,000 ± 4·sqrt(n p (1-p)) ≈ ± 126; for p = 0.5,
        // 50,000 ± 4·158.
        let dist = Dist::LogNormal {
            median: s(2.0),
            p99: s(7.0),
        };
        let xs = samples(&dist, 100_000);
        let below = |t: f64| xs.iter().filter(|&&x| x <= t).count() as f64;
        assert!(
            (below(7000.0) - 99_000.0).abs() < 4.0 * 31.46,
            "{}",
            below(7000.0)
        );
        assert!(
            (below(2000.0) - 50_000.0).abs() < 4.0 * 158.1,
            "{}",
            below(2000.0)
        );
    }

    #[test]
    fn uniform_stays_in_its_range_with_the_right_mean() {
        // Uniform 1..5 s: mean 3 s, sd 4000/sqrt(12) ≈ 1154.7 ms.
        let xs = samples(
            &Dist::Uniform {
                min: s(1.0),
                max: s(5.0),
            },
            100_000,
        );
        assert!(xs.iter().all(|&x| (1000.0..=5000.0).contains(&x)));
        let se = 1154.7 / (100_000f64).sqrt();
        assert!((mean(&xs) - 3000.0).abs() < 4.0 * se, "{}", mean(&xs));
    }

    #[test]
    fn the_truncated_normal_has_the_truncated_mean() {
        // Mean 1 s, sd 1 s, truncated at 0: E = μ + σ φ(α)/(1 − Φ(α)) with
        // α = −1: φ(1) = 0.241971, Φ(1) = 0.841345 → 1000 + 1000·0.287600.
        // Its sd is below 1 s, so 1000/sqrt(n) bounds the standard error.
        let xs = samples(
            &Dist::Normal {
                mean: s(1.0),
                sd: s(1.0),
            },
            100_000,
        );
        assert!(xs.iter().all(|&x| x >= 0.0));
        let se = 1000.0 / (100_000f64).sqrt();
        assert!((mean(&xs) - 1287.6).abs() < 4.0 * se, "{}", mean(&xs));
    }

    #[test]
    fn empirical_draws_each_value_equally_often() {
        // Four values, 100,000 draws: 25,000 ± 4·sqrt(n·¼·¾) ≈ ± 548 each;
        // "2s" is listed twice, so it is drawn about 50,000 times.
        let dist = Dist::Empirical(vec![s(1.0), s(2.0), s(2.0), s(9.0)].into());
        let xs = samples(&dist, 100_000);
        let count = |v: f64| xs.iter().filter(|&&x| x == v).count() as f64;
        assert!((count(1000.0) - 25_000.0).abs() < 548.0);
        assert!((count(9000.0) - 25_000.0).abs() < 548.0);
        assert!((count(2000.0) - 50_000.0).abs() < 4.0 * 158.2);
    }

    #[test]
    fn spellings_are_short_and_free_of_commas() {
        let d = Dist::LogNormal {
            median: s(2.0),
            p99: s(7.0),
        };
        assert_eq!(d.to_string(), "lognormal median=2s p99=7s");
        assert_eq!(format!("{:?}", Dist::Fixed(s(1.5))), "SimDuration(1500)");
        let e = Dist::Empirical(vec![s(1.0), s(0.25)].into());
        assert_eq!(e.to_string(), "empirical values=1s/250ms");
    }
}

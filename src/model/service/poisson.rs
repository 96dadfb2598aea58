//! Keyed draws for the counting traffic model: a Poisson count of any
//! mean (a span of 10⁹ requests a second is one draw, not 10⁹) and an
//! exponential gap, each from the run's counter-based stream.
//!
//! Invariant: draw `n` of a run reads the uniforms `(n, DrawKey::Count,
//! 1)`, `(n, Count, 2)`, … (the keep-alive client's, `(n, DrawKey::Pool,
//! 1)`, … on a counter of its own) and nothing else, so a run's counts are a pure
//! function of its seed, its replication and the order of its own events,
//! never of a thread or of what another run drew.

use crate::model::draw::{DrawKey, Seeded};

/// Below this mean a count is drawn by inversion (one uniform, at most a
/// few dozen terms); at or above it by transformed rejection.
const INVERSION_BELOW: f64 = 10.0;

/// The uniforms of one keyed draw.
pub(super) struct Draw {
    stream: Seeded,
    key: u64,
    next: u32,
    /// `DrawKey::Count`, or the keep-alive client's own `DrawKey::Pool`.
    kind: DrawKey,
}

impl Draw {
    /// Draw number `key` of a run on `stream`.
    pub fn new(stream: Seeded, key: u64) -> Self {
        Draw::keyed(stream, key, DrawKey::Count)
    }

    /// Draw number `key` of a run's draws of `kind`.
    pub fn keyed(stream: Seeded, key: u64, kind: DrawKey) -> Self {
        Draw {
            stream,
            key,
            next: 0,
            kind,
        }
    }

    /// The draw's next uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.next += 1;
        self.stream.uniform(self.key, self.kind, self.next)
    }

    /// An exponential of mean 1.
    pub fn exp1(&mut self) -> f64 {
        -self.uniform().ln()
    }

    /// A Poisson count of mean `mean` (0 for a mean that is not positive).
    pub fn poisson(&mut self, mean: f64) -> u64 {
        if mean.is_nan() || mean <= 0.0 {
            return 0;
        }
        if mean < INVERSION_BELOW {
            return self.inversion(mean);
        }
        self.ptrs(mean)
    }

    /// The smallest k whose cumulative probability reaches one uniform.
    fn inversion(&mut self, mean: f64) -> u64 {
        let u = self.uniform();
        let mut p = (-mean).exp();
        let (mut k, mut cdf) = (0u64, p);
        // The tail past 200 terms of a mean below 10 is under 1e-200.
        while u > cdf && k < 200 {
            k += 1;
            p *= mean / k as f64;
            cdf += p;
        }
        k
    }

    /// Hörmann's transformed rejection with squeeze, PTRS (W. Hörmann, "The
    /// transformed rejection method for generating Poisson random
    /// variables", Insurance: Mathematics and Economics 12, 1993), for a
    /// mean of 10 or more: exact, about 1.2 pairs of uniforms a draw.
    fn ptrs(&mut self, mean: f64) -> u64 {
        let (slam, loglam) = (mean.sqrt(), mean.ln());
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
        let v_r = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = self.uniform() - 0.5;
            let v = self.uniform();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + mean + 0.43).floor();
            if us >= 0.07 && v <= v_r {
                return k as u64;
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue;
            }
            let lhs = v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln();
            if lhs <= -mean + k * loglam - ln_factorial(k) {
                return k as u64;
            }
        }
    }
}

/// ln(k!) for a whole k ≥ 0: Stirling's series with ten terms, shifted up
/// to 7 for small k (exact to double precision there too).
fn ln_factorial(k: f64) -> f64 {
    const A: [f64; 10] = [
        8.333_333_333_333_333e-2,
        -2.777_777_777_777_778e-3,
        7.936_507_936_507_937e-4,
        -5.952_380_952_380_952e-4,
        8.417_508_417_508_418e-4,
        -1.917_526_917_526_918e-3,
        6.410_256_410_256_41e-3,
        -2.955_065_359_477_124e-2,
        1.796_443_723_688_307e-1,
        -1.392_432_216_905_90,
    ];
    let x = k + 1.0;
    if x <= 2.0 {
        return 0.0;
    }
    let shift = if x < 7.0 { (7.0 - x).floor() } else { 0.0 };
    let mut x0 = x + shift;
    let x2 = 1.0 / (x0 * x0);
    let series = A.iter().rev().fold(0.0, |acc, &a| acc * x2 + a);
    let mut gl = series / x0 + 0.5 * (2.0 * std::f64::consts::PI).ln() + (x0 - 0.5) * x0.ln() - x0;
    for _ in 0..shift as u32 {
        x0 -= 1.0;
        gl -= x0.ln();
    }
    gl
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::draw::Stream;

    #[test]
    fn ln_factorial_is_exact_on_small_and_large_numbers() {
        // 5! = 120, 10! = 3,628,800; 170! by the sum of logs.
        assert!((ln_factorial(5.0) - 120f64.ln()).abs() < 1e-12);
        assert!((ln_factorial(10.0) - 3_628_800f64.ln()).abs() < 1e-10);
        let direct: f64 = (1..=170).map(|i| f64::from(i).ln()).sum();
        assert!((ln_factorial(170.0) - direct).abs() < 1e-9);
        assert_eq!((ln_factorial(0.0), ln_factorial(1.0)), (0.0, 0.0));
    }

    /// Mean and variance of 100,000 draws of each mean, both within 5
    /// standard errors: the mean's is sqrt(m / n); the sample variance's
    /// about m·sqrt(2 / n) (the Poisson's fourth central moment is m + 3m²,
    /// so Var(s²) ≈ (m + 2m²)/n).
    #[test]
    fn counts_have_the_poisson_mean_and_variance() {
        let n = 100_000u64;
        for mean in [0.3, 4.0, 9.99, 10.0, 37.5, 1e4, 1e9] {
            let stream = Stream {
                seed: 7,
                replication: 1,
            }
            .seeded();
            let draws: Vec<f64> = (0..n)
                .map(|k| Draw::new(stream, k).poisson(mean) as f64)
                .collect();
            let m = draws.iter().sum::<f64>() / n as f64;
            let var = draws.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
            let se_mean = (mean / n as f64).sqrt();
            let se_var = ((mean + 2.0 * mean * mean) / n as f64).sqrt();
            assert!((m - mean).abs() < 5.0 * se_mean, "mean {mean}: {m}");
            assert!((var - mean).abs() < 5.0 * se_var, "mean {mean}: variance {var}");
        }
    }

    #[test]
    fn small_means_give_the_poisson_probabilities() {
        // Mean 2: P(0) = e⁻² = 0.1353, P(1) = 0.2707, P(2) = 0.2707;
        // 100,000 draws, binomial sd ≤ 0.0015 each.
        let stream = Stream::default().seeded();
        let mut hist = [0u32; 3];
        for k in 0..100_000u64 {
            if let Some(h) = hist.get_mut(Draw::new(stream, k).poisson(2.0) as usize) {
                *h += 1;
            }
        }
        let e2 = (-2f64).exp();
        for (i, want) in [e2, 2.0 * e2, 2.0 * e2].into_iter().enumerate() {
            let got = f64::from(hist[i]) / 100_000.0;
            assert!((got - want).abs() < 5.0 * 0.0015, "P({i}) = {got}, want {want}");
        }
    }

    #[test]
    fn a_draw_is_its_key_alone() {
        let stream = Stream {
            seed: 1,
            replication: 2,
        }
        .seeded();
        let a = Draw::new(stream, 5).poisson(1e6);
        assert_eq!(a, Draw::new(stream, 5).poisson(1e6));
        assert_ne!(a, Draw::new(stream, 6).poisson(1e6));
        assert_eq!(Draw::new(stream, 5).poisson(0.0), 0);
    }
}

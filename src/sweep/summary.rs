//! The distribution of each metric over the replications of one
//! combination: mean, nearest-rank percentiles, extremes, the shares of
//! replications that were exposed, SIGKILLed or never Ready, and a 95 %
//! confidence half-width of the mean. Computed from the metrics as they
//! come, never from the CSV.
//!
//! Invariant: a summary row depends only on the metrics added since the
//! last `clear`, in any order (values are sorted before anything is read),
//! so it is the same on any thread and in any shard.

use crate::model::{Field, Metrics};

use super::csv::push_text;

/// The numeric metrics, by their index in `Metrics::NAMES`.
const NUMERIC: [usize; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 10];
/// The statistics of each numeric metric, as column suffixes.
pub const STATS: [&str; 6] = ["mean", "p50", "p90", "p99", "min", "max"];
/// Metrics that get a confidence half-width (`<metric>_ci95`).
const CI_METRICS: [usize; 2] = [0, 3];
/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The replications of one combination, metric by metric.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The values present, per numeric metric (an absent `ready_ms` is not a value).
    values: [Vec<u64>; NUMERIC.len()],
    replications: u64,
    exposed: u64,
    sigkilled: u64,
    never_ready: u64,
}

/// One metric's statistics over the replications where it has a value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// The mean.
    pub mean: f64,
    /// The median (nearest rank).
    pub p50: u64,
    /// The 90th percentile (nearest rank).
    pub p90: u64,
    /// The 99th percentile (nearest rank).
    pub p99: u64,
    /// The smallest value.
    pub min: u64,
    /// The largest value.
    pub max: u64,
    /// How many replications had a value.
    pub count: usize,
    /// 1.96 · s / √n (s the sample standard deviation); `None` below 2 values.
    pub ci95: Option<f64>,
}

impl Summary {
    /// The summary columns after `run` and the axes: `replications`, the
    /// statistics of each numeric metric, the shares, the half-widths.
    pub fn columns() -> Vec<String> {
        let mut columns = vec!["replications".to_string()];
        for &m in &NUMERIC {
            columns.extend(STATS.iter().map(|s| format!("{}_{s}", Metrics::NAMES[m])));
        }
        columns.extend(["p_exposed", "p_sigkilled", "p_never_ready"].map(String::from));
        columns.extend(CI_METRICS.iter().map(|&m| format!("{}_ci95", Metrics::NAMES[m])));
        columns
    }

    /// Forgets everything, keeping the allocations.
    pub fn clear(&mut self) {
        self.values.iter_mut().for_each(Vec::clear);
        self.replications = 0;
        self.exposed = 0;
        self.sigkilled = 0;
        self.never_ready = 0;
    }

    /// One more replication.
    pub fn add(&mut self, metrics: &Metrics) {
        let fields = metrics.fields();
        for (values, &m) in self.values.iter_mut().zip(&NUMERIC) {
            match fields[m] {
                Field::Millis(Some(v)) => values.push(v),
                Field::Count(n) => values.push(u64::from(n)),
                Field::Millis(None) | Field::Text(_) => {}
            }
        }
        self.replications += 1;
        self.exposed += u64::from(metrics.exposed_total_ms > 0);
        self.sigkilled += u64::from(metrics.sigkilled > 0);
        self.never_ready += u64::from(metrics.ready_ms.is_none());
    }

    /// Replications seen so far.
    pub fn replications(&self) -> u64 {
        self.replications
    }

    /// The statistics of metric `name` (a numeric one of `Metrics::NAMES`),
    /// `None` if it had no value in any replication.
    pub fn stats(&mut self, name: &str) -> Option<Stats> {
        let slot = NUMERIC.iter().position(|&m| Metrics::NAMES[m] == name)?;
        stats_of(&mut self.values[slot])
    }

    /// Share of replications with `exposed_total_ms` > 0.
    pub fn p_exposed(&self) -> f64 {
        self.share(self.exposed)
    }

    /// Share of replications with a SIGKILL.
    pub fn p_sigkilled(&self) -> f64 {
        self.share(self.sigkilled)
    }

    /// Share of replications that were never Ready.
    pub fn p_never_ready(&self) -> f64 {
        self.share(self.never_ready)
    }

    fn share(&self, count: u64) -> f64 {
        count as f64 / self.replications.max(1) as f64
    }

    /// Appends the cells of `columns()`, each preceded by a comma.
    pub fn push_cells(&mut self, buf: &mut Vec<u8>) {
        buf.push(b',');
        super::csv::push_u64(buf, self.replications);
        let mut ci = [None; CI_METRICS.len()];
        for (slot, &m) in NUMERIC.iter().enumerate() {
            let stats = stats_of(&mut self.values[slot]);
            if let Some(i) = CI_METRICS.iter().position(|&c| c == m) {
                ci[i] = stats.and_then(|s| s.ci95);
            }
            match stats {
                Some(s) => {
                    buf.push(b',');
                    push_number(buf, s.mean);
                    for v in [s.p50, s.p90, s.p99, s.min, s.max] {
                        buf.push(b',');
                        super::csv::push_u64(buf, v);
                    }
                }
                None => buf.extend_from_slice(b",,,,,,"),
            }
        }
        for share in [self.p_exposed(), self.p_sigkilled(), self.p_never_ready()] {
            buf.push(b',');
            push_number(buf, share);
        }
        for half in ci {
            buf.push(b',');
            if let Some(h) = half {
                push_number(buf, h);
            }
        }
    }
}

/// The nearest-rank percentile `p` (0 < p ≤ 100) of sorted `values`: the
/// smallest value with at least p % of the values at or below it.
pub fn nearest_rank(sorted: &[u64], p: u64) -> u64 {
    let rank = (sorted.len() as u64 * p).div_ceil(100).max(1);
    sorted[(rank - 1) as usize]
}

fn stats_of(values: &mut [u64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let n = values.len() as f64;
    let sum: u128 = values.iter().map(|&v| u128::from(v)).sum();
    let mean = sum as f64 / n;
    let ci95 = (values.len() > 1).then(|| {
        let squares: f64 = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum();
        Z95 * (squares / (n - 1.0)).sqrt() / n.sqrt()
    });
    Some(Stats {
        mean,
        p50: nearest_rank(values, 50),
        p90: nearest_rank(values, 90),
        p99: nearest_rank(values, 99),
        min: values[0],
        max: values[values.len() - 1],
        count: values.len(),
        ci95,
    })
}

/// A fraction or a mean, rounded to 3 decimals and written in its shortest
/// form (`3000`, `2999.5`, `0.123`).
fn push_number(buf: &mut Vec<u8>, x: f64) {
    let rounded = (x * 1000.0).round() / 1000.0;
    push_text(buf, &format!("{rounded}"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Outcome, PodPhase};

    fn metrics(ready: Option<u64>, exposed: u64, sigkilled: u32) -> Metrics {
        Metrics {
            ready_ms: ready,
            exposed_startup_ms: exposed,
            exposed_shutdown_ms: 0,
            exposed_total_ms: exposed,
            termination_ms: None,
            completed_ms: None,
            restarts: 0,
            sigkilled,
            phase: PodPhase::Running,
            outcome: Outcome::Settled,
            end_ms: 10_000,
        }
    }

    #[test]
    fn nearest_rank_percentiles_follow_the_definition() {
        // 1..=10: p50 is the 5th value, p90 the 9th, p99 the 10th (ceil(9.9)).
        let v: Vec<u64> = (1..=10).collect();
        assert_eq!([50, 90, 99, 100].map(|p| nearest_rank(&v, p)), [5, 9, 10, 10]);
        assert_eq!(nearest_rank(&[7], 1), 7);
    }

    #[test]
    fn a_row_holds_means_percentiles_shares_and_half_widths() {
        let mut s = Summary::default();
        // ready 1, 2, 3 s and one never Ready; exposed in two of four.
        for (ready, exposed, killed) in [
            (Some(1000), 0, 0),
            (Some(3000), 500, 1),
            (None, 0, 0),
            (Some(2000), 100, 0),
        ] {
            s.add(&metrics(ready, exposed, killed));
        }
        let ready = s.stats("ready_ms").unwrap();
        // Mean 2000; sd of 1000, 2000, 3000 is 1000, so 1.96·1000/√3 = 1131.6.
        assert_eq!(
            (ready.mean, ready.p50, ready.p90, ready.min, ready.max),
            (2000.0, 2000, 3000, 1000, 3000)
        );
        assert!((ready.ci95.unwrap() - 1131.586).abs() < 0.01);
        assert_eq!(
            (s.p_exposed(), s.p_sigkilled(), s.p_never_ready()),
            (0.5, 0.25, 0.25)
        );
        let mut row = Vec::new();
        s.push_cells(&mut row);
        let row = String::from_utf8(row).unwrap();
        assert!(
            row.starts_with(",4,2000,2000,3000,3000,1000,3000,150,0,500,500,0,500,"),
            "{row}"
        );
        assert!(row.ends_with(",0.5,0.25,0.25,1131.586,233.282"), "{row}");
        assert_eq!(row.split(',').count() - 1, Summary::columns().len());
    }
}

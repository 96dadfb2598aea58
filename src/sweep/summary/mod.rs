//! The distribution of each metric over the replications of one
//! combination: mean, nearest-rank percentiles, extremes, three shares of
//! replications (a Pod's exposed, SIGKILLed, never Ready; a Service's with
//! a failed request, SIGKILLed, never Ready) and a 95 % confidence
//! half-width of two means. Computed from the metrics as they come, never
//! from the CSV. A Pod grid and a Service grid share every statistic and
//! every column rule; only the metrics (`Table`) differ.
//!
//! Invariant: a summary row depends only on the metrics added since the
//! last `clear`, in any order (values are sorted before anything is read),
//! so it is the same on any thread and in any shard.

use crate::model::service::{CrashFigures, DrainFigures, NodeFigures, RolloutFigures, ServiceMetrics};
use crate::model::{Field, Metrics, RunSpec};

use super::csv::push_text;

/// The statistics of each numeric metric, as column suffixes.
pub const STATS: [&str; 6] = ["mean", "p50", "p90", "p99", "min", "max"];
/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Whose metrics a summary covers: a Pod grid's, or a Service grid's with
/// the figures of its disruption (a rollout's or a drain's follow the
/// Service's, as in the CSV).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Table {
    /// `Metrics::NAMES`.
    #[default]
    Pod,
    /// `ServiceMetrics::NAMES`.
    Service,
    /// The Service's, then `RolloutFigures::NAMES`.
    Rollout,
    /// The Service's, then `DrainFigures::NAMES`.
    Drain,
    /// The Service's, then `DrainFigures::NAMES` (a spot reclaim's drain,
    /// and the budget any lost node goes below), then `NodeFigures::NAMES`.
    Node,
    /// The Service's, then `CrashFigures::NAMES`: a grid whose base crashes
    /// an app, with neither a rollout nor a drain (whose columns win).
    Crash,
}

/// A Service's numeric metrics: every one but `outcome`.
const SERVICE: [&str; 16] = pick(
    &ServiceMetrics::NAMES,
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16],
);

impl Table {
    /// Whose metrics `run` has: a Service's when it has a `[service]`, with
    /// its rollout's or drain's figures (a scenario has one or the other,
    /// `check_service`).
    pub fn of(run: &RunSpec) -> Table {
        let Some(service) = &run.service else {
            return Table::Pod;
        };
        if service.disruptions.iter().any(|d| d.rollout.is_some()) {
            Table::Rollout
        } else if service.disruptions.iter().any(|d| d.node_failure.is_some()) {
            Table::Node
        } else if (service.disruptions.iter()).any(|d| d.drain.is_some() || d.scale_down_node.is_some()) {
            Table::Drain
        } else if service.disruptions.iter().any(|d| d.crash.is_some()) {
            Table::Crash
        } else {
            Table::Service
        }
    }

    /// The numeric metrics (every metric but the words), in CSV order.
    pub fn numeric(self) -> &'static [&'static str] {
        const POD: [&str; 9] = pick(&Metrics::NAMES, [0, 1, 2, 3, 4, 5, 6, 7, 10]);
        const ROLLOUT: [&str; 20] = join(&SERVICE, &RolloutFigures::NAMES);
        const DRAIN: [&str; 19] = join(&SERVICE, &DrainFigures::NAMES);
        const NODE: [&str; 25] = join(&DRAIN, &NodeFigures::NAMES);
        const CRASH: [&str; 17] = join(&SERVICE, &CrashFigures::NAMES);
        match self {
            Table::Pod => &POD,
            Table::Service => &SERVICE,
            Table::Rollout => &ROLLOUT,
            Table::Drain => &DRAIN,
            Table::Node => &NODE,
            Table::Crash => &CRASH,
        }
    }

    /// The shares' columns, in `Summary::shares` order. A rollout or a
    /// drain that did not end within the run leaves its time empty, which
    /// the statistics skip (as an absent `ready_ms`): its share says how
    /// often, so a mean over the finished ones never hides the others.
    pub fn shares(self) -> &'static [&'static str] {
        match self {
            Table::Pod => &["p_exposed", "p_sigkilled", "p_never_ready"],
            Table::Service | Table::Crash => &["p_failed", "p_sigkilled", "p_never_ready"],
            Table::Rollout => &["p_failed", "p_sigkilled", "p_never_ready", "p_rollout_unfinished"],
            Table::Drain => &["p_failed", "p_sigkilled", "p_never_ready", "p_drain_unfinished"],
            Table::Node => &["p_failed", "p_sigkilled", "p_never_ready", "p_unreplaced"],
        }
    }

    /// The metrics that get a confidence half-width (`<metric>_ci95`): the
    /// two a reader compares (a Pod's time to Ready and exposure; a
    /// Service's failed requests and termination time).
    pub fn ci_metrics(self) -> [&'static str; 2] {
        match self {
            Table::Pod => ["ready_ms", "exposed_total_ms"],
            _ => ["failed", "termination_ms"],
        }
    }
}

/// `names` at `indices`, at compile time: the numeric columns are named by
/// the metrics' own list, never spelt twice.
const fn pick<const N: usize, const M: usize>(
    names: &[&'static str; N],
    indices: [usize; M],
) -> [&'static str; M] {
    let mut out = [""; M];
    let mut i = 0;
    while i < M {
        out[i] = names[indices[i]];
        i += 1;
    }
    out
}

/// `a` then `b`, at compile time (`M` = `A` + `B`, checked when built).
const fn join<const A: usize, const B: usize, const M: usize>(
    a: &[&'static str; A],
    b: &[&'static str; B],
) -> [&'static str; M] {
    assert!(A + B == M);
    let mut out = [""; M];
    let mut i = 0;
    while i < M {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}

/// The replications of one combination, metric by metric.
#[derive(Clone, Debug)]
pub struct Summary {
    table: Table,
    /// The values present, per numeric metric (an absent `ready_ms` is not a value).
    values: Vec<Vec<u64>>,
    replications: u64,
    /// Replications counted in each share, in `Table::shares` order.
    shared: [u64; 4],
}

impl Default for Summary {
    /// A Pod grid's.
    fn default() -> Summary {
        Summary::new(Table::Pod)
    }
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
    /// An empty summary of `table`'s metrics.
    pub fn new(table: Table) -> Summary {
        Summary {
            table,
            values: vec![Vec::new(); table.numeric().len()],
            replications: 0,
            shared: [0; 4],
        }
    }

    /// The summary columns after `run` and the axes: `replications`, the
    /// statistics of each numeric metric, the shares, the half-widths.
    pub fn columns(table: Table) -> Vec<String> {
        let mut columns = vec!["replications".to_string()];
        for m in table.numeric() {
            columns.extend(STATS.iter().map(|s| format!("{m}_{s}")));
        }
        columns.extend(table.shares().iter().map(|s| s.to_string()));
        columns.extend(table.ci_metrics().map(|m| format!("{m}_ci95")));
        columns
    }

    /// Forgets everything, keeping the allocations.
    pub fn clear(&mut self) {
        self.values.iter_mut().for_each(Vec::clear);
        self.replications = 0;
        self.shared = [0; 4];
    }

    /// One more replication of a Pod grid.
    pub fn add(&mut self, metrics: &Metrics) {
        debug_assert_eq!(self.table, Table::Pod);
        let numbers = metrics.fields().into_iter().filter_map(|f| match f {
            Field::Millis(v) => Some(v),
            Field::Count(n) => Some(Some(u64::from(n))),
            Field::Text(_) => None,
        });
        let flags = [
            metrics.exposed_total_ms > 0,
            metrics.sigkilled > 0,
            metrics.ready_ms.is_none(),
            false,
        ];
        self.add_row(numbers, flags);
    }

    /// One more replication of a Service grid, its rollout's or drain's
    /// figures after the Service's as the table has them.
    pub fn add_service(&mut self, metrics: &ServiceMetrics) {
        debug_assert_ne!(self.table, Table::Pod);
        let numbers = metrics.numbers();
        // Every cell but the word (`outcome`), as `Table::numeric` lists them.
        let service = ServiceMetrics::NAMES
            .iter()
            .zip(numbers)
            .filter(|(name, _)| **name != "outcome")
            .map(|(_, n)| n);
        let rollout = metrics.rollout.iter().flat_map(|r| r.numbers());
        let drain = metrics.drain.iter().flat_map(|d| d.numbers());
        let node = metrics.node.iter().flat_map(|n| n.numbers());
        let crash = metrics.crash.iter().flat_map(|c| c.numbers());
        let unfinished = match self.table {
            Table::Rollout => metrics.rollout.is_none_or(|r| r.rollout_ms.is_none()),
            Table::Drain => metrics.drain.is_none_or(|d| d.drain_ms.is_none()),
            // Some lost node's Pods were not all replaced within the run.
            Table::Node => metrics.node.as_ref().is_none_or(|n| n.numbers()[4].is_none()),
            Table::Pod | Table::Service | Table::Crash => false,
        };
        let flags = [
            metrics.failed > 0,
            metrics.sigkilled() > 0,
            metrics.ready_ms.is_none(),
            unfinished,
        ];
        self.add_row(
            service.chain(rollout).chain(drain).chain(node).chain(crash),
            flags,
        );
    }

    fn add_row(&mut self, numbers: impl Iterator<Item = Option<u64>>, flags: [bool; 4]) {
        for (values, n) in self.values.iter_mut().zip(numbers) {
            values.extend(n);
        }
        self.replications += 1;
        for (count, flag) in self.shared.iter_mut().zip(flags) {
            *count += u64::from(flag);
        }
    }

    /// Whose metrics it summarises.
    pub fn table(&self) -> Table {
        self.table
    }

    /// Replications seen so far.
    pub fn replications(&self) -> u64 {
        self.replications
    }

    /// The statistics of metric `name` (one of `Table::numeric`), `None` if
    /// it had no value in any replication.
    pub fn stats(&mut self, name: &str) -> Option<Stats> {
        let slot = self.table.numeric().iter().position(|&m| m == name)?;
        stats_of(&mut self.values[slot])
    }

    /// Each share with its column: the fraction of replications it counts.
    pub fn shares(&self) -> Vec<(&'static str, f64)> {
        let n = self.replications.max(1) as f64;
        let names = self.table.shares();
        names
            .iter()
            .zip(self.shared)
            .map(|(name, count)| (*name, count as f64 / n))
            .collect()
    }

    /// Appends the cells of `columns()`, each preceded by a comma.
    pub fn push_cells(&mut self, buf: &mut Vec<u8>) {
        buf.push(b',');
        super::csv::push_u64(buf, self.replications);
        let table = self.table;
        let ci_metrics = table.ci_metrics();
        let mut ci = [None; 2];
        for (slot, m) in table.numeric().iter().enumerate() {
            let stats = stats_of(&mut self.values[slot]);
            if let Some(i) = ci_metrics.iter().position(|c| c == m) {
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
        for (_, share) in self.shares() {
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
mod tests;

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

use crate::model::service::ServiceMetrics;
use crate::model::{Field, Metrics};

use super::csv::push_text;

/// The statistics of each numeric metric, as column suffixes.
pub const STATS: [&str; 6] = ["mean", "p50", "p90", "p99", "min", "max"];
/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Whose metrics a summary covers: a Pod grid's or a Service grid's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Table {
    /// `Metrics::NAMES`.
    #[default]
    Pod,
    /// `ServiceMetrics::NAMES`.
    Service,
}

impl Table {
    /// The numeric metrics (every metric but the words), in CSV order.
    pub fn numeric(self) -> &'static [&'static str] {
        const POD: [&str; 9] = pick(&Metrics::NAMES, [0, 1, 2, 3, 4, 5, 6, 7, 10]);
        const SERVICE: [&str; 16] = pick(
            &ServiceMetrics::NAMES,
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16],
        );
        match self {
            Table::Pod => &POD,
            Table::Service => &SERVICE,
        }
    }

    /// The shares' columns, in `Summary::shares` order.
    pub fn shares(self) -> [&'static str; 3] {
        match self {
            Table::Pod => ["p_exposed", "p_sigkilled", "p_never_ready"],
            Table::Service => ["p_failed", "p_sigkilled", "p_never_ready"],
        }
    }

    /// The metrics that get a confidence half-width (`<metric>_ci95`): the
    /// two a reader compares (a Pod's time to Ready and exposure; a
    /// Service's failed requests and termination time).
    pub fn ci_metrics(self) -> [&'static str; 2] {
        match self {
            Table::Pod => ["ready_ms", "exposed_total_ms"],
            Table::Service => ["failed", "termination_ms"],
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

/// The replications of one combination, metric by metric.
#[derive(Clone, Debug)]
pub struct Summary {
    table: Table,
    /// The values present, per numeric metric (an absent `ready_ms` is not a value).
    values: Vec<Vec<u64>>,
    replications: u64,
    /// Replications counted in each share, in `Table::shares` order.
    shared: [u64; 3],
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
            shared: [0; 3],
        }
    }

    /// The summary columns after `run` and the axes: `replications`, the
    /// statistics of each numeric metric, the shares, the half-widths.
    pub fn columns(table: Table) -> Vec<String> {
        let mut columns = vec!["replications".to_string()];
        for m in table.numeric() {
            columns.extend(STATS.iter().map(|s| format!("{m}_{s}")));
        }
        columns.extend(table.shares().map(String::from));
        columns.extend(table.ci_metrics().map(|m| format!("{m}_ci95")));
        columns
    }

    /// Forgets everything, keeping the allocations.
    pub fn clear(&mut self) {
        self.values.iter_mut().for_each(Vec::clear);
        self.replications = 0;
        self.shared = [0; 3];
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
        ];
        self.add_row(numbers, flags);
    }

    /// One more replication of a Service grid.
    pub fn add_service(&mut self, metrics: &ServiceMetrics) {
        debug_assert_eq!(self.table, Table::Service);
        let numbers = metrics.numbers();
        // Every cell but the word (`outcome`), as `Table::numeric` lists them.
        let numeric = ServiceMetrics::NAMES
            .iter()
            .zip(numbers)
            .filter(|(name, _)| **name != "outcome")
            .map(|(_, n)| n);
        let flags = [
            metrics.failed > 0,
            metrics.sigkilled() > 0,
            metrics.ready_ms.is_none(),
        ];
        self.add_row(numeric, flags);
    }

    fn add_row(&mut self, numbers: impl Iterator<Item = Option<u64>>, flags: [bool; 3]) {
        for (values, n) in self.values.iter_mut().zip(numbers) {
            values.extend(n);
        }
        self.replications += 1;
        for (count, flag) in self.shared.iter_mut().zip(flags) {
            *count += u64::from(flag);
        }
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
    pub fn shares(&self) -> [(&'static str, f64); 3] {
        let n = self.replications.max(1) as f64;
        let names = self.table.shares();
        [0, 1, 2].map(|i| (names[i], self.shared[i] as f64 / n))
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
            s.shares(),
            [("p_exposed", 0.5), ("p_sigkilled", 0.25), ("p_never_ready", 0.25)]
        );
        let mut row = Vec::new();
        s.push_cells(&mut row);
        let row = String::from_utf8(row).unwrap();
        assert!(
            row.starts_with(",4,2000,2000,3000,3000,1000,3000,150,0,500,500,0,500,"),
            "{row}"
        );
        assert!(row.ends_with(",0.5,0.25,0.25,1131.586,233.282"), "{row}");
        assert_eq!(row.split(',').count() - 1, Summary::columns(Table::Pod).len());
    }

    fn service(failed: u64, termination: u64, sigkilled: u32) -> ServiceMetrics {
        use crate::model::service::Deleted;
        ServiceMetrics {
            ready_ms: Some(3000),
            requests: 100,
            failed,
            failed_by: [failed, 0, 0, 0, 0, 0],
            retried_ok: 0,
            min_ready_endpoints: Some(2),
            zero_endpoints_ms: 0,
            deleted: vec![Deleted {
                replica: 0,
                deleted_ms: 13_000,
                termination_ms: Some(termination),
                last_request_ms: None,
                rules_dropped_ms: Vec::new(),
            }],
            replicas: vec![metrics(Some(3000), 0, sigkilled)],
            end_ms: 30_000,
            horizon: false,
            rollout: None,
            drain: None,
        }
    }

    #[test]
    fn a_service_row_summarises_the_service_metrics_by_the_same_rules() {
        let mut s = Summary::new(Table::Service);
        // failed 0, 2, 7; the deleted Pod terminates in 1 s, 1 s, 4 s; one SIGKILL.
        for (failed, termination, killed) in [(0, 1000, 0), (2, 1000, 0), (7, 4000, 1)] {
            s.add_service(&service(failed, termination, killed));
        }
        let mut row = Vec::new();
        s.push_cells(&mut row);
        let row = String::from_utf8(row).unwrap();
        let cells: Vec<&str> = row[1..].split(',').collect();
        let columns = Summary::columns(Table::Service);
        assert_eq!(cells.len(), columns.len());
        let cell = |name: &str| cells[columns.iter().position(|c| c == name).unwrap()];
        // Sorted 0, 2, 7: mean 3; p50 is the ⌈1.5⌉ = 2nd value, p90 the ⌈2.7⌉ = 3rd.
        let failed: Vec<&str> = STATS.iter().map(|st| cell(&format!("failed_{st}"))).collect();
        assert_eq!(failed, ["3", "2", "7", "7", "0", "7"]);
        assert_eq!(cell("failed_refused_mean"), "3");
        assert_eq!(cell("failed_timeout_max"), "0");
        assert_eq!(cell("termination_ms_mean"), "2000");
        // The metric no replication has: six empty cells.
        assert_eq!(cell("last_request_to_deleted_ms_p50"), "");
        // Two of three failed a request; one of three SIGKILLed a container.
        assert_eq!(
            (cell("p_failed"), cell("p_sigkilled"), cell("p_never_ready")),
            ("0.667", "0.333", "0")
        );
        // s² of 0, 2, 7 is 26/2 = 13: 1.96·√13/√3 = 4.080; of 1, 1, 4 s it
        // is 3 s²: 1.96·√3/√3 s = 1959.964 ms.
        assert_eq!(
            (cell("failed_ci95"), cell("termination_ms_ci95")),
            ("4.08", "1959.964")
        );
        assert!(!columns.iter().any(|c| c.starts_with("outcome")), "{columns:?}");
        assert_eq!(
            columns[1..7],
            [
                "ready_ms_mean",
                "ready_ms_p50",
                "ready_ms_p90",
                "ready_ms_p99",
                "ready_ms_min",
                "ready_ms_max"
            ]
        );
    }

    /// One replica on one node, heard 1.95 s after each change, synced at
    /// once; a constant 10 requests/s for 14 s from traffic's start
    /// (2.95 s), request k sent at 3.05 s + 100 ms · k; replica 0 deleted
    /// 10 s in (12.95 s). The app closes its listener at SIGTERM and lives
    /// 5 s more (tests/model/service.rs works the same run out).
    const LONE: &str = "[service]\nreplicas = 1\nnodes = 1\npropagation = \"1950ms\"\n\
        kubelet_delay = \"50ms\"\nmin_sync_period = \"0s\"\ncleanup = \"60s\"\n\
        [traffic]\nrate = 10\narrival = \"constant\"\nservice_time = \"10ms\"\nduration = \"14s\"\n\
        [[disruptions]]\nafter_ready = \"10s\"\ndelete = 0\n\
        [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\ndrain = \"5s\"\n";

    #[test]
    fn a_service_grid_summary_has_one_row_per_combination_by_hand() {
        use crate::sweep::{Grid, Sinks, run};
        let base = crate::scenario::Scenario::parse(LONE, "lone.toml").unwrap();
        let text = "base = \"lone.toml\"\nreplications = 3\n[axes]\n\"service.kubelet_delay\" = [\"50ms\", \"550ms\"]\n";
        let grid = Grid::parse(text, "g.toml", base, std::path::Path::new(".")).unwrap();
        let (mut csv, mut summary) = (Vec::new(), Vec::new());
        let sinks = Sinks {
            csv: &mut csv,
            summary: Some(&mut summary),
        };
        let written = run(
            &grid,
            0..2,
            2,
            sinks,
            &mut |_| std::ops::ControlFlow::Continue(()),
        )
        .unwrap();
        assert_eq!(written.summary.map(|w| w.rows), Some(2));
        let text = String::from_utf8(summary).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let columns: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(columns[..3], ["run", "service.kubelet_delay_ms", "replications"]);
        let cell = |row: usize, name: &str| {
            let i = columns.iter().position(|c| *c == name).unwrap();
            lines[row].split(',').nth(i).unwrap().to_string()
        };
        // SIGTERM at 13 s: the requests of 13.05 s to 16.85 s are refused,
        // 39; at 13.5 s, those of 13.55 s on, 34. Of 139 sent, in every
        // replication (nothing is drawn), so the half-width is 0.
        for (row, refused) in [(1, "39"), (2, "34")] {
            for stat in STATS {
                assert_eq!(cell(row, &format!("failed_{stat}")), refused, "{stat}");
                assert_eq!(cell(row, &format!("failed_refused_{stat}")), refused, "{stat}");
            }
            assert_eq!(cell(row, "requests_mean"), "139");
            assert_eq!(cell(row, "replications"), "3");
            assert_eq!(
                (cell(row, "p_failed"), cell(row, "failed_ci95")),
                ("1".into(), "0".into())
            );
        }
    }
}

//! `podsim run --replications N`: the scenario run N times, replication 0
//! to N-1, and each metric's distribution over them, as text or JSON.
//!
//! Invariant: the figures are those a sweep's summary row would hold for
//! the same scenario, seed and replications (the same `Summary`).

use std::fmt::Write as _;
use std::ops::Range;

use podsim::engine::{Halt, Limits};
use podsim::model::{Measured, RunSpec, Simulator};
use podsim::sweep::summary::{STATS, Stats, Summary, Table};
use rayon::prelude::*;

/// Replications simulated in parallel between two additions to the
/// summary: enough to keep every core busy, few enough that their metrics
/// wait in little memory.
const BLOCK: u64 = 4096;

/// The summary of `replications` runs of `run` (its seed, replications 0
/// to N-1): a Pod's metrics, or a Service's when it has a `[service]`.
/// The runs of a block are shared out over the cores (a Service run can
/// take a second), and their metrics added in replication order, so the
/// figures do not depend on the thread count.
/// Every run obeys `limits`: the halt of one is the answer.
pub fn summarise(run: &RunSpec, replications: u64, limits: &Limits) -> Result<Summary, Halt> {
    let mut summary = Summary::new(Table::of(run));
    for start in (0..replications).step_by(BLOCK as usize) {
        let block = start..(start + BLOCK).min(replications);
        let measured = in_order(block, || simulator(run, limits), replicate);
        for m in &measured {
            add(&mut summary, m.as_ref().map_err(|&halt| halt)?);
        }
    }
    Ok(summary)
}

/// The simulator for replications of `run`, obeying `limits`: a Job's Pod
/// runs alone, without the Job controller (`jobs: false`), and the
/// figures are its.
fn simulator(run: &RunSpec, limits: &Limits) -> Simulator {
    let mut simulator = Simulator::for_run(run.clone(), false);
    simulator.set_limits(limits.clone());
    simulator
}

/// Replication `r` of the simulator's spec, or why its limits halted it.
fn replicate(s: &mut Simulator, r: u64) -> Result<Measured, Halt> {
    s.spec_mut(true).stream.replication = r;
    let measured = s.run();
    s.halted().map_or(Ok(measured), Err)
}

/// Adds one run's figures to `summary`.
fn add(summary: &mut Summary, measured: &Measured) {
    match measured {
        Measured::Pod(m) | Measured::Job(m, _) => summary.add(m),
        Measured::Service(m) => summary.add_service(m),
    }
}

/// `run` of each replication of `block` on the cores, each thread on a
/// simulator of its own from `make`; the results in replication order.
fn in_order<S, M: Send>(
    block: Range<u64>,
    make: impl Fn() -> S + Sync + Send,
    run: impl Fn(&mut S, u64) -> M + Sync + Send,
) -> Vec<M> {
    block.into_par_iter().map_init(make, run).collect()
}

/// Whether every one of two or more replications measured exactly the
/// same: each metric had one value in all of them (or none in any), and
/// each share is 0 or 1. Then the scenario draws nothing that changes its
/// figures, and N runs say no more than one.
pub fn all_alike(summary: &mut Summary) -> bool {
    let n = summary.replications();
    let names = summary.table().numeric();
    n >= 2
        && names.iter().all(|name| {
            summary
                .stats(name)
                .is_none_or(|s| s.count as u64 == n && s.min == s.max)
        })
        && summary
            .shares()
            .iter()
            .all(|(_, share)| *share == 0.0 || *share == 1.0)
}

/// What `podsim run` says when `all_alike`: the replications were the same.
pub fn alike_notice(name: &str, replications: u64) -> String {
    format!(
        "{name}: all {replications} replications measured exactly the same: nothing drawn at random \
         changes this scenario, so every run is the same; a distribution \
         (boot = {{ dist = \"lognormal\", median = \"3s\", p99 = \"10s\" }}) makes them differ"
    )
}

/// The metrics that are durations (shown in seconds) or counts.
fn is_millis(name: &str) -> bool {
    name.ends_with("_ms")
}

fn stat_values(s: &Stats) -> [f64; 6] {
    [
        s.mean,
        s.p50 as f64,
        s.p90 as f64,
        s.p99 as f64,
        s.min as f64,
        s.max as f64,
    ]
}

/// A table: one row per numeric metric, mean to max, then the shares.
pub fn text(summary: &mut Summary, seed: u64) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "distribution over {} replications (seed {seed}; percentiles by nearest rank)",
        summary.replications()
    );
    let width = summary
        .table()
        .numeric()
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(0)
        .max(20);
    let _ = write!(out, "{:<width$}", "metric");
    for stat in STATS {
        let _ = write!(out, "  {stat:>10}");
    }
    out.push('\n');
    for &name in summary.table().numeric() {
        let _ = write!(out, "{name:<width$}");
        match summary.stats(name) {
            Some(s) => {
                for v in stat_values(&s) {
                    let cell = if is_millis(name) {
                        format!("{:.3}s", v / 1000.0)
                    } else {
                        format!("{}", (v * 1000.0).round() / 1000.0)
                    };
                    let _ = write!(out, "  {cell:>10}");
                }
            }
            None => {
                let _ = write!(out, "  {:>10}", "absent");
            }
        }
        out.push('\n');
    }
    let shares: Vec<String> = summary
        .shares()
        .iter()
        .map(|(name, share)| format!("{name} {share}"))
        .collect();
    let _ = writeln!(out, "{}", shares.join("  "));
    out
}

/// The same as a JSON object: `{"replications": N, "ready_ms": {"mean": …}, …}`.
pub fn json(summary: &mut Summary, seed: u64) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    object.insert("replications".into(), summary.replications().into());
    object.insert("seed".into(), seed.into());
    for &name in summary.table().numeric() {
        let value = match summary.stats(name) {
            Some(s) => {
                let stats: serde_json::Map<String, serde_json::Value> = STATS
                    .iter()
                    .zip(stat_values(&s))
                    .map(|(k, v)| (k.to_string(), v.into()))
                    .collect();
                stats.into()
            }
            None => serde_json::Value::Null,
        };
        object.insert(name.into(), value);
    }
    for (key, share) in summary.shares() {
        object.insert(key.into(), share.into());
    }
    object.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use podsim::scenario::Scenario;
    use std::path::Path;

    fn scenario(file: &str) -> RunSpec {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(file);
        Scenario::load(&path).unwrap().run
    }

    /// The replications run on the cores in blocks, and are added in
    /// order: the figures are those of one simulator running replication
    /// 0, 1, … in turn, across a block's edge too.
    #[test]
    fn the_distribution_is_that_of_the_replications_run_in_turn() {
        for (file, n) in [
            ("mesh-startup.toml", BLOCK + 500),
            ("service/no-prestop.toml", 40),
        ] {
            let run = scenario(file);
            let mut serial = Summary::new(Table::of(&run));
            let limits = Limits::default();
            let mut s = simulator(&run, &limits);
            for r in 0..n {
                add(&mut serial, &replicate(&mut s, r).unwrap());
            }
            let mut parallel = summarise(&run, n, &limits).unwrap();
            assert_eq!(text(&mut parallel, 0), text(&mut serial, 0), "{file}");
        }
    }

    /// The seed's sidecar Pod has fixed durations only (init 2 s, proxy
    /// 3 s, web 1 s, deleted at 10 s): its replications are one run.
    /// The mesh Pod's proxy boots in a lognormal time, and the meshed
    /// Service draws its arrivals and endpoints: theirs differ.
    #[test]
    fn replications_are_alike_only_when_nothing_is_drawn() {
        let alike =
            |file: &str, n: u64| all_alike(&mut summarise(&scenario(file), n, &Limits::default()).unwrap());
        assert!(alike("seed-sidecar.toml", 20));
        assert!(!alike("seed-sidecar.toml", 1), "one replication is alike nothing");
        assert!(!alike("mesh-startup.toml", 20));
        assert!(!alike("service/no-prestop.toml", 5));
    }
}

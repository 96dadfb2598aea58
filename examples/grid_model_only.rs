//! The podsim half of the SimPy anchor (BENCHMARKS.md, "Against SimPy"):
//! every run of a grid simulated on one thread, model only, as
//! `benches/simpy/anchor.py` does with SimPy.
//!
//! What it does, and all it does: load and check the grid, then for each run
//! set the axes that changed since the previous run on one reused
//! `PodSimulator` (as a sweep does) and run it; no CSV, no rows, no output
//! but a checksum of the metrics that the SimPy side computes the same way.
//! The time it prints covers the loop only.
//!
//! ```sh
//! cargo run --release --example grid_model_only -- benches/grids/simpy-anchor.toml
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use podsim::model::{Metrics, PodSimulator};
use podsim::sweep::Grid;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: grid_model_only GRID.toml");
        return ExitCode::from(2);
    };
    let grid = match Grid::load(&path) {
        Ok(grid) => grid,
        Err(e) => {
            eprintln!("grid_model_only: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let start = Instant::now();
    let checksum = simulate_all(&grid);
    let seconds = start.elapsed().as_secs_f64();
    println!("runs={} checksum={checksum} seconds={seconds:.6}", grid.runs());
    ExitCode::SUCCESS
}

/// Runs every combination of `grid` in run order; the checksum of their metrics.
fn simulate_all(grid: &Grid) -> Checksum {
    let mut simulator = PodSimulator::new(grid.base.clone());
    let mut digits = vec![0; grid.axes.len()];
    // No axis has been applied yet: the first run sets them all.
    let mut previous: Vec<u64> = vec![u64::MAX; grid.axes.len()];
    let mut checksum = Checksum::default();
    for run in 0..grid.runs() {
        grid.digits(run, &mut digits);
        let changed_from = digits
            .iter()
            .zip(&previous)
            .position(|(now, before)| now != before)
            .unwrap_or(digits.len());
        for (axis, &digit) in grid.axes[changed_from..].iter().zip(&digits[changed_from..]) {
            axis.apply(digit, simulator.spec_mut());
        }
        checksum.add(&simulator.run());
        std::mem::swap(&mut previous, &mut digits);
    }
    checksum
}

/// What `anchor.py` sums too: the five metrics both sides compute, absent
/// ones counted apart, so equal checksums mean the runs very likely agree.
#[derive(Default)]
struct Checksum {
    sum: u64,
    absent: u64,
}

impl Checksum {
    fn add(&mut self, m: &Metrics) {
        for value in [m.ready_ms, m.termination_ms] {
            match value {
                Some(v) => self.sum += v,
                None => self.absent += 1,
            }
        }
        self.sum += m.exposed_startup_ms + m.exposed_shutdown_ms + u64::from(m.restarts);
    }
}

impl std::fmt::Display for Checksum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.sum, self.absent)
    }
}

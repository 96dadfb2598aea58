//! Running a grid's runs in parallel and streaming them as CSV rows.
//!
//! Work is cut into chunks of consecutive runs; a batch of chunks is
//! simulated in parallel (rayon), each chunk formatting its rows into its
//! own reused buffer, and the caller's thread copies the buffers to the sink
//! in chunk order while the next batch is simulated. Two batches of buffers
//! circulate, so memory stays flat however many runs there are.
//!
//! Invariant: the bytes written depend only on the grid and the run range,
//! never on the thread count or on scheduling: a chunk's rows depend only on
//! its runs (every axis is applied afresh at a chunk's start), and chunks are
//! written in index order.

use std::io::Write;
use std::ops::Range;
use std::sync::mpsc;

use rayon::prelude::*;

use super::SweepError;
use super::grid::Grid;
use crate::model::PodSimulator;
use crate::report::csv;

/// Runs per chunk: big enough to amortise scheduling, small enough that the
/// last chunks of a batch do not leave threads idle for long.
const CHUNK_RUNS: u64 = 1024;
/// Chunks per batch and thread.
const CHUNKS_PER_THREAD: usize = 16;

/// What a sweep wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub rows: u64,
    /// Bytes, header included.
    pub bytes: u64,
}

/// One thread's simulator and odometer, reused from chunk to chunk.
struct Worker<'g> {
    grid: &'g Grid,
    simulator: PodSimulator,
    digits: Vec<u64>,
}

impl<'g> Worker<'g> {
    fn new(grid: &'g Grid) -> Self {
        Worker {
            grid,
            simulator: PodSimulator::new(grid.base.clone(), grid.horizon, false),
            digits: vec![0; grid.axes.len()],
        }
    }

    /// Appends the rows of `runs` to `buf`.
    fn rows(&mut self, runs: Range<u64>, buf: &mut Vec<u8>) {
        if runs.is_empty() {
            return;
        }
        let grid = self.grid;
        let sweeps_horizon = grid.sweeps_horizon();
        let mut horizon = grid.horizon;
        grid.digits(runs.start, &mut self.digits);
        // Every axis at the chunk's start; then only those the odometer turns.
        let mut changed_from = 0;
        for run in runs {
            let spec = self.simulator.spec_mut();
            for (axis, &digit) in grid.axes[changed_from..].iter().zip(&self.digits[changed_from..]) {
                axis.target.apply(axis.values.get(digit), spec, &mut horizon);
            }
            if sweeps_horizon {
                self.simulator.set_horizon(horizon);
            }
            let metrics = self.simulator.run();
            csv::push_u64(buf, run);
            for (axis, &digit) in grid.axes.iter().zip(&self.digits) {
                buf.push(b',');
                axis.push_cell(buf, digit);
            }
            csv::push_metrics(buf, &metrics);
            buf.push(b'\n');
            changed_from = self.advance();
        }
    }

    /// Moves the odometer to the next run; returns the first axis that changed.
    fn advance(&mut self) -> usize {
        for (a, axis) in self.grid.axes.iter().enumerate().rev() {
            self.digits[a] += 1;
            if self.digits[a] < axis.values.len() {
                return a;
            }
            self.digits[a] = 0;
        }
        0
    }
}

/// Simulates `runs` of `grid` on `threads` threads and writes the CSV
/// (header, then one row per run in run order) to `sink`; `progress` hears
/// the number of rows written after each batch.
pub fn run(
    grid: &Grid,
    runs: Range<u64>,
    threads: usize,
    sink: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<Written, SweepError> {
    let header = csv::header_line(&grid.columns());
    sink.write_all(&header)?;
    let mut written = Written {
        rows: 0,
        bytes: header.len() as u64,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| SweepError::Threads(e.to_string()))?;
    let chunks_per_batch = threads.max(1) * CHUNKS_PER_THREAD;
    let batch_runs = CHUNK_RUNS * chunks_per_batch as u64;
    let (full_tx, full_rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(2);
    let (empty_tx, empty_rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(2);
    for _ in 0..2 {
        let _ = empty_tx.send(vec![Vec::new(); chunks_per_batch]);
    }
    std::thread::scope(|scope| -> Result<(), SweepError> {
        scope.spawn(move || {
            let mut start = runs.start;
            while start < runs.end {
                let Ok(mut batch) = empty_rx.recv() else { return };
                pool.install(|| {
                    batch.par_iter_mut().enumerate().for_each_init(
                        || Worker::new(grid),
                        |worker, (i, buf)| {
                            buf.clear();
                            let first = start.saturating_add(i as u64 * CHUNK_RUNS).min(runs.end);
                            worker.rows(first..first.saturating_add(CHUNK_RUNS).min(runs.end), buf);
                        },
                    );
                });
                if full_tx.send(batch).is_err() {
                    return;
                }
                start = start.saturating_add(batch_runs);
            }
        });
        // Dropping the channels ends the simulating thread if writing fails.
        let (full_rx, empty_tx) = (full_rx, empty_tx);
        for batch in full_rx.iter() {
            for buf in &batch {
                sink.write_all(buf)?;
                written.bytes += buf.len() as u64;
            }
            let rows = (runs.end - runs.start - written.rows).min(batch_runs);
            written.rows += rows;
            progress(written.rows);
            let _ = empty_tx.send(batch);
        }
        Ok(())
    })?;
    Ok(written)
}

/// The average bytes of a row, from up to `samples` runs spread over `runs`
/// by a fixed golden-ratio stride (an even stride would keep the fastest
/// axes at one value): what `--dry-run` multiplies to estimate the size.
pub fn sample_row_bytes(grid: &Grid, runs: Range<u64>, samples: u64) -> f64 {
    let count = (runs.end - runs.start).min(samples);
    if count == 0 {
        return 0.0;
    }
    let mut worker = Worker::new(grid);
    let mut buf = Vec::new();
    let len = u128::from(runs.end - runs.start);
    for k in 0..count {
        let run = runs.start + (u128::from(k) * 0x9E37_79B9_7F4A_7C15 % len) as u64;
        worker.rows(run..run + 1, &mut buf);
    }
    buf.len() as f64 / count as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn seed_grid(axes: &str) -> Grid {
        let text = format!("base = \"seed-side-by-side.toml\"\n[axes]\n{axes}");
        Grid::parse(
            &text,
            "g.toml",
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"),
        )
        .unwrap()
    }

    fn csv_of(grid: &Grid, runs: Range<u64>, threads: usize) -> String {
        let mut out = Vec::new();
        run(grid, runs, threads, &mut out, &mut |_| {}).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rows_match_single_runs_of_the_same_spec() {
        // Side by side, web boot 2s: web started at 4s, proxy at 5s: exposed 1s.
        let grid = seed_grid("\"containers.web.boot\" = [\"1s\", \"2s\"]");
        let text = csv_of(&grid, 0..2, 1);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "run,containers.web.boot_ms,ready_ms,exposed_startup_ms,exposed_shutdown_ms,exposed_total_ms,termination_ms,restarts,sigkilled,phase,outcome,end_ms"
        );
        assert_eq!(
            lines[1],
            "0,1000,5000,2000,2000,4000,3000,0,0,Succeeded,settled,13000"
        );
        assert_eq!(
            lines[2],
            "1,2000,5000,1000,2000,3000,3000,0,0,Succeeded,settled,13000"
        );
    }

    #[test]
    fn chunks_and_threads_do_not_change_the_bytes() {
        let grid = seed_grid(
            "\"containers.proxy.boot\" = { from = \"0s\", to = \"6s\", step = \"250ms\" }\n\
             \"containers.web.drain\" = { from = \"0s\", to = \"5s\", step = \"1s\" }\n\
             \"containers.proxy.fails\" = [0, 2, 5]\n\"horizon\" = [\"20s\", \"1h\"]",
        );
        let all = csv_of(&grid, 0..grid.runs(), 1);
        assert_eq!(all.lines().count() as u64, grid.runs() + 1);
        assert_eq!(csv_of(&grid, 0..grid.runs(), 3), all);
        // A range that starts mid-chunk gives the same rows as the full run.
        let part = csv_of(&grid, 100..300, 2);
        let rows: Vec<&str> = all.lines().skip(101).take(200).collect();
        assert_eq!(part.lines().skip(1).collect::<Vec<_>>(), rows);
    }

    #[test]
    fn a_failing_sink_stops_the_sweep_with_its_error() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let grid = seed_grid("\"containers.web.boot\" = { from = \"0s\", to = \"100s\", step = \"1ms\" }");
        let e = run(&grid, 0..grid.runs(), 2, &mut Full, &mut |_| {}).unwrap_err();
        let SweepError::Io(cause) = e else { panic!("{e}") };
        assert_eq!(cause.to_string(), "disk full");
    }
}

//! Running a grid's runs in parallel and streaming them as CSV rows.
//!
//! Work is cut into chunks of consecutive runs (combinations), each with
//! all its replications, which are adjacent in the CSV. Each rayon worker
//! claims the next chunk, simulates it and formats its rows (and, with a
//! summary, one summary row per combination) into reused buffers; the
//! caller's thread writes the buffers to the sink in chunk order as they
//! arrive. A worker may run at most a window of chunks ahead of the writer,
//! so memory stays flat however many runs there are, and no worker ever
//! waits for the others at a barrier (which on a busy machine, with one
//! worker descheduled, would idle the rest).
//!
//! A sweep stopped between two batches (`Progress` is where) is resumed by
//! `resume` from the files it left: rows are written in run order, so the
//! runs before the stop are all there and the rest follow. A stop request
//! (the `Limits`' flag, or `progress` breaking) ends the runs in progress
//! within milliseconds (the engine looks at the flag as it runs); every
//! row finished in order before them is still written, and the chunks they
//! were part of are dropped whole.
//!
//! Invariant: the bytes written depend only on the grid and the run range,
//! never on the thread count, on scheduling or on where it was resumed: a chunk's rows depend only on
//! its runs (every axis is applied afresh at a chunk's start), and chunks are
//! written in index order.

use std::io::Write;
use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, mpsc};

use super::SweepError;
use super::csv;
use super::grid::Grid;
use super::tally::{Output, Progress, Tally};
use crate::engine::{Halt, Limits};

mod prefixes;
mod worker;

use worker::{Halted, Worker};

/// Rows per chunk: big enough to amortise the hand-over, small enough to
/// keep the writer busy and the window's memory small. A chunk holds whole
/// combinations, so at least one whatever its replications.
const CHUNK_RUNS: u64 = 1024;

/// Combinations per chunk. A Service run costs what hundreds of Pod runs
/// do and more (its traffic: 0.1 ms for a minute's, a second for a
/// day's), so a Service grid's chunk is one combination: a grid of a few day-long
/// soaks then spreads over the threads instead of filling one chunk.
fn combinations_per_chunk(grid: &Grid) -> u64 {
    let rows = if grid.base.service.is_some() {
        1
    } else {
        CHUNK_RUNS
    };
    (rows / grid.replications()).max(1)
}

/// How many chunks, per thread, may be done or in progress ahead of the writer.
const WINDOW_PER_THREAD: u64 = 8;

/// Where a sweep writes: the CSV, and optionally the summary.
pub struct Sinks<'a> {
    /// Where the CSV goes.
    pub csv: &'a mut dyn Write,
    /// Where the summary goes, if one is asked for.
    pub summary: Option<&'a mut dyn Write>,
}

/// What the sinks of a resumed sweep already hold: the rows of every run
/// before the first one it is given, read back from the files a stopped
/// sweep left (`Tally::read`).
pub struct Resume {
    /// The CSV's prefix.
    pub csv: Tally,
    /// The summary's, when the sweep writes one; a summary sink without it
    /// starts afresh, with its header.
    pub summary: Option<Tally>,
}

/// Simulates `runs` of `grid` (each `grid.replications()` times) on
/// `threads` threads and writes the CSV (header, then one row per run and
/// replication, in that order) to `sinks.csv`, and the summary (one row per
/// run) to `sinks.summary`. `progress` hears, after each batch of rows
/// written, where the sweep stands (and may flush the sinks there, for a
/// checkpoint); it stops the sweep by breaking (`SweepError::Interrupted`:
/// an interrupt asked for it), as raising `limits`' stop flag does. Every
/// run obeys `limits`; one its budget halts fails the sweep
/// (`SweepError::OverBudget`).
pub fn run(
    grid: &Grid,
    runs: Range<u64>,
    threads: usize,
    sinks: Sinks<'_>,
    limits: &Limits,
    progress: &mut dyn FnMut(&mut Progress<'_>) -> ControlFlow<()>,
) -> Result<Output, SweepError> {
    let csv = Tally::start(sinks.csv, &csv::header_line(&grid.columns()))?;
    let from = Resume { csv, summary: None };
    resume(grid, runs, threads, sinks, from, limits, progress)
}

/// `run` for a sweep stopped earlier: `sinks` already hold what `from`
/// tallies, the rows of the runs before `runs.start`, and the rows of
/// `runs` follow them, so the files and digests end as `run` would have
/// left them over the whole range.
pub fn resume(
    grid: &Grid,
    runs: Range<u64>,
    threads: usize,
    sinks: Sinks<'_>,
    from: Resume,
    limits: &Limits,
    progress: &mut dyn FnMut(&mut Progress<'_>) -> ControlFlow<()>,
) -> Result<Output, SweepError> {
    let Sinks {
        csv: sink,
        summary: mut summary_sink,
    } = sinks;
    let mut tally = from.csv;
    let mut summary_tally = match (summary_sink.as_deref_mut(), from.summary) {
        (Some(_), Some(prefix)) => Some(prefix),
        (Some(out), None) => Some(Tally::start(out, &csv::header_line(&grid.summary_columns()))?),
        (None, _) => None,
    };
    let threads = threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let replications = grid.replications();
    let per_chunk = combinations_per_chunk(grid);
    let chunks = (runs.end - runs.start).div_ceil(per_chunk);
    let chunk_runs = |chunk: u64| {
        let first = runs.start + chunk * per_chunk;
        first..first.saturating_add(per_chunk).min(runs.end)
    };
    let window = WINDOW_PER_THREAD * threads as u64;
    // The runs watch a stop flag whether or not the caller has one: a
    // `progress` that breaks raises it too.
    let stop = limits.stop.clone().unwrap_or_default();
    let limits = Limits {
        stop: Some(stop.clone()),
        events: limits.events,
    };
    let shared = Shared {
        next: AtomicU64::new(0),
        written: Mutex::new(0),
        advanced: Condvar::new(),
        stop: AtomicBool::new(false),
        halted: Mutex::new(None),
        cut_short: AtomicU64::new(0),
        spare: Mutex::new(Vec::new()),
    };
    let summarise = summary_tally.is_some();
    let (done_tx, done_rx) = mpsc::channel::<(u64, Buffers)>();
    pool.in_place_scope(|scope| {
        for _ in 0..threads {
            let (done_tx, shared, limits) = (done_tx.clone(), &shared, &limits);
            scope.spawn(move |_| {
                let _guard = StopOnPanic(shared);
                let mut worker = Worker::new(grid, limits);
                loop {
                    let chunk = shared.next.fetch_add(1, Ordering::Relaxed);
                    if chunk >= chunks || !shared.wait_for_room(chunk, window) {
                        return;
                    }
                    let mut bufs = lock(&shared.spare).pop().unwrap_or_default();
                    bufs.csv.clear();
                    bufs.summary.clear();
                    let summary = summarise.then_some(&mut bufs.summary);
                    if let Err(Halted { run, halt, finished }) =
                        worker.rows(chunk_runs(chunk), &mut bufs.csv, summary)
                    {
                        shared.cut_short.fetch_add(finished, Ordering::Relaxed);
                        shared.halt((run, halt));
                        return;
                    }
                    if done_tx.send((chunk, bufs)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        // Chunks that arrived before their turn wait in their slot of the window.
        let mut slots: Vec<Option<Buffers>> = (0..window).map(|_| None).collect();
        let mut next_write = 0;
        let result = (|| -> Result<(), SweepError> {
            let (mut asked, mut ended) = (false, false);
            while next_write < chunks && !ended {
                match done_rx.recv() {
                    Ok((chunk, bufs)) => {
                        slots[(chunk % window) as usize] = Some(bufs);
                        while let Some(bufs) = slots[(next_write % window) as usize].take() {
                            let done = chunk_runs(next_write);
                            let combinations = done.end - done.start;
                            tally.write(sink, &bufs.csv, combinations * replications)?;
                            if let (Some(t), Some(out)) =
                                (summary_tally.as_mut(), summary_sink.as_deref_mut())
                            {
                                t.write(out, &bufs.summary, combinations)?;
                            }
                            lock(&shared.spare).push(bufs);
                            next_write += 1;
                            *lock(&shared.written) = next_write;
                            shared.advanced.notify_all();
                        }
                    }
                    // Every sender gone early: the workers stopped, or one
                    // panicked (the scope re-raises it; nothing to show).
                    Err(_) => ended = true,
                }
                if ended && !asked && !stop.is_requested() {
                    break;
                }
                let mut at = Progress {
                    next_run: (runs.start + next_write * per_chunk).min(runs.end),
                    csv: (&mut *sink, &tally),
                    summary: summary_sink
                        .as_deref_mut()
                        .map(|out| out as &mut dyn Write)
                        .zip(summary_tally.as_ref()),
                };
                // Asked to stop: the runs in progress end, and the rows
                // finished in order before them are still written (and
                // shown to `progress`, for a last checkpoint).
                if progress(&mut at).is_break() && !asked {
                    asked = true;
                    stop.request();
                    shared.stop();
                }
            }
            // A stop asked for as the last chunk was written is still a
            // stop: the caller hears of it, whatever was left to run.
            let halted = *lock(&shared.halted);
            match halted {
                Some((run, Halt::OverBudget(events))) => Err(SweepError::OverBudget { run, events }),
                _ if asked || stop.is_requested() => {
                    // The runs done besides the rows written: chunks done
                    // but waiting for an earlier one, and the finished part
                    // of those the stop cut short.
                    let waiting: u64 = (next_write..next_write + window)
                        .filter(|&chunk| slots[(chunk % window) as usize].is_some())
                        .map(|chunk| {
                            let done = chunk_runs(chunk);
                            (done.end - done.start) * replications
                        })
                        .sum();
                    let unwritten = waiting + shared.cut_short.load(Ordering::Relaxed);
                    Err(SweepError::Interrupted {
                        rows: tally.rows(),
                        finished: tally.rows() + unwritten,
                    })
                }
                _ => Ok(()),
            }
        })();
        if result.is_err() {
            shared.stop();
        }
        result
    })?;
    Ok(Output {
        csv: tally.written(),
        summary: summary_tally.as_ref().map(Tally::written),
    })
}

/// A chunk's CSV rows and summary rows.
#[derive(Default)]
struct Buffers {
    csv: Vec<u8>,
    summary: Vec<u8>,
}

/// What the workers and the writer share.
struct Shared {
    /// The next chunk to claim.
    next: AtomicU64,
    /// Chunks written so far.
    written: Mutex<u64>,
    advanced: Condvar,
    /// Set when writing failed, a worker panicked or a run was halted:
    /// everyone stops.
    stop: AtomicBool,
    /// The first run the limits halted, and why.
    halted: Mutex<Option<(u64, Halt)>>,
    /// Rows finished in chunks the limits cut short, which are dropped.
    cut_short: AtomicU64,
    /// Written buffers, for the workers to fill again.
    spare: Mutex<Vec<Buffers>>,
}

impl Shared {
    /// Waits until `chunk` fits in the window ahead of the writer; false if
    /// the sweep is stopping.
    fn wait_for_room(&self, chunk: u64, window: u64) -> bool {
        let mut written = lock(&self.written);
        while chunk >= *written + window && !self.stop.load(Ordering::Relaxed) {
            written = self
                .advanced
                .wait(written)
                .unwrap_or_else(PoisonError::into_inner);
        }
        !self.stop.load(Ordering::Relaxed)
    }

    fn stop(&self) {
        let _written = lock(&self.written);
        self.stop.store(true, Ordering::Relaxed);
        self.advanced.notify_all();
    }

    /// Run `run` was halted: the sweep stops, and says why if it is the first.
    fn halt(&self, (run, halt): (u64, Halt)) {
        lock(&self.halted).get_or_insert((run, halt));
        self.stop();
    }
}

/// Stops the other workers if this one panics, so none waits forever for
/// the writer, which waits for the chunk that will never come.
struct StopOnPanic<'a>(&'a Shared);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// A lock that survives a panic elsewhere: the data (counters, spare
/// buffers) stays valid whatever a panicking thread was doing.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The average bytes of a row, from up to `samples` runs spread over `runs`
/// by a fixed golden-ratio stride (an even stride would keep the fastest
/// axes at one value): what `--dry-run` multiplies to estimate the size.
pub fn sample_row_bytes(grid: &Grid, runs: Range<u64>, samples: u64) -> f64 {
    let count = (runs.end - runs.start).min(samples);
    if count == 0 {
        return 0.0;
    }
    let mut worker = Worker::new(grid, &Limits::default());
    let mut buf = Vec::new();
    let len = u128::from(runs.end - runs.start);
    for k in 0..count {
        let run = runs.start + (u128::from(k) * 0x9E37_79B9_7F4A_7C15 % len) as u64;
        // Nothing halts a run without limits.
        let _ = worker.rows(run..run + 1, &mut buf, None);
    }
    buf.len() as f64 / (count * grid.replications()) as f64
}

#[cfg(test)]
mod tests;

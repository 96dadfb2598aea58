//! Sweeps: a grid of parameter combinations, run in parallel, written as
//! tidy CSV in a stable order; sharded across machines and merged back.
//!
//! - `axis`: one swept key, resolved to a registry key, and its values;
//! - `csv`: the row encoder (cells as bytes, the header);
//! - `grid`: grid files, checked before any run, and the run order;
//! - `run`: parallel simulation with ordered, streamed CSV output;
//! - `shard`: slices of the run range, the manifest beside each CSV, merging;
//! - `summary`: each combination's metrics over its replications;
//! - `tally`: rows, bytes and digests written, and the progress between batches;
//! - `checkpoint`: what a stopped sweep left, and whether it can be resumed.
//!
//! Invariant: a row's bytes depend only on the grid and its run index, so any
//! thread count, and any split into shards merged back, gives the same file.

pub mod axis;
pub mod checkpoint;
pub mod csv;
pub mod grid;
pub mod run;
pub mod shard;
pub mod summary;
pub mod tally;

pub use axis::{Axis, Values};
pub use checkpoint::Checkpoint;
pub use grid::{Grid, GridFile};
pub use run::{Resume, Sinks, resume, run, sample_row_bytes};
pub use shard::{Differs, Manifest, MergeError, Shard, merge};
pub use tally::{Output, Progress, Tally, Written};

/// What can go wrong once a grid is checked: only output, threads, shards
/// and being told to stop.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// Writing the CSV failed (a full disk, a closed pipe); the cause is the
    /// error's source, so callers can tell a closed pipe from the rest.
    #[error("cannot write the CSV")]
    Io(#[from] std::io::Error),
    /// rayon could not start its thread pool.
    #[error("cannot start the worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// Shards that do not fit together; the refusal names the files.
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// The caller's progress callback asked to stop (an interrupt); `rows`
    /// rows were written, in run order, of the `finished` runs done.
    #[error("interrupted after {finished} runs, {rows} rows written")]
    Interrupted {
        /// Rows written before the stop.
        rows: u64,
        /// Runs finished, written or not: the rows written, and those of
        /// chunks dropped whole (a Service grid's chunk is a combination's
        /// every replication, so a stop may drop thousands of runs done).
        finished: u64,
    },
    /// A run needed more events than the limits' budget.
    #[error("run {run} needs more than {events} events")]
    OverBudget {
        /// The first run found over the budget (a combination's number).
        run: u64,
        /// The budget.
        events: u64,
    },
}

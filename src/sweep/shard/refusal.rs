//! Why `merge` refuses a set of shards, as data: each refusal names the
//! files and runs it is about, and its words are written once, here, so a
//! caller can tell a missing shard from a damaged one without reading the
//! message.

use std::fmt;
use std::ops::Range;

/// A reason `merge` wrote no merged CSV.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No shard was given.
    #[error("no shards to merge")]
    NoShards,
    /// A shard's manifest is not one of the same grid as the first's.
    #[error("{shard} does not come from the same grid as {reference} ({differs}); merge shards of one sweep")]
    OtherGrid {
        /// The shard that differs.
        shard: String,
        /// The first shard given, the one the others are held against.
        reference: String,
        /// What differs.
        differs: Differs,
    },
    /// Two shards both hold `runs`.
    #[error("{}{} in both {first} and {second}; each run must come from one shard", runs_text(.runs), verb(.runs))]
    Overlap {
        /// The runs held twice.
        runs: Range<u64>,
        /// The shard before, in run order.
        first: String,
        /// The shard after.
        second: String,
    },
    /// No shard's manifest covers `runs`.
    #[error("{}{} missing: none of the shards given holds {}; was a shard left out?", runs_text(.runs), verb(.runs), if .runs.end - .runs.start == 1 { "it" } else { "them" })]
    NotCovered {
        /// The runs no shard holds.
        runs: Range<u64>,
    },
    /// A shard's CSV could not be read.
    #[error("cannot read {shard}: {source}")]
    Unreadable {
        /// The shard.
        shard: String,
        /// The reading error.
        source: std::io::Error,
    },
    /// A shard's header is not its manifest's columns.
    #[error("{shard}: its header does not match its manifest's columns")]
    Header {
        /// The shard.
        shard: String,
    },
    /// A shard's CSV holds `run` a second time.
    #[error("{shard}: run {run} appears twice")]
    Twice {
        /// The shard.
        shard: String,
        /// The run seen again.
        run: u64,
    },
    /// A run's replications are out of order in a shard's CSV.
    #[error("{shard}: run {run}: expected replication {expected}, found \"{found}\"")]
    Replication {
        /// The shard.
        shard: String,
        /// The run.
        run: u64,
        /// The replication the row should have had.
        expected: u64,
        /// The row found, without its line end.
        found: String,
    },
    /// Rows its manifest promises are absent from a shard's CSV, before a
    /// later run's row.
    #[error("{shard}: {}{} missing", runs_text(.runs), verb(.runs))]
    Gap {
        /// The shard.
        shard: String,
        /// The runs absent.
        runs: Range<u64>,
    },
    /// A row that is no row of the run expected next.
    #[error(
        "{shard}: expected the row of run {run}, found \"{found}\"; the file is damaged or not this shard"
    )]
    Damaged {
        /// The shard.
        shard: String,
        /// The run whose row was expected.
        run: u64,
        /// The line found, without its line end.
        found: String,
    },
    /// A shard's CSV ends before the last run its manifest promises.
    #[error("{shard}: {}{} missing; its manifest promises runs up to {}", runs_text(.runs), verb(.runs), .runs.end - 1)]
    Short {
        /// The shard.
        shard: String,
        /// The runs absent at its end.
        runs: Range<u64>,
    },
    /// A shard's bytes are not those its manifest's SHA-256 names.
    #[error(
        "{shard}: its SHA-256 is {found} but its manifest says {expected}; the file changed after the sweep wrote it"
    )]
    Digest {
        /// The shard.
        shard: String,
        /// The digest of its bytes.
        found: String,
        /// The digest its manifest records.
        expected: String,
    },
}

/// What makes a shard's manifest another grid's.
#[derive(Debug)]
pub enum Differs {
    /// The grid file's digest.
    GridSha256 {
        /// This shard's.
        found: String,
        /// The first shard's.
        expected: String,
    },
    /// The podsim version that ran it.
    Version {
        /// This shard's.
        found: String,
        /// The first shard's.
        expected: String,
    },
    /// The columns, the number of runs or of replications.
    Shape,
    /// Its slice of runs does not fit the grid it names.
    Slice {
        /// Its first run.
        first_run: u64,
        /// One past its last run.
        end_run: u64,
        /// The grid's runs.
        runs_total: u64,
    },
}

impl fmt::Display for Differs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Differs::GridSha256 { found, expected } => {
                write!(f, "grid SHA-256 {found} instead of {expected}")
            }
            Differs::Version { found, expected } => write!(f, "podsim {found} instead of {expected}"),
            Differs::Shape => f.write_str("other columns or another number of runs"),
            Differs::Slice {
                first_run,
                end_run,
                runs_total,
            } => write!(
                f,
                "its manifest's runs {first_run} to {end_run} do not fit a grid of {runs_total} runs"
            ),
        }
    }
}

/// `run 5` or `runs 5 to 9`.
fn runs_text(runs: &Range<u64>) -> String {
    if runs.end - runs.start == 1 {
        format!("run {}", runs.start)
    } else {
        format!("runs {} to {}", runs.start, runs.end - 1)
    }
}

/// ` is` or ` are`, after `runs_text`.
fn verb(runs: &Range<u64>) -> &'static str {
    if runs.end - runs.start == 1 { " is" } else { " are" }
}

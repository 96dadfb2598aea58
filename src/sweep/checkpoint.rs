//! A checkpoint: what a sweep that writes to partial files records, now and
//! then, about the rows that are complete and durable in them, so that a
//! stopped sweep (an interrupt, a killed process, a lost machine) can go on
//! from there instead of from its first run.
//!
//! A checkpoint holds, for the CSV and for the summary if there is one, the
//! manifest the file would have if the sweep ended at `next_run`: the grid's
//! SHA-256, the podsim version, the runs and shard, the columns, and the
//! size and SHA-256 of the leading bytes that are complete. Whatever follows
//! those bytes in a partial file was written after the checkpoint and may be
//! garbage (a machine that lost power keeps pages in any order), so a resume
//! keeps exactly those bytes and nothing after them.
//!
//! Invariant: `check` accepts a checkpoint only for the sweep that wrote it
//! (same grid meaning, version, runs, shard and summary), and `check_prefix`
//! accepts a file only if its leading bytes are the ones the checkpoint
//! names; so a resumed sweep's files are byte for byte an uninterrupted one's.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::grid::Grid;
use super::shard::{Manifest, Shard, hex};
use super::tally::{Output, Tally};

/// What a stopped sweep's partial files hold, written beside them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// The first run whose rows are not (or not durably) in the files.
    pub next_run: u64,
    /// The CSV's manifest for its leading `bytes` bytes; `first_run` and
    /// `end_run` are the runs of the whole sweep, not of those bytes.
    pub csv: Manifest,
    /// The summary's, when the sweep writes one.
    pub summary: Option<Manifest>,
}

/// Why a checkpoint cannot be resumed by this sweep.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    /// Another podsim wrote it: its rows may differ from this one's.
    #[error("it was written by podsim {recorded}, and this is podsim {current}")]
    Version {
        /// The version in the checkpoint.
        recorded: String,
        /// This podsim's version.
        current: String,
    },
    /// The grid changed since (an axis, the base scenario, the seed, the
    /// replications: whatever changes the rows).
    #[error("it was written for another grid (SHA-256 {recorded}; this grid's is {current})")]
    Grid {
        /// The grid SHA-256 in the checkpoint.
        recorded: String,
        /// This grid's.
        current: String,
    },
    /// Another slice of the same grid: another shard, or another shard count.
    #[error("it holds {recorded}, and this sweep is {current}")]
    Runs {
        /// The checkpoint's runs and shard, in words.
        recorded: String,
        /// This sweep's.
        current: String,
    },
    /// One of the two has a summary and the other has not.
    #[error("it was written {}, and this sweep {}", with(*.recorded), with_now(*.recorded))]
    Summary {
        /// Whether the checkpoint has a summary.
        recorded: bool,
    },
    /// Its numbers do not agree with each other: edited, or not a podsim
    /// checkpoint.
    #[error("it does not add up: {0}")]
    Inconsistent(String),
    /// A partial file's leading bytes are not the ones recorded.
    #[error("{0}")]
    Prefix(String),
}

fn with(summary: bool) -> &'static str {
    if summary {
        "with a summary"
    } else {
        "without a summary"
    }
}

fn with_now(recorded: bool) -> &'static str {
    if recorded { "has none" } else { "has one" }
}

impl Checkpoint {
    /// The checkpoint of `runs` of `grid` (by `shard`) whose files hold
    /// `output`, the rows of the runs before `next_run`.
    pub fn new(
        grid: &Grid,
        runs: Range<u64>,
        shard: Option<Shard>,
        next_run: u64,
        output: &Output,
    ) -> Checkpoint {
        Checkpoint {
            next_run,
            csv: Manifest::new(grid, runs.clone(), shard, &output.csv),
            summary: output.summary.map(|w| Manifest::summary(grid, runs, shard, &w)),
        }
    }

    /// Whether this is a checkpoint of the sweep of `runs` of `grid` by
    /// `shard`, with a summary or not, and its numbers agree.
    pub fn check(
        &self,
        grid: &Grid,
        runs: Range<u64>,
        shard: Option<Shard>,
        summary: bool,
    ) -> Result<(), ResumeError> {
        let now = Manifest::new(
            grid,
            runs,
            shard,
            &super::Written {
                rows: 0,
                bytes: 0,
                sha256: [0; 32],
            },
        );
        let then = &self.csv;
        if then.podsim_version != now.podsim_version {
            return Err(ResumeError::Version {
                recorded: then.podsim_version.clone(),
                current: now.podsim_version,
            });
        }
        if then.grid_sha256 != now.grid_sha256
            || then.columns != now.columns
            || then.replications != now.replications
        {
            return Err(ResumeError::Grid {
                recorded: then.grid_sha256.clone(),
                current: now.grid_sha256,
            });
        }
        let slice = |m: &Manifest| {
            let shard = m
                .shard
                .as_ref()
                .map_or(String::new(), |s| format!(" (shard {s})"));
            format!("runs {}..{} of {}{shard}", m.first_run, m.end_run, m.runs_total)
        };
        if (then.first_run, then.end_run, then.runs_total, &then.shard)
            != (now.first_run, now.end_run, now.runs_total, &now.shard)
        {
            return Err(ResumeError::Runs {
                recorded: slice(then),
                current: slice(&now),
            });
        }
        if self.summary.is_some() != summary {
            return Err(ResumeError::Summary {
                recorded: self.summary.is_some(),
            });
        }
        if !(then.first_run..=then.end_run).contains(&self.next_run) {
            return Err(ResumeError::Inconsistent(format!(
                "its next run {} is outside its runs {}..{}",
                self.next_run, then.first_run, then.end_run
            )));
        }
        if let Some(s) = &self.summary
            && (s.grid_sha256 != then.grid_sha256
                || (s.first_run, s.end_run) != (then.first_run, then.end_run))
        {
            return Err(ResumeError::Inconsistent(
                "its summary's grid or runs are not its CSV's".into(),
            ));
        }
        Ok(())
    }

    /// The rows the CSV holds up to `next_run`; the summary holds one per
    /// run. Saturating, as a checkpoint not yet `check`ed may hold any numbers.
    pub fn csv_rows(&self) -> u64 {
        self.next_run
            .saturating_sub(self.csv.first_run)
            .saturating_mul(self.csv.replications)
    }

    /// Whether `prefix`, the tally of a partial file's leading bytes as
    /// `Tally::read` found them, is what `manifest` (this checkpoint's CSV
    /// or summary, holding `rows` rows) records.
    pub fn check_prefix(manifest: &Manifest, rows: u64, prefix: &Tally) -> Result<(), ResumeError> {
        let found = prefix.written();
        if found.rows != rows {
            return Err(ResumeError::Prefix(format!(
                "its first {} bytes hold {} rows, and the checkpoint records {rows}",
                manifest.bytes, found.rows
            )));
        }
        let digest = hex(&found.sha256);
        if digest != manifest.csv_sha256 {
            return Err(ResumeError::Prefix(format!(
                "its first {} bytes have SHA-256 {digest}, and the checkpoint records {}: \
                 they changed after it was written",
                manifest.bytes, manifest.csv_sha256
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::{Resume, Sinks, Written};
    use std::ops::ControlFlow;
    use std::path::Path;

    fn grid(axes: &str, replications: u64) -> Grid {
        let text = format!("base = \"seed-side-by-side.toml\"\n[axes]\n{axes}");
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let base = crate::scenario::Scenario::load(&folder.join("seed-side-by-side.toml")).unwrap();
        let mut grid = Grid::parse(&text, "g.toml", base, &folder).unwrap();
        grid.set_replications(replications);
        grid
    }

    const BOOTS: &str = "\"containers.web.boot\" = { from = \"0s\", to = \"3s\", step = \"1ms\" }";

    fn output(bytes: u64) -> Output {
        let w = Written {
            rows: 0,
            bytes,
            sha256: [0; 32],
        };
        Output {
            csv: w,
            summary: None,
        }
    }

    #[test]
    fn a_checkpoint_fits_only_the_sweep_that_wrote_it() {
        let g = grid(BOOTS, 1);
        let shard = Shard { index: 1, count: 4 };
        let runs = shard.runs(g.runs());
        let c = Checkpoint::new(&g, runs.clone(), Some(shard), runs.start + 10, &output(99));
        assert_eq!(c.check(&g, runs.clone(), Some(shard), false), Ok(()));
        assert_eq!(c.csv_rows(), 10);
        let other = grid(
            "\"containers.web.boot\" = { from = \"0s\", to = \"3s\", step = \"2ms\" }",
            1,
        );
        assert!(matches!(
            c.check(&other, runs.clone(), Some(shard), false),
            Err(ResumeError::Grid { .. })
        ));
        // The same axes with more replications are another grid.
        assert!(matches!(
            c.check(&grid(BOOTS, 2), runs.clone(), Some(shard), false),
            Err(ResumeError::Grid { .. })
        ));
        let two = Shard { index: 2, count: 4 };
        assert_eq!(
            c.check(&g, two.runs(g.runs()), Some(two), false)
                .unwrap_err()
                .to_string(),
            "it holds runs 750..1500 of 3001 (shard 1/4), and this sweep is runs 1500..2250 of 3001 (shard 2/4)"
        );
        assert_eq!(
            c.check(&g, runs.clone(), Some(shard), true)
                .unwrap_err()
                .to_string(),
            "it was written without a summary, and this sweep has one"
        );
        let mut old = c.clone();
        old.csv.podsim_version = "0.0.1".into();
        assert!(matches!(
            old.check(&g, runs.clone(), Some(shard), false),
            Err(ResumeError::Version { .. })
        ));
        let mut past = c.clone();
        past.next_run = runs.end + 1;
        assert!(matches!(
            past.check(&g, runs, Some(shard), false),
            Err(ResumeError::Inconsistent(_))
        ));
    }

    #[test]
    fn a_prefix_must_be_the_bytes_recorded() {
        // 30,001 runs: more chunks than the writer's window holds, so its
        // first report comes before the last row, however the threads run.
        let g = grid(
            "\"containers.web.boot\" = { from = \"0s\", to = \"30s\", step = \"1ms\" }",
            1,
        );
        let mut csv = Vec::new();
        let mut checkpoint = None;
        let sinks = Sinks {
            csv: &mut csv,
            summary: None,
        };
        crate::sweep::run(&g, 0..g.runs(), 2, sinks, &Default::default(), &mut |at| {
            if checkpoint.is_none() && at.next_run > 0 {
                let output = at.flush().unwrap();
                checkpoint = Some(Checkpoint::new(&g, 0..g.runs(), None, at.next_run, &output));
            }
            ControlFlow::Continue(())
        })
        .unwrap();
        let c = checkpoint.unwrap();
        assert!(c.next_run > 0 && c.next_run < g.runs(), "{}", c.next_run);
        let bytes = c.csv.bytes;
        let prefix = Tally::read(&mut csv.as_slice(), bytes).unwrap();
        assert_eq!(Checkpoint::check_prefix(&c.csv, c.csv_rows(), &prefix), Ok(()));
        // One digit changed in the middle: same rows, other digest.
        let at = csv[..bytes as usize].iter().rposition(|&b| b == b'5').unwrap();
        csv[at] = b'6';
        let prefix = Tally::read(&mut csv.as_slice(), bytes).unwrap();
        let e = Checkpoint::check_prefix(&c.csv, c.csv_rows(), &prefix).unwrap_err();
        assert!(e.to_string().contains("they changed after it was written"), "{e}");
    }

    /// The CSV and summary of `g`, whole; or stopped at the `stop`-th
    /// batch, garbage appended after the stop (what a lost machine may
    /// leave), then resumed from the checkpoint taken there.
    fn sweep(g: &Grid, threads: usize, stop: Option<usize>) -> (Vec<u8>, Vec<u8>, Output) {
        let (mut csv, mut summary) = (Vec::new(), Vec::new());
        let mut calls = 0;
        let mut taken = None;
        let sinks = Sinks {
            csv: &mut csv,
            summary: Some(&mut summary),
        };
        let result = crate::sweep::run(g, 0..g.runs(), threads, sinks, &Default::default(), &mut |at| {
            calls += 1;
            if Some(calls) == stop {
                taken = Some(Checkpoint::new(
                    g,
                    0..g.runs(),
                    None,
                    at.next_run,
                    &at.flush().unwrap(),
                ));
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        let Some(c) = taken else {
            assert_eq!(stop, None, "the sweep ended before its stop");
            return (csv, summary, result.unwrap());
        };
        assert!(matches!(
            result,
            Err(crate::sweep::SweepError::Interrupted { .. })
        ));
        c.check(g, 0..g.runs(), None, true).unwrap();
        csv.extend_from_slice(b"17,garbage");
        let s = c.summary.as_ref().unwrap();
        let from = Resume {
            csv: Tally::read(&mut csv.as_slice(), c.csv.bytes).unwrap(),
            summary: Some(Tally::read(&mut summary.as_slice(), s.bytes).unwrap()),
        };
        Checkpoint::check_prefix(&c.csv, c.csv_rows(), &from.csv).unwrap();
        csv.truncate(c.csv.bytes as usize);
        summary.truncate(s.bytes as usize);
        let sinks = Sinks {
            csv: &mut csv,
            summary: Some(&mut summary),
        };
        let done = crate::sweep::resume(
            g,
            c.next_run..g.runs(),
            threads,
            sinks,
            from,
            &Default::default(),
            &mut |_| ControlFlow::Continue(()),
        )
        .unwrap();
        (csv, summary, done)
    }

    #[test]
    fn a_sweep_resumed_from_any_batch_ends_as_if_never_stopped() {
        // 3001 combinations × 3 replications, 341 combinations a chunk: 9
        // chunks, one batch each; the 9th is the last (nothing left to run).
        let g = grid(BOOTS, 3);
        let whole = sweep(&g, 1, None);
        assert_eq!(whole.2.csv.rows, 9003);
        for (threads, stop) in [(1, 1), (1, 5), (2, 3), (3, 8), (2, 9)] {
            let resumed = sweep(&g, threads, Some(stop));
            assert!(resumed.0 == whole.0, "CSV, {threads} threads, stop {stop}");
            assert!(resumed.1 == whole.1, "summary, {threads} threads, stop {stop}");
            assert_eq!(resumed.2, whole.2);
        }
    }
}

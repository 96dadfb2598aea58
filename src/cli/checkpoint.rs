//! `podsim sweep --checkpoint` and `--resume`: a sweep that survives being
//! stopped. The CSV (and the summary) are written to `<file>.partial`; now
//! and then, at a batch boundary, the partial files are flushed and fsynced
//! and then `<csv>.checkpoint.json` is replaced (temporary name, fsync,
//! rename, fsync of the folder) by one that records how many leading bytes
//! of each are complete (`podsim::sweep::Checkpoint`). On Ctrl-C or SIGTERM
//! a last checkpoint is taken and the files are kept; after a crash of the
//! machine the last checkpoint still tells the truth, and a resume keeps
//! exactly the bytes it names. When the sweep ends, the files are renamed
//! into place with their manifests, as without `--checkpoint`, and the
//! checkpoint is removed.
//!
//! When to checkpoint is the one thing here that reads the clock (`Every`):
//! it moves the points a stopped sweep can resume from, never a byte of the
//! finished files.
//!
//! Invariant: a checkpoint is written only after the bytes it names are on
//! disk, and a resume refuses, before its first run, any checkpoint or
//! partial file that is not exactly what this sweep would have written.
//!
//! The file work (opening and cutting a partial file, reading and saving
//! the checkpoint) is in `files`.

mod files;

use files::{Part, read_checkpoint, save};

use std::fs::{self, File};
use std::io::{self, Write};
use std::ops::{ControlFlow, Range};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use podsim::engine::Limits;
use podsim::sweep::checkpoint::Checkpoint;
use podsim::sweep::{self, Grid, Manifest, Output, Progress, Resume, Shard, Sinks, SweepError};

use super::output::{
    PendingFile, finish_with_manifest, manifest_path, partial_path, read_manifest, remove_leftover_temps,
    suffixed,
};
use super::{Interrupted, UsageError};
use podsim::scenario::numbers::grouped;

#[derive(Debug, clap::Args)]
pub struct CheckpointArgs {
    /// Write the CSV (and the summary) to `<file>.partial` and checkpoint
    /// it now and then, so that Ctrl-C, SIGTERM or a lost machine leave the
    /// rows done so far for --resume to continue from.
    #[arg(long)]
    pub checkpoint: bool,

    /// Continue the checkpointed sweep of the same grid and --out from its
    /// last checkpoint; with no checkpoint there, start one (so the same
    /// command line serves the first attempt and every retry); with the
    /// finished CSV there, do nothing. Implies --checkpoint.
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,

    /// How often to checkpoint: a duration of progress (`30s`, `5m`) or a
    /// number of rows (`100000`) [default: 10s].
    #[arg(long, value_name = "DURATION|ROWS", value_parser = every_arg)]
    pub checkpoint_every: Option<Every>,
}

/// How often a checkpoint is taken; at batch boundaries in either case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Every {
    /// Once this much time has passed since the last one.
    Time(Duration),
    /// Once this many rows have been written since the last one.
    Rows(u64),
}

fn every_arg(text: &str) -> Result<Every, String> {
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<u64>() {
            Ok(0) | Err(_) => Err(format!(
                "invalid interval \"{text}\"; give a number of rows from 1, or a duration such as 30s"
            )),
            Ok(rows) => Ok(Every::Rows(rows)),
        };
    }
    let duration = super::duration_arg(text)?;
    Ok(Every::Time(Duration::from_millis(duration.as_millis())))
}

/// `<csv>.checkpoint.json`: where a checkpointed sweep's checkpoint lives.
pub fn checkpoint_path(csv: &Path) -> PathBuf {
    suffixed(csv, ".checkpoint.json")
}

/// What a sweep writes: the runs of a grid (a shard's), into the CSV and
/// maybe a summary; what a checkpoint and the manifests speak of.
pub struct Outputs<'a> {
    pub grid: &'a Grid,
    pub runs: Range<u64>,
    pub shard: Option<Shard>,
    /// The CSV; `None` for stdout, which cannot be checkpointed.
    pub csv: Option<&'a Path>,
    pub summary: Option<&'a Path>,
}

/// Renames a finished sweep's files into place, each with its manifest:
/// the summary first, so that a finished CSV means a finished sweep.
pub fn finish_files(
    outputs: &Outputs,
    csv: Option<PendingFile>,
    summary: Option<PendingFile>,
    written: &Output,
) -> Result<()> {
    let (grid, runs, shard) = (outputs.grid, outputs.runs.clone(), outputs.shard);
    if let (Some(f), Some(w)) = (summary, written.summary) {
        finish_with_manifest(f, &Manifest::summary(grid, runs.clone(), shard, &w))?;
    }
    match csv {
        Some(f) => finish_with_manifest(f, &Manifest::new(grid, runs, shard, &written.csv)),
        None => Ok(()),
    }
}

/// What `--checkpoint` and `--resume` found before the sweep starts.
pub enum Plan {
    /// Neither flag: the files appear when complete, or not at all.
    Plain,
    /// `--resume`, and the finished CSV is already there: its rows.
    Finished(u64),
    /// A checkpointed sweep, fresh or resumed.
    Keep(Every),
}

impl CheckpointArgs {
    /// What to do, decided before the outputs are checked (a finished CSV
    /// is not "an existing file" to `--resume`). Usage errors first.
    pub fn plan(&self, outputs: &Outputs) -> Result<Plan> {
        if !self.checkpoint && !self.resume {
            if self.checkpoint_every.is_some() {
                return Err(
                    UsageError("--checkpoint-every goes with --checkpoint or --resume".into()).into(),
                );
            }
            return Ok(Plan::Plain);
        }
        let every = self
            .checkpoint_every
            .unwrap_or(Every::Time(Duration::from_secs(10)));
        let Some(csv) = outputs
            .csv
            .filter(|p| fs::metadata(p).map_or(true, |m| m.is_file()))
        else {
            return Err(UsageError(
                "--checkpoint and --resume need --out to name a regular file (not -, a device or a pipe)"
                    .into(),
            )
            .into());
        };
        if self.resume
            && let Some(rows) = finished(csv, outputs)
        {
            // Leftovers: of the same sweep, if a crash came after the
            // renames; or of a `--force --checkpoint` run of it over the
            // finished CSV, stopped early: the CSV holds what it would
            // have written, byte for byte (the same grid, runs and shard).
            let _ = fs::remove_file(checkpoint_path(csv));
            for part in [Some(csv), outputs.summary].into_iter().flatten() {
                let _ = fs::remove_file(partial_path(part));
            }
            return Ok(Plan::Finished(rows));
        }
        if self.resume && csv.exists() {
            bail!(
                "{} already exists and is not the finished CSV of this sweep (another grid, shard or \
                 summary, or its manifest is missing); remove it, or start over with --force instead of --resume",
                csv.display()
            );
        }
        Ok(Plan::Keep(every))
    }
}

/// The rows of the finished CSV `csv`, if it and its summary are there with
/// manifests of this very sweep and the CSV has the size its manifest says.
fn finished(csv: &Path, outputs: &Outputs) -> Option<u64> {
    let manifest = read_manifest(csv).ok()?;
    let summary = match outputs.summary {
        Some(path) => Some(read_manifest(path).ok()?),
        None => None,
    };
    let done = Checkpoint {
        next_run: manifest.end_run,
        csv: manifest,
        summary,
    };
    done.check(
        outputs.grid,
        outputs.runs.clone(),
        outputs.shard,
        outputs.summary.is_some(),
    )
    .ok()?;
    (fs::metadata(csv).ok()?.len() == done.csv.bytes).then(|| done.csv_rows())
}

/// A checkpointed sweep's files, open and checked, before its first run.
pub struct Session {
    csv: Part,
    summary: Option<Part>,
    /// The checkpoint resumed from; `None` for a fresh start.
    from: Option<Checkpoint>,
    every: Every,
    json: PathBuf,
}

impl Session {
    /// Opens the partial files: `--resume` with a checkpoint checks it and
    /// the files' leading bytes and cuts them there; otherwise they start
    /// empty (`--checkpoint` refuses to replace a checkpoint without
    /// `force`). Everything is refused here, before the first run.
    pub fn open(outputs: &Outputs, resume: bool, force: bool, every: Every) -> Result<Session> {
        let csv = outputs.csv.expect("plan() refused a checkpoint to stdout");
        let json = checkpoint_path(csv);
        let recorded = read_checkpoint(&json)?;
        let from = match recorded {
            Some(c) if resume => {
                let advice = "resume with the grid and flags it was started with, or start over with --force \
                              instead of --resume";
                c.check(
                    outputs.grid,
                    outputs.runs.clone(),
                    outputs.shard,
                    outputs.summary.is_some(),
                )
                .with_context(|| {
                    format!(
                        "cannot resume {} from {}; {advice}",
                        csv.display(),
                        json.display()
                    )
                })?;
                Some(c)
            }
            Some(c) if !force => bail!(
                "{} holds the checkpoint of an unfinished sweep ({} rows of {} kept in {}); add --resume to \
                 continue it, or --force to start over",
                json.display(),
                grouped(c.csv_rows()),
                csv.display(),
                partial_path(csv).display()
            ),
            Some(_) => {
                // Gone before the files are cut, so no crash can leave it
                // naming bytes that are no longer there.
                fs::remove_file(&json).with_context(|| format!("cannot remove {}", json.display()))?;
                None
            }
            None => {
                if resume {
                    let partial = partial_path(csv);
                    let why = if partial.exists() {
                        format!("{} has no checkpoint beside it", partial.display())
                    } else {
                        format!("no checkpoint of {}", csv.display())
                    };
                    eprintln!("podsim: notice: {why}; starting from the first run");
                }
                None
            }
        };
        let csv_part = Part::open(csv, from.as_ref().map(|c| (&c.csv, c.csv_rows())))?;
        let summary = match outputs.summary {
            Some(path) => {
                let recorded = from.as_ref().map(|c| {
                    let m = c.summary.as_ref().expect("check() compared the summaries");
                    (m, c.next_run - c.csv.first_run)
                });
                Some(Part::open(path, recorded)?)
            }
            None => None,
        };
        // The partial files are locked now: temporary files of these names
        // are a killed podsim's, caught in the middle of a write.
        let manifests = [Some(csv), outputs.summary]
            .into_iter()
            .flatten()
            .map(manifest_path);
        for path in manifests.chain([json.clone()]) {
            remove_leftover_temps(&path);
        }
        if let Some(c) = &from {
            eprintln!(
                "podsim: resuming {} at run {}: {} of {} rows kept from its checkpoint",
                csv.display(),
                c.next_run,
                grouped(c.csv_rows()),
                grouped((c.csv.end_run - c.csv.first_run) * c.csv.replications)
            );
        }
        Ok(Session {
            csv: csv_part,
            summary,
            from,
            every,
            json,
        })
    }

    /// Runs the rest of the sweep, checkpointing as it goes and when
    /// `progress` breaks, then renames the files into place with their
    /// manifests and removes the checkpoint.
    pub fn run(
        self,
        outputs: &Outputs,
        threads: usize,
        limits: &Limits,
        progress: &mut dyn FnMut(&mut Progress<'_>) -> ControlFlow<()>,
    ) -> Result<Output> {
        let Session {
            mut csv,
            summary,
            from,
            every,
            json,
        } = self;
        let target = outputs.csv.expect("open() had a CSV");
        let kept = partial_path(target);
        let total = (outputs.runs.end - outputs.runs.start) * outputs.grid.replications();
        let mut last = (Instant::now(), from.as_ref().map_or(0, Checkpoint::csv_rows));
        let mut failure = None;
        let (mut summary_file, summary_sync, summary_prefix) = match summary {
            Some(p) => (Some(p.file), Some(p.sync), p.prefix),
            None => (None, None, None),
        };
        let syncs: Vec<&File> = std::iter::once(&csv.sync).chain(summary_sync.as_ref()).collect();
        let mut tick = |at: &mut Progress<'_>| {
            let wish = progress(at);
            let due = match every {
                Every::Time(t) => last.0.elapsed() >= t,
                Every::Rows(n) => at.rows() - last.1 >= n,
            };
            if (wish.is_break() || due) && at.rows() > last.1 {
                match save(outputs, at, &syncs, &json) {
                    Ok(()) => last = (Instant::now(), at.rows()),
                    Err(e) => {
                        failure = Some(e);
                        return ControlFlow::Break(());
                    }
                }
            }
            wish
        };
        let sinks = Sinks {
            csv: csv.file.writer(),
            summary: summary_file.as_mut().map(|f| f.writer() as &mut dyn Write),
        };
        let result = match (from, csv.prefix.take()) {
            (Some(c), Some(prefix)) => {
                let resume = Resume {
                    csv: prefix,
                    summary: summary_prefix,
                };
                sweep::resume(
                    outputs.grid,
                    c.next_run..outputs.runs.end,
                    threads,
                    sinks,
                    resume,
                    limits,
                    &mut tick,
                )
            }
            _ => sweep::run(
                outputs.grid,
                outputs.runs.clone(),
                threads,
                sinks,
                limits,
                &mut tick,
            ),
        };
        let kept_words = |rows: u64| {
            format!(
                "{} keeps the {} rows of its last checkpoint; run the same sweep with --resume to go on",
                kept.display(),
                grouped(rows)
            )
        };
        if let Some(e) = failure {
            return Err(e.context(format!("cannot checkpoint; {}", kept_words(last.1))));
        }
        let written = match result {
            Err(SweepError::Interrupted { rows, finished }) => {
                return Err(Interrupted {
                    done: finished,
                    total,
                    kept: Some((kept, rows)),
                }
                .into());
            }
            Err(e) => return Err(anyhow::Error::new(e).context(kept_words(last.1))),
            Ok(written) => written,
        };
        finish_files(outputs, Some(csv.file), summary_file, &written)?;
        match fs::remove_file(&json) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("cannot remove {}", json.display()))
            }
            _ => Ok(written),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_rows_or_durations() {
        assert_eq!(every_arg("100000"), Ok(Every::Rows(100_000)));
        assert_eq!(every_arg("30s"), Ok(Every::Time(Duration::from_secs(30))));
        assert_eq!(every_arg("250ms"), Ok(Every::Time(Duration::from_millis(250))));
        assert!(every_arg("0").unwrap_err().contains("from 1"));
        assert!(every_arg("99999999999999999999999").is_err());
        assert!(every_arg("ten").is_err());
    }
}

//! Splitting a sweep across machines: shard K of N runs one contiguous slice
//! of the run indices (keeping the global `run` numbers); a manifest beside
//! each CSV says which grid and which slice it holds; `merge` puts shards
//! back together.
//!
//! Invariant: `merge` writes nothing it has not checked: every shard comes
//! from the same grid and podsim version, its bytes are the ones its
//! manifest's SHA-256 names, and the rows it copies carry the run numbers
//! 0, 1, 2, … with none missing and none twice. So merging the N shards of a
//! grid gives, byte for byte, the unsharded CSV.

use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::SweepError;
use super::csv;
use super::grid::Grid;
use super::tally::Written;

mod refusal;

pub use refusal::{Differs, MergeError};

/// Shard `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 0.
    pub index: u64,
    /// How many shards the grid is cut into.
    pub count: u64,
}

impl Shard {
    /// Parses `K/N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let usage = || format!("invalid shard \"{text}\"; write K/N with 0 <= K < N (e.g. 0/4), or auto");
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count): (u64, u64) = (
            k.trim().parse().map_err(|_| usage())?,
            n.trim().parse().map_err(|_| usage())?,
        );
        Shard::new(index, count).map_err(|e| format!("invalid shard \"{text}\": {e}"))
    }

    fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 {
            return Err("the number of shards must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is out of range; with {count} shards it goes from 0 to {}",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// The shard of an array job: `JOB_COMPLETION_INDEX` (Kubernetes Indexed
    /// Job, 0-based), else `SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN`
    /// (Slurm arrays may start at 1). `var` reads the environment.
    pub fn from_job(count: u64, var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let number = |name: &str| -> Result<Option<u64>, String> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse()
                        .map_err(|_| format!("{name}={v} is not a shard index (a whole number)"))
                })
                .transpose()
        };
        let index = if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            index
        } else if let Some(task) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            task.checked_sub(min)
                .ok_or_else(|| format!("SLURM_ARRAY_TASK_ID={task} is below SLURM_ARRAY_TASK_MIN={min}"))?
        } else {
            return Err(
                "--shard auto reads JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID \
                 (Slurm array), and neither is set; give --shard K/N instead"
                    .into(),
            );
        };
        Shard::new(index, count)
    }

    /// The runs of this shard: contiguous slices as even as possible.
    pub fn runs(self, total: u64) -> Range<u64> {
        let at = |k: u64| (u128::from(total) * u128::from(k) / u128::from(self.count)) as u64;
        at(self.index)..at(self.index + 1)
    }

    /// `shard-2-of-16` style, K zero-padded so file listings sort.
    pub fn label(self) -> String {
        let width = (self.count - 1).to_string().len();
        format!("shard-{:0width$}-of-{}", self.index, self.count)
    }
}

/// What a CSV holds, written beside it as `<csv>.manifest.json` (the CSV
/// itself stays plain for spreadsheets). A CSV without its manifest is not a
/// finished sweep: the manifest is renamed into place last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The version that wrote the CSV: a merge refuses shards of two versions.
    pub podsim_version: String,
    /// `Grid::sha256` in hex: which grid the runs come from.
    pub grid_sha256: String,
    /// Runs in the whole grid, over every shard.
    pub runs_total: u64,
    /// Rows per run (the `replication` column counts them); written only
    /// when above 1, so manifests of grids without replications keep their bytes.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub replications: u64,
    /// The runs in this file: `first_run..end_run` (end exclusive).
    pub first_run: u64,
    /// The first run after the runs in this file.
    pub end_run: u64,
    /// `K/N`, or `None` for a whole grid (a merge's output included).
    pub shard: Option<String>,
    /// The CSV's header names, in order.
    pub columns: Vec<String>,
    /// Size of the CSV in bytes: a truncated file is named before it is read.
    pub bytes: u64,
    /// SHA-256 of the CSV in hex: an edited or damaged file is refused
    /// even when its size is right.
    pub csv_sha256: String,
}

fn one() -> u64 {
    1
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

impl Manifest {
    /// The manifest of `runs` of `grid` written by `shard`, as `written`.
    pub fn new(grid: &Grid, runs: Range<u64>, shard: Option<Shard>, written: &Written) -> Manifest {
        Manifest {
            podsim_version: env!("CARGO_PKG_VERSION").to_string(),
            grid_sha256: hex(&grid.sha256()),
            runs_total: grid.runs(),
            replications: grid.replications(),
            first_run: runs.start,
            end_run: runs.end,
            shard: shard.map(|s| format!("{}/{}", s.index, s.count)),
            columns: grid.columns(),
            bytes: written.bytes,
            csv_sha256: hex(&written.sha256),
        }
    }

    /// The manifest of the summary of those runs: one row per run, so
    /// shards of a summary merge like shards of a CSV.
    pub fn summary(grid: &Grid, runs: Range<u64>, shard: Option<Shard>, written: &Written) -> Manifest {
        Manifest {
            replications: 1,
            columns: grid.summary_columns(),
            ..Manifest::new(grid, runs, shard, written)
        }
    }
}

/// Lower-case hex, as `sha256sum` prints a digest.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// A shard to merge: its name (for messages), manifest and CSV.
pub struct ShardInput<R> {
    /// The shard's file name, for messages.
    pub name: String,
    /// Its manifest, read first.
    pub manifest: Manifest,
    /// Its CSV, read after the manifest checks out.
    pub csv: R,
}

/// Checks that `shards` are the pieces of one grid, each run exactly once,
/// and writes them to `sink` as one CSV; returns the merged manifest. A
/// missing or duplicated run is named by its number; what was written to
/// `sink` before an error is incomplete, so the caller writes to a pending file.
pub fn merge<R: BufRead>(
    mut shards: Vec<ShardInput<R>>,
    sink: &mut dyn Write,
) -> Result<Manifest, SweepError> {
    let fail = |e: MergeError| Err(SweepError::Merge(e));
    let Some(first) = shards.first() else {
        return fail(MergeError::NoShards);
    };
    let (reference, reference_name) = (first.manifest.clone(), first.name.clone());
    for shard in &shards {
        let m = &shard.manifest;
        let differs = if m.grid_sha256 != reference.grid_sha256 {
            Some(Differs::GridSha256 {
                found: m.grid_sha256.clone(),
                expected: reference.grid_sha256.clone(),
            })
        } else if m.podsim_version != reference.podsim_version {
            Some(Differs::Version {
                found: m.podsim_version.clone(),
                expected: reference.podsim_version.clone(),
            })
        } else if m.columns != reference.columns
            || m.runs_total != reference.runs_total
            || m.replications != reference.replications
        {
            Some(Differs::Shape)
        } else if m.first_run > m.end_run || m.end_run > m.runs_total {
            Some(Differs::Slice {
                first_run: m.first_run,
                end_run: m.end_run,
                runs_total: m.runs_total,
            })
        } else {
            None
        };
        if let Some(differs) = differs {
            return fail(MergeError::OtherGrid {
                shard: shard.name.clone(),
                reference: reference_name,
                differs,
            });
        }
    }
    shards.sort_by_key(|s| (s.manifest.first_run, s.manifest.end_run));
    let mut expected = 0;
    for (i, shard) in shards.iter().enumerate() {
        let m = &shard.manifest;
        if m.first_run < expected {
            return fail(MergeError::Overlap {
                runs: m.first_run..expected.min(m.end_run),
                first: shards[i - 1].name.clone(),
                second: shard.name.clone(),
            });
        }
        if m.first_run > expected {
            return fail(MergeError::NotCovered {
                runs: expected..m.first_run,
            });
        }
        expected = m.end_run;
    }
    if expected != reference.runs_total {
        return fail(MergeError::NotCovered {
            runs: expected..reference.runs_total,
        });
    }
    let header = csv::header_line(&reference.columns);
    let mut merged = Sha256::new();
    sink.write_all(&header)?;
    merged.update(&header);
    let mut bytes = header.len() as u64;
    let mut line = Vec::new();
    for shard in &mut shards {
        let name = &shard.name;
        let shard_end = shard.manifest.end_run;
        let read_error = |source| {
            SweepError::Merge(MergeError::Unreadable {
                shard: name.clone(),
                source,
            })
        };
        let mut own = Sha256::new();
        line.clear();
        shard.csv.read_until(b'\n', &mut line).map_err(read_error)?;
        own.update(&line);
        if line != header {
            return fail(MergeError::Header { shard: name.clone() });
        }
        let mut next = shard.manifest.first_run;
        // With replications each run has that many rows, numbered in the
        // second column from 0.
        let replications = reference.replications;
        let mut replication = 0;
        loop {
            line.clear();
            if shard.csv.read_until(b'\n', &mut line).map_err(read_error)? == 0 {
                break;
            }
            own.update(&line);
            let mut cells = line.split(|&b| b == b',');
            let mut number = || {
                let cell = cells.next().unwrap_or_default();
                std::str::from_utf8(cell.trim_ascii_end())
                    .ok()
                    .and_then(|c| c.parse::<u64>().ok())
            };
            let run = number();
            let in_order = replications == 1 || number() == Some(replication);
            if line.ends_with(b"\n") && run == Some(next) && in_order && next < shard.manifest.end_run {
                sink.write_all(&line)?;
                merged.update(&line);
                bytes += line.len() as u64;
                replication += 1;
                if replication == replications {
                    replication = 0;
                    next += 1;
                }
                continue;
            }
            let shard = name.clone();
            let found = || String::from_utf8_lossy(&line).trim_end().to_string();
            return fail(match run {
                Some(run) if run < next => MergeError::Twice { shard, run },
                Some(run) if run == next && replications > 1 => MergeError::Replication {
                    shard,
                    run,
                    expected: replication,
                    found: found(),
                },
                Some(run) if run < shard_end && line.ends_with(b"\n") => MergeError::Gap {
                    shard,
                    runs: next..run,
                },
                _ => MergeError::Damaged {
                    shard,
                    run: next,
                    found: found(),
                },
            });
        }
        if next != shard.manifest.end_run || replication != 0 {
            return fail(MergeError::Short {
                shard: name.clone(),
                runs: next..shard.manifest.end_run,
            });
        }
        let digest = hex(&own.finalize());
        if digest != shard.manifest.csv_sha256 {
            return fail(MergeError::Digest {
                shard: name.clone(),
                found: digest,
                expected: shard.manifest.csv_sha256.clone(),
            });
        }
    }
    Ok(Manifest {
        shard: None,
        first_run: 0,
        end_run: reference.runs_total,
        bytes,
        csv_sha256: hex(&merged.finalize()),
        ..reference
    })
}

#[cfg(test)]
mod tests;

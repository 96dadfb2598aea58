//! `podsim merge OUT SHARD...`: put the shards of a sweep back into one CSV,
//! after checking they come from one grid and cover each run exactly once.
//!
//! Invariant: nothing is written at OUT unless every check passed (the
//! merged file is renamed into place only when complete).

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use podsim::sweep::{self, shard::ShardInput};

use super::output::{PendingFile, finish_with_manifest, read_manifest};
use podsim::scenario::numbers::{grouped, human_bytes};

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The merged CSV to write (`-` for stdout).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,

    /// The shard CSVs, in any order, each with its `.manifest.json` beside it.
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<PathBuf>,

    /// Overwrite an existing OUT.
    #[arg(long)]
    pub force: bool,
}

pub fn merge(args: &MergeArgs, out: &mut dyn Write) -> Result<()> {
    let mut inputs = Vec::with_capacity(args.shards.len());
    for path in &args.shards {
        if path == &args.out {
            bail!(
                "{} is both the output and a shard; write the merge elsewhere",
                path.display()
            );
        }
        let manifest = read_manifest(path)?;
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let size = file.metadata()?.len();
        if size != manifest.bytes {
            bail!(
                "{} has {size} bytes but its manifest says {}; it was cut short or edited",
                path.display(),
                manifest.bytes
            );
        }
        inputs.push(ShardInput {
            name: path.display().to_string(),
            manifest,
            csv: BufReader::with_capacity(1 << 20, file),
        });
    }
    if args.out.as_os_str() == "-" {
        sweep::merge(inputs, out)?;
        return Ok(());
    }
    let count = inputs.len();
    let mut file = PendingFile::create(&args.out, args.force)?;
    let manifest = sweep::merge(inputs, file.writer())?;
    finish_with_manifest(file, &manifest)?;
    writeln!(
        out,
        "merged {count} shard{}: {} rows ({}) to {}",
        if count == 1 { "" } else { "s" },
        // Rows, not runs: a run of a grid with replications is that many
        // rows (a summary's manifest has one row per run).
        grouped((manifest.end_run - manifest.first_run) * manifest.replications),
        human_bytes(manifest.bytes as f64),
        args.out.display()
    )?;
    Ok(())
}

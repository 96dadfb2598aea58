//! The checkpoint's files on disk: a partial file opened, locked and cut
//! to what the checkpoint names, and the checkpoint itself read and
//! replaced durably; apart from the session that decides when.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::path::Path;

use anyhow::{Context, Result, bail};

use podsim::sweep::checkpoint::Checkpoint;
use podsim::sweep::{Manifest, Progress, Tally};

use super::super::output::{PendingFile, partial_path, write_durably};
use super::{Outputs, checkpoint_path};

/// One partial file: where its bytes go and a handle to fsync them by.
pub(super) struct Part {
    pub(super) file: PendingFile,
    pub(super) sync: File,
    /// What the checkpoint resumed from found in it.
    pub(super) prefix: Option<Tally>,
}

impl Part {
    /// Opens `partial_path(target)` without cutting it, locks it against a
    /// second podsim, and keeps what `recorded` (a manifest and its rows)
    /// names, checked, or nothing.
    pub(super) fn open(target: &Path, recorded: Option<(&Manifest, u64)>) -> Result<Part> {
        let path = partial_path(target);
        let mut options = OpenOptions::new();
        options.read(true).write(true);
        if recorded.is_none() {
            options.create(true);
        }
        let mut file = match options.open(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
                "cannot resume: {} is missing, though {} names its rows; start over with --force \
                 instead of --resume",
                path.display(),
                checkpoint_path(target).display()
            ),
            other => other.with_context(|| format!("cannot write {}", path.display()))?,
        };
        match file.try_lock() {
            Err(fs::TryLockError::WouldBlock) => bail!(
                "{} is being written by another podsim (it holds the file's lock); let it finish or stop it",
                path.display()
            ),
            // A file system without locks (some network ones): go on unlocked.
            Err(fs::TryLockError::Error(e)) if e.kind() != io::ErrorKind::Unsupported => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
            _ => {}
        }
        let damaged = |problem: String| {
            anyhow::anyhow!(
                "cannot resume from {}: {problem}; start over with --force instead of --resume",
                path.display()
            )
        };
        let (keep, prefix) = match recorded {
            Some((manifest, rows)) => {
                let prefix = Tally::read(&mut file, manifest.bytes).map_err(|e| damaged(e.to_string()))?;
                Checkpoint::check_prefix(manifest, rows, &prefix).map_err(|e| damaged(e.to_string()))?;
                (manifest.bytes, Some(prefix))
            }
            None => (0, None),
        };
        let cannot = || format!("cannot write {}", path.display());
        file.set_len(keep).with_context(cannot)?;
        file.seek(SeekFrom::End(0)).with_context(cannot)?;
        let sync = file.try_clone().with_context(cannot)?;
        Ok(Part {
            file: PendingFile::partial(target, file),
            sync,
            prefix,
        })
    }
}

/// Reads the checkpoint at `json`, if there is one.
pub(super) fn read_checkpoint(json: &Path) -> Result<Option<Checkpoint>> {
    let text = match fs::read_to_string(json) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        other => other.with_context(|| format!("cannot read {}", json.display()))?,
    };
    serde_json::from_str(&text).map(Some).with_context(|| {
        format!(
            "{}: not a podsim checkpoint; remove it to start over",
            json.display()
        )
    })
}

/// Makes the bytes in hand durable, then records them: flush, fsync each
/// partial file, then replace the checkpoint atomically.
pub(super) fn save(outputs: &Outputs, at: &mut Progress<'_>, syncs: &[&File], json: &Path) -> Result<()> {
    let output = at.flush().context("cannot write the partial files")?;
    for file in syncs {
        file.sync_data()
            .context("cannot sync the partial files to disk")?;
    }
    let checkpoint = Checkpoint::new(
        outputs.grid,
        outputs.runs.clone(),
        outputs.shard,
        at.next_run,
        &output,
    );
    let mut text = serde_json::to_vec_pretty(&checkpoint)?;
    text.push(b'\n');
    write_durably(json, &text).with_context(|| format!("cannot write {}", json.display()))
}

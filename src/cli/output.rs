//! Output files that are either complete or absent: written under a
//! temporary name beside the target and renamed into place at the end.
//! A target that exists and is not a regular file (`/dev/null`, a FIFO) is
//! written directly: replacing a device by renaming over it would be wrong.
//! Pictures and pages take their format from the extension and overwrite the
//! file they are told to write (they are derived, and regenerating `results/`
//! is their normal use); `--force` is for the sweep's CSV, costly to remake.
//!
//! Invariant: a regular file at the final name was written to the end; an
//! error or a panic removes the temporary file (a killed process leaves only
//! `*.tmp`).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use podsim::report::png::svg_to_png;
use podsim::sweep::Manifest;

/// A file being written under a temporary name.
pub struct PendingFile {
    target: PathBuf,
    /// `None` when writing straight to a device or FIFO.
    temp: Option<PathBuf>,
    writer: Option<BufWriter<File>>,
}

impl PendingFile {
    /// Starts writing `target`; refuses an existing regular file unless `force`.
    pub fn create(target: &Path, force: bool) -> Result<PendingFile> {
        let special = fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir());
        let temp = if special {
            None
        } else {
            refuse_existing(target, force)?;
            let mut name = target.file_name().unwrap_or_default().to_os_string();
            name.push(format!(".{}.tmp", std::process::id()));
            Some(target.with_file_name(name))
        };
        let path = temp.as_deref().unwrap_or(target);
        let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(PendingFile {
            target: target.to_path_buf(),
            temp,
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer
            .as_mut()
            .expect("a pending file has a writer until it is renamed")
    }

    /// Flushes the file and gives it its final name. No fsync: the rename
    /// guards against an interrupted process, which is the common failure;
    /// waiting for the disk would double the time of a million-row sweep.
    pub fn finish(mut self) -> Result<()> {
        if let Some(mut writer) = self.writer.take() {
            writer
                .flush()
                .with_context(|| format!("cannot write {}", self.target.display()))?;
        }
        match &self.temp {
            Some(temp) => fs::rename(temp, &self.target)
                .with_context(|| format!("cannot rename {} to {}", temp.display(), self.target.display())),
            None => Ok(()),
        }
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if let (Some(_), Some(temp)) = (self.writer.take(), &self.temp) {
            let _ = fs::remove_file(temp);
        }
    }
}

/// An error unless `target` is free or `force` allows replacing it.
pub fn refuse_existing(target: &Path, force: bool) -> Result<()> {
    if !force && target.exists() {
        bail!("{} already exists; add --force to overwrite it", target.display());
    }
    Ok(())
}

/// `<csv>.manifest.json`: where a CSV's manifest lives.
pub fn manifest_path(csv: &Path) -> PathBuf {
    let mut name = csv.file_name().unwrap_or_default().to_os_string();
    name.push(".manifest.json");
    csv.with_file_name(name)
}

/// Renames a finished CSV into place, then its manifest: a CSV whose
/// manifest is missing or stale is never taken for a finished sweep. A
/// device or FIFO gets no manifest.
pub fn finish_with_manifest(csv: PendingFile, manifest: &Manifest) -> Result<()> {
    if csv.temp.is_none() {
        return csv.finish();
    }
    let path = manifest_path(&csv.target);
    let mut pending = PendingFile::create(&path, true)?;
    serde_json::to_writer_pretty(pending.writer(), manifest)?;
    writeln!(pending.writer())?;
    match fs::remove_file(&path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("cannot replace {}", path.display()));
        }
        _ => {}
    }
    csv.finish()?;
    pending.finish()
}

/// Reads the manifest beside `csv`.
pub fn read_manifest(csv: &Path) -> Result<Manifest> {
    let path = manifest_path(csv);
    let text = fs::read_to_string(&path).with_context(|| {
        format!(
            "{} has no readable manifest {}; only a finished sweep writes one",
            csv.display(),
            path.display()
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a podsim manifest", path.display()))
}

/// The picture formats, chosen by the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PictureFormat {
    Svg,
    Png,
}

impl PictureFormat {
    pub fn of(path: &Path) -> Result<PictureFormat> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(PictureFormat::Svg),
            Some("png") => Ok(PictureFormat::Png),
            _ => bail!(
                "{}: unknown picture format; name the file .svg or .png",
                path.display()
            ),
        }
    }
}

/// Writes `svg` to `path` as SVG or PNG, by the path's extension.
pub fn write_picture(path: &Path, svg: &str) -> Result<()> {
    match PictureFormat::of(path)? {
        PictureFormat::Svg => write_file(path, svg.as_bytes()),
        PictureFormat::Png => {
            let png = svg_to_png(svg).with_context(|| format!("{}: cannot draw the PNG", path.display()))?;
            write_file(path, &png)
        }
    }
}

/// Writes `bytes` to `path` whole (temporary name, then rename), replacing
/// what was there.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut pending = PendingFile::create(path, true)?;
    pending
        .writer()
        .write_all(bytes)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    pending.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_unfinished_file_leaves_nothing_behind() {
        let dir = tempfile::TempDir::new().unwrap();
        let target = dir.path().join("x.csv");
        let mut pending = PendingFile::create(&target, false).unwrap();
        pending.writer().write_all(b"run\n0\n").unwrap();
        assert_eq!(
            names(dir.path()).len(),
            1,
            "only the temporary file while writing"
        );
        drop(pending);
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn a_finished_file_appears_whole_with_its_manifest_last() {
        let dir = tempfile::TempDir::new().unwrap();
        let target = dir.path().join("x.csv");
        fs::write(manifest_path(&target), "stale").unwrap();
        let mut pending = PendingFile::create(&target, false).unwrap();
        pending.writer().write_all(b"run\n0\n").unwrap();
        let manifest = Manifest {
            podsim_version: "0".into(),
            grid_hash: "0".into(),
            runs_total: 1,
            first_run: 0,
            end_run: 1,
            shard: None,
            columns: vec!["run".into()],
            bytes: 6,
        };
        finish_with_manifest(pending, &manifest).unwrap();
        assert_eq!(names(dir.path()), ["x.csv", "x.csv.manifest.json"]);
        assert_eq!(read_manifest(&target).unwrap(), manifest);
        assert!(PendingFile::create(&target, false).is_err());
    }
}

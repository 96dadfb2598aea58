//! Output files that are either complete or absent: written under a
//! temporary name beside the target and renamed into place at the end.
//! A target that exists and is not a regular file (`/dev/null`, a FIFO) is
//! written directly: replacing a device by renaming over it would be wrong.
//! Pictures and pages take their format from the extension and overwrite the
//! file they are told to write (they are derived, and regenerating `results/`
//! is their normal use); `--force` is for the sweep's CSV, costly to remake.
//!
//! Every output a command names is checked before the command starts work
//! (`check_outputs`): a missing folder or an existing CSV is refused before a
//! sweep's first run, not after its last.
//!
//! A checkpointed sweep (`checkpoint.rs`) writes under `<target>.partial`
//! instead, a name that does not change from one process to the next, and
//! keeps that file when it stops early: its checkpoint says which of its
//! bytes count.
//!
//! Invariant: a regular file at the final name was written to the end; an
//! error, a panic or an interrupt removes the temporary file (a killed
//! process leaves only `*.tmp`), and keeps a partial one; messages name the
//! final path, never the temporary one.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use podsim::report::png::svg_to_png;
use podsim::sweep::Manifest;

/// A file being written under a temporary name.
pub struct PendingFile {
    target: PathBuf,
    staging: Staging,
    writer: Option<BufWriter<File>>,
}

/// Where a pending file's bytes go until it is finished.
enum Staging {
    /// Straight to the target, a device or FIFO.
    Direct,
    /// `<target>.<pid>.tmp`, removed unless finished.
    Temp(PathBuf),
    /// `<target>.partial`, kept unless finished.
    Partial(PathBuf),
}

impl PendingFile {
    /// Starts writing `target`; refuses an existing regular file unless `force`.
    pub fn create(target: &Path, force: bool) -> Result<PendingFile> {
        let special = fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir());
        let staging = if special {
            Staging::Direct
        } else {
            check_writable(target)?;
            refuse_existing(target, force)?;
            Staging::Temp(suffixed(target, &format!(".{}.tmp", std::process::id())))
        };
        let path = match &staging {
            Staging::Temp(temp) => temp.as_path(),
            _ => target,
        };
        let file = File::create(path).with_context(|| format!("cannot write {}", target.display()))?;
        Ok(PendingFile::new(target, staging, file))
    }

    /// Goes on writing `target` through `file`, open at `partial_path(target)`
    /// and positioned where the next byte goes.
    pub fn partial(target: &Path, file: File) -> PendingFile {
        PendingFile::new(target, Staging::Partial(partial_path(target)), file)
    }

    fn new(target: &Path, staging: Staging, file: File) -> PendingFile {
        PendingFile {
            target: target.to_path_buf(),
            staging,
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
        }
    }

    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer
            .as_mut()
            .expect("a pending file has a writer until it is renamed")
    }

    /// Flushes the file and gives it its final name. No fsync for a
    /// temporary file: the rename guards against an interrupted process,
    /// which is the common failure; waiting for the disk would double the
    /// time of a million-row sweep. A partial file, whose sweep asked to
    /// survive a lost machine, is on disk before it is renamed.
    pub fn finish(mut self) -> Result<()> {
        let cannot = || format!("cannot write {}", self.target.display());
        if let Some(mut writer) = self.writer.take() {
            writer.flush().with_context(cannot)?;
            if let Staging::Partial(_) = self.staging {
                writer.get_ref().sync_data().with_context(cannot)?;
            }
        }
        match &self.staging {
            Staging::Temp(staged) | Staging::Partial(staged) => {
                fs::rename(staged, &self.target).with_context(cannot)
            }
            Staging::Direct => Ok(()),
        }
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if let (Some(_), Staging::Temp(temp)) = (self.writer.take(), &self.staging) {
            let _ = fs::remove_file(temp);
        }
    }
}

/// `<target>.partial`: where a checkpointed sweep writes `target`.
pub fn partial_path(target: &Path) -> PathBuf {
    suffixed(target, ".partial")
}

/// `target` with `suffix` added to its file name.
pub fn suffixed(target: &Path, suffix: &str) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    target.with_file_name(name)
}

/// An error unless `target` is free or `force` allows replacing it.
pub fn refuse_existing(target: &Path, force: bool) -> Result<()> {
    if !force && target.exists() {
        bail!("{} already exists; add --force to overwrite it", target.display());
    }
    Ok(())
}

/// An output a command will write, named by `flag` on its command line.
pub struct Planned<'a> {
    pub flag: &'a str,
    pub path: &'a Path,
    /// Refuse an existing file (the sweep's CSV without --force); pictures
    /// and pages are replaced.
    pub keep_existing: bool,
    /// Must be named `.svg` or `.png` (a name from a grid file, which clap
    /// has not seen).
    pub picture: bool,
}

/// Checks, before any work, the outputs a command will write: each one's
/// folder exists, none is a folder, an existing file is refused where it
/// must be kept, a picture has a picture's extension, and no two share a
/// name. Devices and FIFOs pass: they are written directly.
pub fn check_outputs(outputs: &[Planned]) -> Result<()> {
    for (i, output) in outputs.iter().enumerate() {
        if output.path.as_os_str() == "-" {
            continue;
        }
        if output.picture {
            PictureFormat::of(output.path).map_err(anyhow::Error::msg)?;
        }
        check_writable(output.path)?;
        let special = fs::metadata(output.path).is_ok_and(|m| !m.is_file());
        if output.keep_existing && !special {
            refuse_existing(output.path, false)?;
        }
        if let Some(twin) = outputs[..i].iter().find(|o| o.path == output.path) {
            bail!(
                "{} and {} both name {}; give each its own file",
                twin.flag,
                output.flag,
                output.path.display()
            );
        }
    }
    Ok(())
}

/// An error, naming the real path, when `target` cannot be a file: its
/// folder is missing or is a file, or it is itself a folder.
fn check_writable(target: &Path) -> Result<()> {
    if target.is_dir() {
        bail!(
            "cannot write {}: it is a directory; name a file",
            target.display()
        );
    }
    let Some(folder) = target.parent().filter(|f| !f.as_os_str().is_empty()) else {
        return Ok(());
    };
    match fs::metadata(folder) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => bail!(
            "cannot write {}: {} is not a directory",
            target.display(),
            folder.display()
        ),
        Err(_) => bail!(
            "cannot write {}: directory {} does not exist",
            target.display(),
            folder.display()
        ),
    }
}

/// `<csv>.manifest.json`: where a CSV's manifest lives.
pub fn manifest_path(csv: &Path) -> PathBuf {
    suffixed(csv, ".manifest.json")
}

/// Renames a finished CSV into place, then its manifest: a CSV whose
/// manifest is missing or stale is never taken for a finished sweep. A
/// device or FIFO gets no manifest.
pub fn finish_with_manifest(csv: PendingFile, manifest: &Manifest) -> Result<()> {
    if let Staging::Direct = csv.staging {
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
    pub fn of(path: &Path) -> Result<PictureFormat, String> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(PictureFormat::Svg),
            Some("png") => Ok(PictureFormat::Png),
            _ => Err(format!(
                "{}: unknown picture format; name the file .svg or .png",
                path.display()
            )),
        }
    }
}

/// clap's parser for flags that name a picture: a name podsim cannot draw
/// (`.jpg`) is a usage error, found before anything runs.
pub fn picture_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    PictureFormat::of(&path)?;
    Ok(path)
}

/// Writes `svg` to `path` as SVG or PNG, by the path's extension.
pub fn write_picture(path: &Path, svg: &str) -> Result<()> {
    match PictureFormat::of(path).map_err(anyhow::Error::msg)? {
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

/// Removes what a killed podsim left of its writes to `path`: the
/// `<path>.<pid>.tmp` files of `write_durably` and `PendingFile`. Only for a
/// caller that holds the sweep's lock, so no live process owns them.
pub fn remove_leftover_temps(path: &Path) {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let leftover = file
            .to_str()
            .and_then(|f| f.strip_prefix(name)?.strip_prefix('.')?.strip_suffix(".tmp"))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if leftover {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Writes `bytes` to `path` so that a crash at any moment leaves the old
/// file or the new one, whole: temporary name, fsync, rename, fsync of the
/// folder (which makes the rename itself durable).
pub fn write_durably(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = suffixed(path, &format!(".{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written?;
    let folder = path
        .parent()
        .filter(|f| !f.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    File::open(folder)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty folder of this test's own (`tempfile` is not a dependency:
    /// see `TempDir` in tests/cli/common.rs).
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("podsim-unit-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir(&dir).unwrap();
        dir
    }

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
        let dir = scratch("unfinished");
        let target = dir.join("x.csv");
        let mut pending = PendingFile::create(&target, false).unwrap();
        pending.writer().write_all(b"run\n0\n").unwrap();
        assert_eq!(names(&dir).len(), 1, "only the temporary file while writing");
        drop(pending);
        assert!(names(&dir).is_empty());
        fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_partial_file_is_kept_when_dropped_and_renamed_when_finished() {
        let dir = scratch("partial");
        let target = dir.join("x.csv");
        let file = File::create(partial_path(&target)).unwrap();
        let mut pending = PendingFile::partial(&target, file);
        pending.writer().write_all(b"run\n0\n").unwrap();
        drop(pending);
        assert_eq!(names(&dir), ["x.csv.partial"]);
        assert_eq!(fs::read(partial_path(&target)).unwrap(), b"run\n0\n");
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(partial_path(&target))
            .unwrap();
        file.write_all(b"1\n").unwrap();
        PendingFile::partial(&target, file).finish().unwrap();
        assert_eq!(names(&dir), ["x.csv"]);
        assert_eq!(fs::read(&target).unwrap(), b"run\n0\n1\n");
        write_durably(&dir.join("c.json"), b"{}").unwrap();
        assert_eq!(names(&dir), ["c.json", "x.csv"], "no temporary file left");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finished_file_appears_whole_with_its_manifest_last() {
        let dir = scratch("finished");
        let target = dir.join("x.csv");
        fs::write(manifest_path(&target), "stale").unwrap();
        let mut pending = PendingFile::create(&target, false).unwrap();
        pending.writer().write_all(b"run\n0\n").unwrap();
        let manifest = Manifest {
            podsim_version: "0".into(),
            grid_sha256: "0".into(),
            runs_total: 1,
            replications: 1,
            first_run: 0,
            end_run: 1,
            shard: None,
            columns: vec!["run".into()],
            bytes: 6,
            csv_sha256: "0".into(),
        };
        finish_with_manifest(pending, &manifest).unwrap();
        assert_eq!(names(&dir), ["x.csv", "x.csv.manifest.json"]);
        assert_eq!(read_manifest(&target).unwrap(), manifest);
        assert!(PendingFile::create(&target, false).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_a_killed_writes_temporary_files_are_removed() {
        let dir = std::env::temp_dir().join(format!("podsim-leftovers-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        for name in [
            "x.csv.checkpoint.json.4242.tmp",
            "x.csv.checkpoint.json",
            "x.csv.checkpoint.json.notes.tmp",
            "x.csv.checkpoint.json..tmp",
            "y.csv.checkpoint.json.4242.tmp",
        ] {
            fs::write(dir.join(name), "x").unwrap();
        }
        remove_leftover_temps(&dir.join("x.csv.checkpoint.json"));
        assert_eq!(
            names(&dir),
            [
                "x.csv.checkpoint.json",
                "x.csv.checkpoint.json..tmp",
                "x.csv.checkpoint.json.notes.tmp",
                "y.csv.checkpoint.json.4242.tmp"
            ]
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}

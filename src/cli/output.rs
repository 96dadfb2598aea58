//! Writing pictures and pages to the files users name: the format follows the
//! extension, and the bytes land under a temporary name that is renamed when
//! complete.
//!
//! Invariant: a named output is either its old self or complete, never half
//! written. A picture command overwrites the file it is told to write (it is
//! derived, and regenerating `results/` is its normal use); `--force` is for
//! the sweep's CSV, which is expensive to remake.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};

use podsim::report::png::svg_to_png;

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

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".podsim-");
    // A temporary file is private (0600); the output is an ordinary file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    temp.write_all(bytes)
        .and_then(|()| temp.flush())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    temp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}

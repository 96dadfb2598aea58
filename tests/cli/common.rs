//! How the CLI tests start the binary and write throwaway input files.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// `podsim` run from the repository root, so `scenarios/…` paths work.
pub fn podsim() -> Command {
    let mut cmd = Command::cargo_bin("podsim").expect("the podsim binary is built");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Writes `text` to `name` in `dir` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file written");
    path
}

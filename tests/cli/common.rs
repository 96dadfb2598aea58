//! How the CLI tests start the binary and write throwaway input files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use assert_cmd::Command;

/// `podsim` run from the repository root, so `scenarios/…` paths work.
pub fn podsim() -> Command {
    Command::from_std(podsim_process())
}

/// The same command as a plain `std::process::Command`, for the tests that
/// must act while it runs (send it a signal, watch its files).
pub fn podsim_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("podsim"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// `podsim sweep --grid GRID --out -`, once it succeeds: the CSV it wrote.
pub fn sweep_csv(grid: &Path) -> String {
    let out = podsim()
        .args(["sweep", "--out", "-", "--grid"])
        .arg(grid)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// Writes `text` to `name` in `dir` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file written");
    path
}

/// `podsim run --format json` of the bundled `scenarios/service/rollout.yaml`
/// with its rollout annotation replaced by `annotations` (one disruption
/// kind's, written as the template's annotation lines), as a new user
/// would edit it.
pub fn rollout_yaml_json_with(annotations: &str) -> serde_json::Value {
    let text = std::fs::read_to_string("scenarios/service/rollout.yaml")
        .unwrap()
        .replace("podsim.dev/disruptions.0.rollout: \"RollingUpdate\"", annotations);
    run_json("edited.yaml", &text).0
}

/// `podsim run --format json` of `text` written to `name` in a fresh
/// folder, once it succeeds: the JSON, and what it said on stderr.
pub fn run_json(name: &str, text: &str) -> (serde_json::Value, String) {
    let dir = TempDir::new();
    let path = write(dir.path(), name, text);
    let out = podsim()
        .args(["run", "--format", "json"])
        .arg(&path)
        .assert()
        .success();
    let output = out.get_output();
    let doc = serde_json::from_slice(&output.stdout).unwrap();
    (doc, String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A fresh folder under the system's temporary folder, removed with what it
/// holds when dropped. Written here rather than taken from the `tempfile`
/// crate: that crate turns on features of `once_cell` and `rustix` that the
/// program's own build does not use, so `cargo test` rebuilt the font stack
/// and clap that `cargo build` had just built.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("podsim-test-{}-{n}", std::process::id()));
            // A folder left by an earlier process with the same id is skipped.
            match std::fs::create_dir(&path) {
                Ok(()) => return TempDir(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("cannot create {}: {e}", path.display()),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

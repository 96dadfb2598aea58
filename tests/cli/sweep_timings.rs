//! A sweep over a manifest with a timings file, the grid's `timings` key:
//! Istio's injection of `hello` as published (`tests/manifests/`), its
//! proxy beside the app or made a native sidecar, rows worked by hand; and
//! what the key refuses.

use super::common::{TempDir, write};
use super::sweep::{scenario, sweep_error, sweep_stdout};
use std::path::{Path, PathBuf};

fn manifest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/manifests")
        .join(name)
}

/// A grid file `name` in `dir` over `base`, with `rest` after its base line.
fn grid_over(dir: &Path, name: &str, base: &Path, rest: &str) -> PathBuf {
    write(dir, name, &format!("base = '{}'\n{rest}", base.display()))
}

/// By hand, with `istio-classic-sidecar.timings.toml` (istio-init 1 s;
/// istio-proxy boot 2.5 s, drain 0 s; hello boot 1 s, drain 2 s; deleted
/// 5 s after Ready): istio-init runs 0→1 s. As an app, istio-proxy starts
/// with hello at 1 s (R6); as a native sidecar it starts first, at 1 s, and
/// counts as started at once, having no startup probe (R21), so hello
/// starts in the same sync. Either way hello is alive at 2 s and the proxy
/// at 3.5 s: exposed 1.5 s at startup. Its readiness probe runs at 2 s and
/// 4 s (initialDelaySeconds 1, periodSeconds 2): Ready at 4 s, deleted at
/// 9 s. Beside the app both get SIGTERM at 9 s, Envoy exits at once and
/// hello drains to 11 s: exposed 2 s. As a sidecar it gets SIGTERM only
/// once hello has exited at 11 s (R36): never exposed at shutdown.
/// Termination takes 2 s both ways.
#[test]
fn a_manifest_sweeps_with_the_grids_timings_file() {
    let dir = TempDir::new();
    let grid = grid_over(
        dir.path(),
        "grid.toml",
        &manifest("istio-classic-sidecar.yaml"),
        &format!(
            "timings = '{}'\n[axes]\n\"containers.istio-proxy.kind\" = [\"app\", \"sidecar\"]\n",
            manifest("istio-classic-sidecar.timings.toml").display()
        ),
    );
    let csv = String::from_utf8(sweep_stdout(&grid, &[])).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(7).collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["0", "app", "4000", "1500", "2000", "3500", "2000"],
            ["1", "sidecar", "4000", "1500", "0", "1500", "2000"],
        ],
        "{csv}"
    );
}

#[test]
fn the_timings_key_is_for_a_manifest_and_a_file_that_is_there() {
    let dir = TempDir::new();
    let timings = manifest("istio-classic-sidecar.timings.toml");
    let toml_base = grid_over(
        dir.path(),
        "toml.toml",
        &scenario("seed-sidecar.toml"),
        &format!(
            "timings = '{}'\n[axes]\n\"horizon\" = [\"1h\"]\n",
            timings.display()
        ),
    );
    assert!(
        sweep_error(&toml_base).contains("toml.toml:2:11: timings is for a manifest base"),
        "{}",
        sweep_error(&toml_base)
    );
    let hello = manifest("istio-classic-sidecar.yaml");
    let missing = grid_over(
        dir.path(),
        "missing.toml",
        &hello,
        "timings = 'nope.toml'\n[axes]\n\"horizon\" = [\"1h\"]\n",
    );
    let stderr = sweep_error(&missing);
    assert!(
        stderr.contains("missing.toml:2:11: timings file \"") && stderr.contains("nope.toml\" not found"),
        "{stderr}"
    );
    let typo = grid_over(
        dir.path(),
        "typo.toml",
        &hello,
        "timngs = 'x.toml'\n[axes]\n\"horizon\" = [\"1h\"]\n",
    );
    assert!(sweep_error(&typo).contains("typo.toml:2:1: unknown key \"timngs\"; did you mean \"timings\"?"));
}

/// The notices of a manifest base name the grid's key, not `run`'s flag.
#[test]
fn a_sweeps_notices_say_how_a_grid_gives_timings() {
    let dir = TempDir::new();
    let grid = grid_over(
        dir.path(),
        "grid.toml",
        &manifest("istio-classic-sidecar.yaml"),
        "[axes]\n\"containers.hello.boot\" = [\"1s\"]\n",
    );
    let out = super::common::podsim()
        .args(["sweep", "--out", "-", "--grid"])
        .arg(&grid)
        .assert()
        .success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("container \"istio-proxy\": taken as the Pod's proxy")
            && stderr.contains("in a timings file named by the grid's timings key")
            && !stderr.contains("--timings"),
        "{stderr}"
    );
}

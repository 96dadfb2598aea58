//! `podsim sweep --shard` and `podsim merge` end to end: shards of a grid,
//! merged, are byte-identical to the whole sweep, and `--shard auto` takes
//! its slice from an Indexed Job's index. Kept apart from `sweep` so each
//! file stays one concern.

use super::common::{TempDir, podsim};
use super::sweep::{grid_with_cap, scenario};
use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;

#[test]
fn four_shards_merged_are_byte_identical_to_the_whole_sweep() {
    let dir = TempDir::new();
    let whole = dir.path().join("whole.csv");
    let grid = scenario("seed-grid.toml");
    podsim()
        .args(["sweep", "--grid"])
        .arg(&grid)
        .arg("--out")
        .arg(&whole)
        .assert()
        .success();
    // An explicit --out with --shard K/N is written exactly as named.
    let shard = |k: u32| dir.path().join(format!("part-{k}.csv"));
    for k in 0..4 {
        podsim()
            .args(["sweep", "--grid"])
            .arg(&grid)
            .arg("--out")
            .arg(shard(k))
            .args(["--shard", &format!("{k}/4")])
            .assert()
            .success()
            .stdout(predicate::str::contains(format!("to {}", shard(k).display())));
    }
    let merged = dir.path().join("merged.csv");
    podsim()
        .arg("merge")
        .arg(&merged)
        .args([shard(2), shard(0), shard(3), shard(1)])
        .assert()
        .success()
        .stdout(predicate::str::contains("merged 4 shards: 21,600 rows"));
    assert!(fs::read(&merged).unwrap() == fs::read(&whole).unwrap());
    // The manifests agree too: a merge is indistinguishable from the whole run.
    let manifest = |p: &Path| fs::read_to_string(format!("{}.manifest.json", p.display())).unwrap();
    assert_eq!(manifest(&merged), manifest(&whole));

    // A missing shard, a shard given twice, and a shard of another grid are refused.
    let again = dir.path().join("again.csv");
    let refused = |shards: &[PathBuf], message: &str| {
        podsim()
            .arg("merge")
            .arg(&again)
            .args(shards)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(message));
        assert!(!again.exists());
    };
    // 21,600 runs in 4 shards: 0..5400, 5400..10800, 10800..16200, 16200..21600.
    refused(
        &[shard(0), shard(1), shard(3)],
        "runs 10800 to 16199 are missing: none of the shards given holds them",
    );
    refused(
        &[shard(0), shard(1), shard(1), shard(2), shard(3)],
        "runs 5400 to 10799 are in both",
    );
    refused(
        &[shard(0), shard(1), shard(2), shard(3), whole.clone()],
        "runs 0 to 5399 are in both",
    );
    let (_other_dir, other_grid) = grid_with_cap("9s");
    let other = dir.path().join("other.csv");
    podsim()
        .args(["sweep", "--grid"])
        .arg(&other_grid)
        .arg("--out")
        .arg(&other)
        .args(["--shard", "3/4"])
        .assert()
        .success();
    refused(
        &[shard(0), shard(1), shard(2), other.clone()],
        "does not come from the same grid",
    );
    // A row edited in place (same size) no longer has its manifest's SHA-256.
    let original = fs::read(shard(3)).unwrap();
    let text = String::from_utf8(original.clone()).unwrap();
    fs::write(shard(3), text.replacen(",settled,", ",horizon,", 1)).unwrap();
    refused(
        &[shard(0), shard(1), shard(2), shard(3)],
        "the file changed after the sweep wrote it",
    );
    // A shard cut short (its manifest says more bytes) is refused.
    fs::write(shard(3), &original[..original.len() - 10]).unwrap();
    refused(&[shard(0), shard(1), shard(2), shard(3)], "cut short or edited");
}

#[test]
fn shard_auto_reads_the_indexed_job_index() {
    let (dir, path) = grid_with_cap("8s");
    let out = dir.path().join("s.csv");
    podsim()
        .args(["sweep", "--shard", "auto", "--shards", "2", "--grid"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .env("JOB_COMPLETION_INDEX", "1")
        .assert()
        .success();
    let csv = fs::read_to_string(dir.path().join("s.shard-1-of-2.csv")).unwrap();
    assert_eq!(csv.lines().nth(1).unwrap().split(',').next(), Some("1"));
    podsim()
        .args([
            "sweep", "--shard", "auto", "--shards", "2", "--out", "-", "--grid",
        ])
        .arg(&path)
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "neither is set; give --shard K/N instead",
        ));
    podsim()
        .args(["sweep", "--shards", "2", "--grid"])
        .arg(&path)
        .assert()
        .code(2);
}

#[test]
fn more_shards_than_runs_warn() {
    // The grid has 2 runs: shards 0..3 of 4 hold runs 0..0, 0..1, 1..1, 1..2.
    let (dir, path) = grid_with_cap("8s");
    let out = dir.path().join("s.csv");
    podsim()
        .args(["sweep", "--shard", "2/4", "--grid"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: 4 shards for 2 runs leave 2 of them empty, this one too; use at most 2 shards",
        ));
    assert_eq!(
        fs::read_to_string(&out).unwrap().lines().count(),
        1,
        "the header only"
    );
}

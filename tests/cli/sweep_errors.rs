//! What `podsim sweep` refuses, and how it says so: bad flags before any
//! run, an existing output without `--force`, grids too large, mistakes in
//! a grid file named by file, line and key, and an interrupted sweep that
//! leaves nothing half-written. Kept apart from `sweep`, whose tests check
//! the rows a sweep writes.

use super::common::{TempDir, podsim, podsim_process};
use super::sweep::{grid, grid_with_cap, scenario, sweep_error};
use std::fs;

use predicates::prelude::*;

#[test]
fn bad_flag_values_are_usage_errors_found_before_any_run() {
    let (dir, path) = grid_with_cap("8s");
    let usage = |args: &[&str], message: &str| {
        podsim()
            .args(["sweep", "--grid"])
            .arg(&path)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    };
    usage(&["--shard", "1-4"], "write K/N with 0 <= K < N");
    usage(&["--shard", "4/4"], "goes from 0 to 3");
    usage(&["--shard", "auto"], "--shard auto needs --shards N");
    usage(
        &["--shard", "0/2", "--shards", "2"],
        "--shards goes with --shard auto",
    );
    usage(&["--plot", "x.jpg"], "name the file .svg or .png");
    // An output whose folder is missing is refused before the first run:
    // no CSV appears, and the message names the folder, not a *.tmp.
    let out = dir.path().join("s.csv");
    let missing = dir.path().join("nowhere/p.svg");
    podsim()
        .args(["sweep", "--grid"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .arg("--plot")
        .arg(&missing)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "cannot write {}: directory {} does not exist",
            missing.display(),
            dir.path().join("nowhere").display()
        )));
    assert!(!out.exists());
}

#[test]
fn an_interrupted_sweep_leaves_nothing_and_says_how_far_it_got() {
    for signal in ["INT", "TERM"] {
        // 2 × 1,000,001 × 21 = 42 million runs: far more than the time the test needs.
        let (dir, path) = grid(
            "seed-sidecar.toml",
            "\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\
             \"containers.web.boot\" = { from = \"0s\", to = \"1000s\", step = \"1ms\" }\n\
             \"containers.web.drain\" = { from = \"0s\", to = \"20s\", step = \"1s\" }\n",
        );
        let out = dir.path().join("big.csv");
        let child = podsim_process()
            .args(["sweep", "--grid"])
            .arg(&path)
            .arg("--out")
            .arg(&out)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The temporary file exists once the signals are caught.
        let started = std::time::Instant::now();
        while !fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().path().to_string_lossy().ends_with(".tmp"))
        {
            assert!(
                started.elapsed().as_secs() < 60,
                "the sweep never started writing"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let kill = std::process::Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "SIG{signal}: {stderr}");
        assert!(stderr.contains("interrupted after "), "{stderr}");
        assert!(
            stderr.contains(" of 42,000,042 runs; their rows are not kept: without --checkpoint"),
            "{stderr}"
        );
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["grid.toml"], "SIG{signal}");
    }
}

#[test]
fn an_existing_output_is_refused_without_force() {
    let (dir, path) = grid_with_cap("8s");
    let out = dir.path().join("out.csv");
    fs::write(&out, "precious").unwrap();
    podsim()
        .args(["sweep", "--grid"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "out.csv already exists; add --force to overwrite it",
        ));
    assert_eq!(fs::read_to_string(&out).unwrap(), "precious");
    podsim()
        .args(["sweep", "--force", "--grid"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert!(fs::read_to_string(&out).unwrap().starts_with("run,"));
    // Only the CSV and its manifest: no temporary file is left behind.
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["grid.toml", "out.csv", "out.csv.manifest.json"]);
}

#[test]
fn too_many_combinations_are_refused_unless_the_limit_is_raised() {
    let (_dir, path) = grid(
        "seed-sidecar.toml",
        "\"containers.web.boot\" = { from = \"0s\", to = \"1h\", step = \"1ms\" }\n\
         \"containers.proxy.boot\" = { from = \"0s\", to = \"1m\", step = \"1ms\" }\n",
    );
    podsim()
        .args(["sweep", "--out", "-", "--grid"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "the grid has 216,003,660,001 combinations, more than the limit of 100,000,000",
        ));
    // A dry run describes it anyway, and says whether the limit would stop it.
    let dry_run = |extra: &[&str]| {
        let out = podsim()
            .args(["sweep", "--dry-run", "--out", "-", "--grid"])
            .arg(&path)
            .args(extra)
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    assert!(dry_run(&[]).contains("limit    over --max-runs 100,000,000"));
    assert!(!dry_run(&["--max-runs", "216003660001"]).contains("limit"));
}

#[test]
fn grid_mistakes_are_named_by_file_line_and_axis() {
    let cases = [
        (
            "\"containers.web.bot\" = [\"1s\"]",
            "grid.toml:3:1: unknown axis \"containers.web.bot\"; did you mean \"containers.web.boot\"?",
        ),
        (
            "\"containers.wbe.boot\" = [\"1s\"]",
            "grid.toml:3:1: axis \"containers.wbe.boot\": unknown container \"wbe\"; did you mean \"web\"?",
        ),
        (
            "\"containers.web.boot\" = []",
            "grid.toml:3:25: axis \"containers.web.boot\": no values",
        ),
        (
            "\"containers.web.boot\" = [\"1s\", 2]",
            "grid.toml:3:32: axis \"containers.web.boot\": a duration needs a unit and quotes: write \"2s\"",
        ),
        (
            "\"containers.web.fails\" = { from = 0, to = 3, step = 0 }",
            "grid.toml:3:53: axis \"containers.web.fails\": step must be greater than zero",
        ),
        (
            "\"containers.web.boot\" = { from = \"0s\", to = \"1s\", step = \"-1s\" }",
            "axis \"containers.web.boot\": step must be greater than zero",
        ),
        (
            "\"containers.web.drain\" = { from = \"3s\", to = \"1s\", step = \"1s\" }",
            "axis \"containers.web.drain\": to (1s) is before from (3s)",
        ),
        (
            "\"containers.web.boot\" = { from = \"0s\", to = \"1s\", stp = \"1s\" }",
            "unknown range key \"stp\"; did you mean \"step\"?",
        ),
        (
            "\"containers.proxy.kind\" = [\"sidecar\", \"init\"]",
            "grid.toml:3:1: the combination containers.proxy.kind = \"init\" breaks a Pod rule: \
             container \"proxy\": proxy is not allowed on an init container",
        ),
        (
            "\"name\" = [\"x\"]",
            "grid.toml:3:1: \"name\" only labels the scenario; it cannot be swept",
        ),
        (
            "\"pod.restart_policy\" = [\"always\"]",
            "did you mean \"Always\"?",
        ),
    ];
    for (axes, message) in cases {
        let (_dir, path) = grid("seed-sidecar.toml", axes);
        let stderr = sweep_error(&path);
        assert!(stderr.starts_with("podsim: error: "), "{stderr}");
        assert!(stderr.contains(message), "for {axes}:\n{stderr}");
    }
}

#[test]
fn grid_file_mistakes_name_the_key() {
    let dir = TempDir::new();
    let path = dir.path().join("grid.toml");
    fs::write(&path, "bsae = 'x.toml'\n[axes]\n").unwrap();
    assert!(sweep_error(&path).contains("grid.toml:1:1: unknown key \"bsae\"; did you mean \"base\"?"));
    fs::write(&path, "base = 'missing.toml'\n[axes]\n\"horizon\" = [\"1h\"]\n").unwrap();
    assert!(sweep_error(&path).contains("grid.toml:1:8: base scenario"));
    fs::write(
        &path,
        format!("base = '{}'\n", scenario("seed-sidecar.toml").display()),
    )
    .unwrap();
    assert!(sweep_error(&path).contains("the grid has no [axes] table"));
    fs::write(
        &path,
        format!(
            "base = '{}'\n[axes]\n\"horizon\" = [\"1h\"]\n",
            scenario("seed-sidecar.toml").display()
        ),
    )
    .unwrap();
    podsim()
        .args(["sweep", "--grid"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no output given; add --out FILE (or --out - for stdout)",
        ));
    podsim()
        .args(["sweep", "--grid"])
        .arg(dir.path().join("nope.toml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nope.toml: cannot read grid"));
}

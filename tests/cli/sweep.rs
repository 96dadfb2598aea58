//! `podsim sweep` end to end, and the helpers `shards` and `sweep_errors`
//! share. Rows are checked against figures worked out by hand from the seed
//! example (one seed tick = 1 s): config-fetch init boot 2s; proxy boot 3s
//! drain 1s; web app boot 1s drain 3s;
//! back-off 1s, 2s, 4s … (no free first restart); deleted at stop_at = 10s.

use super::common::{TempDir, podsim};
use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;

pub(super) fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(name)
}

/// Writes `grid.toml` in a fresh folder: `base` (a bundled scenario) and `axes`.
pub(super) fn grid(base: &str, axes: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new();
    let path = dir.path().join("grid.toml");
    let text = format!("base = '{}'\n[axes]\n{axes}", scenario(base).display());
    fs::write(&path, text).unwrap();
    (dir, path)
}

/// The CSV of a sweep written to stdout.
pub(super) fn sweep_stdout(grid: &Path, extra: &[&str]) -> Vec<u8> {
    let out = podsim()
        .args(["sweep", "--out", "-", "--grid"])
        .arg(grid)
        .args(extra)
        .assert()
        .success();
    out.get_output().stdout.clone()
}

/// A copy of the bundled grid's axes with another back-off cap.
pub(super) fn grid_with_cap(cap: &str) -> (TempDir, PathBuf) {
    grid(
        "seed-sidecar.toml",
        &format!("\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\"pod.backoff.cap\" = [\"{cap}\"]\n"),
    )
}

/// The error message of a sweep that must fail with exit 1.
pub(super) fn sweep_error(grid: &Path) -> String {
    let out = podsim()
        .args(["sweep", "--out", "-", "--grid"])
        .arg(grid)
        .assert()
        .code(1)
        .stdout("");
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

const METRICS: &str = "ready_ms,exposed_startup_ms,exposed_shutdown_ms,exposed_total_ms,\
                       termination_ms,completed_ms,restarts,sigkilled,phase,outcome,end_ms";
/// What a Job grid adds after them.
const JOB_COLUMNS: &str = "job_outcome,job_reason,job_rule,job_pods,job_failed,job_ms";

#[test]
fn rows_match_the_seed_example_worked_by_hand() {
    let (_dir, path) = grid(
        "seed-side-by-side.toml",
        "\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\"containers.web.boot\" = [\"1s\", \"2s\"]\n",
    );
    let csv = String::from_utf8(sweep_stdout(&path, &[])).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        format!("run,containers.proxy.kind,containers.web.boot_ms,{METRICS}")
    );
    // Sidecar, web boot 1s: config-fetch 0→2s, proxy 2→5s (web waits for it),
    // web 5→6s: Ready 6s, never exposed. Deleted at 10s: web drains to 13s,
    // then the proxy drains to 14s: termination 4s; the Pod is Succeeded
    // (completed) when its last container exits, at 14s, and the run ends.
    assert_eq!(
        lines[1],
        "0,sidecar,1000,6000,0,0,0,4000,14000,0,0,Succeeded,settled,14000"
    );
    // Sidecar, web boot 2s: web 5→7s, so Ready at 7s; shutdown as above.
    assert_eq!(
        lines[2],
        "1,sidecar,2000,7000,0,0,0,4000,14000,0,0,Succeeded,settled,14000"
    );
    // Side by side, web boot 1s: both start at 2s; web started at 3s, proxy at
    // 5s: exposed 2s at startup, Ready 5s. SIGTERM to both at 10s: proxy gone
    // at 11s, web at 13s: exposed 2s at shutdown, termination 3s.
    assert_eq!(
        lines[3],
        "2,app,1000,5000,2000,2000,4000,3000,13000,0,0,Succeeded,settled,13000"
    );
    // Side by side, web boot 2s: web started at 4s, proxy at 5s: exposed 1s.
    assert_eq!(
        lines[4],
        "3,app,2000,5000,1000,2000,3000,3000,13000,0,0,Succeeded,settled,13000"
    );
    assert_eq!(lines.len(), 5);
}

#[test]
fn a_crashing_proxy_side_by_side_exposes_the_app_until_it_is_back() {
    let (_dir, path) = grid("seed-side-by-side.toml", "\"containers.proxy.fails\" = [1]\n");
    let csv = String::from_utf8(sweep_stdout(&path, &[])).unwrap();
    // Proxy and web start at 2s; web started at 3s; the proxy's boot fails at
    // 5s, back-off 1s, restarted at 6s, started at 9s: Ready 9s, exposed 3→9s
    // = 6s. SIGTERM at 10s: proxy gone at 11s, web at 13s: 2s more.
    assert_eq!(
        csv.lines().nth(1),
        Some("0,1,9000,6000,2000,8000,3000,13000,1,0,Succeeded,settled,13000")
    );
}

#[test]
fn the_committed_results_are_what_the_bundled_grid_produces() {
    let dir = TempDir::new();
    let out = dir.path().join("seed-sweep.csv");
    podsim()
        .args(["sweep", "--grid"])
        .arg(scenario("seed-grid.toml"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("wrote 21,600 rows"));
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/seed-sweep.csv");
    assert!(
        fs::read(&out).unwrap() == fs::read(committed).unwrap(),
        "results/seed-sweep.csv is stale: regenerate it with \
         `cargo run --release -- sweep --grid scenarios/seed-grid.toml --force`"
    );
}

#[test]
fn the_same_grid_gives_the_same_bytes_on_1_2_and_8_threads() {
    // 2 × 25 × 6 × 6 × 3 × 3 × 4 = 64,800 runs: several batches on one thread, one partial batch on eight.
    let (_dir, path) = grid(
        "seed-sidecar.toml",
        "\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\
         \"containers.proxy.boot\" = { from = \"0s\", to = \"6s\", step = \"250ms\" }\n\
         \"containers.web.drain\" = { from = \"0s\", to = \"5s\", step = \"1s\" }\n\
         \"containers.proxy.fails\" = [0, 1, 2, 3, 5, 8]\n\
         \"pod.backoff.cap\" = [\"8s\", \"60s\", \"300s\"]\n\
         \"containers.proxy.drain\" = [\"0s\", \"1s\", \"4s\"]\n\
         \"containers.web.boot\" = [\"500ms\", \"1s\", \"2s\", \"4s\"]\n",
    );
    let one = sweep_stdout(&path, &["--threads", "1"]);
    assert_eq!(one.iter().filter(|&&b| b == b'\n').count(), 64_801);
    assert!(sweep_stdout(&path, &["--threads", "2"]) == one);
    assert!(sweep_stdout(&path, &["--threads", "8"]) == one);
}

#[test]
fn dry_run_describes_the_sweep_and_writes_nothing() {
    let dir = TempDir::new();
    let out = dir.path().join("never.csv");
    podsim()
        .args(["sweep", "--dry-run", "--grid"])
        .arg(scenario("seed-grid.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--shard", "1/4"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "runs     21,600 = 2 × 25 × 6 × 6 × 4 × 3 × 1",
        ))
        .stdout(predicate::str::contains(
            "shard    1/4: runs 5400..10800 (5,400 rows)",
        ))
        .stdout(predicate::str::contains(
            "columns  run, containers.proxy.kind, containers.proxy.boot_ms, containers.web.boot_ms",
        ))
        .stdout(predicate::str::contains("size     about"));
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn the_grids_own_output_is_relative_to_the_grid_file() {
    let dir = TempDir::new();
    fs::create_dir(dir.path().join("results")).unwrap();
    let path = dir.path().join("grid.toml");
    let base = scenario("seed-sidecar.toml");
    let text = format!(
        "base = '{}'\nout = 'results/x.csv'\n[axes]\n\"horizon\" = [\"1h\"]\n",
        base.display()
    );
    fs::write(&path, text).unwrap();
    podsim()
        .current_dir(std::env::temp_dir())
        .args(["sweep", "--grid"])
        .arg(&path)
        .assert()
        .success();
    let csv = fs::read_to_string(dir.path().join("results/x.csv")).unwrap();
    assert!(csv.starts_with("run,horizon_ms,"), "{csv}");
    assert!(dir.path().join("results/x.csv.manifest.json").exists());
}

#[test]
fn a_grid_with_plot_also_draws_the_tradeoff() {
    let dir = TempDir::new();
    let path = dir.path().join("grid.toml");
    let text = format!(
        "base = '{}'\nout = 'out.csv'\nplot = 'tradeoff.svg'\n[axes]\n\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n",
        scenario("seed-sidecar.toml").display()
    );
    fs::write(&path, text).unwrap();
    podsim()
        .args(["sweep", "--grid"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "tradeoff.svg: 1 configuration, sidecar against app",
        ));
    let svg = fs::read_to_string(dir.path().join("tradeoff.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..40]
    );
    // --out moves the CSV away from the grid's own: its plot is left alone.
    fs::remove_file(dir.path().join("tradeoff.svg")).unwrap();
    podsim()
        .args(["sweep", "--out"])
        .arg(dir.path().join("elsewhere.csv"))
        .arg("--grid")
        .arg(&path)
        .assert()
        .success();
    assert!(!dir.path().join("tradeoff.svg").exists());
    // A shard never draws: it holds only part of the runs.
    podsim()
        .args(["sweep", "--force", "--shard", "0/2", "--plot"])
        .arg(dir.path().join("shard.svg"))
        .arg("--grid")
        .arg(&path)
        .assert()
        .success();
    assert!(!dir.path().join("shard.svg").exists());
}

#[test]
fn probe_fields_and_versions_are_axes_too() {
    let (_dir, path) = grid(
        "blog-cloudsql-job.toml",
        "\"containers.cloud-sql-proxy.startup_probe.period\" = [\"5s\", \"10s\"]\n",
    );
    let csv = String::from_utf8(sweep_stdout(&path, &[])).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        format!("run,containers.cloud-sql-proxy.startup_probe.period_ms,{METRICS},{JOB_COLUMNS}")
    );
    // Period 5s: the proxy (healthy at 5s) passes the 5s tick; its readiness
    // needs two successes (5s, 6s); main starts at 5s, is started at 7s —
    // Ready 7s — runs 9s to 16s; the proxy drains 1s: Succeeded at 17s.
    // The Job is Complete with its one Pod (J1).
    assert_eq!(
        lines[1],
        "0,5000,7000,0,0,0,,17000,0,0,Succeeded,settled,17000,Complete,,,1,0,17000"
    );
    // Period 10s: the same, five seconds later (the blog's transcript).
    assert_eq!(
        lines[2],
        "1,10000,12000,0,0,0,,22000,0,0,Succeeded,settled,22000,Complete,,,1,0,22000"
    );
    let (_dir, path) = grid(
        "blog-cloudsql-job.toml",
        "\"pod.kubernetes\" = [\"1.27\", \"1.36\"]\n",
    );
    let e = sweep_error(&path);
    assert!(e.contains("the combination pod.kubernetes = \"1.27\" breaks a Pod rule: container \"cloud-sql-proxy\": native sidecars need Kubernetes 1.28"), "{e}");
}

/// Issue 16, found by the grid_toml fuzz target: checking a grid walks every
/// value of each range to hash the grid, so a range of 2³² counts kept
/// `podsim sweep` busy for 45 s (release build) before it said anything,
/// even for `--dry-run` or an error about the output. This range has 10¹²
/// values: hours with the walk, nothing once a range is hashed as its
/// from, step and length.
#[test]
fn issue_16_a_range_of_billions_of_values_is_checked_without_walking_it() {
    let (_dir, path) = grid(
        "seed-sidecar.toml",
        "\"containers.web.boot\" = { from = \"1ms\", to = \"1000000000000ms\", step = \"1ms\" }\n",
    );
    podsim()
        .args(["sweep", "--dry-run", "--out", "-", "--grid"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("runs     1,000,000,000,000"));
}

/// A Job grid adds the Job's columns (J2, J3): an app that fails 3 s after
/// each Pod's creation, swept over `job.backoff_limit`. Limit 0: the first
/// failure (3 s) fails the Job. Limit 2: Pods at 0, 13 (3 + 10) and 36
/// (16 + 20) s; the third failure, at 39 s, is more than 2.
#[test]
fn a_job_grid_has_the_jobs_columns_worked_by_hand() {
    let dir = TempDir::new();
    let base = dir.path().join("job.toml");
    fs::write(
        &base,
        "[pod]\nmode = \"job\"\nrestart_policy = \"Never\"\n[[containers]]\nname = \"main\"\nkind = \"app\"\n\
         boot = \"1s\"\nrun = \"2s\"\nexit_code = 1\n",
    )
    .unwrap();
    let path = dir.path().join("grid.toml");
    fs::write(
        &path,
        "base = 'job.toml'\n[axes]\n\"job.backoff_limit\" = [0, 2]\n",
    )
    .unwrap();
    let csv = String::from_utf8(sweep_stdout(&path, &[])).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].ends_with(",end_ms,job_outcome,job_reason,job_rule,job_pods,job_failed,job_ms"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("0,0,"), "{}", lines[1]);
    assert!(
        lines[1].ends_with(",Failed,BackoffLimitExceeded,,1,1,3000"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].ends_with(",Failed,BackoffLimitExceeded,,3,3,39000"),
        "{}",
        lines[2]
    );
    // The Pod's columns are the first Pod's: Failed at 3 s.
    assert!(lines[2].contains(",Failed,settled,3000,"), "{}", lines[2]);
    // On a Pod that is not a Job's, a job axis is refused at its line.
    fs::write(
        &base,
        "[[containers]]\nname = \"main\"\nkind = \"app\"\nboot = \"1s\"\n",
    )
    .unwrap();
    let e = sweep_error(&path);
    assert!(
        e.contains("grid.toml:3:1") && e.contains("the base is not a Job's Pod"),
        "{e}"
    );
}

#[test]
fn an_actions_grace_is_an_axis_and_a_later_delete_only_shortens_it() {
    // web is started at 1 s and Ready; deleted at 5 s (grace 30 s), it gets
    // SIGTERM and would drain until 25 s. The second delete at 8 s with the
    // swept --grace-period: 4 s → SIGKILL at 12 s (termination 7 s), 10 s →
    // 18 s (13 s), 60 s → no shorter, it drains until 25 s (20 s).
    let dir = TempDir::new();
    let base = dir.path().join("base.toml");
    fs::write(
        &base,
        "[pod]\nstop_at = \"5s\"\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\ndrain = \"20s\"\n\
         [[actions]]\nat = \"8s\"\ndelete = true\n",
    )
    .unwrap();
    let path = dir.path().join("grid.toml");
    fs::write(
        &path,
        "base = 'base.toml'\n[axes]\n\"actions.0.grace_period\" = [\"4s\", \"10s\", \"60s\"]\n",
    )
    .unwrap();
    let csv = String::from_utf8(sweep_stdout(&path, &[])).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], format!("run,actions.0.grace_period_ms,{METRICS}"));
    assert_eq!(lines[1], "0,4000,1000,0,0,0,7000,12000,0,1,Failed,settled,12000");
    assert_eq!(
        lines[2],
        "1,10000,1000,0,0,0,13000,18000,0,1,Failed,settled,18000"
    );
    assert_eq!(
        lines[3],
        "2,60000,1000,0,0,0,20000,25000,0,0,Succeeded,settled,25000"
    );
    // An action the base does not have is refused with what it has.
    fs::write(&path, "base = 'base.toml'\n[axes]\n\"actions.1.at\" = [\"1s\"]\n").unwrap();
    assert!(sweep_error(&path).contains("the base scenario has no action 1 (it has action 0 only)"));
}

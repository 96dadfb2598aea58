//! Stopping stops (issue 37): Ctrl-C or SIGTERM ends a sweep of a Service
//! whose one run would take ten minutes, and `podsim run` of it, within
//! seconds, exit 130; a checkpointed sweep keeps the row it finished, one
//! without a checkpoint says the rows were not kept and how to keep them.
//!
//! The margins are generous for a loaded CI machine (10 s, where a stop
//! takes milliseconds: the runs look at the stop flag every 4,096 events);
//! what they prove is "not the whole run": the slow run sends 1.8·10⁹
//! requests, at a few million a second over ten minutes. A run of many
//! replicas, whose every event is heavy, stops as fast.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use super::common::{TempDir, podsim_process, write};
use super::resume::{checkpoint_rows, with};

/// The most a stop may take here: far below the slow run's minutes.
const MARGIN: Duration = Duration::from_secs(10);

/// The endpoint-race scenario with each `(from, to)` edit made, written
/// as `name`.
fn endpoint_race(dir: &Path, name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let mut text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/service/no-prestop.toml"))
            .unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "the fixture changed: {from:?}");
        text = text.replace(from, to);
    }
    write(dir, name, &text)
}

/// A Service sending a million requests a second for half an hour once
/// Ready: within the work budget (2·10⁹ requests a run), and slow.
fn slow_service(dir: &Path) -> PathBuf {
    endpoint_race(
        dir,
        "slow.toml",
        &[("rate = 50 ", "rate = 1000000\nduration = \"30m\" ")],
    )
}

/// `podsim run file`, once under way (its first line on stderr is the
/// work estimate's notice, holding `notice`, printed just before the run
/// starts) and `wait` later, sent `signal`: the output, how long the stop
/// took, and the rest of stderr.
fn run_then_stop(file: &Path, notice: &str, wait: Duration, signal: &str) -> (Output, Duration, String) {
    let mut child = podsim_process()
        .arg("run")
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut errors = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    errors.read_line(&mut first).unwrap();
    assert!(first.contains("notice: ") && first.contains(notice), "{first}");
    std::thread::sleep(wait);
    assert!(child.try_wait().unwrap().is_none(), "it ended before the signal");
    let (output, took) = stop(child, signal);
    let mut stderr = String::new();
    errors.read_to_string(&mut stderr).unwrap();
    (output, took, stderr)
}

/// A grid of two runs: at one request a second (quick), then the slow one.
fn grid(dir: &Path) -> PathBuf {
    slow_service(dir);
    write(
        dir,
        "grid.toml",
        "base = \"slow.toml\"\n[axes]\n\"traffic.rate\" = [1, 1000000]\n",
    )
}

/// Waits until `ready` holds (the sweep or run is under way), for at most a minute.
fn wait_for(child: &mut Child, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(child.try_wait().unwrap().is_none(), "it ended before the signal");
        assert!(started.elapsed() < Duration::from_secs(60), "never under way");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends `signal` and waits for the end: the output and how long it took.
fn stop(child: Child, signal: &str) -> (Output, Duration) {
    let sent = Instant::now();
    let kill = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    (output, sent.elapsed())
}

fn sweep(grid: &Path, out: &Path, extra: &[&str]) -> Child {
    podsim_process()
        .args(["sweep", "--threads", "2", "--grid"])
        .arg(grid)
        .arg("--out")
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn sigterm_ends_a_checkpointed_service_sweep_within_seconds_and_keeps_the_finished_row() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let out = dir.path().join("out.csv");
    let mut child = sweep(&grid, &out, &["--checkpoint", "--checkpoint-every", "1"]);
    // The quick run's row is checkpointed; the slow one is running.
    wait_for(&mut child, || checkpoint_rows(&out) == Some(1));
    std::thread::sleep(Duration::from_millis(200));
    let (output, took) = stop(child, "-TERM");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(took < MARGIN, "the stop took {took:?}: {stderr}");
    assert!(
        stderr.contains("interrupted after 1 of 2 runs; ") && stderr.contains("keeps them, checkpointed"),
        "{stderr}"
    );
    let partial = fs::read_to_string(with(&out, ".partial")).unwrap();
    assert_eq!(
        partial.lines().count(),
        2,
        "the header and the quick run's row: {partial}"
    );
    assert!(partial.lines().nth(1).unwrap().starts_with("0,1,"), "{partial}");
    assert_eq!(checkpoint_rows(&out), Some(1));
}

#[test]
fn sigint_ends_a_service_sweep_within_seconds_and_says_its_rows_were_not_kept() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let out = dir.path().join("out.csv");
    let mut child = sweep(&grid, &out, &[]);
    // The temporary file exists once the signals are caught.
    let tmp = || {
        fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().path().to_string_lossy().ends_with(".tmp"))
    };
    wait_for(&mut child, tmp);
    std::thread::sleep(Duration::from_millis(500));
    let (output, took) = stop(child, "-INT");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(took < MARGIN, "the stop took {took:?}: {stderr}");
    assert!(
        stderr.contains(" of 2 runs; their rows are not kept: without --checkpoint")
            && stderr.contains("with --checkpoint a stop keeps the rows done"),
        "{stderr}"
    );
    assert!(!tmp() && !out.exists(), "nothing half-written is left");
}

#[test]
fn sigterm_ends_podsim_run_of_a_slow_service_within_seconds_and_says_nothing_was_printed() {
    let dir = TempDir::new();
    let slow = slow_service(dir.path());
    let (output, took, stderr) = run_then_stop(
        &slow,
        "about 1,800,000,000 requests in one run",
        Duration::from_millis(300),
        "-TERM",
    );
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(took < MARGIN, "the stop took {took:?}: {stderr}");
    assert!(
        stderr.contains("interrupted during run 1 of 1 (") && stderr.contains("slow.toml); nothing printed"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn sigint_ends_podsim_run_of_kubernetes_most_replicas_within_a_second_or_two() {
    // 150,000 replicas on 100 nodes: 1.1 GB and about 2 s, within the work
    // budget. Each node's sync handles every replica, so 4,096 events
    // between two looks at the stop flag were seconds at this size; the
    // run now looks at every one and stops in about 0.1 s. The bound is
    // 2 s, not a second, for a loaded CI machine (tearing down what was
    // built takes part of it too).
    let dir = TempDir::new();
    let file = endpoint_race(
        dir.path(),
        "wide.toml",
        &[
            ("replicas = 3\n", "replicas = 150000\n"),
            ("nodes = 3\n", "nodes = 100\n"),
        ],
    );
    let (output, took, stderr) = run_then_stop(
        &file,
        "(150,000 × 100) holds about 1.1 GB",
        Duration::from_millis(400),
        "-INT",
    );
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(took < Duration::from_secs(2), "the stop took {took:?}: {stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn sigint_on_a_service_sweep_of_many_replications_counts_the_runs_done() {
    // A Service grid's batch is a whole combination, here 100,000
    // replications of a rollout (a millisecond or so each): a stop drops
    // the batches in progress, and said "after 0 of 200,000 runs" however
    // long they had run. A second of work is hundreds of runs done.
    let dir = TempDir::new();
    let rollout = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/service/rollout.toml");
    write(dir.path(), "rollout.toml", &fs::read_to_string(rollout).unwrap());
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = \"rollout.toml\"\nreplications = 100000\n[axes]\n\"traffic.rate\" = [50, 100]\n",
    );
    let out = dir.path().join("out.csv");
    let mut child = sweep(&grid, &out, &[]);
    let tmp = || {
        fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().path().to_string_lossy().ends_with(".tmp"))
    };
    wait_for(&mut child, tmp);
    std::thread::sleep(Duration::from_secs(1));
    let (output, took) = stop(child, "-INT");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(took < MARGIN, "the stop took {took:?}: {stderr}");
    let done = stderr
        .split("interrupted after ")
        .nth(1)
        .and_then(|rest| rest.split(" of 200,000 runs; their rows are not kept").next())
        .unwrap_or_else(|| panic!("{stderr}"));
    let done: u64 = done
        .replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("{stderr}"));
    assert!(done > 0 && done < 200_000, "{stderr}");
}

//! `podsim sweep --checkpoint` and `--resume`: a sweep stopped at seeded
//! points (SIGKILL, with garbage after what its checkpoint names, and
//! SIGTERM) and resumed ends with the files of an uninterrupted sweep, byte
//! for byte, summary and manifests included; and every checkpoint or
//! partial file that does not fit is refused before the first run, with
//! the files left as they were.
//!
//! The kills wait for the checkpoint to report rows (it is replaced
//! atomically, so it is always whole), never for a guessed time.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::common::{TempDir, podsim, podsim_process};

/// A Pod grid with a summary: 2 × 100,001 combinations × 2 replications
/// (400,004 rows) for the optimised binary, 10× fewer for the debug one,
/// so that either runs long enough on one thread to be stopped part-way.
pub(super) fn grid(dir: &Path) -> PathBuf {
    let step = if cfg!(debug_assertions) { "10ms" } else { "1ms" };
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/seed-sidecar.toml");
    let text = format!(
        "base = '{}'\nreplications = 2\n[axes]\n\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\
         \"containers.web.boot\" = {{ from = \"0s\", to = \"100s\", step = \"{step}\" }}\n",
        base.display()
    );
    let path = dir.join("grid.toml");
    fs::write(&path, text).unwrap();
    path
}

pub(super) fn sweep_args(grid: &Path, out: &Path) -> Vec<String> {
    let summary = out.with_extension("summary.csv");
    [
        "sweep",
        "--grid",
        &grid.display().to_string(),
        "--out",
        &out.display().to_string(),
        "--summary",
        &summary.display().to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// `<file><suffix>`.
pub(super) fn with(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

/// The four files a finished sweep to `out` leaves, as bytes.
fn finished(out: &Path) -> [Vec<u8>; 4] {
    let summary = out.with_extension("summary.csv");
    [
        out.to_path_buf(),
        with(out, ".manifest.json"),
        summary.clone(),
        with(&summary, ".manifest.json"),
    ]
    .map(|p| fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// The uninterrupted sweep, in `dir/whole.csv`.
fn reference(dir: &Path, grid: &Path) -> [Vec<u8>; 4] {
    let out = dir.join("whole.csv");
    podsim().args(sweep_args(grid, &out)).assert().success();
    finished(&out)
}

/// The CSV rows a checkpoint records, if it is there.
pub(super) fn checkpoint_rows(out: &Path) -> Option<u64> {
    let text = fs::read_to_string(with(out, ".checkpoint.json")).ok()?;
    let c: Value = serde_json::from_str(&text).unwrap();
    let per_run = c["csv"]["replications"].as_u64().unwrap_or(1);
    Some((c["next_run"].as_u64()? - c["csv"]["first_run"].as_u64()?) * per_run)
}

/// splitmix64: the kill points come from a fixed seed.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How a test stops the sweep.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// SIGKILL once the checkpoint holds this many rows, then garbage
    /// after the bytes it names (what a machine that lost power may keep).
    Kill(u64),
    /// SIGTERM once the checkpoint holds this many rows.
    Term(u64),
    /// SIGKILL before any checkpoint (they are an hour apart), once the
    /// partial file holds rows.
    KillBeforeFirst,
}

/// Starts the checkpointed sweep on one thread, stops it as `stop` says,
/// and checks how it ended.
fn stop_sweep(grid: &Path, out: &Path, stop: Stop) {
    let every = match stop {
        Stop::KillBeforeFirst => "1h",
        _ => "1",
    };
    let mut child = podsim_process()
        .args(sweep_args(grid, out))
        .args(["--checkpoint", "--threads", "1", "--checkpoint-every", every])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let partial = with(out, ".partial");
    loop {
        let ready = match stop {
            Stop::Kill(rows) | Stop::Term(rows) => checkpoint_rows(out).is_some_and(|r| r >= rows),
            Stop::KillBeforeFirst => fs::metadata(&partial).is_ok_and(|m| m.len() > 4096),
        };
        if ready {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "{stop:?}: the sweep ended first"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{stop:?}: no progress"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let signal = match stop {
        Stop::Term(_) => "-TERM",
        _ => "-KILL",
    };
    let kill = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    match stop {
        Stop::Term(_) => {
            assert_eq!(output.status.code(), Some(130), "{stderr}");
            // Them all, or the first of them: the runs done in the batch
            // the stop cut short are counted but not kept.
            assert!(
                (stderr.contains("keeps them, checkpointed") || stderr.contains(".partial keeps the first "))
                    && stderr.contains("checkpointed: run the same sweep with --resume"),
                "{stderr}"
            );
        }
        _ => assert_eq!(output.status.signal(), Some(9), "{stop:?}: {stderr}"),
    }
    assert!(!out.exists(), "{stop:?}: a stopped sweep leaves no finished CSV");
    if let Stop::Kill(_) = stop {
        for file in [partial, with(&out.with_extension("summary.csv"), ".partial")] {
            let mut bytes = fs::read(&file).unwrap();
            bytes.extend_from_slice(b"17,1,sidecar,99\n\0\0\xff garbage");
            fs::write(&file, bytes).unwrap();
        }
    }
    if let Stop::KillBeforeFirst = stop {
        assert_eq!(checkpoint_rows(out), None, "no checkpoint yet");
    }
}

#[test]
fn a_sweep_stopped_at_seeded_points_and_resumed_is_the_uninterrupted_one() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let whole = reference(dir.path(), &grid);
    let total = if cfg!(debug_assertions) { 40_004 } else { 400_004 };
    assert_eq!(
        String::from_utf8_lossy(&whole[0]).lines().count() as u64,
        total + 1
    );
    let mut seed = 16;
    // Points between 5 % and 80 % of the rows: the sweep is still running
    // when the signal comes.
    let mut point = || total / 20 + next(&mut seed) % (total * 3 / 4);
    let stops = [
        Stop::KillBeforeFirst,
        Stop::Kill(point()),
        Stop::Term(point()),
        Stop::Kill(point()),
        Stop::Term(point()),
    ];
    for (i, stop) in stops.into_iter().enumerate() {
        let out = dir.path().join(format!("stopped-{i}.csv"));
        stop_sweep(&grid, &out, stop);
        let resumed = podsim()
            .args(sweep_args(&grid, &out))
            .args(["--resume", "--threads", "2"])
            .assert()
            .success();
        let stderr = String::from_utf8_lossy(&resumed.get_output().stderr).into_owned();
        match stop {
            Stop::KillBeforeFirst => assert!(
                stderr.contains("has no checkpoint beside it; starting from the first run"),
                "{stderr}"
            ),
            Stop::Kill(rows) | Stop::Term(rows) => {
                assert!(
                    stderr.contains(&format!("podsim: resuming {}", out.display())),
                    "{stderr}"
                );
                let kept: u64 = stderr
                    .split(": ")
                    .nth(2)
                    .and_then(|s| s.split(' ').next())
                    .map(|n| n.replace(',', "").parse().unwrap())
                    .unwrap();
                assert!(kept >= rows && kept < total, "{stop:?}: {stderr}");
            }
        }
        assert!(finished(&out) == whole, "{stop:?}: the files differ");
        let left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&format!("stopped-{i}")))
            .collect();
        assert_eq!(left.len(), 4, "{stop:?}: only the finished files stay: {left:?}");
    }
}

/// Turns the finished files of `out` (and its summary) into what a sweep
/// stopped at `next_run`, just after a checkpoint, leaves: partial files
/// holding the rows of the runs before it, then `tail`, and a checkpoint
/// naming those rows. Built from the documented formats, not by podsim.
pub fn stopped_at(out: &Path, summary: Option<&Path>, next_run: u64, tail: &[u8]) {
    let mut checkpoint = serde_json::json!({ "next_run": next_run });
    for (key, file) in [("csv", Some(out)), ("summary", summary)] {
        let Some(file) = file else {
            checkpoint[key] = Value::Null;
            continue;
        };
        let bytes = fs::read(file).unwrap();
        let mut keep = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        for line in bytes[keep..].split_inclusive(|&b| b == b'\n') {
            let run: u64 = std::str::from_utf8(line.split(|&b| b == b',').next().unwrap())
                .unwrap()
                .parse()
                .unwrap();
            if run >= next_run {
                break;
            }
            keep += line.len();
        }
        let manifest_path = with(file, ".manifest.json");
        let mut manifest: Value = serde_json::from_str(&fs::read_to_string(&manifest_path).unwrap()).unwrap();
        manifest["bytes"] = keep.into();
        manifest["csv_sha256"] = Sha256::digest(&bytes[..keep])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .into();
        checkpoint[key] = manifest;
        fs::write(with(file, ".partial"), [&bytes[..keep], tail].concat()).unwrap();
        fs::remove_file(file).unwrap();
        fs::remove_file(manifest_path).unwrap();
    }
    fs::write(
        with(out, ".checkpoint.json"),
        serde_json::to_string_pretty(&checkpoint).unwrap(),
    )
    .unwrap();
}

/// A finished checkpointed sweep of `grid` to `out`, stopped at `next_run`.
pub(super) fn stopped(grid: &Path, out: &Path, next_run: u64) {
    podsim()
        .args(sweep_args(grid, out))
        .arg("--checkpoint")
        .assert()
        .success();
    stopped_at(out, Some(&out.with_extension("summary.csv")), next_run, b"");
}

#[test]
fn a_checkpoint_at_either_end_resumes_to_the_same_files() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let whole = reference(dir.path(), &grid);
    let runs = if cfg!(debug_assertions) { 20_002 } else { 200_002 };
    // At the first run: only the headers count; and after the last run,
    // stopped before the files were renamed: nothing left to run.
    for (next_run, kept) in [(0, "0 of"), (runs, "400,004 of")] {
        let out = dir.path().join(format!("at-{next_run}.csv"));
        stopped(&grid, &out, next_run);
        let resumed = podsim()
            .args(sweep_args(&grid, &out))
            .arg("--resume")
            .assert()
            .success();
        let stderr = String::from_utf8_lossy(&resumed.get_output().stderr).into_owned();
        let kept = if cfg!(debug_assertions) {
            kept.replace("400,004", "40,004")
        } else {
            kept.into()
        };
        assert!(stderr.contains(&format!("at run {next_run}: {kept}")), "{stderr}");
        assert!(finished(&out) == whole, "next run {next_run}");
    }
}

#[test]
fn resume_starts_afresh_without_a_checkpoint_and_leaves_a_finished_csv_alone() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let whole = reference(dir.path(), &grid);
    let out = dir.path().join("r.csv");
    let resume = [sweep_args(&grid, &out), vec!["--resume".into()]].concat();
    podsim()
        .args(&resume)
        .assert()
        .success()
        .stderr(predicates::str::contains(format!(
            "podsim: notice: no checkpoint of {}; starting from the first run",
            out.display()
        )));
    assert!(finished(&out) == whole);
    let modified = fs::metadata(&out).unwrap().modified().unwrap();
    // What a `--force --checkpoint` run of the same sweep over it, stopped
    // early, leaves beside it: taken away, since the CSV is what it would
    // have written.
    let partial = dir.path().join("r.csv.partial");
    let checkpoint = dir.path().join("r.csv.checkpoint.json");
    fs::write(&partial, "run,\n").unwrap();
    fs::write(&checkpoint, "{}").unwrap();
    podsim()
        .args(&resume)
        .assert()
        .success()
        .stdout(predicates::str::contains(format!(
            "{} is complete already ({} rows); nothing to resume",
            out.display(),
            if cfg!(debug_assertions) {
                "40,004"
            } else {
                "400,004"
            }
        )));
    assert_eq!(fs::metadata(&out).unwrap().modified().unwrap(), modified);
    assert!(!partial.exists() && !checkpoint.exists());
    // The finished CSV of another sweep is not taken for this one's.
    let more = [&resume[..], &["--replications".into(), "3".into()]].concat();
    podsim()
        .args(&more)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "already exists and is not the finished CSV of this sweep",
        ));
}

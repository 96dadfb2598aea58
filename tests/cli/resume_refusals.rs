//! What `sweep --checkpoint` and `--resume` refuse, before the first run
//! and with the files left as they were: a checkpoint or partial file that
//! does not fit the grid or is damaged (named in the message), flags that
//! cannot work together, and a second sweep on an output another is
//! writing. Kept apart from `resume`, whose helpers it shares.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::common::{TempDir, podsim, podsim_process};
use super::resume::{checkpoint_rows, grid, stopped, sweep_args, with};

/// Runs `args` and expects exit 1 with `message`, no panic, and the
/// checkpoint and partial files of `out` unchanged.
fn refused(args: &[String], out: &Path, message: &str) {
    let files = [".checkpoint.json", ".partial"].map(|s| with(out, s));
    let before = files.clone().map(|f| fs::read(f).ok());
    let assert = podsim().args(args).assert().code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains(message), "expected {message:?} in {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(files.map(|f| fs::read(f).ok()), before, "{message}");
}

#[test]
fn a_resume_that_does_not_fit_is_refused_before_any_run() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let out = dir.path().join("s.csv");
    stopped(&grid, &out, 1000);
    let resume = [sweep_args(&grid, &out), vec!["--resume".into()]].concat();
    let plus = |extra: &[&str]| {
        [
            &resume[..],
            &extra.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ]
        .concat()
    };
    let cannot = format!(
        "cannot resume {} from {}",
        out.display(),
        with(&out, ".checkpoint.json").display()
    );
    refused(&plus(&["--replications", "3"]), &out, &cannot);
    refused(
        &plus(&["--seed", "7"]),
        &out,
        "it was written for another grid (SHA-256 ",
    );
    refused(
        &plus(&["--shard", "0/2"]),
        &out,
        "it holds runs 0..", // of the whole grid, and this sweep is shard 0/2
    );
    let no_summary: Vec<String> = resume
        .iter()
        .filter(|a| !a.contains("summary"))
        .cloned()
        .collect();
    refused(
        &no_summary,
        &out,
        "it was written with a summary, and this sweep has none",
    );
    // The grid itself edited: another step.
    let text = fs::read_to_string(&grid).unwrap();
    let edited = dir.path().join("edited.toml");
    fs::write(&edited, text.replace("to = \"100s\"", "to = \"99s\"")).unwrap();
    refused(
        &[sweep_args(&edited, &out), vec!["--resume".into()]].concat(),
        &out,
        "it was written for another grid",
    );
    // --checkpoint alone does not replace a checkpoint.
    refused(
        &[sweep_args(&grid, &out), vec!["--checkpoint".into()]].concat(),
        &out,
        "add --resume to continue it, or --force to start over",
    );
    // Still resumable after all those refusals.
    podsim().args(&resume).assert().success();
}

#[test]
fn a_damaged_checkpoint_or_partial_file_is_refused_with_its_name() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let out = dir.path().join("d.csv");
    let partial = with(&out, ".partial");
    let json = with(&out, ".checkpoint.json");
    let resume = [sweep_args(&grid, &out), vec!["--resume".into()]].concat();
    stopped(&grid, &out, 500);
    let good = fs::read(&partial).unwrap();
    // Cut below what the checkpoint names (a disk that lost the end).
    fs::write(&partial, &good[..good.len() - 10]).unwrap();
    refused(
        &resume,
        &out,
        &format!(
            "cannot resume from {}: it holds {} bytes, fewer than {}",
            partial.display(),
            good.len() - 10,
            good.len()
        ),
    );
    // One byte changed inside what it names.
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 1;
    fs::write(&partial, &flipped).unwrap();
    refused(&resume, &out, "they changed after it was written");
    // The partial file gone.
    fs::remove_file(&partial).unwrap();
    refused(
        &resume,
        &out,
        &format!("cannot resume: {} is missing", partial.display()),
    );
    fs::write(&partial, &good).unwrap();
    // The checkpoint itself damaged: binary garbage, then cut JSON.
    let checkpoint = fs::read(&json).unwrap();
    fs::write(&json, b"\xff\xfe\0garbage").unwrap();
    refused(&resume, &out, "cannot read");
    fs::write(&json, &checkpoint[..checkpoint.len() / 2]).unwrap();
    refused(&resume, &out, "not a podsim checkpoint; remove it to start over");
    // Numbers at the edges of what JSON can say, or that do not agree.
    let value: Value = serde_json::from_slice(&checkpoint).unwrap();
    for (pointer, number, message) in [
        (
            "/next_run",
            u64::MAX,
            "it does not add up: its next run 18446744073709551615 is outside",
        ),
        ("/csv/replications", u64::MAX, "it was written for another grid"),
        ("/csv/first_run", 7, "it holds runs 7..200002"),
        ("/csv/bytes", u64::MAX, "fewer than 18446744073709551615"),
        (
            "/summary/end_run",
            3,
            "its summary's grid or runs are not its CSV's",
        ),
    ] {
        let mut edited = value.clone();
        *edited.pointer_mut(pointer).unwrap() = number.into();
        fs::write(&json, serde_json::to_vec(&edited).unwrap()).unwrap();
        let message = if cfg!(debug_assertions) {
            message.replace("200002", "20002")
        } else {
            message.into()
        };
        refused(&resume, &out, &message);
    }
    let mut negative = value.clone();
    negative["next_run"] = (-1).into();
    fs::write(&json, serde_json::to_vec(&negative).unwrap()).unwrap();
    refused(&resume, &out, "not a podsim checkpoint");
    fs::write(&json, &checkpoint).unwrap();
    podsim().args(&resume).assert().success();
}

#[test]
fn checkpoint_flags_that_cannot_work_are_usage_errors() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let out = dir.path().join("u.csv");
    let stdout = Path::new("-");
    for (out, extra, message) in [
        (out.as_path(), &["--resume", "--force"][..], "cannot be used with"),
        (
            &out,
            &["--checkpoint-every", "5s"],
            "--checkpoint-every goes with --checkpoint or --resume",
        ),
        (&out, &["--checkpoint", "--checkpoint-every", "0"], "from 1"),
        (stdout, &["--checkpoint"], "--out to name a regular file"),
        (
            Path::new("/dev/null"),
            &["--resume"],
            "--out to name a regular file",
        ),
    ] {
        podsim()
            .args(["sweep", "--grid"])
            .arg(&grid)
            .arg("--out")
            .arg(out)
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message));
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "only the grid");
}

#[test]
fn a_second_sweep_on_the_same_out_is_refused_while_the_first_writes() {
    let dir = TempDir::new();
    let grid = grid(dir.path());
    let out = dir.path().join("l.csv");
    let mut first = podsim_process()
        .args(sweep_args(&grid, &out))
        .args(["--checkpoint", "--threads", "1", "--checkpoint-every", "1"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while checkpoint_rows(&out).is_none_or(|rows| rows == 0) {
        assert!(first.try_wait().unwrap().is_none(), "the first sweep ended first");
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(1));
    }
    let second = podsim()
        .args(sweep_args(&grid, &out))
        .arg("--resume")
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&second.get_output().stderr).into_owned();
    let running = first.try_wait().unwrap().is_none();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &first.id().to_string()])
        .status();
    let status = first.wait().unwrap();
    assert!(
        running,
        "the first sweep ended before the second was refused: {stderr}"
    );
    assert_eq!(status.code(), Some(130));
    assert!(
        stderr.contains(&format!(
            "{}.partial is being written by another podsim",
            out.display()
        )),
        "{stderr}"
    );
    podsim()
        .args(sweep_args(&grid, &out))
        .arg("--resume")
        .assert()
        .success();
}

//! Every command the front page and the guide show is run against the real
//! binary, and what it prints is compared with the output they show, so
//! the guide cannot fall behind the program. The fence convention (which
//! block is a script, a transcript, an output, a file; `no-run`; `[..]` and
//! `...`) is written for authors in `docs/development.md`, "Testing the
//! guide"; this file is its one implementation.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::expect::matches;
use super::markdown::{Block, Page, blocks, pages, root};
use crate::cli::common::TempDir;

/// What the repository holds that the guide's commands read, copied into
/// each page's scratch folder so that nothing in the repository is written.
const INPUTS: [&str; 5] = [
    "scenarios",
    "results",
    "tests/manifests",
    "benches/grids",
    "deploy",
];

/// Longer than any command of the guide takes by far; a command still
/// running then is a server or a hang, reported instead of waited for.
const TIMEOUT: Duration = Duration::from_secs(60);

/// One thing a page asks for, in the page's order.
enum Step {
    /// A ` ```toml file=NAME ` block: NAME written with the block's text.
    File { name: String, text: String },
    /// A script (a ` ```sh ` block, or one `$ ` line of a transcript) and
    /// the output shown after it, if any.
    Run {
        line: usize,
        script: String,
        expected: Option<String>,
        needs: Option<String>,
    },
}

/// What running one page gave.
#[derive(Default)]
struct Tally {
    ran: usize,
    skipped: Vec<String>,
    not_run: usize,
    failures: Vec<String>,
}

#[test]
fn every_command_of_the_guide_prints_what_the_guide_shows() {
    let started = Instant::now();
    let pages = pages();
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let runs: Vec<_> = pages.iter().map(|page| scope.spawn(|| run_page(page))).collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    let ran: usize = tallies.iter().map(|t| t.ran).sum();
    let not_run: usize = tallies.iter().map(|t| t.not_run).sum();
    for skip in tallies.iter().flat_map(|t| &t.skipped) {
        eprintln!("docs: skipped {skip}");
    }
    eprintln!(
        "docs: ran {ran} scripts (sh blocks and transcript commands) of {} pages in {:.1?}; \
         {not_run} blocks marked no-run",
        pages.len(),
        started.elapsed()
    );
    let failures: Vec<&String> = tallies.iter().flat_map(|t| &t.failures).collect();
    assert!(
        failures.is_empty(),
        "{} commands of the guide print something else than it shows:\n\n{}",
        failures.len(),
        failures
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    assert!(
        ran >= 30,
        "too few scripts run ({ran}): is the guide read at all?"
    );
}

/// Runs a page's steps in order in a scratch copy of the inputs.
fn run_page(page: &Page) -> Tally {
    let mut tally = Tally::default();
    let (steps, not_run) = steps(page, &mut tally.failures);
    tally.not_run = not_run;
    if steps.is_empty() {
        return tally;
    }
    let scratch = TempDir::new();
    for input in INPUTS {
        copy_tree(&root().join(input), &scratch.path().join(input));
    }
    let bin = scratch.path().join(".bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("podsim"), bin.join("podsim")).unwrap();
    for step in steps {
        match step {
            Step::File { name, text } => std::fs::write(scratch.path().join(name), text).unwrap(),
            Step::Run {
                needs: Some(tool),
                line,
                ..
            } if !installed(&tool) => {
                tally
                    .skipped
                    .push(format!("{}:{line}: needs {tool}", page.path.display()));
            }
            Step::Run {
                line,
                script,
                expected,
                ..
            } => {
                tally.ran += 1;
                let at = format!("{}:{line}", page.path.display());
                let (status, output) = run(scratch.path(), &bin, &script);
                let wrong_output = expected.as_deref().is_some_and(|e| !matches(e, &output));
                if status != Ok(0) || wrong_output {
                    let status = match status {
                        Ok(code) => format!("exit code {code}"),
                        Err(why) => why,
                    };
                    let shown = expected
                        .as_deref()
                        .unwrap_or("(no output shown; exit code 0 expected)");
                    tally.failures.push(format!(
                        "{at}: {script}\n-- {status}; the guide shows:\n{shown}\n-- it prints:\n{output}"
                    ));
                }
            }
        }
    }
    tally
}

/// The steps of a page, and how many of its blocks are marked `no-run`.
/// A malformed block (a `no-run` without its reason) is a failure.
fn steps(page: &Page, failures: &mut Vec<String>) -> (Vec<Step>, usize) {
    let blocks = blocks(&page.text);
    let lines: Vec<&str> = page.text.lines().collect();
    let output_after = |i: usize| -> Option<&Block> {
        let (this, next) = (&blocks[i], blocks.get(i + 1)?);
        let between = &lines[this.end..next.line - 1];
        let output = ["text", "json", "console"].contains(&next.lang()) && transcript(next).is_none();
        (output && between.iter().all(|l| l.trim().is_empty())).then_some(next)
    };
    let (mut steps, mut not_run) = (Vec::new(), 0);
    let mut i = 0;
    while i < blocks.len() {
        let block = &blocks[i];
        let output = output_after(i);
        if let Some(reason) = block.no_run() {
            if reason.is_empty() {
                failures.push(format!(
                    "{}:{}: say why it is no-run",
                    page.path.display(),
                    block.line
                ));
            }
            not_run += 1;
        } else if block.lang() == "sh" {
            steps.push(Step::Run {
                line: block.line,
                script: block.body.clone(),
                expected: output.map(|o| o.body.clone()),
                needs: block.attribute("needs").map(str::to_string),
            });
        } else if let Some(commands) = transcript(block) {
            for (offset, script, expected) in commands {
                steps.push(Step::Run {
                    line: block.line + offset,
                    script,
                    expected: Some(expected),
                    needs: block.attribute("needs").map(str::to_string),
                });
            }
        } else if let Some(name) = block.attribute("file") {
            steps.push(Step::File {
                name: name.to_string(),
                text: format!("{}\n", block.body),
            });
        }
        // A script's output, or a no-run block's, is taken with it.
        i += if matches!(block.lang(), "sh") && output.is_some() {
            2
        } else {
            1
        };
    }
    (steps, not_run)
}

/// A ` ```text ` or ` ```console ` block that starts with `$ `: each
/// command (with its `\` continuation lines), its line within the block
/// and the output shown after it.
fn transcript(block: &Block) -> Option<Vec<(usize, String, String)>> {
    if !["text", "console"].contains(&block.lang()) || !block.body.starts_with("$ ") {
        return None;
    }
    let mut commands: Vec<(usize, String, String)> = Vec::new();
    let mut continued = false;
    for (i, line) in block.body.lines().enumerate() {
        if let Some(command) = line.strip_prefix("$ ") {
            commands.push((i + 1, command.to_string(), String::new()));
            continued = command.ends_with('\\');
        } else if let Some((_, command, output)) = commands.last_mut() {
            if continued {
                command.push('\n');
                command.push_str(line);
                continued = line.ends_with('\\');
            } else {
                output.push_str(line);
                output.push('\n');
            }
        }
    }
    Some(commands)
}

/// Runs a script with `sh -e` in `dir`, `podsim` (and `cargo run --release
/// --`) being the binary under test; its exit code (or why it has none)
/// and what it printed, standard output and error in the order written.
fn run(dir: &Path, bin: &Path, script: &str) -> (Result<i32, String>, String) {
    let script = script.replace("cargo run --release --", "podsim");
    let log = dir.join(".output");
    let out = File::create(&log).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let mut child = Command::new("sh")
        .args(["-e", "-c", &script])
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SLURM_ARRAY_TASK_MIN")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .expect("sh starts");
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status
                .code()
                .ok_or_else(|| format!("ended by a signal: {status}"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break Err(format!(
                "still running after {TIMEOUT:?}: a server? mark it no-run"
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (status, std::fs::read_to_string(&log).unwrap())
}

/// Whether `tool` is a file in a folder of PATH.
fn installed(tool: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|folder| folder.join(tool).is_file())
}

fn copy_tree(from: &Path, to: &PathBuf) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

//! The stable fuzz runner: every target of `targets` fed its seed corpus,
//! then mutants of it. One integration binary; its modules:
//!
//! - `targets`: the targets and the property they check (shared with `cargo fuzz`);
//! - `corpus`: the seeds, read from the repository at every run;
//! - `mutate`: the structured mutations proptest draws and shrinks.
//!
//! `cargo test` runs `DEFAULT_INPUTS` mutants per target with a fixed seed.
//! A long run sets the count and the seed, and only then is each input's
//! time bounded, in CPU time (time depends on the machine, so `cargo test`
//! never judges it):
//!
//! ```sh
//! PODSIM_FUZZ_INPUTS=2000000 PODSIM_FUZZ_SEED=7 nice -n 19 \
//!     cargo test --release --test main fuzz:: -- --nocapture
//! ```
//!
//! A failure is shrunk to a short list of edits; the input is written to
//! `target/fuzz-failures/` and its bytes printed, ready for a regression test.

mod corpus;
mod mutate;
mod targets;

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once, PoisonError};
use std::time::{Duration, Instant};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use mutate::{Corpus, op};
use targets::{Outcome, Target, repo};

/// Mutants per target in `cargo test`: all six targets take about 4 s in
/// release on this 2-core machine, loaded, well under the 30 s allowed.
const DEFAULT_INPUTS: u32 = 5000;

/// A long run's bound on one input, unless `PODSIM_FUZZ_MAX_MS` says
/// otherwise: five times the slowest input of the first long runs (a grid
/// whose range of ten million values is hashed, 0.4 s on a loaded machine).
const DEFAULT_MAX_MS: u64 = 2000;

/// What one target's run did, printed with `--nocapture`.
#[derive(Default)]
struct Stats {
    inputs: u64,
    accepted: u64,
    slowest: Duration,
}

/// The run's settings, from the environment.
struct Settings {
    inputs: u32,
    seed: u64,
    /// `Some` only in a long run.
    max_time: Option<Duration>,
}

impl Settings {
    fn from_env() -> Settings {
        let number = |name: &str| {
            std::env::var(name).ok().map(|v| {
                v.parse::<u64>()
                    .unwrap_or_else(|_| panic!("{name}={v} is not a whole number"))
            })
        };
        let inputs = number("PODSIM_FUZZ_INPUTS");
        Settings {
            inputs: inputs.map_or(DEFAULT_INPUTS, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            seed: number("PODSIM_FUZZ_SEED").unwrap_or(0),
            max_time: inputs
                .map(|_| Duration::from_millis(number("PODSIM_FUZZ_MAX_MS").unwrap_or(DEFAULT_MAX_MS))),
        }
    }
}

/// The CPU time this thread spends in `f`, from Linux's `/proc` (in
/// 10 ms ticks; `None` where it cannot be read).
fn cpu_time(f: impl FnOnce()) -> Option<Duration> {
    fn ticks() -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        // Fields after the command's `)`: utime and stime are the 12th and 13th.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
    }
    let before = ticks();
    f();
    Some(Duration::from_millis((ticks()? - before?) * 10))
}

thread_local! {
    /// Whether this thread is inside a target, where proptest catches and
    /// reports every panic (a shrink panics hundreds of times).
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with its panics' messages left to proptest's report.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                default(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Feeds `target` its seeds, then `settings.inputs` mutants; panics with the
/// shrunk input if any breaks the property (or, in a long run, its time bound).
fn fuzz(target: Target) {
    let settings = Settings::from_env();
    let watched = Mutex::new(None);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if let Some(max) = settings.max_time {
            let (settings, watched, done) = (&settings, &watched, &done);
            scope.spawn(move || watchdog(target, settings, max * HANG_FACTOR, watched, done));
        }
        fuzz_watched(target, &settings, &watched);
        done.store(true, Ordering::Relaxed);
    });
}

/// How many times the bound an input may run, in wall time, before the
/// watchdog takes it for a hang: a hang never returns to be timed.
const HANG_FACTOR: u32 = 30;

/// The input in flight and when it started, in a long run.
type Watched = Mutex<Option<(Instant, Vec<u8>)>>;

/// Reports the input in flight and ends the process once it has run
/// longer than `limit`.
fn watchdog(target: Target, settings: &Settings, limit: Duration, watched: &Watched, done: &AtomicBool) {
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        let guard = watched.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((start, input)) = guard.as_ref().filter(|(start, _)| start.elapsed() > limit) {
            let path = save(target, settings.seed, "hang", input);
            eprintln!(
                "fuzz {}: an input has run for {:?} ({path}): {:?}",
                target.name(),
                start.elapsed(),
                String::from_utf8_lossy(input)
            );
            std::process::abort();
        }
    }
}

/// Writes a failing input to `target/fuzz-failures/`; says where, or why not.
fn save(target: Target, seed: u64, what: &str, input: &[u8]) -> String {
    let dir = repo().join("target/fuzz-failures");
    let path = dir.join(format!("{}-{seed}{what}.bin", target.name()));
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, input)) {
        Ok(()) => format!("saved to {}", path.display()),
        Err(e) => format!("not saved: {e}"),
    }
}

fn fuzz_watched(target: Target, settings: &Settings, watched: &Watched) {
    let corpus = Corpus::new(corpus::seeds(target, repo()));
    let stats = RefCell::new(Stats::default());
    let run = |input: &[u8]| -> Duration {
        if settings.max_time.is_some() {
            *watched.lock().unwrap_or_else(PoisonError::into_inner) = Some((Instant::now(), input.to_vec()));
        }
        let start = Instant::now();
        let outcome = target.run(input);
        let took = start.elapsed();
        let mut stats = stats.borrow_mut();
        stats.inputs += 1;
        stats.accepted += u64::from(outcome == Outcome::Accepted);
        stats.slowest = stats.slowest.max(took);
        took
    };
    for seed in &corpus.seeds {
        run(seed);
    }
    let config = Config {
        cases: settings.inputs,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&settings.seed.to_le_bytes());
    seed_bytes[8..16].copy_from_slice(&(target as u64).to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (any::<usize>(), vec(op(), 1..5));
    let result = runner.run(&strategy, |(seed, ops)| {
        let input = corpus.mutant(seed, &ops);
        let took = quietly(|| run(&input));
        match settings.max_time {
            // At nice 19 on a shared machine wall time includes waiting for
            // a core: an input that seems slow is timed again in CPU time.
            Some(max) if took > max => {
                let cpu = cpu_time(|| {
                    quietly(|| run(&input));
                });
                match cpu {
                    Some(cpu) if cpu <= max => Ok(()),
                    _ => Err(TestCaseError::fail(format!(
                        "took {took:?} ({cpu:?} of CPU), more than {max:?}"
                    ))),
                }
            }
            _ => Ok(()),
        }
    });
    let stats = stats.into_inner();
    println!(
        "fuzz {}: {} inputs ({} seeds, seed {}), {} accepted, slowest {:?}",
        target.name(),
        stats.inputs,
        corpus.seeds.len(),
        settings.seed,
        stats.accepted,
        stats.slowest
    );
    if let Err(error) = result {
        let (reason, (seed, ops)) = match error {
            TestError::Fail(reason, value) => (reason.to_string(), value),
            TestError::Abort(reason) => panic!("fuzz {}: aborted: {reason}", target.name()),
        };
        let input = corpus.mutant(seed, &ops);
        panic!(
            "fuzz {}: {reason}\nedits {ops:?} of seed {}\ninput ({}): {:?}",
            target.name(),
            seed % corpus.seeds.len(),
            save(target, settings.seed, "", &input),
            String::from_utf8_lossy(&input)
        );
    }
}

#[test]
fn fuzz_scenario_toml() {
    fuzz(Target::ScenarioToml);
}

#[test]
fn fuzz_grid_toml() {
    fuzz(Target::GridToml);
}

#[test]
fn fuzz_timings_toml() {
    fuzz(Target::TimingsToml);
}

#[test]
fn fuzz_manifest() {
    fuzz(Target::Manifest);
}

#[test]
fn fuzz_csv_table() {
    fuzz(Target::CsvTable);
}

#[test]
fn fuzz_merge() {
    fuzz(Target::Merge);
}

#[test]
fn fuzz_checkpoint() {
    fuzz(Target::Checkpoint);
}

/// Every target has seeds, and the bundled ones among them: a corpus that
/// silently lost its files would fuzz nothing.
#[test]
fn every_target_has_its_bundled_seeds() {
    for target in Target::ALL {
        let seeds = corpus::seeds(target, repo());
        let accepted = seeds
            .iter()
            .filter(|s| target.run(s) == Outcome::Accepted)
            .count();
        let least = match target {
            // The six CKAD Pods and the blog's Job.
            Target::Manifest => 7,
            // The two seed layouts and the blog's Job.
            Target::ScenarioToml => 3,
            // The grid stopped after each of its 6 runs, and before the first.
            Target::Checkpoint => 7,
            Target::CsvTable | Target::GridToml | Target::Merge | Target::TimingsToml => 1,
        };
        assert!(
            accepted >= least,
            "{}: {accepted} of {} seeds accepted, expected at least {least}",
            target.name(),
            seeds.len()
        );
    }
}

/// Issue 16: the manifest target's seeds cover every shape the reader
/// takes, each accepted: JSON, a `List` in JSON and in YAML, several
/// documents in one stream.
#[test]
fn issue_16_the_manifest_seeds_hold_json_lists_and_streams() {
    let seeds = corpus::seeds(Target::Manifest, repo());
    let accepted = |shape: &dyn Fn(&str) -> bool| {
        seeds
            .iter()
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .filter(|s| shape(s))
            .filter(|s| Target::Manifest.run(s.as_bytes()) == Outcome::Accepted)
            .count()
    };
    let json = |s: &str| s.trim_start().starts_with('{');
    assert!(
        accepted(&|s| json(s) && !s.contains("\"List\"")) >= 7,
        "JSON documents"
    );
    assert!(
        accepted(&|s| json(s) && s.contains("\"kind\": \"List\"")) >= 1,
        "a JSON List"
    );
    assert!(
        accepted(&|s| s.starts_with("apiVersion: v1\nkind: List\n")) >= 1,
        "a YAML List"
    );
    assert!(
        accepted(&|s| s.matches("\n---").count() > 5) >= 1,
        "a long stream"
    );
}

/// `PODSIM_FUZZ_CORPUS=DIR cargo test --test main fuzz:: write_corpus -- --ignored`
/// writes each target's seeds to `DIR/<target>/` for `cargo fuzz`.
#[test]
#[ignore = "writes files; run it to seed cargo fuzz's corpus"]
fn write_corpus() {
    let dir = std::env::var("PODSIM_FUZZ_CORPUS").unwrap_or_else(|_| "fuzz/corpus".into());
    for target in Target::ALL {
        let folder = repo().join(&dir).join(target.name());
        std::fs::create_dir_all(&folder).expect("the corpus folder");
        for (i, seed) in corpus::seeds(target, repo()).iter().enumerate() {
            std::fs::write(folder.join(format!("seed-{i:04}")), seed).expect("a seed written");
        }
    }
}

//! The command line: clap definitions (their doc comments are the help text)
//! and one file per subcommand that calls the library and writes output.
//!
//! Invariant: this module and `main.rs` are the only places that know about
//! terminals, files to write, signals and exit codes; the library only
//! computes.

mod advise;
mod advise_pod;
mod checkpoint;
mod distribution;
mod inputs;
mod interrupt;
mod merge;
mod output;
mod plot;
mod report;
mod run;
mod serve;
mod sweep;

use clap::{Parser, Subcommand};

use podsim::engine::SimDuration;
use podsim::scenario::numbers::grouped;
use podsim::scenario::{Diagnostic, Problem, parse_duration};

pub use advise::AdviseArgs;
pub use merge::MergeArgs;
pub use plot::PlotArgs;
pub use report::ReportArgs;
pub use run::RunArgs;
pub use serve::ServeArgs;
pub use sweep::SweepArgs;

/// podsim: a discrete-event simulator of the Kubernetes Pod lifecycle.
///
/// Exit codes: 0 success; 1 an error in the input, the output or the run; 2 a
/// usage error (an unknown flag, a flag value that can never work); 130 a
/// sweep or run stopped by Ctrl-C or SIGTERM.
#[derive(Debug, Parser)]
#[command(name = "podsim", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run scenarios and show what happened: timeline, bands and metrics.
    Run(RunArgs),
    /// Plot two columns of a sweep's CSV: the trade-off picture (SVG or PNG).
    Plot(PlotArgs),
    /// Write one self-contained HTML page for scenarios and sweep results.
    Report(ReportArgs),
    /// Run every combination of a grid in parallel and write one CSV row per run.
    Sweep(SweepArgs),
    /// Merge the shards of a sweep into one CSV, checking they fit together.
    Merge(MergeArgs),
    /// Serve the interactive what-if page on this machine (http://127.0.0.1:8080/).
    Serve(ServeArgs),
    /// Find the smallest safe preStop sleep and grace period of a Service, and what they cost.
    Advise(AdviseArgs),
}

impl Command {
    /// Runs the subcommand, writing results to `out`.
    pub fn execute(&self, out: &mut dyn std::io::Write) -> anyhow::Result<()> {
        match self {
            Command::Run(args) => run::run(args, out),
            Command::Plot(args) => plot::plot(args, out),
            Command::Report(args) => report::run(args, out),
            Command::Sweep(args) => sweep::sweep(args, out),
            Command::Merge(args) => merge::merge(args, out),
            Command::Serve(args) => serve::serve(args, out),
            Command::Advise(args) => advise::run(args, out),
        }
    }
}

/// A diagnostic as the user reads it: the library's words, plus the advice
/// only the command line can give (which command or flag to use).
pub fn render(d: &Diagnostic) -> String {
    render_with(d, TIMINGS_FLAG)
}

/// How `podsim run` and `report` take a timings file.
pub const TIMINGS_FLAG: &str = "--timings";
/// How a sweep takes one: its grid's key, for a manifest base's notices.
pub const TIMINGS_KEY: &str = "a timings file named by the grid's timings key";

/// `render`, with `timings` as the way to give a timings file.
fn render_with(d: &Diagnostic, timings: &str) -> String {
    match d.position {
        Some((line, col)) => format!("{}:{line}:{col}: {}", d.origin, message_with(d, timings)),
        None => format!("{}: {}", d.origin, message_with(d, timings)),
    }
}

/// `render` without the place: the text after `origin:line:col: `.
pub fn message(d: &Diagnostic) -> String {
    message_with(d, TIMINGS_FLAG)
}

fn message_with(d: &Diagnostic, timings: &str) -> String {
    match &d.problem {
        Problem::GridNotScenario { .. } => {
            format!("{}; run it with `podsim sweep --grid {}`", d.message(), d.origin)
        }
        problem => problem.message_with(Some(timings)).unwrap_or_else(|| d.message()),
    }
}

/// A library diagnostic as an error of the command, advice included; the
/// I/O cause stays reachable (a closed pipe must still be told apart).
pub fn error(d: Diagnostic) -> anyhow::Error {
    let rendered = render(&d);
    if rendered == d.to_string() {
        anyhow::Error::new(d)
    } else {
        anyhow::anyhow!(rendered)
    }
}

/// Prints what loading had to assume, on stderr.
/// `timings` says how this command takes a timings file (`TIMINGS_FLAG`
/// or, for a sweep, `TIMINGS_KEY`).
pub fn print_notices<'a>(notices: impl IntoIterator<Item = &'a Diagnostic>, timings: &str) {
    for notice in notices {
        eprintln!("podsim: notice: {}", render_with(notice, timings));
    }
}

/// Parses `"3s"`-style durations on the command line.
pub fn duration_arg(text: &str) -> Result<SimDuration, String> {
    parse_duration(text)
}

/// A command line that can never work, found after clap's own checks (two
/// flags that do not go together): exit 2, like clap's usage errors.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Ctrl-C or SIGTERM stopped a sweep: exit 130, as a shell reports a
/// command ended by an interrupt.
#[derive(Debug)]
pub struct Interrupted {
    /// Runs finished, their rows written or not.
    pub done: u64,
    pub total: u64,
    /// The partial file a checkpointed sweep keeps, and its rows: whole
    /// chunks only, in order, so fewer than `done` when the stop dropped
    /// some runs finished.
    pub kept: Option<(std::path::PathBuf, u64)>,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (done, total) = (grouped(self.done), grouped(self.total));
        match &self.kept {
            None => write!(
                f,
                "interrupted after {done} of {total} runs; their rows are not kept: without --checkpoint a \
                 sweep writes its file only when it is complete (with --checkpoint a stop keeps the rows \
                 done, and --resume goes on from them)"
            ),
            Some((partial, rows)) if *rows == self.done => write!(
                f,
                "interrupted after {done} of {total} runs; {} keeps them, checkpointed: run the same \
                 sweep with --resume to go on",
                partial.display()
            ),
            Some((partial, rows)) => write!(
                f,
                "interrupted after {done} of {total} runs; {} keeps the first {} (a sweep keeps whole \
                 batches of runs, in order), checkpointed: run the same sweep with --resume to go on",
                partial.display(),
                grouped(*rows)
            ),
        }
    }
}

impl std::error::Error for Interrupted {}

/// Ctrl-C or SIGTERM stopped `podsim run`: exit 130, like a sweep.
#[derive(Debug)]
pub struct RunStopped {
    /// The run it stopped, from 1.
    pub at: usize,
    pub total: usize,
    /// Where that run's scenario came from.
    pub source: String,
}

impl std::fmt::Display for RunStopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted during run {} of {} ({}); nothing printed: the results are printed once every \
             run has finished",
            self.at, self.total, self.source
        )
    }
}

impl std::error::Error for RunStopped {}

/// The exit code for an error: 2 for usage, 130 for an interrupt, else 1.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.is::<UsageError>() {
        2
    } else if error.is::<Interrupted>() || error.is::<RunStopped>() {
        130
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own consistency checks over every subcommand and flag.
    #[test]
    fn verify_cli() {
        super::Cli::command().debug_assert();
    }
}

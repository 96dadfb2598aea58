//! `podsim sweep --grid FILE`: run every combination of a grid, or one shard
//! of them, and write the CSV (with its manifest) or describe it (`--dry-run`).
//!
//! Invariant: everything that can be refused (the grid, the shard, the size,
//! an existing output) is refused before the first run.

use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

use podsim::engine::Limits;
use podsim::report::plot::PlotSpec;
use podsim::sweep::{self, Grid, Output, Progress, Shard, SweepError};

use super::checkpoint::{CheckpointArgs, Outputs, Plan, Session, finish_files};
use super::interrupt::Interrupts;
use super::output::{PendingFile, Planned, check_outputs, picture_path};
use super::{Interrupted, UsageError};
use podsim::scenario::numbers::{grouped, human_bytes};

#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// The grid file (TOML): a base scenario and the axes to sweep.
    #[arg(long, value_name = "FILE")]
    pub grid: PathBuf,

    /// Where to write the CSV, `-` for stdout [default: the grid's `out`,
    /// relative to the grid file]. Written exactly as named, also with
    /// --shard K/N; with --shard auto, or with the grid's default,
    /// `.shard-K-of-N` is added before the extension, so the Pods of an
    /// Indexed Job, which share one command line, never overwrite each other.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Worker threads [default: one per CPU]. The output is the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: Option<u16>,

    /// Overwrite an existing output file (with --checkpoint, also an
    /// unfinished sweep's checkpoint).
    #[arg(long)]
    pub force: bool,

    /// Print the number of combinations, the columns and the estimated output
    /// size, then stop without running the sweep.
    #[arg(long)]
    pub dry_run: bool,

    /// Refuse grids with more runs (combinations × replications) than this.
    #[arg(long, value_name = "N", default_value_t = 100_000_000)]
    pub max_runs: u64,

    /// Run only slice K of N of the runs (0-based, contiguous, `run` numbers
    /// kept), or `auto` to take K from JOB_COMPLETION_INDEX (Kubernetes
    /// Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array) with --shards N.
    #[arg(long, value_name = "K/N|auto", value_parser = shard_arg)]
    pub shard: Option<ShardArg>,

    /// Also draw the trade-off plot of the CSV into this SVG or PNG
    /// [default: the grid's `plot`, relative to the grid file, unless --out
    /// moves the CSV; never for a shard or stdout].
    #[arg(long, value_name = "FILE", value_parser = picture_path)]
    pub plot: Option<PathBuf>,

    /// Also write the summary: one row per combination, each metric's mean,
    /// percentiles and extremes over its replications [default: the grid's
    /// `summary`, unless --out moves the CSV]. Sharded like the CSV.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,

    /// The seed of every draw [default: the grid's `seed`, else the base
    /// scenario's, else 0].
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,

    /// Run every combination N times, replication 0 to N-1 [default: the
    /// grid's `replications`, else 1]. With N > 1 the CSV gets a
    /// `replication` column after `run`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub replications: Option<u64>,

    /// The number of shards N, with `--shard auto`.
    #[arg(long, value_name = "N", requires = "shard", value_parser = clap::value_parser!(u64).range(1..))]
    pub shards: Option<u64>,

    #[command(flatten)]
    pub keep: CheckpointArgs,
}

/// `--shard`: a slice given on the command line, or one the job array picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    Fixed(Shard),
    Auto,
}

fn shard_arg(text: &str) -> Result<ShardArg, String> {
    match text {
        "auto" => Ok(ShardArg::Auto),
        _ => Shard::parse(text).map(ShardArg::Fixed),
    }
}

pub fn sweep(args: &SweepArgs, out: &mut dyn Write) -> Result<()> {
    let shard = shard_of(args)?;
    let mut grid = Grid::load(&args.grid).map_err(super::error)?;
    super::print_notices(&grid.notices, super::TIMINGS_KEY);
    if let Some(seed) = args.seed {
        grid.set_seed(seed);
    }
    if let Some(replications) = args.replications {
        grid.set_replications(replications);
    }
    let runs = shard.map_or(0..grid.runs(), |s| s.runs(grid.runs()));
    if let Some(s) = shard.filter(|s| s.count > grid.runs()) {
        eprintln!(
            "podsim: warning: {} shards for {} runs leave {} of them empty{}; use at most {} shards",
            s.count,
            grid.runs(),
            s.count - grid.runs(),
            if runs.is_empty() { ", this one too" } else { "" },
            grid.runs()
        );
    }
    let destination = destination(args, &grid, shard)?;
    let summary = summary_destination(args, &grid, shard);
    if args.dry_run {
        return describe(&grid, shard, runs, destination.as_deref(), args, out);
    }
    if grid.rows() > args.max_runs {
        bail!(
            "{}: the grid has {}, more than the limit of {}; narrow an axis, \
             or raise the limit with --max-runs {}",
            grid.origin,
            size_words(&grid),
            grouped(args.max_runs),
            grid.rows()
        );
    }
    // The grid's own plot belongs to the grid's own CSV: with --out it is
    // drawn only when --plot names where. A shard holds part of the runs.
    let grid_plot = grid.plot.as_ref().filter(|_| args.out.is_none());
    let picture = args
        .plot
        .as_ref()
        .or(grid_plot)
        .filter(|_| shard.is_none() && destination.is_some());
    let mut planned = Vec::new();
    if let Some(path) = &destination {
        planned.push(Planned {
            flag: "--out",
            path,
            keep_existing: !args.force,
            picture: false,
        });
    }
    if let Some(path) = &summary {
        planned.push(Planned {
            flag: "--summary",
            path,
            keep_existing: !args.force,
            picture: false,
        });
    }
    if let Some(path) = picture {
        planned.push(Planned {
            flag: "--plot",
            path,
            keep_existing: false,
            picture: true,
        });
    }
    let outputs = Outputs {
        grid: &grid,
        runs: runs.clone(),
        shard,
        csv: destination.as_deref(),
        summary: summary.as_deref(),
    };
    let plan = args.keep.plan(&outputs)?;
    if let (Plan::Finished(rows), Some(path)) = (&plan, &destination) {
        writeln!(
            out,
            "{} is complete already ({} rows); nothing to resume",
            path.display(),
            grouped(*rows)
        )?;
        return Ok(());
    }
    // Every output is refused or accepted before the bar appears or any run starts.
    check_outputs(&planned)?;
    let session = match plan {
        Plan::Keep(every) => Some(Session::open(&outputs, args.keep.resume, args.force, every)?),
        _ => None,
    };
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let bar = progress_bar((runs.end - runs.start) * grid.replications());
    // From here until the files are complete, Ctrl-C and SIGTERM stop the
    // sweep and remove the temporary files (or keep the checkpointed ones)
    // instead of leaving them behind (stdout alone is not interrupted
    // gracefully: there is nothing to remove).
    let interrupts = (destination.is_some() || summary.is_some())
        .then(Interrupts::catch)
        .transpose()?;
    // The signal's flag is the runs' too: a stop ends the runs in progress.
    let limits = interrupts
        .as_ref()
        .map_or_else(Limits::default, |i| Limits::stopped_by(i.flag()));
    let mut progress = |at: &mut Progress<'_>| {
        bar.set_position(at.rows());
        interrupts
            .as_ref()
            .map_or(ControlFlow::Continue(()), Interrupts::control)
    };
    let result = match session {
        Some(session) => session.run(&outputs, threads, &limits, &mut progress),
        None => plain(&outputs, args.force, threads, &limits, out, &mut progress),
    };
    bar.finish_and_clear();
    let written = result?;
    drop(interrupts);
    let Some(path) = destination else {
        return Ok(());
    };
    writeln!(
        out,
        "wrote {} rows ({}) to {}",
        grouped(written.csv.rows),
        human_bytes(written.csv.bytes as f64),
        path.display()
    )?;
    if let (Some(w), Some(summary)) = (written.summary, &summary) {
        writeln!(
            out,
            "wrote {} summary rows ({}) to {}",
            grouped(w.rows),
            human_bytes(w.bytes as f64),
            summary.display()
        )?;
    }
    if let Some(picture) = picture {
        super::plot::draw(&path, picture, &PlotSpec::sweep(), out)?;
    }
    Ok(())
}

/// Writes the sweep to temporary files renamed into place when complete
/// (or to `out`, stdout, when there is no CSV file).
fn plain(
    outputs: &Outputs,
    force: bool,
    threads: usize,
    limits: &Limits,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&mut Progress<'_>) -> ControlFlow<()>,
) -> Result<Output> {
    let create = |path: &Path| PendingFile::create(path, force);
    let mut file = outputs.csv.map(create).transpose()?;
    let mut summary_file = outputs.summary.map(create).transpose()?;
    let sinks = sweep::Sinks {
        csv: match file.as_mut() {
            Some(f) => f.writer(),
            None => out,
        },
        summary: summary_file.as_mut().map(|f| f.writer() as &mut dyn Write),
    };
    let written = match sweep::run(
        outputs.grid,
        outputs.runs.clone(),
        threads,
        sinks,
        limits,
        progress,
    ) {
        Err(SweepError::Interrupted { finished: done, .. }) => {
            drop((file, summary_file));
            let total = (outputs.runs.end - outputs.runs.start) * outputs.grid.replications();
            return Err(Interrupted {
                done,
                total,
                kept: None,
            }
            .into());
        }
        other => other?,
    };
    finish_files(outputs, file, summary_file, &written)?;
    Ok(written)
}

/// `21,600 combinations`, or `2,000 runs (2 combinations × 1,000 replications)`.
fn size_words(grid: &Grid) -> String {
    match grid.replications() {
        1 => format!("{} combinations", grouped(grid.runs())),
        n => format!(
            "{} runs ({} combinations × {} replications)",
            grouped(grid.rows()),
            grouped(grid.runs()),
            grouped(n)
        ),
    }
}

/// The shard to run, from `--shard` and `--shards`; a combination that can
/// never work is a usage error.
fn shard_of(args: &SweepArgs) -> Result<Option<Shard>> {
    let usage = |message: &str| Err(UsageError(message.to_string()).into());
    match (args.shard, args.shards) {
        (None, _) => Ok(None),
        (Some(ShardArg::Fixed(shard)), None) => Ok(Some(shard)),
        (Some(ShardArg::Fixed(_)), Some(_)) => {
            usage("--shards goes with --shard auto; --shard K/N already gives N")
        }
        (Some(ShardArg::Auto), None) => {
            usage("--shard auto needs --shards N, the number of shards (the Job's completions)")
        }
        (Some(ShardArg::Auto), Some(count)) => Shard::from_job(count, |name| std::env::var(name).ok())
            .map(Some)
            .map_err(anyhow::Error::msg),
    }
}

/// The output file (`None` for stdout). `--out` is written as named, except
/// with `--shard auto`, where every Pod of an Indexed Job shares the command
/// line; then, and for the grid's own default, the shard's label is added.
fn destination(args: &SweepArgs, grid: &Grid, shard: Option<Shard>) -> Result<Option<PathBuf>> {
    let Some(path) = args.out.as_ref().or(grid.out.as_ref()) else {
        bail!(
            "{}: no output given; add --out FILE (or --out - for stdout), or out = \"FILE\" to the grid",
            grid.origin
        );
    };
    if path.as_os_str() == "-" {
        return Ok(None);
    }
    let exact = args.out.is_some() && args.shard != Some(ShardArg::Auto);
    Ok(Some(match shard {
        Some(shard) if !exact => shard_path(path, shard),
        _ => path.clone(),
    }))
}

/// The summary file, if any: `--summary` as named (but for `--shard auto`),
/// or the grid's `summary` when `--out` does not move the CSV; a shard's
/// gets its label like the CSV.
fn summary_destination(args: &SweepArgs, grid: &Grid, shard: Option<Shard>) -> Option<PathBuf> {
    let grid_summary = grid.summary.as_ref().filter(|_| args.out.is_none());
    let path = args.summary.as_ref().or(grid_summary)?;
    let exact = args.summary.is_some() && args.shard != Some(ShardArg::Auto);
    Some(match shard {
        Some(shard) if !exact => shard_path(path, shard),
        _ => path.clone(),
    })
}

/// `results/x.csv` → `results/x.shard-1-of-4.csv`.
fn shard_path(path: &Path, shard: Shard) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{}.{}", shard.label(), ext.to_string_lossy()),
        None => format!("{stem}.{}", shard.label()),
    };
    path.with_file_name(name)
}

fn describe(
    grid: &Grid,
    shard: Option<Shard>,
    runs: std::ops::Range<u64>,
    destination: Option<&Path>,
    args: &SweepArgs,
    out: &mut dyn Write,
) -> Result<()> {
    let sizes: Vec<String> = grid.axes.iter().map(|a| a.values.len().to_string()).collect();
    writeln!(
        out,
        "grid     {} (sha256 {})",
        grid.origin,
        sweep::shard::hex(&grid.sha256())
    )?;
    writeln!(out, "runs     {} = {}", grouped(grid.runs()), sizes.join(" × "))?;
    if grid.replications() > 1 {
        writeln!(
            out,
            "rows     {} = {} runs × {} replications (seed {})",
            grouped(grid.rows()),
            grouped(grid.runs()),
            grouped(grid.replications()),
            grid.seed()
        )?;
    }
    if grid.rows() > args.max_runs {
        writeln!(
            out,
            "limit    over --max-runs {}: the sweep will refuse it without --max-runs {}",
            grouped(args.max_runs),
            grid.rows()
        )?;
    }
    if let Some(s) = shard {
        writeln!(
            out,
            "shard    {}/{}: runs {}..{} ({} rows)",
            s.index,
            s.count,
            runs.start,
            runs.end,
            grouped(runs.end - runs.start)
        )?;
    }
    writeln!(out, "columns  {}", grid.columns().join(", "))?;
    match destination {
        None => writeln!(out, "output   stdout")?,
        Some(path) if path.exists() && !args.force => writeln!(
            out,
            "output   {} (exists: the sweep will refuse it without --force)",
            path.display()
        )?,
        Some(path) => writeln!(out, "output   {}", path.display())?,
    }
    if let Some(summary) = summary_destination(args, grid, shard) {
        writeln!(out, "summary  {} (one row per run)", summary.display())?;
    }
    let header = podsim::sweep::csv::header_line(&grid.columns()).len() as f64;
    let samples = 1000;
    let per_row = sweep::sample_row_bytes(grid, runs.clone(), samples);
    writeln!(
        out,
        "size     about {} ({per_row:.0} bytes a row, from {} sampled runs)",
        human_bytes(header + per_row * ((runs.end - runs.start) * grid.replications()) as f64),
        grouped((runs.end - runs.start).min(samples))
    )?;
    Ok(())
}

/// A bar with rate and ETA on stderr, or nothing when stderr is not a terminal.
fn progress_bar(rows: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(rows);
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} rows, {per_sec:0}, ETA {eta}",
    );
    if let Ok(style) = style {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_files_keep_their_extension() {
        let shard = Shard { index: 1, count: 4 };
        assert_eq!(
            shard_path(Path::new("results/x.csv"), shard),
            Path::new("results/x.shard-1-of-4.csv")
        );
        assert_eq!(shard_path(Path::new("x"), shard), Path::new("x.shard-1-of-4"));
    }
}

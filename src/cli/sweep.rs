//! `podsim sweep --grid FILE`: run every combination of a grid, or one shard
//! of them, and write the CSV (with its manifest) or describe it (`--dry-run`).
//!
//! Invariant: everything that can be refused (the grid, the shard, the size,
//! an existing output) is refused before the first run.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

use podsim::report::plot::PlotSpec;
use podsim::sweep::{self, Grid, Manifest, Shard};

use super::output::{PendingFile, finish_with_manifest};

#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// The grid file (TOML): a base scenario and the axes to sweep.
    #[arg(long, value_name = "FILE")]
    pub grid: PathBuf,

    /// Where to write the CSV, `-` for stdout [default: the grid's `out`,
    /// relative to the grid file]. With --shard, `.shard-K-of-N` is added
    /// before the extension so shards never overwrite each other.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Worker threads [default: one per CPU]. The output is the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: Option<u16>,

    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,

    /// Print the number of combinations, the columns and the estimated output
    /// size, then stop without running the sweep.
    #[arg(long)]
    pub dry_run: bool,

    /// Refuse grids with more combinations than this.
    #[arg(long, value_name = "N", default_value_t = 100_000_000)]
    pub max_runs: u64,

    /// Run only slice K of N of the runs (0-based, contiguous, `run` numbers
    /// kept), or `auto` to take K from JOB_COMPLETION_INDEX (Kubernetes
    /// Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array) with --shards N.
    #[arg(long, value_name = "K/N|auto")]
    pub shard: Option<String>,

    /// Also draw the trade-off plot (exposed_total_ms against ready_ms by
    /// layout) of the CSV into this SVG or PNG [default: the grid's `plot`,
    /// relative to the grid file, unless --out moves the CSV; never for a
    /// shard or stdout].
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,

    /// The number of shards N, with `--shard auto`.
    #[arg(long, value_name = "N", requires = "shard")]
    pub shards: Option<u64>,
}

pub fn sweep(args: &SweepArgs, out: &mut dyn Write) -> Result<()> {
    let grid = Grid::load(&args.grid).map_err(super::error)?;
    super::print_notices(&grid.notices);
    let shard = shard_of(args)?;
    let runs = shard.map_or(0..grid.runs(), |s| s.runs(grid.runs()));
    let destination = destination(args, &grid, shard)?;
    if args.dry_run {
        return describe(&grid, shard, runs, destination.as_deref(), args, out);
    }
    if grid.runs() > args.max_runs {
        bail!(
            "{}: the grid has {} combinations, more than the limit of {}; narrow an axis, \
             or raise the limit with --max-runs {}",
            grid.origin,
            grouped(grid.runs()),
            grouped(args.max_runs),
            grid.runs()
        );
    }
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    // Refuse an existing output before the bar appears or any run starts.
    let file = match &destination {
        Some(path) => Some(PendingFile::create(path, args.force)?),
        None => None,
    };
    let bar = progress_bar(runs.end - runs.start);
    let mut progress = |rows| bar.set_position(rows);
    let (Some(path), Some(mut file)) = (destination, file) else {
        sweep::run(&grid, runs, threads, out, &mut progress)?;
        bar.finish_and_clear();
        return Ok(());
    };
    let written = sweep::run(&grid, runs.clone(), threads, file.writer(), &mut progress)?;
    bar.finish_and_clear();
    finish_with_manifest(file, &Manifest::new(&grid, runs, shard, written.bytes))?;
    writeln!(
        out,
        "wrote {} rows ({}) to {}",
        grouped(written.rows),
        human_bytes(written.bytes as f64),
        path.display()
    )?;
    // The grid's own plot belongs to the grid's own CSV: with --out it is
    // drawn only when --plot names where.
    let grid_plot = grid.plot.as_ref().filter(|_| args.out.is_none());
    if let Some(picture) = args.plot.as_ref().or(grid_plot).filter(|_| shard.is_none()) {
        super::plot::draw(&path, picture, &PlotSpec::default(), out)?;
    }
    Ok(())
}

fn shard_of(args: &SweepArgs) -> Result<Option<Shard>> {
    let shard = match (args.shard.as_deref(), args.shards) {
        (None, _) => None,
        (Some("auto"), Some(count)) => Some(Shard::from_job(count, |name| std::env::var(name).ok())),
        (Some("auto"), None) => {
            bail!("--shard auto needs --shards N, the number of shards (the Job's completions)")
        }
        (Some(_), Some(_)) => bail!("--shards goes with --shard auto; --shard K/N already gives N"),
        (Some(text), None) => Some(Shard::parse(text)),
    };
    shard.transpose().map_err(anyhow::Error::msg)
}

/// The output file (`None` for stdout), shard label included.
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
    Ok(Some(match shard {
        Some(shard) => shard_path(path, shard),
        None => path.clone(),
    }))
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
    writeln!(out, "grid     {} (hash {:016x})", grid.origin, grid.hash())?;
    writeln!(out, "runs     {} = {}", grouped(grid.runs()), sizes.join(" × "))?;
    if grid.runs() > args.max_runs {
        writeln!(
            out,
            "limit    over --max-runs {}: the sweep will refuse it without --max-runs {}",
            grouped(args.max_runs),
            grid.runs()
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
    let header = podsim::sweep::csv::header_line(&grid.columns()).len() as f64;
    let samples = 1000;
    let per_row = sweep::sample_row_bytes(grid, runs.clone(), samples);
    writeln!(
        out,
        "size     about {} ({per_row:.0} bytes a row, from {} sampled runs)",
        human_bytes(header + per_row * (runs.end - runs.start) as f64),
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

/// `28800` → `28,800`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `2_700_000.0` → `2.7 MB`.
pub fn human_bytes(bytes: f64) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} bytes")
    } else {
        format!("{value:.1} {}", units[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_numbers() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(28_800), "28,800");
        assert_eq!(grouped(100_000_000), "100,000,000");
        assert_eq!(human_bytes(950.0), "950 bytes");
        assert_eq!(human_bytes(2_740_000.0), "2.7 MB");
    }

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

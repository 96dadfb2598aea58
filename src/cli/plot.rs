//! `podsim plot CSV`: a sweep's trade-off plot as SVG or PNG.
//!
//! Invariant: what is not a sweep's CSV (a scenario, a grid, an empty file)
//! is named for what it is, with the command that makes a CSV to plot.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use podsim::report::plot::ecdf::{self, EcdfSpec};
use podsim::report::plot::{GroupBy, PairBy, PlotSpec, tradeoff};
use podsim::report::table::{Table, TableError};

use super::output::{picture_path, write_picture};

#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// The sweep's CSV file.
    #[arg(value_name = "CSV")]
    pub csv: PathBuf,

    /// Column for the x axis (`_ms` columns are drawn in seconds).
    #[arg(long, value_name = "COLUMN", default_value = "ready_ms")]
    pub x: String,

    /// Column for the y axis.
    #[arg(long, value_name = "COLUMN", default_value = "exposed_total_ms")]
    pub y: String,

    /// Column whose values colour the runs [default: the first `*.kind`
    /// column holding two or more values, the layout axis; none with --pair].
    #[arg(long, value_name = "COLUMN", conflicts_with = "no_group")]
    pub group: Option<String>,

    /// Draw all runs in one colour.
    #[arg(long)]
    pub no_group: bool,

    /// Pair the runs that differ only in COLUMN and draw one dot per pair:
    /// what the first value adds on x and removes on y against the second
    /// (`containers.proxy.kind`: Ready time added by the sidecar, exposure
    /// removed). COLUMN must hold two values, or name them: COLUMN=A,B.
    #[arg(long, value_name = "COLUMN[=A,B]", value_parser = pair_arg)]
    pub pair: Option<PairBy>,

    /// Draw the empirical CDF of METRIC instead, one curve per group (the
    /// groups as with --group): read a p99 off it at 0.99.
    #[arg(long, value_name = "METRIC", conflicts_with_all = ["pair", "x", "y"])]
    pub ecdf: Option<String>,

    /// With --ecdf, only the rows whose COLUMN holds VALUE (one app boot of
    /// a sweep, say).
    #[arg(long, value_name = "COLUMN=VALUE", requires = "ecdf", value_parser = only_arg)]
    pub only: Option<(String, String)>,

    /// Output file, .svg or .png; overwritten if it exists [default: the CSV's
    /// name with .svg].
    #[arg(long, short, value_name = "FILE", value_parser = picture_path)]
    pub out: Option<PathBuf>,

    /// Picture width in pixels (the PNG's exact size).
    #[arg(long, value_name = "PX", default_value_t = 900, value_parser = clap::value_parser!(u32).range(400..=8000))]
    pub width: u32,

    /// Picture height in pixels.
    #[arg(long, value_name = "PX", default_value_t = 560, value_parser = clap::value_parser!(u32).range(300..=8000))]
    pub height: u32,
}

/// `COLUMN` or `COLUMN=A,B`.
fn pair_arg(text: &str) -> Result<PairBy, String> {
    let Some((name, values)) = text.split_once('=') else {
        return Ok(PairBy::Column {
            name: text.to_string(),
            values: None,
        });
    };
    match values.split_once(',') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.contains(',') => Ok(PairBy::Column {
            name: name.to_string(),
            values: Some((a.to_string(), b.to_string())),
        }),
        _ => Err(format!(
            "write COLUMN=A,B with the two values to compare (e.g. containers.proxy.kind=sidecar,app), not \"{text}\""
        )),
    }
}

fn only_arg(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(c, v)| (c.to_string(), v.to_string()))
        .ok_or_else(|| format!("write COLUMN=VALUE (e.g. containers.web.boot_ms=2000), not \"{text}\""))
}

pub fn plot(args: &PlotArgs, out: &mut dyn Write) -> Result<()> {
    let path = args.out.clone().unwrap_or_else(|| args.csv.with_extension("svg"));
    let group = match (&args.group, args.no_group) {
        (Some(name), _) => GroupBy::Column(name.clone()),
        (None, true) => GroupBy::Nothing,
        (None, false) => GroupBy::Layout,
    };
    if let Some(metric) = &args.ecdf {
        let spec = EcdfSpec {
            metric: metric.clone(),
            group,
            only: args.only.clone(),
            width: args.width,
            height: args.height,
        };
        let table = read_sweep(&args.csv)?;
        let curves = ecdf::curves(&table, &spec)?;
        write_picture(&path, &ecdf::svg(&table, &spec)?)?;
        let names: Vec<&str> = curves.iter().map(|c| c.name.as_str()).collect();
        writeln!(
            out,
            "wrote {}: empirical CDF of {metric}, {}",
            path.display(),
            names.join(", ")
        )?;
        return Ok(());
    }
    let spec = PlotSpec {
        x: args.x.clone(),
        y: args.y.clone(),
        group,
        pair: args.pair.clone(),
        width: args.width,
        height: args.height,
    };
    draw(&args.csv, &path, &spec, out)
}

/// Draws the trade-off plot of `csv` into `path` (SVG or PNG by extension)
/// and says what it drew; the sweep calls it too.
pub fn draw(csv: &Path, path: &Path, spec: &PlotSpec, out: &mut dyn Write) -> Result<()> {
    let table = read_sweep(csv)?;
    let plot = tradeoff(&table, spec)?;
    write_picture(path, &plot.svg())?;
    let what = match &plot.pair {
        Some(pair) => format!("{}, {} against {}", plot.drawn(), pair.first, pair.second),
        None => plot.drawn(),
    };
    let grouping = match plot.group {
        Some(g) => format!(
            " in {} group{} by {}",
            plot.groups.len(),
            if plot.groups.len() == 1 { "" } else { "s" },
            table.columns[g]
        ),
        None => String::new(),
    };
    writeln!(out, "wrote {}: {what}{grouping}", path.display())?;
    Ok(())
}

/// Reads a sweep's CSV, or says what the file is instead and what to run.
fn read_sweep(csv: &Path) -> Result<Table> {
    let shown = csv.display();
    let extension = csv
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("toml") => {
            let text = std::fs::read_to_string(csv).unwrap_or_default();
            let grid = text.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("[axes]") || l.starts_with("base ") || l.starts_with("base=")
            });
            if grid {
                bail!(
                    "{shown} is a grid, not a sweep's CSV; run it first: podsim sweep --grid {shown} \
                     (it writes the CSV named by its `out`, and the plot by its `plot`)"
                );
            }
            bail!(
                "{shown} is a scenario, not a sweep's CSV; draw its timeline with: podsim run {shown} --svg {}",
                csv.with_extension("svg").display()
            );
        }
        Some("yaml" | "yml" | "json") => bail!(
            "{shown} is a Kubernetes manifest, not a sweep's CSV; draw its timeline with: podsim run {shown} --svg {}",
            csv.with_extension("svg").display()
        ),
        _ => {}
    }
    let table = match Table::load(csv) {
        Err(TableError::Empty { .. }) => bail!(
            "{shown} is empty, not a sweep's CSV; write one with: podsim sweep --grid GRID.toml --out {shown} --force"
        ),
        other => other?,
    };
    if table.rows.is_empty() {
        bail!(
            "{shown} has a header but no runs: nothing to plot (a shard with no runs?); \
             a sweep of a grid writes one row per run"
        );
    }
    Ok(table)
}

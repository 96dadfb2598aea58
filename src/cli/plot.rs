//! `podsim plot CSV`: a sweep's trade-off plot as SVG or PNG.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use podsim::report::plot::{GroupBy, PlotSpec, tradeoff};
use podsim::report::table::Table;

use super::output::{PictureFormat, write_picture};

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
    /// column holding two or more values, the layout axis].
    #[arg(long, value_name = "COLUMN", conflicts_with = "no_group")]
    pub group: Option<String>,

    /// Draw all runs in one colour.
    #[arg(long)]
    pub no_group: bool,

    /// Output file, .svg or .png; overwritten if it exists [default: the CSV's
    /// name with .svg].
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Picture width in pixels (the PNG's exact size).
    #[arg(long, value_name = "PX", default_value_t = 900, value_parser = clap::value_parser!(u32).range(400..=8000))]
    pub width: u32,

    /// Picture height in pixels.
    #[arg(long, value_name = "PX", default_value_t = 560, value_parser = clap::value_parser!(u32).range(300..=8000))]
    pub height: u32,
}

pub fn plot(args: &PlotArgs, out: &mut dyn Write) -> Result<()> {
    let path = args.out.clone().unwrap_or_else(|| args.csv.with_extension("svg"));
    let group = match (&args.group, args.no_group) {
        (Some(name), _) => GroupBy::Column(name.clone()),
        (None, true) => GroupBy::Nothing,
        (None, false) => GroupBy::Layout,
    };
    let spec = PlotSpec {
        x: args.x.clone(),
        y: args.y.clone(),
        group,
        width: args.width,
        height: args.height,
    };
    draw(&args.csv, &path, &spec, out)
}

/// Draws the trade-off plot of `csv` into `path` (SVG or PNG by extension)
/// and says what it drew; the sweep calls it too.
pub fn draw(csv: &Path, path: &Path, spec: &PlotSpec, out: &mut dyn Write) -> Result<()> {
    // Refuse a bad extension before reading a large CSV.
    PictureFormat::of(path)?;
    let table = Table::load(csv)?;
    let plot = tradeoff(&table, spec)?;
    write_picture(path, &plot.svg())?;
    let grouping = plot
        .group
        .map_or(String::new(), |g| format!(" by {}", table.columns[g]));
    writeln!(
        out,
        "wrote {}: {} runs in {} group{}{grouping}",
        path.display(),
        plot.runs(),
        plot.groups.len(),
        if plot.groups.len() == 1 { "" } else { "s" }
    )?;
    Ok(())
}

//! The trade-off plot (SVG): one sweep CSV column against another, one colour
//! per group, and each group's Pareto frontier (the lowest y for a given x).
//!
//! Defaults draw what the sweep exists for: `exposed_total_ms` against
//! `ready_ms`, grouped by the layout axis — the first column whose name ends in
//! `.kind` and that holds at least two values (`containers.proxy.kind`).
//! The sweep calls it as
//! `plot::tradeoff(&Table::load(csv)?, &PlotSpec::default())?.svg()`.
//!
//! Many points: runs are *binned*, not drawn one by one with alpha. Each group
//! puts its runs into cells of `BIN` × `BIN` pixels and draws one dot per
//! occupied cell, at the mean of its runs, darker the more runs it holds (log
//! scale). So a million runs cost one pass and at most one dot per cell per
//! group, the file stays small, and dense regions still read as dense —
//! where alpha over 100 000 dots would saturate to a flat blob and weigh
//! tens of megabytes.
//!
//! Invariant: the frontier is computed from every run, not from the bins, and
//! no run strictly better on both axes than a frontier run exists in its group.

use std::collections::BTreeMap;

use super::svg::{Num, Scale, Svg, tick_label, ticks};
use super::table::{Table, TableError};

/// What to plot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotSpec {
    pub x: String,
    pub y: String,
    pub group: GroupBy,
    pub width: u32,
    pub height: u32,
}

/// How runs are split into coloured groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    /// The layout axis: see `layout_column`.
    Layout,
    Column(String),
    /// One group of all runs.
    Nothing,
}

impl Default for PlotSpec {
    fn default() -> Self {
        PlotSpec {
            x: "ready_ms".to_string(),
            y: "exposed_total_ms".to_string(),
            group: GroupBy::Layout,
            width: 900,
            height: 560,
        }
    }
}

/// The edge of a bin, in pixels.
pub const BIN: f64 = 3.0;

/// Colour-blind-safe (Okabe–Ito), yellow last because it is faint on white.
const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

/// Groups named in the legend; more are drawn but summarised as "+N more".
const LEGEND_MAX: usize = 14;

/// One run as plotted: values in display units (seconds for `_ms` columns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// Row index in the table.
    pub row: usize,
}

/// The runs of one group value.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub name: String,
    pub points: Vec<Point>,
    /// Frontier runs by increasing x, each with the number of runs that share
    /// its exact (x, y) (the first of them in table order is the one kept).
    pub frontier: Vec<(Point, usize)>,
}

/// A computed trade-off plot, ready to draw.
#[derive(Clone, Debug)]
pub struct Tradeoff<'t> {
    pub table: &'t Table,
    pub x: usize,
    pub y: usize,
    pub group: Option<usize>,
    pub groups: Vec<Group>,
    /// Runs with no value in x or y (an absent metric, like `ready_ms` of a
    /// Pod that never became Ready): counted, not drawn.
    pub skipped: usize,
    width: u32,
    height: u32,
}

/// The layout axis: the first `*.kind` column holding at least two values.
pub fn layout_column(table: &Table) -> Option<usize> {
    (0..table.columns.len()).find(|&c| {
        table.columns[c].ends_with(".kind")
            && table
                .rows
                .first()
                .is_some_and(|first| table.rows.iter().any(|r| r[c] != first[c]))
    })
}

/// What a column measures, for titles: `time to Pod Ready` for `ready_ms`,
/// the name without its unit suffix for a column podsim does not know.
pub fn describe(column: &str) -> &str {
    match column {
        "ready_ms" => "time to Pod Ready",
        "exposed_total_ms" => "exposed time, startup + shutdown",
        "exposed_startup_ms" => "exposed time at startup",
        "exposed_shutdown_ms" => "exposed time at shutdown",
        "termination_ms" => "termination (deletion to last exit)",
        "end_ms" => "end of the run",
        "restarts" => "container restarts",
        "sigkilled" => "containers SIGKILLed",
        other => other.strip_suffix("_ms").unwrap_or(other),
    }
}

/// A column's axis title, with its unit and its name as in the CSV, and the
/// divisor to that unit: `time to Pod Ready (s) · ready_ms`, 1000.
pub fn axis_title(column: &str) -> (String, f64) {
    let text = describe(column);
    if column.ends_with("_ms") {
        (format!("{text} (s) · {column}"), 1000.0)
    } else if matches!(column, "restarts" | "sigkilled") {
        (format!("{text} (count) · {column}"), 1.0)
    } else {
        (column.to_string(), 1.0)
    }
}

/// Reads the columns of `spec` from `table` and computes groups and frontiers.
pub fn tradeoff<'t>(table: &'t Table, spec: &PlotSpec) -> Result<Tradeoff<'t>, TableError> {
    let x = table.column(&spec.x)?;
    let y = table.column(&spec.y)?;
    let group = match &spec.group {
        GroupBy::Layout => layout_column(table),
        GroupBy::Column(name) => Some(table.column(name)?),
        GroupBy::Nothing => None,
    };
    let (x_div, y_div) = (axis_title(&spec.x).1, axis_title(&spec.y).1);
    let mut groups: Vec<Group> = Vec::new();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut skipped = 0;
    for row in 0..table.rows.len() {
        let (Some(vx), Some(vy)) = (table.number(row, x)?, table.number(row, y)?) else {
            skipped += 1;
            continue;
        };
        let name = group.map_or("all runs", |g| table.rows[row][g].as_str());
        let name = if name.is_empty() { "(empty)" } else { name };
        let slot = *index.entry(name).or_insert_with(|| {
            groups.push(Group {
                name: name.to_string(),
                points: Vec::new(),
                frontier: Vec::new(),
            });
            groups.len() - 1
        });
        groups[slot].points.push(Point {
            x: vx / x_div,
            y: vy / y_div,
            row,
        });
    }
    for g in &mut groups {
        g.frontier = frontier(&g.points);
    }
    Ok(Tradeoff {
        table,
        x,
        y,
        group,
        groups,
        skipped,
        width: spec.width,
        height: spec.height,
    })
}

/// The Pareto frontier for "lower is better" on both axes: sorted by x then
/// y (then table order), a run is on it when its y beats every run before it.
fn frontier(points: &[Point]) -> Vec<(Point, usize)> {
    let mut sorted: Vec<&Point> = points.iter().collect();
    sorted.sort_by(|a, b| {
        a.x.total_cmp(&b.x)
            .then(a.y.total_cmp(&b.y))
            .then(a.row.cmp(&b.row))
    });
    let mut out: Vec<(Point, usize)> = Vec::new();
    for p in sorted {
        match out.last_mut() {
            Some((last, same)) if last.x == p.x && last.y == p.y => *same += 1,
            Some((last, _)) if p.y >= last.y => {}
            _ => out.push((*p, 1)),
        }
    }
    out
}

/// The runs of one group that fall in one `BIN` × `BIN` pixel cell.
#[derive(Clone, Copy, Debug)]
struct Bin {
    runs: usize,
    /// The mean position of those runs, in pixels.
    x: f64,
    y: f64,
}

/// Bins `points` on the pixel grid, in a deterministic (cell) order.
fn bin(points: &[Point], sx: Scale, sy: Scale) -> Vec<Bin> {
    let mut cells: BTreeMap<(i64, i64), Bin> = BTreeMap::new();
    for p in points {
        let (px, py) = (sx.px(p.x), sy.px(p.y));
        let key = ((px / BIN).floor() as i64, (py / BIN).floor() as i64);
        let cell = cells.entry(key).or_insert(Bin {
            runs: 0,
            x: 0.0,
            y: 0.0,
        });
        cell.runs += 1;
        cell.x += px;
        cell.y += py;
    }
    cells
        .into_values()
        .map(|b| Bin {
            x: b.x / b.runs as f64,
            y: b.y / b.runs as f64,
            ..b
        })
        .collect()
}

/// `[lo, hi]` of the values, with 0 included and a margin so dots on the
/// edge stay whole.
fn domain(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = if hi > lo { (hi - lo) * 0.04 } else { 1.0 };
    (lo - pad, hi + pad)
}

impl Tradeoff<'_> {
    pub fn runs(&self) -> usize {
        self.groups.iter().map(|g| g.points.len()).sum()
    }

    /// Draws the plot.
    pub fn svg(&self) -> String {
        let (width, height) = (self.width.max(400), self.height.max(300));
        let (left, right, top, bottom) = (78.0, 230.0, 62.0, 58.0);
        let points = || self.groups.iter().flat_map(|g| g.points.iter());
        let (x_lo, x_hi) = domain(points().map(|p| p.x));
        let (y_lo, y_hi) = domain(points().map(|p| p.y));
        let plot_right = width as f64 - right;
        let plot_bottom = height as f64 - bottom;
        let sx = Scale {
            lo: x_lo,
            hi: x_hi,
            from_px: left,
            to_px: plot_right,
        };
        let sy = Scale {
            lo: y_lo,
            hi: y_hi,
            from_px: plot_bottom,
            to_px: top,
        };
        let (x_name, y_name) = (&self.table.columns[self.x], &self.table.columns[self.y]);
        let mut svg = Svg::new(width, height);

        svg.text(
            left,
            22.0,
            &format!("{} against {}", capitalised(describe(y_name)), describe(x_name)),
            &[("font-size", &15), ("font-weight", &"bold"), ("class", &"title")],
        );
        let grouped = self.group.map_or("not grouped".to_string(), |g| {
            format!("grouped by {}", self.table.columns[g])
        });
        let skipped = match self.skipped {
            0 => String::new(),
            n => format!("; {n} without a value not drawn"),
        };
        svg.text(
            left,
            40.0,
            &format!(
                "{} runs of {}, {grouped}{skipped}",
                self.runs(),
                self.table.origin
            ),
            &[("fill", &"#555555"), ("class", &"subtitle")],
        );
        svg.text(
            left,
            54.0,
            "lower is better on both axes; line: each group's Pareto frontier",
            &[("fill", &"#555555"), ("font-size", &11)],
        );

        // Grid, ticks and axis titles.
        for t in ticks(x_lo, x_hi, 8) {
            let px = sx.px(t);
            svg.line((px, top), (px, plot_bottom), &[("stroke", &"#e6e6e6")]);
            svg.text(
                px,
                plot_bottom + 16.0,
                &tick_label(t),
                &[("text-anchor", &"middle")],
            );
        }
        for t in ticks(y_lo, y_hi, 8) {
            let py = sy.px(t);
            svg.line((left, py), (plot_right, py), &[("stroke", &"#e6e6e6")]);
            svg.text(left - 6.0, py + 4.0, &tick_label(t), &[("text-anchor", &"end")]);
        }
        svg.leaf(
            "rect",
            &[
                ("x", &Num(left)),
                ("y", &Num(top)),
                ("width", &Num(plot_right - left)),
                ("height", &Num(plot_bottom - top)),
                ("fill", &"none"),
                ("stroke", &"#333333"),
            ],
        );
        svg.text(
            (left + plot_right) / 2.0,
            plot_bottom + 40.0,
            &axis_title(x_name).0,
            &[("text-anchor", &"middle"), ("class", &"x-title")],
        );
        let (ty, tx) = ((top + plot_bottom) / 2.0, 20.0);
        svg.text(
            tx,
            ty,
            &axis_title(y_name).0,
            &[
                ("text-anchor", &"middle"),
                ("transform", &format!("rotate(-90 {tx} {})", Num(ty))),
                ("class", &"y-title"),
            ],
        );

        // Runs, binned per group.
        let bins: Vec<Vec<Bin>> = self.groups.iter().map(|g| bin(&g.points, sx, sy)).collect();
        let densest = bins.iter().flatten().map(|b| b.runs).max().unwrap_or(1);
        for ((i, g), cells) in self.groups.iter().enumerate().zip(&bins) {
            let color = PALETTE[i % PALETTE.len()];
            svg.open(
                "g",
                &[
                    ("class", &"series"),
                    ("data-group", &g.name),
                    ("data-runs", &g.points.len()),
                    ("fill", &color),
                ],
            );
            for &Bin { runs: n, x, y } in cells {
                let opacity =
                    0.3 + 0.7 * (n as f64).ln_1p() / (densest as f64).ln_1p().max(f64::MIN_POSITIVE);
                svg.titled(
                    "circle",
                    &[
                        ("class", &"bin"),
                        ("data-runs", &n),
                        ("cx", &Num(x)),
                        ("cy", &Num(y)),
                        ("r", &3.5),
                        ("fill-opacity", &Num(opacity)),
                    ],
                    &format!("{}: {n} run{}", g.name, if n == 1 { "" } else { "s" }),
                );
            }
            svg.close();
        }

        // Frontiers on top: a staircase, since between two frontier runs the
        // best y reachable stays that of the left one.
        for (i, g) in self.groups.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let mut path = String::new();
            for (k, (p, _)) in g.frontier.iter().enumerate() {
                let (px, py) = (sx.px(p.x), sy.px(p.y));
                if k == 0 {
                    path.push_str(&format!("M{} {}", Num(px), Num(py)));
                } else {
                    path.push_str(&format!("H{}V{}", Num(px), Num(py)));
                }
            }
            svg.open("g", &[("class", &"frontier"), ("data-group", &g.name)]);
            svg.leaf(
                "path",
                &[
                    ("d", &path),
                    ("fill", &"none"),
                    ("stroke", &color),
                    ("stroke-width", &2),
                ],
            );
            for (p, same) in &g.frontier {
                svg.titled(
                    "circle",
                    &[
                        ("class", &"frontier-point"),
                        ("data-row", &p.row),
                        ("cx", &Num(sx.px(p.x))),
                        ("cy", &Num(sy.px(p.y))),
                        ("r", &5),
                        ("fill", &"white"),
                        ("stroke", &color),
                        ("stroke-width", &2),
                    ],
                    &format!(
                        "{}: x={} y={} (run {}{})",
                        g.name,
                        tick_label(p.x),
                        tick_label(p.y),
                        self.run_label(p.row),
                        if *same > 1 {
                            format!(" and {} more alike", same - 1)
                        } else {
                            String::new()
                        }
                    ),
                );
            }
            svg.close();
        }

        self.legend(&mut svg, plot_right + 18.0, top);
        svg.finish()
    }

    /// The `run` cell of a row if the table has one, else its 0-based index.
    pub fn run_label(&self, row: usize) -> String {
        match self.table.columns.iter().position(|c| c == "run") {
            Some(c) => self.table.rows[row][c].clone(),
            None => row.to_string(),
        }
    }

    fn legend(&self, svg: &mut Svg, x: f64, top: f64) {
        svg.open("g", &[("class", &"legend")]);
        let heading = self.group.map_or("runs", |g| self.table.columns[g].as_str());
        svg.text(x, top + 10.0, heading, &[("font-weight", &"bold")]);
        let mut y = top + 30.0;
        for (i, g) in self.groups.iter().enumerate().take(LEGEND_MAX) {
            let color = PALETTE[i % PALETTE.len()];
            svg.leaf(
                "circle",
                &[
                    ("cx", &Num(x + 5.0)),
                    ("cy", &Num(y - 4.0)),
                    ("r", &5),
                    ("fill", &color),
                ],
            );
            svg.text(x + 16.0, y, &g.name, &[("class", &"legend-group")]);
            svg.text(
                x + 16.0,
                y + 14.0,
                &format!(
                    "{} run{}, {} on the frontier",
                    g.points.len(),
                    if g.points.len() == 1 { "" } else { "s" },
                    g.frontier.len()
                ),
                &[("fill", &"#555555"), ("font-size", &11)],
            );
            y += 34.0;
        }
        if self.groups.len() > LEGEND_MAX {
            svg.text(
                x,
                y,
                &format!("+{} more groups", self.groups.len() - LEGEND_MAX),
                &[],
            );
            y += 24.0;
        }
        y += 6.0;
        svg.leaf(
            "path",
            &[
                ("d", &format!("M{} {}h10v10h10", Num(x), Num(y - 12.0))),
                ("fill", &"none"),
                ("stroke", &"#333333"),
                ("stroke-width", &2),
            ],
        );
        svg.text(x + 28.0, y, "Pareto frontier", &[]);
        svg.text(
            x,
            y + 20.0,
            &format!("dot: runs in a {BIN}-px cell,"),
            &[("fill", &"#555555"), ("font-size", &11)],
        );
        svg.text(
            x,
            y + 34.0,
            "darker = more runs",
            &[("fill", &"#555555"), ("font-size", &11)],
        );
        svg.close();
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(csv: &str) -> Table {
        Table::read(csv.as_bytes(), "t.csv").unwrap()
    }

    #[test]
    fn frontier_keeps_runs_no_other_run_beats_on_both_axes() {
        let t = table(
            "run,layout.kind,ready_ms,exposed_total_ms\n\
             0,a,5000,4000\n1,a,6000,0\n2,a,5000,3000\n3,a,7000,0\n4,a,5000,3000\n5,a,4000,9000\n",
        );
        let plot = tradeoff(&t, &PlotSpec::default()).unwrap();
        let front: Vec<(usize, usize)> = plot.groups[0].frontier.iter().map(|(p, n)| (p.row, *n)).collect();
        // 5 (4 s, 9 s), 2 and its twin 4 (5 s, 3 s), 1 (6 s, 0 s); 0 and 3 are beaten.
        assert_eq!(front, [(5, 1), (2, 2), (1, 1)]);
    }

    #[test]
    fn layout_axis_is_the_first_kind_column_that_varies() {
        let t = table("run,a.kind,b.kind,x\n0,app,app,1\n1,app,sidecar,2\n");
        assert_eq!(layout_column(&t), Some(2));
        assert_eq!(layout_column(&table("run,x\n0,1\n")), None);
    }

    #[test]
    fn empty_cells_are_skipped_and_counted() {
        let t = table("run,ready_ms,exposed_total_ms\n0,,0\n1,5000,0\n");
        let plot = tradeoff(&t, &PlotSpec::default()).unwrap();
        assert_eq!((plot.runs(), plot.skipped), (1, 1));
        assert!(plot.svg().contains("1 without a value not drawn"));
    }

    #[test]
    fn millisecond_columns_are_drawn_in_seconds() {
        assert_eq!(
            axis_title("ready_ms"),
            ("time to Pod Ready (s) · ready_ms".to_string(), 1000.0)
        );
        assert_eq!(
            axis_title("containers.web.boot_ms"),
            (
                "containers.web.boot (s) · containers.web.boot_ms".to_string(),
                1000.0
            )
        );
        assert_eq!(axis_title("restarts").1, 1.0);
    }

    #[test]
    fn bins_bound_the_size_of_huge_plots() {
        let mut csv = String::from("run,ready_ms,exposed_total_ms\n");
        for i in 0..200_000u64 {
            csv.push_str(&format!("{i},{},{}\n", i % 997 * 10, i % 641 * 10));
        }
        let t = table(&csv);
        let svg = tradeoff(&t, &PlotSpec::default()).unwrap().svg();
        let dots = svg.matches("class=\"bin\"").count();
        assert!(dots < 60_000, "{dots} dots");
        assert!(svg.len() < 12_000_000, "{} bytes", svg.len());
    }
}

//! The trade-off plot (SVG): one sweep CSV column against another, one
//! colour and marker per group, and each group's Pareto frontier (the runs
//! no other run of the group beats on both axes) — or, with runs *paired*
//! (`pair`), one dot per
//! configuration run both ways: how much choosing one value of a column over
//! the other costs on x and saves on y.
//!
//! Defaults draw what the sweep exists for: `exposed_total_ms` against
//! `ready_ms`, grouped by the layout axis — the first column whose name ends in
//! `.kind` and that holds at least two values (`containers.proxy.kind`).
//! `PlotSpec::sweep()` pairs the runs by that axis instead, when it holds two
//! values: a scatter of both layouts shows where each lands, but the pairs
//! show what the choice does to one and the same Pod.
//!
//! Many points: runs are *binned*, not drawn one by one with alpha. Each group
//! puts its runs into cells of `BIN` × `BIN` pixels and draws one dot per
//! occupied cell, at the mean of its runs, darker the more runs it holds (log
//! scale). So a million runs cost one pass and at most one dot per cell per
//! group, the file stays small, and dense regions still read as dense —
//! where alpha over 100 000 dots would saturate to a flat blob and weigh
//! tens of megabytes. Groups that land on the same cells stay visible: each
//! has its own marker, filled or hollow (`draw`).
//!
//! Invariant: the frontier is computed from every run, not from the bins, and
//! no run strictly better on both axes than a frontier run exists in its group.
//!
//! A frontier of one run is the real frontier, not a fault: that run is at
//! least as low as every other on both axes. A sweep over conditions (boot
//! times, propagation delays) as well as choices gets one whenever its
//! best conditions win on both axes, as every bundled sweep does; the plot
//! then says so (`Tradeoff::best_on_both`) and the trade-off of a choice is
//! read from its pairs.
//!
//! A column's title, unit and the layout axis are `column`'s, shared with
//! the ECDF, the spread and the HTML report.

mod column;
mod draw;
pub mod ecdf;
mod pair;
pub mod spread;

use std::collections::BTreeMap;

use super::table::{Table, TableError};

pub use column::{axis_title, describe, layout_column, unit};

/// What to plot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotSpec {
    /// The column on the x axis (by default `ready_ms`).
    pub x: String,
    /// The column on the y axis (by default `exposed_total_ms`).
    pub y: String,
    /// How runs are split into coloured groups.
    pub group: GroupBy,
    /// Which column pairs runs into configurations, if any.
    pub pair: Option<PairBy>,
    /// The picture's width in pixels.
    pub width: u32,
    /// The picture's height in pixels.
    pub height: u32,
}

/// How runs are split into coloured groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    /// The layout axis: see `layout_column` (never the paired column).
    Layout,
    /// The values of this column.
    Column(String),
    /// One group of all runs.
    Nothing,
}

/// Which column pairs the runs: two runs that agree on every other
/// parameter are one configuration, run both ways.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairBy {
    /// The layout axis, if it holds exactly two values; else no pairing.
    Layout,
    /// A column and, optionally, its two values in the order to compare
    /// (the first is the one whose cost and saving are drawn); by default
    /// its two values in order of appearance.
    Column {
        /// The column's name.
        name: String,
        /// The two values in the order to compare, if given.
        values: Option<(String, String)>,
    },
}

impl Default for PlotSpec {
    fn default() -> Self {
        PlotSpec {
            x: "ready_ms".to_string(),
            y: "exposed_total_ms".to_string(),
            group: GroupBy::Layout,
            pair: None,
            width: 900,
            height: 560,
        }
    }
}

impl PlotSpec {
    /// What a sweep draws next to its CSV: the default columns, paired by
    /// the layout axis when it holds two values.
    pub fn sweep() -> Self {
        PlotSpec {
            group: GroupBy::Nothing,
            pair: Some(PairBy::Layout),
            ..PlotSpec::default()
        }
    }
}

/// The edge of a bin, in pixels.
pub const BIN: f64 = 3.0;

/// One run as plotted: values in display units (seconds for `_ms` columns);
/// when paired, one configuration's differences.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// The x value.
    pub x: f64,
    /// The y value.
    pub y: f64,
    /// Row index in the table (when paired, the first value's run).
    pub row: usize,
}

/// The runs of one group value.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The group's value (or a label for all runs).
    pub name: String,
    /// Every run of the group with values in x and y.
    pub points: Vec<Point>,
    /// Frontier runs by increasing x, each with the number of runs that share
    /// its exact (x, y) (the first of them in table order is the one kept).
    /// Empty when paired: a difference has no "lower is better".
    pub frontier: Vec<(Point, usize)>,
    /// With replications, each point's p10–p90 extent, by point; else empty.
    pub spreads: Vec<spread::Spread>,
}

/// Runs paired by `column`: `first` against `second`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paired {
    /// Index of the pairing column in the table.
    pub column: usize,
    /// The value whose runs are drawn as the cost.
    pub first: String,
    /// The value they are compared against.
    pub second: String,
}

/// A computed trade-off plot, ready to draw.
#[derive(Clone, Debug)]
pub struct Tradeoff<'t> {
    /// The table the points index into.
    pub table: &'t Table,
    /// Index of the x column.
    pub x: usize,
    /// Index of the y column.
    pub y: usize,
    /// Index of the grouping column, if any.
    pub group: Option<usize>,
    /// The pairing, if the runs are paired.
    pub pair: Option<Paired>,
    /// The groups in order of first appearance.
    pub groups: Vec<Group>,
    /// Runs with no value in x or y (an absent metric, like `ready_ms` of a
    /// Pod that never became Ready), or, when paired, without a partner:
    /// counted, not drawn.
    pub skipped: usize,
    width: u32,
    height: u32,
}

/// Reads the columns of `spec` from `table` and computes groups and frontiers.
pub fn tradeoff<'t>(table: &'t Table, spec: &PlotSpec) -> Result<Tradeoff<'t>, TableError> {
    let x = table.column(&spec.x)?;
    let y = table.column(&spec.y)?;
    let paired = match &spec.pair {
        None => None,
        Some(PairBy::Layout) => layout_column(table).and_then(|c| pair::values(table, c, None).ok()),
        Some(PairBy::Column { name, values }) => {
            Some(pair::values(table, table.column(name)?, values.as_ref())?)
        }
    };
    let group = match &spec.group {
        GroupBy::Layout if paired.is_some() => None,
        GroupBy::Layout => layout_column(table),
        GroupBy::Column(name) => Some(table.column(name)?),
        GroupBy::Nothing => None,
    };
    let mut plot = Tradeoff {
        table,
        x,
        y,
        group,
        pair: None,
        groups: Vec::new(),
        skipped: 0,
        width: spec.width,
        height: spec.height,
    };
    let Some(paired) = paired else {
        plot.collect_runs()?;
        return Ok(plot);
    };
    if group == Some(paired.column) {
        return Err(pair::group_is_pair(table, paired.column));
    }
    let (mut groups, skipped) = pair::points(table, &paired, x, y, group)?;
    spread::collapse(table, &mut groups);
    plot.groups = groups;
    plot.skipped = skipped;
    plot.pair = Some(paired);
    Ok(plot)
}

impl Tradeoff<'_> {
    /// One point per run with both values, grouped, and each group's frontier.
    fn collect_runs(&mut self) -> Result<(), TableError> {
        let (table, x, y) = (self.table, self.x, self.y);
        let (x_div, y_div) = (unit(&table.columns[x]).1, unit(&table.columns[y]).1);
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for row in 0..table.rows.len() {
            let (Some(vx), Some(vy)) = (table.number(row, x)?, table.number(row, y)?) else {
                self.skipped += 1;
                continue;
            };
            let point = Point {
                x: vx / x_div,
                y: vy / y_div,
                row,
            };
            add_point(
                &mut self.groups,
                &mut index,
                group_name(table, self.group, row, "all runs"),
                point,
            );
        }
        spread::collapse(table, &mut self.groups);
        for g in &mut self.groups {
            g.frontier = frontier(&g.points);
        }
        Ok(())
    }

    /// Runs drawn, over all groups.
    pub fn runs(&self) -> usize {
        self.groups.iter().map(|g| g.points.len()).sum()
    }

    /// What the points stand for, in words: `36 runs`, or, when each point
    /// is a configuration's replications (a sweep's CSV with a
    /// `replication` column, or a summary), `36 configurations × 50
    /// replications`, so a replicated sweep is not read as a handful of runs.
    /// Paired plots always draw configurations.
    pub fn drawn(&self) -> String {
        match self.replications() {
            Some(r) => format!("{} × {r} replications", self.points(self.runs())),
            None => self.points(self.runs()),
        }
    }

    /// `n` points in words: `n runs`, or `n configurations` when a point
    /// stands for several runs (replications, or a pair).
    pub fn points(&self, n: usize) -> String {
        let (one, many) = if self.replications().is_some() || self.pair.is_some() {
            ("configuration", "configurations")
        } else {
            ("run", "runs")
        };
        format!("{n} {}", if n == 1 { one } else { many })
    }

    /// Whether every group's frontier is a single point, lower than or
    /// equal to each of the group's others on both axes (so there is no
    /// staircase to draw, only that point), in a group of more than one.
    pub fn best_on_both(&self) -> bool {
        self.pair.is_none()
            && self
                .groups
                .iter()
                .any(|g| g.frontier.len() == 1 && g.points.len() > 1)
            && self.groups.iter().all(|g| g.frontier.len() == 1)
    }

    /// Replications per point, when a point stands for more than one.
    fn replications(&self) -> Option<u64> {
        self.table.replications_per_run().filter(|&r| r > 1)
    }

    /// The `run` cell of a row if the table has one, else its 0-based index.
    pub fn run_label(&self, row: usize) -> String {
        match self.table.columns.iter().position(|c| c == "run") {
            Some(c) => self.table.rows[row][c].clone(),
            None => row.to_string(),
        }
    }
}

/// The group a row belongs to: its cell in the group column, else `all`.
fn group_name<'t>(table: &'t Table, group: Option<usize>, row: usize, all: &'t str) -> &'t str {
    let name = group.map_or(all, |g| table.rows[row][g].as_str());
    if name.is_empty() { "(empty)" } else { name }
}

/// Adds `point` to the group `name`, creating it in order of appearance.
fn add_point<'t>(groups: &mut Vec<Group>, index: &mut BTreeMap<&'t str, usize>, name: &'t str, point: Point) {
    let slot = *index.entry(name).or_insert_with(|| {
        groups.push(Group {
            name: name.to_string(),
            points: Vec::new(),
            frontier: Vec::new(),
            spreads: Vec::new(),
        });
        groups.len() - 1
    });
    groups[slot].points.push(point);
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
    fn the_frontier_is_a_staircase_or_the_one_run_best_on_both_axes() {
        // Group a trades: (1 s, 5 s), (2 s, 3 s), (4 s, 1 s) each beat the
        // runs to their right on y; (3 s, 4 s) is beaten by (2 s, 3 s),
        // (5 s, 2 s) by (4 s, 1 s). Group b: (1 s, 0 s) is lowest on both.
        let t = table(
            "run,layout.kind,ready_ms,exposed_total_ms\n\
             0,a,1000,5000\n1,a,3000,4000\n2,a,2000,3000\n3,a,5000,2000\n4,a,4000,1000\n\
             5,b,2000,3000\n6,b,1000,0\n7,b,3000,1000\n",
        );
        let plot = tradeoff(&t, &PlotSpec::default()).unwrap();
        let rows = |g: &Group| g.frontier.iter().map(|(p, _)| p.row).collect::<Vec<_>>();
        assert_eq!(rows(&plot.groups[0]), [0, 2, 4]);
        assert_eq!(rows(&plot.groups[1]), [6]);
        assert!(!plot.best_on_both(), "group a has a staircase");
        // Its path: a move to the first run, then across and down to each next.
        let svg = plot.svg();
        let path = svg.split("class=\"frontier\" data-group=\"a\"").nth(1).unwrap();
        let d = &path[path.find(" d=\"").unwrap() + 4..];
        let d = &d[..d.find('"').unwrap()];
        assert_eq!(
            (
                d.matches('M').count(),
                d.matches('H').count(),
                d.matches('V').count()
            ),
            (1, 2, 2)
        );
        assert!(svg.contains("line: each group&#39;s Pareto frontier"));

        let b_only =
            table("run,layout.kind,ready_ms,exposed_total_ms\n5,b,2000,3000\n6,b,1000,0\n7,b,3000,1000\n");
        let plot = tradeoff(&b_only, &PlotSpec::default()).unwrap();
        assert!(plot.best_on_both());
        assert!(
            plot.svg()
                .contains("ring: each group&#39;s one frontier run, lowest on both axes")
        );
    }

    #[test]
    fn empty_cells_are_skipped_and_counted() {
        let t = table("run,ready_ms,exposed_total_ms\n0,,0\n1,5000,0\n");
        let plot = tradeoff(&t, &PlotSpec::default()).unwrap();
        assert_eq!((plot.runs(), plot.skipped), (1, 1));
        assert!(plot.svg().contains("1 without a value not drawn"));
    }

    #[test]
    fn a_replicated_sweep_says_configurations_times_replications() {
        // Two configurations of two replications: two points, four rows.
        let t = table(
            "run,replication,ready_ms,exposed_total_ms\n0,0,1000,0\n0,1,2000,0\n1,0,3000,0\n1,1,4000,0\n",
        );
        let plot = tradeoff(&t, &PlotSpec::default()).unwrap();
        assert_eq!(plot.drawn(), "2 configurations × 2 replications");
        assert!(plot.svg().contains("2 configurations × 2 replications of t.csv"));
        let one = table("run,ready_ms,exposed_total_ms\n0,1000,0\n");
        assert_eq!(tradeoff(&one, &PlotSpec::default()).unwrap().drawn(), "1 run");
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

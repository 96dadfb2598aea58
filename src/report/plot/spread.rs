//! A sweep with replications has many rows per combination: the trade-off
//! plot draws each combination once, at the median of its replications,
//! with whiskers from their 10th to their 90th percentile on each axis.
//! Paired plots pair replication by replication (the same draws, so the
//! difference is the choice's alone) and then summarise each configuration
//! the same way.
//!
//! Invariant: a point stands for every replication of its run (the `run`
//! cell of its row); percentiles are nearest rank, as in the summary.

use std::collections::BTreeMap;

use super::{Group, Point};
use crate::report::svg::{Num, Scale, Svg};
use crate::report::table::Table;

/// The p10–p90 extent of one combination's replications on each axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// p10 and p90 on the x axis.
    pub x: (f64, f64),
    /// p10 and p90 on the y axis.
    pub y: (f64, f64),
}

/// The nearest-rank quantile `p` (0–1) of sorted `values`.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank - 1]
}

/// Replaces each group's points by one per run, when the table has a
/// `replication` column: the medians, with the spread beside them.
pub fn collapse(table: &Table, groups: &mut [Group]) {
    let (Some(run), true) = (
        table.columns.iter().position(|c| c == "run"),
        table.columns.iter().any(|c| c == "replication"),
    ) else {
        return;
    };
    for g in groups {
        let mut by_run: BTreeMap<(usize, &str), Vec<Point>> = BTreeMap::new();
        let mut first_seen: BTreeMap<&str, usize> = BTreeMap::new();
        for p in &g.points {
            let cell = table.rows[p.row][run].as_str();
            let order = *first_seen.entry(cell).or_insert(p.row);
            by_run.entry((order, cell)).or_default().push(*p);
        }
        g.points.clear();
        g.spreads.clear();
        for points in by_run.into_values() {
            let mut xs: Vec<f64> = points.iter().map(|p| p.x).collect();
            let mut ys: Vec<f64> = points.iter().map(|p| p.y).collect();
            xs.sort_by(f64::total_cmp);
            ys.sort_by(f64::total_cmp);
            g.points.push(Point {
                x: quantile(&xs, 0.5),
                y: quantile(&ys, 0.5),
                row: points[0].row,
            });
            g.spreads.push(Spread {
                x: (quantile(&xs, 0.1), quantile(&xs, 0.9)),
                y: (quantile(&ys, 0.1), quantile(&ys, 0.9)),
            });
        }
    }
}

/// The whiskers of a group, under its dots: thin, pale lines in its colour.
pub fn draw(svg: &mut Svg, group: &Group, color: &str, sx: Scale, sy: Scale) {
    if group.spreads.is_empty() {
        return;
    }
    svg.open(
        "g",
        &[
            ("class", &"spread"),
            ("stroke", &color),
            ("stroke-opacity", &0.35),
        ],
    );
    for (p, s) in group.points.iter().zip(&group.spreads) {
        let (px, py) = (sx.px(p.x), sy.px(p.y));
        let mut d = String::new();
        if s.x.1 > s.x.0 {
            d.push_str(&format!(
                "M{} {}H{}",
                Num(sx.px(s.x.0)),
                Num(py),
                Num(sx.px(s.x.1))
            ));
        }
        if s.y.1 > s.y.0 {
            d.push_str(&format!(
                "M{} {}V{}",
                Num(px),
                Num(sy.px(s.y.0)),
                Num(sy.px(s.y.1))
            ));
        }
        if !d.is_empty() {
            svg.leaf("path", &[("d", &d)]);
        }
    }
    svg.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replications_collapse_to_medians_with_their_p10_p90() {
        let mut text = String::from("run,replication,ready_ms\n");
        for r in 0..10 {
            text.push_str(&format!("0,{r},{}\n1,{r},5\n", (r + 1) * 1000));
        }
        let table = Table::read(text.as_bytes(), "t.csv").unwrap();
        let points: Vec<Point> = (0..table.rows.len())
            .map(|row| Point {
                x: table.number(row, 2).unwrap().unwrap() / 1000.0,
                y: 0.0,
                row,
            })
            .collect();
        let mut groups = vec![Group {
            name: "all".into(),
            points,
            frontier: Vec::new(),
            spreads: Vec::new(),
        }];
        collapse(&table, &mut groups);
        // Run 0: 1..10 s; nearest rank: p50 the 5th, p10 the 1st, p90 the 9th.
        assert_eq!(groups[0].points.len(), 2);
        assert_eq!(groups[0].points[0].x, 5.0);
        assert_eq!(groups[0].spreads[0].x, (1.0, 9.0));
        assert_eq!(groups[0].spreads[1].x, (0.005, 0.005));
    }
}

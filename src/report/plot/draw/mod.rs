//! Drawing a computed trade-off plot as SVG: axes with ticks (whole numbers
//! for counts), binned runs with a marker per group, frontiers, legend.
//!
//! Groups that share cells stay visible: group 0 is filled circles, group 1
//! hollow rings drawn over it, then filled and hollow squares, diamonds and
//! triangles; frontier points of later groups are wider rings and their
//! staircases dashed, so frontiers that coincide show as concentric rings.
//!
//! Invariant: every dot, ring and line is at a position computed from the
//! data; nothing is nudged to avoid an overlap.
//!
//! The markers and the binning of runs are in `marks`.

mod marks;

use marks::{Bin, Marker, bin};

use super::{BIN, Tradeoff, axis_title, describe, unit};
use crate::report::svg::{Num, Scale, Svg, tick_label, tick_step, ticks_by_step};

/// Colour-blind-safe (Okabe–Ito), yellow last because it is faint on white.
pub(super) const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

/// Groups named in the legend; more are drawn but summarised as "+N more".
const LEGEND_MAX: usize = 14;

const MUTED: &str = "#555555";

/// `[lo, hi]` of the values, with 0 included and a margin so dots on the
/// edge stay whole.
fn domain(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = if hi > lo { (hi - lo) * 0.04 } else { 1.0 };
    (lo - pad, hi + pad)
}

/// Tick values for an axis: at most 8, whole numbers only when every value
/// is one (a count needs no 0.5 tick).
fn axis_ticks(lo: f64, hi: f64, whole: bool) -> Vec<f64> {
    let step = tick_step(lo, hi, 8);
    ticks_by_step(lo, hi, if whole { step.max(1.0) } else { step })
}

/// The texts around the plot.
struct Titles {
    title: String,
    subtitle: String,
    note: String,
    x: String,
    y: String,
}

impl Tradeoff<'_> {
    fn titles(&self) -> Titles {
        let mut titles = self.texts();
        if self.groups.iter().any(|g| !g.spreads.is_empty()) {
            titles.note.push_str("; median, p10–p90 whiskers");
        }
        titles
    }

    fn texts(&self) -> Titles {
        let columns = &self.table.columns;
        let (x_name, y_name) = (&columns[self.x], &columns[self.y]);
        let grouped = self.group.map_or("not grouped".to_string(), |g| {
            format!("grouped by {}", columns[g])
        });
        let Some(pair) = &self.pair else {
            let skipped = match self.skipped {
                0 => String::new(),
                n => format!("; {n} without a value not drawn"),
            };
            return Titles {
                title: format!("{} against {}", capitalised(describe(y_name)), describe(x_name)),
                subtitle: format!("{} of {}, {grouped}{skipped}", self.drawn(), self.table.origin),
                note: match self.best_on_both() {
                    true => "lower is better on both axes; ring: each group's one frontier run, lowest on both axes",
                    false => "lower is better on both axes; line: each group's Pareto frontier",
                }
                .to_string(),
                x: axis_title(x_name).0,
                y: axis_title(y_name).0,
            };
        };
        let (first, second) = (&pair.first, &pair.second);
        let skipped = match self.skipped {
            0 => String::new(),
            n => format!("; {n} runs without a partner or a value not drawn"),
        };
        let difference = |name: &str, change: &str| match unit(name).0 {
            Some(u) => format!("{} {change} by {first} ({u}) · Δ {name}", describe(name)),
            None => format!("{name} {change} by {first} · Δ {name}"),
        };
        Titles {
            title: format!(
                "{} instead of {second}, configuration by configuration: the cost and the saving",
                capitalised(first)
            ),
            subtitle: format!(
                "{} of {}, each run twice ({} = {first}, then {second}), {grouped}{skipped}",
                self.drawn(),
                self.table.origin,
                columns[pair.column]
            ),
            note: format!(
                "right: {first} adds {} · up: {first} removes {}",
                describe(x_name),
                describe(y_name)
            ),
            x: difference(x_name, "added"),
            y: difference(y_name, "removed"),
        }
    }

    /// Whether every plotted value on an axis is a whole number of its unit.
    fn whole(&self, values: impl Iterator<Item = f64>, column: usize) -> bool {
        let mut values = values.peekable();
        unit(&self.table.columns[column]).1 == 1.0
            && values.peek().is_some()
            && values.all(|v| v == v.trunc())
    }

    /// Draws the plot.
    pub fn svg(&self) -> String {
        let (width, height) = (self.width.max(400), self.height.max(300));
        let (left, right, top, bottom) = (78.0, 230.0, 62.0, 58.0);
        let points = || self.groups.iter().flat_map(|g| g.points.iter());
        let spreads = || self.groups.iter().flat_map(|g| g.spreads.iter());
        let (x_lo, x_hi) = domain(
            points()
                .map(|p| p.x)
                .chain(spreads().flat_map(|s| [s.x.0, s.x.1])),
        );
        let (y_lo, y_hi) = domain(
            points()
                .map(|p| p.y)
                .chain(spreads().flat_map(|s| [s.y.0, s.y.1])),
        );
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
        let titles = self.titles();
        let mut svg = Svg::new(width, height);

        svg.text(
            left,
            22.0,
            &titles.title,
            &[("font-size", &15), ("font-weight", &"bold"), ("class", &"title")],
        );
        svg.text(
            left,
            40.0,
            &titles.subtitle,
            &[("fill", &MUTED), ("class", &"subtitle")],
        );
        svg.text(left, 54.0, &titles.note, &[("fill", &MUTED), ("font-size", &11)]);

        // Grid, ticks and axis titles.
        for t in axis_ticks(x_lo, x_hi, self.whole(points().map(|p| p.x), self.x)) {
            let px = sx.px(t);
            svg.line((px, top), (px, plot_bottom), &[("stroke", &"#e6e6e6")]);
            svg.text(
                px,
                plot_bottom + 16.0,
                &tick_label(t),
                &[("text-anchor", &"middle"), ("class", &"x-tick")],
            );
        }
        for t in axis_ticks(y_lo, y_hi, self.whole(points().map(|p| p.y), self.y)) {
            let py = sy.px(t);
            svg.line((left, py), (plot_right, py), &[("stroke", &"#e6e6e6")]);
            svg.text(
                left - 6.0,
                py + 4.0,
                &tick_label(t),
                &[("text-anchor", &"end"), ("class", &"y-tick")],
            );
        }
        if self.pair.is_some() {
            // No difference: the two values do the same on that axis.
            let zero = [
                ("stroke", &"#999999" as &dyn std::fmt::Display),
                ("stroke-width", &1.5),
            ];
            svg.line((sx.px(0.0), top), (sx.px(0.0), plot_bottom), &zero);
            svg.line((left, sy.px(0.0)), (plot_right, sy.px(0.0)), &zero);
        }
        svg.frame((left, top), (plot_right, plot_bottom));
        svg.text(
            (left + plot_right) / 2.0,
            plot_bottom + 40.0,
            &titles.x,
            &[("text-anchor", &"middle"), ("class", &"x-title")],
        );
        let (ty, tx) = ((top + plot_bottom) / 2.0, 20.0);
        svg.text(
            tx,
            ty,
            &titles.y,
            &[
                ("text-anchor", &"middle"),
                ("transform", &format!("rotate(-90 {tx} {})", Num(ty))),
                ("class", &"y-title"),
            ],
        );

        // Runs, binned per group: filled markers first, hollow ones over them.
        let bins: Vec<Vec<Bin>> = self.groups.iter().map(|g| bin(&g.points, sx, sy)).collect();
        let densest = bins.iter().flatten().map(|b| b.runs).max().unwrap_or(1);
        let order = (0..self.groups.len()).filter(|&i| Marker::of(i).filled);
        let order = order.chain((0..self.groups.len()).filter(|&i| !Marker::of(i).filled));
        let what = if self.pair.is_some() {
            "configuration"
        } else {
            "run"
        };
        for (i, g) in self.groups.iter().enumerate() {
            super::spread::draw(&mut svg, g, Marker::of(i).color, sx, sy);
        }
        for i in order {
            let (g, marker) = (&self.groups[i], Marker::of(i));
            svg.open(
                "g",
                &[
                    ("class", &"series"),
                    ("data-group", &g.name),
                    ("data-runs", &g.points.len()),
                ],
            );
            for &Bin { runs: n, x, y } in &bins[i] {
                let opacity =
                    0.3 + 0.7 * (n as f64).ln_1p() / (densest as f64).ln_1p().max(f64::MIN_POSITIVE);
                let [a, b, c, d] = marker.paint(opacity);
                svg.titled(
                    "path",
                    &[
                        ("class", &"bin"),
                        ("data-runs", &n),
                        ("d", &marker.path(x, y)),
                        (a.0, &a.1),
                        (b.0, &b.1),
                        (c.0, &c.1),
                        (d.0, &d.1),
                    ],
                    &format!("{}: {n} {what}{}", g.name, if n == 1 { "" } else { "s" }),
                );
            }
            svg.close();
        }
        self.frontiers(&mut svg, sx, sy);
        self.legend(&mut svg, plot_right + 18.0, top);
        svg.finish()
    }

    /// Each group's frontier on top: a staircase, since between two frontier
    /// runs the best y reachable stays that of the left one.
    fn frontiers(&self, svg: &mut Svg, sx: Scale, sy: Scale) {
        for (i, g) in self
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.frontier.is_empty())
        {
            let color = Marker::of(i).color;
            let mut path = String::new();
            for (k, (p, _)) in g.frontier.iter().enumerate() {
                let (px, py) = (sx.px(p.x), sy.px(p.y));
                if k == 0 {
                    path.push_str(&format!("M{} {}", Num(px), Num(py)));
                } else {
                    path.push_str(&format!("H{}V{}", Num(px), Num(py)));
                }
            }
            let dash = if i == 0 { "none" } else { "6 4" };
            svg.open("g", &[("class", &"frontier"), ("data-group", &g.name)]);
            svg.leaf(
                "path",
                &[
                    ("d", &path),
                    ("fill", &"none"),
                    ("stroke", &color),
                    ("stroke-width", &2),
                    ("stroke-dasharray", &dash),
                ],
            );
            // Wider rings for later groups: a shared point shows every group.
            let radius = 5.0 + 3.0 * (i % 4) as f64;
            for (p, same) in &g.frontier {
                svg.titled(
                    "circle",
                    &[
                        ("class", &"frontier-point"),
                        ("data-row", &p.row),
                        ("cx", &Num(sx.px(p.x))),
                        ("cy", &Num(sy.px(p.y))),
                        ("r", &Num(radius)),
                        ("fill", &if i == 0 { "white" } else { "none" }),
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
    }

    fn legend(&self, svg: &mut Svg, x: f64, top: f64) {
        svg.open("g", &[("class", &"legend")]);
        let columns = &self.table.columns;
        let heading = match (self.group, &self.pair) {
            (Some(g), _) => columns[g].as_str(),
            (None, Some(_)) => "configurations",
            (None, None) => "runs",
        };
        svg.text(x, top + 10.0, heading, &[("font-weight", &"bold")]);
        let mut y = top + 30.0;
        for (i, g) in self.groups.iter().enumerate().take(LEGEND_MAX) {
            let marker = Marker::of(i);
            let [a, b, c, d] = marker.paint(1.0);
            svg.leaf(
                "path",
                &[
                    ("d", &marker.path(x + 5.0, y - 4.0)),
                    (a.0, &a.1),
                    (b.0, &b.1),
                    (c.0, &c.1),
                    (d.0, &d.1),
                ],
            );
            svg.text(x + 16.0, y, &g.name, &[("class", &"legend-group")]);
            let n = g.points.len();
            let counted = match &self.pair {
                Some(_) => self.points(n),
                None => format!("{}, {} on the frontier", self.points(n), g.frontier.len()),
            };
            svg.text(
                x + 16.0,
                y + 14.0,
                &counted,
                &[("fill", &MUTED), ("font-size", &11)],
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
        if self.pair.is_none() {
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
            y += 20.0;
        }
        let unit = if self.pair.is_some() {
            "configurations"
        } else {
            "runs"
        };
        svg.text(
            x,
            y,
            &format!("dot: {unit} in a {BIN}-px cell,"),
            &[("fill", &MUTED), ("font-size", &11)],
        );
        svg.text(
            x,
            y + 14.0,
            &format!("darker = more {unit}"),
            &[("fill", &MUTED), ("font-size", &11)],
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

    #[test]
    fn counts_get_whole_ticks() {
        // 0..3 would get 0.5 steps; a count has none between 0 and 1.
        assert_eq!(
            axis_ticks(-0.12, 3.12, false),
            [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
        );
        assert_eq!(axis_ticks(-0.12, 3.12, true), [0.0, 1.0, 2.0, 3.0]);
    }
}

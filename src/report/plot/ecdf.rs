//! The empirical CDF of one metric, one staircase per group: the picture an
//! SRE reads a p99 from (go up to 0.99, across to the curve, down to the
//! axis). Dashed lines mark 0.5, 0.9 and 0.99.
//!
//! Invariant: a staircase rises by 1/n at each run's value, so its height
//! at x is exactly the share of the group's runs at or below x; runs
//! without a value (a Pod never Ready) keep the curve below 1, and the
//! legend counts them.

use std::collections::BTreeMap;

use super::draw::PALETTE;
use super::{GroupBy, axis_title, describe, layout_column};
use crate::report::svg::{Num, Scale, Svg, tick_label, ticks};
use crate::report::table::{Table, TableError};

/// What to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EcdfSpec {
    /// The column whose distribution is drawn.
    pub metric: String,
    /// How runs are split into curves.
    pub group: GroupBy,
    /// Only the rows whose column holds this value.
    pub only: Option<(String, String)>,
    /// The picture's width in pixels.
    pub width: u32,
    /// The picture's height in pixels.
    pub height: u32,
}

/// One group's sorted values and its runs without a value.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// The group's value.
    pub name: String,
    /// The values, sorted, in display units.
    pub values: Vec<f64>,
    /// Rows of the group without a value (a Pod never Ready).
    pub missing: usize,
}

impl Curve {
    fn runs(&self) -> usize {
        self.values.len() + self.missing
    }

    /// The nearest-rank quantile `p` (0–1) over all runs, `None` when it
    /// falls among the runs without a value.
    pub fn quantile(&self, p: f64) -> Option<f64> {
        let rank = (p * self.runs() as f64).ceil().max(1.0) as usize;
        self.values.get(rank - 1).copied()
    }
}

/// The curves of `spec`, in order of first appearance of their group.
pub fn curves(table: &Table, spec: &EcdfSpec) -> Result<Vec<Curve>, TableError> {
    let metric = table.column(&spec.metric)?;
    let group = match &spec.group {
        GroupBy::Layout => layout_column(table),
        GroupBy::Column(name) => Some(table.column(name)?),
        GroupBy::Nothing => None,
    };
    let only = match &spec.only {
        Some((name, value)) => Some((table.column(name)?, value.as_str())),
        None => None,
    };
    let divisor = super::unit(&spec.metric).1;
    let mut curves: Vec<Curve> = Vec::new();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (row, cells) in table.rows.iter().enumerate() {
        if only.is_some_and(|(c, v)| cells[c] != v) {
            continue;
        }
        let name = group.map_or("all runs", |g| cells[g].as_str());
        let slot = *index.entry(name).or_insert_with(|| {
            curves.push(Curve {
                name: name.to_string(),
                values: Vec::new(),
                missing: 0,
            });
            curves.len() - 1
        });
        match table.number(row, metric)? {
            Some(v) => curves[slot].values.push(v / divisor),
            None => curves[slot].missing += 1,
        }
    }
    for c in &mut curves {
        c.values.sort_by(f64::total_cmp);
    }
    Ok(curves)
}

/// Draws the curves of `spec` as SVG.
pub fn svg(table: &Table, spec: &EcdfSpec) -> Result<String, TableError> {
    let curves = curves(table, spec)?;
    let (width, height) = (spec.width.max(400), spec.height.max(300));
    let (left, right, top, bottom) = (64.0, 250.0, 62.0, 58.0);
    let (plot_right, plot_bottom) = (width as f64 - right, height as f64 - bottom);
    let all = || curves.iter().flat_map(|c| c.values.iter().copied());
    let hi = all().fold(0.0f64, f64::max);
    let lo = all().fold(hi, f64::min).min(0.0);
    let hi = if hi > lo { hi + (hi - lo) * 0.02 } else { lo + 1.0 };
    let sx = Scale {
        lo,
        hi,
        from_px: left,
        to_px: plot_right,
    };
    let sy = Scale {
        lo: 0.0,
        hi: 1.0,
        from_px: plot_bottom,
        to_px: top,
    };
    let mut svg = Svg::new(width, height);
    let runs: usize = curves.iter().map(Curve::runs).sum();
    let filter = spec
        .only
        .as_ref()
        .map_or(String::new(), |(c, v)| format!(", only {c} = {v}"));
    svg.text(
        left,
        22.0,
        &format!("Empirical CDF of {}", describe(&spec.metric)),
        &[("font-size", &15), ("font-weight", &"bold"), ("class", &"title")],
    );
    svg.text(
        left,
        40.0,
        &format!("{runs} runs of {}{filter}", table.origin),
        &[("fill", &"#555555"), ("class", &"subtitle")],
    );
    svg.text(
        left,
        54.0,
        "height at x: the share of runs at or below x; dashed: p50, p90, p99",
        &[("fill", &"#555555"), ("font-size", &11)],
    );
    for t in ticks(lo, hi, 8) {
        let px = sx.px(t);
        svg.line((px, top), (px, plot_bottom), &[("stroke", &"#e6e6e6")]);
        svg.text(
            px,
            plot_bottom + 16.0,
            &tick_label(t),
            &[("text-anchor", &"middle")],
        );
    }
    for t in ticks(0.0, 1.0, 5) {
        let py = sy.px(t);
        svg.line((left, py), (plot_right, py), &[("stroke", &"#e6e6e6")]);
        svg.text(left - 6.0, py + 4.0, &tick_label(t), &[("text-anchor", &"end")]);
    }
    for (p, label) in [(0.5, "p50"), (0.9, "p90"), (0.99, "p99")] {
        let py = sy.px(p);
        svg.line(
            (left, py),
            (plot_right, py),
            &[("stroke", &"#999999"), ("stroke-dasharray", &"4 3")],
        );
        svg.text(
            plot_right - 4.0,
            py - 3.0,
            label,
            &[("text-anchor", &"end"), ("fill", &"#777777")],
        );
    }
    svg.frame((left, top), (plot_right, plot_bottom));
    svg.text(
        (left + plot_right) / 2.0,
        plot_bottom + 40.0,
        &axis_title(&spec.metric).0,
        &[("text-anchor", &"middle")],
    );
    let (ty, tx) = ((top + plot_bottom) / 2.0, 18.0);
    svg.text(
        tx,
        ty,
        "share of runs at or below",
        &[
            ("text-anchor", &"middle"),
            ("transform", &format!("rotate(-90 {tx} {})", Num(ty))),
        ],
    );
    for (i, curve) in curves.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let dash = if i % 2 == 1 { "6 3" } else { "none" };
        svg.open(
            "g",
            &[
                ("class", &"curve"),
                ("data-group", &curve.name),
                ("data-runs", &curve.runs()),
            ],
        );
        svg.leaf(
            "path",
            &[
                ("d", &staircase(curve, sx, sy)),
                ("fill", &"none"),
                ("stroke", &color),
                ("stroke-width", &2),
                ("stroke-dasharray", &dash),
            ],
        );
        svg.close();
        let ly = top + 14.0 + 34.0 * i as f64;
        let lx = plot_right + 16.0;
        svg.line(
            (lx, ly - 4.0),
            (lx + 22.0, ly - 4.0),
            &[
                ("stroke", &color),
                ("stroke-width", &2),
                ("stroke-dasharray", &dash),
            ],
        );
        svg.text(lx + 28.0, ly, &curve.name, &[("class", &"legend")]);
        let p = |q: f64| curve.quantile(q).map_or("never".to_string(), tick_label);
        let missing = match curve.missing {
            0 => String::new(),
            n => format!(", {n} without"),
        };
        svg.text(
            lx + 28.0,
            ly + 14.0,
            &format!(
                "p50 {} · p99 {} ({} runs{missing})",
                p(0.5),
                p(0.99),
                curve.runs()
            ),
            &[("fill", &"#555555"), ("font-size", &11)],
        );
    }
    Ok(svg.finish())
}

/// The curve's path: up by 1/n at each value, flat in between, one vertex
/// per pixel column at most (a million runs draw as a few hundred points).
fn staircase(curve: &Curve, sx: Scale, sy: Scale) -> String {
    let n = curve.runs().max(1) as f64;
    let mut d = format!("M{} {}", Num(sx.px(sx.lo)), Num(sy.px(0.0)));
    let mut last_px = f64::NEG_INFINITY;
    let values = &curve.values;
    let mut i = 0;
    while i < values.len() {
        let px = sx.px(values[i]);
        // Every value in this pixel column rises together.
        let mut j = i;
        while j < values.len() && sx.px(values[j]) - px < 1.0 {
            j += 1;
        }
        if px > last_px {
            d.push_str(&format!("H{}", Num(px)));
        }
        d.push_str(&format!("V{}", Num(sy.px(j as f64 / n))));
        last_px = px;
        i = j;
    }
    d.push_str(&format!("H{}", Num(sx.px(sx.hi))));
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        Table::read(text.as_bytes(), "t.csv").unwrap()
    }

    #[test]
    fn curves_hold_each_groups_sorted_values_and_count_the_missing() {
        let t = table("run,replication,k,ready_ms\n0,0,a,3000\n0,1,a,1000\n0,2,a,\n1,0,b,2000\n");
        let spec = EcdfSpec {
            metric: "ready_ms".into(),
            group: GroupBy::Column("k".into()),
            only: None,
            width: 900,
            height: 560,
        };
        let c = curves(&t, &spec).unwrap();
        assert_eq!(c[0].values, [1.0, 3.0]);
        assert_eq!((c[0].missing, c[1].name.as_str()), (1, "b"));
        // Three runs: p50 is the 2nd (3 s); p99 the 3rd, which never came.
        assert_eq!((c[0].quantile(0.5), c[0].quantile(0.99)), (Some(3.0), None));
        let only = EcdfSpec {
            only: Some(("k".into(), "b".into())),
            ..spec.clone()
        };
        assert_eq!(curves(&t, &only).unwrap().len(), 1);
        let doc = svg(&t, &spec).unwrap();
        assert!(doc.contains("data-group=\"a\" data-runs=\"3\""), "{doc}");
        assert!(doc.contains("p50 3 · p99 never (3 runs, 1 without)"), "{doc}");
    }

    #[test]
    fn the_staircase_rises_one_step_per_distinct_value() {
        let curve = Curve {
            name: "x".into(),
            values: vec![1.0, 2.0, 2.0, 4.0],
            missing: 0,
        };
        let sx = Scale {
            lo: 0.0,
            hi: 4.0,
            from_px: 0.0,
            to_px: 400.0,
        };
        let sy = Scale {
            lo: 0.0,
            hi: 1.0,
            from_px: 100.0,
            to_px: 0.0,
        };
        assert_eq!(staircase(&curve, sx, sy), "M0 100H100V75H200V25H400V0H400");
    }
}

//! The marks of the frontier picture and what frames them: the axes
//! (grid, ticks, titles), one mark pair per candidate (its p99 filled, its
//! mean hollow), and the legend that names every kind of mark drawn.
//!
//! Why apart from the layout (`super`): the layout decides where things
//! stand from the advice's figures; this decides how each kind of mark
//! looks, and the legend must name exactly the kinds drawn. A candidate
//! whose preStop was set on the Pod's proxy too (`Measured::proxy`) is a
//! diamond, one of the app's alone a dot: the two searches run the same
//! values, and their points must not read as one.

use super::{ADVISED, Cost, MEAN, MUTED, P99, Spot, describe};
use crate::advise::{Measured, Target};
use crate::report::svg::{Attr, Num, Scale, Svg, tick_label, tick_step, ticks_by_step};

/// Grid, ticks, frame and axis titles.
pub(super) fn axes(svg: &mut Svg, sx: Scale, sy: Scale, cost: Cost) {
    let (left, right, top, bottom) = (sx.from_px, sx.to_px, sy.to_px, sy.from_px);
    for t in ticks_by_step(sx.lo, sx.hi, tick_step(sx.lo, sx.hi, 8)) {
        let px = sx.px(t);
        svg.line(
            (px, top),
            (px, bottom),
            &[("stroke", &"#e6e6e6"), ("class", &"x-grid")],
        );
        let attrs = [
            ("text-anchor", &"middle" as &dyn std::fmt::Display),
            ("class", &"x-tick"),
        ];
        svg.text(px, bottom + 16.0, &tick_label(t), &attrs);
    }
    // Failed requests are counts, means aside: no tick below 1 apart.
    for t in ticks_by_step(sy.lo, sy.hi, tick_step(sy.lo, sy.hi, 8).max(1.0)) {
        let py = sy.px(t);
        svg.line(
            (left, py),
            (right, py),
            &[("stroke", &"#e6e6e6"), ("class", &"y-grid")],
        );
        let attrs = [
            ("text-anchor", &"end" as &dyn std::fmt::Display),
            ("class", &"y-tick"),
        ];
        svg.text(left - 6.0, py + 4.0, &tick_label(t), &attrs);
    }
    svg.frame((left, top), (right, bottom));
    svg.text(
        (left + right) / 2.0,
        bottom + 40.0,
        cost.title(),
        &[("text-anchor", &"middle"), ("class", &"x-title")],
    );
    let (tx, ty) = (20.0, (top + bottom) / 2.0);
    svg.text(
        tx,
        ty,
        "failed requests per run",
        &[
            ("text-anchor", &"middle"),
            ("transform", &format!("rotate(-90 {tx} {})", Num(ty))),
            ("class", &"y-title"),
        ],
    );
}

/// How a candidate's marks look: a dot where the app's preStop alone was
/// set, a diamond where the proxy's was set with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Dot,
    Diamond,
}

impl Shape {
    fn of(m: &Measured) -> Shape {
        match m.proxy {
            true => Shape::Diamond,
            false => Shape::Dot,
        }
    }

    /// A mark centred on `(x, y)`, of class `class` (none in the legend),
    /// painted by `paint`, with `title` as its tooltip if any.
    fn draw(
        self,
        svg: &mut Svg,
        class: Option<&str>,
        (x, y): (f64, f64),
        paint: &[Attr],
        title: Option<&str>,
    ) {
        let (cx, cy) = (Num(x), Num(y));
        // Half a diagonal of 5 px: about the area of a dot of radius 4.
        let d = format!(
            "M{} {}L{} {}L{} {}L{} {}Z",
            cx,
            Num(y - 5.0),
            Num(x + 5.0),
            cy,
            cx,
            Num(y + 5.0),
            Num(x - 5.0),
            cy
        );
        let (name, mut attrs): (&str, Vec<Attr>) = match self {
            Shape::Dot => ("circle", vec![("cx", &cx), ("cy", &cy), ("r", &4)]),
            Shape::Diamond => ("path", vec![("d", &d)]),
        };
        let class = class.map(|c| match self {
            Shape::Dot => c.to_string(),
            Shape::Diamond => format!("{c} proxy"),
        });
        if let Some(c) = &class {
            attrs.insert(0, ("class", c));
        }
        attrs.extend_from_slice(paint);
        match title {
            Some(t) => svg.titled(name, &attrs, t),
            None => svg.leaf(name, &attrs),
        }
    }
}

/// The p99's paint: filled.
const P99_PAINT: [Attr<'static>; 1] = [("fill", &P99)];
/// The mean's paint: hollow.
const MEAN_PAINT: [Attr<'static>; 3] = [("fill", &"none"), ("stroke", &MEAN), ("stroke-width", &1.6)];

/// One filled mark (p99) and one hollow (mean) per candidate, a dot or a
/// diamond (`Shape`), each with its tooltip naming the candidate; its
/// preStop written under its mark unless that would overlap a label
/// already written (about 6 px a character).
pub(super) fn candidates(svg: &mut Svg, spots: &[(&Measured, Spot)], sx: Scale, sy: Scale) {
    let mut written: Vec<(f64, f64, f64)> = Vec::new();
    svg.open("g", &[("class", &"candidates")]);
    for (m, s) in spots {
        let name = match m.proxy {
            true => format!("{}, on the proxy too", describe(&m.point)),
            false => describe(&m.point),
        };
        let tip = format!(
            "{name}: failed p99 {}, mean {}, cost {}s",
            tick_label(s.p99),
            tick_label(s.mean),
            tick_label(s.x)
        );
        let (x, y) = (sx.px(s.x), sy.px(s.p99));
        let shape = Shape::of(m);
        shape.draw(svg, Some("p99"), (x, y), &P99_PAINT, Some(&tip));
        shape.draw(svg, Some("mean"), (x, sy.px(s.mean)), &MEAN_PAINT, Some(&tip));
        let Some(pre_stop) = m.point.pre_stop else {
            continue;
        };
        let short = pre_stop.to_string();
        let (lx, ly, w) = (x + 6.0, y + 14.0, 6.0 * short.chars().count() as f64);
        let free = |&(wx, wy, ww): &(f64, f64, f64)| lx + w < wx || wx + ww < lx || (wy - ly).abs() > 12.0;
        if written.iter().all(free) {
            written.push((lx, ly, w));
            let attrs = [
                ("class", &"candidate-label" as &dyn std::fmt::Display),
                ("fill", &MUTED),
                ("font-size", &10),
            ];
            svg.text(lx, ly, &short, &attrs);
        }
    }
    svg.close();
}

/// The legend: the marks drawn, and, when the proxy's preStop was
/// searched (`proxy`: its container), the two shapes and what each set.
pub(super) fn legend(svg: &mut Svg, x: f64, top: f64, target: Target, proxy: Option<&str>) {
    svg.open("g", &[("class", &"legend")]);
    svg.text(x, top + 10.0, "candidates searched", &[("font-weight", &"bold")]);
    let mut y = top + 32.0;
    Shape::Dot.draw(svg, None, (x + 5.0, y - 4.0), &P99_PAINT, None);
    svg.text(x + 16.0, y, "failed p99 per run (nearest rank)", &[]);
    y += 20.0;
    Shape::Dot.draw(svg, None, (x + 5.0, y - 4.0), &MEAN_PAINT, None);
    svg.text(x + 16.0, y, "failed mean per run", &[]);
    y += 20.0;
    if let Some(proxy) = proxy {
        Shape::Dot.draw(svg, None, (x + 5.0, y - 4.0), &P99_PAINT, None);
        svg.text(
            x + 16.0,
            y,
            "dot: the app's preStop alone",
            &[("class", &"legend-app")],
        );
        y += 20.0;
        Shape::Diamond.draw(svg, None, (x + 5.0, y - 4.0), &P99_PAINT, None);
        let both = format!("diamond: {proxy}'s too");
        svg.text(x + 16.0, y, &both, &[("class", &"legend-proxy")]);
        y += 20.0;
    }
    svg.text(
        x + 16.0,
        y,
        "label: its preStop sleep",
        &[("fill", &MUTED), ("font-size", &11)],
    );
    y += 26.0;
    svg.leaf(
        "rect",
        &[
            ("x", &Num(x)),
            ("y", &Num(y - 10.0)),
            ("width", &10),
            ("height", &10),
            ("fill", &"none"),
            ("stroke", &"#000000"),
            ("stroke-width", &2),
        ],
    );
    svg.text(x + 16.0, y, &format!("today ({})", target.name()), &[]);
    y += 20.0;
    svg.leaf(
        "circle",
        &[
            ("cx", &Num(x + 5.0)),
            ("cy", &Num(y - 4.0)),
            ("r", &6),
            ("fill", &"none"),
            ("stroke", &ADVISED),
            ("stroke-width", &3),
        ],
    );
    svg.text(x + 16.0, y, &format!("advised ({})", target.name()), &[]);
    y += 20.0;
    svg.line(
        (x, y - 4.0),
        (x + 12.0, y - 4.0),
        &[
            ("stroke", &ADVISED),
            ("stroke-width", &1.5),
            ("stroke-dasharray", &"6 4"),
        ],
    );
    svg.text(
        x + 16.0,
        y,
        &format!("target: {} ≤ {}", target.name(), tick_label(target.bound())),
        &[],
    );
    svg.close();
}

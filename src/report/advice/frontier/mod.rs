//! The frontier picture of an advice (`podsim advise --svg`): failed
//! requests per run against what they cost, one dot per candidate the
//! search ran, today's point and the advised one marked.
//!
//! Why only the searched points: the search runs a handful of candidates,
//! not a grid, and the picture must not suggest more. Nothing is drawn
//! between the dots (no line, no curve fitted), and the subtitle says how
//! many candidates there were and that nothing between them was measured.
//! The points are those of the search's replications (0 to R − 1), the
//! ones today's and the advised figures come from, so every dot is
//! comparable with every other; the fresh check's are counted, not drawn,
//! and so are the rollout strategies the screening dropped on fewer.
//!
//! The cost axis is what a person waits for: a drain's duration when the
//! scenario drains a node, else a rollout's, else the deleted Pod's
//! termination (deletion → last exit, mean per run), the cost column of
//! the table.
//!
//! Invariant: every mark stands at a position computed from a sample's
//! figures (the advised ring at `Advice::advised`'s, today's square at
//! `Advice::today`'s); nothing is nudged, only labels that would overlap
//! are left to the tooltip.

mod marks;

use marks::{axes, candidates, legend};

use crate::advise::{Advice, Measured, Point, Run, Sample, Target};
use crate::report::svg::{Num, Scale, Svg, tick_label};

/// The picture's size in pixels.
const WIDTH: u32 = 900;
const HEIGHT: u32 = 520;

const MUTED: &str = "#555555";
/// Okabe–Ito blue, vermilion and green, as the trade-off plot's.
const P99: &str = "#0072B2";
const MEAN: &str = "#D55E00";
const ADVISED: &str = "#009E73";

/// What the x axis measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cost {
    Drain,
    Rollout,
    Termination,
}

impl Cost {
    /// The first of drain, rollout, termination that today's runs have.
    fn of(today: &Sample) -> Cost {
        [Cost::Drain, Cost::Rollout, Cost::Termination]
            .into_iter()
            .find(|c| today.mean(c.figure()).is_some())
            .unwrap_or(Cost::Termination)
    }

    fn figure(self) -> fn(&Run) -> Option<u64> {
        match self {
            Cost::Drain => |r| r.drain_ms,
            Cost::Rollout => |r| r.rollout_done_ms,
            Cost::Termination => |r| r.termination_ms,
        }
    }

    fn title(self) -> &'static str {
        match self {
            Cost::Drain => "drain: its start → the node's last Pod gone (s, mean per run)",
            Cost::Rollout => "rollout: its start → the last old Pod gone (s, mean per run)",
            Cost::Termination => "termination of the deleted Pod: deletion → last exit (s, mean per run)",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Cost::Drain => "the drain's time",
            Cost::Rollout => "the rollout's time",
            Cost::Termination => "the deleted Pod's termination time",
        }
    }
}

/// Where one sample stands: cost in seconds, failed p99 and mean per run.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spot {
    x: f64,
    p99: f64,
    mean: f64,
}

impl Spot {
    fn of(sample: &Sample, cost: Cost) -> Option<Spot> {
        Some(Spot {
            x: sample.mean(cost.figure())? / 1000.0,
            p99: sample.failed_percentile(99) as f64,
            mean: sample.failed_mean(),
        })
    }

    /// The target's metric: where the advised ring and the target line are.
    fn metric(self, target: Target) -> f64 {
        match target {
            Target::FailedP99(_) => self.p99,
            Target::FailedMean(_) => self.mean,
        }
    }
}

/// A candidate as a person names it.
fn describe(point: &Point) -> String {
    let parts: Vec<String> = [("preStop", point.pre_stop), ("grace", point.grace)]
        .iter()
        .filter_map(|(name, value)| value.map(|v| format!("{name} {v}")))
        .collect();
    match parts.is_empty() {
        true => "today's settings".into(),
        false => parts.join(", "),
    }
}

/// `[0, hi]` with a margin, so marks on the edge stay whole.
fn domain(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let hi = values.fold(0.0f64, f64::max);
    let pad = if hi > 0.0 { hi * 0.06 } else { 1.0 };
    (-pad, hi + pad)
}

/// The frontier picture of `advice` for the scenario `name`.
pub fn frontier_svg(name: &str, advice: &Advice) -> String {
    let target = advice.request.target;
    let r = advice.request.replications;
    let cost = Cost::of(&advice.today);
    // A strategy dropped at the screening ran on fewer replications: not
    // comparable, so counted with the fresh checks, not drawn.
    let searched: Vec<&Measured> = (advice.measured.iter())
        .filter(|m| m.sample.replications == (0..r))
        .collect();
    let screened = (advice.measured.iter())
        .filter(|m| m.sample.replications.start == 0 && m.sample.replications.end < r)
        .count();
    let fresh = advice.measured.len() - searched.len() - screened;
    let spots: Vec<(&Measured, Spot)> = (searched.iter())
        .filter_map(|m| Some((*m, Spot::of(&m.sample, cost)?)))
        .collect();
    let (today, advised) = (Spot::of(&advice.today, cost), Spot::of(&advice.advised, cost));

    let (left, right, top, bottom) = (70.0, 250.0, 74.0, 58.0);
    let (plot_right, plot_bottom) = (WIDTH as f64 - right, HEIGHT as f64 - bottom);
    let (x_lo, x_hi) = domain(spots.iter().map(|(_, s)| s.x));
    let (y_lo, y_hi) = domain(
        (spots.iter())
            .flat_map(|(_, s)| [s.p99, s.mean])
            .chain([target.bound()]),
    );
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
    let mut svg = Svg::new(WIDTH, HEIGHT);
    svg.text(
        left,
        22.0,
        &format!("{name}: failed requests against {}", cost.name()),
        &[("font-size", &15), ("font-weight", &"bold"), ("class", &"title")],
    );
    svg.text(
        left,
        40.0,
        &format!(
            "the {} candidates the search ran, each on the same {r} replications{}",
            spots.len(),
            match (fresh, screened) {
                (0, 0) => String::new(),
                (n, 0) => format!(" ({n} checks on fresh replications not drawn)"),
                (n, s) =>
                    format!(" ({s} strategies dropped at the screening and {n} fresh checks not drawn)"),
            }
        ),
        &[("fill", &MUTED), ("class", &"subtitle")],
    );
    svg.text(
        left,
        56.0,
        &format!(
            "not a sweep: nothing between them was measured · lower is better on both axes · dashed: the target, \
             {} ≤ {}",
            target.name(),
            tick_label(target.bound())
        ),
        &[("fill", &MUTED), ("font-size", &11)],
    );
    axes(&mut svg, sx, sy, cost);
    let bound = sy.px(target.bound());
    svg.line(
        (left, bound),
        (plot_right, bound),
        &[
            ("class", &"target"),
            ("stroke", &ADVISED),
            ("stroke-width", &1.5),
            ("stroke-dasharray", &"6 4"),
        ],
    );
    candidates(&mut svg, &spots, sx, sy);
    if let Some(t) = today {
        let (x, y) = (sx.px(t.x), sy.px(t.metric(target)));
        svg.titled(
            "rect",
            &[
                ("class", &"today"),
                ("x", &Num(x - 7.0)),
                ("y", &Num(y - 7.0)),
                ("width", &14),
                ("height", &14),
                ("fill", &"none"),
                ("stroke", &"#000000"),
                ("stroke-width", &2),
            ],
            &format!("today: {} {}", target.name(), tick_label(t.metric(target))),
        );
        svg.text(x + 10.0, y - 10.0, "today", &[("class", &"today-label")]);
    }
    if let Some(a) = advised {
        let (x, y) = (sx.px(a.x), sy.px(a.metric(target)));
        let label = format!("advised: {}", advised_settings(advice));
        svg.titled(
            "circle",
            &[
                ("class", &"advised"),
                ("cx", &Num(x)),
                ("cy", &Num(y)),
                ("r", &10),
                ("fill", &"none"),
                ("stroke", &ADVISED),
                ("stroke-width", &3),
            ],
            &format!(
                "{label}: {} {}, {}s",
                target.name(),
                tick_label(a.metric(target)),
                tick_label(a.x)
            ),
        );
        // The strategy, when advised too, on a line of its own: one line
        // of every setting would run past the plot's frame.
        let lines = advised_lines(advice);
        let above = 14.0 * lines.len() as f64;
        for (i, line) in lines.iter().enumerate() {
            let text = match i {
                0 => format!("advised: {line}"),
                _ => line.clone(),
            };
            svg.text(
                x + 14.0,
                y - above + 14.0 * i as f64,
                &text,
                &[
                    ("class", &"advised-label"),
                    ("fill", &ADVISED),
                    ("font-weight", &"bold"),
                ],
            );
        }
    }
    let proxy = (advice.pre_stop.proxy.as_ref()).map(|p| p.container.as_str());
    legend(&mut svg, plot_right + 18.0, top, target, proxy);
    svg.finish()
}

/// The advised values, as the table names them: one line for what ends a
/// Pod (preStop, grace), one for the rollout strategy.
fn advised_lines(advice: &Advice) -> Vec<String> {
    let mut ending = Vec::new();
    if let Some(p) = advice.pre_stop.advised {
        ending.push(format!("preStop {p}"));
    }
    if let Some(g) = advice.grace.advised {
        ending.push(format!("grace {g}"));
    }
    let strategy = (advice.rollout.as_ref().and_then(|r| r.advised)).map(|r| {
        format!(
            "maxSurge {}, maxUnavailable {}, minReadySeconds {}",
            r.max_surge, r.max_unavailable, r.min_ready
        )
    });
    let mut lines: Vec<String> = (!ending.is_empty())
        .then(|| ending.join(", "))
        .into_iter()
        .collect();
    lines.extend(strategy);
    if lines.is_empty() {
        lines.push("nothing safe in range".into());
    }
    lines
}

/// The advised values on one line, for the mark's tooltip.
fn advised_settings(advice: &Advice) -> String {
    advised_lines(advice).join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(rollout: Option<u64>, drain: Option<u64>) -> Sample {
        let run = Run {
            failed: 0,
            failed_by: [0; 7],
            sigkilled: 0,
            termination_ms: Some(1000),
            rollout_done_ms: rollout,
            drain_ms: drain,
            min_ready: None,
            peak_pods: None,
            counted_pods: None,
        };
        Sample {
            replications: 0..1,
            runs: vec![run],
        }
    }

    /// What a person waits for: a drain over a rollout over one Pod's end.
    #[test]
    fn the_cost_axis_is_the_drain_then_the_rollout_then_the_termination() {
        assert_eq!(Cost::of(&sample(Some(5000), Some(9000))), Cost::Drain);
        assert_eq!(Cost::of(&sample(Some(5000), None)), Cost::Rollout);
        assert_eq!(Cost::of(&sample(None, None)), Cost::Termination);
        let spot = Spot::of(&sample(Some(5000), None), Cost::Rollout).unwrap();
        assert_eq!((spot.x, spot.p99, spot.mean), (5.0, 0.0, 0.0));
    }
}

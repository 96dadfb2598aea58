//! The rollout as one picture, `kubectl rollout status`'s story: over
//! time, the old and the new ReplicaSet's Pods stacked by state, the
//! slice's ready endpoints as a step line over them, each failed request
//! a mark on the time axis in its cause's colour, and the rollout's start,
//! "new ReplicaSet available" (`rollout_ms`) and "last old Pod gone"
//! (`rollout_done_ms`) drawn across. A drain's picture has the same stack,
//! with the drain's instants and its refused evictions instead (`drain`).
//!
//! The states (`stack`) are what the API and the slice show, not the
//! kubelet's detail (the bands below show that). Ready lies at the bottom,
//! so the top of the Ready layers is the Service's capacity and the ready
//! line runs along it; what stands above is the rollout's overhead.
//!
//! Invariant: the stack is folded from the run's history (`PodFact`s)
//! alone, one step per instant at which a count changed; its Ready layers
//! add up to the ready-endpoints line wherever both are drawn.

use super::drain;
use super::picture::MAX_MARKS;
use super::stack::{PodState, Step, steps};
use super::strip::Outcome;
use crate::engine::SimTime;
use crate::model::service::{FailedRequest, ReplicaSet, ServiceReport};
use crate::report::bands::{MUTED, TimeAxis, swatch, text_width};
use crate::report::svg::{Num, Svg, tick_label, ticks};

/// A state's colour in ReplicaSet `rs`: the old one in blues, the new in
/// greens; not ready in amber and terminating in grey for both, lighter
/// for the new.
fn color(state: PodState, rs: ReplicaSet) -> &'static str {
    match (state, rs) {
        (PodState::Ready, ReplicaSet::Old) => "#3a6ea5",
        (PodState::Starting, ReplicaSet::Old) => "#a9c4e4",
        (PodState::NotReady, ReplicaSet::Old) => "#e0a030",
        (PodState::Terminating, ReplicaSet::Old) => "#8d8d8d",
        (PodState::Ready, ReplicaSet::New) => "#2e8b57",
        (PodState::Starting, ReplicaSet::New) => "#a8dcb9",
        (PodState::NotReady, ReplicaSet::New) => "#f2cf8a",
        (PodState::Terminating, ReplicaSet::New) => "#c4c4c4",
    }
}

/// The stack's height in pixels, Pods 0 at its bottom.
const CHART: f64 = 150.0;
const TITLE_ROW: f64 = 24.0;
/// Room above the chart for the marks' labels.
const MARK_LABELS: f64 = 28.0;
/// The lane of failed-request marks under the chart.
const FAILED_LANE: f64 = 16.0;
/// One row of the section's legend; it has three.
const LEGEND_ROW: f64 = 18.0;
const READY_LINE: &str = "#111111";
const MARK: &str = "#6a1b9a";

/// The section's height: a drain's has the lane of its refused evictions.
pub(super) fn height(report: &ServiceReport) -> f64 {
    let lanes = FAILED_LANE + report.metrics.drain.map_or(0.0, |_| 4.0 + drain::LANE);
    TITLE_ROW + MARK_LABELS + CHART + 6.0 + lanes + 16.0 + 3.0 * LEGEND_ROW + 8.0
}

/// One of the rollout's or a drain's instants drawn across the chart.
pub(super) struct Mark {
    pub(super) kind: &'static str,
    pub(super) at: SimTime,
    pub(super) label: String,
    /// The label's row above the chart, 0 the upper: an end is often
    /// close to what came before it, so its label sits a row lower.
    pub(super) row: u32,
}

/// The rollout's start, "new ReplicaSet available" and "last old Pod gone",
/// those that happened.
fn marks(report: &ServiceReport) -> Vec<Mark> {
    let Some(r) = report.metrics.rollout else {
        return Vec::new();
    };
    let Some(start) = r.started_ms else {
        return Vec::new();
    };
    let mut marks = vec![Mark {
        kind: "start",
        at: SimTime(start),
        label: "rollout starts".to_string(),
        row: 0,
    }];
    let later = |ms: Option<u64>, kind, what: &str, row| {
        ms.map(|ms| Mark {
            kind,
            at: SimTime(start + ms),
            label: format!("{what} +{}", crate::engine::SimDuration(ms)),
            row,
        })
    };
    marks.extend(later(r.rollout_ms, "available", "new RS available", 1));
    marks.extend(later(r.rollout_done_ms, "done", "last old Pod gone", 0));
    marks
}

/// Draws the section from `top` on `axis`: title, stack, ready line,
/// marks, the failed requests' lane and the legend.
pub(super) fn draw(svg: &mut Svg, report: &ServiceReport, top: f64, axis: &TimeAxis) {
    let steps = steps(report.trace.entries());
    let end = SimTime(report.metrics.end_ms);
    let most = steps.iter().map(Step::total).max().unwrap_or(0).max(1);
    let chart_top = top + TITLE_ROW + MARK_LABELS;
    let base = chart_top + CHART;
    // The failed requests' lane under the chart, then a drain's refusals.
    let refused_top = base + 6.0 + FAILED_LANE + 4.0;
    let lanes_end = match report.metrics.drain {
        Some(_) => refused_top + drain::LANE,
        None => base + 6.0 + FAILED_LANE,
    };
    let y = |pods: f64| base - pods / f64::from(most) * CHART;
    // Crisp edges: two steps of one colour side by side show no seam.
    svg.open(
        "g",
        &[
            ("class", &"rollout"),
            ("data-most", &most),
            ("shape-rendering", &"crispEdges"),
        ],
    );
    svg.text(
        10.0,
        top + 16.0,
        "Pods by ReplicaSet and state",
        &[("font-weight", &"bold")],
    );
    let figures = match (&report.metrics.rollout, &report.metrics.drain) {
        (Some(r), _) => {
            let took =
                |ms: Option<u64>| ms.map_or("not within the run".to_string(), |ms| SimTime(ms).to_string());
            Some(format!(
                "new ReplicaSet available after {} · last old Pod gone after {} · at most {} Pods ({} counted)",
                took(r.rollout_ms),
                took(r.rollout_done_ms),
                r.peak_pods,
                r.peak_counted_pods
            ))
        }
        (None, Some(d)) => Some(drain::summary(d)),
        (None, None) => None,
    };
    if let Some(line) = figures {
        svg.text(
            axis.right_px,
            top + 16.0,
            &line,
            &[("text-anchor", &"end"), ("fill", &MUTED)],
        );
    }
    // Pods are whole: no tick between two counts.
    for t in ticks(0.0, f64::from(most), 6)
        .into_iter()
        .filter(|t| t.fract() == 0.0)
    {
        svg.line(
            (axis.left_px, y(t)),
            (axis.right_px, y(t)),
            &[("stroke", &"#e4e4e4")],
        );
        svg.text(
            axis.left_px - 6.0,
            y(t) + 4.0,
            &tick_label(t),
            &[("text-anchor", &"end"), ("class", &"pods-tick")],
        );
    }
    svg.text(10.0, chart_top + CHART / 2.0, "Pod objects", &[("fill", &MUTED)]);
    for (i, step) in steps.iter().enumerate() {
        let to = steps.get(i + 1).map_or(end, |n| n.at).max(step.at);
        draw_column(svg, step, to, axis, &y);
    }
    draw_ready_line(svg, &report.trace.ready_endpoints(), end, axis, &y);
    for m in marks(report).into_iter().chain(drain::marks(report)) {
        let x = axis.x(m.at);
        svg.open(
            "g",
            &[
                ("class", &"rollout-mark"),
                ("data-kind", &m.kind),
                ("data-at", &m.at.as_millis()),
            ],
        );
        svg.title(&format!("{} at {}", m.label, m.at));
        svg.line(
            (x, chart_top - 4.0),
            (x, lanes_end),
            &[
                ("stroke", &MARK),
                ("stroke-width", &1.5),
                ("stroke-dasharray", &"4 3"),
            ],
        );
        svg.close();
        let row = f64::from(m.row);
        let fits = x + 4.0 + text_width(&m.label) * 11.0 / 12.0 <= axis.right_px;
        let anchor = if fits { "start" } else { "end" };
        let dx = if anchor == "end" { -4.0 } else { 4.0 };
        svg.text(
            x + dx,
            chart_top - 18.0 + 13.0 * row,
            &m.label,
            &[("fill", &MARK), ("font-size", &11), ("text-anchor", &anchor)],
        );
    }
    draw_failed(svg, report, base + 6.0, axis);
    if report.metrics.drain.is_some() {
        drain::draw_refused(svg, report, refused_top, axis);
    }
    svg.close();
    draw_legend(svg, lanes_end + 16.0, report);
}

/// One step's column: a rect per ReplicaSet and state it has Pods of.
fn draw_column(svg: &mut Svg, step: &Step, to: SimTime, axis: &TimeAxis, y: &dyn Fn(f64) -> f64) {
    let (x0, x1) = (axis.x(step.at), axis.x(to));
    let mut below = 0u32;
    for state in PodState::ALL {
        for rs in [ReplicaSet::Old, ReplicaSet::New] {
            let n = step.pods[rs as usize][state as usize];
            if n == 0 {
                continue;
            }
            let rs_name = match rs {
                ReplicaSet::Old => "old",
                ReplicaSet::New => "new",
            };
            let (lo, hi) = (y(f64::from(below)), y(f64::from(below + n)));
            svg.titled(
                "rect",
                &[
                    ("class", &"pods"),
                    ("data-rs", &rs_name),
                    ("data-state", &state.name()),
                    ("data-count", &n),
                    ("data-from", &step.at.as_millis()),
                    ("data-to", &to.as_millis()),
                    ("x", &Num(x0)),
                    ("y", &Num(hi)),
                    ("width", &Num(x1 - x0)),
                    ("height", &Num(lo - hi)),
                    ("fill", &color(state, rs)),
                ],
                &format!(
                    "{}–{}: {n} {} Pod(s) of the {rs_name} ReplicaSet",
                    step.at,
                    to,
                    state.name()
                ),
            );
            below += n;
        }
    }
}

/// The slice's ready endpoints from the traffic's start, as a step line:
/// the count after everything at each instant, as the stack counts (a Pod
/// Ready and the old one it replaces deleted in one millisecond is no spike).
fn draw_ready_line(
    svg: &mut Svg,
    history: &[(SimTime, u32)],
    end: SimTime,
    axis: &TimeAxis,
    y: &dyn Fn(f64) -> f64,
) {
    let mut levels: Vec<(SimTime, u32)> = Vec::new();
    for &(at, n) in history {
        match levels.last_mut() {
            Some(last) if last.0 == at => last.1 = n,
            _ => levels.push((at, n)),
        }
    }
    levels.dedup_by(|next, prev| next.1 == prev.1);
    let Some(&(first, n)) = levels.first() else {
        return;
    };
    let mut d = format!("M{} {}", Num(axis.x(first)), Num(y(f64::from(n))));
    for &(at, n) in &levels[1..] {
        d.push_str(&format!("H{}V{}", Num(axis.x(at)), Num(y(f64::from(n)))));
    }
    d.push_str(&format!("H{}", Num(axis.x(end))));
    let least = levels.iter().map(|h| h.1).min().unwrap_or(0);
    svg.titled(
        "path",
        &[
            ("class", &"ready-endpoints"),
            ("data-least", &least),
            ("d", &d),
            ("fill", &"none"),
            ("stroke", &READY_LINE),
            ("stroke-width", &2),
        ],
        &format!("ready endpoints while traffic ran (fewest {least})"),
    );
}

/// Each failed request a tick at its send instant, in its cause's colour;
/// above `MAX_MARKS` failures, one tick per pixel column and cause (a
/// pixel shows no more, and the picture stays small), its count in its
/// tooltip.
fn draw_failed(svg: &mut Svg, report: &ServiceReport, top: f64, axis: &TimeAxis) {
    let failed = report.trace.failed_count();
    svg.text(
        axis.left_px - 6.0,
        top + 12.0,
        &format!("failed requests {failed}"),
        &[("text-anchor", &"end"), ("fill", &MUTED)],
    );
    let binned = failed > MAX_MARKS as u64;
    svg.open("g", &[("class", &"failed-marks"), ("data-binned", &binned)]);
    // Binned: (pixel column, cause) → the first failure there and how many.
    let mut ticks: Vec<((i64, usize), FailedRequest, u64)> = Vec::new();
    for span in report.trace.failure_spans() {
        span.each(|f, n| {
            let key = (axis.x(f.sent).floor() as i64, f.cause as usize);
            let same = match binned {
                true => ticks.iter_mut().rev().find(|t| t.0 == key),
                false => None,
            };
            match same {
                Some(t) => t.2 += n,
                None => ticks.push((key, f, n)),
            }
        });
    }
    for (_, f, count) in ticks {
        let x = axis.x(f.sent);
        let title = match count {
            1 => format!("sent {}, {} at {}", f.sent, f.cause.name(), f.at),
            n => format!("{n} {} from {}", f.cause.name(), f.sent),
        };
        svg.titled(
            "rect",
            &[
                ("class", &"failed"),
                ("data-cause", &f.cause.name()),
                ("data-at", &f.sent.as_millis()),
                ("data-count", &count),
                ("x", &Num(x - 1.0)),
                ("y", &Num(top)),
                ("width", &2),
                ("height", &Num(FAILED_LANE)),
                ("fill", &Outcome::Failed(f.cause).color()),
            ],
            &title,
        );
    }
    svg.close();
}

/// The states' swatches, a row per ReplicaSet, then the ready line and
/// the causes' colours.
fn draw_legend(svg: &mut Svg, top: f64, report: &ServiceReport) {
    svg.open("g", &[("class", &"legend")]);
    for (row, rs) in [ReplicaSet::Old, ReplicaSet::New].into_iter().enumerate() {
        let top = top + LEGEND_ROW * row as f64;
        let name = if rs == ReplicaSet::Old {
            "old ReplicaSet"
        } else {
            "new ReplicaSet"
        };
        svg.text(10.0, top + 10.5, name, &[("fill", &MUTED)]);
        let mut cx = 120.0;
        for state in PodState::ALL {
            cx = swatch(svg, cx, top, color(state, rs), state.name()) + 12.0;
        }
    }
    let top = top + 2.0 * LEGEND_ROW;
    svg.line(
        (10.0, top + 6.0),
        (24.0, top + 6.0),
        &[("stroke", &READY_LINE), ("stroke-width", &2)],
    );
    svg.text(28.0, top + 10.5, "ready endpoints", &[]);
    let mut cx = 28.0 + text_width("ready endpoints") + 12.0;
    for o in &Outcome::in_legend(report)[1..] {
        cx = swatch(svg, cx, top, o.color(), &format!("failed: {}", o.name())) + 10.0;
    }
    svg.close();
}

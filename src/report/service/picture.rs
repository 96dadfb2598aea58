//! The picture of the race (SVG) for one Service run: each replica's
//! containers as the Pod bands draw them, one row per node showing how long
//! its kube-proxy still sent new connections to each deleted Pod, and the
//! request strip — one mark per request at the instant it was sent, a lane
//! per outcome (answered, then each cause that failed any) — on one time
//! axis, with `kubectl delete` drawn across the nodes and the strip. A
//! rollout's or a drain's picture opens with the Deployment's stack
//! (`rollout`) on the same axis. The strip itself is drawn in `requests`.
//!
//! Invariant: everything drawn comes from the run's history (the
//! replicas' Pod changes, the answered and failed requests) and the
//! metrics its meters made of it (`ServiceMetrics::deleted`); the strip's marks, or above `MAX_MARKS` its per-pixel-column
//! counts, add up to the run's figures per cause.

use super::strip::{self, Outcome};
use super::{crash, replica_reports};
use crate::engine::SimTime;
use crate::model::PodSpec;
use crate::model::service::{Deleted, NodeState, ServiceChange, ServiceReport};
use crate::report::bands::{
    AXIS, Blocks, DELETION, Figure, GAP, LABEL, LEGEND, MUTED, ROW, TOP, TimeAxis, WIDTH, band_frame,
    draw_legend, rows, swatch, text_width, title_extra,
};
use crate::report::marks::BAND;
use crate::report::svg::{Num, Svg};
use crate::report::timeline::Timeline;

mod requests;

/// Above this many requests the strip counts them per pixel column instead
/// of drawing each: one element each would make a 10^5-request run a
/// picture of tens of megabytes, and a pixel shows no more than its count.
pub const MAX_MARKS: usize = 5000;

const TITLE_ROW: f64 = 24.0;
/// One row of the deletions' labels.
const LABEL_ROW: f64 = 13.0;
/// The nodes' section title: a node shutdown's Pods were never deleted.
fn nodes_title(deleted: &[Deleted]) -> &'static str {
    if deleted.iter().any(|d| d.shut_down) {
        "kube-proxy: new connections still sent to the shut-down Pod"
    } else {
        "kube-proxy: new connections still sent to the deleted Pod"
    }
}
/// The colour of a node's stretch still routing to a deleted Pod.
const STILL_ROUTED: &str = "#f4b183";
/// The third legend line (outcomes, the node rows).
const SERVICE_LEGEND: f64 = 24.0;

/// The picture of `report`, a run of the Service whose Pod is `pod`.
pub fn service_svg(title: &str, pod: &PodSpec, report: &ServiceReport) -> String {
    let m = &report.metrics;
    let end = SimTime(m.end_ms);
    let runs: Vec<_> = replica_reports(report).collect();
    let titles: Vec<String> = (0..runs.len())
        .map(|r| match m.deleted.iter().find(|d| d.replica as usize == r) {
            Some(d) => format!("replica {r} ({} at {})", d.how(), SimTime(d.deleted_ms)),
            None => format!("replica {r}"),
        })
        .collect();
    let figures: Vec<Figure> = runs
        .iter()
        .zip(&titles)
        .map(|(report, title)| Figure {
            title,
            spec: pod,
            report,
        })
        .collect();
    let timelines: Vec<Timeline> = runs.iter().map(|r| Timeline::until(pod, r, end)).collect();
    let axis = TimeAxis::of(&timelines);
    let blocks = Blocks::new(&figures, timelines, &axis);
    let totals = strip::totals(report);
    let lanes: Vec<Outcome> = Outcome::ALL
        .into_iter()
        .filter(|o| *o == Outcome::Answered || totals[o.index()] > 0)
        .collect();
    let nodes = (m.deleted.first())
        .map_or(0, |d| d.rules_dropped_ms.len())
        .max(super::node::nodes(report));
    let states = super::node::states(report, nodes);

    // A Deployment's run (a rollout or a drain) opens with its Pods stacked
    // by ReplicaSet and state: the whole story first, each Pod's detail below.
    let stacked = m.rollout.is_some() || m.drain.is_some();
    let stack_top = TOP + TITLE_ROW;
    let blocks_top = stack_top
        + if stacked {
            super::rollout::height(report)
        } else {
            0.0
        };
    // Deletions close together (a rollout's scale-downs) label their lines
    // in rows above one another; row 0 is the nodes' section title's. The
    // crashes' labels come after theirs.
    let crashes = crash::crashes(report);
    let mut label_rows = deletion_label_rows(m, super::deleted_by(report), &crashes, &axis);
    let crash_rows = label_rows.split_off(m.deleted.len());
    let rows_above = (label_rows.iter().chain(&crash_rows).copied().max()).unwrap_or(0);
    let nodes_top = blocks_top + blocks.height() + LABEL_ROW * rows_above as f64;
    let hop_row = usize::from(super::hop::has_row(m.hop.is_some(), &m.deleted, nodes));
    let strip_top = nodes_top + TITLE_ROW + ROW * (nodes + hop_row) as f64 + GAP / 2.0;
    let strip_bottom = strip_top + TITLE_ROW + ROW * lanes.len() as f64;
    let axis_title = "time since the replicas were created (s)";
    let title_extra = title_extra(axis_title);
    let node_states = super::node::legend_states(report);
    let state_legend = if node_states.is_empty() {
        0.0
    } else {
        SERVICE_LEGEND
    };
    let height =
        (strip_bottom + GAP + AXIS + title_extra + LEGEND + SERVICE_LEGEND + state_legend).ceil() as u32;
    let mut svg = Svg::new(WIDTH, height);
    svg.title("podsim Service run");
    svg.open("g", &[("class", &"service"), ("data-name", &title)]);
    svg.text(
        10.0,
        TOP + 16.0,
        title,
        &[("font-size", &15), ("font-weight", &"bold"), ("class", &"title")],
    );
    svg.text(
        WIDTH as f64 - 24.0,
        TOP + 16.0,
        &headline(report),
        &[("text-anchor", &"end"), ("fill", &MUTED), ("class", &"summary")],
    );
    axis.draw_grid(&mut svg, blocks_top, strip_bottom);
    if stacked {
        super::rollout::draw(&mut svg, report, stack_top, &axis);
    }
    blocks.draw(&mut svg, blocks_top);
    let hop = m.hop.is_some();
    draw_nodes(&mut svg, (&m.deleted, hop), &states, nodes_top, end, &axis);
    requests::draw_strip(&mut svg, report, &lanes, &totals, strip_top, &axis);
    for (d, row) in m.deleted.iter().zip(label_rows) {
        let x = axis.x(SimTime(d.deleted_ms));
        svg.open(
            "g",
            &[
                ("class", &"service-line"),
                ("data-kind", &"delete"),
                ("data-replica", &d.replica),
                ("data-at", &d.deleted_ms),
            ],
        );
        svg.title(&format!(
            "{} of replica {} at {}",
            super::deleted_by(report),
            d.replica,
            SimTime(d.deleted_ms)
        ));
        svg.line(
            (x, nodes_top + TITLE_ROW - 4.0),
            (x, strip_bottom),
            &[("stroke", &DELETION), ("stroke-width", &2)],
        );
        svg.close();
        svg.text(
            x + 4.0,
            nodes_top + TITLE_ROW - 6.0 - LABEL_ROW * row as f64,
            super::deleted_by(report),
            &[
                ("fill", &DELETION),
                ("font-size", &11),
                ("class", &"delete-label"),
            ],
        );
    }
    let lines = (nodes_top + TITLE_ROW - 4.0, strip_bottom, LABEL_ROW);
    crash::draw(&mut svg, &crashes, &crash_rows, lines, &axis);
    svg.close();
    let axis_y = strip_bottom + 6.0;
    axis.draw(&mut svg, axis_y, axis_title);
    let legend_top = axis_y + AXIS - 10.0 + title_extra;
    draw_legend(&mut svg, legend_top);
    draw_service_legend(&mut svg, legend_top + 48.0, report);
    svg.finish()
}

/// Each deletion's label row, then each crash's: the lowest where it
/// overlaps neither another label nor, in row 0, the nodes' section title
/// at the left.
fn deletion_label_rows(
    m: &crate::model::service::ServiceMetrics,
    deleted_by: &str,
    crashes: &[crash::Crash],
    axis: &TimeAxis,
) -> Vec<usize> {
    // The title is bold, about a tenth wider. The labels are 11 px, but
    // `text_width` runs short of DejaVu's lowercase (`scale-down` is 62 px
    // at 11 px, not 59): measured at 12 px they keep a visible gap.
    let title = (10.0, 10.0 + text_width(nodes_title(&m.deleted)) * 1.1);
    let label = text_width(deleted_by);
    let spans: Vec<(f64, f64)> = std::iter::once(title)
        .chain(m.deleted.iter().map(|d| {
            let left = axis.x(SimTime(d.deleted_ms)) + 4.0;
            (left, left + label)
        }))
        .chain(crashes.iter().map(|c| {
            let left = axis.x(c.at) + 4.0;
            (left, left + text_width(&crash::label(c)))
        }))
        .collect();
    rows(&spans)[1..].to_vec()
}

/// The line beside the picture's title: the Deployment's replicas (and
/// the Pods there were, when its controller made more), nodes, requests,
/// failures.
fn headline(report: &ServiceReport) -> String {
    let m = &report.metrics;
    let nodes = m.deleted.first().map_or(String::new(), |d| {
        format!(
            " on {} node{}",
            d.rules_dropped_ms.len(),
            plural(d.rules_dropped_ms.len())
        )
    });
    let pods = m.replicas.len();
    // The replicas are the Pods the run began with; the controller's
    // `PodMade`s (a rollout's new Pods, a drain's replacements) came on top.
    let made = (report.trace.entries().iter())
        .filter(|e| matches!(e.what, ServiceChange::PodMade { .. }))
        .count();
    let replicas = pods - made;
    let pods = match made {
        0 => String::new(),
        _ => format!(" ({pods} Pods)"),
    };
    // Only a client that reports its retries says so: every other run's
    // picture keeps its bytes.
    let retries = m.retry.as_ref().map_or(String::new(), |r| {
        format!(", {} retries, {} answered by a retry", r.retries(), m.retried_ok)
    });
    format!(
        "{replicas} replica{}{pods}{nodes} · {} requests, {} failed{retries}",
        plural(replicas),
        m.requests,
        m.failed
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The title of a section of rows, left, in the picture's muted bold.
fn section_title(svg: &mut Svg, top: f64, text: &str) {
    svg.text(10.0, top + 16.0, text, &[("font-weight", &"bold")]);
}

/// A row's label: its name at the left, a note right-aligned before the axis.
fn row_label(svg: &mut Svg, band_y: f64, name: &str, note: &str) {
    svg.text(10.0, band_y + 12.0, name, &[]);
    svg.text(
        LABEL - 8.0,
        band_y + 12.0,
        note,
        &[("text-anchor", &"end"), ("fill", &MUTED)],
    );
}

/// One row per node: from each deletion until that node's rules dropped the
/// Pod (or the run's end, if they never did), new connections still went to it.
/// A node that left Ready has its state strip, and its last state as its
/// note. A run with a hop has one row more, the hop's own view's.
fn draw_nodes(
    svg: &mut Svg,
    (deleted, hop): (&[Deleted], bool),
    states: &[Vec<(SimTime, NodeState)>],
    top: f64,
    end: SimTime,
    axis: &TimeAxis,
) {
    let nodes = states.len();
    if nodes == 0 {
        return;
    }
    section_title(svg, top, nodes_title(deleted));
    let right = axis.right_px;
    for (node, row) in states.iter().enumerate() {
        let band_y = top + TITLE_ROW + ROW * node as f64 + (ROW - BAND) / 2.0;
        svg.open("g", &[("class", &"node"), ("data-node", &node)]);
        let note = row.last().map_or("rules", |s| s.1.name());
        row_label(svg, band_y, &format!("node {node}"), note);
        band_frame(svg, band_y, right, "none", "#e4e4e4");
        super::node::draw_states(svg, row, node, band_y, end, axis);
        let who = (format!("node {node}"), format!("node {node}'s rules"));
        for d in deleted {
            let dropped = d.rules_dropped_ms.get(node).copied().flatten();
            draw_still_routed(svg, d, dropped, &who, band_y, end, axis);
        }
        svg.close();
    }
    // The hop's row, under the nodes': its own view drops the Pod later.
    if super::hop::has_row(hop, deleted, nodes) {
        let band_y = top + TITLE_ROW + ROW * nodes as f64 + (ROW - BAND) / 2.0;
        svg.open("g", &[("class", &"hop")]);
        row_label(svg, band_y, "hop", "its view");
        band_frame(svg, band_y, right, "none", "#e4e4e4");
        let who = ("the hop".to_string(), "the hop's view".to_string());
        for d in deleted {
            draw_still_routed(svg, d, d.hop_dropped_ms, &who, band_y, end, axis);
        }
        svg.close();
    }
}

/// From deletion `d` until `dropped` after it (or `end`), `who.0` still
/// sent new connections to the Pod; the drop, by `who.1`, as a mark.
fn draw_still_routed(
    svg: &mut Svg,
    d: &Deleted,
    dropped: Option<u64>,
    who: &(String, String),
    band_y: f64,
    end: SimTime,
    axis: &TimeAxis,
) {
    let from = SimTime(d.deleted_ms);
    let dropped = dropped.map(|ms| SimTime(d.deleted_ms + ms));
    let to = dropped.unwrap_or(end);
    let after = dropped.map_or("never dropped".to_string(), |t| {
        format!("dropped at {t} (+{})", t.since(from))
    });
    svg.titled(
        "rect",
        &[
            ("class", &"still-routed"),
            ("data-replica", &d.replica),
            ("data-from", &from.as_millis()),
            ("data-to", &to.as_millis()),
            ("x", &Num(axis.x(from))),
            ("y", &Num(band_y)),
            ("width", &Num(axis.x(to) - axis.x(from))),
            ("height", &Num(BAND)),
            ("fill", &STILL_ROUTED),
        ],
        &format!(
            "{} still sends new connections to replica {} from {from}: {after}",
            who.0, d.replica
        ),
    );
    if let Some(t) = dropped {
        let x = axis.x(t);
        svg.titled(
            "path",
            &[
                ("class", &"rule-drop"),
                ("data-replica", &d.replica),
                ("data-at", &t.as_millis()),
                (
                    "d",
                    &format!("M{} {}v{}", Num(x), Num(band_y - 2.0), Num(BAND + 4.0)),
                ),
                ("stroke", &"#222222"),
                ("stroke-width", &2.5),
            ],
            &format!("t={t} {} drop replica {}", who.1, d.replica),
        );
    }
}

/// The third legend line: the outcomes' colours and the node rows' marks.
fn draw_service_legend(svg: &mut Svg, top: f64, report: &ServiceReport) {
    svg.open("g", &[("class", &"legend")]);
    let mut cx = 10.0;
    for &o in Outcome::in_legend(report) {
        cx = swatch(svg, cx, top, o.color(), o.name()) + 12.0;
    }
    cx = swatch(svg, cx, top, STILL_ROUTED, "still routed") + 12.0;
    svg.line(
        (cx + 4.0, top - 1.0),
        (cx + 4.0, top + 13.0),
        &[("stroke", &"#222222"), ("stroke-width", &2.5)],
    );
    svg.text(cx + 12.0, top + 10.5, "rules dropped", &[]);
    // The node rows' states on a line of their own (its height is counted).
    let states = super::node::legend_states(report);
    if !states.is_empty() {
        super::node::legend(svg, 10.0, top + SERVICE_LEGEND, &states);
    }
    svg.close();
}

//! A lost node in `podsim run`'s views (issue 40): each node's own state
//! over the run (Ready, a spot reclaim's notice, gone or cut off, then
//! NotReady) in the text's lines, the terminal chart's and the picture's
//! node rows, and JSON; and each lost node's instants (NotReady, every
//! other node's rules dropping its Pods, the eviction, the replacements).
//!
//! Invariant: the states are the history's `ServiceChange::Node` changes,
//! the instants the metrics' `NodeFigures`; a run that loses no node has
//! neither, and every view of it keeps its bytes.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::SimTime;
use crate::model::service::{LostNode, NodeState, ServiceChange, ServiceReport};
use crate::report::bands::{TimeAxis, swatch};
use crate::report::chart::Cells;
use crate::report::marks::BAND;
use crate::report::svg::{Num, Svg};

/// The height of a node's state strip, at the bottom of its row's band.
const STRIP: f64 = 5.0;

/// The colour of a state's stretch in the picture (none for Ready).
fn color(state: NodeState) -> &'static str {
    match state {
        NodeState::Ready => "none",
        NodeState::Reclaiming => "#e6ab02",
        NodeState::Gone => "#444444",
        NodeState::CutOff => "#7570b3",
        NodeState::NotReady => "#b2182b",
        NodeState::ScalingDown => "#1b9e77",
        NodeState::Deleted => "#bbbbbb",
        NodeState::ShuttingDown => "#e7298a",
    }
}

/// Its glyph in the terminal chart's state row.
fn glyph(state: NodeState) -> char {
    match state {
        NodeState::Ready => ' ',
        NodeState::Reclaiming => '~',
        NodeState::Gone => 'x',
        NodeState::CutOff => '/',
        NodeState::NotReady => '?',
        NodeState::ScalingDown => '-',
        NodeState::Deleted => '.',
        NodeState::ShuttingDown => 'v',
    }
}

/// Each node's states over the run: from when, which; empty for a node
/// that stayed Ready. `nodes` rows.
pub(super) fn states(report: &ServiceReport, nodes: usize) -> Vec<Vec<(SimTime, NodeState)>> {
    let mut rows = vec![Vec::new(); nodes];
    for e in report.trace.entries() {
        if let ServiceChange::Node { node, state } = e.what
            && let Some(row) = rows.get_mut(node as usize)
        {
            row.push((e.at, state));
        }
    }
    rows
}

/// The nodes a run that lost one has, else none.
pub(super) fn nodes(report: &ServiceReport) -> usize {
    let lost = report.metrics.node.as_ref().map(|n| &n.lost);
    lost.and_then(|l| l.first())
        .map_or(0, |l| l.rules_dropped_ms.len())
}

/// Each stretch of a non-Ready state: (from, to, state), up to `end`.
fn stretches(row: &[(SimTime, NodeState)], end: SimTime) -> Vec<(SimTime, SimTime, NodeState)> {
    (row.iter().enumerate())
        .map(|(i, &(from, state))| (from, row.get(i + 1).map_or(end, |n| n.0), state))
        .filter(|&(_, _, state)| state != NodeState::Ready)
        .collect()
}

/// The text's lines of each lost node.
pub(super) fn text(report: &ServiceReport, out: &mut String) {
    let Some(n) = &report.metrics.node else {
        return;
    };
    let after = |ms: Option<u64>| ms.map_or("never".to_string(), |ms| format!("+{}", SimTime(ms)));
    for l in &n.lost {
        let notice = l.notice_ms.map_or(String::new(), |ms| {
            format!("spot reclaim notice at {} (cordoned, drained), ", SimTime(ms))
        });
        let failed = l.failed_ms.map_or("never lost within the run".to_string(), |ms| {
            format!("lost at {}", SimTime(ms))
        });
        // A drain that emptied it in time left the taint nothing to evict.
        let pods = match (l.evicted_ms, l.replaced_ms) {
            (None, Some(0)) => "no Pod left on it".to_string(),
            (evicted, replaced) => format!(
                "its Pods evicted {}, replaced {}",
                after(evicted),
                after(replaced)
            ),
        };
        let deleted = (l.failed_ms.zip(deleted_at(report, l.node))).map_or(String::new(), |(failed, at)| {
            format!(", its Node object deleted +{}", SimTime(at - failed))
        });
        let gone = l.pods_gone_ms.map_or(String::new(), |ms| {
            format!(", their objects garbage-collected +{}", SimTime(ms))
        });
        let _ = writeln!(
            out,
            "node {}: {notice}{failed}: NotReady {}, {pods}{deleted}{gone}",
            l.node,
            after(l.not_ready_ms),
        );
        let others: Vec<String> = (l.rules_dropped_ms.iter().enumerate())
            .filter(|&(i, _)| i != l.node as usize)
            .map(|(i, ms)| format!("node {i} {}", after(*ms)))
            .collect();
        let _ = writeln!(
            out,
            "  other nodes' rules dropped its Pods: {}",
            others.join(", ")
        );
    }
}

/// When `node`'s Node object was deleted, if it was, in ms.
fn deleted_at(report: &ServiceReport, node: u32) -> Option<u64> {
    (report.trace.entries().iter()).find_map(|e| match e.what {
        ServiceChange::Node {
            node: n,
            state: NodeState::Deleted,
        } if n == node => Some(e.at.as_millis()),
        _ => None,
    })
}

/// One lost node in JSON.
fn lost_json(l: &LostNode) -> Value {
    json!({
        "node": l.node,
        "notice_ms": l.notice_ms,
        "failed_ms": l.failed_ms,
        "not_ready_ms": l.not_ready_ms,
        "rules_dropped_ms": l.rules_dropped_ms,
        "evicted_ms": l.evicted_ms,
        "replaced_ms": l.replaced_ms,
        "pods_gone_ms": l.pods_gone_ms,
    })
}

/// `{"lost": [...], "states": [{"at_ms", "node", "state"}, ...]}`, for a
/// run that lost a node.
pub(super) fn json(report: &ServiceReport) -> Option<Value> {
    let n = report.metrics.node.as_ref()?;
    let states: Vec<Value> = (report.trace.entries().iter())
        .filter_map(|e| match e.what {
            ServiceChange::Node { node, state } => Some(json!({
                "at_ms": e.at.as_millis(),
                "node": node,
                "state": state.name(),
            })),
            _ => None,
        })
        .collect();
    Some(json!({
        "lost": n.lost.iter().map(lost_json).collect::<Vec<_>>(),
        "states": states,
    }))
}

/// The chart's state row of each node that left Ready.
pub(super) fn chart_rows(report: &ServiceReport, cells: &Cells, end: SimTime) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for (node, row) in states(report, nodes(report)).iter().enumerate() {
        if row.is_empty() {
            continue;
        }
        let mut line = vec![' '; cells.count];
        for (from, to, state) in stretches(row, end) {
            let (a, b) = (cells.of(from), cells.of(to));
            line[a..=b].iter_mut().for_each(|c| *c = glyph(state));
        }
        rows.push((format!("node {node} state"), line.into_iter().collect()));
    }
    rows
}

/// The chart legend's line of the states, for a run that lost a node.
pub(super) fn chart_legend(report: &ServiceReport) -> Option<String> {
    report.metrics.node.as_ref()?;
    let states = [
        NodeState::Reclaiming,
        NodeState::Gone,
        NodeState::CutOff,
        NodeState::NotReady,
    ];
    let parts: Vec<String> = states
        .iter()
        .map(|&s| format!("{} {}", glyph(s), s.name()))
        .collect();
    Some(format!("node state: {}  (blank: Ready)", parts.join("  ")))
}

/// A node row's state strip, at the bottom of its band at `band_y`.
pub(super) fn draw_states(
    svg: &mut Svg,
    row: &[(SimTime, NodeState)],
    node: usize,
    band_y: f64,
    end: SimTime,
    axis: &TimeAxis,
) {
    for (from, to, state) in stretches(row, end) {
        svg.titled(
            "rect",
            &[
                ("class", &"node-state"),
                ("data-state", &state.name()),
                ("data-from", &from.as_millis()),
                ("data-to", &to.as_millis()),
                ("x", &Num(axis.x(from))),
                ("y", &Num(band_y + BAND - STRIP)),
                ("width", &Num(axis.x(to) - axis.x(from))),
                ("height", &Num(STRIP)),
                ("fill", &color(state)),
            ],
            &format!("node {node} {} from {from} to {to}", state.name()),
        );
    }
}

/// The states the picture's legend explains: a lost node's four, else
/// those the run's node rows show (a shutdown's, a scale-down's), in
/// their declared order; none for a run whose nodes stayed Ready.
pub(super) fn legend_states(report: &ServiceReport) -> Vec<NodeState> {
    if report.metrics.node.is_some() {
        return vec![
            NodeState::Reclaiming,
            NodeState::Gone,
            NodeState::CutOff,
            NodeState::NotReady,
        ];
    }
    let shown = |s: &NodeState| {
        (report.trace.entries().iter())
            .any(|e| matches!(e.what, ServiceChange::Node { state, .. } if state == *s))
    };
    (NodeState::ALL.into_iter())
        .filter(|s| *s != NodeState::Ready && shown(s))
        .collect()
}

/// The states' swatches on a legend's line from `cx`.
pub(super) fn legend(svg: &mut Svg, mut cx: f64, top: f64, states: &[NodeState]) {
    for &state in states {
        cx = swatch(svg, cx, top, color(state), &format!("node {}", state.name())) + 12.0;
    }
}

/// The text's lines of the cluster-autoscaler's scale-downs: each start,
/// each node deleted, each scale-down given up and why.
pub(super) fn scale_down_text(report: &ServiceReport, out: &mut String) {
    // A lost node's deletion is the cloud controller's: `text` tells it.
    let lost = |node: u32| (report.metrics.node.iter()).any(|n| n.lost.iter().any(|l| l.node == node));
    for e in report.trace.entries() {
        let line = match e.what {
            ServiceChange::Node {
                node,
                state: NodeState::ScalingDown,
            } => format!(
                "node {node} scaling down at {}: the cluster-autoscaler tainted it ToBeDeletedByClusterAutoscaler \
                 and evicts its Pods",
                e.at
            ),
            ServiceChange::Node {
                node,
                state: NodeState::Deleted,
            } if !lost(node) => format!("node {node} deleted by the cluster-autoscaler at {}", e.at),
            ServiceChange::ScaleDownAborted { node, why } => format!(
                "node {node} scale-down given up at {}: {}; its taint removed, the node stays",
                e.at,
                why.name()
            ),
            _ => continue,
        };
        let _ = writeln!(out, "{line}");
    }
}

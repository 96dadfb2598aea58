//! The Pod's vertical lines on a run's block — Ready, deletion and the
//! SIGKILL deadline — and where their labels go. The three often fall within
//! a second of each other, so each label takes the lowest row where it
//! overlaps no other instead of being drawn over its neighbour.

use super::super::svg::Attr;
use super::super::timeline::Timeline;
use super::{DEADLINE, DELETION, LABEL, READY, WIDTH, secs, text_width};
use crate::engine::SimTime;

/// One of the Pod's vertical lines.
#[derive(Clone, Copy)]
pub(super) struct PodLine {
    pub(super) kind: &'static str,
    pub(super) label: &'static str,
    pub(super) color: &'static str,
    pub(super) dash: &'static str,
}

impl PodLine {
    pub(super) fn style(&self) -> [Attr<'_>; 3] {
        [
            ("stroke", &self.color),
            ("stroke-width", &2),
            ("stroke-dasharray", &self.dash),
        ]
    }
}

pub(super) const READY_LINE: PodLine = PodLine {
    kind: "ready",
    label: "Ready",
    color: READY,
    dash: "5 3",
};
pub(super) const DELETION_LINE: PodLine = PodLine {
    kind: "deletion",
    label: "deletion",
    color: DELETION,
    dash: "none",
};
pub(super) const DEADLINE_LINE: PodLine = PodLine {
    kind: "kill-deadline",
    label: "SIGKILL deadline",
    color: DEADLINE,
    dash: "2 3",
};

/// The label of one of the Pod's lines, where it was placed.
pub(super) struct LineLabel {
    pub(super) line: PodLine,
    pub(super) at: SimTime,
    /// The line is past the axis end: the label says where, at the edge.
    pub(super) beyond: bool,
    pub(super) text: String,
    /// Its left and right edge, in pixels.
    pub(super) left: f64,
    pub(super) right: f64,
    /// 0 is the row nearest the bands.
    pub(super) row: usize,
}

/// The labels of a run's lines, each in the lowest row where it overlaps no
/// other: centred on its line (kept inside the picture), or right-aligned at
/// the axis end for a line beyond it. Ready, deletion and the SIGKILL
/// deadline often fall within a second of each other.
pub(super) fn place_labels(t: &Timeline, x: &dyn Fn(SimTime) -> f64, axis_end: SimTime) -> Vec<LineLabel> {
    let lines = [
        (READY_LINE, t.ready),
        (DELETION_LINE, t.deletion),
        (DEADLINE_LINE, t.kill_deadline),
    ];
    let mut labels: Vec<LineLabel> = lines
        .into_iter()
        .filter_map(|(line, at)| Some((line, at?)))
        .map(|(line, at)| {
            let beyond = at > axis_end;
            let text = if beyond {
                format!("{} at {} →", line.label, secs(at.as_millis()))
            } else {
                line.label.to_string()
            };
            // Labels are 11 px; `text_width` measures 12 px.
            let width = text_width(&text) * 11.0 / 12.0;
            let right_edge = WIDTH as f64 - 4.0;
            let centre = if beyond { x(axis_end) - width / 2.0 } else { x(at) };
            let left = (centre - width / 2.0).clamp(LABEL, right_edge - width);
            LineLabel {
                line,
                at,
                beyond,
                text,
                left,
                right: left + width,
                row: 0,
            }
        })
        .collect();
    labels.sort_by(|a, b| a.left.total_cmp(&b.left));
    let spans: Vec<(f64, f64)> = labels.iter().map(|l| (l.left, l.right)).collect();
    for (label, row) in labels.iter_mut().zip(rows(&spans)) {
        label.row = row;
    }
    labels
}

/// For spans (left, right) sorted by their left edge, each one's row: the
/// lowest, 0 first, where it starts 6 px past the last span placed there.
pub(crate) fn rows(spans: &[(f64, f64)]) -> Vec<usize> {
    let mut row_ends: Vec<f64> = Vec::new();
    spans
        .iter()
        .map(|&(left, right)| {
            let row = match row_ends.iter().position(|&end| left >= end + 6.0) {
                Some(row) => row,
                None => {
                    row_ends.push(f64::NEG_INFINITY);
                    row_ends.len() - 1
                }
            };
            row_ends[row] = right;
            row
        })
        .collect()
}

/// The rows the labels take (at least one, so blocks line up).
pub(super) fn label_rows(labels: &[LineLabel]) -> usize {
    labels.iter().map(|l| l.row + 1).max().unwrap_or(1)
}

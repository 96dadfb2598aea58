//! The hop in `podsim run`'s views (issue 39): a row under the nodes'
//! kube-proxy rows, from each deletion until the hop's own view dropped
//! the Pod, in the terminal chart and the picture (`picture` draws it with
//! the nodes' marks); the text's lines and JSON's figures are `mod`'s.
//!
//! Invariant: a run without a hop (or without a deletion) has no such
//! row, and every view of it keeps its bytes.

use crate::model::service::{Deleted, ServiceReport};
use crate::report::chart::Cells;

/// The views have the hop's row: a run with a `hop`, a deleted Pod, and
/// `nodes` rows (the nodes' section, which it joins).
pub(super) fn has_row(hop: bool, deleted: &[Deleted], nodes: usize) -> bool {
    hop && nodes > 0 && !deleted.is_empty()
}

/// The terminal chart's row: `=` where the hop still sent new connections
/// to a deleted Pod, as a node's rules row.
pub(super) fn chart_row(report: &ServiceReport, cells: &Cells) -> Option<(String, String)> {
    let m = &report.metrics;
    m.hop.as_ref()?;
    m.deleted.first()?;
    let row = (0..cells.count)
        .map(|c| {
            let (from, to) = cells.bounds(c);
            let still = m.deleted.iter().any(|d| {
                let dropped = d.hop_dropped_ms.map_or(u64::MAX, |ms| d.deleted_ms + ms);
                d.deleted_ms < to && from < dropped
            });
            if still { '=' } else { ' ' }
        })
        .collect();
    Some(("hop view".to_string(), row))
}

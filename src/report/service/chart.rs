//! The race in the terminal: the Service run's picture as rows of cells —
//! each replica's containers (the Pod band chart's glyphs), each node's
//! rules still sending new connections to a deleted Pod, and the requests
//! (a cell with any answered one, and the cause of most failures in it).
//!
//! Invariant: the cells are the Pod chart's (`Cells`), and the rows read
//! what the SVG reads (`Timeline::until`, `Deleted`, `strip`), so the two
//! pictures of a run agree.

use std::fmt::Write;

use super::strip::{self, Outcome};
use super::{crash, replica_reports};
use crate::engine::SimTime;
use crate::model::PodSpec;
use crate::model::service::ServiceReport;
use crate::report::chart::{Cells, band_legend, band_row};
use crate::report::timeline::Timeline;

/// The chart of `report`, `columns` cells wide.
pub fn chart(pod: &PodSpec, report: &ServiceReport, columns: u64) -> String {
    let m = &report.metrics;
    let end = SimTime(m.end_ms);
    let timelines: Vec<Timeline> = replica_reports(report)
        .map(|r| Timeline::until(pod, &r, end))
        .collect();
    let span = timelines.iter().map(Timeline::span).max().unwrap_or(end);
    let cells = Cells::new(span, columns);
    let mut rows: Vec<(String, String)> = Vec::new();
    for (r, t) in timelines.iter().enumerate() {
        for (i, row) in t.rows.iter().enumerate() {
            let label = format!("replica {r} {} ({})", row.name, row.kind.name());
            rows.push((label, band_row(t, i, &cells)));
        }
    }
    let nodes = m.deleted.first().map_or(0, |d| d.rules_dropped_ms.len());
    for node in 0..nodes {
        let routed: String = (0..cells.count)
            .map(|c| {
                // Any overlap shows: a node's window is often shorter than a cell.
                let (from, to) = cells.bounds(c);
                let still = m.deleted.iter().any(|d| {
                    let dropped = d.rules_dropped_ms[node].map_or(u64::MAX, |ms| d.deleted_ms + ms);
                    d.deleted_ms < to && from < dropped
                });
                if still { '=' } else { ' ' }
            })
            .collect();
        rows.push((format!("node {node} rules"), routed));
    }
    rows.extend(super::hop::chart_row(report, &cells));
    rows.extend(super::node::chart_rows(report, &cells, end));
    let counts = strip::counts(report, cells.count, |t| cells.of(t));
    let answered: String = counts
        .iter()
        .map(|c| if c[0] > 0 { Outcome::Answered.glyph() } else { ' ' })
        .collect();
    rows.push(("requests answered".to_string(), answered));
    let failed: String = counts
        .iter()
        .map(|c| {
            // The cause of most failures in the cell; the first in the CSV's order on a tie.
            let most = Outcome::ALL[1..].iter().rev().max_by_key(|o| c[o.index()]);
            match most {
                Some(o) if c[o.index()] > 0 => o.glyph(),
                _ => ' ',
            }
        })
        .collect();
    rows.push(("requests failed".to_string(), failed));
    // Only a client that reports its retries has the row: every other
    // run's chart keeps its bytes.
    if m.retry.is_some() && cells.count > 0 {
        let mut retried = vec![false; cells.count];
        report
            .trace
            .retried()
            .each(|at, _| retried[cells.of(at).min(cells.count - 1)] = true);
        let row = retried.iter().map(|&r| if r { '+' } else { ' ' }).collect();
        rows.push(("answered by a retry".to_string(), row));
    }
    let crashes = crash::crashes(report);
    let deletes: Vec<(Option<SimTime>, char)> = m
        .ready_ms
        .map(|ms| (Some(SimTime(ms)), 'T'))
        .into_iter()
        .chain(m.deleted.iter().map(|d| (Some(SimTime(d.deleted_ms)), 'D')))
        .chain(crashes.iter().map(|c| (Some(c.at), crash::GLYPH)))
        .collect();
    rows.push((String::new(), cells.marks(&deletes)));

    let width = rows.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (label, cells) in &rows {
        let _ = writeln!(out, "{label:<width$} |{cells}|");
    }
    let _ = writeln!(out, "{}", cells.scale(width, span));
    let _ = writeln!(out, "{}", band_legend());
    let causes: Vec<String> = Outcome::in_legend(report)[1..]
        .iter()
        .map(|o| format!("{} {}", o.glyph(), o.name()))
        .collect();
    let retried = if m.retry.is_some() {
        "  + answered by a retry"
    } else {
        ""
    };
    // Only a run that crashed an app has the mark: every other run's
    // chart keeps its bytes.
    let crashed = match crashes.is_empty() {
        true => String::new(),
        false => format!("  {} {}", crash::GLYPH, crash::LABEL),
    };
    let _ = writeln!(
        out,
        "= rules still route to a {} Pod  · answered{retried}  failed: {}  T traffic starts  D {}{crashed}",
        super::ended_word(report),
        causes.join("  "),
        super::deleted_by(report)
    );
    if let Some(states) = super::node::chart_legend(report) {
        let _ = writeln!(out, "{states}");
    }
    out
}

//! What people look at: text timelines and band charts, metrics tables, JSON,
//! and pictures: timelines (`bands`) and trade-off plots (`plot`) as SVG,
//! PNG made from the same SVG (`png`), and the HTML report (`html`).
//!
//! Invariant: the library formats, it never prints; `cli` decides where the
//! text goes.

pub mod advice;
pub mod bands;
pub mod chart;
pub mod html;
pub mod job;
pub mod json;
pub mod kubectl;
pub mod line;
pub mod marks;
pub mod plot;
pub mod png;
pub mod service;
pub mod svg;
pub mod table;
pub mod timeline;

use std::fmt::Write;

use crate::model::{Field, Metrics};

/// A cell of a metrics table: seconds with millis for times, `-` if absent.
pub fn field_text(field: Field) -> String {
    match field {
        Field::Millis(Some(ms)) => format!("{}.{:03}s", ms / 1000, ms % 1000),
        Field::Millis(None) => "-".to_string(),
        Field::Count(n) => n.to_string(),
        Field::Text(t) => t.to_string(),
    }
}

/// Metrics side by side: one row per metric, one column per run.
pub fn metrics_table(names: &[&str], metrics: &[Metrics]) -> String {
    let cells: Vec<Vec<String>> = metrics
        .iter()
        .map(|m| m.fields().into_iter().map(field_text).collect())
        .collect();
    let label_width = Metrics::NAMES.iter().map(|n| n.len()).max().unwrap_or(0);
    let widths: Vec<usize> = names
        .iter()
        .zip(&cells)
        .map(|(name, column)| {
            column
                .iter()
                .map(String::len)
                .chain([name.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let _ = write!(out, "{:<label_width$}", "metric");
    for (name, w) in names.iter().zip(&widths) {
        let _ = write!(out, "  {name:>w$}");
    }
    out.push('\n');
    for (row, metric) in Metrics::NAMES.iter().enumerate() {
        let _ = write!(out, "{metric:<label_width$}");
        for (column, w) in cells.iter().zip(&widths) {
            let _ = write!(out, "  {:>w$}", column[row]);
        }
        out.push('\n');
    }
    out
}

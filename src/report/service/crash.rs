//! `[[disruptions]] crash` in `run`'s views: each crash of a replica's app
//! and the instant its restarted app served again, as the summary's line,
//! the chart's `C` marks and the picture's lines across the strip. A crash
//! leaves its Pod in place, so none of the deleted Pods' rows show it; the
//! back-off and the restart are in the replica's own bands.
//!
//! Invariant: the crashes are the history's `Crashed` changes, one each,
//! so they add up to the `crashes` figure; "serving again" is the next
//! `Serving(true)` the slice showed of that replica.

use std::fmt::Write;

use crate::engine::SimTime;
use crate::model::service::{PodFact, ServiceChange, ServiceReport};
use crate::report::bands::TimeAxis;
use crate::report::svg::Svg;

/// A crash's line: red, apart from a deletion's near-black.
const CRASH: &str = "#c62828";
/// The chart's glyph and the picture's label.
pub(super) const GLYPH: char = 'C';
pub(super) const LABEL: &str = "crash";

/// One crash of a replica's app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Crash {
    pub replica: u32,
    pub at: SimTime,
    /// When its endpoint served again (the restarted app Ready), if it did
    /// within the run.
    pub serving_again: Option<SimTime>,
}

/// The run's crashes, in the order they happened.
pub(super) fn crashes(report: &ServiceReport) -> Vec<Crash> {
    let mut crashes: Vec<Crash> = Vec::new();
    for e in report.trace.entries() {
        match e.what {
            ServiceChange::Crashed { replica } => crashes.push(Crash {
                replica,
                at: e.at,
                serving_again: None,
            }),
            ServiceChange::Api {
                replica,
                fact: PodFact::Serving(true),
            } => {
                if let Some(c) = (crashes.iter_mut().rev()).find(|c| c.replica == replica) {
                    c.serving_again.get_or_insert(e.at);
                }
            }
            _ => {}
        }
    }
    crashes
}

/// The summary's line, if the run crashed an app: each crash and how long
/// its replica was out of the endpoints.
pub(super) fn summary(crashes: &[Crash]) -> Option<String> {
    if crashes.is_empty() {
        return None;
    }
    let mut line = format!("crashes {}:", crashes.len());
    for (i, c) in crashes.iter().enumerate() {
        let again = c
            .serving_again
            .map_or("not serving again within the run".to_string(), |t| {
                format!("serving again +{}", t.since(c.at))
            });
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(line, "{sep} replica {} at {} ({again})", c.replica, c.at);
    }
    Some(line)
}

/// Each crash's line from `top` to `bottom`, labelled in its row of `rows`
/// (counted up from `top`, `row_height` apart).
pub(super) fn draw(
    svg: &mut Svg,
    crashes: &[Crash],
    rows: &[usize],
    (top, bottom, row_height): (f64, f64, f64),
    axis: &TimeAxis,
) {
    for (c, &row) in crashes.iter().zip(rows) {
        let x = axis.x(c.at);
        svg.open(
            "g",
            &[
                ("class", &"service-line"),
                ("data-kind", &"crash"),
                ("data-replica", &c.replica),
                ("data-at", &c.at.as_millis()),
            ],
        );
        let again = c
            .serving_again
            .map_or("not serving again within the run".to_string(), |t| {
                format!("serving again at {t}")
            });
        svg.title(&format!(
            "the app of replica {} crashed at {}: {again}",
            c.replica, c.at
        ));
        svg.line(
            (x, top),
            (x, bottom),
            &[
                ("stroke", &CRASH),
                ("stroke-width", &2),
                ("stroke-dasharray", &"4 2"),
            ],
        );
        svg.close();
        svg.text(
            x + 4.0,
            top - 2.0 - row_height * row as f64,
            &format!("{LABEL} {}", c.replica),
            &[("fill", &CRASH), ("font-size", &11), ("class", &"crash-label")],
        );
    }
}

/// The label's text for the label rows' spans.
pub(super) fn label(c: &Crash) -> String {
    format!("{LABEL} {}", c.replica)
}

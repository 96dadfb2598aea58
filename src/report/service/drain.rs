//! A drain in the Deployment's picture (`rollout`): its start and the
//! instant its node was empty, drawn across the stack like the rollout's
//! instants, the line of its figures beside the section's title, and a lane
//! under the stack with a tick at each eviction the budget refused (HTTP
//! 429): kubectl drain asks again 5 s later, so a budget that holds the
//! drain shows as a comb of ticks, and the "eviction" line where one is
//! finally allowed.
//!
//! Invariant: the ticks are the history's `EvictionRefused` changes, one
//! each, so they add up to `evictions_refused`; the instants are its
//! `DrainStarted` and `DrainDone`.

use super::rollout::Mark;
use crate::engine::SimTime;
use crate::model::service::{DrainFigures, EVICTION_RETRY, ServiceChange, ServiceReport};
use crate::report::bands::{MUTED, TimeAxis};
use crate::report::svg::{Num, Svg};

/// The lane of refused evictions, under the failed requests'.
pub(super) const LANE: f64 = 16.0;
/// A refused eviction's tick: the colour of an HTTP error, apart from the
/// failed requests' causes.
const REFUSED: &str = "#d95f02";

/// Each drain's start and, if it ended within the run, its end.
pub(super) fn marks(report: &ServiceReport) -> Vec<Mark> {
    let mut marks = Vec::new();
    let mut nodes: Vec<(u32, u32, SimTime)> = Vec::new();
    for e in report.trace.entries() {
        match e.what {
            ServiceChange::DrainStarted { drain, node } => {
                nodes.push((drain, node, e.at));
                marks.push(Mark {
                    kind: "drain-start",
                    at: e.at,
                    label: format!("drain of node {node}"),
                    row: 0,
                });
            }
            ServiceChange::DrainDone { drain } => {
                if let Some(&(_, node, from)) = nodes.iter().find(|n| n.0 == drain) {
                    marks.push(Mark {
                        kind: "drain-done",
                        at: e.at,
                        label: format!("node {node} empty +{}", e.at.since(from)),
                        row: 1,
                    });
                }
            }
            _ => {}
        }
    }
    marks
}

/// The drain's figures, as the line beside the section's title says them.
pub(super) fn summary(d: &DrainFigures) -> String {
    let took = d.drain_ms.map_or("not empty within the run".to_string(), |ms| {
        format!("empty after {}", SimTime(ms))
    });
    format!(
        "node {took} · {} eviction{} refused (HTTP 429) · below the budget {} ms",
        d.evictions_refused,
        if d.evictions_refused == 1 { "" } else { "s" },
        d.below_min_available_ms
    )
}

/// The lane at `top`: its label with the count, a tick per refused eviction.
pub(super) fn draw_refused(svg: &mut Svg, report: &ServiceReport, top: f64, axis: &TimeAxis) {
    let refused: Vec<(SimTime, u32)> = (report.trace.entries().iter())
        .filter_map(|e| match e.what {
            ServiceChange::EvictionRefused { replica } => Some((e.at, replica)),
            _ => None,
        })
        .collect();
    svg.open(
        "g",
        &[("class", &"evictions-refused"), ("data-count", &refused.len())],
    );
    svg.text(
        axis.left_px - 6.0,
        top + 12.0,
        &format!("evictions refused {}", refused.len()),
        &[("text-anchor", &"end"), ("fill", &MUTED)],
    );
    for (at, replica) in refused {
        svg.titled(
            "rect",
            &[
                ("class", &"refused"),
                ("data-replica", &replica),
                ("data-at", &at.as_millis()),
                ("x", &Num(axis.x(at) - 1.5)),
                ("y", &Num(top)),
                ("width", &3),
                ("height", &Num(LANE)),
                ("fill", &REFUSED),
            ],
            &format!(
                "t={at} the budget refused the eviction of replica {replica} (HTTP 429): \
                 kubectl drain asks again in {EVICTION_RETRY}"
            ),
        );
    }
    svg.close();
}

//! The picture's request strip drawn: a lane per outcome, each request a
//! mark at the instant it was sent (a failed one with its story as a
//! tooltip, a retry's answer ticked over the answered lane), or, above
//! `MAX_MARKS`, the requests counted per pixel column. Apart from the
//! rest of the picture because it reads only the strip's facts (`strip`),
//! never the replicas' bands or the node rows.

use super::{MAX_MARKS, TITLE_ROW, row_label, section_title};
use crate::engine::SimTime;
use crate::model::service::ServiceReport;
use crate::report::bands::{ROW, TimeAxis, band_frame};
use crate::report::marks::BAND;
use crate::report::service::strip::{self, Outcome, Sent};
use crate::report::svg::{Num, Svg};

/// The request strip: a lane per outcome in `lanes`, each request a mark at
/// its send instant, or counted per pixel column above `MAX_MARKS`.
pub(super) fn draw_strip(
    svg: &mut Svg,
    report: &ServiceReport,
    lanes: &[Outcome],
    totals: &[u64; 8],
    top: f64,
    axis: &TimeAxis,
) {
    let sent: u64 = totals.iter().sum();
    // A run with few requests kept each one's instant (`SentTimes`).
    let marks = if sent > MAX_MARKS as u64 {
        None
    } else {
        strip::requests(report)
    };
    let binned = marks.is_none();
    let title = if binned {
        format!("requests, by when they were sent ({sent}, counted per pixel column)")
    } else {
        format!("requests, by when they were sent ({sent}, one mark each)")
    };
    svg.open(
        "g",
        &[
            ("class", &"requests"),
            ("data-binned", &binned),
            ("data-count", &sent),
        ],
    );
    section_title(svg, top, &title);
    let lane_y = |o: Outcome| {
        let i = lanes.iter().position(|l| *l == o).unwrap_or(0);
        top + TITLE_ROW + ROW * i as f64 + (ROW - BAND) / 2.0
    };
    for &lane in lanes {
        let band_y = lane_y(lane);
        let count = totals[lane.index()];
        let name = match lane {
            Outcome::Answered => "answered".to_string(),
            Outcome::Failed(_) => format!("failed: {}", lane.name()),
        };
        svg.open("g", &[("class", &"lane"), ("data-outcome", &lane.name())]);
        row_label(svg, band_y, &name, &count.to_string());
        band_frame(svg, band_y, axis.right_px, "none", "#e4e4e4");
        svg.close();
    }
    match marks {
        Some(requests) => {
            for r in &requests {
                draw_request(svg, r, lane_y(r.outcome), axis);
            }
            draw_retried(svg, report, lane_y(Outcome::Answered), axis);
        }
        None => draw_bins(svg, report, lanes, axis, &lane_y),
    }
    svg.close();
}

/// Over the answered lane, a green tick at the send instant of each
/// request a retry answered, for a client that reports its retries.
fn draw_retried(svg: &mut Svg, report: &ServiceReport, band_y: f64, axis: &TimeAxis) {
    let (Some(_), Some(sent)) = (&report.metrics.retry, report.trace.retried().exact()) else {
        return;
    };
    for &at in sent {
        let x = axis.x(at);
        svg.titled(
            "line",
            &[
                ("class", &"retried"),
                ("data-at", &at.as_millis()),
                ("x1", &Num(x)),
                ("y1", &Num(band_y)),
                ("x2", &Num(x)),
                ("y2", &Num(band_y + BAND)),
                ("stroke", &"#2ca02c"),
                ("stroke-width", &2),
            ],
            &format!("sent {at}, answered by a retry"),
        );
    }
}

/// One request's mark: a thin grey tick if answered, a coloured bar with
/// its story as tooltip if it failed.
fn draw_request(svg: &mut Svg, r: &Sent, band_y: f64, axis: &TimeAxis) {
    let x = axis.x(r.at);
    let (name, color, at) = (r.outcome.name(), r.outcome.color(), r.at.as_millis());
    let Some(f) = r.failure else {
        svg.line(
            (x, band_y + 2.0),
            (x, band_y + BAND - 2.0),
            &[
                ("class", &"request"),
                ("data-outcome", &name),
                ("data-at", &at),
                ("stroke", &color),
                ("stroke-opacity", &0.6),
            ],
        );
        return;
    };
    let replica = f
        .replica
        .map_or("no replica".to_string(), |r| format!("replica {r}"));
    svg.titled(
        "rect",
        &[
            ("class", &"request"),
            ("data-outcome", &name),
            ("data-at", &at),
            ("x", &Num(x - 1.5)),
            ("y", &Num(band_y)),
            ("width", &3),
            ("height", &Num(BAND)),
            ("fill", &color),
        ],
        &format!(
            "sent {} by client {}, {name} at {} ({replica})",
            r.at, f.client, f.at
        ),
    );
}

/// The requests counted per pixel column: a column's shade in its lane
/// grows with its count, relative to the lane's busiest column.
fn draw_bins(
    svg: &mut Svg,
    report: &ServiceReport,
    lanes: &[Outcome],
    axis: &TimeAxis,
    lane_y: &dyn Fn(Outcome) -> f64,
) {
    let columns = (axis.right_px - axis.left_px).floor().max(1.0) as usize;
    let end = axis.end_ms.max(1);
    let column_of = |t: SimTime| (t.as_millis() as u128 * columns as u128 / end as u128) as usize;
    let counts = strip::counts(report, columns, column_of);
    let ms_of = |c: usize| (c as u128 * end as u128 / columns as u128) as u64;
    for &lane in lanes {
        let i = lane.index();
        let busiest = counts.iter().map(|c| c[i]).max().unwrap_or(0).max(1);
        for (c, count) in counts.iter().map(|c| c[i]).enumerate() {
            if count == 0 {
                continue;
            }
            let (from, to) = (SimTime(ms_of(c)), SimTime(ms_of(c + 1)));
            let opacity = 0.3 + 0.7 * count as f64 / busiest as f64;
            let attrs: [crate::report::svg::Attr; 10] = [
                ("class", &"request-bin"),
                ("data-outcome", &lane.name()),
                ("data-count", &count),
                ("data-from", &from.as_millis()),
                ("x", &Num(axis.left_px + c as f64)),
                ("y", &Num(lane_y(lane))),
                ("width", &1),
                ("height", &Num(BAND)),
                ("fill", &lane.color()),
                ("fill-opacity", &Num(opacity)),
            ];
            match lane {
                Outcome::Answered => svg.leaf("rect", &attrs),
                Outcome::Failed(_) => svg.titled(
                    "rect",
                    &attrs,
                    &format!("{count} {} sent {from}–{to}", lane.name()),
                ),
            }
        }
    }
}

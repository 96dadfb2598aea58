//! The timeline picture (SVG): per-container bands of state with event marks,
//! the red "exposed" row, and the Pod's Ready, deletion and SIGKILL-deadline
//! lines; several runs stack one above another on one shared time axis, so
//! two layouts of the same Pod read side by side like the seed chapter's demo
//! (unless one would be a sliver beside a far longer one: `blocks`).
//! A Service's picture (`report::service`) stacks its replicas with the same
//! `Blocks` on the same `TimeAxis`, and adds its own rows below.
//!
//! Invariant: the bands and the exposed row are drawn from `Timeline` (never
//! re-derived here), so the picture agrees with the text chart and the
//! metrics; only the event marks are read from the history, one per line of
//! the event timeline.

mod axis;
mod blocks;
mod lines;

pub use axis::TimeAxis;
pub(crate) use axis::title_extra;
pub(crate) use blocks::Blocks;
pub use blocks::{timelines_svg, timelines_svg_on_one_axis};
pub(crate) use lines::rows;

use super::marks::{BAND, Mark};
use super::svg::{Attr, Num, Svg};
use super::timeline::{BandState, Timeline};
use crate::engine::{SimDuration, SimTime};
use crate::model::{PodReport, PodSpec};
use lines::{DEADLINE_LINE, DELETION_LINE, LineLabel, READY_LINE, label_rows};

/// One run to draw.
pub struct Figure<'a> {
    /// The run's title above its block.
    pub title: &'a str,
    /// The Pod that ran.
    pub spec: &'a PodSpec,
    /// What happened.
    pub report: &'a PodReport,
}

pub(crate) const WIDTH: u32 = 1000;
/// Where the time axis starts: the row labels live left of it.
pub(crate) const LABEL: f64 = 210.0;
pub(crate) const RIGHT: f64 = 24.0;
pub(crate) const TOP: f64 = 10.0;
const TITLE_ROW: f64 = 24.0;
/// One row of the labels above the bands that name the Pod's vertical
/// lines; labels that would overlap go to further rows.
const LABEL_ROW: f64 = 13.0;
/// Space between the lowest label row and the bands.
const LABEL_GAP: f64 = 3.0;
/// The least room between the last event's mark and the right edge.
pub(super) const MARK_ROOM: f64 = 10.0;
pub(crate) const ROW: f64 = 24.0;
pub(crate) const GAP: f64 = 18.0;
pub(crate) const AXIS: f64 = 44.0;
pub(crate) const LEGEND: f64 = 56.0;

const EXPOSED: &str = "#d62728";
const READY: &str = "#2e7d32";
pub(crate) const DELETION: &str = "#333333";
const DEADLINE: &str = "#c62828";
pub(crate) const MUTED: &str = "#666666";
/// `text`, cut with an ellipsis to about `width` pixels.
pub(crate) fn fit(text: &str, width: f64) -> String {
    if text_width(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if text_width(&out) + text_width(&c.to_string()) + 7.0 > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// `text` in lines of at most about `width` pixels, broken at its spaces
/// (a word wider than `width` gets a line of its own).
pub(crate) fn wrap(text: &str, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}")) <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// About how wide `text` is in 12-px DejaVu Sans, to space the legend
/// (capitals are wider than the rest).
pub(crate) fn text_width(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            ' ' => 3.8,
            c if c.is_ascii_uppercase() => 8.2,
            _ => 6.4,
        })
        .sum()
}

/// A legend entry: a colour swatch and its label at `x`; returns where the
/// label ends, for the next entry.
pub(crate) fn swatch(svg: &mut Svg, x: f64, top: f64, color: &str, label: &str) -> f64 {
    svg.leaf(
        "rect",
        &[
            ("x", &Num(x)),
            ("y", &Num(top)),
            ("width", &14),
            ("height", &12),
            ("fill", &color),
        ],
    );
    svg.text(x + 18.0, top + 10.5, label, &[]);
    x + 18.0 + text_width(label)
}

/// The seed chapter's colours: light grey waiting, yellow booting and
/// draining (draining a deeper yellow), green running, red failed.
pub fn band_color(state: BandState) -> &'static str {
    match state {
        BandState::Waiting => "#dcdcdc",
        BandState::Booting => "#f7dc6f",
        BandState::Running => "#5cb85c",
        BandState::PreStop => "#b5e08f",
        BandState::Draining => "#e6a817",
        BandState::BackOff => "#d9534f",
        BandState::Exited => "none",
    }
}

/// What the legend says a band colour means.
fn band_meaning(state: BandState) -> &'static str {
    match state {
        BandState::PreStop => "preStop hook (still serving)",
        BandState::BackOff => "failed, back-off",
        other => other.name(),
    }
}

/// `6s`-style text for a number of milliseconds.
fn secs(ms: u64) -> String {
    SimDuration(ms).to_string()
}

/// The one-line summary beside a run's title.
fn summary(report: &PodReport, measured: bool) -> String {
    let m = &report.metrics;
    let ready = m
        .ready_ms
        .map_or("never Ready".to_string(), |ms| format!("Ready at {}", secs(ms)));
    let exposed = if measured {
        format!(
            "exposed {} ({} startup + {} shutdown)",
            secs(m.exposed_total_ms),
            secs(m.exposed_startup_ms),
            secs(m.exposed_shutdown_ms)
        )
    } else {
        "exposure not measured (no proxy)".to_string()
    };
    let termination = m
        .termination_ms
        .map_or(String::new(), |ms| format!(" · terminated in {}", secs(ms)));
    format!("{ready} · {exposed}{termination}")
}

/// One run: title and summary, line labels, one row per container, the exposed row.
fn draw_block(
    svg: &mut Svg,
    figure: &Figure,
    t: &Timeline,
    labels: &[LineLabel],
    top: f64,
    x: &dyn Fn(SimTime) -> f64,
) {
    let right = WIDTH as f64 - RIGHT;
    let measured = figure.spec.measures_exposure();
    svg.open("g", &[("class", &"scenario"), ("data-name", &figure.title)]);
    svg.text(
        10.0,
        top + 16.0,
        figure.title,
        &[("font-size", &14), ("font-weight", &"bold"), ("class", &"title")],
    );
    svg.text(
        right,
        top + 16.0,
        &summary(figure.report, measured),
        &[("text-anchor", &"end"), ("fill", &MUTED), ("class", &"summary")],
    );
    let rows_top = top + TITLE_ROW + LABEL_GAP + LABEL_ROW * label_rows(labels) as f64;
    for (i, row) in t.rows.iter().enumerate() {
        let row_y = rows_top + ROW * i as f64;
        let band_y = row_y + (ROW - BAND) / 2.0;
        svg.open("g", &[("class", &"row"), ("data-container", &row.name)]);
        let kind = if row.proxy {
            format!("{}, proxy", row.kind.name())
        } else {
            row.kind.name().to_string()
        };
        // A long name is cut to fit beside its kind; the tooltip keeps it whole.
        let room = LABEL - 8.0 - text_width(&kind) - 10.0 - 10.0;
        svg.open("g", &[("class", &"label")]);
        svg.title(&row.name);
        svg.text(10.0, band_y + 12.0, &fit(&row.name, room), &[]);
        svg.close();
        svg.text(
            LABEL - 8.0,
            band_y + 12.0,
            &kind,
            &[("text-anchor", &"end"), ("fill", &MUTED)],
        );
        band_frame(svg, band_y, right, "none", "#e4e4e4");
        for band in row.bands.iter().filter(|b| b.state != BandState::Exited) {
            svg.titled(
                "rect",
                &[
                    ("class", &"band"),
                    ("data-state", &band.state.name()),
                    ("data-from", &band.from.as_millis()),
                    ("data-to", &band.to.as_millis()),
                    ("x", &Num(x(band.from))),
                    ("y", &Num(band_y)),
                    ("width", &Num(x(band.to) - x(band.from))),
                    ("height", &Num(BAND)),
                    ("fill", &band_color(band.state)),
                ],
                &format!("{} {} {}–{}", row.name, band.state.name(), band.from, band.to),
            );
        }
        svg.close();
    }

    let exposed_y = rows_top + ROW * t.rows.len() as f64;
    let band_y = exposed_y + (ROW - BAND) / 2.0;
    svg.open("g", &[("class", &"exposed-row")]);
    svg.text(
        10.0,
        band_y + 12.0,
        "exposed",
        &[
            ("fill", &if measured { EXPOSED } else { MUTED }),
            ("font-weight", &"bold"),
        ],
    );
    svg.text(
        LABEL - 8.0,
        band_y + 12.0,
        "app up, no proxy",
        &[("text-anchor", &"end"), ("fill", &MUTED)],
    );
    band_frame(svg, band_y, right, "#fbf3f3", "#f0d0d0");
    if !measured {
        svg.text(
            LABEL + 6.0,
            band_y + 12.0,
            "not measured: the Pod declares no proxy",
            &[("fill", &MUTED), ("font-style", &"italic")],
        );
    }
    for &(from, to) in &t.exposed {
        svg.titled(
            "rect",
            &[
                ("class", &"exposed"),
                ("data-from", &from.as_millis()),
                ("data-to", &to.as_millis()),
                ("x", &Num(x(from))),
                ("y", &Num(band_y)),
                ("width", &Num(x(to) - x(from))),
                ("height", &Num(BAND)),
                ("fill", &EXPOSED),
            ],
            &format!("exposed {from}–{to}: an app runs with no proxy"),
        );
    }
    svg.close();

    // Event marks over the bands, in the history's order.
    for (entry, line) in crate::report::line::lines(&figure.report.trace) {
        let (Some(id), Some(mark)) = (entry.container, Mark::of(entry.what)) else {
            continue;
        };
        let centre = rows_top + ROW * id.index() as f64 + ROW / 2.0;
        let name = &figure.spec.container(id).name;
        mark.draw(
            svg,
            x(entry.at),
            centre,
            &format!("t={} {name}: {line}", entry.at),
            Some(entry.at),
        );
    }

    // The Pod's lines run from under the labels (so none crosses a label of
    // another line) to the bottom of the exposed row.
    let (line_top, line_bottom) = (rows_top - LABEL_GAP, exposed_y + ROW);
    for label in labels {
        let (line, data_at) = (label.line, label.at.as_millis());
        let baseline = rows_top - LABEL_GAP - 2.0 - LABEL_ROW * label.row as f64;
        let text_attrs: [Attr; 3] = [
            ("fill", &line.color),
            ("font-size", &11),
            ("text-anchor", &"start"),
        ];
        if label.beyond {
            // Past the axis (a 30 s grace after a 4 s drain): say where it is.
            svg.text(
                label.left,
                baseline,
                &label.text,
                &[
                    ("class", &"pod-line"),
                    ("data-kind", &line.kind),
                    ("data-at", &data_at),
                    text_attrs[0],
                    text_attrs[1],
                    text_attrs[2],
                ],
            );
            continue;
        }
        svg.open(
            "g",
            &[
                ("class", &"pod-line"),
                ("data-kind", &line.kind),
                ("data-at", &data_at),
            ],
        );
        svg.title(&format!("{} at {}", line.label, label.at));
        svg.line((x(label.at), line_top), (x(label.at), line_bottom), &line.style());
        svg.close();
        svg.text(label.left, baseline, &label.text, &text_attrs);
    }
    svg.close();
}

/// Two lines of legend: band colours and the exposed row; marks and lines.
pub(crate) fn draw_legend(svg: &mut Svg, top: f64) {
    svg.open("g", &[("class", &"legend")]);
    let mut cx = 10.0;
    let swatches = BandState::ALL
        .iter()
        .filter(|s| **s != BandState::Exited)
        .map(|&s| (band_color(s), band_meaning(s)))
        .chain([(EXPOSED, "exposed")]);
    for (color, meaning) in swatches {
        cx = swatch(svg, cx, top, color, meaning) + 6.0;
    }
    let y = top + 24.0;
    cx = 10.0;
    for mark in Mark::ALL {
        mark.draw(svg, cx + 4.0, y + 6.0, mark.name(), None);
        svg.text(cx + 14.0, y + 10.5, mark.name(), &[]);
        cx += 24.0 + text_width(mark.name());
    }
    for line in [READY_LINE, DELETION_LINE, DEADLINE_LINE] {
        svg.line((cx, y + 6.0), (cx + 18.0, y + 6.0), &line.style());
        svg.text(cx + 22.0, y + 10.5, line.label, &[]);
        cx += 30.0 + text_width(line.label);
    }
    svg.close();
}

/// The frame a row's bands are drawn in, across the whole time axis.
pub(crate) fn band_frame(svg: &mut Svg, band_y: f64, right: f64, fill: &str, stroke: &str) {
    svg.leaf(
        "rect",
        &[
            ("x", &Num(LABEL)),
            ("y", &Num(band_y)),
            ("width", &Num(right - LABEL)),
            ("height", &Num(BAND)),
            ("fill", &fill),
            ("stroke", &stroke),
        ],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_to_fit_with_an_ellipsis() {
        assert_eq!(fit("web", 100.0), "web");
        let cut = fit("app-with-a-rather-long-name", 100.0);
        assert!(cut.ends_with('…') && text_width(&cut) <= 100.0, "{cut}");
    }

    /// The axis titles' room is 188 px (210 − 10 − 12). The Pod pictures'
    /// title is 24 letters and 3 spaces, 24 · 6.4 + 3 · 3.8 = 165 px: one
    /// line. The Service's is 34 letters and 6 spaces, 240 px: "time since
    /// the replicas were" is 169 px, " created" would make it 217.
    #[test]
    fn an_axis_title_wider_than_its_room_wraps_at_its_spaces() {
        assert_eq!(LABEL - 10.0 - 12.0, 188.0);
        assert_eq!(
            wrap("time since Pod creation (s)", 188.0),
            ["time since Pod creation (s)"]
        );
        assert_eq!(
            wrap("time since the replicas were created (s)", 188.0),
            ["time since the replicas were", "created (s)"]
        );
        assert_eq!(wrap("a-very-long-word b", 50.0), ["a-very-long-word", "b"]);
    }
}

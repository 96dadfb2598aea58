//! The shared time axis of the timeline pictures: how far it reaches, how
//! instants map to pixels, and its ticks and grid.
//!
//! Invariant: every picture drawn on one axis maps an instant to the same
//! x, so runs (and a Service's rows) stacked on it line up.

use super::super::svg::{Scale, Svg, tick_label, tick_step, ticks};
use super::super::timeline::Timeline;
use super::{Figure, LABEL, MARK_ROOM, MUTED, RIGHT, WIDTH, wrap};
use crate::engine::SimTime;

/// Where the shared time axis of `timelines_svg_on_one_axis` lies: a page that moves a
/// cursor over the picture maps its time to pixels with this.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeAxis {
    /// The time at the axis's right end, in milliseconds (a whole tick
    /// past the longest run).
    pub end_ms: u64,
    /// The x of time zero, in the picture's pixels.
    pub left_px: f64,
    /// The x of `end_ms`.
    pub right_px: f64,
    /// The picture's width in pixels.
    pub width_px: u32,
}

/// The axis title's room: from the picture's left margin (10 px) to a gap
/// (12 px) before the 0 tick's label, which is centred on `LABEL`.
const TITLE_ROOM: f64 = LABEL - 10.0 - 12.0;
/// From one line of a wrapped title to the next; two fit above the legend.
const TITLE_LINE: f64 = 14.0;

/// The room a wrapped axis title takes below the axis beyond its first
/// line: what a picture adds to its height, and moves its legend down by.
pub(crate) fn title_extra(title: &str) -> f64 {
    TITLE_LINE * (wrap(title, TITLE_ROOM).len().max(1) - 1) as f64
}

impl TimeAxis {
    /// The axis `timelines_svg_on_one_axis` draws for `figures`.
    pub fn for_figures(figures: &[Figure]) -> TimeAxis {
        let timelines: Vec<Timeline> = figures.iter().map(|f| Timeline::new(f.spec, f.report)).collect();
        TimeAxis::of(&timelines)
    }

    /// The axis that shows all of `timelines`.
    pub(crate) fn of(timelines: &[Timeline]) -> TimeAxis {
        let longest = timelines
            .iter()
            .map(|t| t.span().as_millis())
            .max()
            .unwrap_or(1)
            .max(1) as f64
            / 1000.0;
        let step = tick_step(0.0, longest, 12);
        let mut axis_end = (longest / step).ceil() * step;
        // A mark on the very last instant would straddle the frame's edge.
        let span_px = WIDTH as f64 - RIGHT - LABEL;
        if (axis_end - longest) / axis_end * span_px < MARK_ROOM {
            axis_end += step;
        }
        TimeAxis {
            end_ms: (axis_end * 1000.0).round() as u64,
            left_px: LABEL,
            right_px: WIDTH as f64 - RIGHT,
            width_px: WIDTH,
        }
    }

    /// Seconds to pixels along the axis.
    fn scale(&self) -> Scale {
        Scale {
            lo: 0.0,
            hi: self.end_ms as f64 / 1000.0,
            from_px: self.left_px,
            to_px: self.right_px,
        }
    }

    /// The x of instant `t`.
    pub(crate) fn x(&self, t: SimTime) -> f64 {
        self.scale().px(t.as_millis() as f64 / 1000.0)
    }

    /// The tick values, in seconds.
    fn ticks(&self) -> Vec<f64> {
        ticks(0.0, self.end_ms as f64 / 1000.0, 12)
    }

    /// The faint vertical grid at each tick, from `top` to `bottom`.
    pub(crate) fn draw_grid(&self, svg: &mut Svg, top: f64, bottom: f64) {
        for t in self.ticks() {
            let px = self.scale().px(t);
            svg.line((px, top), (px, bottom), &[("stroke", &"#eeeeee")]);
        }
    }

    /// The axis line, its ticks and labels at `y`, and its title at the
    /// left, in the label column: a title wider than the room left of the
    /// 0 tick's label wraps at its spaces rather than run into it.
    pub(crate) fn draw(&self, svg: &mut Svg, y: f64, title: &str) {
        svg.line((LABEL, y), (self.right_px, y), &[("stroke", &"#333333")]);
        for t in self.ticks() {
            let px = self.scale().px(t);
            svg.line((px, y), (px, y + 4.0), &[("stroke", &"#333333")]);
            svg.text(px, y + 16.0, &tick_label(t), &[("text-anchor", &"middle")]);
        }
        for (i, line) in wrap(title, TITLE_ROOM).iter().enumerate() {
            svg.text(
                10.0,
                y + 16.0 + TITLE_LINE * i as f64,
                line,
                &[("fill", &MUTED), ("class", &"axis-title")],
            );
        }
    }
}

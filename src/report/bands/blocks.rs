//! Runs laid out one above another, each block with its bands, its line
//! labels and its height, and the time axes they are drawn on: one axis
//! shared by every run (the seed's two layouts side by side read as one
//! picture), or, when a run would fill less than a quarter of the shared
//! axis (a 14 s Pod beside one that runs 24 h), an axis of its own under
//! each run, so that none is a sliver at the left edge.
//!
//! Why not a broken axis: it keeps one scale only up to the break, and the
//! long run's own story (its hourly restarts, say) is then cut wherever the
//! break falls; two runs this different in length have no instants worth
//! comparing on one scale, and each on its own axis reads whole.
//!
//! Invariant: a block's bands, marks and lines are drawn on its block's
//! axis, and when the blocks' axes differ each axis is drawn right under
//! its block, with its title.

use super::axis::title_extra;
use super::lines::{LineLabel, label_rows, place_labels};
use super::{AXIS, Figure, GAP, LABEL_GAP, LABEL_ROW, LEGEND, ROW, TITLE_ROW, TOP, TimeAxis, WIDTH};
use super::{draw_block, draw_legend};
use crate::engine::SimTime;
use crate::report::svg::Svg;
use crate::report::timeline::Timeline;

/// Under a block on an axis of its own: the axis, its tick labels and
/// room before the next block.
const OWN_AXIS: f64 = 28.0;
/// A run shorter than this share of the longest gets an axis of its own
/// (with all the others): on the shared axis it would be a sliver.
const SLIVER: f64 = 0.25;
/// The Pod pictures' time axis title.
const TIME_TITLE: &str = "time since Pod creation (s)";

/// Runs laid out one above another, ready to draw from some `top`.
pub(crate) struct Blocks<'f, 'a> {
    figures: &'f [Figure<'a>],
    timelines: Vec<Timeline>,
    labels: Vec<Vec<LineLabel>>,
    heights: Vec<f64>,
    /// Each block's axis.
    axes: Vec<TimeAxis>,
    /// Each block has an axis of its own, drawn under it with this title.
    own_title: Option<&'static str>,
}

impl<'f, 'a> Blocks<'f, 'a> {
    /// The blocks of `figures`, whose bands are `timelines`, on `axis`.
    pub(crate) fn new(figures: &'f [Figure<'a>], timelines: Vec<Timeline>, axis: &TimeAxis) -> Self {
        let axes = vec![*axis; timelines.len()];
        Blocks::on(figures, timelines, axes, None)
    }

    /// The blocks of `figures`, each on an axis of its own titled `title`.
    fn each_on_its_own(figures: &'f [Figure<'a>], timelines: Vec<Timeline>, title: &'static str) -> Self {
        let axes = timelines
            .iter()
            .map(|t| TimeAxis::of(std::slice::from_ref(t)))
            .collect();
        Blocks::on(figures, timelines, axes, Some(title))
    }

    fn on(
        figures: &'f [Figure<'a>],
        timelines: Vec<Timeline>,
        axes: Vec<TimeAxis>,
        own_title: Option<&'static str>,
    ) -> Self {
        let labels: Vec<Vec<LineLabel>> = (timelines.iter().zip(&axes))
            .map(|(t, axis)| place_labels(t, &|at: SimTime| axis.x(at), SimTime(axis.end_ms)))
            .collect();
        let under = if own_title.is_some() { OWN_AXIS } else { 0.0 };
        let heights = (figures.iter().zip(&labels))
            .map(|(f, l)| block_height(f, label_rows(l)) + under)
            .collect();
        Blocks {
            figures,
            timelines,
            labels,
            heights,
            axes,
            own_title,
        }
    }

    /// Their height together, the gap after the last one included (and,
    /// on axes of their own, the last one's axis).
    pub(crate) fn height(&self) -> f64 {
        self.heights.iter().sum()
    }

    /// Draws them from `top` down; on axes of their own, each with its
    /// grid and, under it, its axis.
    pub(crate) fn draw(&self, svg: &mut Svg, top: f64) {
        let mut y = top;
        for (i, figure) in self.figures.iter().enumerate() {
            let axis = &self.axes[i];
            let content_bottom = y + self.heights[i] - GAP - self.own_axis();
            if self.own_title.is_some() {
                axis.draw_grid(svg, y, content_bottom);
            }
            let x = |t: SimTime| axis.x(t);
            draw_block(svg, figure, &self.timelines[i], &self.labels[i], y, &x);
            if let Some(title) = self.own_title {
                axis.draw(svg, content_bottom + 6.0, title);
            }
            y += self.heights[i];
        }
    }

    /// The room each block's own axis takes under it (none when shared).
    fn own_axis(&self) -> f64 {
        if self.own_title.is_some() { OWN_AXIS } else { 0.0 }
    }
}

/// The height of one run's block, with `label_rows` rows of line labels.
fn block_height(figure: &Figure, label_rows: usize) -> f64 {
    TITLE_ROW
        + LABEL_GAP
        + LABEL_ROW * label_rows as f64
        + ROW * (figure.spec.containers.len() + 1) as f64
        + GAP
}

/// Whether `timelines` share one axis: unless a run would fill less than
/// a quarter of it.
fn share_an_axis(timelines: &[Timeline]) -> bool {
    let spans = || timelines.iter().map(|t| t.span().as_millis());
    let (shortest, longest) = (spans().min().unwrap_or(1), spans().max().unwrap_or(1));
    shortest as f64 >= SLIVER * longest as f64
}

/// Draws `figures` stacked: on one time axis, or each on its own when one
/// run would be a sliver beside another.
pub fn timelines_svg(figures: &[Figure]) -> String {
    let timelines: Vec<Timeline> = figures.iter().map(|f| Timeline::new(f.spec, f.report)).collect();
    let shared = share_an_axis(&timelines);
    draw(figures, timelines, shared)
}

/// Draws `figures` stacked on one time axis whatever their lengths (the
/// axis `TimeAxis::for_figures` gives): for a page that moves one time
/// cursor over the picture.
pub fn timelines_svg_on_one_axis(figures: &[Figure]) -> String {
    let timelines: Vec<Timeline> = figures.iter().map(|f| Timeline::new(f.spec, f.report)).collect();
    draw(figures, timelines, true)
}

fn draw(figures: &[Figure], timelines: Vec<Timeline>, shared: bool) -> String {
    let axis = shared.then(|| TimeAxis::of(&timelines));
    let blocks = match &axis {
        Some(axis) => Blocks::new(figures, timelines, axis),
        None => Blocks::each_on_its_own(figures, timelines, TIME_TITLE),
    };
    // The last block's bands end here; the shared axis, or the last
    // block's own, lies under it.
    let content_bottom = TOP + blocks.height() - blocks.own_axis() - GAP;
    let extra = title_extra(TIME_TITLE);
    let height = (content_bottom + GAP + AXIS + extra + LEGEND).ceil() as u32;
    let mut svg = Svg::new(WIDTH, height);
    svg.title("podsim timelines");
    let axis_y = content_bottom + 6.0;
    if let Some(axis) = &axis {
        axis.draw_grid(&mut svg, TOP, content_bottom);
    }
    blocks.draw(&mut svg, TOP);
    if let Some(axis) = &axis {
        axis.draw(&mut svg, axis_y, TIME_TITLE);
    }
    draw_legend(&mut svg, axis_y + AXIS - 10.0 + extra);
    svg.finish()
}

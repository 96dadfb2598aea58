//! What stands at a point of the plot: each group's marker (colour, shape,
//! filled or hollow) and the pixel bins runs are gathered into, apart from
//! the layout of axes, frontiers and legend that places them.

use std::collections::BTreeMap;

use super::super::{BIN, Point};
use super::PALETTE;
use crate::report::svg::{Num, Scale};
/// The shapes markers cycle through, each filled and then hollow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    Circle,
    Square,
    Diamond,
    Triangle,
}

/// How group `i` is drawn.
#[derive(Clone, Copy, Debug)]
pub(super) struct Marker {
    pub(super) color: &'static str,
    pub(super) shape: Shape,
    pub(super) filled: bool,
}

impl Marker {
    pub(super) fn of(group: usize) -> Marker {
        let shapes = [Shape::Circle, Shape::Square, Shape::Diamond, Shape::Triangle];
        Marker {
            color: PALETTE[group % PALETTE.len()],
            shape: shapes[(group / 2) % shapes.len()],
            filled: group.is_multiple_of(2),
        }
    }

    /// The marker's outline centred on `(x, y)`, about 7 px across.
    pub(super) fn path(self, x: f64, y: f64) -> String {
        let (x, y) = (Num(x), Num(y));
        match self.shape {
            Shape::Circle => format!("M{} {y}a3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0 -7 0Z", Num(x.0 - 3.5)),
            Shape::Square => format!("M{} {}h6v6h-6Z", Num(x.0 - 3.0), Num(y.0 - 3.0)),
            Shape::Diamond => format!("M{x} {}l4 4l-4 4l-4 -4Z", Num(y.0 - 4.0)),
            Shape::Triangle => format!("M{x} {}l4 7h-8Z", Num(y.0 - 4.0)),
        }
    }

    /// Fill and stroke: a filled marker is a solid dot, a hollow one a ring
    /// thick enough to read over another group's dot.
    pub(super) fn paint(self, opacity: f64) -> [(&'static str, String); 4] {
        if self.filled {
            [
                ("fill", self.color.to_string()),
                ("fill-opacity", Num(opacity).to_string()),
                ("stroke", "none".to_string()),
                ("stroke-width", "0".to_string()),
            ]
        } else {
            [
                ("fill", "none".to_string()),
                ("stroke-opacity", Num(opacity).to_string()),
                ("stroke", self.color.to_string()),
                ("stroke-width", "1.6".to_string()),
            ]
        }
    }
}

/// The runs of one group that fall in one `BIN` × `BIN` pixel cell.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bin {
    pub(super) runs: usize,
    /// The mean position of those runs, in pixels.
    pub(super) x: f64,
    pub(super) y: f64,
}

/// Bins `points` on the pixel grid, in a deterministic (cell) order.
pub(super) fn bin(points: &[Point], sx: Scale, sy: Scale) -> Vec<Bin> {
    let mut cells: BTreeMap<(i64, i64), Bin> = BTreeMap::new();
    for p in points {
        let (px, py) = (sx.px(p.x), sy.px(p.y));
        let key = ((px / BIN).floor() as i64, (py / BIN).floor() as i64);
        let cell = cells.entry(key).or_insert(Bin {
            runs: 0,
            x: 0.0,
            y: 0.0,
        });
        cell.runs += 1;
        cell.x += px;
        cell.y += py;
    }
    cells
        .into_values()
        .map(|b| Bin {
            x: b.x / b.runs as f64,
            y: b.y / b.runs as f64,
            ..b
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_get_distinct_markers_filled_then_hollow() {
        let markers: Vec<(Shape, bool)> = (0..4)
            .map(|i| (Marker::of(i).shape, Marker::of(i).filled))
            .collect();
        assert_eq!(
            markers,
            [
                (Shape::Circle, true),
                (Shape::Circle, false),
                (Shape::Square, true),
                (Shape::Square, false)
            ]
        );
    }
}

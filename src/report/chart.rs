//! The run in the terminal: a band chart of the Pod's containers (the
//! `Timeline`'s bands as glyphs), its exposed row and marks, in exactly as
//! many cells as `run --width` asks; the Service's chart (`service::chart`)
//! lays its rows on the same `Cells`.
//!
//! Invariant: a cell shows the state at its middle instant, and every row
//! of a chart has `Cells::count` glyphs.

use std::fmt::Write;

use super::timeline::{BandState, Timeline};
use crate::engine::{SimDuration, SimTime};

/// The terminal chart's columns: exactly as many equal cells as the width
/// asked for (`run --width`), each a `count`-th of the span. Cells of a
/// round time (1, 2 or 5 × 10^k ms) left the chart at whatever width that
/// came to: 28 cells for `--width 40` on a 14 s run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cells {
    /// The time the cells cover, from 0.
    pub span: SimDuration,
    /// How many cells cover it.
    pub count: usize,
}

impl Cells {
    /// `columns` cells covering `span`.
    pub fn new(span: SimTime, columns: u64) -> Cells {
        Cells {
            span: SimDuration(span.as_millis()),
            count: columns.max(1) as usize,
        }
    }

    /// The instants cell `c` covers, `[from, to)` in milliseconds (rounded
    /// down: a cell is not a whole number of them in general).
    pub fn bounds(&self, c: usize) -> (u64, u64) {
        let at = |c: usize| self.span.as_millis() * c as u64 / self.count as u64;
        (at(c), at(c + 1))
    }

    /// The middle instant of cell `c`: the state a cell shows.
    pub fn mid(&self, c: usize) -> SimTime {
        SimTime(self.span.as_millis() * (2 * c as u64 + 1) / (2 * self.count as u64))
    }

    /// The cell instant `t` falls in (the last, for `t` at or past the end).
    pub fn of(&self, t: SimTime) -> usize {
        let c = t.as_millis().saturating_mul(self.count as u64) / self.span.as_millis().max(1);
        (c as usize).min(self.count - 1)
    }

    /// A row of `glyphs` with `glyph` in the cell of each instant given.
    pub fn marks(&self, marks: &[(Option<SimTime>, char)]) -> String {
        let mut row = vec![' '; self.count];
        for &(t, glyph) in marks {
            if let Some(t) = t {
                row[self.of(t)] = glyph;
            }
        }
        row.into_iter().collect()
    }

    /// One cell's time in words: `500ms`, or `≈ 233ms` when the span does
    /// not divide into whole milliseconds per cell.
    fn cell(&self) -> String {
        let (span, count) = (self.span.as_millis(), self.count as u64);
        match span % count {
            0 => format!("= {}", SimDuration(span / count)),
            _ => format!("≈ {}", SimDuration((span + count / 2) / count)),
        }
    }

    /// The line under a chart: `0`, the span's end, and the cell's time.
    pub fn scale(&self, label_width: usize, span: SimTime) -> String {
        format!(
            "{:<label_width$}  0{:>w$}  (one cell {})",
            "",
            span.to_string(),
            self.cell(),
            w = self.count.saturating_sub(1)
        )
    }
}

/// Row `i` of `timeline` in `cells`: each cell the state at its middle.
pub fn band_row(timeline: &Timeline, i: usize, cells: &Cells) -> String {
    (0..cells.count)
        .map(|c| timeline.state_at(i, cells.mid(c)).glyph())
        .collect()
}

/// The band glyphs' legend, one line.
pub fn band_legend() -> String {
    let legend: Vec<String> = BandState::ALL
        .iter()
        .filter(|s| **s != BandState::Exited)
        .map(|s| format!("{} {}", s.glyph(), s.name()))
        .collect();
    legend.join("  ")
}

/// The terminal band chart: one row per container plus the exposed row, each
/// cell showing the state at the middle of its slice of time.
pub fn band_chart(timeline: &Timeline, columns: u64) -> String {
    let cells = Cells::new(timeline.span(), columns);
    let label_width = timeline
        .rows
        .iter()
        .map(|r| r.name.len() + r.kind.name().len() + 3)
        .max()
        .unwrap_or(8)
        .max(8);
    let mut out = String::new();
    for (i, row) in timeline.rows.iter().enumerate() {
        let label = format!("{} ({})", row.name, row.kind.name());
        let _ = writeln!(out, "{label:<label_width$} |{}|", band_row(timeline, i, &cells));
    }
    let exposed: String = (0..cells.count)
        .map(|c| {
            if timeline.exposed_at(cells.mid(c)) {
                '!'
            } else {
                ' '
            }
        })
        .collect();
    let _ = writeln!(out, "{:<label_width$} |{exposed}|", "exposed");
    let marks = cells.marks(&[
        (timeline.ready, 'R'),
        (timeline.deletion, 'D'),
        (timeline.kill_deadline.filter(|&k| k <= timeline.span()), 'K'),
    ]);
    let _ = writeln!(out, "{:<label_width$} |{marks}|", "");
    let _ = writeln!(out, "{}", cells.scale(label_width, timeline.span()));
    let _ = writeln!(
        out,
        "{}  ! exposed  R Ready  D deletion  K SIGKILL deadline",
        band_legend()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::simulate_pod;
    use crate::scenario::Scenario;

    const SIDE_BY_SIDE: &str = include_str!("../../scenarios/seed-side-by-side.toml");

    #[test]
    fn band_chart_draws_one_row_per_container_and_the_exposed_row() {
        let s = Scenario::parse(SIDE_BY_SIDE, "s.toml").unwrap();
        let t = Timeline::new(&s.run.pod, &simulate_pod(&s.run));
        let chart = band_chart(&t, 26);
        let lines: Vec<&str> = chart.lines().collect();
        // 13 s in 26 cells of 500 ms; web's row: waiting 0–2, booting 2–3,
        // running 3–10, draining 10–13.
        let web = format!(
            "{}{}{}{}",
            "·".repeat(4),
            "░".repeat(2),
            "█".repeat(14),
            "▒".repeat(6)
        );
        assert_eq!(lines[2], format!("{:<19} |{web}|", "web (app)"));
        let exposed = format!(
            "{}{}{}{}",
            " ".repeat(6),
            "!".repeat(4),
            " ".repeat(12),
            "!".repeat(4)
        );
        assert_eq!(lines[3], format!("{:<19} |{exposed}|", "exposed"));
        assert!(lines[5].ends_with("(one cell = 500ms)"));
    }

    #[test]
    fn the_band_chart_is_as_many_cells_wide_as_asked() {
        let s = Scenario::parse(SIDE_BY_SIDE, "s.toml").unwrap();
        let t = Timeline::new(&s.run.pod, &simulate_pod(&s.run));
        let chart = band_chart(&t, 60);
        let lines: Vec<&str> = chart.lines().collect();
        // 13 s in 60 cells of 216⅔ ms; cell c shows the instant
        // ⌊13,000 · (2c + 1) / 120⌋ ms. Waiting until 2 s: c ≤ 8 (1,841 ms;
        // c = 9 is 2,058); booting until 3 s: to c = 13 (2,925; 14 is
        // 3,141); running until 10 s: to c = 45 (9,858; 46 is 10,075);
        // draining the 14 left.
        let web = format!(
            "{}{}{}{}",
            "·".repeat(9),
            "░".repeat(5),
            "█".repeat(32),
            "▒".repeat(14)
        );
        assert_eq!(lines[2], format!("{:<19} |{web}|", "web (app)"));
        // Exposed 3–5 s: c = 14 to 22 (4,875; 23 is 5,091); 11–13 s: from
        // c = 51 (11,158; 50 is 10,941).
        let exposed = format!(
            "{}{}{}{}",
            " ".repeat(14),
            "!".repeat(9),
            " ".repeat(28),
            "!".repeat(9)
        );
        assert_eq!(lines[3], format!("{:<19} |{exposed}|", "exposed"));
        // 13,000 / 60 = 216.67: no whole number of milliseconds.
        assert!(lines[5].ends_with("(one cell ≈ 217ms)"), "{}", lines[5]);
        assert_eq!(Cells::new(SimTime(14_000), 40).cell(), "= 350ms");
    }
}

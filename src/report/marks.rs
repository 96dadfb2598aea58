//! The event marks of the timeline picture: one small shape per change
//! that the band colours do not already say (a start, a SIGTERM, an exit,
//! a probe kill), drawn over the container's band with its time as tooltip.
//!
//! Invariant: every mark kind has one shape and one legend entry (`ALL`),
//! and a trace entry maps to at most one mark.

use super::svg::{Num, Svg};
use crate::engine::SimTime;
use crate::model::{Change, ExitReason};

/// The height of the band a mark is drawn on.
pub const BAND: f64 = 16.0;

/// The kinds of event mark, in legend order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The kubelet started creating the container (its boot begins).
    Start,
    /// The container's process is up (a startup probe, if any, passed).
    Started,
    /// A startup or liveness probe failed its threshold: the kubelet kills
    /// the container (the SIGTERM that follows has its own mark).
    ProbeKill,
    /// The kubelet sent SIGTERM (after the preStop hook, if any).
    Sigterm,
    /// The container exited on its own or after SIGTERM.
    Exit,
    /// The container exited with a failure or crashed.
    Failed,
    /// The grace period ran out and the kubelet killed the container.
    Sigkill,
}

impl Mark {
    /// Every mark, in the order the legend lists them.
    pub const ALL: [Mark; 7] = [
        Mark::Start,
        Mark::Started,
        Mark::ProbeKill,
        Mark::Sigterm,
        Mark::Exit,
        Mark::Failed,
        Mark::Sigkill,
    ];

    /// The mark of a trace entry; `None` for what the band colours already say.
    pub fn of(what: Change) -> Option<Mark> {
        match what {
            Change::Starting { .. } => Some(Mark::Start),
            Change::Started => Some(Mark::Started),
            Change::ProbeFailed { .. } => Some(Mark::ProbeKill),
            Change::Sigterm { .. } => Some(Mark::Sigterm),
            Change::Exited(ExitReason::Failed(_) | ExitReason::Crashed) => Some(Mark::Failed),
            // A SIGKILL has a mark of its own at the same instant.
            Change::Exited(ExitReason::Killed) => None,
            Change::Exited(_) => Some(Mark::Exit),
            Change::Sigkill => Some(Mark::Sigkill),
            _ => None,
        }
    }

    /// The mark's name in the legend.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Start => "start",
            Mark::Started => "started",
            Mark::ProbeKill => "probe kill",
            Mark::Sigterm => "SIGTERM",
            Mark::Exit => "exit 0",
            Mark::Failed => "non-zero exit",
            Mark::Sigkill => "SIGKILL",
        }
    }

    /// Draws the mark centred on `(x, y)` in a band of height `BAND`: the
    /// SIGTERM hangs from the band's top edge and the probe kill stands on
    /// its bottom edge, so both show when they come at the same instant.
    pub fn draw(self, svg: &mut Svg, x: f64, y: f64, title: &str, at: Option<SimTime>) {
        let h = BAND / 2.0;
        let shape = match self {
            Mark::Start => format!(
                "M{} {}L{} {}L{} {}Z",
                Num(x),
                Num(y - 5.0),
                Num(x + 6.0),
                Num(y),
                Num(x),
                Num(y + 5.0)
            ),
            Mark::Started => format!("M{} {}a3.5 3.5 0 1 0 0.01 0Z", Num(x - 3.5), Num(y)),
            Mark::Sigterm => format!(
                "M{} {}L{} {}L{} {}Z",
                Num(x - 5.0),
                Num(y - h),
                Num(x + 5.0),
                Num(y - h),
                Num(x),
                Num(y - h + 7.0)
            ),
            Mark::ProbeKill => format!(
                "M{} {}L{} {}L{} {}Z",
                Num(x - 5.0),
                Num(y + h),
                Num(x + 5.0),
                Num(y + h),
                Num(x),
                Num(y + h - 8.0)
            ),
            Mark::Exit | Mark::Failed => format!("M{} {}h7v7h-7Z", Num(x - 3.5), Num(y - 3.5)),
            Mark::Sigkill => format!(
                "M{} {}l9 9M{} {}l-9 9",
                Num(x - 4.5),
                Num(y - 4.5),
                Num(x + 4.5),
                Num(y - 4.5)
            ),
        };
        let (fill, stroke, width) = match self {
            Mark::Started => ("white", "#222222", "1.5"),
            Mark::ProbeKill => ("#8e24aa", "white", "1"),
            Mark::Failed => ("#7f0000", "white", "1"),
            Mark::Sigkill => ("none", "#000000", "2.5"),
            _ => ("#222222", "white", "0.75"),
        };
        let at = at.map_or(String::new(), |t| t.as_millis().to_string());
        svg.titled(
            "path",
            &[
                ("class", &"mark"),
                ("data-kind", &self.name()),
                ("data-at", &at),
                ("d", &shape),
                ("fill", &fill),
                ("stroke", &stroke),
                ("stroke-width", &width),
            ],
            title,
        );
    }
}

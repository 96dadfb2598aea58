//! Typed picks of a Pod's history, shared by the model tests and the
//! manifest tests: a test says which change it means (`first_start`,
//! `exit(ExitReason::Killed)`) and when it expects it, never the
//! timeline's English, which the report's own tests check.

use podsim::engine::SimDuration;
/// The typed history the picks are written in.
pub use podsim::model::{Change, ExitReason, ProbeKind, Signal, UpdateEffect};
use podsim::model::{PodReport, PodSpec};
use podsim::report::line::Line;

/// `report`'s history as `(ms, container or "pod", change)`.
pub fn history(report: &PodReport, spec: &PodSpec) -> Vec<(u64, String, Change)> {
    (report.trace.iter())
        .map(|e| {
            let who = e
                .container
                .map_or("pod".to_string(), |c| spec.container(c).name.clone());
            (e.at.as_millis(), who, e.what)
        })
        .collect()
}

/// When `who` ("pod" for the Pod) first had a change that `pick` picks, in ms.
pub fn first(report: &PodReport, spec: &PodSpec, who: &str, pick: impl Fn(Change) -> bool) -> Option<u64> {
    history(report, spec)
        .into_iter()
        .find(|(_, c, what)| c == who && pick(*what))
        .map(|(t, _, _)| t)
}

/// Picks the changes the event timeline has a line for: a whole timeline
/// is compared in these, without the ones only views and meters read.
pub fn shown(c: Change) -> bool {
    Line::of(c).is_some()
}

/// Picks `change` and nothing else.
pub fn is(change: Change) -> impl Fn(Change) -> bool {
    move |c| c == change
}

/// Picks the container's first start.
pub fn first_start(c: Change) -> bool {
    c == Change::Starting { attempt: 1 }
}

/// Picks the start of attempt `n` (from 1).
pub fn attempt(n: u32) -> impl Fn(Change) -> bool {
    is(Change::Starting { attempt: n })
}

/// Picks a start after the first: a restart (R20).
pub fn restarted(c: Change) -> bool {
    matches!(c, Change::Starting { attempt } if attempt > 1)
}

/// Picks the kill for a failed `probe` (R12, R30).
pub fn probe_failed(probe: ProbeKind) -> impl Fn(Change) -> bool {
    is(Change::ProbeFailed { probe })
}

/// Picks an exit for `reason`.
pub fn exit(reason: ExitReason) -> impl Fn(Change) -> bool {
    is(Change::Exited(reason))
}

/// Picks any exit.
pub fn exited(c: Change) -> bool {
    matches!(c, Change::Exited(_))
}

/// Picks an exit with `code`, whatever its reason.
pub fn exited_with(code: i32) -> impl Fn(Change) -> bool {
    move |c| matches!(c, Change::Exited(reason) if reason.code() == code)
}

/// Picks a SIGTERM, whatever its stop timeout.
pub fn sigterm(c: Change) -> bool {
    matches!(
        c,
        Change::Sigterm {
            signal: Signal::Term,
            ..
        }
    )
}

/// Picks a SIGTERM with a stop timeout of `secs` seconds.
pub fn sigterm_with(secs: u64) -> impl Fn(Change) -> bool {
    is(Change::Sigterm {
        timeout: SimDuration::from_secs(secs),
        signal: Signal::Term,
    })
}

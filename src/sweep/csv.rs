//! The sweep's row encoder: CSV cells and rows as bytes, for sweeps that
//! write millions of rows; the hot path appends integers with `itoa` into a
//! reused buffer and never allocates or goes through `fmt`.
//!
//! Invariant: a metric cell is written exactly as `Metrics::NAMES` names it:
//! integer milliseconds or counts as plain digits, an absent moment as an
//! empty cell, words as they are; the header and the cells always agree in
//! number and order.

use crate::model::job::{JobFigures, JobOutcome};
use crate::model::service::ServiceMetrics;
use crate::model::{Field, Metrics};

/// Appends `n` in decimal.
pub fn push_u64(buf: &mut Vec<u8>, n: u64) {
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends `text` as one cell, quoted (with `"` doubled) only if it holds a
/// comma, a quote or a line break.
pub fn push_text(buf: &mut Vec<u8>, text: &str) {
    if text.contains([',', '"', '\n', '\r']) {
        buf.push(b'"');
        buf.extend_from_slice(text.replace('"', "\"\"").as_bytes());
        buf.push(b'"');
    } else {
        buf.extend_from_slice(text.as_bytes());
    }
}

/// Appends one cell per metric, each preceded by a comma, in `Metrics::NAMES` order.
pub fn push_metrics(buf: &mut Vec<u8>, metrics: &Metrics) {
    for field in metrics.fields() {
        buf.push(b',');
        match field {
            Field::Millis(Some(ms)) => push_u64(buf, ms),
            Field::Millis(None) => {}
            Field::Count(n) => push_u64(buf, u64::from(n)),
            Field::Text(text) => buf.extend_from_slice(text.as_bytes()),
        }
    }
}

/// Appends the Job's cells (`JobFigures::NAMES`), each after a comma:
/// empty for a run that is not a Job's (a `pod.mode` axis's service runs).
pub fn push_job(buf: &mut Vec<u8>, job: Option<&JobFigures>) {
    let Some(job) = job else {
        buf.extend_from_slice(&[b','; JobFigures::NAMES.len()]);
        return;
    };
    buf.push(b',');
    buf.extend_from_slice(job.outcome.name().as_bytes());
    buf.push(b',');
    let failure = match job.outcome {
        JobOutcome::Failed { reason, .. } => Some(reason),
        _ => None,
    };
    if let Some(reason) = failure {
        buf.extend_from_slice(reason.reason().as_bytes());
    }
    buf.push(b',');
    if let Some(fired) = failure.and_then(|r| r.fired()) {
        push_u64(buf, fired.rule as u64);
    }
    for n in [
        Some(u64::from(job.pods)),
        Some(u64::from(job.failed)),
        job.outcome.at().map(|t| t.as_millis()),
    ] {
        buf.push(b',');
        if let Some(n) = n {
            push_u64(buf, n);
        }
    }
}

/// Appends one cell per Service metric, each preceded by a comma, in
/// `ServiceMetrics::NAMES` order, then `RolloutFigures::NAMES` for a run
/// with a rollout and `DrainFigures::NAMES` for one with a drain (whose
/// grids have those columns).
pub fn push_service_metrics(buf: &mut Vec<u8>, metrics: &ServiceMetrics) {
    for (name, n) in ServiceMetrics::NAMES.iter().zip(metrics.numbers()) {
        buf.push(b',');
        match (*name, n) {
            ("outcome", _) => buf.extend_from_slice(metrics.outcome().as_bytes()),
            (_, Some(n)) => push_u64(buf, n),
            (_, None) => {}
        }
    }
    let rollout = metrics.rollout.iter().flat_map(|r| r.numbers());
    let drain = metrics.drain.iter().flat_map(|d| d.numbers());
    for n in rollout.chain(drain) {
        buf.push(b',');
        if let Some(n) = n {
            push_u64(buf, n);
        }
    }
}

/// The header line (with its newline) for these column names.
pub fn header_line<S: AsRef<str>>(columns: &[S]) -> Vec<u8> {
    let mut line = Vec::new();
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            line.push(b',');
        }
        push_text(&mut line, column.as_ref());
    }
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Outcome, PodPhase};

    #[test]
    fn absent_moments_are_empty_cells_and_words_are_plain() {
        let metrics = Metrics {
            ready_ms: None,
            exposed_startup_ms: 2000,
            exposed_shutdown_ms: 0,
            exposed_total_ms: 2000,
            termination_ms: Some(3000),
            completed_ms: None,
            restarts: 1,
            sigkilled: 0,
            phase: PodPhase::Failed,
            outcome: Outcome::Horizon,
            end_ms: 86_400_000,
        };
        let mut buf = b"7".to_vec();
        push_metrics(&mut buf, &metrics);
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "7,,2000,0,2000,3000,,1,0,Failed,horizon,86400000"
        );
    }

    #[test]
    fn header_quotes_only_what_needs_quoting() {
        let line = header_line(&["run", "containers.a,b.boot_ms", "say \"hi\""]);
        assert_eq!(line, b"run,\"containers.a,b.boot_ms\",\"say \"\"hi\"\"\"\n");
    }
}

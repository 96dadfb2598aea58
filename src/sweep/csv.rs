//! The sweep's row encoder: CSV cells and rows as bytes, for sweeps that
//! write millions of rows; the hot path writes digits straight into room
//! made once per row in a reused buffer, and never allocates or goes
//! through `fmt`.
//!
//! Invariant: a metric cell is written exactly as `Metrics::NAMES` names it:
//! integer milliseconds or counts as plain digits, an absent moment as an
//! empty cell, words as they are; the header and the cells always agree in
//! number and order.

use crate::model::job::{JobFigures, JobOutcome};
use crate::model::service::ServiceMetrics;
use crate::model::{Field, Metrics};

/// The most digits a `u64` takes in decimal.
const MAX_DIGITS: usize = 20;

/// The most bytes of a number's cell with its comma.
pub const NUMBER_CELL_BYTES: usize = 1 + MAX_DIGITS;

/// The most bytes of a row's metric cells, each a comma and at most a
/// number's digits (the words are shorter).
pub const METRIC_BYTES: usize = Metrics::NAMES.len() * NUMBER_CELL_BYTES;

/// "00" to "99": digits are written two at a time.
const PAIRS: [[u8; 2]; 100] = {
    let mut pairs = [[0; 2]; 100];
    let mut i = 0;
    while i < 100 {
        pairs[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    pairs
};

/// Cells written in place into room made ahead: a number's digits go
/// straight to their place, with no copy from a scratch buffer and no
/// capacity check per cell, which is most of what a cell costs. The room is
/// a slice apart from any `Vec`, so its address and the length written stay
/// in registers (a byte stored through a `Vec` might alias its fields, and
/// they would be read again after every byte). A write past the room panics.
pub struct Cells<'b> {
    room: &'b mut [u8],
    len: usize,
}

/// Appends what `write` writes, at most `max` bytes (the room is zeroed
/// first, as safe code must).
#[inline(always)]
pub fn append(buf: &mut Vec<u8>, max: usize, write: impl FnOnce(&mut Cells<'_>)) {
    let start = buf.len();
    buf.resize(start + max, 0);
    let mut cells = Cells::new(&mut buf[start..]);
    write(&mut cells);
    let end = start + cells.written();
    buf.truncate(end);
}

impl<'b> Cells<'b> {
    /// Cells written from the start of `room`.
    #[inline(always)]
    pub fn new(room: &'b mut [u8]) -> Self {
        Cells { room, len: 0 }
    }

    /// How many bytes are written.
    #[inline(always)]
    pub fn written(&self) -> usize {
        self.len
    }

    /// The next `bytes` bytes, to be written.
    #[inline(always)]
    fn next(&mut self, bytes: usize) -> &mut [u8] {
        &mut self.room[self.len..self.len + bytes]
    }

    /// Appends one byte (a comma, a line's end).
    #[inline(always)]
    pub fn byte(&mut self, byte: u8) {
        self.next(1)[0] = byte;
        self.len += 1;
    }

    /// Appends `bytes` as they are.
    #[inline(always)]
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.next(bytes.len()).copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// Appends `n` in decimal.
    #[inline(always)]
    pub fn number(&mut self, n: u64) {
        // One digit (a count, an empty span) is most cells: no length to find.
        if n < 10 {
            return self.byte(b'0' + n as u8);
        }
        let len = decimal_len(n);
        write_digits(self.next(len), n);
        self.len += len;
    }

    /// Appends a comma and `text`, a word's cell (one look at the room).
    #[inline(always)]
    pub fn text_cell(&mut self, text: &[u8]) {
        let (comma, rest) = self.next(1 + text.len()).split_at_mut(1);
        comma[0] = b',';
        rest.copy_from_slice(text);
        self.len += 1 + text.len();
    }

    /// Appends a comma and `n` in decimal, a number's cell: `byte` and
    /// `number` with one look at the room instead of two.
    #[inline(always)]
    pub fn number_cell(&mut self, n: u64) {
        if n < 10 {
            self.next(2).copy_from_slice(&[b',', b'0' + n as u8]);
            self.len += 2;
            return;
        }
        let len = decimal_len(n);
        let (comma, digits) = self.next(1 + len).split_at_mut(1);
        comma[0] = b',';
        write_digits(digits, n);
        self.len += 1 + len;
    }
}

/// 1, 10, 100, … 10^19.
const POWERS_OF_TEN: [u64; MAX_DIGITS] = {
    let mut powers = [1; MAX_DIGITS];
    let mut i = 1;
    while i < MAX_DIGITS {
        powers[i] = powers[i - 1] * 10;
        i += 1;
    }
    powers
};

/// How many digits `n` has in decimal, from its bit length: `1233 / 4096`
/// is just below log10(2), so `guess` is the count or one less, and one
/// comparison tells (a few instructions, where `ilog10` takes some thirty).
#[inline(always)]
fn decimal_len(n: u64) -> usize {
    let n = n | 1; // 0 has one digit, as 1 has
    let bits = (u64::BITS - n.leading_zeros()) as usize;
    let guess = (bits * 1233) >> 12;
    guess + usize::from(n >= POWERS_OF_TEN[guess])
}

/// Writes `n`'s digits into `out`, which is exactly as long as they are:
/// four at a time from the right (one 64-bit division each, the rest in
/// small numbers), then the one to three on the left. Walking `out` by
/// chunks, rather than by index, leaves no bounds to check.
#[inline(always)]
fn write_digits(out: &mut [u8], mut n: u64) {
    let mut rest = out;
    while rest.len() > 3 {
        let mid = rest.len() - 4;
        let (left, four) = std::mem::take(&mut rest).split_at_mut(mid);
        let digits = (n % 10_000) as usize;
        n /= 10_000;
        four[..2].copy_from_slice(&PAIRS[digits / 100]);
        four[2..].copy_from_slice(&PAIRS[digits % 100]);
        rest = left;
    }
    let n = n as usize;
    match rest {
        [hundreds, tens_ones @ ..] if tens_ones.len() == 2 => {
            *hundreds = b'0' + (n / 100) as u8;
            tens_ones.copy_from_slice(&PAIRS[n % 100]);
        }
        tens_ones @ [_, _] => tens_ones.copy_from_slice(&PAIRS[n]),
        [ones] => *ones = b'0' + n as u8,
        _ => {}
    }
}

/// Appends `n` in decimal.
pub fn push_u64(buf: &mut Vec<u8>, n: u64) {
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Adds one to the decimal number `digits` spell, in place: a run's row
/// counts its number up so, rather than writing it anew. False when the
/// number needs one more digit (all nines; the digits are then zeros).
pub fn count_up(digits: &mut [u8]) -> bool {
    for digit in digits.iter_mut().rev() {
        if *digit < b'9' {
            *digit += 1;
            return true;
        }
        *digit = b'0';
    }
    false
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
    append(buf, METRIC_BYTES, |cells| metric_cells(cells, metrics));
}

/// Writes one cell per metric, each preceded by a comma, in `Metrics::NAMES` order.
#[inline(always)]
pub fn metric_cells(cells: &mut Cells<'_>, metrics: &Metrics) {
    metrics.each_field(
        #[inline(always)]
        |field| push_field(cells, field),
    );
}

/// A metric's cell after its comma; inlined into `each_field`'s calls, where
/// the `match` folds away.
#[inline(always)]
fn push_field(cells: &mut Cells<'_>, field: Field) {
    match field {
        Field::Millis(Some(ms)) => cells.number_cell(ms),
        Field::Millis(None) => cells.byte(b','),
        Field::Count(n) => cells.number_cell(u64::from(n)),
        Field::Text(text) => cells.text_cell(text.as_bytes()),
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
/// with a rollout, `DrainFigures::NAMES` for one with a drain or a lost
/// node, `NodeFigures::NAMES` for one with a lost node and
/// `CrashFigures::NAMES` for one that crashes an app (whose grids have
/// those columns).
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
    let node = metrics.node.iter().flat_map(|n| n.numbers());
    let crash = metrics.crash.iter().flat_map(|c| c.numbers());
    for n in rollout.chain(drain).chain(node).chain(crash) {
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

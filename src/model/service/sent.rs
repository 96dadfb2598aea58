//! When a recorded Service run's answered requests were sent, for the
//! picture's request strip, in memory that does not grow with the
//! requests: a day of traffic answers ten million of them, and keeping
//! each instant cost `podsim run` half a gigabyte.
//!
//! Invariant: `len` is the number of requests noted, and `each` visits
//! them all, once each. While there are at most `EXACT` of them each
//! instant is kept as it was noted (the strip draws such runs one mark
//! per request); past that they are counted per bucket of `width` ms from
//! time zero, the width doubling whenever an instant falls past the last
//! of `BUCKETS` buckets. A run whose requests were all sent in the first
//! `BUCKETS` ms keeps 1 ms buckets, which place every request in the
//! column its own instant would.

use crate::engine::SimTime;

/// Instants kept one by one before they are counted per bucket: more
/// than the strip ever draws one by one (`picture::MAX_MARKS`).
const EXACT: usize = 1 << 16;
/// Buckets at most: 512 KiB of counts, whatever the run's length.
const BUCKETS: usize = 1 << 16;

/// The send instants of the answered requests of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SentTimes {
    /// Every instant, in the order noted, while there are at most `EXACT`.
    exact: Vec<SimTime>,
    /// Past `EXACT`: requests per bucket, bucket `i` covering
    /// `[i·width, (i+1)·width)` ms; empty until then.
    buckets: Vec<u64>,
    /// The buckets' width in ms, a power of two (0 while exact).
    width: u64,
    /// Requests noted.
    len: u64,
}

impl SentTimes {
    /// Forgets the last run's requests, keeping allocations.
    pub fn clear(&mut self) {
        self.exact.clear();
        self.buckets.clear();
        self.width = 0;
        self.len = 0;
    }

    /// Requests noted.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// No request was noted.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The instants one by one, in the order noted, if they are still kept
    /// so (at most `EXACT` requests).
    pub fn exact(&self) -> Option<&[SimTime]> {
        (self.width == 0).then_some(self.exact.as_slice())
    }

    /// A request sent at `at` was answered.
    pub fn note(&mut self, at: SimTime) {
        self.len += 1;
        if self.width == 0 {
            self.exact.push(at);
            if self.exact.len() > EXACT {
                self.count_per_bucket();
            }
            return;
        }
        self.add(at, 1);
    }

    /// `n` requests sent over `from..to` were answered (a counted span):
    /// one by one at even steps while few enough are kept so, else spread
    /// over the buckets the span covers in proportion to their overlap.
    pub fn note_spread(&mut self, from: SimTime, to: SimTime, n: u64) {
        if self.width == 0 && self.exact.len() as u64 + n <= EXACT as u64 {
            for i in 0..n {
                self.note(super::trace::spread(from, to, n, i));
            }
            return;
        }
        if self.width == 0 {
            self.count_per_bucket();
        }
        self.len += n;
        let (a, b) = (from.as_millis(), to.as_millis().max(from.as_millis() + 1));
        // Widen first, so the span's buckets stay put while it is spread.
        self.add(SimTime(b - 1), 0);
        let span = u128::from(b - a);
        let mut given = 0;
        let mut at = a;
        while at < b {
            let next = ((at / self.width + 1) * self.width).min(b);
            let share = (u128::from(n) * u128::from(next - a) / span) as u64;
            self.add(SimTime(at), share - given);
            given = share;
            at = next;
        }
    }

    /// Calls `visit` with each instant and how many requests were sent
    /// then: each kept instant once, or each non-empty bucket's start with
    /// its count.
    pub fn each(&self, mut visit: impl FnMut(SimTime, u64)) {
        if self.width == 0 {
            self.exact.iter().for_each(|&at| visit(at, 1));
            return;
        }
        for (i, &n) in self.buckets.iter().enumerate() {
            if n > 0 {
                visit(SimTime(i as u64 * self.width), n);
            }
        }
    }

    /// Moves the kept instants into buckets as narrow as covers them all.
    fn count_per_bucket(&mut self) {
        let last = self.exact.iter().map(|t| t.as_millis()).max().unwrap_or(0);
        self.width = 1;
        while last / self.width >= BUCKETS as u64 {
            self.width *= 2;
        }
        for at in std::mem::take(&mut self.exact) {
            self.add(at, 1);
        }
    }

    fn add(&mut self, at: SimTime, n: u64) {
        let mut i = (at.as_millis() / self.width) as usize;
        while i >= BUCKETS {
            self.widen();
            i = (at.as_millis() / self.width) as usize;
        }
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, 0);
        }
        self.buckets[i] += n;
    }

    /// Doubles the width: bucket `i` takes buckets `2i` and `2i + 1`.
    fn widen(&mut self) {
        let merged = self.buckets.chunks(2).map(|pair| pair.iter().sum()).collect();
        self.buckets = merged;
        self.width *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visited(s: &SentTimes) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        s.each(|at, n| v.push((at.as_millis(), n)));
        v
    }

    #[test]
    fn few_requests_are_kept_one_by_one_in_the_order_noted() {
        let mut s = SentTimes::default();
        for ms in [30, 10, 10] {
            s.note(SimTime(ms));
        }
        assert_eq!(s.len(), 3);
        assert_eq!(s.exact(), Some(&[SimTime(30), SimTime(10), SimTime(10)][..]));
        assert_eq!(visited(&s), [(30, 1), (10, 1), (10, 1)]);
    }

    #[test]
    fn past_the_exact_limit_requests_sent_early_keep_millisecond_buckets() {
        // EXACT + 1 requests, all sent in the first BUCKETS ms: 1 ms buckets,
        // so every request is counted at its own instant.
        let mut s = SentTimes::default();
        for i in 0..=EXACT as u64 {
            s.note(SimTime(i % 1000));
        }
        assert_eq!(s.exact(), None);
        assert_eq!(s.len(), EXACT as u64 + 1);
        let v = visited(&s);
        assert_eq!(v.len(), 1000);
        // 65,537 requests over 1,000 instants: the first 537 instants got 66.
        assert_eq!(v[0], (0, 66));
        assert_eq!(v[537], (537, 65));
        assert_eq!(v.iter().map(|&(_, n)| n).sum::<u64>(), s.len());
    }

    #[test]
    fn a_long_run_widens_its_buckets_and_keeps_every_request() {
        // A day of one request a second, then one at the horizon: buckets
        // double until 25 h (90,000,000 ms) fits in BUCKETS of them, the
        // smallest power of two over 90,000,000 / 65,536 = 1,373.3 ms being
        // 2,048 ms; memory stays at most BUCKETS counts.
        let mut s = SentTimes::default();
        for sec in 0..86_400u64 {
            s.note(SimTime(sec * 1000));
        }
        s.note(SimTime(90_000_000));
        assert_eq!(s.len(), 86_401);
        assert_eq!(s.width, 2048);
        assert!(s.buckets.len() <= BUCKETS);
        let v = visited(&s);
        assert_eq!(v.iter().map(|&(_, n)| n).sum::<u64>(), 86_401);
        // The first bucket, [0, 2048) ms, holds the requests of 0, 1 and 2 s.
        assert_eq!(v[0], (0, 3));
        assert_eq!(v.last(), Some(&(90_000_000 / 2048 * 2048, 1)));
    }

    #[test]
    fn clear_forgets_everything() {
        let mut s = SentTimes::default();
        for i in 0..=EXACT as u64 {
            s.note(SimTime(i));
        }
        s.clear();
        assert!(s.is_empty());
        assert_eq!(s.exact(), Some(&[][..]));
        s.note(SimTime(5));
        assert_eq!(visited(&s), [(5, 1)]);
    }
}

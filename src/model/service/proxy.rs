//! kube-proxy on one node: it hears of each slice version after the node's
//! propagation delay, and asks for a sync through a bounded-frequency runner
//! (`NewBoundedFrequencyRunner(..., minSyncPeriod, time.Hour, 2)`: a token
//! bucket of one token per `minSyncPeriod`, burst 2). Its rules change only
//! when a sync runs, and a sync installs the newest version it has heard of,
//! telling the Service each replica its rules gained or lost.
//!
//! Invariant: a node hears of versions in the order they were published (a
//! watch delivers in order), so its rules never go back to an older version.

use crate::engine::{SimDuration, SimTime};

/// The runner's burst: two syncs may follow each other at once.
const BURST: u64 = 2;

/// One node's kube-proxy.
#[derive(Clone, Debug, Default)]
pub struct Proxy {
    /// The endpoints its rules send new connections to (replica indices).
    pub rules: Vec<u32>,
    /// The newest version heard of, and the one the rules show.
    pub heard: u32,
    pub applied: u32,
    /// When it last heard of a version: the next one is heard no earlier.
    pub last_heard_at: SimTime,
    /// Token credit in milliseconds (one token = `min_sync_period`), as of `credit_at`.
    credit: u64,
    credit_at: SimTime,
    /// A sync is scheduled and will pick up whatever is heard before it runs.
    pub sync_pending: bool,
}

impl Proxy {
    /// A proxy that has run long enough to have a full bucket, and no rules.
    pub fn reset(&mut self, period: SimDuration) {
        self.rules.clear();
        self.heard = 0;
        self.applied = 0;
        self.last_heard_at = SimTime::ZERO;
        self.credit = BURST * period.as_millis();
        self.credit_at = SimTime::ZERO;
        self.sync_pending = false;
    }

    /// A sync runs: the rules become `rules`, the version heard of; `each`
    /// is told of every replica they gain (`true`) or lose, in replica
    /// order. Both lists are in replica order, so one pass finds them.
    pub fn sync(&mut self, rules: &[u32], mut each: impl FnMut(u32, bool)) {
        self.sync_pending = false;
        self.applied = self.heard;
        let (mut i, mut j) = (0, 0);
        loop {
            match (self.rules.get(i).copied(), rules.get(j).copied()) {
                (Some(a), Some(b)) if a == b => (i, j) = (i + 1, j + 1),
                (a, Some(b)) if a.is_none_or(|a| b < a) => {
                    j += 1;
                    each(b, true);
                }
                (Some(a), _) => {
                    i += 1;
                    each(a, false);
                }
                (None, _) => break,
            }
        }
        self.rules.clear();
        self.rules.extend_from_slice(rules);
    }

    /// A sync is requested at `now`: when it runs, or `None` if one is
    /// already scheduled (requests in between are coalesced into it).
    pub fn request_sync(&mut self, now: SimTime, period: SimDuration) -> Option<SimTime> {
        if self.sync_pending {
            return None;
        }
        let token = period.as_millis();
        let refill = now.since(self.credit_at).as_millis();
        self.credit = self.credit.saturating_add(refill).min(BURST * token);
        self.credit_at = now;
        self.sync_pending = true;
        if self.credit >= token {
            self.credit -= token;
            Some(now)
        } else {
            // The token arrives when the credit reaches one; it is spent then.
            let wait = token - self.credit;
            self.credit = 0;
            self.credit_at = now + SimDuration(wait);
            Some(now + SimDuration(wait))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_syncs_go_at_once_then_one_per_period() {
        let period = SimDuration::from_secs(1);
        let mut p = Proxy::default();
        p.reset(period);
        let mut runs = Vec::new();
        for at in [0, 10, 20, 1200] {
            let when = p.request_sync(SimTime(at), period).unwrap();
            // The sync runs (and clears `sync_pending`) before the next request.
            p.sync_pending = false;
            runs.push(when.as_millis());
        }
        // Burst 2: 0 and 10 at once, leaving 10 ms of credit; the next token
        // is whole at 1000, and the one after that a period later.
        assert_eq!(runs, [0, 10, 1000, 2000]);
    }

    #[test]
    fn requests_while_a_sync_is_pending_are_coalesced() {
        let period = SimDuration::from_secs(1);
        let mut p = Proxy::default();
        p.reset(period);
        p.credit = 0;
        assert_eq!(p.request_sync(SimTime(0), period), Some(SimTime(1000)));
        assert_eq!(p.request_sync(SimTime(500), period), None);
    }

    #[test]
    fn a_sync_tells_each_replica_the_rules_gain_or_lose_in_replica_order() {
        let mut p = Proxy::default();
        p.reset(SimDuration::ZERO);
        let mut seen = Vec::new();
        p.sync(&[0, 2, 3], |r, added| seen.push((r, added)));
        assert_eq!(seen, [(0, true), (2, true), (3, true)]);
        seen.clear();
        // 0 stays, 1 comes, 2 and 3 go, 5 comes.
        p.sync(&[0, 1, 5], |r, added| seen.push((r, added)));
        assert_eq!(seen, [(1, true), (2, false), (3, false), (5, true)]);
        assert_eq!(p.rules, [0, 1, 5]);
        seen.clear();
        p.sync(&[], |r, added| seen.push((r, added)));
        assert_eq!(seen, [(0, false), (1, false), (5, false)]);
    }

    #[test]
    fn a_zero_period_syncs_at_once_always() {
        let mut p = Proxy::default();
        p.reset(SimDuration::ZERO);
        assert_eq!(p.request_sync(SimTime(5), SimDuration::ZERO), Some(SimTime(5)));
    }
}

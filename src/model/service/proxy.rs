//! kube-proxy on one node: it hears of each slice version after the node's
//! propagation delay, and asks for a sync through a bounded-frequency runner
//! (`NewBoundedFrequencyRunner(..., minSyncPeriod, time.Hour, 2)`: a token
//! bucket of one token per `minSyncPeriod`, burst 2). Its rules change only
//! when a sync runs, and a sync installs the newest version it has heard of,
//! telling the Service each replica its rules gained or lost.
//!
//! The runner (pkg/util/async/bounded_frequency_runner.go, kube-proxy up to
//! 1.33) runs at once when the bucket has a token (`tryRun`: `TryAccept`);
//! when it has none, it sets its timer to `minInterval` after `lastRun`,
//! which is taken when the last run *returned*: the retry waits for the
//! last sync's end plus `minSyncPeriod`, not for the token (a token is
//! always whole by then: the last sync took one no later than it ended).
//! 1.34 replaced the runner (pkg/proxy/runner, kubernetes#131615) with one
//! of no burst that always waits `minInterval` after a run's end; podsim
//! follows the earlier one, which every release before it ran.
//! Alone, a sync takes no time; with a `[cluster]`, other Services' changes
//! share the runner and a sync takes the time of its lines (`background`).
//!
//! Invariant: a node hears of versions in the order they were published (a
//! watch delivers in order), so its rules never go back to an older version.
//!
//! A node hears of versions published close together at one instant (it
//! hears each no earlier than the last): those fold into one event while
//! nothing can tell them apart, so the queue holds a hearing per node and
//! instant, not per node and version. Folding is exact: between two
//! hearings at one instant only the node's own sync reads what a hearing
//! changes, so versions fold only while no sync was scheduled since the
//! first was. (Unfolded, 10,000 replicas Ready at once on 100 nodes queued
//! a million events, and popping them was 80 % of the run.)

use std::collections::VecDeque;

use super::endpoints::RuleChange;
use crate::engine::{SimDuration, SimTime};

/// The runner's burst: two syncs may follow each other at once.
const BURST: u64 = 2;

/// A hearing a node has scheduled, and the newest version folded into it.
#[derive(Clone, Copy, Debug)]
struct Hearing {
    at: SimTime,
    /// The version its event carries, and the newest folded into it.
    first: u32,
    newest: u32,
}

/// One node's kube-proxy.
#[derive(Clone, Debug, Default)]
pub struct Proxy {
    /// The endpoints its rules send new connections to (replica indices).
    pub rules: Vec<u32>,
    /// The rules' last buffer, reused by the next sync.
    spare: Vec<u32>,
    /// The newest version heard of, and the one the rules show.
    pub heard: u32,
    pub applied: u32,
    /// When it last heard of a version: the next one is heard no earlier.
    last_heard_at: SimTime,
    /// The hearings scheduled whose events have not fired, in order.
    hearings: VecDeque<Hearing>,
    /// No sync was scheduled since the last hearing was: a later version
    /// heard at the same instant may fold into it.
    foldable: bool,
    /// Token credit in milliseconds (one token = `min_sync_period`), as of `credit_at`.
    credit: u64,
    credit_at: SimTime,
    /// When the last sync ended (the runner's `lastRun`): a refused request
    /// runs `min_sync_period` after it.
    last_end: SimTime,
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
        self.hearings.clear();
        self.foldable = false;
        self.credit = BURST * period.as_millis();
        self.credit_at = SimTime::ZERO;
        self.last_end = SimTime::ZERO;
        self.sync_pending = false;
    }

    /// Version `version`, published now, would reach the node at `at`, but
    /// no earlier than the last one: when its `Heard` event is due, or
    /// `None` if it folded into the one already due then.
    pub fn hear_at(&mut self, at: SimTime, version: u32) -> Option<SimTime> {
        let at = at.max(self.last_heard_at);
        self.last_heard_at = at;
        if let Some(last) = self.hearings.back_mut()
            && self.foldable
            && last.at == at
        {
            last.newest = version;
            return None;
        }
        let (first, newest) = (version, version);
        self.hearings.push_back(Hearing { at, first, newest });
        self.foldable = true;
        Some(at)
    }

    /// The `Heard` event of `version` fired: the node knows of it, and of
    /// every version folded into it.
    pub fn heard(&mut self, version: u32) {
        let h = self.hearings.pop_front().expect("a hearing for each event");
        debug_assert_eq!(h.first, version, "a node hears in order");
        self.heard = self.heard.max(h.newest);
    }

    /// A sync runs: the rules take `changes`, which take the version they
    /// show to `upto` (the one heard of, or the one a sync that took time
    /// started with: `Slice::changes`); `each` is told of every replica
    /// they gain (`true`) or lose, in replica order. One copy of the
    /// rules, however many changes.
    pub fn sync(&mut self, upto: u32, changes: &[RuleChange], mut each: impl FnMut(u32, bool)) {
        self.sync_pending = false;
        self.applied = upto;
        let mut merged = std::mem::take(&mut self.spare);
        merged.clear();
        let mut kept = 0;
        for &(r, added) in changes {
            each(r, added);
            let at = kept + self.rules[kept..].partition_point(|&x| x < r);
            merged.extend_from_slice(&self.rules[kept..at]);
            kept = at;
            debug_assert_eq!(self.rules.get(at) == Some(&r), !added, "a change flips a replica");
            match added {
                true => merged.push(r),
                false => kept += 1,
            }
        }
        merged.extend_from_slice(&self.rules[kept..]);
        self.spare = std::mem::replace(&mut self.rules, merged);
    }

    /// The runner's sync ended `now` (its `lastRun`).
    pub fn ended(&mut self, now: SimTime) {
        self.last_end = now;
    }

    /// A sync is requested at `now`: when it runs, or `None` if one is
    /// already scheduled (requests in between are coalesced into it). At
    /// once if the bucket holds a token; else `min_sync_period` after the
    /// last sync's end, when the runner's timer fires (`tryRun`'s
    /// `nextPossible`), taking the token whole by then.
    pub fn request_sync(&mut self, now: SimTime, period: SimDuration) -> Option<SimTime> {
        if self.sync_pending {
            return None;
        }
        self.sync_pending = true;
        self.foldable = false;
        let token = period.as_millis();
        let at = match self.credit_at(now, token) >= token {
            true => now,
            false => (self.last_end + period).max(now),
        };
        self.credit = self.credit_at(at, token) - token;
        self.credit_at = at;
        Some(at)
    }

    /// The credit at `at` (no earlier than `credit_at`): one ms a ms, at
    /// most the burst.
    fn credit_at(&self, at: SimTime, token: u64) -> u64 {
        let refill = at.since(self.credit_at).as_millis();
        self.credit.saturating_add(refill).min(BURST * token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests at each time in `asks`, each sync taking no time: when each runs.
    fn runs(asks: &[u64]) -> Vec<u64> {
        let period = SimDuration::from_secs(1);
        let mut p = Proxy::default();
        p.reset(period);
        let mut runs = Vec::new();
        for &at in asks {
            let when = p.request_sync(SimTime(at), period).unwrap();
            // The sync runs (and ends) before the next request.
            p.sync(0, &[], |_, _| {});
            p.ended(when);
            runs.push(when.as_millis());
        }
        runs
    }

    #[test]
    fn two_syncs_go_at_once_then_one_a_period_after_the_last_end() {
        // Burst 2: 0 and 10 at once, leaving 10 ms of credit. 20: no
        // token; the retry is 1000 after the last sync's end (10), at
        // 1010 (1,010 ms of credit, 10 left). 1200: 200 ms of credit, so
        // 1010 + 1000 = 2010.
        assert_eq!(runs(&[0, 10, 20, 1200]), [0, 10, 1010, 2010]);
    }

    #[test]
    fn a_refused_request_waits_for_the_period_not_for_the_token() {
        // 0: 2 tokens → 1. 500: 1.5 → 0.5. 600: 0.6 tokens, refused. The
        // token would be whole at 1000, but the runner's timer is set to
        // minInterval after lastRun (500): it runs at 1500.
        assert_eq!(runs(&[0, 500, 600]), [0, 500, 1500]);
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
    fn a_sync_applies_the_changes_and_tells_each_one_in_order() {
        let mut p = Proxy::default();
        p.reset(SimDuration::ZERO);
        let mut seen = Vec::new();
        p.sync(0, &[(0, true), (2, true), (3, true)], |r, added| {
            seen.push((r, added))
        });
        assert_eq!(seen, [(0, true), (2, true), (3, true)]);
        assert_eq!(p.rules, [0, 2, 3]);
        seen.clear();
        // 0 stays, 1 comes, 2 and 3 go, 5 comes.
        let changes = [(1, true), (2, false), (3, false), (5, true)];
        p.sync(0, &changes, |r, added| seen.push((r, added)));
        assert_eq!(seen, changes);
        assert_eq!(p.rules, [0, 1, 5]);
        p.sync(0, &[(0, false), (1, false), (5, false)], |_, _| {});
        assert!(p.rules.is_empty());
    }

    #[test]
    fn versions_heard_at_one_instant_fold_until_a_sync_is_scheduled() {
        let mut p = Proxy::default();
        p.reset(SimDuration::ZERO);
        // Versions 1 and 2 at 100 ms, 3 no earlier than them: one event.
        assert_eq!(p.hear_at(SimTime(100), 1), Some(SimTime(100)));
        assert_eq!(p.hear_at(SimTime(40), 2), None);
        assert_eq!(p.hear_at(SimTime(100), 3), None);
        // 4 at 150 ms: an event of its own; 1's still brings 3.
        assert_eq!(p.hear_at(SimTime(150), 4), Some(SimTime(150)));
        p.heard(1);
        assert_eq!(p.heard, 3);
        // Its event asks for a sync, due at once: 5, heard at 150 ms too,
        // may no longer fold into 4 (the sync would tell them apart).
        assert_eq!(
            p.request_sync(SimTime(100), SimDuration::ZERO),
            Some(SimTime(100))
        );
        assert_eq!(p.hear_at(SimTime(150), 5), Some(SimTime(150)));
        p.heard(4);
        assert_eq!(p.heard, 4);
        p.heard(5);
        assert_eq!(p.heard, 5);
    }

    #[test]
    fn a_zero_period_syncs_at_once_always() {
        let mut p = Proxy::default();
        p.reset(SimDuration::ZERO);
        assert_eq!(p.request_sync(SimTime(5), SimDuration::ZERO), Some(SimTime(5)));
    }
}

//! What a hop learns of each upstream from its own tries, for the balancer
//! and the detector that act on it: ingress-nginx's `ewma` (a decayed
//! average of each upstream's round trips; of two picked at random, the
//! lower wins) and Envoy's outlier detection (an upstream whose tries fail
//! N times in a row is ejected for a while).
//!
//! Both follow their source: ingress-nginx's
//! rootfs/etc/nginx/lua/balancer/ewma.lua (`decay_ewma`, `score`,
//! `after_balance`, `sync`), Envoy's outlier detection
//! (config.cluster.v3.OutlierDetection: consecutive 5xx, `interval`,
//! `base_ejection_time`, `max_ejection_percent`, `max_ejection_time`).
//!
//! Invariant: nothing here is touched unless the hop balances by `ewma` or
//! detects outliers, so every other run keeps its bytes.

use super::hop::Outlier;
use crate::engine::{SimDuration, SimTime};

/// ewma.lua's `DECAY_TIME`, 10 s, in ms.
const DECAY_MS: f64 = 10_000.0;

/// Envoy's `max_ejection_time` default: an ejection lasts at most 300 s.
const MAX_EJECTION: SimDuration = SimDuration::from_secs(300);

/// The weight an average keeps after `elapsed`: exp(−elapsed / 10 s).
fn kept(elapsed: SimDuration) -> f64 {
    (-(elapsed.as_millis() as f64) / DECAY_MS).exp()
}

/// Per upstream (replica), what the hop learned of it.
#[derive(Clone, Debug, Default)]
pub(super) struct Scores {
    /// Its round-trip average in ms and when last touched; `None`: no
    /// stats (never touched, or dropped from the view since).
    ewma: Vec<Option<(f64, SimTime)>>,
    /// Its tries failed in a row.
    failed: Vec<u32>,
    /// When it was ejected, while it is.
    ejected: Vec<Option<SimTime>>,
    /// Its ejections so far: each lasts the base time that many times.
    ejections: Vec<u32>,
    /// Upstreams ejected now.
    active: u32,
}

impl Scores {
    fn grow(&mut self, r: usize) {
        if self.ewma.len() <= r {
            self.ewma.resize(r + 1, None);
            self.failed.resize(r + 1, 0);
            self.ejected.resize(r + 1, None);
            self.ejections.resize(r + 1, 0);
        }
    }

    /// ewma.lua's `score`: the average decayed to `now`, no sample added
    /// (0 without stats).
    pub fn score(&self, r: u32, now: SimTime) -> f64 {
        match self.ewma.get(r as usize).copied().flatten() {
            Some((e, at)) => e * kept(now.since(at)),
            None => 0.0,
        }
    }

    /// ewma.lua's `after_balance`: a request's last try, at `r`, took
    /// `rtt` (its connect and its response). Without stats the sample is
    /// the average: the Lua's last touch is then the epoch, whose weight
    /// is nil.
    pub fn touch(&mut self, r: u32, rtt: SimDuration, now: SimTime) {
        self.grow(r as usize);
        let rtt = rtt.as_millis() as f64;
        let e = match self.ewma[r as usize] {
            Some((e, at)) => {
                let w = kept(now.since(at));
                e * w + rtt * (1.0 - w)
            }
            None => rtt,
        };
        self.ewma[r as usize] = Some((e, now));
    }

    /// ewma.lua's `sync`: of the replicas in `moved`, those no longer in
    /// `view` lose their stats; those now in it start, if any upstream in
    /// the view has stats, at their average, touched now.
    pub fn synced(&mut self, view: &[u32], moved: &[u32], now: SimTime) {
        for &r in moved {
            self.grow(r as usize);
            if !view.contains(&r) {
                self.ewma[r as usize] = None;
            }
        }
        let (sum, n) = (view.iter())
            .filter_map(|&r| self.ewma.get(r as usize).copied().flatten())
            .fold((0.0, 0u32), |(sum, n), (e, _)| (sum + e, n + 1));
        if n == 0 {
            return;
        }
        for &r in moved {
            if view.contains(&r) {
                self.ewma[r as usize] = Some((sum / f64::from(n), now));
            }
        }
    }

    /// A try at `r` was answered: its failures in a row are over.
    pub fn succeeded(&mut self, r: u32) {
        if let Some(f) = self.failed.get_mut(r as usize) {
            *f = 0;
        }
    }

    /// A try at `r` failed; `true` if that ejects it: `consecutive` in a
    /// row, and the cap allows one more of the `hosts` out (Envoy ejects
    /// at least one whatever `max_ejection_percent`).
    pub fn failed(&mut self, r: u32, o: &Outlier, hosts: usize, now: SimTime) -> bool {
        self.grow(r as usize);
        let i = r as usize;
        self.failed[i] += 1;
        if self.failed[i] < o.consecutive || self.ejected[i].is_some() {
            return false;
        }
        let room = 100 * (u64::from(self.active) + 1) <= u64::from(o.max_percent) * hosts as u64;
        if self.active > 0 && !room {
            return false;
        }
        self.ejected[i] = Some(now);
        self.ejections[i] += 1;
        self.active += 1;
        true
    }

    /// `r` is ejected now.
    #[inline]
    pub fn is_ejected(&self, r: u32) -> bool {
        self.active > 0 && self.ejected.get(r as usize).is_some_and(|e| e.is_some())
    }

    /// Some upstream is ejected now.
    #[inline]
    pub fn any_ejected(&self) -> bool {
        self.active > 0
    }

    /// A sweep at `now`: each ejected upstream whose time is over (the
    /// base time its ejections so far, at most 300 s) comes back, its
    /// failures forgotten; pushed onto `back`.
    pub fn sweep(&mut self, o: &Outlier, now: SimTime, back: &mut Vec<u32>) {
        for (r, at) in self.ejected.iter_mut().enumerate() {
            let Some(since) = *at else {
                continue;
            };
            let times = u64::from(self.ejections[r]);
            let lasts = SimDuration(o.base_ejection.0 * times).min(MAX_EJECTION.max(o.base_ejection));
            if now >= since + lasts {
                *at = None;
                self.failed[r] = 0;
                self.active -= 1;
                back.push(r as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_try_only_decays_the_average_and_a_new_upstream_starts_at_the_mean() {
        let mut s = Scores::default();
        // The first sample is the average: 10 ms.
        s.touch(0, SimDuration::from_millis(10), SimTime(1000));
        assert_eq!(s.score(0, SimTime(1000)), 10.0);
        // A refusal (0 ms) 1 s later keeps exp(-0.1) of it, as decay alone.
        s.touch(0, SimDuration::ZERO, SimTime(2000));
        let decayed = 10.0 * (-0.1f64).exp();
        assert!((s.score(0, SimTime(2000)) - decayed).abs() < 1e-12);
        // Replica 1 joins the view: it starts at the mean of those with stats.
        s.synced(&[0, 1], &[1], SimTime(2000));
        assert!((s.score(1, SimTime(2000)) - decayed).abs() < 1e-12);
        // Replica 0 leaves: its stats go.
        s.synced(&[1], &[0], SimTime(2000));
        assert_eq!(s.score(0, SimTime(2000)), 0.0);
    }

    #[test]
    fn the_fifth_failure_in_a_row_ejects_once_and_a_sweep_past_the_time_brings_it_back() {
        let o = Outlier {
            consecutive: 5,
            interval: SimDuration::from_secs(10),
            base_ejection: SimDuration::from_secs(30),
            max_percent: 10,
        };
        let mut s = Scores::default();
        // Four, a success, then five: only the fifth of the second run ejects.
        let ejects: Vec<bool> = (0..4).map(|_| s.failed(0, &o, 2, SimTime(1))).collect();
        assert_eq!(ejects, [false; 4]);
        s.succeeded(0);
        let ejects: Vec<bool> = (0..5).map(|_| s.failed(0, &o, 2, SimTime(7))).collect();
        assert_eq!(ejects, [false, false, false, false, true]);
        assert!(s.is_ejected(0));
        // 10 % of 2 hosts is none, but one always may be; a second may not.
        assert!(!(0..5).any(|_| s.failed(1, &o, 2, SimTime(8))));
        let mut back = Vec::new();
        s.sweep(&o, SimTime(30_006), &mut back);
        assert!(back.is_empty());
        s.sweep(&o, SimTime(30_007), &mut back);
        assert_eq!((back, s.is_ejected(0)), (vec![0], false));
    }
}

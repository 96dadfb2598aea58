//! The arithmetic of a probe worker's ticks (R28–R30, R53), kept apart from
//! the model so it can be checked against a plain tick-by-tick count.
//!
//! A *stretch* is the worker probing one instance on one ticker grid, from
//! its first tick until something changes the plan (a result published, a
//! manual trigger, SIGTERM, the exit). Within a stretch the process passes
//! inside one window of time and fails outside it, so its ticks fall in at
//! most three runs — failing, passing, failing — and the tick that decides
//! something, and what the ticks up to any instant found, are worked out in
//! O(1) instead of tick by tick.
//!
//! Invariant: a stretch's answers equal those of a loop over its ticks
//! (`tests::prop_a_stretch_agrees_with_counting_tick_by_tick`).

use crate::engine::{SimDuration, SimTime};

/// The worker's consecutive-result counter (R30: `lastResult`, `resultRun`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Run {
    /// The last result, `None` before the first.
    pub passing: Option<bool>,
    /// How many results in a row were that one.
    pub len: u32,
}

/// When the probed process answers successfully: from `from` until `until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    pub from: SimTime,
    pub until: SimTime,
}

impl Window {
    /// A probe that never passes (`fails`, `hangs`).
    pub const NEVER: Window = Window {
        from: SimTime(u64::MAX),
        until: SimTime(u64::MAX),
    };
}

/// One stretch: ticks at `first` and every `period` after, each one's result
/// known `delay` after the tick (the timeout of a probe that hangs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stretch {
    pub first: SimTime,
    pub period: SimDuration,
    pub window: Window,
    pub delay: SimDuration,
    /// The counter when the stretch began.
    pub run: Run,
}

impl Stretch {
    fn period_ms(&self) -> u64 {
        self.period.as_millis().max(1)
    }

    /// When tick `k` (from 0) is due.
    pub fn tick(&self, k: u64) -> SimTime {
        SimTime(self.first.0.saturating_add(k.saturating_mul(self.period_ms())))
    }

    /// How many ticks come strictly before `t`.
    pub fn ticks_before(&self, t: SimTime) -> u64 {
        t.0.saturating_sub(self.first.0).div_ceil(self.period_ms())
    }

    /// Ticks `a..b` pass, the others fail; `(MAX, MAX)` when none passes.
    fn passing_ticks(&self) -> (u64, u64) {
        let b = match self.window.until {
            SimTime(u64::MAX) => u64::MAX,
            until => self.ticks_before(until),
        };
        let a = self.ticks_before(self.window.from);
        if self.window.from >= self.window.until || a >= b {
            (u64::MAX, u64::MAX)
        } else {
            (a, b)
        }
    }

    /// How many of the first `n` ticks failed.
    pub fn failures(&self, n: u64) -> u64 {
        let (a, b) = self.passing_ticks();
        n.min(a) + n.saturating_sub(b)
    }

    /// The counter after the first `n` ticks.
    pub fn run_after(&self, n: u64) -> Run {
        if n == 0 {
            return self.run;
        }
        let (a, b) = self.passing_ticks();
        let last = n - 1;
        let (passing, start) = match () {
            _ if last < a => (false, 0),
            _ if last < b => (true, a),
            _ => (false, b),
        };
        let carried = if start == 0 && self.run.passing == Some(passing) {
            u64::from(self.run.len)
        } else {
            0
        };
        let len = (n - start).saturating_add(carried).min(u64::from(u32::MAX)) as u32;
        Run {
            passing: Some(passing),
            len,
        }
    }

    /// The first tick whose result publishes a change (R30): `successes`
    /// passes in a row, or `failures` failures in a row; `None` for a
    /// threshold that changes nothing. Returns the tick and whether it passed.
    pub fn decisive(&self, successes: Option<u32>, failures: Option<u32>) -> Option<(u64, bool)> {
        let (a, b) = self.passing_ticks();
        let carried = |passing: bool| {
            if self.run.passing == Some(passing) {
                u64::from(self.run.len)
            } else {
                0
            }
        };
        let needed =
            |threshold: u32, carried: u64| u64::from(threshold.max(1)).saturating_sub(carried).max(1) - 1;
        let fails = failures.and_then(|f| {
            // The failing ticks before the window, then those after it.
            let early = needed(f, carried(false));
            if early < a {
                return Some(early);
            }
            (b < u64::MAX).then(|| b.saturating_add(needed(f, 0)))
        });
        let passes = successes.and_then(|n| {
            let carried = if a == 0 { carried(true) } else { 0 };
            let k = a.saturating_add(needed(n, carried));
            (a < u64::MAX && k < b).then_some(k)
        });
        match (passes, fails) {
            (Some(p), Some(f)) if f < p => Some((f, false)),
            (Some(p), _) => Some((p, true)),
            (None, Some(f)) => Some((f, false)),
            (None, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at(s: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs(s)
    }

    fn stretch(first: u64, from: u64, until: Option<u64>) -> Stretch {
        Stretch {
            first: at(first),
            period: SimDuration::from_secs(10),
            window: Window {
                from: at(from),
                until: until.map_or(SimTime(u64::MAX), at),
            },
            delay: SimDuration::ZERO,
            run: Run::default(),
        }
    }

    #[test]
    fn the_decisive_tick_counts_failures_before_the_window_and_successes_in_it() {
        // Ticks at 0, 10, 20, 30 …; healthy from 25 s: 0, 10, 20 fail.
        // Three failures kill at the third tick, 20 s (R31).
        let s = stretch(0, 25, None);
        assert_eq!(s.decisive(Some(1), Some(3)), Some((2, false)));
        // Four allowed: the first passing tick, 30 s, starts it.
        assert_eq!(s.decisive(Some(1), Some(4)), Some((3, true)));
        // A tick at the very instant the window opens passes.
        assert_eq!(stretch(0, 20, None).decisive(Some(1), Some(3)), Some((2, true)));
        // Readiness, healthy already, two successes needed: 5 s and 15 s.
        assert_eq!(stretch(5, 1, None).decisive(Some(2), None), Some((1, true)));
        // Liveness with fewer failing ticks than its threshold decides nothing.
        assert_eq!(s.decisive(None, Some(4)), None);
        // From 0 s, passing 30 s … 60 s: 0, 10, 20 fail first (R31).
        assert_eq!(stretch(0, 30, Some(60)).decisive(None, Some(3)), Some((2, false)));
        // From 30 s: 30, 40, 50 pass, 60, 70, 80 fail: a liveness probe with
        // threshold 3 fails at 80 s, the sixth tick.
        assert_eq!(
            stretch(30, 30, Some(60)).decisive(None, Some(3)),
            Some((5, false))
        );
        // Never passing: three failures at 0, 10, 20.
        let never = Stretch {
            window: Window::NEVER,
            ..s
        };
        assert_eq!(never.decisive(Some(1), Some(3)), Some((2, false)));
        assert_eq!(never.decisive(Some(1), None), None);
    }

    #[test]
    fn a_carried_counter_shortens_the_run_it_continues() {
        // Two failures already counted: one more failing tick reaches three.
        let s = Stretch {
            run: Run {
                passing: Some(false),
                len: 2,
            },
            ..stretch(0, 25, None)
        };
        assert_eq!(s.decisive(None, Some(3)), Some((0, false)));
        assert_eq!(
            s.run_after(2),
            Run {
                passing: Some(false),
                len: 4
            }
        );
        assert_eq!(s.failures(5), 3);
    }

    /// The same answers, one tick at a time.
    fn by_hand(
        s: &Stretch,
        successes: Option<u32>,
        failures: Option<u32>,
        n: u64,
    ) -> (Option<(u64, bool)>, Run, u64) {
        let mut run = s.run;
        let mut decisive = None;
        let mut failed = 0;
        for k in 0..200 {
            let t = s.tick(k);
            let passing = s.window.from <= t && t < s.window.until;
            run = if run.passing == Some(passing) {
                Run {
                    passing: run.passing,
                    len: run.len + 1,
                }
            } else {
                Run {
                    passing: Some(passing),
                    len: 1,
                }
            };
            let threshold = if passing { successes } else { failures };
            if decisive.is_none() && threshold.is_some_and(|th| run.len >= th.max(1)) {
                decisive = Some((k, passing));
            }
            if k < n {
                failed += u64::from(!passing);
            }
            if k + 1 == n {
                return (decisive, run, failed);
            }
        }
        (decisive, run, failed)
    }

    proptest! {
        #[test]
        fn prop_a_stretch_agrees_with_counting_tick_by_tick(
            first in 0u64..50, from in 0u64..400, len in prop::option::of(0u64..300),
            carried in prop::option::of((any::<bool>(), 0u32..5)),
            successes in prop::option::of(1u32..4), failures in prop::option::of(1u32..5),
            n in 1u64..150,
        ) {
            let s = Stretch {
                run: carried.map_or(Run::default(), |(p, len)| Run { passing: Some(p), len }),
                ..stretch(first, from, len.map(|l| from + l))
            };
            // Decisive ticks beyond the loop's 200 do not exist here: the
            // window ends by 700 s, tick 200 comes at 2000 s or later.
            let (decisive, _, _) = by_hand(&s, successes, failures, 200);
            prop_assert_eq!(s.decisive(successes, failures), decisive);
            let (_, run, failed) = by_hand(&s, successes, failures, n);
            prop_assert_eq!(s.run_after(n), run);
            prop_assert_eq!(s.failures(n), failed);
        }
    }
}

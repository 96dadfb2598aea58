//! Simulated time: integer milliseconds, never floats and never the wall clock.
//!
//! Invariant: every instant and every duration in podsim is a whole number of
//! milliseconds, so event order never depends on rounding.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in milliseconds since the run began.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);

    /// Milliseconds since the start of the run.
    pub fn as_millis(self) -> u64 {
        self.0
    }

    /// Time elapsed since `earlier`; zero if `earlier` is in the future.
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }

    /// The millisecond nearest a real instant `ms` (halves away from
    /// zero; before the start and NaN: 0), as `ms.round().max(0.0) as u64`
    /// gives it — without `f64::round`, a call into a library routine of
    /// some 24 instructions on x86-64 without SSE4.1, paid once a Poisson
    /// request. Truncating, then the fraction (exact: it is `ms`'s own
    /// low bits) decides.
    #[inline]
    pub fn nearest(ms: f64) -> SimTime {
        let whole = ms as u64;
        SimTime(whole.saturating_add(u64::from(ms - whole as f64 >= 0.5)))
    }
}

impl SimDuration {
    /// No time at all: an event scheduled with it runs at this instant.
    pub const ZERO: SimDuration = SimDuration(0);

    /// `ms` milliseconds, podsim's resolution.
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms)
    }

    /// `s` whole seconds (Kubernetes keeps most periods in seconds).
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * 1000)
    }

    /// The most whole seconds a duration holds: about 584 million years.
    pub const MAX_SECS: u64 = u64::MAX / 1000;

    /// `s` whole seconds, or `MAX_SECS` where `s` is more (a Kubernetes
    /// int64 field holds more than podsim's clock): the caller tells it.
    pub const fn from_secs_saturating(s: u64) -> Self {
        SimDuration::from_secs(if s > Self::MAX_SECS { Self::MAX_SECS } else { s })
    }

    /// The length in milliseconds, as the CSV writes it.
    pub fn as_millis(self) -> u64 {
        self.0
    }

    /// Rounded down to whole seconds, as the kubelet truncates waited time.
    pub fn floor_secs(self) -> SimDuration {
        SimDuration(self.0 / 1000 * 1000)
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    /// Saturates instead of overflowing, so a huge duration lands past any horizon.
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        *self = *self + d;
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

impl Sub for SimDuration {
    type Output = SimDuration;
    /// Saturates at zero: a budget cannot go negative.
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}

/// Seconds with exactly three decimals (`2.000s`), the timeline's notation.
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}s", self.0 / 1000, self.0 % 1000)
    }
}

/// The shortest exact form with a unit (`250ms`, `3s`, `1.5s`, `5m`), the
/// notation scenario files use, so a printed duration can be pasted back.
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        if ms == 0 {
            write!(f, "0s")
        } else if ms.is_multiple_of(3_600_000) {
            write!(f, "{}h", ms / 3_600_000)
        } else if ms.is_multiple_of(60_000) {
            write!(f, "{}m", ms / 60_000)
        } else if ms.is_multiple_of(1000) {
            write!(f, "{}s", ms / 1000)
        } else if ms < 1000 {
            write!(f, "{ms}ms")
        } else {
            let frac = format!("{:03}", ms % 1000);
            write!(f, "{}.{}s", ms / 1000, frac.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_in_their_shortest_exact_form() {
        let shown: Vec<String> = [0, 250, 1000, 1500, 1250, 60_000, 7_200_000, 61_001]
            .iter()
            .map(|&ms| SimDuration(ms).to_string())
            .collect();
        assert_eq!(
            shown,
            ["0s", "250ms", "1s", "1.5s", "1.25s", "1m", "2h", "61.001s"]
        );
    }

    #[test]
    fn instants_print_as_seconds_with_millis() {
        assert_eq!(SimTime(2000).to_string(), "2.000s");
        assert_eq!(SimTime(10_250).to_string(), "10.250s");
    }

    #[test]
    fn floor_secs_truncates_like_the_kubelet() {
        assert_eq!(SimDuration(2999).floor_secs(), SimDuration(2000));
        assert_eq!(SimDuration(3000).floor_secs(), SimDuration(3000));
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(SimTime(u64::MAX - 1) + SimDuration(5), SimTime(u64::MAX));
        assert_eq!(SimDuration(1) - SimDuration(5), SimDuration::ZERO);
    }
}

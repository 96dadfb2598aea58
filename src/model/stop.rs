//! How a container's process answers being stopped (R54, R55): it drains
//! and exits by itself some time after the stop signal, or it never does and
//! only the SIGKILL at the stop timeout ends it.
//!
//! Invariant: "never" is a case of its own, not a duration too long to
//! matter, so no drain drawn from a distribution can be mistaken for it and
//! a sweep's CSV says `never` rather than a huge number.

use std::fmt;

use super::dist::Dist;
use crate::engine::SimDuration;

/// What the process does after SIGTERM.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Drain {
    /// It exits this long after the signal (a distribution draws it for
    /// each instance), unless the stop timeout comes first.
    After(Dist),
    /// It ignores the signal: SIGKILL at the stop timeout, exit 137 (R55).
    Never,
}

impl Drain {
    /// The word scenario files use for `Never`.
    pub const NEVER: &'static str = "never";

    /// Exits at the very instant of the signal: no drain at all.
    pub fn is_zero(&self) -> bool {
        matches!(self, Drain::After(d) if d.is_zero())
    }

    /// The drain when it is a fixed duration.
    pub fn fixed(&self) -> Option<SimDuration> {
        match self {
            Drain::After(d) => d.fixed(),
            Drain::Never => None,
        }
    }
}

impl Default for Drain {
    fn default() -> Self {
        Drain::After(Dist::default())
    }
}

impl From<Dist> for Drain {
    fn from(d: Dist) -> Self {
        Drain::After(d)
    }
}

impl From<SimDuration> for Drain {
    fn from(d: SimDuration) -> Self {
        Drain::After(Dist::Fixed(d))
    }
}

/// A drain that ends writes as its duration did before `Never` existed,
/// so the canonical form (and a grid's hash) of a Pod without it is unchanged.
impl fmt::Debug for Drain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Drain::After(d) => d.fmt(f),
            Drain::Never => f.write_str("Never"),
        }
    }
}

/// As a scenario writes it: `3s`, a distribution's spelling, or `never`.
impl fmt::Display for Drain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Drain::After(d) => d.fmt(f),
            Drain::Never => f.write_str(Drain::NEVER),
        }
    }
}

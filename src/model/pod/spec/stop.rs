//! How a container's process answers being stopped (R54, R55, R59): it
//! drains and exits by itself some time after the stop signal it handles,
//! or it never does and only the SIGKILL at the stop timeout ends it; a
//! signal it does not handle does what the kernel does.
//!
//! Invariant: "never" is a case of its own, not a duration too long to
//! matter, so no drain drawn from a distribution can be mistaken for it and
//! a sweep's CSV says `never` rather than a huge number.

use std::fmt;

use crate::engine::SimDuration;
use crate::model::dist::Dist;

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

/// A Linux signal a container may be stopped with (KEP-4960's
/// `lifecycle.stopSignal`), those the kubelet's API accepts that a stop
/// plausibly uses; the number is x86-64 Linux's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Signal {
    /// 1: a terminal hang-up; many daemons reload on it.
    Hup,
    /// 2: Ctrl-C.
    Int,
    /// 3: quit with a core dump; nginx's graceful shutdown.
    Quit,
    /// 6: abort.
    Abrt,
    /// 9: cannot be handled or ignored.
    Kill,
    /// 10.
    Usr1,
    /// 12.
    Usr2,
    /// 14.
    Alrm,
    /// 15: the default stop signal.
    #[default]
    Term,
    /// 17: ignored unless handled.
    Chld,
    /// 19: stops (pauses) the process; cannot be handled.
    Stop,
    /// 28: ignored unless handled.
    Winch,
}

/// What a signal does to a process that has no handler for it (signal(7)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// The process ends at once, reported as 128 + the signal's number.
    Terminate,
    /// Nothing happens (`Ign`), or the process is paused (`Stop`): either
    /// way it is still there when SIGKILL comes.
    Survive,
}

impl Signal {
    crate::model::words::words! {
        /// As Kubernetes spells them.
        Hup => "SIGHUP",
        Int => "SIGINT",
        Quit => "SIGQUIT",
        Abrt => "SIGABRT",
        Kill => "SIGKILL",
        Usr1 => "SIGUSR1",
        Usr2 => "SIGUSR2",
        Alrm => "SIGALRM",
        Term => "SIGTERM",
        Chld => "SIGCHLD",
        Stop => "SIGSTOP",
        Winch => "SIGWINCH",
    }

    /// The signal's number on Linux (x86-64).
    pub fn number(self) -> i32 {
        match self {
            Signal::Hup => 1,
            Signal::Int => 2,
            Signal::Quit => 3,
            Signal::Abrt => 6,
            Signal::Kill => 9,
            Signal::Usr1 => 10,
            Signal::Usr2 => 12,
            Signal::Alrm => 14,
            Signal::Term => 15,
            Signal::Chld => 17,
            Signal::Stop => 19,
            Signal::Winch => 28,
        }
    }

    /// The exit code of a process this signal ended: 128 + its number.
    pub fn exit_code(self) -> i32 {
        128 + self.number()
    }

    /// What it does to a process without a handler for it.
    pub fn disposition(self) -> Disposition {
        match self {
            Signal::Chld | Signal::Stop | Signal::Winch => Disposition::Survive,
            _ => Disposition::Terminate,
        }
    }
}

/// How a process answers the stop signal it is sent (R59): the one signal
/// it handles (`drains_on`, SIGTERM unless said) starts its drain; SIGKILL
/// ends it at once; any other signal does what the kernel does without a
/// handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reaction {
    /// Its handler runs: the container's `drain`.
    Drains,
    /// It ends at once with 128 + the signal's number (137 for SIGKILL).
    Dies(Signal),
    /// It carries on until SIGKILL at the stop timeout.
    Survives,
}

impl Reaction {
    /// The reaction to `sent` of a process whose handler is for `handled`.
    pub fn of(sent: Signal, handled: Signal) -> Reaction {
        match sent {
            Signal::Kill | Signal::Stop => Reaction::from_disposition(sent),
            _ if sent == handled => Reaction::Drains,
            _ => Reaction::from_disposition(sent),
        }
    }

    fn from_disposition(signal: Signal) -> Reaction {
        match signal.disposition() {
            Disposition::Terminate => Reaction::Dies(signal),
            Disposition::Survive => Reaction::Survives,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r59_the_handled_signal_drains_sigkill_and_unhandled_terminating_signals_end_it_others_wait_for_sigkill()
     {
        use Signal::*;
        // A server that drains on SIGTERM (the default handler).
        assert_eq!(Reaction::of(Term, Term), Reaction::Drains);
        assert_eq!(Reaction::of(Kill, Term), Reaction::Dies(Kill));
        assert_eq!(Kill.exit_code(), 137);
        assert_eq!(Reaction::of(Quit, Term), Reaction::Dies(Quit));
        assert_eq!(Quit.exit_code(), 131);
        assert_eq!(Reaction::of(Int, Term), Reaction::Dies(Int));
        assert_eq!(Reaction::of(Winch, Term), Reaction::Survives);
        // nginx: SIGQUIT is its graceful stop, SIGTERM its fast one (no handler modelled).
        assert_eq!(Reaction::of(Quit, Quit), Reaction::Drains);
        assert_eq!(Reaction::of(Term, Quit), Reaction::Dies(Term));
        // SIGKILL and SIGSTOP cannot be handled.
        assert_eq!(Reaction::of(Kill, Kill), Reaction::Dies(Kill));
        assert_eq!(Reaction::of(Stop, Stop), Reaction::Survives);
        for (signal, name) in Signal::ALL.into_iter().zip(Signal::NAMES) {
            assert_eq!(signal.name(), name);
        }
    }
}

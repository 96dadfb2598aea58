//! A container's probes as the scenario states them (R27–R31, R53): which
//! probe, its timings and thresholds with Kubernetes' defaults, and what it
//! finds over an instance's life. The probe workers are `pod::probe`.

use crate::engine::SimDuration;

/// Which of a container's three probes (R27–R31).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeKind {
    /// Decides when the container is started; its failure kills it.
    Startup,
    /// Decides when the container is Ready.
    Readiness,
    /// Its failure kills a started container.
    Liveness,
}

impl ProbeKind {
    /// The three, in `index` order.
    pub const ALL: [ProbeKind; 3] = [ProbeKind::Startup, ProbeKind::Readiness, ProbeKind::Liveness];

    /// The probe's name, as in `startup_probe`.
    pub fn name(self) -> &'static str {
        match self {
            ProbeKind::Startup => "startup",
            ProbeKind::Readiness => "readiness",
            ProbeKind::Liveness => "liveness",
        }
    }

    /// The probe's slot in `ContainerSpec::probes`.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// What a probe finds over one instance's life (R53). Whatever it is, a
/// probe only passes inside the window `pass_after` … `pass_until` after the
/// end of the boot, so `Passes` with both unset is "passes once booted".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProbeOutcome {
    /// Answers at once: passes inside the window, fails outside it.
    #[default]
    Passes,
    /// Answers at once and always fails.
    Fails,
    /// Never answers: every run fails when its `timeout` is over.
    Hangs,
    /// Passes inside the window until the container gets SIGTERM, fails from
    /// then on (a server that reports unready while it drains).
    FailsAfterSigterm,
}

impl ProbeOutcome {
    crate::model::words::words! {
        /// The outcomes as scenario files spell them.
        Passes => "passes",
        Fails => "fails",
        Hangs => "hangs",
        FailsAfterSigterm => "fails_after_sigterm",
    }
}

/// A probe with Kubernetes' fields and defaults (R27), and what it finds
/// (R53): by default the container answers it successfully once it is
/// healthy, i.e. `boot` after its start, and answers at once. `Debug` is
/// in `canonical`: a grid's hash is made of it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Probe {
    /// No probe runs sooner after the container's start (R29).
    pub initial_delay: SimDuration,
    /// The ticker's period (R28).
    pub period: SimDuration,
    /// How long one probe run may take.
    pub timeout: SimDuration,
    /// Consecutive successes that publish Success (R30).
    pub success_threshold: u32,
    /// Consecutive failures that publish Failure (R30).
    pub failure_threshold: u32,
    /// Probe-level grace for the kill a liveness or startup failure causes (R12).
    pub termination_grace_period: Option<SimDuration>,
    /// What the probe finds (R53).
    pub outcome: ProbeOutcome,
    /// It passes no sooner than this after the end of the boot.
    pub pass_after: SimDuration,
    /// It fails from this long after the end of the boot on, if set.
    pub pass_until: Option<SimDuration>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            initial_delay: SimDuration::ZERO,
            period: SimDuration::from_secs(10),
            timeout: SimDuration::from_secs(1),
            success_threshold: 1,
            failure_threshold: 3,
            termination_grace_period: None,
            outcome: ProbeOutcome::Passes,
            pass_after: SimDuration::ZERO,
            pass_until: None,
        }
    }
}

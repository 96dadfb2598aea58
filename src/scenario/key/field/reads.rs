//! When the Pod model reads a field, as far as a sweep can use it: a field
//! that shapes the Pod makes the model work its shape out again, and a
//! field read only from the first kill on lets a row start from another
//! row's run as it stood before its deletion (`PodSimulator::run_with_prefix`).
//!
//! One exhaustive match places every field, so a new field must be placed;
//! a field placed wrongly shows in the sweep tests that compare
//! shape-keeping rows and rows started from a prefix with fresh runs.

use super::{Field, service_field};

/// When the Pod model reads a field, for the sweep's shortcuts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenRead {
    /// Part of the spec's shape, which the model works out once and keeps
    /// until it may have changed: which containers are apps, sidecars or
    /// proxies, which have probes or an image that fails to pull.
    Shape,
    /// Only once it kills a container (a deletion, a failed probe, a
    /// failed postStart hook, an update): what the kill does and how long
    /// it takes (R33–R41, R54, R55, R59). Before the first kill, two runs
    /// whose specs differ only in such fields are in the same state. The
    /// Pod's grace period is one: the model notes it at a reset but uses
    /// it only in a kill, and the deletion notes it afresh.
    FromTheFirstKill,
    /// Any time in a run.
    Throughout,
}

impl Field {
    /// When the Pod model reads the field.
    pub fn read(self) -> WhenRead {
        match self {
            Field::Kind | Field::Proxy | Field::ImagePull | Field::Probe(..) => WhenRead::Shape,
            Field::TerminationGracePeriod
            | Field::Drain
            | Field::PreStop
            | Field::ExitCodeOnSigterm
            | Field::StopSignal
            | Field::DrainsOn => WhenRead::FromTheFirstKill,
            Field::Horizon
            | Field::Seed
            | Field::RestartPolicy
            | Field::StopAt
            | Field::StopAfterReady
            | Field::Mode
            | Field::Kubernetes
            | Field::BackoffInitial
            | Field::BackoffCap
            | Field::BackoffImmediateFirstRestart
            | Field::Boot
            | Field::Fails
            | Field::FailProbability
            | Field::CrashAfter
            | Field::Run
            | Field::ExitCode
            | Field::ContainerRestartPolicy
            | Field::PostStart
            | Field::PostStartFails
            | Field::BackoffLimit
            | Field::BackoffLimitPerIndex
            | Field::ActionAt
            | Field::ActionAfterReady
            | Field::ActionGracePeriod
            | Field::ActionDown
            // A Service's Pods are reset through `run_spec_mut`, which works
            // the shape out again whatever changed, and a Service grid runs
            // on its own simulator, which never starts from a prefix.
            | service_field!() => WhenRead::Throughout,
        }
    }

    /// Whether setting the field may change the spec's shape (`WhenRead::Shape`).
    /// A sweep row that sets none of these keeps the shape
    /// (`PodSimulator::spec_mut_keeping_shape`).
    pub fn shapes_the_pod(self) -> bool {
        self.read() == WhenRead::Shape
    }

    /// Whether the model reads the field only from the first kill on
    /// (`WhenRead::FromTheFirstKill`): a sweep row that differs from an
    /// earlier one only in such fields may start from that row's state
    /// saved just before its deletion.
    pub fn read_from_the_first_kill_on(self) -> bool {
        self.read() == WhenRead::FromTheFirstKill
    }
}

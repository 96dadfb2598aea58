//! When the Pod model reads a field, as far as a sweep can use it: a field
//! that shapes the Pod makes the model work its shape out again, and a
//! field read only from the first kill on lets a row resume from another
//! row's run as it stood before its deletion (`PodSimulator::run_with_prefix`).
//!
//! Both are exhaustive matches, so a new field must be placed in each; a
//! field placed wrongly shows in the sweep tests that compare resumed
//! and shape-keeping rows with rows run afresh.

use super::{Field, service_field};

impl Field {
    /// Whether setting the field may change the spec's shape, which the Pod
    /// model works out once and keeps until it may have changed: which
    /// containers are apps, sidecars or proxies, which have probes or an
    /// image that fails to pull. A sweep row that sets none of these keeps
    /// the shape (`PodSimulator::spec_mut_keeping_shape`).
    pub fn shapes_the_pod(self) -> bool {
        match self {
            Field::Kind | Field::Proxy | Field::ImagePull | Field::Probe(..) => true,
            Field::Horizon
            | Field::Seed
            | Field::RestartPolicy
            | Field::TerminationGracePeriod
            | Field::StopAt
            | Field::StopAfterReady
            | Field::Mode
            | Field::Kubernetes
            | Field::BackoffInitial
            | Field::BackoffCap
            | Field::BackoffImmediateFirstRestart
            | Field::Boot
            | Field::Drain
            | Field::PreStop
            | Field::Fails
            | Field::FailProbability
            | Field::CrashAfter
            | Field::Run
            | Field::ExitCode
            | Field::ContainerRestartPolicy
            | Field::ExitCodeOnSigterm
            | Field::StopSignal
            | Field::DrainsOn
            | Field::PostStart
            | Field::PostStartFails
            | Field::BackoffLimit
            | Field::BackoffLimitPerIndex
            | Field::ActionAt
            | Field::ActionAfterReady
            | Field::ActionGracePeriod
            | Field::ActionDown
            // A Service's Pods are reset through `run_spec_mut`, which
            // works the shape out again whatever changed.
            | service_field!() => false,
        }
    }

    /// Whether the Pod model reads the field only once it kills a
    /// container (a deletion, a failed probe, a failed postStart hook, an
    /// update): what the kill does and how long it takes (R33–R41, R54,
    /// R55, R59). Before the first kill, two runs whose specs differ only
    /// in such fields are in the same state, so a sweep row may start
    /// from another row's state saved just before its deletion.
    ///
    /// The Pod's grace period is one: the model notes it at a reset but
    /// uses it only in a kill, and a resumed run notes it afresh.
    pub fn read_from_the_first_kill_on(self) -> bool {
        match self {
            Field::TerminationGracePeriod
            | Field::Drain
            | Field::PreStop
            | Field::ExitCodeOnSigterm
            | Field::StopSignal
            | Field::DrainsOn => true,
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
            | Field::Kind
            | Field::Boot
            | Field::Fails
            | Field::FailProbability
            | Field::Proxy
            | Field::CrashAfter
            | Field::Run
            | Field::ExitCode
            // A probe's own grace period is read at its kill, but a probe
            // shapes the Pod: its fields are left out as a group.
            | Field::Probe(..)
            | Field::ImagePull
            | Field::ContainerRestartPolicy
            | Field::PostStart
            | Field::PostStartFails
            | Field::BackoffLimit
            | Field::BackoffLimitPerIndex
            | Field::ActionAt
            | Field::ActionAfterReady
            | Field::ActionGracePeriod
            | Field::ActionDown
            // A Service grid runs on its own simulator, which never resumes.
            | service_field!() => false,
        }
    }
}

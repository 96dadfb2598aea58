//! The one list of scenario keys: every setting a scenario, an annotation,
//! a timings overlay or a grid axis may name, with its unit, what it means,
//! and the one way it is set on a `RunSpec`.
//!
//! Invariant: every reader (the TOML scenario, `podsim.dev/` annotations,
//! the `--timings` overlay, grid axes) looks keys up here and sets them with
//! `Key::set`, so a key means the same, is spelt the same and is checked the
//! same wherever it is written. Adding a key is one `Field` variant and its
//! arms below, plus its rule in `rules` if it has one.
//!
//! The rooms: `field` (every key and what it is), `unit` (how a value is
//! written, read and encoded for an axis), `set` (a `Key` on a `RunSpec`),
//! `path` (the one grammar of key paths and table names, and the valid
//! paths of each family), `reference` (the key reference page, written
//! from all of these).

mod field;
mod limit;
pub mod path;
pub mod reference;
mod set;
mod unit;

pub(crate) use field::service_field;
pub use field::{DisruptionKind, Field, WhenRead};
pub use limit::{Limit, SCALABILITY};
pub use path::{KeyPath, PathError, Place, Reader, Spelling};
pub use set::{Key, default_backoff_cap};
pub use unit::{Unit, Value, parse_kube_version, parse_rate, priority_groups_text, unknown_preset, word};

use crate::model::{Probe, ProbeKind, RunSpec};

/// Which table of a scenario a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The run as a whole (top level of a scenario: `horizon`).
    Run,
    /// `[pod]`.
    Pod,
    /// One `[[containers]]` entry.
    Container,
    /// `[service]`: the replicas, nodes and kube-proxy.
    Service,
    /// `[traffic]`: the requests sent to the Service.
    Traffic,
    /// `[app]`: how the serving app reacts to SIGTERM.
    App,
    /// One `[[disruptions]]` entry (a `Key`'s index is the entry's).
    Disruption,
    /// `[pdb]`: the PodDisruptionBudget a drain's evictions consult.
    Pdb,
    /// `[job]`: the Job controller's limits for a Job's Pods.
    Job,
    /// One `[[actions]]` entry (a `Key`'s index is the entry's): what
    /// happens to the Pod during the run (R70–R79).
    Action,
    /// `[hop]`: an ingress, a mesh sidecar or a cloud load balancer
    /// between the clients and the Pods.
    Hop,
    /// `[cluster]`: the other Services every node's kube-proxy syncs too.
    Cluster,
}

impl Scope {
    /// The Service's scopes: the table each is written in, as a grid
    /// axis's path starts (`service.replicas`, `disruptions.0.at`).
    pub const SERVICE: [Scope; 7] = [
        Scope::Service,
        Scope::Traffic,
        Scope::App,
        Scope::Disruption,
        Scope::Pdb,
        Scope::Hop,
        Scope::Cluster,
    ];

    /// The table's name, for the Service's scopes.
    pub fn table(self) -> &'static str {
        match self {
            Scope::Run => "",
            Scope::Pod => "pod",
            Scope::Container => "containers",
            Scope::Service => "service",
            Scope::Traffic => "traffic",
            Scope::App => "app",
            Scope::Disruption => "disruptions",
            Scope::Pdb => "pdb",
            Scope::Job => "job",
            Scope::Action => "actions",
            Scope::Hop => "hop",
            Scope::Cluster => "cluster",
        }
    }
}

/// A field of a probe table (R27).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeField {
    /// `initial_delay` (`initialDelaySeconds`): the first probe waits this long.
    InitialDelay,
    /// `period` (`periodSeconds`): time between two probes.
    Period,
    /// `timeout` (`timeoutSeconds`): a probe slower than this fails.
    Timeout,
    /// `success_threshold`: successes in a row that make a readiness probe pass.
    SuccessThreshold,
    /// `failure_threshold`: failures in a row that fail the probe.
    FailureThreshold,
    /// Probe-level grace for the kill a failure causes (liveness, startup).
    TerminationGracePeriod,
    /// `outcome`: what the probe finds (R53): passes, fails, hangs, fails_after_sigterm.
    Outcome,
    /// `pass_after`: it passes no sooner than this after the end of the boot.
    PassAfter,
    /// `pass_until`: it fails from this long after the end of the boot on.
    PassUntil,
}

impl ProbeField {
    /// Every probe field, in the order the README lists them.
    pub const ALL: [ProbeField; 9] = [
        ProbeField::InitialDelay,
        ProbeField::Period,
        ProbeField::Timeout,
        ProbeField::SuccessThreshold,
        ProbeField::FailureThreshold,
        ProbeField::TerminationGracePeriod,
        ProbeField::Outcome,
        ProbeField::PassAfter,
        ProbeField::PassUntil,
    ];

    /// The key inside a probe table.
    pub fn name(self) -> &'static str {
        match self {
            ProbeField::InitialDelay => "initial_delay",
            ProbeField::Period => "period",
            ProbeField::Timeout => "timeout",
            ProbeField::SuccessThreshold => "success_threshold",
            ProbeField::FailureThreshold => "failure_threshold",
            ProbeField::TerminationGracePeriod => "termination_grace_period",
            ProbeField::Outcome => "outcome",
            ProbeField::PassAfter => "pass_after",
            ProbeField::PassUntil => "pass_until",
        }
    }

    /// The Kubernetes probe field this is, if it is one: what a probe
    /// finds is podsim's own, so annotations may say it.
    pub fn k8s_name(self) -> Option<&'static str> {
        Some(match self {
            ProbeField::InitialDelay => "initialDelaySeconds",
            ProbeField::Period => "periodSeconds",
            ProbeField::Timeout => "timeoutSeconds",
            ProbeField::SuccessThreshold => "successThreshold",
            ProbeField::FailureThreshold => "failureThreshold",
            ProbeField::TerminationGracePeriod => "terminationGracePeriodSeconds",
            ProbeField::Outcome | ProbeField::PassAfter | ProbeField::PassUntil => return None,
        })
    }
}

/// A table of keys inside a scope's table: `[pod] backoff = { … }` and a
/// container's probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// `[pod] backoff = { initial, cap, immediate_first_restart }` (R18).
    Backoff,
    /// A container's probe of this kind (R27).
    Probe(ProbeKind),
}

impl Group {
    /// Every group, in the order the README lists them.
    pub const ALL: [Group; 4] = [
        Group::Backoff,
        Group::Probe(ProbeKind::Startup),
        Group::Probe(ProbeKind::Readiness),
        Group::Probe(ProbeKind::Liveness),
    ];

    /// The key that holds the group's table.
    pub fn name(self) -> &'static str {
        match self {
            Group::Backoff => "backoff",
            Group::Probe(ProbeKind::Startup) => "startup_probe",
            Group::Probe(ProbeKind::Readiness) => "readiness_probe",
            Group::Probe(ProbeKind::Liveness) => "liveness_probe",
        }
    }

    /// Where the group's table is written: under `[pod]` or in a container.
    pub fn scope(self) -> Scope {
        match self {
            Group::Backoff => Scope::Pod,
            Group::Probe(_) => Scope::Container,
        }
    }

    /// What writing the group's table does by itself: a probe table makes
    /// the container have that probe, with Kubernetes' defaults (R27).
    pub fn open(self, run: &mut RunSpec, container: Option<usize>) {
        if let (Group::Probe(kind), Some(i)) = (self, container)
            && let Some(c) = run.pod.containers.get_mut(i)
        {
            c.probes[kind.index()].get_or_insert_with(Probe::default);
        }
    }
}

#[cfg(test)]
mod tests;

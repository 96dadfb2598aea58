//! Every rule a scenario must obey, whatever file or grid produced it, in
//! one room: the Pod spec's (kubelet rules R8, R27, the version table
//! in docs/concepts.md; `pod`), a container's restart rules (R60, `restart`),
//! the Job's (J2–J6, `job`) and the Service's (`service`), each as a typed
//! problem that a reader words for its own format and points at the key
//! it read: a TOML scenario says `kind = "sidecar"`, a manifest says
//! `restartPolicy: Always`.
//!
//! A Service's traffic stays within a work estimate's budgets (`work`).
//!
//! Invariant: every `Scenario` a reader returns and every combination a grid
//! runs passes `check_spec` and `check_service`; a rule is written once,
//! here. `class` holds `rule_class`, which a grid uses to check its axes by
//! class.

mod class;
pub mod job;
mod pod;
pub mod restart;
pub mod service;
mod version;
pub mod work;

pub use class::rule_class;
pub use pod::{ProbeProblem, Rule, SpecProblem, TWO_DELETIONS, check_shape, check_spec, check_timings};
pub use service::{ServiceProblem, ServiceRule, check_service, neither_budget};
pub use version::version_notices;

/// The format a problem is worded for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A TOML scenario (also a grid's combinations: its axes use TOML's words).
    Toml,
    /// A Kubernetes manifest with `podsim.dev/` annotations or a timings file.
    Manifest,
}

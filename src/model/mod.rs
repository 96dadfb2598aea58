//! The Kubernetes models that run on the engine, one room each: the
//! lifecycle of a single Pod (`pod`: its spec, events, history, metrics and
//! simulator), the Job controller over a Job's Pods (`job`), and a Service
//! with its replicas, endpoints, proxies and traffic (`service`). What runs
//! a scenario, whichever room it needs, is `run`, above the three: the one
//! place that chooses between them.
//!
//! Every edge points down:
//!
//! ```text
//!                 run        RunSpec, Simulator, Measured, simulate,
//!               /  |  \      RunReport (a PodReport or a ServiceReport)
//!        service   |   job   ServiceRun / JobRun: what each reads of a
//!               \  |  /      RunSpec, lent in place
//!                 pod        PodSpec, PodModel, PodSimulator, Change,
//!                  |         Metrics; PodRun: what it reads of a run
//!  dist, draw, version,     shared ground: distributions, random streams,
//!                 words      Kubernetes releases, enums spelt as words
//! ```
//!
//! `pod` names neither `job`, `service` nor `run`; `job` and `service`
//! name `pod` and the shared ground only, never each other nor `run`. What
//! a room reads of a run it reads through its own trait (`PodRun`,
//! `JobRun: PodRun`, `ServiceRun: PodRun`), which `RunSpec` implements in
//! `run` (no copy per run), and a Service's replicas run on the plain
//! `PodRunSpec`. The layers above call `run` (`simulate`, `Simulator`) and
//! never choose a room themselves. A test (`rooms`) reads the rooms'
//! sources and fails on an edge that points up or sideways. The flat
//! re-exports below keep `model::PodSpec` and the like one path for the
//! layers above; the rooms do not use them.

mod dist;
mod draw;
pub mod job;
pub mod pod;
#[cfg(test)]
mod rooms;
mod run;
pub mod service;
mod version;
mod words;

pub use dist::{Dist, Probability, Z99, normal_cdf, normal_quantile};
pub use draw::{DrawKey, Stream, name_hash};
pub use pod::spec::{
    ActionKind, ActionTime, BACKOFF_RESET_AFTER, Backoff, ContainerId, ContainerKind, ContainerSpec,
    Deletion, Disposition, Drain, ExitCodes, IMAGE_BACKOFF, ImagePull, KubeVersion, NODE_DOWN, PodMode,
    PodSpec, PostStart, Probe, ProbeKind, ProbeOutcome, Reaction, RestartPolicy, RestartRule, RuleAction,
    Signal, TimedAction,
};
pub use pod::{
    Change, ExitReason, ExposureMeter, Field, Meters, Metrics, Observer, Outcome, PodEvent, PodModel,
    PodPhase, PodSimulator, RunPrefix, Trace, TraceEntry, UpdateEffect,
};
pub use run::{
    JobReport, Measured, PodReport, RunReport, RunSpec, Simulator, simulate, simulate_pod, simulate_within,
};

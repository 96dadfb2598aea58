//! The Kubernetes models that run on the engine, one room each: the
//! lifecycle of a single Pod (`pod`: its spec, events, history, metrics and
//! simulator), the Job controller over a Job's Pods (`job`), and a Service
//! with its replicas, endpoints, proxies and traffic (`service`). What runs
//! a scenario, whichever room it needs, is `run`, above the three.
//!
//! The rooms point one way:
//!
//! ```text
//!                 run        RunSpec, Simulator, simulate, RunReport
//!               /  |  \
//!        service   |   job   the Job reads RunSpec through JobRun; the
//!               \  |  /      Service still takes the whole RunSpec
//!                 pod        PodSpec, PodModel, PodSimulator, Change, Metrics;
//!                  |         it reads RunSpec through PodRun
//!     dist, draw, version    shared ground: distributions, random streams,
//!                            Kubernetes releases
//! ```
//!
//! `pod` names neither `job`, `service` nor `run`: what it reads of a run it
//! reads through `PodRun`, which `RunSpec` lends in place (no copy per run),
//! and a Service's replicas through the plain `PodRunSpec`. `job` names
//! `pod` only, and reads its run through `JobRun`. `service` names `pod`
//! and, for its spec, `run`'s `RunSpec`: the one edge that still points up.
//! The flat re-exports below keep `model::PodSpec` and the like one path
//! for the layers above.

mod dist;
mod draw;
pub mod job;
pub mod pod;
mod run;
pub mod service;
mod version;

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
pub use run::{JobReport, Measured, PodReport, RunReport, RunSpec, Simulator, simulate, simulate_pod};

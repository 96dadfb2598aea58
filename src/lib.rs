//! podsim: a discrete-event simulator of the Kubernetes Pod lifecycle.
pub mod engine;
pub mod model;
pub mod report;
pub mod scenario;
pub mod sweep;

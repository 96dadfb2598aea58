//! podsim: a discrete-event simulator of the Kubernetes Pod lifecycle.
pub mod engine;
pub mod model;
#[doc(hidden)]
pub mod reference;
pub mod report;
pub mod scenario;

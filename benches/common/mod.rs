//! Fixed inputs shared by the benches: the seed chapter's reference Pods,
//! read from the same `scenarios/` files the README runs.
//!
//! Invariant: a bench never builds its input inside the timed loop, so what
//! it measures is the simulation and nothing else.

use std::path::Path;

use podsim::model::{PodSpec, RunSpec};
use podsim::scenario::Scenario;

/// The Pod spec of a scenario file, given relative to the repository root.
#[allow(dead_code)] // Each bench file compiles this module; not all use both.
pub fn load_spec(relative: &str) -> PodSpec {
    load_run(relative).pod
}

/// The whole run of a scenario file (its Service too), relative to the repository root.
pub fn load_run(relative: &str) -> RunSpec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative);
    Scenario::load(&path).unwrap_or_else(|e| panic!("{e}")).run
}

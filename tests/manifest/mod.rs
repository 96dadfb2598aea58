//! Kubernetes manifests through the public API, like a user's program:
//!
//! - `ckad`: the six Pods of the CKAD multi-container lab, loaded from
//!   `scenarios/ckad/` and run on the real model, against values worked out
//!   by hand from the kubelet rules (R-numbers of docs/kubelet-rules.md);
//! - `website`, `real`: manifests as published (`tests/manifests/`, each
//!   with its source): the Kubernetes website's examples; Istio's and
//!   Linkerd's injected Pods, the Cloud SQL proxy's Job, a `kubectl get -o
//!   json` List — read as they are, with what they imply worked out by hand
//!   from the kubelet rules, through the helpers below;
//! - `behind`, `budget`: a Deployment behind a Service, and its
//!   PodDisruptionBudget;
//! - `hooks`: `lifecycle.postStart` and image-pull annotations (R65–R67);
//! - `probes`: probes whose outcome the manifest tells (a file its script
//!   makes and removes) or not, on kubernetes.io's and a chart's examples;
//! - `robust`: bad input never panics (proptest).

mod behind;
mod budget;
mod ckad;
mod hooks;
mod probes;
mod real;
mod robust;
mod website;

use std::path::{Path, PathBuf};

use podsim::model::{ContainerKind, PodReport, simulate_pod};
use podsim::scenario::manifest::Timings;

use crate::picks::Change;
use podsim::scenario::{InputFormat, Problem, Scenario};

fn path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/manifests")
        .join(file)
}

/// Every workload of a bundled file, each of which must be read.
fn load(file: &str, timings: Option<&str>) -> Vec<Scenario> {
    let path = path(file);
    let timings = timings.map(|t| Timings::load(&self::path(t)).unwrap_or_else(|e| panic!("{e}")));
    Scenario::load_all(&path, InputFormat::of_path(&path), timings.as_ref())
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

fn one(file: &str, timings: Option<&str>) -> (Scenario, PodReport) {
    let mut all = load(file, timings);
    assert_eq!(all.len(), 1, "{file}");
    let scenario = all.remove(0);
    let report = simulate_pod(&scenario.run);
    (scenario, report)
}

fn kinds(s: &Scenario) -> Vec<(&str, ContainerKind)> {
    s.run
        .pod
        .containers
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect()
}

fn problems(s: &Scenario) -> Vec<&Problem> {
    s.notices.iter().map(|n| &n.problem).collect()
}

/// When `who` ("pod" for the Pod) first had a change that `pick` picks, in ms.
fn first(s: &Scenario, r: &PodReport, who: &str, pick: impl Fn(Change) -> bool) -> Option<u64> {
    crate::picks::first(r, &s.run.pod, who, pick)
}

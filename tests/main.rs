//! Every integration test, in one binary: the library and its dependencies
//! are linked once instead of once per test file (`cargo test` builds one
//! binary per file directly under `tests/`, so nothing else lives there).
//! The modules are the table of contents:
//!
//! - `advise`: `podsim::advise`'s answers against settings worked out by
//!   hand and a brute-force scan;
//! - `model`: the Pod model through the public API, against the kubelet's
//!   rules (R-numbers of docs/kubelet-rules.md) and the seed's tick loop;
//! - `manifest`: Kubernetes manifests through the public API: the CKAD lab
//!   Pods, and bad input that must never panic;
//! - `cli`: the real `podsim` binary, driven as a user would, one file per
//!   subcommand or concern;
//! - `deploy`: `deploy/`, the scale-out files a cluster operator applies;
//! - `fuzz`: the stable fuzz runner over every input podsim reads;
//! - `docs`: the front page and the guide: every command they show run and
//!   its output compared, every link and rule number resolved;
//! - `kubectl`: kubectl's view of the model's runs (STATUS, RESTARTS), for
//!   the rules about what a user sees;
//! - `picks`: typed picks of a Pod's history, which `model` and `manifest`
//!   assert in (the timeline's English is the report's own tests' to check).

mod advise;
mod cli;
mod deploy;
mod docs;
mod fuzz;
mod kubectl;
mod manifest;
mod model;
mod picks;

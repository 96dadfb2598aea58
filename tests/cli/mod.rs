//! The real `podsim` binary, driven as a user would; the modules are the
//! table of contents:
//!
//! - `run`: `podsim run` on the seed scenarios, text, JSON and `--watch`;
//! - `errors`: every kind of bad input gets a clear message and exit 1;
//! - `hooks`: postStart and image pulls as sweep axes, rows worked by hand;
//! - `manifest`: `podsim run` on Kubernetes manifests: the CKAD lab Pods,
//!   `--timings`, notices on stderr, errors with file:line:col;
//! - `inputs`: several files, several workloads per file, standard input,
//!   JSON, refusals listed after the rest ran, `report` reading the same;
//! - `pictures`: `run --svg`, `plot` and `report` (SVG, PNG, HTML);
//! - `service_pictures`: a Service run's picture of the race, SVG and text,
//!   against a run worked out by hand;
//! - `drain`: a kubectl drain under a PodDisruptionBudget, worked by hand;
//! - `rollout`: a Deployment rollout through `run` and `sweep`, worked by hand;
//! - `rollout_view`: the rollout's stacked picture and `--watch` for its Pods;
//! - `sweep`: `podsim sweep` and `podsim merge`: grid errors, hand-checked
//!   rows, determinism across thread counts, shards merged back, refusals;
//! - `serve`: `podsim serve`'s API through a real socket;
//! - `replications`: distributions, replications and summaries in sweeps;
//! - `resume`: `sweep --checkpoint` and `--resume`: stopped at seeded
//!   points by SIGKILL and SIGTERM, resumed byte for byte; refusals;
//! - `common`: starting the binary, throwaway files and folders.

pub mod common;
mod drain;
mod errors;
mod hooks;
mod inputs;
mod manifest;
mod pictures;
mod replications;
pub mod resume;
mod rollout;
mod rollout_view;
mod run;
mod serve;
mod service_pictures;
mod sweep;

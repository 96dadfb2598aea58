//! The real `podsim` binary, driven as a user would; the modules are the
//! table of contents:
//!
//! - `advise`: `podsim advise`'s table, JSON and patches on a scenario
//!   worked by hand, and what it refuses;
//! - `advise_published`: `advise` on published manifests (the Kubernetes
//!   website's nginx, Online Boutique's frontend, Istio's injected
//!   frontend), bounded by hand;
//! - `advise_frontier`: `advise --svg`, its marks read back against the
//!   advice's numbers;
//! - `run`: `podsim run` on the seed scenarios, text, JSON and `--watch`;
//! - `errors`: every kind of bad input gets a clear message and exit 1;
//! - `hooks`: postStart and image pulls as sweep axes, rows worked by hand;
//! - `manifest`: `podsim run` on Kubernetes manifests: the CKAD lab Pods,
//!   `--timings`, notices on stderr, errors with file:line:col;
//! - `mixed`: Pod and Service scenarios in one `run`; `--seed` and
//!   `--replications` on a Service;
//! - `input_hints`: removed apiVersions, files not in UTF-8, placeholders and
//!   grace periods past the API, each answered with the fix;
//! - `inputs`: several files, several workloads per file, standard input,
//!   JSON, refusals listed after the rest ran, `report` reading the same;
//! - `pictures`: `run --svg` (SVG, PNG), and the helpers `plot` and
//!   `report` share;
//! - `plot`: `podsim plot`'s trade-off (SVG, PNG) and what it refuses;
//! - `picture_layout`: runs of very different lengths on axes of their
//!   own; the band chart exactly `--width` cells wide;
//! - `report`: `podsim report`'s HTML page for runs, sweeps, summaries and Jobs;
//! - `service_hop`: the hop's row in a Service run's views, a grid over its keys (issue 39);
//! - `service_pictures`: a Service run's picture of the race, SVG and text,
//!   against a run worked out by hand;
//! - `drain`: a kubectl drain under a PodDisruptionBudget, worked by hand;
//! - `crash`: `[[disruptions]] crash` from an annotation and a grid axis;
//! - `autoscaler`: `[[disruptions]] scale_down_node` from an annotation and grid axes;
//! - `disruption_inputs`: issue 40's kinds written wrong (a delete beside
//!   another kind, a failure given a notice, a toleration in milliseconds,
//!   a single replica scaled to 1) in TOML, annotations, timings and axes;
//! - `node_shutdown`: a node shutdown's priority groups from a manifest's class, an annotation, TOML and a grid axis;
//! - `node_rows`: the picture's node rows read back: shutting down, scaling down, deleted;
//! - `rollout`: a Deployment rollout through `run` and `sweep`, worked by hand;
//! - `rollout_view`: the rollout's stacked picture and `--watch` for its Pods;
//! - `sweep`: `podsim sweep`'s rows worked by hand, determinism across
//!   thread counts, the committed results, grids with plots, probe, Job and
//!   action axes;
//! - `shards`: `sweep --shard` and `podsim merge`: shards merged back byte
//!   for byte, `--shard auto` from an Indexed Job's index;
//! - `sweep_errors`: what `sweep` refuses and how it says so, and an
//!   interrupted sweep that leaves nothing half-written;
//! - `sweep_timings`: a manifest swept with the grid's timings file;
//! - `key_paths`: a misspelt key of every family, as a grid axis, an
//!   annotation and a timings file, suggested and listed with its family;
//! - `serve`: `podsim serve`'s API through a real socket;
//! - `serve_advise`: its `/api/advise`, the page's "advise" button;
//! - `replications`: distributions, replications and summaries in sweeps;
//! - `distribution_inputs`: distributions in annotations, timings files and
//!   scenarios, and the bad ones refused;
//! - `resume`: `sweep --checkpoint` and `--resume`: stopped at seeded
//!   points by SIGKILL and SIGTERM, resumed byte for byte;
//! - `resume_refusals`: the checkpoints, partial files and flags `--resume`
//!   refuses before any run, files left as they were;
//! - `stopping`: Ctrl-C and SIGTERM end a slow Service sweep or run within
//!   seconds, a checkpoint keeping the finished rows;
//! - `work_budget`: a Service's traffic past the work estimate's budget
//!   refused at its key by `run` and by a grid's axis;
//! - `common`: starting the binary, throwaway files and folders.

mod advise;
mod advise_frontier;
mod advise_published;
mod advise_start;
mod autoscaler;
pub mod common;
mod crash;
mod disruption_inputs;
mod distribution_inputs;
mod drain;
mod errors;
mod hooks;
mod input_hints;
mod inputs;
mod key_paths;
mod manifest;
mod mixed;
mod node_rows;
mod node_shutdown;
mod picture_layout;
mod pictures;
mod plot;
mod replications;
mod report;
pub mod resume;
mod resume_refusals;
mod rollout;
mod rollout_view;
mod run;
mod serve;
mod serve_advise;
mod service_hop;
mod service_pictures;
mod shards;
mod stopping;
mod sweep;
mod sweep_errors;
mod sweep_timings;
mod work_budget;

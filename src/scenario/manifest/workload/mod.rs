//! The workload kinds a manifest may hold, each read into its
//! `k8s-openapi` type: which kinds carry a Pod template and where (`kind`),
//! the field names Kubernetes knows at each place, for "did you mean"
//! (`known_fields`), and a Job's own spec as the Job controller's rules
//! (`job`).
//!
//! Why a room: what a kind is (its apiVersion, template path, restart
//! policies) is asked by the template and the Service rooms alike, and is
//! written once, here.

pub(super) mod job;
pub(super) mod kind;
mod known_fields;

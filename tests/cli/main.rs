//! The `podsim` binary end to end (assert_cmd), one file per concern:
//!
//! - `manifest`: `podsim run` on Kubernetes manifests: the CKAD lab Pods,
//!   `--timings`, notices on stderr, errors with file:line:col.

mod manifest;

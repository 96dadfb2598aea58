//! Kubernetes manifests through the public API, like a user's program:
//!
//! - `ckad`: the six Pods of the CKAD multi-container lab, loaded from
//!   `scenarios/ckad/` and run on the real model, against values worked out
//!   by hand from the kubelet rules (R-numbers of kubelet-semantics.md);
//! - `robust`: bad input never panics (proptest).

mod ckad;
mod robust;

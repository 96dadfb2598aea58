//! Kubernetes manifests through the public API, like a user's program:
//!
//! - `ckad`: the six Pods of the CKAD multi-container lab, loaded from
//!   `scenarios/ckad/` and run on the real model, against values worked out
//!   by hand from the kubelet rules (R-numbers of kubelet-semantics.md);
//! - `real`: manifests as published (`tests/manifests/`): the Kubernetes
//!   website's examples, Istio's and Linkerd's injected Pods, the Cloud SQL
//!   proxy's Job, a `kubectl get -o json` List;
//! - `hooks`: `lifecycle.postStart` and image-pull annotations (R65–R67);
//! - `robust`: bad input never panics (proptest).

mod behind;
mod ckad;
mod hooks;
mod real;
mod robust;

//! The Pod template onto the model's `PodSpec`: the mapper (`pod`), what a
//! container's handlers (`handler`), command lines (`command`) and probes
//! (`probe_reading`) say, the `podsim.dev/` annotations of the Pod
//! (`annotations`), a service mesh's proxies (`mesh`), and what podsim
//! reads past without simulating (`unsimulated`).
//!
//! Why a room: every kind carries the same Pod template, so everything
//! that reads one is here, apart from the kinds around it (`workload`) and
//! the Services that select it (`service`).

mod annotations;
mod command;
mod handler;
pub(super) mod mesh;
pub(super) mod pod;
mod probe_reading;
mod unsimulated;

//! Behaviour of the Pod model through the public API, one file per concern:
//!
//! - `seed`: the seed chapter's reference figures, podsim's oldest promise;
//! - `startup`: init order, sidecar gate, apps together (R4–R6);
//! - `restarts`: restart policies and CrashLoopBackOff (R9–R16);
//! - `termination`: preStop, grace budget, sidecar order, SIGKILL (R33–R41);
//! - `fidelity`: probes, crashes while running, Jobs, Kubernetes versions;
//! - `probes`: manual readiness runs and probe outcomes over time (R52, R53);
//! - `hooks`: postStart hooks and failed image pulls (R65–R67);
//! - `history`: the changes the model reports, and that recording them
//!   changes nothing (proptest);
//! - `properties`: invariants over random Pods (proptest);
//! - `invariants`: issue 16's invariants, read from the history (proptest);
//! - `agreement`: the event engine against the seed's tick loop (proptest).
//! - `random`: durations drawn per attempt, seeds, chance failures;
//! - `service`: replicas behind a Service, failed requests by cause;
//! - `service_invariants`: issue 16's invariants of the Service model (proptest).
//! - `service_history`: the Service's typed history of one run, worked by hand.
//! - `service_hop`: an ingress hop's lagging view, next-upstream retry and 502s, worked by hand.
//! - `service_hop_balance`: the hop's balancers (ewma, least request) and outlier detection (issue 39).
//! - `service_clients`: client profiles, closed pooled connections and retries (issue 39).
//! - `service_unready`: one replica's readiness failing for a while (issue 39).
//! - `service_crash`: one replica's app crashing and restarting (issue 40).
//! - `service_node`: a lost node: a failure, a partition, a spot reclaim (issue 40).
//! - `service_node_gc`: what removes a lost node's Pod objects: PodGC after the Node's deletion or an out-of-service taint (issue 40).
//! - `service_autoscaler`: a cluster-autoscaler node scale-down through the budget (issue 40).
//! - `service_scale`: a scale-down's victim by the ReplicaSet's ranking (issue 40).
//! - `service_shutdown`: a graceful node shutdown's capped grace (issue 40).
//! - `service_counting`: the counting traffic model against the per-request one (issue 41).
//! - `service_counting_pool`: the same for a keep-alive client.
//! - `rollout`: Deployment rollouts on the Service, worked by hand;
//! - `drain`: kubectl drain, evictions and a PodDisruptionBudget, worked by hand.
//! - `exits`: how a container exits (R55–R59).
//! - `restart_all`: RestartAllContainers (R61).
//! - `actions`: what `[[actions]]` scripts during a run (R70–R73), worked by hand.
//! - `kubelet_restart`: a kubelet restart in `[[actions]]` (R74, R75).
//! - `reboot`: a node reboot in `[[actions]]` (R76–R79).
//! - `prefix`: runs that start from a prefix saved before another run's
//!   deletion are the runs from Pod creation (proptest).

mod actions;
mod agreement;
mod common;
mod drain;
mod exits;
mod fidelity;
mod history;
mod hooks;
mod invariants;
mod job;
mod kubelet_restart;
mod prefix;
mod probes;
mod properties;
mod random;
pub(crate) mod reboot;
mod restart_all;
mod restarts;
mod rollout;
mod seed;
mod service;
mod service_autoscaler;
mod service_clients;
mod service_cluster;
mod service_counting;
mod service_counting_pool;
mod service_crash;
mod service_history;
mod service_hop;
mod service_hop_balance;
mod service_invariants;
mod service_node;
mod service_node_gc;
mod service_scale;
mod service_shutdown;
mod service_unready;
mod startup;
mod termination;

//! The bounds Kubernetes itself sets on a key's value: a cluster's nodes,
//! its Pods. A value past one describes no cluster Kubernetes supports, and
//! simulating it would only fill memory (a Service of 10⁸ nodes asks for
//! gigabytes before its first event), so every reader refuses it where the
//! key is written, naming the limit and where Kubernetes states it.
//!
//! Invariant: every reader (TOML scenario, annotation, timings file, grid
//! axis, a Deployment's `spec.replicas`) passes each value it reads through
//! `Field::within_limit`, so a bound is stated once, here. What Kubernetes
//! does not bound (the request rate, the horizon) is left to the work
//! estimate of a run (`rules::work`).

use super::{Field, Value};
use crate::scenario::numbers::grouped;

/// Where Kubernetes states the limits below: the cluster sizes a release
/// is tested and supported at.
pub const SCALABILITY: &str = "kubernetes.io/docs/setup/best-practices/cluster-large \
     (\"Considerations for large clusters\") and the SIG Scalability thresholds";

/// A bound Kubernetes sets on a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The largest value allowed.
    pub max: u64,
    /// What `max` counts, after the number ("Pods in a cluster").
    pub what: &'static str,
}

/// A cluster supports at most 5,000 nodes.
const NODES: Limit = Limit {
    max: 5_000,
    what: "nodes in a cluster",
};

/// A cluster supports at most 150,000 Pods: a Deployment's replicas are
/// some of them, and so are the Pods the clients run in.
const PODS: Limit = Limit {
    max: 150_000,
    what: "Pods in a cluster",
};

/// A cluster supports at most 10,000 Services (the thresholds' #Services):
/// the `[cluster]`'s other Services and Deployments rolling with ours.
const SERVICES: Limit = Limit {
    max: 10_000,
    what: "Services in a cluster",
};

impl Field {
    /// The bound Kubernetes sets on the field's value, if it sets one.
    pub fn limit(self) -> Option<Limit> {
        match self {
            Field::Nodes => Some(NODES),
            Field::Replicas | Field::Clients | Field::ClusterEndpoints => Some(PODS),
            Field::ClusterServices | Field::Rolling => Some(SERVICES),
            _ => None,
        }
    }

    /// `value`, or the message saying it is past the field's limit: the
    /// value, the limit, its source. The reader says where and which key.
    pub fn within_limit(self, value: Value) -> Result<Value, String> {
        match (self.limit(), &value) {
            (Some(limit), Value::Count(n)) if u64::from(*n) > limit.max => Err(limit.refusal(u64::from(*n))),
            _ => Ok(value),
        }
    }
}

impl Limit {
    /// Why `value` is refused.
    pub fn refusal(self, value: u64) -> String {
        format!(
            "{value} is over Kubernetes' limit of {} {} ({SCALABILITY}); podsim simulates clusters \
             Kubernetes supports",
            grouped(self.max),
            self.what
        )
    }

    /// The limit as the key reference states it.
    pub fn reference(self) -> String {
        format!("at most {}", grouped(self.max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_and_pods_stop_at_the_scalability_thresholds() {
        assert_eq!(
            Field::Nodes.within_limit(Value::Count(5_000)),
            Ok(Value::Count(5_000))
        );
        let refused = Field::Nodes.within_limit(Value::Count(100_000_000)).unwrap_err();
        assert!(
            refused.starts_with(
                "100000000 is over Kubernetes' limit of 5,000 nodes in a cluster (kubernetes.io/"
            ),
            "{refused}"
        );
        assert!(Field::Replicas.within_limit(Value::Count(150_001)).is_err());
        assert!(Field::Clients.within_limit(Value::Count(150_000)).is_ok());
        assert!(Field::ClusterServices.within_limit(Value::Count(10_001)).is_err());
        assert!(Field::Rolling.within_limit(Value::Count(10_000)).is_ok());
        // A key Kubernetes does not bound takes any value its unit takes.
        assert!(Field::Pool.within_limit(Value::Count(u32::MAX)).is_ok());
    }
}

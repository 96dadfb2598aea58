//! A Deployment behind a Service: the `v1` Services and `policy/v1`
//! PodDisruptionBudgets of the file, and what they and the Deployment's
//! own fields make of a scenario. A Service whose selector matches the
//! Pod template's labels (in the same namespace, as the endpoints
//! controller matches) makes the Deployment a Service scenario with its
//! `spec.replicas`; its `spec.strategy` and `minReadySeconds` are a
//! rollout's, should the annotations declare one; a budget whose selector
//! matches is the scenario's `[pdb]`.
//!
//! Invariant: these fields are the source of truth. They become `Derived`
//! keys, which an annotation or the overlay may repeat but not contradict
//! (`service::derive`); a value the API would refuse (maxSurge and
//! maxUnavailable both 0, a `rollingUpdate` under Recreate, both budget
//! fields) is refused at its line, as kubectl apply would be.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DeploymentSpec;
use k8s_openapi::api::core::v1::{Service, ServiceSpec as K8sServiceSpec};
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

use super::Derived;
use super::fields::{budget_keys, deployment_keys};
use crate::scenario::diagnostic::{Diagnostic, Wrong};
use crate::scenario::manifest::workload::kind::{WorkloadKind, typed};
use crate::scenario::manifest::yaml::Stream;
use crate::scenario::manifest::{Found, removed};

/// A Service or a budget of the file, parsed, with the object it is.
pub(in crate::scenario::manifest) struct Peer {
    /// Its index among the file's objects.
    pub object: usize,
    name: String,
    namespace: String,
    what: What,
    /// Why no Pod can be behind it at all (a headless Service), if so.
    blocked: Option<String>,
    /// What the workloads made of it.
    fate: Fate,
}

/// What of a peer is read: a Service's selector (the rest decided
/// `blocked`), a budget's spec.
enum What {
    Service(Option<BTreeMap<String, String>>),
    Pdb(PodDisruptionBudgetSpec),
}

/// What the workloads made of a peer, the strongest kept: a Deployment's
/// scenario reads it; or a workload matched it but cannot use it, for
/// this reason; or it matched nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Fate {
    Unmatched,
    Unused(String),
    Used,
}

impl Peer {
    fn mark(&mut self, fate: Fate) {
        if self.fate != Fate::Used {
            self.fate = fate;
        }
    }

    /// Why nothing read it, for the "skipped" notice; `None` if something did.
    pub fn skipped_because(&self) -> Option<String> {
        if self.fate == Fate::Used {
            return None;
        }
        if let Some(reason) = &self.blocked {
            return Some(reason.clone());
        }
        Some(match (&self.fate, &self.what) {
            (Fate::Unused(reason), _) => reason.clone(),
            (_, What::Service(selector)) => {
                let selector: Vec<String> = selector
                    .iter()
                    .flatten()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                format!(
                    "its selector ({}) matches no Pod template of the file (in namespace {}), so it would have no endpoints",
                    selector.join(", "),
                    self.namespace
                )
            }
            // The namespace, as for a Service: a budget without one is in
            // `default`, beside Pods that may be in another.
            (_, What::Pdb(_)) => format!(
                "its selector matches no Pod template of the file behind a Service (in namespace {})",
                self.namespace
            ),
        })
    }
}

/// The `(kind, apiVersion)` pairs read here.
const SERVICE: (&str, &str) = ("Service", "v1");
const PDB: (&str, &str) = ("PodDisruptionBudget", "policy/v1");

/// `object` as a peer, `None` if it is neither a Service nor a budget.
pub(in crate::scenario::manifest) fn peer(
    stream: &Stream,
    object: &Found,
    index: usize,
) -> Option<Result<Peer, Diagnostic>> {
    let kind = object.kind()?;
    let api_version = object.scalar(&["apiVersion"]);
    let expected = [SERVICE, PDB].into_iter().find(|(k, _)| *k == kind)?.1;
    if api_version != Some(expected) {
        if kind != PDB.0 {
            // Another group's Service (Knative's) is a custom resource.
            return None;
        }
        return Some(Err(stream.error(
            object.doc.offset(&object.at(&["apiVersion"])),
            removed::wrong_version(PDB.0, api_version, expected),
        )));
    }
    let root = object.at(&[]);
    let parsed = match kind {
        "Service" => typed::<Service>(stream, object.doc, &root).map(|s| {
            let spec = s.spec.unwrap_or_default();
            (s.metadata, blocked(&spec), What::Service(spec.selector))
        }),
        _ => typed::<PodDisruptionBudget>(stream, object.doc, &root)
            .map(|p| (p.metadata, None, What::Pdb(p.spec.unwrap_or_default()))),
    };
    Some(parsed.map(|(meta, blocked, what)| Peer {
        object: index,
        name: meta.name.clone().unwrap_or_default(),
        namespace: namespace(&meta),
        blocked,
        what,
        fate: Fate::Unmatched,
    }))
}

/// Why kube-proxy would route a Service to no selected Pod, if it would not.
fn blocked(spec: &K8sServiceSpec) -> Option<String> {
    if spec.type_.as_deref() == Some("ExternalName") {
        Some("an ExternalName Service is a DNS name, without endpoints".into())
    } else if spec.cluster_ip.as_deref() == Some("None") {
        Some(
            "headless (clusterIP: None), so kube-proxy routes nothing to it (clients find the Pods by DNS)"
                .into(),
        )
    } else if spec.selector.as_ref().is_none_or(BTreeMap::is_empty) {
        Some("no selector, so the endpoints controller gives it no Pods (its EndpointSlices are written by hand)".into())
    } else {
        None
    }
}

/// The namespace an object is applied in: the context's when unset,
/// taken as `default` (both unset: the same).
fn namespace(meta: &ObjectMeta) -> String {
    meta.namespace.clone().unwrap_or_else(|| "default".into())
}

/// The workload `object` and what `behind` needs of it.
pub(in crate::scenario::manifest) struct Workload<'a> {
    pub object: &'a Found<'a>,
    pub kind: WorkloadKind,
    pub meta: &'a ObjectMeta,
    pub labels: Option<&'a BTreeMap<String, String>>,
    pub deployment: Option<&'a DeploymentSpec>,
}

/// What the peers and a Deployment's fields make of `workload`: its
/// `Derived` keys (a Deployment's rollout keys; behind a Service, its
/// replicas and its budget's). Marks the peers it reads, or why it cannot.
pub(in crate::scenario::manifest) fn behind(
    stream: &Stream,
    objects: &[Found],
    workload: &Workload,
    peers: &mut [Peer],
    notices: &mut Vec<Diagnostic>,
) -> Result<Vec<Derived>, Diagnostic> {
    let ns = namespace(workload.meta);
    let empty = BTreeMap::new();
    let labels = workload.labels.unwrap_or(&empty);
    let name = workload.meta.name.clone().unwrap_or_default();
    let kind = workload.kind.name();
    let mut chosen: Option<String> = None;
    for peer in peers.iter_mut() {
        let What::Service(selector) = &peer.what else {
            continue;
        };
        let selects = selector
            .as_ref()
            .is_some_and(|s| !s.is_empty() && s.iter().all(|(k, v)| labels.get(k) == Some(v)));
        if peer.blocked.is_some() || peer.namespace != ns || !selects {
            continue;
        }
        match (workload.deployment, &chosen) {
            (Some(_), None) => {
                peer.mark(Fate::Used);
                chosen = Some(peer.name.clone());
            }
            (Some(_), Some(first)) => peer.mark(Fate::Unused(format!(
                "the Deployment \"{name}\" is already behind Service \"{first}\", and podsim simulates one Service"
            ))),
            (None, _) => peer.mark(Fate::Unused(format!(
                "it selects the {kind} \"{name}\"'s Pods, and podsim's Service model runs a Deployment's replicas \
                 (write the Pod template as a Deployment to simulate them); the {kind} runs as one Pod"
            ))),
        }
    }
    let mut budget: Option<String> = None;
    // A Deployment's strategy is its rollouts', behind a Service or not.
    let mut derived = match workload.deployment {
        Some(spec) => deployment_keys(stream, workload.object, spec, chosen.is_some())?,
        None => Vec::new(),
    };
    for peer in peers.iter_mut() {
        let What::Pdb(pdb) = &peer.what else {
            continue;
        };
        let at = &objects[peer.object];
        if peer.namespace != ns
            || !selects(stream, at, pdb.selector.as_ref(), labels)?
            || workload.deployment.is_none()
        {
            continue;
        }
        if chosen.is_none() {
            peer.mark(Fate::Unused(format!(
                "the Deployment \"{name}\" it selects has no Service in the file, and only a Service scenario's drain \
                 evicts; add the Service (its selector matching the Pods' labels)"
            )));
            continue;
        }
        if let Some(first) = &budget {
            return Err(stream.error(
                at.doc.offset(&at.at(&["kind"])),
                format!(
                    "PodDisruptionBudget \"{}\" selects the Deployment \"{name}\"'s Pods, as \"{first}\" does; the \
                     Eviction API refuses to evict a Pod with more than one budget: keep one",
                    peer.name
                ),
            ));
        }
        derived.extend(budget_keys(stream, at, pdb, notices)?);
        budget = Some(peer.name.clone());
        peer.mark(Fate::Used);
    }
    Ok(derived)
}

/// Whether a budget's `selector` selects `labels` (`policy/v1`: an empty
/// selector selects every Pod of the namespace, a missing one none).
fn selects(
    stream: &Stream,
    at: &Found,
    selector: Option<&LabelSelector>,
    labels: &BTreeMap<String, String>,
) -> Result<bool, Diagnostic> {
    let Some(selector) = selector else {
        return Ok(false);
    };
    let by_labels = selector
        .match_labels
        .iter()
        .flatten()
        .all(|(k, v)| labels.get(k) == Some(v));
    let mut by_expressions = true;
    for (i, e) in selector.match_expressions.iter().flatten().enumerate() {
        let values = e.values.as_deref().unwrap_or_default();
        let value = labels.get(&e.key);
        by_expressions &= match e.operator.as_str() {
            "In" => value.is_some_and(|v| values.contains(v)),
            "NotIn" => value.is_none_or(|v| !values.contains(v)),
            "Exists" => value.is_some(),
            "DoesNotExist" => value.is_none(),
            other => {
                let path = at.at(&["spec", "selector", "matchExpressions"]);
                let index = i.to_string();
                let path: Vec<&str> = path.into_iter().chain([index.as_str(), "operator"]).collect();
                let wrong = Wrong::Unknown {
                    what: "operator",
                    word: other.to_string(),
                    valid: &["In", "NotIn", "Exists", "DoesNotExist"],
                };
                return Err(stream.at_value(at.doc, &path, wrong));
            }
        };
    }
    Ok(by_labels && by_expressions)
}

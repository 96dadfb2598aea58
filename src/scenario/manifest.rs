//! Kubernetes manifests as scenarios: a Pod, a Job or a Deployment (its Pod
//! template) in YAML, parsed into `k8s-openapi` types and mapped onto the
//! model's `PodSpec`, with timings from `podsim.dev/` annotations and an
//! optional `--timings` overlay (see `timings`).
//!
//! A file may hold several documents (a Deployment with its Service, say):
//! exactly one must be a workload; the others are skipped with a notice.
//! Invariant: a manifest Kubernetes would reject is an error here too, never
//! a silently different Pod; what Kubernetes accepts but podsim does not
//! model, or had to guess, becomes a notice on the scenario.

mod pod;
mod timings;
mod yaml;

use std::path::Path;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Pod, PodSpec as K8sPodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

pub use timings::{CONTAINER_KEYS, ContainerTimings, POD_KEYS, PREFIX, PodTimings, Timings};

use super::{Scenario, ScenarioError, closest, unknown_word};
use yaml::{Document, Stream, dotted};

/// The kind of workload a manifest described; kept on the scenario because
/// a Job completes where a Pod or a Deployment's Pod runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    Pod,
    Job,
    Deployment,
}

impl WorkloadKind {
    pub const NAMES: [&'static str; 3] = ["Pod", "Job", "Deployment"];

    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Pod => "Pod",
            WorkloadKind::Job => "Job",
            WorkloadKind::Deployment => "Deployment",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "Pod" => Some(WorkloadKind::Pod),
            "Job" => Some(WorkloadKind::Job),
            "Deployment" => Some(WorkloadKind::Deployment),
            _ => None,
        }
    }
}

/// Kinds that hold a Pod template podsim does not read (yet).
const OTHER_WORKLOADS: [&str; 5] = [
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "CronJob",
    "ReplicationController",
];

/// Whether `path` names a manifest (`.yaml`, `.yml`) rather than a TOML scenario.
pub fn is_manifest(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// Parses a manifest and maps it; `timings` (the overlay) wins over annotations.
pub fn parse(text: &str, origin: &str, timings: Option<&Timings>) -> Result<Scenario, ScenarioError> {
    let stream = Stream::parse(text, origin)?;
    let mut notices = Vec::new();
    let (index, kind) = pick_workload(&stream, &mut notices)?;
    let doc = &stream.documents[index];
    let workload = match kind {
        WorkloadKind::Pod => {
            let pod: Pod = typed(&stream, index)?;
            Workload {
                name: pod.metadata.name.clone(),
                own_meta: None,
                pod_meta: Some(pod.metadata),
                spec: pod.spec,
                prefix: &[],
            }
        }
        WorkloadKind::Job => {
            let job: Job = typed(&stream, index)?;
            let template = job.spec.map(|s| s.template).unwrap_or_default();
            Workload {
                name: job.metadata.name.clone(),
                own_meta: Some(job.metadata),
                pod_meta: template.metadata,
                spec: template.spec,
                prefix: &["spec", "template"],
            }
        }
        WorkloadKind::Deployment => {
            let deployment: Deployment = typed(&stream, index)?;
            let template = deployment.spec.map(|s| s.template).unwrap_or_default();
            Workload {
                name: deployment.metadata.name.clone(),
                own_meta: Some(deployment.metadata),
                pod_meta: template.metadata,
                spec: template.spec,
                prefix: &["spec", "template"],
            }
        }
    };
    if let Some(meta) = &workload.own_meta
        && let Some(key) = meta
            .annotations
            .iter()
            .flatten()
            .map(|(k, _)| k)
            .find(|k| k.starts_with(PREFIX))
    {
        return Err(stream.error(
            doc.offset(&["metadata", "annotations", key]),
            format!(
                "annotation \"{key}\" is on the {}; podsim reads its annotations from the Pod \
                 template: move it to spec.template.metadata.annotations",
                kind.name()
            ),
        ));
    }
    let Some(spec) = &workload.spec else {
        let at = [workload.prefix, &["spec"]].concat();
        return Err(stream.error(
            doc.offset(&at),
            format!("{}: the {} has no Pod spec", dotted(&at), kind.name()),
        ));
    };
    let mapper = pod::Mapper {
        stream: &stream,
        doc,
        kind,
        prefix: workload.prefix,
    };
    let annotations = workload.pod_meta.as_ref().and_then(|m| m.annotations.as_ref());
    let mapped = mapper.map(spec, annotations, timings, &mut notices)?;
    Ok(Scenario {
        name: workload.name.unwrap_or_default(),
        origin: origin.to_string(),
        spec: mapped.spec,
        horizon: mapped.horizon,
        workload: Some(kind),
        notices,
    })
}

/// What mapping needs from any of the three kinds.
struct Workload {
    name: Option<String>,
    /// A Job's or Deployment's own metadata (not the Pod's).
    own_meta: Option<ObjectMeta>,
    pod_meta: Option<ObjectMeta>,
    spec: Option<K8sPodSpec>,
    /// Path from the document root to the Pod template (empty for a Pod).
    prefix: &'static [&'static str],
}

/// The one workload document of the stream; the others become notices.
fn pick_workload(stream: &Stream, notices: &mut Vec<String>) -> Result<(usize, WorkloadKind), ScenarioError> {
    let mut workloads = Vec::new();
    let mut skipped = Vec::new();
    for (i, doc) in stream.documents.iter().enumerate() {
        let Some(kind) = doc.scalar(&["kind"]) else {
            if doc.scalar(&[]).is_some_and(|root| root.trim().is_empty()) {
                continue; // an empty document, e.g. after a trailing `---`
            }
            return Err(stream.error(
                doc.offset(&[]),
                format!(
                    "document {} has no kind; expected one of {}",
                    i + 1,
                    WorkloadKind::NAMES.join(", ")
                ),
            ));
        };
        let kind_at = doc.value_offset(&["kind"]);
        if let Some(workload) = WorkloadKind::parse(kind) {
            workloads.push((i, workload));
        } else if OTHER_WORKLOADS.contains(&kind) {
            return Err(stream.error(
                kind_at,
                format!(
                    "kind {kind} is not supported; podsim reads {}: copy its Pod template into a Deployment",
                    WorkloadKind::NAMES.join(", ")
                ),
            ));
        } else if closest(kind, &WorkloadKind::NAMES).is_some() || stream.documents.len() == 1 {
            return Err(stream.error(kind_at, unknown_word("kind", kind, &WorkloadKind::NAMES)));
        } else {
            skipped.push((i, kind));
        }
    }
    let describe = |i: usize, kind: &str| {
        let doc = &stream.documents[i];
        let name = doc.scalar(&["metadata", "name"]).unwrap_or("");
        format!("{kind} \"{name}\" at {}", stream.line_col(doc.offset(&["kind"])))
    };
    match workloads.as_slice() {
        [one] => {
            for &(i, kind) in &skipped {
                notices.push(
                    stream
                        .error(
                            stream.documents[i].offset(&["kind"]),
                            format!(
                                "skipped {}: podsim simulates the one workload of the file",
                                describe(i, kind)
                            ),
                        )
                        .to_string(),
                );
            }
            Ok(*one)
        }
        [] => Err(ScenarioError {
            origin: stream.origin.to_string(),
            position: None,
            message: format!(
                "no {} in the file (found {})",
                WorkloadKind::NAMES.join(", "),
                if skipped.is_empty() {
                    "nothing".to_string()
                } else {
                    skipped
                        .iter()
                        .map(|&(i, k)| describe(i, k))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        }),
        [_, second, ..] => Err(stream.error(
            stream.documents[second.0].offset(&["kind"]),
            format!(
                "{} workloads in one file ({}); podsim simulates one Pod: put each in a file of its own",
                workloads.len(),
                workloads
                    .iter()
                    .map(|&(i, k)| describe(i, k.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Parses document `index` as `T`, refusing fields Kubernetes does not know
/// (as kubectl's strict field validation does).
fn typed<T: serde::de::DeserializeOwned>(stream: &Stream, index: usize) -> Result<T, ScenarioError> {
    let (value, unknown) = stream.parse_document::<T>(index)?;
    if let Some(path) = unknown.first() {
        let doc: &Document = &stream.documents[index];
        let segments: Vec<&str> = path.iter().map(String::as_str).collect();
        let parent: Vec<&str> = segments
            .iter()
            .filter(|s| !s.bytes().all(|b| b.is_ascii_digit()))
            .copied()
            .collect();
        let explain = format!(
            "{}.{}",
            stream.documents[index]
                .scalar(&["kind"])
                .unwrap_or("pod")
                .to_lowercase(),
            parent[..parent.len().saturating_sub(1)].join(".")
        );
        return Err(stream.error(
            doc.offset(&segments),
            format!(
                "unknown field \"{}\" (Kubernetes rejects it); `kubectl explain {}` lists the valid ones",
                dotted(path),
                explain.trim_end_matches('.')
            ),
        ));
    }
    Ok(value)
}

//! The Kubernetes kinds that carry a Pod template, and where each keeps it:
//! a Pod is its own spec, a Deployment (StatefulSet, DaemonSet, ReplicaSet,
//! ReplicationController, Job) has `spec.template`, a CronJob
//! `spec.jobTemplate.spec.template`. Each document is parsed into its kind's
//! `k8s-openapi` type, so every field Kubernetes knows is checked.
//!
//! Invariant: a kind's facts (its name, apiVersion, template path, restart
//! policies, whether its Pods run to completion) are written once, here.

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, DeploymentSpec, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job, JobSpec};
use k8s_openapi::api::core::v1::{Pod, PodSpec as K8sPodSpec, PodTemplateSpec, ReplicationController};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::known_fields::known_fields;
use crate::scenario::diagnostic::{Diagnostic, closest};
use crate::scenario::manifest::yaml::{Document, Stream, dotted};

/// The kind of workload a manifest described; kept on the scenario because
/// a Job's Pod completes where a Deployment's runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    /// `v1` Pod: its own spec.
    Pod,
    /// `apps/v1` Deployment.
    Deployment,
    /// `apps/v1` StatefulSet.
    StatefulSet,
    /// `apps/v1` DaemonSet: one Pod per node; podsim simulates one.
    DaemonSet,
    /// `apps/v1` ReplicaSet.
    ReplicaSet,
    /// `v1` ReplicationController, ReplicaSet's predecessor.
    ReplicationController,
    /// `batch/v1` Job: its Pod runs to completion.
    Job,
    /// `batch/v1` CronJob: a Job's Pod, once per schedule; podsim simulates one.
    CronJob,
}

/// What restart policies a kind's Pods may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policies {
    /// A Pod: any.
    Any,
    /// The controllers that keep Pods running: `Always` only.
    AlwaysOnly,
    /// A Job's (or CronJob's) Pods: `Never` or `OnFailure`.
    NotAlways,
}

impl WorkloadKind {
    /// Every kind, in the order messages list them.
    pub const ALL: [WorkloadKind; 8] = [
        WorkloadKind::Pod,
        WorkloadKind::Deployment,
        WorkloadKind::StatefulSet,
        WorkloadKind::DaemonSet,
        WorkloadKind::ReplicaSet,
        WorkloadKind::ReplicationController,
        WorkloadKind::Job,
        WorkloadKind::CronJob,
    ];

    /// The `kind` as written in a manifest.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Pod => "Pod",
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::ReplicationController => "ReplicationController",
            WorkloadKind::Job => "Job",
            WorkloadKind::CronJob => "CronJob",
        }
    }

    /// The names, for messages that list what podsim reads.
    pub fn names() -> Vec<&'static str> {
        WorkloadKind::ALL.iter().map(|k| k.name()).collect()
    }

    /// The `apiVersion` Kubernetes serves the kind under.
    pub fn api_version(self) -> &'static str {
        match self {
            WorkloadKind::Pod | WorkloadKind::ReplicationController => "v1",
            WorkloadKind::Job | WorkloadKind::CronJob => "batch/v1",
            _ => "apps/v1",
        }
    }

    /// The kind written `text` (case matters, as for Kubernetes).
    pub fn parse(text: &str) -> Option<Self> {
        WorkloadKind::ALL.into_iter().find(|k| k.name() == text)
    }

    /// Path from the object to its Pod template (empty for a Pod).
    pub fn template(self) -> &'static [&'static str] {
        match self {
            WorkloadKind::Pod => &[],
            WorkloadKind::CronJob => &["spec", "jobTemplate", "spec", "template"],
            _ => &["spec", "template"],
        }
    }

    /// The restart policies its Pods may have.
    pub fn policies(self) -> Policies {
        match self {
            WorkloadKind::Pod => Policies::Any,
            WorkloadKind::Job | WorkloadKind::CronJob => Policies::NotAlways,
            _ => Policies::AlwaysOnly,
        }
    }

    /// Whether its Pods run to completion (R43–R45).
    pub fn completes(self) -> bool {
        self.policies() == Policies::NotAlways
    }

    /// Whether its spec has `replicas` (one Pod of several is simulated).
    fn has_replicas(self) -> bool {
        matches!(
            self,
            WorkloadKind::Deployment
                | WorkloadKind::StatefulSet
                | WorkloadKind::ReplicaSet
                | WorkloadKind::ReplicationController
        )
    }
}

/// One object of a kind, as mapping needs it.
pub struct Object {
    /// `metadata.name` (or `generateName`).
    pub name: Option<String>,
    /// The metadata of the object and of any template above the Pod's
    /// (a CronJob's `jobTemplate`), with their paths: podsim reads no
    /// annotation there.
    pub outer_meta: Vec<(&'static [&'static str], ObjectMeta)>,
    /// The Pod template's metadata (the Pod's own for a Pod).
    pub pod_meta: Option<ObjectMeta>,
    pub spec: Option<K8sPodSpec>,
    /// `spec.replicas` when it is not 1.
    pub replicas: Option<i32>,
    /// A Job's spec (a CronJob's `jobTemplate.spec`), for its controller's
    /// limits and `podFailurePolicy`, and where it is.
    pub job: Option<(&'static [&'static str], JobSpec)>,
    /// A Deployment's spec less its template (read already): its replicas,
    /// strategy and minReadySeconds make a Service scenario's (`behind`).
    pub deployment: Option<DeploymentSpec>,
}

/// Parses the node at `root` of `doc` (the document, or a List's item) as
/// a `kind`.
pub fn read(
    stream: &Stream,
    doc: &Document,
    root: &[&str],
    kind: WorkloadKind,
) -> Result<Object, Diagnostic> {
    let meta_path: &'static [&'static str] = &["metadata"];
    let template = |meta: ObjectMeta, replicas: Option<i32>, t: Option<PodTemplateSpec>| {
        let t = t.unwrap_or_default();
        Object {
            name: name_of(&meta),
            outer_meta: vec![(meta_path, meta)],
            pod_meta: t.metadata,
            spec: t.spec,
            replicas,
            job: None,
            deployment: None,
        }
    };
    let object = match kind {
        WorkloadKind::Pod => {
            let pod: Pod = typed(stream, doc, root)?;
            Object {
                name: name_of(&pod.metadata),
                outer_meta: Vec::new(),
                pod_meta: Some(pod.metadata),
                spec: pod.spec,
                replicas: None,
                job: None,
                deployment: None,
            }
        }
        WorkloadKind::Deployment => {
            let d: Deployment = typed(stream, doc, root)?;
            let mut spec = d.spec.unwrap_or_default();
            let pod = std::mem::take(&mut spec.template);
            Object {
                deployment: Some(spec.clone()),
                ..template(d.metadata, spec.replicas, Some(pod))
            }
        }
        WorkloadKind::StatefulSet => {
            let s: StatefulSet = typed(stream, doc, root)?;
            let spec = s.spec.unwrap_or_default();
            template(s.metadata, spec.replicas, Some(spec.template))
        }
        WorkloadKind::DaemonSet => {
            let d: DaemonSet = typed(stream, doc, root)?;
            template(d.metadata, None, d.spec.map(|s| s.template))
        }
        WorkloadKind::ReplicaSet => {
            let r: ReplicaSet = typed(stream, doc, root)?;
            let spec = r.spec.unwrap_or_default();
            template(r.metadata, spec.replicas, spec.template)
        }
        WorkloadKind::ReplicationController => {
            let r: ReplicationController = typed(stream, doc, root)?;
            let spec = r.spec.unwrap_or_default();
            template(r.metadata, spec.replicas, spec.template)
        }
        WorkloadKind::Job => {
            let j: Job = typed(stream, doc, root)?;
            let spec = j.spec.unwrap_or_default();
            let job_at: &'static [&'static str] = &["spec"];
            Object {
                job: Some((job_at, spec.clone())),
                ..template(j.metadata, None, Some(spec.template))
            }
        }
        WorkloadKind::CronJob => {
            let c: CronJob = typed(stream, doc, root)?;
            let job = c.spec.job_template;
            let spec = job.spec.unwrap_or_default();
            let job_at: &'static [&'static str] = &["spec", "jobTemplate", "spec"];
            let mut object = Object {
                job: Some((job_at, spec.clone())),
                ..template(c.metadata, None, Some(spec.template))
            };
            let job_meta: &'static [&'static str] = &["spec", "jobTemplate", "metadata"];
            object
                .outer_meta
                .push((job_meta, job.metadata.unwrap_or_default()));
            object
        }
    };
    Ok(Object {
        replicas: object.replicas.filter(|&r| kind.has_replicas() && r != 1),
        ..object
    })
}

fn name_of(meta: &ObjectMeta) -> Option<String> {
    meta.name.clone().or_else(|| meta.generate_name.clone())
}

/// Parses the node at `root` as `T`, refusing fields Kubernetes does not
/// know (as kubectl's strict field validation does).
pub(in crate::scenario::manifest) fn typed<T: serde::de::DeserializeOwned>(
    stream: &Stream,
    doc: &Document,
    root: &[&str],
) -> Result<T, Diagnostic> {
    let (value, unknown) = stream.parse_node::<T>(doc, root)?;
    if let Some((map, key, offset, written, what)) = doc.unquoted_in_string_maps(stream.text, root) {
        let singular = map.trim_end_matches('s');
        return Err(stream.error(
            offset,
            format!(
                "{singular} \"{key}\": {written} is a {what}, and {map} are strings: the API server refuses \
                 it (\"cannot unmarshal {what} into ... of type string\"); quote it: \"{written}\""
            ),
        ));
    }
    let Some(path) = unknown.first() else {
        return Ok(value);
    };
    let segments: Vec<&str> = path.iter().map(String::as_str).collect();
    // `kubectl explain` wants the kind and the field's parents, no indices.
    let within: Vec<&str> = segments[root.len()..]
        .iter()
        .filter(|s| !s.bytes().all(|b| b.is_ascii_digit()))
        .copied()
        .collect();
    let kind = doc.scalar(&[root, &["kind"]].concat()).unwrap_or("Pod");
    let (field, parents) = within.split_last().map_or(("", &[][..]), |(f, p)| (*f, p));
    let hint = known_fields(kind, parents)
        .and_then(|valid| closest(field, valid))
        .map(|v| format!("did you mean \"{v}\"? "))
        .unwrap_or_default();
    let explain = format!("{}.{}", kind.to_lowercase(), parents.join("."));
    Err(stream.error(
        doc.offset(&segments),
        format!(
            "unknown field \"{}\" (Kubernetes rejects it); {hint}`kubectl explain {}` lists the valid ones",
            dotted(path),
            explain.trim_end_matches('.')
        ),
    ))
}

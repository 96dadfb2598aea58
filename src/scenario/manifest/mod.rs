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

pub use timings::{PREFIX, Setting, Timings};

use super::Scenario;
use super::diagnostic::{Diagnostic, closest, unknown_word};
use yaml::{Document, Stream, dotted};

/// The kind of workload a manifest described; kept on the scenario because
/// a Job completes where a Pod or a Deployment's Pod runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    /// `v1` Pod: the manifest is the Pod.
    Pod,
    /// `batch/v1` Job: its Pod template, run to completion.
    Job,
    /// `apps/v1` Deployment: one Pod of its template.
    Deployment,
}

impl WorkloadKind {
    /// The kinds read, for the message that refuses another one.
    pub const NAMES: [&'static str; 3] = ["Pod", "Job", "Deployment"];

    /// The kind as Kubernetes spells it.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Pod => "Pod",
            WorkloadKind::Job => "Job",
            WorkloadKind::Deployment => "Deployment",
        }
    }

    /// The `apiVersion` Kubernetes serves the kind under.
    pub fn api_version(self) -> &'static str {
        match self {
            WorkloadKind::Pod => "v1",
            WorkloadKind::Job => "batch/v1",
            WorkloadKind::Deployment => "apps/v1",
        }
    }

    /// The kind of a manifest's `kind` field, if podsim reads it.
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
pub fn parse(text: &str, origin: &str, timings: Option<&Timings>) -> Result<Scenario, Diagnostic> {
    let stream = Stream::parse(text, origin)?;
    let mut notices = Vec::new();
    let (index, kind) = pick_workload(&stream, &mut notices)?;
    let doc = &stream.documents[index];
    let expected = kind.api_version();
    match doc.scalar(&["apiVersion"]) {
        Some(v) if v == expected => {}
        written => {
            let what = written.map_or("is missing".to_string(), |v| {
                format!("\"{v}\" is not the {}'s", kind.name())
            });
            return Err(stream.error(
                doc.offset(&["apiVersion"]),
                format!("apiVersion {what}; write apiVersion: {expected}"),
            ));
        }
    }
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
            if let Some(replicas) = deployment
                .spec
                .as_ref()
                .and_then(|s| s.replicas)
                .filter(|&r| r != 1)
            {
                notices.push(
                    stream
                        .error(
                            doc.value_offset(&["spec", "replicas"]),
                            format!("replicas: {replicas}; podsim simulates one Pod of the Deployment"),
                        )
                        .warning(),
                );
            }
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
            format!("{} is missing: the {} has no Pod spec", dotted(&at), kind.name()),
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
    notices.extend(
        super::rules::version_notices(&mapped.pod)
            .into_iter()
            .map(|n| Diagnostic::whole(origin, n).warning()),
    );
    Ok(Scenario {
        name: workload.name.unwrap_or_default(),
        origin: origin.to_string(),
        run: mapped,
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
fn pick_workload(
    stream: &Stream,
    notices: &mut Vec<Diagnostic>,
) -> Result<(usize, WorkloadKind), Diagnostic> {
    let mut workloads = Vec::new();
    let mut skipped = Vec::new();
    for (i, doc) in stream.documents.iter().enumerate() {
        if doc.is_empty() {
            continue;
        }
        let Some(kind) = doc.scalar(&["kind"]) else {
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
                        .warning(),
                );
            }
            Ok(*one)
        }
        [] => Err(Diagnostic::whole(
            stream.origin,
            format!(
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
        )),
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
fn typed<T: serde::de::DeserializeOwned>(stream: &Stream, index: usize) -> Result<T, Diagnostic> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::{ContainerKind, Deletion, RestartPolicy};

    /// A Pod with every kind of container; lines are numbered for the
    /// positions the tests expect.
    const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: demo
  annotations:
    podsim.dev/migrate.boot: \"2s\"
    podsim.dev/proxy.boot: \"3s\"
    podsim.dev/proxy.drain: \"1s\"
    podsim.dev/proxy.proxy: \"true\"
    podsim.dev/web.boot: \"1s\"
    podsim.dev/web.drain: \"3s\"
    podsim.dev/stop_at: \"10s\"
spec:
  terminationGracePeriodSeconds: 20
  initContainers:
  - name: migrate
    image: busybox
  - name: proxy
    image: envoy
    restartPolicy: Always
  containers:
  - name: web
    image: nginx
    lifecycle:
      preStop:
        exec:
          command: [\"/bin/sh\", \"-c\", \"sleep 5\"]
";

    fn scenario(text: &str) -> Scenario {
        parse(text, "pod.yaml", None).unwrap_or_else(|e| panic!("{e}"))
    }

    fn error(text: &str) -> String {
        parse(text, "pod.yaml", None).unwrap_err().to_string()
    }

    #[test]
    fn maps_kinds_hooks_grace_and_annotations() {
        let s = scenario(POD);
        assert_eq!((s.name.as_str(), s.workload), ("demo", Some(WorkloadKind::Pod)));
        assert!(s.notices.is_empty(), "{:?}", s.notices);
        let spec = &s.run.pod;
        assert_eq!(spec.termination_grace_period, SimDuration::from_secs(20));
        assert_eq!(spec.deletion, Deletion::At(SimDuration::from_secs(10)));
        assert_eq!(spec.restart_policy, RestartPolicy::Always);
        let kinds: Vec<_> = spec
            .containers
            .iter()
            .map(|c| (c.name.as_str(), c.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("migrate", ContainerKind::Init),
                ("proxy", ContainerKind::Sidecar),
                ("web", ContainerKind::App)
            ]
        );
        let (proxy, web) = (&spec.containers[1], &spec.containers[2]);
        assert!(proxy.proxy);
        assert_eq!(
            (proxy.boot, proxy.drain),
            (SimDuration::from_secs(3), SimDuration::from_secs(1))
        );
        assert_eq!(web.pre_stop, SimDuration::from_secs(5));
    }

    #[test]
    fn the_overlay_wins_over_annotations() {
        let overlay = Timings::parse(
            "[pod]\nstop_after_ready = \"1s\"\n[containers.web]\nboot = \"7s\"\n",
            "t.toml",
        )
        .unwrap();
        let s = parse(POD, "pod.yaml", Some(&overlay)).unwrap();
        assert_eq!(s.run.pod.containers[2].boot, SimDuration::from_secs(7));
        assert_eq!(s.run.pod.containers[2].drain, SimDuration::from_secs(3));
        assert_eq!(
            s.run.pod.deletion,
            Deletion::AfterReady(SimDuration::from_secs(1))
        );
        let overlay = Timings::parse("[containers.wbe]\nboot = \"7s\"\n", "t.toml").unwrap();
        assert_eq!(
            parse(POD, "pod.yaml", Some(&overlay)).unwrap_err().to_string(),
            "t.toml:1:13: [containers.wbe]: unknown container \"wbe\"; did you mean \"web\"? \
             expected one of migrate, proxy, web"
        );
    }

    #[test]
    fn missing_timings_get_defaults_and_a_notice() {
        let text = POD.replace("    podsim.dev/web.boot: \"1s\"\n", "");
        let s = scenario(&text);
        assert_eq!(s.run.pod.containers[2].boot, pod::DEFAULT_BOOT);
        let notices: Vec<String> = s.notices.iter().map(ToString::to_string).collect();
        assert_eq!(
            notices,
            [
                "pod.yaml:21:5: container \"web\": podsim assumes boot 1s (annotate podsim.dev/web.boot or give a timings file)"
            ]
        );
    }

    #[test]
    fn an_http_pre_stop_needs_a_timing_or_gets_the_default_with_a_notice() {
        let text = POD.replace(
            "        exec:\n          command: [\"/bin/sh\", \"-c\", \"sleep 5\"]\n",
            "        httpGet:\n          port: 80\n",
        );
        let s = scenario(&text);
        assert_eq!(s.run.pod.containers[2].pre_stop, pod::DEFAULT_HOOK);
        assert!(
            s.notices[0]
                .to_string()
                .contains("how long its httpGet preStop hook takes"),
            "{:?}",
            s.notices
        );
        let timed = text.replace(
            "podsim.dev/stop_at",
            "podsim.dev/web.pre_stop: \"4s\"\n    podsim.dev/stop_at",
        );
        let s = scenario(&timed);
        assert_eq!(s.run.pod.containers[2].pre_stop, SimDuration::from_secs(4));
        assert!(s.notices.is_empty());
    }

    #[test]
    fn r39_a_pre_stop_sleep_longer_than_the_grace_period_is_refused() {
        let text = POD.replace(
            "        exec:\n          command: [\"/bin/sh\", \"-c\", \"sleep 5\"]\n",
            "        sleep:\n          seconds: 21\n",
        );
        assert_eq!(
            error(&text),
            "pod.yaml:27:20: spec.containers[0].lifecycle.preStop.sleep.seconds: container \"web\": a preStop \
             sleep of 21 s is not allowed with terminationGracePeriodSeconds 20; Kubernetes wants 0 to 20 \
             seconds (R39)"
        );
        // Equal is allowed (the check is `seconds > grace`).
        assert_eq!(
            scenario(&text.replace("21", "20")).run.pod.containers[2].pre_stop,
            SimDuration::from_secs(20)
        );
    }

    #[test]
    fn an_ordinary_init_container_may_only_have_restart_policy_always() {
        let text = POD.replace(
            "    image: busybox\n",
            "    image: busybox\n    restartPolicy: OnFailure\n",
        );
        assert_eq!(
            error(&text),
            "pod.yaml:18:20: spec.initContainers[0].restartPolicy: init container \"migrate\": restartPolicy \
             \"OnFailure\" is not allowed; an init container's restartPolicy may only be Always (a native \
             sidecar), or be left out"
        );
        let text = POD.replace("restartPolicy: Always", "restartPolicy: always");
        assert!(error(&text).contains("did you mean \"Always\"?"));
    }

    #[test]
    fn r8_an_ordinary_init_container_has_no_hooks() {
        let text = POD.replace(
            "    image: busybox\n",
            "    image: busybox\n    lifecycle:\n      preStop:\n        sleep:\n          seconds: 1\n",
        );
        assert_eq!(
            error(&text),
            "pod.yaml:18:5: init container \"migrate\": lifecycle is not allowed on an init container (it runs \
             to completion); add restartPolicy: Always to make it a native sidecar"
        );
    }

    #[test]
    fn r8_drain_and_proxy_do_not_apply_to_an_ordinary_init_container() {
        let text = POD.replace("podsim.dev/migrate.boot", "podsim.dev/migrate.drain");
        assert_eq!(
            error(&text),
            "pod.yaml:16:5: init container \"migrate\": drain does not apply to an init container (it runs to \
             completion); drop podsim.dev/migrate.drain (or its entry in the timings file), or add \
             restartPolicy: Always to make it a native sidecar"
        );
    }

    #[test]
    fn restart_policy_on_an_app_container_is_refused() {
        let text = POD.replace(
            "    image: nginx\n",
            "    image: nginx\n    restartPolicy: Always\n",
        );
        let e = error(&text);
        assert!(
            e.starts_with(
                "pod.yaml:24:20: spec.containers[0].restartPolicy: container \"web\": restartPolicy"
            ),
            "{e}"
        );
        assert!(e.contains("move the container to initContainers"), "{e}");
    }

    #[test]
    fn names_are_unique_across_init_and_app_containers() {
        let text = POD.replace("  - name: migrate", "  - name: web");
        assert_eq!(
            error(&text),
            "pod.yaml:22:5: duplicate container name \"web\"; names must be unique in a Pod"
        );
    }

    #[test]
    fn kinds_podsim_cannot_run_are_named() {
        assert_eq!(
            error(&POD.replace("kind: Pod", "kind: Pdo")),
            "pod.yaml:2:7: unknown kind \"Pdo\"; did you mean \"Pod\"? expected one of Pod, Job, Deployment"
        );
        assert!(error(&POD.replace("kind: Pod", "kind: Service")).contains("unknown kind \"Service\""));
        assert!(
            error(&POD.replace("kind: Pod", "kind: StatefulSet"))
                .contains("kind StatefulSet is not supported")
        );
    }

    #[test]
    fn the_api_version_must_be_the_kinds() {
        assert_eq!(
            error(&POD.replace("apiVersion: v1", "apiVersion: apps/v1")),
            "pod.yaml:1:1: apiVersion \"apps/v1\" is not the Pod's; write apiVersion: v1"
        );
        assert_eq!(
            error(&POD.replace("apiVersion: v1\n", "")),
            "pod.yaml:1:1: apiVersion is missing; write apiVersion: v1"
        );
    }

    #[test]
    fn a_pod_needs_containers() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers: []\n";
        assert_eq!(
            error(text),
            "pod.yaml:6:3: spec.containers: the Pod has no containers; Kubernetes needs at least one"
        );
    }

    #[test]
    fn unknown_fields_are_refused_like_kubectl_does() {
        let e = error(&POD.replace("restartPolicy: Always", "restartPolicyy: Always"));
        assert_eq!(
            e,
            "pod.yaml:20:5: unknown field \"spec.initContainers[1].restartPolicyy\" (Kubernetes rejects it); \
             `kubectl explain pod.spec.initContainers` lists the valid ones"
        );
    }

    #[test]
    fn annotation_typos_suggest_the_key_or_the_container() {
        assert_eq!(
            error(&POD.replace("podsim.dev/web.boot", "podsim.dev/web.bot")),
            "pod.yaml:10:5: annotation \"podsim.dev/web.bot\": unknown timing key \"bot\"; did you mean \
             \"boot\"? expected one of boot, drain, pre_stop, fails, proxy, crash_after, run, exit_code"
        );
        assert_eq!(
            error(&POD.replace("podsim.dev/web.boot", "podsim.dev/wbe.boot")),
            "pod.yaml:10:5: annotation \"podsim.dev/wbe.boot\": unknown container \"wbe\"; did you mean \
             \"web\"? expected one of migrate, proxy, web"
        );
        assert_eq!(
            error(&POD.replace("\"10s\"", "\"10\"")),
            "pod.yaml:12:25: annotation \"podsim.dev/stop_at\": duration \"10\" needs a unit: ms, s, m or h \
             (e.g. \"10s\")"
        );
        assert_eq!(
            error(&POD.replace("stop_at", "stop-at")),
            "pod.yaml:12:5: annotation \"podsim.dev/stop-at\": unknown pod key \"stop-at\"; did you mean \
             \"stop_at\"? expected one of horizon, stop_at, stop_after_ready, backoff.initial, backoff.cap, \
             backoff.immediate_first_restart, kubernetes"
        );
        assert_eq!(
            error(&POD.replace("podsim.dev/web.boot", "podsim.dev/boot")),
            "pod.yaml:10:5: annotation \"podsim.dev/boot\": boot belongs to a container: write \
             \"podsim.dev/<container>.boot\""
        );
        assert_eq!(
            error(&POD.replace("podsim.dev/web.boot", "podsim.io/web.boot")),
            "pod.yaml:10:5: annotation \"podsim.io/web.boot\": podsim reads annotations that start with \
             \"podsim.dev/\""
        );
    }

    const JOB: &str = "\
apiVersion: batch/v1
kind: Job
metadata:
  name: batch
spec:
  template:
    metadata:
      annotations:
        podsim.dev/work.boot: \"20s\"
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
";

    #[test]
    fn a_job_is_read_from_its_template_and_recorded_as_a_job() {
        let s = scenario(JOB);
        assert_eq!((s.name.as_str(), s.workload), ("batch", Some(WorkloadKind::Job)));
        assert_eq!(s.run.pod.restart_policy, RestartPolicy::Never);
        assert_eq!(s.run.pod.containers[0].boot, SimDuration::from_secs(20));
    }

    #[test]
    fn a_job_may_not_restart_always() {
        let expected = "a Job's Pod template needs restartPolicy Never or OnFailure \
                        (Kubernetes rejects Always, the default)";
        let e = error(&JOB.replace("Never", "Always"));
        assert_eq!(
            e,
            format!("pod.yaml:11:7: spec.template.spec.restartPolicy: {expected}")
        );
        let e = error(&JOB.replace("      restartPolicy: Never\n", ""));
        assert_eq!(
            e,
            format!("pod.yaml:10:5: spec.template.spec.restartPolicy: {expected}")
        );
    }

    #[test]
    fn a_deployment_is_read_from_its_template() {
        let text = JOB
            .replace("batch/v1", "apps/v1")
            .replace("kind: Job", "kind: Deployment")
            .replace("restartPolicy: Never", "restartPolicy: Always");
        let s = scenario(&text);
        assert_eq!(s.workload, Some(WorkloadKind::Deployment));
        let s = scenario(&text.replace("spec:\n  template:", "spec:\n  replicas: 3\n  template:"));
        assert_eq!(
            s.notices[0].to_string(),
            "pod.yaml:6:13: replicas: 3; podsim simulates one Pod of the Deployment"
        );
        let e = error(&text.replace("restartPolicy: Always", "restartPolicy: Never"));
        assert!(
            e.starts_with("pod.yaml:11:22: spec.template.spec.restartPolicy: a Deployment's Pods"),
            "{e}"
        );
    }

    #[test]
    fn other_documents_are_skipped_with_a_notice_but_one_workload_is_needed() {
        let service =
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n";
        let s = scenario(&format!("{service}---\n{POD}---\n"));
        assert_eq!(s.name, "demo");
        assert_eq!(
            s.notices[0].to_string(),
            "pod.yaml:2:1: skipped Service \"web\" at 2:1: podsim simulates the one workload of the file"
        );
        // Positions stay those of the whole file.
        let e = error(&format!(
            "{service}---\n{}",
            POD.replace("kind: Pod", "kind: Pdo")
        ));
        assert!(e.starts_with("pod.yaml:10:7: unknown kind \"Pdo\""), "{e}");
        assert_eq!(
            error(&format!("{POD}---\n{JOB}")),
            "pod.yaml:30:1: 2 workloads in one file (Pod \"demo\" at 2:1, Job \"batch\" at 30:1); podsim \
             simulates one Pod: put each in a file of its own"
        );
        assert_eq!(
            error(&format!("{service}---\n{service}")),
            "pod.yaml: no Pod, Job, Deployment in the file (found Service \"web\" at 2:1, Service \"web\" at 10:1)"
        );
    }

    #[test]
    fn type_and_syntax_errors_carry_the_position_the_yaml_crate_gives() {
        let e = error(&POD.replace(
            "terminationGracePeriodSeconds: 20",
            "terminationGracePeriodSeconds: soon",
        ));
        assert!(e.starts_with("pod.yaml:14:"), "{e}");
        let e = error(&POD.replace("[\"/bin/sh\", \"-c\", \"sleep 5\"]", "[\"/bin/sh\""));
        assert!(e.starts_with("pod.yaml:2"), "{e}");
        assert!(e.contains("invalid YAML"), "{e}");
    }
}

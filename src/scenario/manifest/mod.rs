//! Kubernetes manifests as scenarios: every kind that carries a Pod
//! template (see `workload`), in YAML or JSON, one document or several, and
//! `List`s as `kubectl get -o yaml` prints them; each workload is parsed
//! into `k8s-openapi` types and mapped onto the model's `PodSpec`, with
//! timings from `podsim.dev/` annotations and an optional `--timings`
//! overlay (see `timings`). The Pod template is read in `template`, the
//! Services and budgets that select it in `service`.
//!
//! A file may hold several objects: each workload becomes a scenario of
//! its own, or a refusal of its own (the others still run); objects that
//! are not workloads (a Service, a ConfigMap) are skipped with a notice.
//! Invariant: a manifest Kubernetes would reject is an error here too, never
//! a silently different Pod; what Kubernetes accepts but podsim does not
//! model, or had to guess, becomes a notice on the scenario.

mod placeholders;
mod removed;
mod service;
mod template;
mod timings;
mod workload;
mod yaml;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use timings::{PREFIX, Setting, Source, Timings};
pub use workload::kind::WorkloadKind;
pub use yaml::Syntax;
pub use yaml::outline::{Node, Outline, Placed};

use super::Scenario;
use super::diagnostic::{Diagnostic, Problem, closest};
use service::behind;
use template::pod;
use workload::{job, kind};
use yaml::{Document, Stream, dotted};

/// The syntax of a manifest file by its extension (`.yaml`, `.yml`,
/// `.json`), or `None` for anything else (a TOML scenario).
pub fn syntax_of(path: &Path) -> Option<Syntax> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "yaml" | "yml" => Some(Syntax::Yaml),
        "json" => Some(Syntax::Json),
        _ => None,
    }
}

/// Whether `path` names a manifest rather than a TOML scenario.
pub fn is_manifest(path: &Path) -> bool {
    syntax_of(path).is_some()
}

/// Parses a YAML manifest that must hold exactly one workload (a sweep's
/// base); `timings` (the overlay) wins over annotations.
pub fn parse(text: &str, origin: &str, timings: Option<&Timings>) -> Result<Scenario, Diagnostic> {
    parse_one(text, origin, Syntax::Yaml, timings)
}

/// `parse`, in either syntax.
pub fn parse_one(
    text: &str,
    origin: &str,
    syntax: Syntax,
    timings: Option<&Timings>,
) -> Result<Scenario, Diagnostic> {
    let mut all = parse_all(text, origin, syntax, timings);
    if all.len() == 1 {
        return all.remove(0);
    }
    if let Some(refused) = all.iter().find_map(|r| r.as_ref().err()) {
        return Err(refused.clone());
    }
    let names: Vec<String> = all
        .iter()
        .flatten()
        .map(|s| format!("{} \"{}\"", s.workload.map_or("", WorkloadKind::name), s.name))
        .collect();
    Err(Diagnostic::whole(
        origin,
        format!(
            "{} workloads in one file ({}); one is needed here: put it in a file of its own",
            all.len(),
            names.join(", ")
        ),
    ))
}

/// Parses a manifest into one result per workload it holds, in the order
/// written: a scenario, or why that workload is refused. A file that
/// cannot be read at all (a syntax error, no workload) is one refusal.
pub fn parse_all(
    text: &str,
    origin: &str,
    syntax: Syntax,
    timings: Option<&Timings>,
) -> Vec<Result<Scenario, Diagnostic>> {
    let stream = match Stream::parse(text, origin, syntax) {
        Ok(stream) => stream,
        Err(e) => return vec![Err(e)],
    };
    let placeholders = match placeholders::check(&stream) {
        Ok(notice) => notice,
        Err(refused) => return vec![Err(refused)],
    };
    let objects = objects(&stream);
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    let single = objects.len() == 1;
    // Services and budgets first: each workload looks for those that select it.
    let mut peers = Vec::new();
    let mut is_peer = vec![false; objects.len()];
    for (i, object) in objects.iter().enumerate().filter(|_| !single) {
        if let Some(peer) = behind::peer(&stream, object, i) {
            is_peer[i] = true;
            match peer {
                Ok(peer) => peers.push(peer),
                Err(e) => results.push(Err(e)),
            }
        }
    }
    for (i, object) in objects.iter().enumerate().filter(|(i, _)| !is_peer[*i]) {
        match classify(&stream, object, single) {
            Class::Workload(kind) => {
                results.push(workload(&stream, (&objects, i), kind, timings, &mut peers))
            }
            Class::Refused(e) => results.push(Err(e)),
            Class::Skipped(what) => skipped.push((object, what, String::new())),
        }
    }
    // A Service or budget no workload read is skipped too, saying why.
    for peer in &peers {
        if let Some(reason) = peer.skipped_because() {
            let object = &objects[peer.object];
            let kind = object.kind().unwrap_or_default().to_string();
            skipped.push((object, kind, format!("; {reason}")));
        }
    }
    if results.is_empty() {
        let found: Vec<String> = skipped
            .iter()
            .map(|(o, what, _)| o.describe(&stream, what))
            .collect();
        return vec![Err(Diagnostic::whole(
            origin,
            format!(
                "no workload in the file (found {}); podsim reads {}",
                if found.is_empty() {
                    "nothing".to_string()
                } else {
                    found.join(", ")
                },
                WorkloadKind::names().join(", ")
            ),
        ))];
    }
    // What was skipped is told once, with the first scenario.
    if let Some(first) = results.iter_mut().find_map(|r| r.as_mut().ok()) {
        let notices = skipped.iter().map(|(object, what, reason)| {
            let name = object.scalar(&["metadata", "name"]).unwrap_or("");
            stream
                .error(
                    object.doc.offset(&object.at(&["kind"])),
                    format!("skipped {what} \"{name}\": not a workload{reason}"),
                )
                .warning()
        });
        first.notices.splice(0..0, notices.chain(placeholders));
    }
    results
}

/// One object of the file: a document, or an item of a `List`.
struct Found<'s> {
    doc: &'s Document,
    /// Its path in the document: empty, or `items`, `3`.
    root: Vec<String>,
    /// Where it is counted from, for "document 2" and "items[3]".
    ordinal: String,
    /// The kind an item of a typed list (`PodList`) has when it says none.
    implied: Option<&'static str>,
}

impl Found<'_> {
    /// `rest` under the object's root.
    fn at<'p>(&'p self, rest: &[&'p str]) -> Vec<&'p str> {
        self.root
            .iter()
            .map(String::as_str)
            .chain(rest.iter().copied())
            .collect()
    }

    fn scalar(&self, rest: &[&str]) -> Option<&str> {
        self.doc.scalar(&self.at(rest))
    }

    fn kind(&self) -> Option<&str> {
        self.scalar(&["kind"]).or(self.implied)
    }

    /// `Service "web" at 2:1`, with its apiVersion where it is not Kubernetes'.
    fn describe(&self, stream: &Stream, what: &str) -> String {
        let name = self.scalar(&["metadata", "name"]).unwrap_or("");
        let at = stream.line_col(self.doc.offset(&self.at(&["kind"])));
        format!("{what} \"{name}\" at {at}")
    }
}

/// The objects of the stream: its documents, a `List`'s items in its place.
fn objects<'s>(stream: &'s Stream) -> Vec<Found<'s>> {
    let mut found = Vec::new();
    for (i, doc) in stream.documents.iter().enumerate() {
        if doc.is_empty() {
            continue;
        }
        let kind = doc.scalar(&["kind"]).unwrap_or("");
        let element = kind.strip_suffix("List").filter(|_| doc.has(&["items"]));
        let Some(element) = element else {
            found.push(Found {
                doc,
                root: Vec::new(),
                ordinal: format!("document {}", i + 1),
                implied: None,
            });
            continue;
        };
        let implied = WorkloadKind::parse(element).map(WorkloadKind::name);
        for n in (0..).take_while(|n: &usize| doc.has(&["items", &n.to_string()])) {
            found.push(Found {
                doc,
                root: vec!["items".into(), n.to_string()],
                ordinal: format!("items[{n}]"),
                implied,
            });
        }
    }
    found
}

/// What podsim makes of one object.
enum Class {
    Workload(WorkloadKind),
    /// Not a workload (a Service, a ConfigMap, a custom resource without
    /// containers): described for the notice.
    Skipped(String),
    Refused(Diagnostic),
}

/// API groups of custom resources people run Pods with, and what they are.
const PROJECTS: [(&str, &str); 4] = [
    ("knative.dev", "Knative"),
    ("argoproj.io", "Argo"),
    ("tekton.dev", "Tekton"),
    ("kubeflow.org", "Kubeflow"),
];

/// Whether a custom resource's Pods run to completion, as a Job's do:
/// Argo's workflows, Tekton's runs, Kubeflow's and Ray's jobs, by their
/// kinds' names (`Workflow`, `CronWorkflow`, `TaskRun`, `PyTorchJob`), so
/// that the advice is not a Deployment, whose Pods restart when they end.
fn runs_to_completion(kind: &str) -> bool {
    ["Job", "Run", "Workflow", "WorkflowTemplate", "Task", "Pipeline"]
        .iter()
        .any(|end| kind.ends_with(end))
}

fn classify(stream: &Stream, object: &Found, single: bool) -> Class {
    let doc = object.doc;
    let names = WorkloadKind::names();
    let Some(kind) = object.kind() else {
        return Class::Refused(stream.error(
            doc.offset(&object.at(&[])),
            format!(
                "{} has no kind; podsim reads {}",
                object.ordinal,
                names.join(", ")
            ),
        ));
    };
    let kind_at = doc.value_offset(&object.at(&["kind"]));
    let api_version = object.scalar(&["apiVersion"]);
    // A group with a dot that is not Kubernetes' own is a custom resource.
    let group = api_version.and_then(|v| v.split_once('/')).map_or("", |(g, _)| g);
    if group.contains('.') && !group.ends_with(".k8s.io") {
        let project = PROJECTS
            .iter()
            .find(|(g, _)| group == *g || group.ends_with(&format!(".{g}")))
            .map_or(String::new(), |(_, p)| format!("{p} "));
        let what = format!("{project}{kind} ({})", api_version.unwrap_or(""));
        let holds_containers = doc.has_leaf_below(
            &object.at(&[]),
            "image",
            &["containers", "initContainers", "container"],
        );
        if !holds_containers && !single {
            return Class::Skipped(what);
        }
        let like = match runs_to_completion(kind) {
            true => "a Job: its Pods run to completion",
            false => "a Deployment, say",
        };
        return Class::Refused(stream.error(
            kind_at,
            format!(
                "{what} is a custom resource, which podsim does not read; podsim reads {}: \
                 write its Pod template as one of them ({like}) to simulate it",
                names.join(", ")
            ),
        ));
    }
    if let Some(workload) = WorkloadKind::parse(kind) {
        let expected = workload.api_version();
        return match api_version {
            Some(v) if v == expected => Class::Workload(workload),
            _ if object.implied.is_some() && api_version.is_none() => Class::Workload(workload),
            written => Class::Refused(stream.error(
                doc.offset(&object.at(&["apiVersion"])),
                removed::wrong_version(workload.name(), written, expected),
            )),
        };
    }
    if closest(kind, &names).is_some() || single {
        let valid = names.iter().map(|n| n.to_string()).collect();
        return Class::Refused(stream.error(kind_at, Problem::unknown("", "kind", kind, valid)));
    }
    Class::Skipped(kind.to_string())
}

/// One workload object as a scenario.
fn workload(
    stream: &Stream,
    (objects, index): (&[Found], usize),
    kind: WorkloadKind,
    timings: Option<&Timings>,
    peers: &mut [behind::Peer],
) -> Result<Scenario, Diagnostic> {
    let object = &objects[index];
    let doc = object.doc;
    let root: Vec<&str> = object.at(&[]);
    let read = kind::read(stream, doc, &root, kind)?;
    let mut notices = Vec::new();
    let no_meta = Default::default();
    let meta = read.outer_meta.first().map(|(_, m)| m).or(read.pod_meta.as_ref());
    let this = behind::Workload {
        object,
        kind,
        meta: meta.unwrap_or(&no_meta),
        labels: read.pod_meta.as_ref().and_then(|m| m.labels.as_ref()),
        deployment: read.deployment.as_ref(),
    };
    let mut derived = behind::behind(stream, objects, &this, peers, &mut notices)?;
    // Behind a Service every replica is simulated.
    let behind_service = derived
        .iter()
        .any(|d| d.field == crate::scenario::key::Field::Replicas);
    if let Some(replicas) = read.replicas.filter(|_| !behind_service) {
        notices.push(
            stream
                .error(
                    doc.value_offset(&object.at(&["spec", "replicas"])),
                    format!(
                        "replicas: {replicas}; podsim simulates one Pod of the {}",
                        kind.name()
                    ),
                )
                .warning(),
        );
    }
    for (path, meta) in &read.outer_meta {
        if let Some(key) = meta
            .annotations
            .iter()
            .flatten()
            .map(|(k, _)| k)
            .find(|k| k.starts_with(PREFIX))
        {
            let rest: Vec<&str> = path
                .iter()
                .copied()
                .chain(["annotations", key.as_str()])
                .collect();
            let at = object.at(&rest);
            return Err(stream.error(
                doc.offset(&at),
                format!(
                    "annotation \"{key}\" is on the {} ({}); podsim reads its annotations from the Pod \
                     template: move it to {}.metadata.annotations",
                    kind.name(),
                    dotted(&[path, &["annotations"][..]].concat()),
                    dotted(kind.template())
                ),
            ));
        }
    }
    if let Some(name) = object.scalar(&["metadata", "name"])
        && !is_subdomain(name)
    {
        return Err(stream.error(
            doc.value_offset(&object.at(&["metadata", "name"])),
            format!(
                "{}: \"{name}\" is not a name Kubernetes accepts (lowercase letters, digits, '-' and '.', \
                 starting and ending with a letter or digit, at most 253); write one such as my-app",
                dotted(&object.at(&["metadata", "name"]))
            ),
        ));
    }
    let prefix: Vec<String> = object
        .root
        .iter()
        .cloned()
        .chain(kind.template().iter().map(|s| s.to_string()))
        .collect();
    let Some(spec) = &read.spec else {
        let at: Vec<String> = prefix.iter().cloned().chain(["spec".to_string()]).collect();
        let at: Vec<&str> = at.iter().map(String::as_str).collect();
        return Err(stream.error(
            doc.offset(&at),
            Problem::missing("", dotted(&at), format!("the {} has no Pod spec", kind.name())),
        ));
    };
    let template: Vec<&str> = prefix.iter().map(String::as_str).collect();
    let priority = service::priority::read(stream, doc, &template, spec);
    derived.extend(priority.derived);
    let mapper = pod::Mapper {
        stream,
        doc,
        kind,
        prefix,
    };
    let annotations = read.pod_meta.as_ref().and_then(|m| m.annotations.as_ref());
    let mapped = mapper.map(spec, annotations, timings, &derived)?;
    notices.extend(mapper.notices(spec, annotations, &mapped));
    let mut run = mapped.run;
    // Only a Service's node shutdown reads the priority; an annotation
    // that set it has answered the notice.
    if run.service.as_deref().is_some_and(|s| s.pod_priority == 0) {
        notices.extend(priority.notice);
    }
    if let Some((at, job)) = &read.job {
        let at: Vec<&str> = object
            .root
            .iter()
            .map(String::as_str)
            .chain(at.iter().copied())
            .collect();
        job::read(stream, doc, &at, job, &mut run, &mut notices)?;
    }
    let work = run.service.as_deref().map(super::rules::work::work_notices);
    notices.extend(
        super::rules::version_notices(&run.pod)
            .into_iter()
            .chain(work.unwrap_or_default())
            .map(|n| Diagnostic::whole(stream.origin, n).warning()),
    );
    Ok(Scenario {
        name: read.name.unwrap_or_default(),
        origin: stream.origin.to_string(),
        run,
        workload: Some(kind),
        notices,
    })
}

/// A DNS-1123 subdomain, what Kubernetes wants of an object's name.
fn is_subdomain(name: &str) -> bool {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    name.len() <= 253
        && edge(name.chars().next())
        && edge(name.chars().last())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
}

/// A DNS-1123 label, what Kubernetes wants of a container's name.
pub(crate) fn is_label(name: &str) -> bool {
    name.len() <= 63 && !name.contains('.') && is_subdomain(name)
}

//! One Kubernetes Pod spec onto the model's `PodSpec`: container kinds,
//! preStop hooks, the grace period and the restart policy from the manifest;
//! boot, drain and the other timings from annotations and the overlay.
//!
//! Invariant: model container `i` is built from the Kubernetes container `i`
//! of `initContainers` followed by `containers`, and every `podsim.dev/`
//! annotation is used or is an error, so a typo never falls back to a default.
//!
//! Mapping one container (hooks, policy, stop signal, probes) is in
//! `container`; listing the containers in model order, with their kinds,
//! in `entries`.

mod container;
mod entries;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodSpec as K8sPodSpec};

use container::CommandLine;

use super::handler::Handler;
use super::mesh::{injected_proxies, not_injected};
use super::unsimulated::left_out;
use crate::engine::SimDuration;
use crate::model::service::{OnSigterm, serving_app};
use crate::model::{
    ContainerKind, ContainerSpec, Deletion, PodMode, PodSpec, ProbeOutcome, RestartPolicy, RunSpec,
};
use crate::scenario::diagnostic::{Diagnostic, Problem, Scripted, unknown_word};
use crate::scenario::key::{Field, Key};
use crate::scenario::manifest::service;
use crate::scenario::manifest::timings::{Setting, Source, Timings};
use crate::scenario::manifest::workload::kind::{Policies, WorkloadKind};
use crate::scenario::manifest::yaml::{Document, Stream, dotted};
use crate::scenario::rules::{Format, Rule, check_spec};

/// `PREFIX` without its slash, to recognise a misspelt prefix.
pub(super) const DOMAIN: &str = "podsim.dev";

/// Boot time assumed when no annotation or overlay gives one.
pub const DEFAULT_BOOT: SimDuration = SimDuration::from_secs(1);
/// Drain assumed when none is given: the process exits at once on SIGTERM.
pub const DEFAULT_DRAIN: SimDuration = SimDuration::ZERO;
/// Duration assumed for a preStop hook whose length the manifest does not
/// tell (an `httpGet`, or an `exec` other than `sleep N`).
pub const DEFAULT_HOOK: SimDuration = SimDuration::from_secs(1);

/// Where a Pod spec sits in its document, and how to report on it.
pub struct Mapper<'a> {
    pub stream: &'a Stream<'a>,
    pub doc: &'a Document,
    pub kind: WorkloadKind,
    /// Path from the document root to the Pod template (empty for a Pod).
    pub prefix: Vec<String>,
}

/// One container with its kind and its path in the document.
pub(super) struct Entry<'a> {
    pub kind: ContainerKind,
    pub container: &'a Container,
    path: Vec<String>,
}

impl Entry<'_> {
    /// Its path from the Pod template (`spec.initContainers.0`).
    pub(super) fn path(&self) -> Vec<String> {
        self.path.clone()
    }
}

impl Mapper<'_> {
    pub(super) fn full<'p>(&'p self, rest: &[&'p str]) -> Vec<&'p str> {
        self.prefix
            .iter()
            .map(String::as_str)
            .chain(rest.iter().copied())
            .collect()
    }

    /// An error at the key of `rest` (under the Pod template).
    pub(super) fn error(&self, rest: &[&str], message: impl Into<String>) -> Diagnostic {
        self.stream.error(self.doc.offset(&self.full(rest)), message)
    }

    /// An error at the value of `rest`, named by its path.
    pub(super) fn value_error(&self, rest: &[&str], message: impl std::fmt::Display) -> Diagnostic {
        let path = self.full(rest);
        self.stream.error(
            self.doc.value_offset(&path),
            format!("{}: {message}", dotted(&path)),
        )
    }

    pub(super) fn notice(&self, rest: &[&str], message: impl Into<String>) -> Diagnostic {
        self.error(rest, message).warning()
    }

    /// Where `entry`'s name is written, for a notice about the container.
    fn name_offset(&self, entry: &Entry) -> usize {
        let path = entry.path();
        let mut at: Vec<&str> = path.iter().map(String::as_str).collect();
        at.push("name");
        self.doc.offset(&self.full(&at))
    }

    /// A notice of a typed `problem` at byte `offset` of the file.
    fn notice_at(&self, offset: usize, problem: Problem) -> Diagnostic {
        let (origin, text) = (self.stream.origin, self.stream.text);
        Diagnostic::error(origin, text, Some(offset..offset), problem).warning()
    }

    pub fn map(
        &self,
        spec: &K8sPodSpec,
        annotations: Option<&BTreeMap<String, String>>,
        overlay: Option<&Timings>,
        derived: &[service::Derived],
        notices: &mut Vec<Diagnostic>,
    ) -> Result<RunSpec, Diagnostic> {
        let grace = match spec.termination_grace_period_seconds {
            None => PodSpec::DEFAULT_GRACE,
            Some(s) if s < 0 => {
                return Err(self.value_error(
                    &["spec", "terminationGracePeriodSeconds"],
                    format!("{s} is negative; write 0 or more seconds"),
                ));
            }
            Some(s) => SimDuration::from_secs(s as u64),
        };
        let restart_policy = self.restart_policy(spec.restart_policy.as_deref())?;
        let entries = self.entries(spec)?;
        // Names and kinds first: annotations are looked up by name.
        let skeleton = entries
            .iter()
            .map(|e| ContainerSpec::new(&e.container.name, e.kind, SimDuration::ZERO))
            .collect();
        self.check(&PodSpec::new(skeleton), &entries, &[], None)?;
        let names: Vec<&str> = entries.iter().map(|e| e.container.name.as_str()).collect();
        let mut settings = self.annotations(annotations, &names)?;
        if let Some(overlay) = overlay {
            for (name, span) in &overlay.containers {
                if !names.contains(&name.as_str()) {
                    return Err(overlay.error(
                        span.clone(),
                        format!("[containers.{name}]: {}", unknown_word("container", name, &names)),
                    ));
                }
            }
            settings.extend(overlay.settings.iter().cloned());
        }
        let mut containers = Vec::with_capacity(entries.len());
        let mut hooks = Vec::with_capacity(entries.len());
        for entry in &entries {
            let path = entry.path();
            let hook = self.hook(entry.container, &path, Handler::PreStop, grace, notices)?;
            let post_start = self.hook(entry.container, &path, Handler::PostStart, grace, notices)?;
            let os = spec.os.as_ref().map(|os| os.name.as_str());
            containers.push(self.container(entry, &hook, &post_start, os)?);
            hooks.push((hook, post_start));
        }
        // Before the settings, so that one saying `proxy = false` wins.
        for (i, mesh) in injected_proxies(annotations, &names) {
            containers[i].proxy = true;
            let set = |s: &Setting| s.field == Field::Proxy && s.container.as_deref() == Some(mesh.container);
            if !settings.iter().any(set) {
                let problem = Problem::InjectedProxy {
                    container: mesh.container.to_string(),
                    mesh: mesh.name,
                    annotation: mesh.annotation,
                };
                notices.push(self.notice_at(self.name_offset(&entries[i]), problem));
            }
        }
        for injector in not_injected(annotations, &names) {
            let at = self
                .doc
                .offset(&self.full(&["metadata", "annotations", injector.annotation]));
            notices.push(self.notice_at(at, Problem::NotInjected(Box::new(injector))));
        }
        for left in left_out(spec) {
            let at = self.doc.offset(&self.full(left.path));
            notices.push(self.notice_at(at, Problem::Message(left.message)));
        }
        // Before the settings too, so that a drain or run they set wins.
        let lines = self.command_lines(&entries, &mut containers);
        let pod = PodSpec {
            restart_policy,
            termination_grace_period: grace,
            // A Job's Pod runs to completion (R43–R45).
            mode: if self.kind.completes() {
                PodMode::Job
            } else {
                PodMode::Service
            },
            containers,
            ..PodSpec::new(Vec::new())
        };
        let mut run = RunSpec::new(pod);
        service::prepare(&mut run, &settings);
        // Each setting over the manifest's Pod, annotations first, so the
        // overlay wins key by key (and a deletion it sets replaces theirs).
        let mut set = vec![Vec::new(); entries.len()];
        for setting in &settings {
            let index = setting
                .container
                .as_ref()
                .and_then(|name| names.iter().position(|n| n == name));
            if let Some(i) = index {
                set[i].push(setting.field);
            }
            Key {
                field: setting.field,
                container: index.or(setting.index),
            }
            .set(&mut run, &setting.value);
        }
        let checked =
            service::derive(&mut run, &settings, derived).and_then(|()| service::check(&run, &settings));
        if let Err((i, message)) = checked {
            return Err(self.error_at_setting(settings.get(i), overlay, message));
        }
        // Behind a Service, an app with no SIGTERM handler (R80) serves on
        // until SIGKILL: `on_sigterm = "ignore"`, unless a setting says how
        // it stops (`on_sigterm`, or a `drain` that says it handles SIGTERM).
        if let Some(service) = run.service.as_deref_mut()
            && let Some(app) = serving_app(&run.pod)
            && lines[app.index()].deaf.is_some()
            && !set[app.index()].contains(&Field::Drain)
            && !settings.iter().any(|s| s.field == Field::OnSigterm)
        {
            service.app.on_sigterm = OnSigterm::Ignore;
        }
        // Drain and preStop matter only if the Pod ever shuts down.
        let disrupted = run.service.as_ref().is_some_and(|s| !s.disruptions.is_empty());
        let deleted = run.pod.deletion != Deletion::Never || disrupted;
        let shuts_down = deleted || stops_by_itself(&run.pod);
        let mut boot = Vec::new();
        let mut drain = Vec::new();
        let mut first = None;
        for (i, entry) in entries.iter().enumerate() {
            // A startup or liveness probe's kill runs the preStop hook and
            // the drain too (R31), of this container only; the apps' own
            // end stops the sidecars alone (R44).
            let stopped_by_kubelet = match entry.kind {
                ContainerKind::Sidecar => shuts_down,
                _ => deleted,
            };
            let stops = stopped_by_kubelet || may_be_killed_by_probe(&run.pod.containers[i]);
            let (no_boot, no_drain) = self.timing_notices(entry, &hooks[i], &set[i], stops, notices)?;
            let CommandLine { deaf, scripted } = &lines[i];
            // Its drain was read off the command line, not assumed.
            let no_drain = no_drain && deaf.is_none();
            // Whether the kubelet ever stops it: a deletion, a startup or
            // liveness probe's kill (R31), or for a sidecar the apps' end (R44).
            let [startup, _, liveness] = &run.pod.containers[i].probes;
            let stopped = match entry.kind {
                ContainerKind::Sidecar => shuts_down,
                _ => deleted || startup.is_some() || liveness.is_some(),
            };
            // A script that ends as soon as it starts is gone before any stop.
            let ends_at_once = scripted.as_ref().is_some_and(|(_, e)| e.run == SimDuration::ZERO);
            if let Some(command) = deaf
                && stopped
                && !ends_at_once
                && !set[i].contains(&Field::Drain)
            {
                let problem = Problem::UnhandledSigterm {
                    container: entry.container.name.clone(),
                    command: command.clone(),
                };
                notices.push(self.notice_at(self.name_offset(entry), problem));
            }
            // Told unless set, or the deletion comes first: a stop_at before
            // the run's end, or a stop_after_ready shorter than the run.
            if let Some((command, exit)) = scripted
                && !set[i].contains(&Field::Run)
                && !matches!(run.pod.deletion, Deletion::At(t) | Deletion::AfterReady(t) if t < exit.run)
            {
                let problem = Problem::ScriptedExit(Box::new(Scripted {
                    container: entry.container.name.clone(),
                    command: command.clone(),
                    run: exit.run,
                    code: exit.code,
                }));
                notices.push(self.notice_at(self.name_offset(entry), problem));
            }
            let name = &entry.container.name;
            if no_boot {
                boot.push(name.clone());
            }
            if no_drain {
                drain.push(name.clone());
            }
            if (no_boot || no_drain) && first.is_none() {
                first = Some(i);
            }
        }
        if let Some(i) = first {
            let offset = self.name_offset(&entries[i]);
            let assumed = [("boot", DEFAULT_BOOT, boot), ("drain", DEFAULT_DRAIN, drain)]
                .into_iter()
                .filter(|(_, _, names)| !names.is_empty())
                .map(|(key, default, names)| (key.to_string(), default, names))
                .collect();
            let problem = Problem::AssumedTimings { assumed };
            notices.push(self.notice_at(offset, problem));
        }
        if !shuts_down {
            let offset = self.doc.offset(&self.full(&[]));
            // A Service scenario deletes its Pods by disruptions, not stop_after_ready.
            let problem = match run.service {
                Some(_) => Problem::NeverDisrupted,
                None => Problem::NeverDeleted {
                    job: self.kind.completes().then(|| {
                        let apps = run.pod.containers.iter().filter(|c| c.kind == ContainerKind::App);
                        apps.filter(|c| c.run.is_none()).map(|c| c.name.clone()).collect()
                    }),
                },
            };
            notices.push(self.notice_at(offset, problem));
        }
        if run.service.as_ref().is_some_and(|s| s.traffic.is_none()) {
            let offset = self.doc.offset(&self.full(&[]));
            notices.push(self.notice_at(offset, Problem::NoTraffic));
        }
        self.check(&run.pod, &entries, &settings, overlay)?;
        Ok(run)
    }

    /// An error at where `setting` was written (its annotation, or its key
    /// in the timings file), else at the workload.
    fn error_at_setting(
        &self,
        setting: Option<&Setting>,
        overlay: Option<&Timings>,
        message: String,
    ) -> Diagnostic {
        match setting.map(|s| &s.source) {
            Some(Source::Annotation(key)) => self.error(&["metadata", "annotations", key.as_str()], message),
            Some(Source::Overlay(span)) if let Some(overlay) = overlay => {
                overlay.error(span.clone(), message)
            }
            _ => self.error(&[], message),
        }
    }

    /// `check_spec`, its problem positioned where the value it is about was
    /// written: the annotation or timings key that set it, else the
    /// container concerned; worded for a manifest.
    fn check(
        &self,
        spec: &PodSpec,
        entries: &[Entry],
        settings: &[Setting],
        overlay: Option<&Timings>,
    ) -> Result<(), Diagnostic> {
        let Err(problem) = check_spec(spec) else {
            return Ok(());
        };
        let name = problem
            .container
            .and_then(|i| entries.get(i))
            .map(|e| &e.container.name);
        let written = settings
            .iter()
            .rev()
            .find(|s| problem.field == Some(s.field) && name.is_some() && s.container.as_ref() == name);
        if written.is_some() {
            return Err(self.error_at_setting(written, overlay, problem.message(spec, Format::Manifest)));
        }
        let at: Vec<String> = match problem.container.and_then(|i| entries.get(i)) {
            Some(entry) => {
                let mut at = entry.path();
                if problem.field.is_none() || matches!(problem.rule, Rule::NotOnInit(_)) {
                    at.push("name".into());
                }
                at
            }
            None => vec!["spec".into(), "containers".into()],
        };
        let at: Vec<&str> = at.iter().map(String::as_str).collect();
        Err(self.error(&at, problem.message(spec, Format::Manifest)))
    }

    /// `spec.restartPolicy`, with the kind's own rules (a Job's Pods may not
    /// restart forever; a Deployment's must).
    fn restart_policy(&self, written: Option<&str>) -> Result<RestartPolicy, Diagnostic> {
        let at = ["spec", "restartPolicy"];
        let policy = match written {
            None => None,
            Some(text) => Some(RestartPolicy::parse(text).ok_or_else(|| {
                self.value_error(&at, unknown_word("restartPolicy", text, &RestartPolicy::NAMES))
            })?),
        };
        match (self.kind.policies(), policy) {
            (Policies::NotAlways, None | Some(RestartPolicy::Always)) => Err(self.error(
                &at,
                format!(
                    "{}: a {}'s Pod template needs restartPolicy Never or OnFailure \
                     (Kubernetes rejects Always, the default)",
                    dotted(&self.full(&at)),
                    self.kind.name()
                ),
            )),
            (Policies::AlwaysOnly, Some(p)) if p != RestartPolicy::Always => Err(self.value_error(
                &at,
                format!(
                    "a {}'s Pods must use restartPolicy Always, the only value Kubernetes accepts there, not {}",
                    self.kind.name(),
                    p.name()
                ),
            )),
            (_, p) => Ok(p.unwrap_or_default()),
        }
    }
}

/// Whether a startup or liveness probe of `c` can fail (R31, R53): it
/// finds failure, hangs, or passes only inside a window.
fn may_be_killed_by_probe(c: &ContainerSpec) -> bool {
    let [startup, _, liveness] = &c.probes;
    [startup, liveness].into_iter().flatten().any(|p| {
        p.outcome != ProbeOutcome::Passes || p.pass_until.is_some() || p.pass_after > SimDuration::ZERO
    })
}

/// Whether the Pod ends without a deletion: every app exits after its
/// `run` and none is restarted for it.
fn stops_by_itself(pod: &PodSpec) -> bool {
    pod.restart_policy != RestartPolicy::Always
        && pod
            .containers
            .iter()
            .filter(|c| c.kind == ContainerKind::App)
            .all(|c| c.run.is_some() && (pod.restart_policy == RestartPolicy::Never || c.exit_code == 0))
}

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
//! in `entries`; what is worth telling about the mapped Pod, a pass of its
//! own over what the mapping made, in `notices`.

mod container;
mod entries;
mod notices;
mod probes;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodSpec as K8sPodSpec};

use container::CommandLine;
use probes::ReadProbes;

use super::handler::{Handler, Hook};
use super::mesh::injected_proxies;
use crate::engine::SimDuration;
use crate::model::service::{OnSigterm, serving_app};
use crate::model::{ContainerKind, ContainerSpec, PodMode, PodSpec, RestartPolicy, RunSpec};
use crate::scenario::diagnostic::{Diagnostic, Problem, Wrong};
use crate::scenario::key::{Field, Key};
use crate::scenario::manifest::service;
use crate::scenario::manifest::timings::{PREFIX, Setting, Source, Timings};
use crate::scenario::manifest::workload::kind::{Policies, WorkloadKind};
use crate::scenario::manifest::yaml::{Document, Stream, dotted};
use crate::scenario::rules::{Format, Rule, SpecProblem, check_shape, check_timings};

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

/// What the mapping made of a Pod: the run, and what the notices read of
/// how it got there.
pub struct Mapped<'s> {
    /// The Pod (and its Service, if any) to simulate.
    pub run: RunSpec,
    entries: Vec<Entry<'s>>,
    /// Each container's preStop and postStart, as the manifest tells them.
    hooks: Vec<(Hook, Hook)>,
    /// What each container's command line told.
    lines: Vec<CommandLine>,
    /// When each container's probes pass, where the manifest says.
    reads: Vec<ReadProbes>,
    /// The fields each container's settings set.
    set: Vec<Vec<Field>>,
    grace: SimDuration,
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

    /// The workload as a timings file's messages name it: `app.yaml's
    /// Deployment "web"`.
    fn workload(&self) -> String {
        let root = &self.prefix[..self.prefix.len() - self.kind.template().len()];
        let mut path: Vec<&str> = root.iter().map(String::as_str).collect();
        path.extend(["metadata", "name"]);
        let name = self.doc.scalar(&path).unwrap_or_default();
        format!("{}'s {} \"{name}\"", self.stream.origin, self.kind.name())
    }

    /// An error at the key of `rest` (under the Pod template).
    pub(super) fn error(&self, rest: &[&str], message: impl Into<Problem>) -> Diagnostic {
        self.stream.error(self.doc.offset(&self.full(rest)), message)
    }

    /// An error at the value of `rest`, named by its path.
    pub(super) fn value_error(&self, rest: &[&str], wrong: impl Into<Wrong>) -> Diagnostic {
        self.stream.at_value(self.doc, &self.full(rest), wrong)
    }

    pub(super) fn notice(&self, rest: &[&str], message: impl Into<Problem>) -> Diagnostic {
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

    /// The Pod of `spec` as the model's `RunSpec`: the manifest's fields,
    /// then the settings of `annotations` and `overlay` over them, then the
    /// fields `derived` from the Services and budgets that select it; the
    /// spec checked once, its shape (names and kinds) before any setting is
    /// read, the rest once everything is. What is worth telling about it is
    /// `notices`' to say, from what this returns.
    pub fn map<'s>(
        &self,
        spec: &'s K8sPodSpec,
        annotations: Option<&BTreeMap<String, String>>,
        overlay: Option<&Timings>,
        derived: &[service::Derived],
    ) -> Result<Mapped<'s>, Diagnostic> {
        let grace = match spec.termination_grace_period_seconds {
            None => PodSpec::DEFAULT_GRACE,
            Some(s) if s < 0 => {
                let wrong = Wrong::Negative {
                    value: s,
                    write: Some("0 or more seconds"),
                };
                return Err(self.value_error(&["spec", "terminationGracePeriodSeconds"], wrong));
            }
            // Past the clock: told in `notices`.
            Some(s) => SimDuration::from_secs_saturating(s as u64),
        };
        let restart_policy = self.restart_policy(spec.restart_policy.as_deref())?;
        let entries = self.entries(spec)?;
        // Names and kinds first: annotations are looked up by name.
        let skeleton = entries
            .iter()
            .map(|e| ContainerSpec::new(&e.container.name, e.kind, SimDuration::ZERO))
            .collect();
        self.check(check_shape, &PodSpec::new(skeleton), &entries, &[], None)?;
        let names: Vec<&str> = entries.iter().map(|e| e.container.name.as_str()).collect();
        let mut settings = self.annotations(annotations, &names)?;
        if let Some(overlay) = overlay {
            for (name, span) in &overlay.containers {
                if !names.contains(&name.as_str()) {
                    let valid = names.iter().map(|n| n.to_string()).collect();
                    // One timings file serves every manifest of the run: say whose Pod lacks it.
                    let context = format!("[containers.{name}]: in {}: ", self.workload());
                    let unknown = Problem::unknown(context, "container", name, valid);
                    return Err(overlay.error(span.clone(), unknown));
                }
            }
            settings.extend(overlay.settings.iter().cloned());
        }
        let (template, settings): (Vec<Setting>, Vec<Setting>) =
            settings.into_iter().partition(Setting::in_template);
        let mut containers = Vec::with_capacity(entries.len());
        let mut hooks = Vec::with_capacity(entries.len());
        for entry in &entries {
            let path = entry.path();
            let hook = self.hook(entry.container, &path, Handler::PreStop, grace)?;
            let post_start = self.hook(entry.container, &path, Handler::PostStart, grace)?;
            let os = spec.os.as_ref().map(|os| os.name.as_str());
            containers.push(self.container(entry, &hook, &post_start, os)?);
            hooks.push((hook, post_start));
        }
        // Before the settings, so that one saying `proxy = false` wins.
        for (i, _) in injected_proxies(annotations, &names) {
            containers[i].proxy = true;
        }
        // Before the settings too, so that a drain or run they set wins.
        let lines = self.command_lines(&entries, &mut containers);
        let reads = self.read_probes(&entries, &mut containers);
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
        self.template(&mut run, &template, &entries, overlay)?;
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
        for (i, entry) in entries.iter().enumerate() {
            self.check_hook_timings(entry, &hooks[i], &set[i])?;
        }
        self.check(check_timings, &run.pod, &entries, &settings, overlay)?;
        Ok(Mapped {
            run,
            entries,
            hooks,
            lines,
            reads,
            set,
            grace,
        })
    }

    /// A rollout's new Pod template (`[disruptions.template.<container>]`
    /// of a timings file): the Pod as the settings made it, with these
    /// container keys set, as a TOML scenario's template is; a template
    /// makes its disruption a rollout.
    fn template(
        &self,
        run: &mut RunSpec,
        template: &[Setting],
        entries: &[Entry],
        overlay: Option<&Timings>,
    ) -> Result<(), Diagnostic> {
        let Some(index) = template.iter().filter_map(|s| s.index).max() else {
            return Ok(());
        };
        let names: Vec<String> = run.pod.containers.iter().map(|c| c.name.clone()).collect();
        let old = run.pod.clone();
        let service = run.service.get_or_insert_with(Default::default);
        if service.disruptions.len() <= index {
            service.disruptions.resize(index + 1, Default::default());
        }
        for i in (0..=index).filter(|i| template.iter().any(|s| s.index == Some(*i))) {
            // The keys are set as a container's are: on the Pod, swapped in.
            let mut new = old.clone();
            std::mem::swap(&mut run.pod, &mut new);
            for setting in template.iter().filter(|s| s.index == Some(i)) {
                let name = setting.container.as_deref().unwrap_or_default();
                let Some(c) = names.iter().position(|n| n == name) else {
                    std::mem::swap(&mut run.pod, &mut new);
                    let context = format!("[disruptions.{i}] template.{name}: in {}: ", self.workload());
                    let unknown = Problem::unknown(context, "container", name, names.clone());
                    return Err(self.error_at_setting(Some(setting), overlay, unknown.message()));
                };
                Key::container(setting.field, c).set(run, &setting.value);
            }
            let checked = self.check(check_timings, &run.pod, entries, template, overlay);
            std::mem::swap(&mut run.pod, &mut new);
            checked?;
            if let Some(service) = run.service.as_deref_mut() {
                let rollout = service.disruptions[i]
                    .rollout
                    .get_or_insert_with(Default::default);
                rollout.template = Some(Box::new(new));
            }
        }
        Ok(())
    }

    /// A timing set for a hook the container does not have (a `pre_stop`,
    /// a `post_start` or `post_start_fails`), refused at the container.
    fn check_hook_timings(
        &self,
        entry: &Entry,
        hooks: &(Hook, Hook),
        set: &[Field],
    ) -> Result<(), Diagnostic> {
        let has = |field| set.contains(&field);
        let told = [
            (
                Handler::PreStop,
                &hooks.0,
                has(Field::PreStop),
                "a pre_stop timing is",
            ),
            (
                Handler::PostStart,
                &hooks.1,
                has(Field::PostStart) || has(Field::PostStartFails),
                "a post_start timing or post_start_fails is",
            ),
        ];
        for (which, hook, anything_set, what_is_set) in told {
            if matches!(hook, Hook::Absent) && anything_set {
                let name = &entry.container.name;
                let mut at = entry.path();
                at.push("name".into());
                let at: Vec<&str> = at.iter().map(String::as_str).collect();
                return Err(self.error(
                    &at,
                    format!(
                        "container \"{name}\": {what_is_set} set ({PREFIX}{name}.{} or the timings file) \
                         but the container has no lifecycle.{} hook",
                        which.timing(),
                        which.key()
                    ),
                ));
            }
        }
        Ok(())
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

    /// `rules` (a stage of `check_spec`), its problem positioned where the value it is about was
    /// written: the annotation or timings key that set it, else the
    /// container concerned; worded for a manifest.
    fn check(
        &self,
        rules: fn(&PodSpec) -> Result<(), SpecProblem>,
        spec: &PodSpec,
        entries: &[Entry],
        settings: &[Setting],
        overlay: Option<&Timings>,
    ) -> Result<(), Diagnostic> {
        let Err(problem) = rules(spec) else {
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
                let wrong = Wrong::Unknown {
                    what: "restartPolicy",
                    word: text.to_string(),
                    valid: &RestartPolicy::NAMES,
                };
                self.value_error(&at, wrong)
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

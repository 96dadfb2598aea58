//! What podsim tells about a Pod it mapped: a pass of its own over what
//! the mapping made (`Mapped`), apart from the mapping that builds the
//! `PodSpec`. A hook cut off or unsupported, a mesh's proxy taken as one,
//! an injection still to come, what is read past, a timing assumed, a
//! command line that ignores SIGTERM or ends by itself, a probe's outcome
//! read or assumed, a Pod never deleted, a Service nobody sends requests to.
//!
//! Invariant: nothing here changes the Pod or refuses it; the notices come
//! in the order the user reads the Pod: each container's hooks, the mesh,
//! what is left out, then container by container, then the Pod as a whole.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodSpec as K8sPodSpec;

use super::super::handler::{Handler, Hook};
use super::super::mesh::{injected_proxies, not_injected};
use super::super::unsimulated::left_out;
use super::container::CommandLine;
use super::{DEFAULT_BOOT, DEFAULT_DRAIN, DEFAULT_HOOK, Entry, Mapped, Mapper};
use crate::engine::SimDuration;
use crate::model::{ContainerKind, ContainerSpec, Deletion, PodSpec, ProbeOutcome, RestartPolicy};
use crate::scenario::diagnostic::{Diagnostic, Problem, Scripted};
use crate::scenario::key::Field;
use crate::scenario::manifest::timings::PREFIX;
use crate::scenario::manifest::yaml::dotted;

impl Mapper<'_> {
    /// The notices for the Pod of `spec`, as `mapped` made it.
    pub fn notices(
        &self,
        spec: &K8sPodSpec,
        annotations: Option<&BTreeMap<String, String>>,
        mapped: &Mapped,
    ) -> Vec<Diagnostic> {
        let Mapped {
            run,
            entries,
            hooks,
            lines,
            reads,
            set,
            grace,
        } = mapped;
        let mut notices = Vec::new();
        for entry in entries {
            let path = entry.path();
            let told = Handler::BOTH.map(|which| self.hook_notice(entry.container, &path, which, *grace));
            notices.extend(told.into_iter().flatten());
        }
        notices.extend(self.past_the_clock(spec, entries));
        let names: Vec<&str> = entries.iter().map(|e| e.container.name.as_str()).collect();
        for (i, mesh) in injected_proxies(annotations, &names) {
            if !set[i].contains(&Field::Proxy) {
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
            let (no_boot, no_drain) = self.timing_notices(entry, &hooks[i], &set[i], stops, &mut notices);
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
        self.probe_notices(entries, reads, set, &mut notices);
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
        notices
    }

    /// A grace period longer than podsim's clock holds (the API's int64
    /// seconds, up to 9223372036854775807): the Pod's and each startup or
    /// liveness probe's, each told with the length podsim runs instead.
    fn past_the_clock(&self, spec: &K8sPodSpec, entries: &[Entry]) -> Vec<Diagnostic> {
        let key = "terminationGracePeriodSeconds";
        let pod = [(vec!["spec".to_string()], spec.termination_grace_period_seconds)];
        let probes = entries.iter().flat_map(|entry| {
            let probes = [
                ("startupProbe", &entry.container.startup_probe),
                ("livenessProbe", &entry.container.liveness_probe),
            ];
            probes.into_iter().filter_map(move |(name, probe)| {
                let mut path = entry.path();
                path.push(name.to_string());
                probe.as_ref().map(|p| (path, p.termination_grace_period_seconds))
            })
        });
        let max = SimDuration::MAX_SECS;
        (pod.into_iter().chain(probes))
            .filter_map(|(path, secs)| secs.filter(|&s| s > 0 && s as u64 > max).map(|s| (path, s)))
            .map(|(mut path, secs)| {
                path.push(key.to_string());
                let rest: Vec<&str> = path.iter().map(String::as_str).collect();
                let message = format!(
                    "{}: {secs} s is more than podsim's clock holds; podsim uses its longest time, {max} s \
                     (about 584 million years): the grace period never runs out within a run",
                    dotted(&self.full(&rest))
                );
                self.notice(&rest, message)
            })
            .collect()
    }

    /// Notices for a container's hooks whose length podsim runs by a rule
    /// of its own, given the fields its settings set; and whether its boot
    /// and drain were assumed (drain only counts if the container `stops`).
    fn timing_notices(
        &self,
        entry: &Entry,
        hooks: &(Hook, Hook),
        set: &[Field],
        stops: bool,
        notices: &mut Vec<Diagnostic>,
    ) -> (bool, bool) {
        let c = entry.container;
        let path = entry.path();
        let has = |field| set.contains(&field);
        let lifecycle: Vec<&str> = path.iter().map(String::as_str).chain(["lifecycle"]).collect();
        // Each hook, whether its length is set, and whether a length podsim
        // must assume matters.
        let told = [
            (Handler::PreStop, &hooks.0, has(Field::PreStop), stops),
            (Handler::PostStart, &hooks.1, has(Field::PostStart), true),
        ];
        for (which, hook, length_set, matters) in told {
            let (field, key) = (which.key(), which.timing());
            match hook {
                Hook::UntilBooted(command) if !length_set => {
                    notices.push(self.notice(
                        &lifecycle,
                        format!(
                            "container \"{}\": its {field} hook `{command}` returns once the container \
                             answers, so podsim runs it until the boot is over and nothing after it starts \
                             before (set {PREFIX}{}.{key} for another length)",
                            c.name, c.name
                        ),
                    ));
                }
                Hook::Unknown(what) if !length_set && matters => {
                    notices.push(self.notice(
                        &lifecycle,
                        format!(
                            "container \"{}\": how long its {what} {field} hook takes is not written in the \
                             manifest; podsim assumes {DEFAULT_HOOK} (set {PREFIX}{}.{key})",
                            c.name, c.name
                        ),
                    ));
                }
                _ => {}
            }
        }
        let no_boot = !has(Field::Boot);
        let no_drain = stops && entry.kind != ContainerKind::Init && !has(Field::Drain);
        (no_boot, no_drain)
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

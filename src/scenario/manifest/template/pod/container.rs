//! One Kubernetes container onto the model's `ContainerSpec`: its hooks,
//! restart policy and rules, stop signal and probes as the manifest writes
//! them, apart from the Pod-level mapping that gathers the containers.

use super::super::command::{ScriptedExit, briefly, scripted_exit, unhandled_sigterm};
use super::super::handler::Hook;
use super::{DEFAULT_BOOT, DEFAULT_DRAIN, DEFAULT_HOOK, Entry, Mapper};
use crate::engine::SimDuration;
use crate::model::{ContainerKind, ContainerSpec, Dist, Drain, PostStart, RestartPolicy, Signal};
use crate::scenario::diagnostic::{Diagnostic, Wrong};
use crate::scenario::rules::restart;

impl Mapper<'_> {
    /// One container as the manifest says it, with the default timings
    /// (a setting may override them).
    pub(super) fn container(
        &self,
        entry: &Entry,
        hook: &Hook,
        post_start: &Hook,
        os: Option<&str>,
    ) -> Result<ContainerSpec, Diagnostic> {
        let c = entry.container;
        let path = entry.path();
        let at = |key: &'static str| {
            let mut at: Vec<&str> = path.iter().map(String::as_str).collect();
            at.push(key);
            at
        };
        let probes = [
            ("startupProbe", &c.startup_probe),
            ("readinessProbe", &c.readiness_probe),
            ("livenessProbe", &c.liveness_probe),
        ];
        let mut mapped = [None; 3];
        for (slot, (key, probe)) in mapped.iter_mut().zip(probes) {
            if let Some(probe) = probe {
                *slot = Some(self.probe(probe, &at(key))?);
            }
        }
        // R58: `sleep: {seconds: 0}` is a hook that returns at once.
        let pre_stop = match hook {
            Hook::Absent | Hook::Fails => None,
            Hook::Lasts(d) => Some(*d),
            Hook::Unknown(_) | Hook::UntilBooted(_) => Some(DEFAULT_HOOK),
        };
        // R65, R66: a postStart hook holds the start; a tcpSocket one fails.
        let fixed = |d: SimDuration| Some(PostStart::For(d.into()));
        let (post_start, post_start_fails) = match post_start {
            Hook::Absent => (None, false),
            Hook::Lasts(d) => (fixed(*d), false),
            Hook::Unknown(_) => (fixed(DEFAULT_HOOK), false),
            Hook::UntilBooted(_) => (Some(PostStart::UntilBooted), false),
            Hook::Fails => (fixed(SimDuration::ZERO), true),
        };
        let drain = if entry.kind == ContainerKind::Init {
            SimDuration::ZERO
        } else {
            DEFAULT_DRAIN
        };
        // R60: a container's own policy (a sidecar's Always is its kind).
        let restart_policy = match entry.kind {
            ContainerKind::Sidecar => None,
            _ => c.restart_policy.as_deref().and_then(RestartPolicy::parse),
        };
        let mut restart_rules = Vec::new();
        for (i, rule) in c.restart_policy_rules.iter().flatten().enumerate() {
            let index = i.to_string();
            let mut rule_at: Vec<&str> = path.iter().map(String::as_str).collect();
            rule_at.extend(["restartPolicyRules", index.as_str()]);
            let Some(codes) = &rule.exit_codes else {
                return Err(
                    self.value_error(&rule_at, "exitCodes is missing: { operator: In, values: [42] }")
                );
            };
            let values: Vec<i64> = codes.values.iter().flatten().map(|&v| i64::from(v)).collect();
            let parsed =
                restart::rule(&rule.action, &codes.operator, &values).map_err(|(part, message)| {
                    let key = match part {
                        restart::Part::Action => "action",
                        restart::Part::Operator => "operator",
                        restart::Part::Values => "values",
                    };
                    let mut at = rule_at.clone();
                    if key != "action" {
                        at.push("exitCodes");
                    }
                    at.push(key);
                    self.value_error(&at, message)
                })?;
            restart_rules.push(parsed);
        }
        let stop_signal = match c.lifecycle.as_ref().and_then(|l| l.stop_signal.as_deref()) {
            None => Signal::Term,
            Some(name) => self.stop_signal(name, os, &at("lifecycle"))?,
        };
        Ok(ContainerSpec {
            stop_signal,
            drain: drain.into(),
            pre_stop: pre_stop.map(Dist::from),
            post_start,
            post_start_fails,
            probes: mapped,
            restart_policy,
            restart_rules,
            ..ContainerSpec::new(&c.name, entry.kind, DEFAULT_BOOT)
        })
    }

    /// `lifecycle.stopSignal` (KEP-4960, R59): the API refuses it without
    /// `spec.os.name`, and on Windows allows SIGTERM and SIGKILL alone.
    fn stop_signal(&self, name: &str, os: Option<&str>, lifecycle: &[&str]) -> Result<Signal, Diagnostic> {
        let at = [lifecycle, &["stopSignal"]].concat();
        let Some(i) = Signal::NAMES.iter().position(|n| *n == name) else {
            let wrong = Wrong::Unknown {
                what: "stop signal",
                word: name.to_string(),
                valid: &Signal::NAMES,
            };
            return Err(self.value_error(&at, wrong));
        };
        let signal = Signal::ALL[i];
        match os {
            None => Err(self.value_error(
                &at,
                "the API refuses lifecycle.stopSignal without spec.os.name; add spec.os.name: linux",
            )),
            Some("windows") if !matches!(signal, Signal::Term | Signal::Kill) => Err(self.value_error(
                &at,
                format!("a Windows Pod may stop its containers with SIGTERM or SIGKILL only, not {name}"),
            )),
            Some(_) => Ok(signal),
        }
    }

    /// What each container's command line says of how it stops and ends,
    /// in container order, written into its spec. An app or sidecar whose
    /// first process has no SIGTERM handler (`command::unhandled_sigterm`)
    /// drains "never", SIGKILL ends it; only under SIGTERM: an init process
    /// ignores any unhandled signal, but the model's reaction to another
    /// stop signal is that of a process with a handler for SIGTERM. One
    /// whose command line ends by itself (`command::scripted_exit`) runs
    /// that long and exits with that code. Init containers are left alone:
    /// their boot is their run, and podsim's assumed boot stands for the work.
    pub(super) fn command_lines(
        &self,
        entries: &[Entry],
        containers: &mut [ContainerSpec],
    ) -> Vec<CommandLine> {
        let read = |(entry, spec): (&Entry, &mut ContainerSpec)| {
            let argv = argv(entry);
            if entry.kind == ContainerKind::Init {
                return CommandLine::default();
            }
            let deaf = (spec.stop_signal == Signal::Term)
                .then(|| unhandled_sigterm(&argv))
                .flatten();
            if deaf.is_some() {
                spec.drain = Drain::Never;
            }
            let scripted = scripted_exit(&argv);
            if let Some(exit) = scripted {
                spec.run = Some(exit.run.into());
                spec.exit_code = exit.code;
            }
            CommandLine {
                deaf,
                scripted: scripted.map(|exit| (briefly(&argv), exit)),
            }
        };
        entries.iter().zip(containers.iter_mut()).map(read).collect()
    }
}

/// What a container's command line told (`Mapper::command_lines`).
#[derive(Default)]
pub(super) struct CommandLine {
    /// Its command line, shortened, when its first process has no SIGTERM
    /// handler.
    pub(super) deaf: Option<String>,
    /// Its command line, shortened, and how it ends, when it ends by itself.
    pub(super) scripted: Option<(String, ScriptedExit)>,
}

/// The container's first process as the runtime starts it: `command` then
/// `args` (the image's entrypoint is not known; `args` alone is taken as
/// the program, as the website's busybox examples are written).
fn argv(entry: &Entry) -> Vec<String> {
    let c = entry.container;
    c.command.iter().chain(&c.args).flatten().cloned().collect()
}

//! The `Debug` form of the spec types a grid's hash is made of
//! (`sweep::grid`'s canonical form writes the base Pod with `{:?}`).
//!
//! Invariant: a field added after a grid was hashed is written only when it
//! is set, so a grid that does not use it keeps the hash it had and its
//! shards still merge with shards made before. Every other field is written
//! as `derive(Debug)` writes it.

use std::fmt;

use super::stop::Signal;
use super::{ContainerSpec, ImagePull, PodSpec, PostStart, Probe, ProbeOutcome, RestartRule, RuleAction};
use crate::model::dist::Dist;

/// How a container without a preStop hook was written before R58.
const NO_HOOK: Dist = Dist::Fixed(crate::engine::SimDuration::ZERO);

impl fmt::Debug for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Probe");
        s.field("initial_delay", &self.initial_delay)
            .field("period", &self.period)
            .field("timeout", &self.timeout)
            .field("success_threshold", &self.success_threshold)
            .field("failure_threshold", &self.failure_threshold)
            .field("termination_grace_period", &self.termination_grace_period);
        // R53's fields, later than the hash.
        if self.outcome != ProbeOutcome::Passes {
            s.field("outcome", &self.outcome);
        }
        if self.pass_after.0 != 0 {
            s.field("pass_after", &self.pass_after);
        }
        if let Some(until) = &self.pass_until {
            s.field("pass_until", until);
        }
        s.finish()
    }
}

/// A hook of a duration writes as that duration did before the hook could
/// last until the boot's end.
impl fmt::Debug for PostStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PostStart::For(d) => d.fmt(f),
            PostStart::UntilBooted => f.write_str("UntilBooted"),
        }
    }
}

/// A `Restart` rule writes as its exit codes did before R61 had actions.
impl fmt::Debug for RestartRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.action {
            RuleAction::Restart => self.exit_codes.fmt(f),
            RuleAction::RestartAllContainers => f
                .debug_tuple("RestartAllContainers")
                .field(&self.exit_codes)
                .finish(),
        }
    }
}

impl fmt::Debug for ContainerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("ContainerSpec");
        s.field("name", &self.name)
            .field("kind", &self.kind)
            .field("boot", &self.boot)
            .field("drain", &self.drain)
            // No hook writes as the zero duration it was before R58.
            .field("pre_stop", self.pre_stop.as_ref().unwrap_or(&NO_HOOK))
            .field("fails", &self.fails)
            .field("fail_probability", &self.fail_probability)
            .field("proxy", &self.proxy)
            .field("probes", &self.probes)
            .field("crash_after", &self.crash_after)
            .field("run", &self.run)
            .field("exit_code", &self.exit_code);
        // R58: a hook of 0 s, later than the hash.
        if self.pre_stop.as_ref().is_some_and(Dist::is_zero) {
            s.field("zero_pre_stop_hook", &true);
        }
        // R54's field, later than the hash.
        if self.exit_code_on_sigterm != 0 {
            s.field("exit_code_on_sigterm", &self.exit_code_on_sigterm);
        }
        // R59's fields, later than the hash.
        if self.stop_signal != Signal::Term {
            s.field("stop_signal", &self.stop_signal);
        }
        if self.drains_on != Signal::Term {
            s.field("drains_on", &self.drains_on);
        }
        // R60's fields, later than the hash.
        if let Some(policy) = &self.restart_policy {
            s.field("restart_policy", policy);
        }
        if !self.restart_rules.is_empty() {
            s.field("restart_rules", &self.restart_rules);
        }
        // R65–R67's fields, later than the hash.
        if let Some(hook) = &self.post_start {
            s.field("post_start", hook);
        }
        if self.post_start_fails {
            s.field("post_start_fails", &self.post_start_fails);
        }
        if self.image_pull != ImagePull::Pulls {
            s.field("image_pull", &self.image_pull);
        }
        s.finish()
    }
}

impl fmt::Debug for PodSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("PodSpec");
        s.field("restart_policy", &self.restart_policy)
            .field("termination_grace_period", &self.termination_grace_period)
            .field("deletion", &self.deletion)
            .field("backoff", &self.backoff)
            .field("mode", &self.mode)
            .field("kubernetes", &self.kubernetes)
            .field("containers", &self.containers);
        // R70–R79's field, later than the hash.
        if !self.actions.is_empty() {
            s.field("actions", &self.actions);
        }
        s.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::pod::spec::{ActionKind, ActionTime, ContainerKind, TimedAction};

    #[test]
    fn fields_left_at_their_default_are_not_written() {
        let mut c = ContainerSpec::new("web", ContainerKind::App, SimDuration::from_secs(1));
        c.probes[1] = Some(Probe::default());
        let plain = format!("{c:?}");
        assert!(
            !plain.contains("exit_code_on_sigterm") && !plain.contains("outcome"),
            "{plain}"
        );
        // R58: no hook writes as a hook of 0 s did before; a 0 s hook says so.
        let mut zero = c.clone();
        zero.pre_stop = Some(SimDuration::ZERO.into());
        assert_eq!(
            format!("{zero:?}"),
            plain.replace("exit_code: 0", "exit_code: 0, zero_pre_stop_hook: true")
        );
        c.exit_code_on_sigterm = 143;
        c.probes[1] = Some(Probe {
            outcome: ProbeOutcome::Hangs,
            ..Probe::default()
        });
        let set = format!("{c:?}");
        assert!(
            set.contains("exit_code_on_sigterm: 143") && set.contains("outcome: Hangs"),
            "{set}"
        );
    }

    #[test]
    fn a_pod_without_actions_is_written_as_before_them() {
        let web = ContainerSpec::new("web", ContainerKind::App, SimDuration::from_secs(1));
        let mut pod = PodSpec::new(vec![web]);
        let plain = format!("{pod:?}");
        assert!(!plain.contains("actions"), "{plain}");
        // The grid hashes of issue 13's time: containers last.
        assert!(plain.ends_with("run: None, exit_code: 0 }] }"), "{plain}");
        pod.actions.push(TimedAction {
            when: ActionTime::At(SimDuration::from_secs(5)),
            kind: ActionKind::Delete { grace_period: None },
        });
        let set = format!("{pod:?}");
        assert!(
            set.contains("actions: [TimedAction { when: At(SimDuration(5000))"),
            "{set}"
        );
    }
}

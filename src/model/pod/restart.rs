//! What an exit leads to: the instance is gone, and the container restarts,
//! stays exited, or fails the Pod. The decision is `after_exit`, a pure
//! function of the Pod's restart policy, the container's own policy and
//! rules (KEP-5307, R60), its kind, the exit and a probe kill (R9–R12),
//! tested below as a table of every combination.
//!
//! Invariant: no container restarts once the Pod is terminating (R40); the
//! decision is asked only before.

use super::backoff::NEXT_SYNC;
use super::container::{Condition, Instance, Killer, State};
use super::event::PodEvent;
use super::history::{Change, ExitReason, Observer};
use super::spec::{ContainerId, ContainerKind, ContainerSpec, PodRun, ProbeKind, RestartPolicy, RuleAction};
use super::{Cause, PodModel};
use crate::engine::{Scheduler, SimTime};

/// What becomes of a container that exited while the Pod is not terminating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AfterExit {
    /// It starts again once its back-off is over (R14).
    Restart,
    /// It stays exited; the Pod goes on.
    StayExited,
    /// A regular init container failed under `Never`: the Pod has failed (R9).
    FailPod,
    /// A `RestartAllContainers` rule matched: the Pod starts over (R61).
    RestartAll,
}

/// The kubelet's restart decision for `container`, which exited with
/// `exit` in a Pod whose policy is `pod`; `probe_kill` says a failed
/// startup or liveness probe killed it.
#[inline]
pub(super) fn after_exit(
    pod: RestartPolicy,
    container: &ContainerSpec,
    exit: ExitReason,
    probe_kill: bool,
) -> AfterExit {
    let failed = !exit.is_success();
    // R60: the container's own policy, if it has one, stands for the Pod's
    // (`computeInitContainerActions`, `computePodActions` for probe kills).
    let policy = container.restart_policy.unwrap_or(pod);
    let kind = container.kind;
    // Its rules are tried first, first match first, unless a probe killed
    // it: a `Restart` rule only on an app's exit (`ContainerShouldRestart`),
    // a `RestartAllContainers` rule on any container's (R61, KEP-5532: the
    // watcher sidecar and the init container that asks for a rerun).
    if !probe_kill {
        let code = exit.code();
        let first = container
            .restart_rules
            .iter()
            .find(|rule| rule.exit_codes.matches(code));
        match (first.map(|rule| rule.action), kind) {
            (Some(RuleAction::RestartAllContainers), _) => return AfterExit::RestartAll,
            (Some(RuleAction::Restart), ContainerKind::App) => return AfterExit::Restart,
            _ => {}
        }
    }
    match kind {
        // R10: a sidecar restarts whatever the policy and the exit code.
        ContainerKind::Sidecar => AfterExit::Restart,
        // R4: a completed init container never runs again. It has no probes
        // (R8), so no probe kill to consider.
        ContainerKind::Init if !failed => AfterExit::StayExited,
        // R9: a failed init container alone restarts, unless Never fails the Pod.
        ContainerKind::Init if policy == RestartPolicy::Never => AfterExit::FailPod,
        ContainerKind::Init => AfterExit::Restart,
        // R12: a probe kill restarts unless Never, whatever the exit code.
        ContainerKind::App if probe_kill && policy != RestartPolicy::Never => AfterExit::Restart,
        ContainerKind::App if probe_kill => AfterExit::StayExited,
        // R11.
        ContainerKind::App => match policy {
            RestartPolicy::Always => AfterExit::Restart,
            RestartPolicy::OnFailure if failed => AfterExit::Restart,
            RestartPolicy::OnFailure | RestartPolicy::Never => AfterExit::StayExited,
        },
    }
}

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// The instance ended with `reason`.
    pub(super) fn exit(
        &mut self,
        id: ContainerId,
        now: SimTime,
        reason: ExitReason,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let kind = self.kind(id);
        let Some(instance) = self.end_instance(id, now, reason, s) else {
            return;
        };
        // A container that exits during its hook, or after its failure,
        // ends the sync its start held (R65, R66).
        let held = self.take_hold(id);
        if self.is_terminating() {
            return self.exited_while_terminating(id, now, s);
        }
        if instance.kill.is_some_and(|k| k.by == Killer::Update) {
            self.note_phase(now);
            return self.start_new_image(id, now, s);
        }
        let killer = instance.kill.map(|k| k.by);
        let probe_kill = killer == Some(Killer::Probe);
        match after_exit(
            self.run.pod().restart_policy,
            self.spec_of(id),
            reason,
            probe_kill,
        ) {
            AfterExit::Restart => {
                let delay = self.schedule_restart(id, now, s);
                if killer == Some(Killer::PostStart) && delay > NEXT_SYNC {
                    // PostStartHookError until the next sync shows the back-off (R68).
                    let attempt = self.container(id).attempt;
                    s.after(
                        NEXT_SYNC,
                        PodEvent::BackOffShown {
                            container: id,
                            attempt,
                        },
                    );
                }
            }
            AfterExit::RestartAll => return self.restart_all(now, s),
            AfterExit::FailPod => {
                self.emit(now, None, Change::PodFailed);
                return self.begin_termination(now, Cause::InitFailed, s);
            }
            AfterExit::StayExited if kind == ContainerKind::App => {
                self.apps_done += 1;
                if self.apps_finished() {
                    self.emit(now, None, Change::AppsFinished);
                    return self.begin_termination(now, Cause::AppsFinished, s);
                }
            }
            AfterExit::StayExited => {}
        }
        self.note_phase(now);
        // Only a completed init container, or the end of a held sync, can
        // let another start now; a restarting one waits for its back-off,
        // whose expiry syncs.
        if held {
            self.resume_sync(now, s);
        } else if kind == ContainerKind::Init {
            self.sync(now, s);
        }
    }

    /// The instance of `id` is gone with `reason`: what every exit changes,
    /// before anything is decided. Returns the instance, if one ran.
    /// Always inline: every exit of a sweep's run goes through it.
    #[inline(always)]
    pub(super) fn end_instance(
        &mut self,
        id: ContainerId,
        now: SimTime,
        reason: ExitReason,
        s: &mut Scheduler<'_, PodEvent>,
    ) -> Option<Instance> {
        let kind = self.kind(id);
        let State::Running(instance) = self.container(id).state else {
            return None;
        };
        // Ticks planned for this instance are void; the next instance plans
        // its own on the same ticker grid (R28).
        self.end_probes(id, now);
        let c = self.container_mut(id);
        c.state = State::Exited(reason);
        c.has_run = true;
        self.running -= 1;
        if kind == ContainerKind::App {
            self.running_apps -= 1;
        }
        self.emit(now, Some(id), Change::Exited(reason));
        if instance.condition == Condition::Ready {
            self.lose_ready(id, now, false);
        } else if instance.condition == Condition::Started
            && self.spec_of(id).probe(ProbeKind::Readiness).is_some()
        {
            self.awaiting_readiness -= 1;
        }
        if instance.booted {
            self.set_alive(id, false, now);
        }
        // The exit is a sync of the Pod (PLEG): readiness runs (R52).
        self.synced(now, s);
        Some(instance)
    }
}

#[cfg(test)]
mod tests {
    use super::AfterExit::{FailPod, Restart, RestartAll, StayExited};
    use super::*;

    /// Every exit the model produces: the first two exit 0.
    const EXITS: [ExitReason; 7] = [
        ExitReason::Completed,
        ExitReason::Terminated(0),
        ExitReason::Terminated(143),
        ExitReason::Failed(1),
        ExitReason::Failed(42),
        ExitReason::Crashed,
        ExitReason::Killed,
    ];

    #[test]
    fn the_restart_decision_for_every_policy_kind_exit_and_probe_kill() {
        use ContainerKind::{App, Init, Sidecar};
        use RestartPolicy::{Always, Never, OnFailure};
        // (policy, kind, probe kill, after exit 0, after a non-zero exit)
        let table = [
            // R10: sidecars ignore the policy, the exit code and the killer.
            (Always, Sidecar, false, Restart, Restart),
            (Always, Sidecar, true, Restart, Restart),
            (OnFailure, Sidecar, false, Restart, Restart),
            (OnFailure, Sidecar, true, Restart, Restart),
            (Never, Sidecar, false, Restart, Restart),
            (Never, Sidecar, true, Restart, Restart),
            // R4, R9: Always acts like OnFailure; Never fails the Pod; init
            // containers have no probes (R8), so the flag changes nothing.
            (Always, Init, false, StayExited, Restart),
            (Always, Init, true, StayExited, Restart),
            (OnFailure, Init, false, StayExited, Restart),
            (OnFailure, Init, true, StayExited, Restart),
            (Never, Init, false, StayExited, FailPod),
            (Never, Init, true, StayExited, FailPod),
            // R11 without a probe kill, R12 with one.
            (Always, App, false, Restart, Restart),
            (Always, App, true, Restart, Restart),
            (OnFailure, App, false, StayExited, Restart),
            (OnFailure, App, true, Restart, Restart),
            (Never, App, false, StayExited, StayExited),
            (Never, App, true, StayExited, StayExited),
        ];
        assert_eq!(table.len(), 3 * 3 * 2, "one row per policy, kind and probe kill");
        for (policy, kind, probe_kill, on_success, on_failure) in table {
            let container = ContainerSpec::new("c", kind, crate::engine::SimDuration::ZERO);
            for exit in EXITS {
                let expected = if exit.is_success() { on_success } else { on_failure };
                assert_eq!(
                    after_exit(policy, &container, exit, probe_kill),
                    expected,
                    "{policy:?} {kind:?} {exit:?} probe kill {probe_kill}"
                );
                // R60: the container's own policy stands for the Pod's, for
                // apps and init containers; sidecars always restart.
                let own = ContainerSpec {
                    restart_policy: Some(policy),
                    ..container.clone()
                };
                let other = if policy == Never { Always } else { Never };
                assert_eq!(
                    after_exit(other, &own, exit, probe_kill),
                    expected,
                    "own {policy:?} {kind:?} {exit:?}"
                );
            }
        }
    }

    #[test]
    fn r60_an_apps_restart_rules_come_first_but_not_for_a_probe_kill() {
        use RestartPolicy::Never;
        // restartPolicy: Never, restart on 42 only (KEP-5307's example).
        let app = ContainerSpec {
            restart_policy: Some(Never),
            restart_rules: vec![crate::model::pod::spec::RestartRule {
                action: RuleAction::Restart,
                exit_codes: crate::model::pod::spec::ExitCodes {
                    is_in: true,
                    values: vec![42],
                },
            }],
            ..ContainerSpec::new("app", ContainerKind::App, crate::engine::SimDuration::ZERO)
        };
        assert_eq!(after_exit(Never, &app, ExitReason::Failed(42), false), Restart);
        assert_eq!(after_exit(Never, &app, ExitReason::Failed(1), false), StayExited);
        assert_eq!(after_exit(Never, &app, ExitReason::Completed, false), StayExited);
        // A probe kill looks at the policy alone: the container still ran.
        assert_eq!(after_exit(Never, &app, ExitReason::Failed(42), true), StayExited);
        // Rules on an init container are not evaluated: its policy decides.
        let init = ContainerSpec {
            kind: ContainerKind::Init,
            ..app.clone()
        };
        assert_eq!(after_exit(Never, &init, ExitReason::Failed(42), false), FailPod);
    }

    fn restart_all_on(code: i32) -> crate::model::pod::spec::RestartRule {
        crate::model::pod::spec::RestartRule {
            action: RuleAction::RestartAllContainers,
            exit_codes: crate::model::pod::spec::ExitCodes {
                is_in: true,
                values: vec![code],
            },
        }
    }

    #[test]
    fn r61_a_restart_all_rule_is_tried_on_every_kind_but_not_for_a_probe_kill() {
        use RestartPolicy::Never;
        let zero = crate::engine::SimDuration::ZERO;
        // kubernetes/website's watcher sidecar: exit 88 restarts the Pod,
        // any other exit the sidecar alone (R10).
        let watcher = ContainerSpec {
            restart_rules: vec![restart_all_on(88)],
            ..ContainerSpec::new("watcher", ContainerKind::Sidecar, zero)
        };
        assert_eq!(
            after_exit(Never, &watcher, ExitReason::Failed(88), false),
            RestartAll
        );
        assert_eq!(after_exit(Never, &watcher, ExitReason::Failed(1), false), Restart);
        assert_eq!(after_exit(Never, &watcher, ExitReason::Completed, false), Restart);
        assert_eq!(after_exit(Never, &watcher, ExitReason::Failed(88), true), Restart);
        // The e2e test's init container: exit 42 under Never reruns the
        // Pod instead of failing it; exit 1 still fails it (R9).
        let init = ContainerSpec {
            restart_policy: Some(Never),
            restart_rules: vec![restart_all_on(42)],
            ..ContainerSpec::new("source-init", ContainerKind::Init, zero)
        };
        assert_eq!(
            after_exit(Never, &init, ExitReason::Failed(42), false),
            RestartAll
        );
        assert_eq!(after_exit(Never, &init, ExitReason::Failed(1), false), FailPod);
        assert_eq!(after_exit(Never, &init, ExitReason::Completed, false), StayExited);
        // An app's: the rule wins over Never; a probe kill skips it (R60).
        let app = ContainerSpec {
            restart_policy: Some(Never),
            restart_rules: vec![restart_all_on(42)],
            ..ContainerSpec::new("app", ContainerKind::App, zero)
        };
        assert_eq!(after_exit(Never, &app, ExitReason::Failed(42), false), RestartAll);
        assert_eq!(after_exit(Never, &app, ExitReason::Failed(42), true), StayExited);
    }
}

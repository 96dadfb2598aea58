//! The Pod lifecycle rules: how the kubelet starts, restarts and stops the
//! containers of one Pod (kubelet-semantics.md R4–R24, R33–R41, R43–R44).
//!
//! Invariant: every decision is taken in a handler at the instant of the event
//! that made it necessary; nothing polls, so a run costs what happens in it.

use super::event::PodEvent;
use super::metrics::{ExposureMeter, Metrics, Outcome, PodPhase};
use super::spec::{BACKOFF_RESET_AFTER, ContainerId, ContainerKind, Deletion, PodSpec, RestartPolicy};
use super::trace::{ExitReason, Happening, TraceEntry};
use crate::engine::{Model, RunEnd, Scheduler, SimDuration, SimTime};

/// The kubelet's per-container minimum stop timeout (`minimumGracePeriodInSeconds`, R35).
const MIN_STOP_TIMEOUT: SimDuration = SimDuration::from_secs(2);
/// The kubelet never terminates a Pod with less grace than this (R33).
const MIN_POD_GRACE: SimDuration = SimDuration::from_secs(1);

/// Where a container instance is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Not started yet: held by the init order, or its back-off expired.
    Waiting,
    /// The process runs but has not finished booting.
    Booting,
    /// Booted: started (R21); counts towards Ready and as alive.
    Started,
    /// Exited and waiting out its CrashLoopBackOff delay.
    BackOff,
    /// Exited, not to be started again (or not yet decided: see `exit`).
    Exited(ExitReason),
}

/// Where a container is in the kill sequence (R35).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KillStep {
    NotStopping,
    PreStop,
    AwaitingTurn { since: SimTime },
    Draining,
}

#[derive(Clone, Copy, Debug)]
struct ContainerRun {
    status: Status,
    stop: KillStep,
    /// Instances started so far; events carry it to detect staleness.
    attempt: u32,
    /// Scripted failures already spent.
    failures: u32,
    /// Restarts since the back-off was last reset (R16).
    streak: u32,
    last_start: SimTime,
    /// Grace left when the current kill step began (R35).
    budget: SimDuration,
    /// Running when termination began: blocks earlier sidecars (R36).
    running_at_termination: bool,
}

impl ContainerRun {
    const NEW: ContainerRun = ContainerRun {
        status: Status::Waiting,
        stop: KillStep::NotStopping,
        attempt: 0,
        failures: 0,
        streak: 0,
        last_start: SimTime::ZERO,
        budget: SimDuration::ZERO,
        running_at_termination: false,
    };

    fn is_running(&self) -> bool {
        matches!(self.status, Status::Booting | Status::Started)
    }
}

/// Why the containers are being stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cause {
    Deleted,
    /// A regular init container failed under `restartPolicy: Never` (R9).
    InitFailed,
    /// No app container runs or will run again (R43).
    AppsFinished,
}

#[derive(Clone, Copy, Debug)]
struct Termination {
    since: SimTime,
    grace: SimDuration,
    cause: Cause,
}

/// One Pod on the engine: its spec, the state of each container and the
/// meters that turn state changes into metrics.
pub struct PodModel {
    spec: PodSpec,
    containers: Vec<ContainerRun>,
    /// Every init container completed and every sidecar started once (R24).
    initialized: bool,
    termination: Option<Termination>,
    deleted_at: Option<SimTime>,
    /// The last container exited after termination began.
    stopped_at: Option<SimTime>,
    /// Apps and sidecars currently started, and how many there are.
    started: u32,
    needed_for_ready: u32,
    alive_apps: u32,
    alive_proxies: u32,
    measures_exposure: bool,
    exposure: ExposureMeter,
    ready_at: Option<SimTime>,
    restarts: u32,
    sigkilled: u32,
    trace: Option<Vec<TraceEntry>>,
}

impl PodModel {
    pub fn new(spec: PodSpec, record_trace: bool) -> Self {
        let mut model = PodModel {
            spec,
            containers: Vec::new(),
            initialized: false,
            termination: None,
            deleted_at: None,
            stopped_at: None,
            started: 0,
            needed_for_ready: 0,
            alive_apps: 0,
            alive_proxies: 0,
            measures_exposure: false,
            exposure: ExposureMeter::default(),
            ready_at: None,
            restarts: 0,
            sigkilled: 0,
            trace: record_trace.then(Vec::new),
        };
        model.reset();
        model
    }

    pub fn spec(&self) -> &PodSpec {
        &self.spec
    }

    /// The spec to change between runs; call `reset` before the next run.
    pub fn spec_mut(&mut self) -> &mut PodSpec {
        &mut self.spec
    }

    pub fn trace(&self) -> &[TraceEntry] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// Back to a Pod that was never created, keeping allocations.
    pub fn reset(&mut self) {
        self.containers.clear();
        self.containers
            .resize(self.spec.containers.len(), ContainerRun::NEW);
        self.initialized = false;
        self.termination = None;
        self.deleted_at = None;
        self.stopped_at = None;
        self.started = 0;
        self.needed_for_ready = self
            .spec
            .containers
            .iter()
            .filter(|c| c.kind != ContainerKind::Init)
            .count() as u32;
        self.alive_apps = 0;
        self.alive_proxies = 0;
        self.measures_exposure = self.spec.measures_exposure();
        self.exposure = ExposureMeter::default();
        self.ready_at = None;
        self.restarts = 0;
        self.sigkilled = 0;
        if let Some(trace) = &mut self.trace {
            trace.clear();
        }
    }

    /// The events that open a run: creation, and a deletion at a fixed time.
    pub fn initial_events(&self) -> ((SimTime, PodEvent), Option<(SimTime, PodEvent)>) {
        let deletion = match self.spec.deletion {
            Deletion::At(at) => Some((SimTime::ZERO + at, PodEvent::DeletionRequested)),
            Deletion::Never | Deletion::AfterReady(_) => None,
        };
        ((SimTime::ZERO, PodEvent::Created), deletion)
    }

    /// The metrics of a run that ended at `end` for reason `how`.
    pub fn finish(&mut self, end: SimTime, how: RunEnd) -> Metrics {
        let phase = self.phase();
        self.note(end, None, Happening::PodPhase(phase));
        let (startup, shutdown) = self.exposure.totals(end);
        Metrics {
            ready_ms: self.ready_at.map(SimTime::as_millis),
            exposed_startup_ms: startup,
            exposed_shutdown_ms: shutdown,
            exposed_total_ms: startup + shutdown,
            termination_ms: self
                .deleted_at
                .and_then(|deleted| self.stopped_at.map(|stopped| stopped.since(deleted).as_millis())),
            restarts: self.restarts,
            sigkilled: self.sigkilled,
            phase,
            outcome: match how {
                RunEnd::Quiet => Outcome::Settled,
                RunEnd::Horizon => Outcome::Horizon,
            },
            end_ms: end.as_millis(),
        }
    }

    /// The Pod phase as the kubelet would report it now (R47, R48).
    pub fn phase(&self) -> PodPhase {
        match self.termination {
            Some(t) if t.cause == Cause::InitFailed => PodPhase::Failed,
            Some(_) if self.stopped_at.is_some() => {
                let apps_succeeded = self.ids().all(|id| {
                    self.kind(id) != ContainerKind::App
                        || matches!(self.run(id).status, Status::Exited(r) if r.is_success())
                });
                if apps_succeeded {
                    PodPhase::Succeeded
                } else {
                    PodPhase::Failed
                }
            }
            _ if self.initialized => PodPhase::Running,
            _ => PodPhase::Pending,
        }
    }

    fn ids(&self) -> impl DoubleEndedIterator<Item = ContainerId> + use<> {
        (0..self.containers.len() as u32).map(ContainerId)
    }

    fn run(&self, id: ContainerId) -> &ContainerRun {
        &self.containers[id.index()]
    }

    fn run_mut(&mut self, id: ContainerId) -> &mut ContainerRun {
        &mut self.containers[id.index()]
    }

    fn kind(&self, id: ContainerId) -> ContainerKind {
        self.spec.containers[id.index()].kind
    }

    fn note(&mut self, at: SimTime, container: Option<ContainerId>, what: Happening) {
        if let Some(trace) = &mut self.trace {
            trace.push(TraceEntry { at, container, what });
        }
    }

    /// The kubelet's sync (R1, R4–R6): start whatever may start now.
    fn sync(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        if self.termination.is_some() {
            return;
        }
        if !self.initialized {
            for id in self.ids() {
                match (self.kind(id), self.run(id).status) {
                    (ContainerKind::App, _) => continue,
                    (ContainerKind::Init, Status::Exited(ExitReason::Completed)) => continue,
                    (ContainerKind::Sidecar, Status::Started) => continue,
                    (_, Status::Waiting) => return self.start(id, now, s),
                    _ => return,
                }
            }
            self.initialized = true;
        }
        // Apps start together (R6); after initialization a sidecar restarts
        // independently of the others (R10).
        for id in self.ids() {
            if self.kind(id) != ContainerKind::Init && self.run(id).status == Status::Waiting {
                self.start(id, now, s);
            }
        }
    }

    fn start(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let boot = self.spec.containers[id.index()].boot;
        let run = self.run_mut(id);
        run.attempt += 1;
        run.status = Status::Booting;
        run.last_start = now;
        let attempt = run.attempt;
        if attempt > 1 {
            self.restarts += 1;
        }
        self.note(now, Some(id), Happening::Starting { attempt });
        s.after(
            boot,
            PodEvent::BootFinished {
                container: id,
                attempt,
            },
        );
    }

    fn boot_finished(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let spec = &self.spec.containers[id.index()];
        let (fails, kind, proxy) = (spec.fails, spec.kind, spec.proxy);
        let run = self.run_mut(id);
        if run.failures < fails {
            run.failures += 1;
            return self.exit(id, now, ExitReason::Failed, s);
        }
        if kind == ContainerKind::Init {
            return self.exit(id, now, ExitReason::Completed, s);
        }
        run.status = Status::Started;
        self.note(now, Some(id), Happening::Started);
        self.started += 1;
        if proxy {
            self.alive_proxies += 1;
        } else if kind == ContainerKind::App {
            self.alive_apps += 1;
        }
        self.update_exposure(now);
        if self.ready_at.is_none() && self.termination.is_none() && self.started == self.needed_for_ready {
            self.ready_at = Some(now);
            self.note(now, None, Happening::PodReady);
            if let Deletion::AfterReady(delay) = self.spec.deletion {
                s.after(delay, PodEvent::DeletionRequested);
            }
        }
        self.sync(now, s);
    }

    fn exit(&mut self, id: ContainerId, now: SimTime, reason: ExitReason, s: &mut Scheduler<'_, PodEvent>) {
        let spec = &self.spec.containers[id.index()];
        let (kind, proxy) = (spec.kind, spec.proxy);
        let run = self.run_mut(id);
        let was_started = run.status == Status::Started;
        run.status = Status::Exited(reason);
        run.stop = KillStep::NotStopping;
        self.note(now, Some(id), Happening::Exited(reason));
        if was_started {
            self.started -= 1;
            if proxy {
                self.alive_proxies -= 1;
            } else if kind == ContainerKind::App {
                self.alive_apps -= 1;
            }
            self.update_exposure(now);
        }
        if self.termination.is_some() {
            // No restarts once the Pod is terminating (R40).
            self.release_waiting_sidecars(now, s);
            if self.stopped_at.is_none() && !self.containers.iter().any(ContainerRun::is_running) {
                self.stopped_at = Some(now);
            }
            return;
        }
        let policy = self.spec.restart_policy;
        let restart = match kind {
            ContainerKind::Sidecar => true, // R10
            ContainerKind::Init => !reason.is_success() && policy != RestartPolicy::Never, // R9
            ContainerKind::App => match policy {
                RestartPolicy::Always => true,
                RestartPolicy::OnFailure => !reason.is_success(),
                RestartPolicy::Never => false,
            }, // R11
        };
        if restart {
            self.schedule_restart(id, now, s);
        } else if kind == ContainerKind::Init && !reason.is_success() {
            self.note(now, None, Happening::PodFailed);
            return self.begin_termination(now, Cause::InitFailed, s);
        } else if kind == ContainerKind::App && self.apps_finished() {
            self.note(now, None, Happening::AppsFinished);
            return self.begin_termination(now, Cause::AppsFinished, s);
        }
        self.sync(now, s);
    }

    /// Every app container has exited for good (R43).
    fn apps_finished(&self) -> bool {
        self.ids()
            .filter(|&id| self.kind(id) == ContainerKind::App)
            .all(|id| matches!(self.run(id).status, Status::Exited(_)))
    }

    /// CrashLoopBackOff (R14–R16): wait, then let the next sync start it.
    fn schedule_restart(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let backoff = self.spec.backoff;
        let run = self.run_mut(id);
        if now.since(run.last_start) > BACKOFF_RESET_AFTER {
            run.streak = 0;
        }
        let delay = backoff.delay(run.streak);
        run.streak += 1;
        run.status = Status::BackOff;
        let attempt = run.attempt;
        self.note(now, Some(id), Happening::BackOff { delay });
        s.after(
            delay,
            PodEvent::BackOffExpired {
                container: id,
                attempt,
            },
        );
    }

    fn update_exposure(&mut self, now: SimTime) {
        let exposed = self.measures_exposure && self.alive_apps > 0 && self.alive_proxies == 0;
        self.exposure.set(now, exposed);
    }

    /// Kill every running container (R34): preStop hooks all start now.
    fn begin_termination(&mut self, now: SimTime, cause: Cause, s: &mut Scheduler<'_, PodEvent>) {
        let grace = self.spec.termination_grace_period.max(MIN_POD_GRACE);
        self.termination = Some(Termination {
            since: now,
            grace,
            cause,
        });
        for run in &mut self.containers {
            run.running_at_termination = run.is_running();
        }
        for id in self.ids() {
            if !self.run(id).running_at_termination {
                continue;
            }
            let pre_stop = self.spec.containers[id.index()].pre_stop;
            if pre_stop > SimDuration::ZERO {
                self.run_mut(id).stop = KillStep::PreStop;
                let attempt = self.run(id).attempt;
                self.note(now, Some(id), Happening::PreStopStarted);
                s.after(
                    pre_stop.min(grace),
                    PodEvent::PreStopFinished {
                        container: id,
                        attempt,
                    },
                );
            } else {
                self.after_pre_stop(id, now, s);
            }
        }
        if !self.containers.iter().any(ContainerRun::is_running) {
            self.stopped_at = Some(now);
        }
    }

    /// The rest of `killContainer` once the hook is over (R35, R36).
    fn after_pre_stop(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let Some(t) = self.termination else { return };
        let budget = t.grace - now.since(t.since).floor_secs();
        let must_wait =
            self.kind(id) == ContainerKind::Sidecar && budget > SimDuration::ZERO && !self.turn_has_come(id);
        if must_wait {
            let run = self.run_mut(id);
            run.stop = KillStep::AwaitingTurn { since: now };
            run.budget = budget;
            let attempt = run.attempt;
            self.note(now, Some(id), Happening::AwaitingTurn);
            s.after(
                budget,
                PodEvent::TurnWaitExpired {
                    container: id,
                    attempt,
                },
            );
        } else {
            self.sigterm(id, now, budget, s);
        }
    }

    /// A sidecar stops after every app and every later-declared sidecar that
    /// was running when termination began (R36).
    fn turn_has_come(&self, sidecar: ContainerId) -> bool {
        self.ids().all(|id| {
            let blocks = match self.kind(id) {
                ContainerKind::App => true,
                ContainerKind::Sidecar => id > sidecar,
                ContainerKind::Init => false,
            };
            let run = self.run(id);
            !(blocks && run.running_at_termination && !matches!(run.status, Status::Exited(_)))
        })
    }

    fn release_waiting_sidecars(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        // Reverse order: releasing a later sidecar first is the kubelet's order.
        for id in self.ids().rev() {
            if matches!(self.run(id).stop, KillStep::AwaitingTurn { .. }) && self.turn_has_come(id) {
                self.end_turn_wait(id, now, s);
            }
        }
    }

    fn end_turn_wait(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let run = self.run(id);
        let KillStep::AwaitingTurn { since } = run.stop else {
            return;
        };
        let budget = run.budget - now.since(since).floor_secs();
        self.sigterm(id, now, budget, s);
    }

    fn sigterm(
        &mut self,
        id: ContainerId,
        now: SimTime,
        budget: SimDuration,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let timeout = budget.max(MIN_STOP_TIMEOUT);
        let drain = self.spec.containers[id.index()].drain;
        let run = self.run_mut(id);
        run.stop = KillStep::Draining;
        let attempt = run.attempt;
        self.note(now, Some(id), Happening::Sigterm { timeout });
        if drain <= timeout {
            s.after(
                drain,
                PodEvent::Drained {
                    container: id,
                    attempt,
                },
            );
        } else {
            s.after(
                timeout,
                PodEvent::Killed {
                    container: id,
                    attempt,
                },
            );
        }
    }
}

impl Model for PodModel {
    type Event = PodEvent;

    fn is_current(&self, event: &PodEvent) -> bool {
        let Some((id, attempt)) = event.target() else {
            return true;
        };
        let Some(run) = self.containers.get(id.index()) else {
            return false;
        };
        run.attempt == attempt
            && match event {
                PodEvent::BackOffExpired { .. } => run.status == Status::BackOff,
                PodEvent::BootFinished { .. } => run.status == Status::Booting,
                PodEvent::PreStopFinished { .. } => run.stop == KillStep::PreStop,
                PodEvent::TurnWaitExpired { .. } => matches!(run.stop, KillStep::AwaitingTurn { .. }),
                PodEvent::Drained { .. } | PodEvent::Killed { .. } => run.stop == KillStep::Draining,
                PodEvent::Created | PodEvent::DeletionRequested => true,
            }
    }

    fn handle(&mut self, now: SimTime, event: PodEvent, s: &mut Scheduler<'_, PodEvent>) {
        match event {
            PodEvent::Created => self.sync(now, s),
            PodEvent::DeletionRequested => {
                if self.deleted_at.is_some() {
                    return;
                }
                self.deleted_at = Some(now);
                self.exposure.deletion(now);
                let grace = self.spec.termination_grace_period.max(MIN_POD_GRACE);
                self.note(now, None, Happening::DeletionRequested { grace });
                if self.termination.is_none() {
                    self.begin_termination(now, Cause::Deleted, s);
                }
            }
            PodEvent::BackOffExpired { container, .. } => {
                self.run_mut(container).status = Status::Waiting;
                self.sync(now, s);
            }
            PodEvent::BootFinished { container, .. } => self.boot_finished(container, now, s),
            PodEvent::PreStopFinished { container, .. } => {
                let cut_off = self
                    .termination
                    .is_some_and(|t| self.spec.containers[container.index()].pre_stop > now.since(t.since));
                self.note(now, Some(container), Happening::PreStopFinished { cut_off });
                self.after_pre_stop(container, now, s);
            }
            PodEvent::TurnWaitExpired { container, .. } => self.end_turn_wait(container, now, s),
            PodEvent::Drained { container, .. } => self.exit(container, now, ExitReason::Terminated, s),
            PodEvent::Killed { container, .. } => {
                self.sigkilled += 1;
                self.note(now, Some(container), Happening::Sigkill);
                self.exit(container, now, ExitReason::Killed, s);
            }
        }
    }
}

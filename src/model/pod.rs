//! The Pod lifecycle rules: how the kubelet starts, probes, restarts and stops
//! the containers of one Pod (kubelet-semantics.md R4–R31, R33–R46).
//!
//! Invariant: every decision is taken in a handler at the instant of the event
//! that made it necessary; nothing polls. Probe ticks are scheduled only while
//! their result could change something, so a Pod at rest has an empty queue
//! and a run costs what happens in it, not how long it lasts.

use super::event::PodEvent;
use super::metrics::{ExposureMeter, Metrics, Outcome, PodPhase};
use super::spec::{
    BACKOFF_RESET_AFTER, ContainerId, ContainerKind, ContainerSpec, Deletion, PodMode, PodSpec, Probe,
    ProbeKind, RestartPolicy, RunSpec,
};
use super::trace::{ExitReason, Happening, TraceEntry};
use crate::engine::{Model, RunEnd, Scheduler, SimDuration, SimTime};

/// The kubelet's per-container minimum stop timeout (`minimumGracePeriodInSeconds`, R35).
const MIN_STOP_TIMEOUT: SimDuration = SimDuration::from_secs(2);
/// The kubelet never terminates a Pod with less grace than this (R33).
const MIN_POD_GRACE: SimDuration = SimDuration::from_secs(1);

/// Where a container is in its life, as the runtime sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Not started yet: held by the init order, or its back-off expired.
    Waiting,
    /// Started by the runtime (booting or booted; see the run's flags).
    Running,
    /// Exited and waiting out its CrashLoopBackOff delay.
    BackOff,
    /// Exited, not to be started again.
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

/// A probe worker's bookkeeping (R28, R30): consecutive results of the current
/// instance, the ticker (anchor and last tick used, which survive restarts),
/// and a generation that invalidates pending ticks when rescheduled.
#[derive(Clone, Copy, Debug)]
struct ProbeWorker {
    successes: u32,
    failures: u32,
    anchor: SimTime,
    last_tick: Option<SimTime>,
    generation: u32,
    pending: bool,
}

impl ProbeWorker {
    const NEW: ProbeWorker = ProbeWorker {
        successes: 0,
        failures: 0,
        anchor: SimTime::ZERO,
        last_tick: None,
        generation: 0,
        pending: false,
    };
}

#[derive(Clone, Copy, Debug)]
struct ContainerRun {
    status: Status,
    /// Booted: the process does its job (and is "alive" for exposure).
    healthy: bool,
    /// The kubelet's `Started` (R21).
    started: bool,
    /// The kubelet's `Ready` (R21).
    ready: bool,
    /// Visible to kubectl as running or terminated at least once (R47).
    has_history: bool,
    kill: KillStep,
    /// The current kill was caused by a failed probe: restart afterwards (R12).
    probe_kill: bool,
    /// Instances started so far; events carry it to detect staleness.
    attempt: u32,
    /// Scripted failures already spent.
    failures: u32,
    /// Restarts since the back-off was last reset (R16).
    streak: u32,
    last_start: SimTime,
    /// When this container's kill began and the grace it was given (R35).
    kill_since: SimTime,
    kill_grace: SimDuration,
    /// Grace left when the current kill step began.
    budget: SimDuration,
    /// Running when the Pod's termination began: blocks earlier sidecars (R36).
    running_at_termination: bool,
    probes: [ProbeWorker; 3],
}

impl ContainerRun {
    const NEW: ContainerRun = ContainerRun {
        status: Status::Waiting,
        healthy: false,
        started: false,
        ready: false,
        has_history: false,
        kill: KillStep::NotStopping,
        probe_kill: false,
        attempt: 0,
        failures: 0,
        streak: 0,
        last_start: SimTime::ZERO,
        kill_since: SimTime::ZERO,
        kill_grace: SimDuration::ZERO,
        budget: SimDuration::ZERO,
        running_at_termination: false,
        probes: [ProbeWorker::NEW; 3],
    };

    fn is_running(&self) -> bool {
        self.status == Status::Running
    }

    fn has_exited(&self) -> bool {
        matches!(self.status, Status::Exited(_))
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
    cause: Cause,
}

/// One Pod on the engine: its spec, the state of each container and the
/// meters that turn state changes into metrics.
pub struct PodModel {
    /// The Pod and the horizon; the engine reads the horizon at each run.
    run: RunSpec,
    containers: Vec<ContainerRun>,
    /// Every init container completed and every sidecar started once (R24).
    initialized: bool,
    termination: Option<Termination>,
    deleted_at: Option<SimTime>,
    /// The last container exited after termination began.
    stopped_at: Option<SimTime>,
    /// Apps and sidecars currently Ready, and how many there are.
    ready_count: u32,
    needed_for_ready: u32,
    alive_apps: u32,
    alive_proxies: u32,
    measures_exposure: bool,
    exposure: ExposureMeter,
    ready_at: Option<SimTime>,
    restarts: u32,
    sigkilled: u32,
    trace: Option<Vec<TraceEntry>>,
    /// The last phase written to the trace.
    traced_phase: PodPhase,
}

impl PodModel {
    pub fn new(run: RunSpec, record_trace: bool) -> Self {
        let mut model = PodModel {
            run,
            containers: Vec::new(),
            initialized: false,
            termination: None,
            deleted_at: None,
            stopped_at: None,
            ready_count: 0,
            needed_for_ready: 0,
            alive_apps: 0,
            alive_proxies: 0,
            measures_exposure: false,
            exposure: ExposureMeter::default(),
            ready_at: None,
            restarts: 0,
            sigkilled: 0,
            trace: record_trace.then(Vec::new),
            traced_phase: PodPhase::Pending,
        };
        model.reset();
        model
    }

    pub fn spec(&self) -> &PodSpec {
        &self.run.pod
    }

    pub fn run_spec(&self) -> &RunSpec {
        &self.run
    }

    /// The run to change between runs; call `reset` before the next run.
    pub fn run_spec_mut(&mut self) -> &mut RunSpec {
        &mut self.run
    }

    pub fn trace(&self) -> &[TraceEntry] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// Back to a Pod that was never created, keeping allocations.
    pub fn reset(&mut self) {
        self.containers.clear();
        self.containers
            .resize(self.run.pod.containers.len(), ContainerRun::NEW);
        self.initialized = false;
        self.termination = None;
        self.deleted_at = None;
        self.stopped_at = None;
        self.ready_count = 0;
        self.needed_for_ready = self
            .run
            .pod
            .containers
            .iter()
            .filter(|c| c.kind != ContainerKind::Init)
            .count() as u32;
        self.alive_apps = 0;
        self.alive_proxies = 0;
        self.measures_exposure = self.run.pod.measures_exposure();
        self.exposure = ExposureMeter::default();
        self.ready_at = None;
        self.restarts = 0;
        self.sigkilled = 0;
        self.traced_phase = PodPhase::Pending;
        if let Some(trace) = &mut self.trace {
            trace.clear();
        }
    }

    /// The events that open a run: creation, and a deletion at a fixed time.
    pub fn initial_events(&self) -> ((SimTime, PodEvent), Option<(SimTime, PodEvent)>) {
        let deletion = match self.run.pod.deletion {
            Deletion::At(at) => Some((SimTime::ZERO + at, PodEvent::DeletionRequested)),
            Deletion::Never | Deletion::AfterReady(_) => None,
        };
        ((SimTime::ZERO, PodEvent::Created), deletion)
    }

    /// The metrics of a run that ended at `end` for reason `how`.
    pub fn finish(&mut self, end: SimTime, how: RunEnd) -> Metrics {
        let phase = self.phase();
        self.note_phase(end);
        let (startup, shutdown) = self.exposure.totals(end);
        let outcome = match how {
            RunEnd::Horizon => Outcome::Horizon,
            RunEnd::Quiet if self.run.pod.mode == PodMode::Job && !phase.is_terminal() => Outcome::Stuck,
            RunEnd::Quiet => Outcome::Settled,
        };
        Metrics {
            ready_ms: self.ready_at.map(SimTime::as_millis),
            exposed_startup_ms: startup,
            exposed_shutdown_ms: shutdown,
            exposed_total_ms: startup + shutdown,
            termination_ms: self
                .deleted_at
                .and_then(|deleted| self.stopped_at.map(|stopped| stopped.since(deleted).as_millis())),
            completed_ms: self
                .stopped_at
                .filter(|_| phase.is_terminal())
                .map(SimTime::as_millis),
            restarts: self.restarts,
            sigkilled: self.sigkilled,
            phase,
            outcome,
            end_ms: end.as_millis(),
        }
    }

    /// The Pod phase as the kubelet would report it now (R47, R48).
    pub fn phase(&self) -> PodPhase {
        match self.termination {
            Some(t) if t.cause == Cause::InitFailed => return PodPhase::Failed,
            Some(_) if self.stopped_at.is_some() => {
                let apps_succeeded = self.ids().all(|id| {
                    self.kind(id) != ContainerKind::App
                        || matches!(self.run(id).status, Status::Exited(r) if r.is_success())
                });
                return if apps_succeeded {
                    PodPhase::Succeeded
                } else {
                    PodPhase::Failed
                };
            }
            _ => {}
        }
        // R47 step 5: an app or sidecar that never ran (and never exited)
        // keeps the Pod Pending.
        let waiting = self
            .ids()
            .any(|id| self.kind(id) != ContainerKind::Init && !self.run(id).has_history);
        if waiting {
            PodPhase::Pending
        } else {
            PodPhase::Running
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

    fn container(&self, id: ContainerId) -> &ContainerSpec {
        &self.run.pod.containers[id.index()]
    }

    fn kind(&self, id: ContainerId) -> ContainerKind {
        self.container(id).kind
    }

    fn note(&mut self, at: SimTime, container: Option<ContainerId>, what: Happening) {
        if let Some(trace) = &mut self.trace {
            trace.push(TraceEntry { at, container, what });
        }
    }

    /// Records a phase change in the trace (only when a trace is kept: the
    /// phase is otherwise computed once, at the end).
    fn note_phase(&mut self, now: SimTime) {
        if self.trace.is_some() {
            let phase = self.phase();
            if phase != self.traced_phase {
                self.traced_phase = phase;
                self.note(now, None, Happening::PodPhase(phase));
            }
        }
    }

    /// The kubelet's sync (R1, R4–R6): start whatever may start now.
    fn sync(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        if self.termination.is_some() {
            return;
        }
        if !self.initialized {
            for id in self.ids() {
                let run = self.run(id);
                match self.kind(id) {
                    ContainerKind::App => continue,
                    ContainerKind::Init if run.status == Status::Exited(ExitReason::Completed) => continue,
                    ContainerKind::Sidecar if run.is_running() && run.started => continue,
                    _ if run.status == Status::Waiting => return self.start(id, now, s),
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
        let spec = self.container(id);
        let (boot, probed) = (spec.boot, spec.has_probes());
        let startup_probe = spec.probe(ProbeKind::Startup).is_some();
        let crash = spec.crash_after.get(self.run(id).attempt as usize).copied();
        let run = self.run_mut(id);
        run.attempt += 1;
        run.status = Status::Running;
        run.healthy = false;
        run.started = false;
        run.ready = false;
        run.last_start = now;
        for worker in &mut run.probes {
            worker.successes = 0;
            worker.failures = 0;
        }
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
        if let Some(after) = crash {
            s.after(
                after,
                PodEvent::Crashed {
                    container: id,
                    attempt,
                },
            );
        }
        if probed {
            // A probed container runs from its start; without a startup
            // probe the kubelet counts it started at once (R21).
            self.run_mut(id).has_history = true;
            if !startup_probe {
                self.mark_started(id, now, s);
            }
            self.schedule_probes(id, now, s);
        }
        self.note_phase(now);
    }

    fn boot_finished(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let spec = self.container(id);
        let (fails, kind, proxy, probed, run) =
            (spec.fails, spec.kind, spec.proxy, spec.has_probes(), spec.run);
        let state = self.run_mut(id);
        if state.failures < fails {
            state.failures += 1;
            return self.exit(id, now, ExitReason::Failed(1), s);
        }
        if kind == ContainerKind::Init {
            return self.exit(id, now, ExitReason::Completed, s);
        }
        state.healthy = true;
        state.has_history = true;
        if proxy {
            self.alive_proxies += 1;
        } else if kind == ContainerKind::App {
            self.alive_apps += 1;
        }
        self.update_exposure(now);
        if let Some(run) = run {
            let attempt = self.run(id).attempt;
            s.after(
                run,
                PodEvent::RunFinished {
                    container: id,
                    attempt,
                },
            );
        }
        if probed {
            self.note(now, Some(id), Happening::Healthy);
            self.schedule_probes(id, now, s);
        } else {
            self.mark_started(id, now, s);
        }
    }

    /// The kubelet counts the container started (R21); without a readiness
    /// probe it is ready at once.
    fn mark_started(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        self.run_mut(id).started = true;
        self.note(now, Some(id), Happening::Started);
        if self.container(id).probe(ProbeKind::Readiness).is_none() {
            self.mark_ready(id, now, s);
        } else {
            // The sync that notices the start triggers a readiness probe at
            // once and resets its ticker (R28).
            self.run_mut(id).probes[ProbeKind::Readiness.index()].anchor = now;
            self.schedule_probes(id, now, s);
        }
        self.note_phase(now);
        // A started app unblocks nothing; a started sidecar may (R5).
        if self.kind(id) != ContainerKind::App {
            self.sync(now, s);
        }
    }

    fn mark_ready(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let run = self.run_mut(id);
        if run.ready {
            return;
        }
        run.ready = true;
        if self.container(id).probe(ProbeKind::Readiness).is_some() {
            self.note(now, Some(id), Happening::Ready);
        }
        self.ready_count += 1;
        if self.ready_at.is_none() && self.termination.is_none() && self.ready_count == self.needed_for_ready
        {
            self.ready_at = Some(now);
            self.note(now, None, Happening::PodReady);
            if let Deletion::AfterReady(delay) = self.run.pod.deletion {
                s.after(delay, PodEvent::DeletionRequested);
            }
        }
    }

    fn exit(&mut self, id: ContainerId, now: SimTime, reason: ExitReason, s: &mut Scheduler<'_, PodEvent>) {
        let spec = self.container(id);
        let (kind, proxy) = (spec.kind, spec.proxy);
        let run = self.run_mut(id);
        let (was_healthy, was_ready, probe_kill) = (run.healthy, run.ready, run.probe_kill);
        *run = ContainerRun {
            status: Status::Exited(reason),
            has_history: true,
            attempt: run.attempt,
            failures: run.failures,
            streak: run.streak,
            last_start: run.last_start,
            running_at_termination: run.running_at_termination,
            probes: run.probes,
            ..ContainerRun::NEW
        };
        for worker in &mut run.probes {
            // Ticks scheduled for this instance are void; the next instance
            // schedules its own on the same ticker grid (R28).
            worker.generation += 1;
            worker.pending = false;
        }
        self.note(now, Some(id), Happening::Exited(reason));
        if was_ready {
            self.ready_count -= 1;
        }
        if was_healthy {
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
            return self.note_phase(now);
        }
        let policy = self.run.pod.restart_policy;
        let restart = match kind {
            ContainerKind::Sidecar => true, // R10
            ContainerKind::Init => !reason.is_success() && policy != RestartPolicy::Never, // R9
            // R12: a probe kill restarts unless Never, whatever the exit code.
            ContainerKind::App if probe_kill => policy != RestartPolicy::Never,
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
        self.note_phase(now);
        // Only a completed init container can let another start now; a
        // restarting one waits for its back-off, whose expiry syncs.
        if kind == ContainerKind::Init {
            self.sync(now, s);
        }
    }

    /// Every app container has exited for good (R43).
    fn apps_finished(&self) -> bool {
        self.ids()
            .filter(|&id| self.kind(id) == ContainerKind::App)
            .all(|id| self.run(id).has_exited())
    }

    /// CrashLoopBackOff (R14–R16): wait, then let the next sync start it.
    fn schedule_restart(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let backoff = self.run.pod.backoff;
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

    /// Whether a tick of `kind` could change anything now (R29–R31); ticks
    /// that could not are never scheduled.
    fn probe_matters(&self, id: ContainerId, kind: ProbeKind) -> bool {
        let run = self.run(id);
        let running = run.is_running() && run.kill == KillStep::NotStopping;
        match kind {
            ProbeKind::Startup => running && !run.started,
            // Liveness and startup stop at deletion (R32); a healthy container
            // passes liveness, so only an unhealthy started one is at risk.
            ProbeKind::Liveness => running && run.started && !run.healthy && self.termination.is_none(),
            ProbeKind::Readiness => run.is_running() && run.started && run.healthy && !run.ready,
        }
    }

    /// Schedules the next tick of each probe that matters: the next multiple
    /// of the period from the ticker's anchor, once the initial delay since
    /// the container's start has passed (R28, R29).
    fn schedule_probes(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        for kind in ProbeKind::ALL {
            let Some(probe) = self.container(id).probe(kind).copied() else {
                continue;
            };
            if self.run(id).probes[kind.index()].pending || !self.probe_matters(id, kind) {
                continue;
            }
            let at = self.next_tick(id, kind, &probe, now);
            let worker = &mut self.run_mut(id).probes[kind.index()];
            worker.generation += 1;
            worker.pending = true;
            let generation = worker.generation;
            s.at(
                at,
                PodEvent::ProbeDue {
                    container: id,
                    probe: kind,
                    generation,
                },
            );
        }
    }

    /// The first tick at or after `from` that the worker has not used yet.
    fn next_tick(&self, id: ContainerId, kind: ProbeKind, probe: &Probe, from: SimTime) -> SimTime {
        let run = self.run(id);
        let worker = &run.probes[kind.index()];
        let earliest = from.max(run.last_start + probe.initial_delay);
        let period = probe.period.as_millis().max(1);
        let periods = earliest.since(worker.anchor).as_millis().div_ceil(period);
        let tick = worker.anchor + SimDuration(periods * period);
        if worker.last_tick == Some(tick) {
            tick + SimDuration(period)
        } else {
            tick
        }
    }

    /// One probe run (R30): the container answers it iff it is healthy.
    fn probe_tick(
        &mut self,
        id: ContainerId,
        kind: ProbeKind,
        now: SimTime,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let worker = &mut self.run_mut(id).probes[kind.index()];
        worker.pending = false;
        worker.last_tick = Some(now);
        let Some(probe) = self.container(id).probe(kind).copied() else {
            return;
        };
        if !self.probe_matters(id, kind) {
            return;
        }
        let healthy = self.run(id).healthy;
        let worker = &mut self.run_mut(id).probes[kind.index()];
        if healthy {
            worker.successes += 1;
            worker.failures = 0;
        } else {
            worker.failures += 1;
            worker.successes = 0;
        }
        let (successes, failures) = (worker.successes, worker.failures);
        if successes >= probe.success_threshold {
            match kind {
                ProbeKind::Startup => return self.mark_started(id, now, s),
                ProbeKind::Readiness => self.mark_ready(id, now, s),
                ProbeKind::Liveness => {}
            }
        } else if failures >= probe.failure_threshold && kind != ProbeKind::Readiness {
            self.note(now, Some(id), Happening::ProbeFailed(kind));
            let grace = probe
                .termination_grace_period
                .unwrap_or(self.run.pod.termination_grace_period);
            self.run_mut(id).probe_kill = true;
            return self.begin_kill(id, now, grace.max(MIN_POD_GRACE), s);
        }
        self.schedule_probes(id, now, s);
    }

    /// Kill every running container (R34): preStop hooks all start now.
    fn begin_termination(&mut self, now: SimTime, cause: Cause, s: &mut Scheduler<'_, PodEvent>) {
        let grace = self.run.pod.termination_grace_period.max(MIN_POD_GRACE);
        self.termination = Some(Termination { cause });
        for run in &mut self.containers {
            run.running_at_termination = run.is_running();
        }
        for id in self.ids() {
            let run = self.run(id);
            // A container already being killed (a probe failure) keeps its own kill.
            if run.running_at_termination && run.kill == KillStep::NotStopping {
                self.begin_kill(id, now, grace, s);
            }
        }
        if !self.containers.iter().any(ContainerRun::is_running) {
            self.stopped_at = Some(now);
        }
        self.note_phase(now);
    }

    /// `killContainer` (R35): the preStop hook first, within `grace`.
    fn begin_kill(
        &mut self,
        id: ContainerId,
        now: SimTime,
        grace: SimDuration,
        s: &mut Scheduler<'_, PodEvent>,
    ) {
        let pre_stop = self.container(id).pre_stop;
        let run = self.run_mut(id);
        run.kill_since = now;
        run.kill_grace = grace;
        if pre_stop > SimDuration::ZERO {
            run.kill = KillStep::PreStop;
            let attempt = run.attempt;
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

    /// The rest of `killContainer` once the hook is over (R35, R36).
    fn after_pre_stop(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let run = self.run(id);
        let budget = run.kill_grace - now.since(run.kill_since).floor_secs();
        let ordered = self.termination.is_some() && self.run.pod.kubernetes.orders_sidecar_termination();
        let must_wait = ordered
            && self.kind(id) == ContainerKind::Sidecar
            && budget > SimDuration::ZERO
            && !self.turn_has_come(id);
        if must_wait {
            let run = self.run_mut(id);
            run.kill = KillStep::AwaitingTurn { since: now };
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
            !(blocks && run.running_at_termination && !run.has_exited())
        })
    }

    fn release_waiting_sidecars(&mut self, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        for id in self.ids().rev() {
            if matches!(self.run(id).kill, KillStep::AwaitingTurn { .. }) && self.turn_has_come(id) {
                self.end_turn_wait(id, now, s);
            }
        }
    }

    fn end_turn_wait(&mut self, id: ContainerId, now: SimTime, s: &mut Scheduler<'_, PodEvent>) {
        let run = self.run(id);
        let KillStep::AwaitingTurn { since } = run.kill else {
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
        let drain = self.container(id).drain;
        let run = self.run_mut(id);
        run.kill = KillStep::Draining;
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
        match event {
            PodEvent::ProbeDue { probe, .. } => run.probes[probe.index()].generation == attempt,
            _ if run.attempt != attempt => false,
            PodEvent::BackOffExpired { .. } => run.status == Status::BackOff,
            PodEvent::BootFinished { .. } => run.is_running() && !run.healthy,
            PodEvent::Crashed { .. } | PodEvent::RunFinished { .. } => run.is_running(),
            PodEvent::PreStopFinished { .. } => run.kill == KillStep::PreStop,
            PodEvent::TurnWaitExpired { .. } => matches!(run.kill, KillStep::AwaitingTurn { .. }),
            PodEvent::Drained { .. } | PodEvent::Killed { .. } => run.kill == KillStep::Draining,
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
                let grace = self.run.pod.termination_grace_period.max(MIN_POD_GRACE);
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
            PodEvent::Crashed { container, .. } => self.exit(container, now, ExitReason::Crashed, s),
            PodEvent::RunFinished { container, .. } => {
                let code = self.container(container).exit_code;
                let reason = if code == 0 {
                    ExitReason::Completed
                } else {
                    ExitReason::Failed(code)
                };
                self.exit(container, now, reason, s);
            }
            PodEvent::ProbeDue { container, probe, .. } => self.probe_tick(container, probe, now, s),
            PodEvent::PreStopFinished { container, .. } => {
                let run = self.run(container);
                let cut_off = self.container(container).pre_stop > now.since(run.kill_since);
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

//! The Pod lifecycle on the engine: how the kubelet starts, probes, restarts
//! and stops the containers of one Pod (kubelet rules R4–R48, docs/kubelet-rules.md). The
//! Pod's room: what it is (`spec`), what happens to it (`event`), what it
//! reports (`history`), what a run measures (`metrics`) and what runs it
//! (`simulator`) live here, and name neither the Job nor the Service, which
//! build on them. This file holds the model and its event dispatch; each
//! concern of the model has a room:
//!
//! - `container`: a container's state, what survives a restart apart from
//!   the instance a start resets;
//! - `startup`: the sync that starts containers in order (R4–R7);
//! - `restart`: what an exit leads to, a pure function of policy, kind and
//!   exit (R9–R12);
//! - `restart_all`: a `RestartAllContainers` rule or a node reboot starts
//!   the Pod over (R61, R76–R79);
//! - `backoff`: CrashLoopBackOff (R14–R16);
//! - `hooks`: postStart, which holds the sync and the start (R65, R66);
//! - `image`: image pulls that fail, and their back-off (R67, R68);
//! - `probe`: Started and Ready, and the probes that decide them (R21–R32);
//! - `termination`: preStop, the grace budget, sidecars last, SIGKILL (R33–R41);
//! - `phase`: the Pod phase and completion (R43–R48);
//! - `action`: what `[[actions]]` scripts during the run (R70–R79);
//! - `prefix`: a run's state saved before its deletion, for a sweep
//!   row to resume from;
//! - `shape`: what the spec's shape implies, worked out once per shape.
//!
//! Invariant: every decision is taken in a handler at the instant of the
//! event that made it necessary; nothing polls. Probe ticks are scheduled
//! only while their result could change something, so a Pod at rest has an
//! empty queue and a run costs what happens in it, not how long it lasts.
//! Every change a view or a meter needs leaves the model through `emit`.

mod action;
mod backoff;
mod container;
mod event;
mod history;
mod hooks;
mod image;
mod metrics;
mod phase;
mod prefix;
mod probe;
mod restart;
mod restart_all;
mod shape;
mod simulator;
pub mod spec;
mod startup;
mod stretch;
mod termination;
mod worker;

pub use event::PodEvent;
pub use history::{Change, ExitReason, Observer, Trace, TraceEntry, UpdateEffect};
pub use metrics::{ExposureMeter, Field, Meters, Metrics, Outcome, PodPhase};
pub use simulator::{PodSimulator, RunPrefix};

use self::container::{Container, State, Stop};
use self::shape::Shape;
use self::spec::{
    ActionTime, ContainerId, ContainerKind, ContainerSpec, Deletion, PodMode, PodRun, PodRunSpec, Reaction,
};
use self::worker::Worker;
use super::dist::Dist;
use super::draw::{DrawKey, name_hash};
use crate::engine::{Model, RunEnd, Scheduler, SimDuration, SimTime};

impl<O: Observer, R: PodRun> Model for PodModel<O, R> {
    type Event = PodEvent;

    #[inline]
    fn is_current(&self, event: &PodEvent) -> bool {
        let Some((id, attempt)) = event.target() else {
            return true;
        };
        let Some(c) = self.containers.get(id.index()) else {
            return false;
        };
        // Only the kill's events look at the kill: worked out for them alone.
        let stop = || c.instance().and_then(|i| i.kill).map(|k| k.stop);
        match event {
            PodEvent::ProbeDue { probe, .. } => {
                c.workers[probe.index()].is_some_and(|w| self.workers[w as usize].generation == attempt)
            }
            _ if c.attempt != attempt => false,
            PodEvent::BackOffExpired { .. } => matches!(c.state, State::BackOff),
            PodEvent::PullBackOffExpired { .. } => matches!(c.state, State::PullBackOff),
            PodEvent::BackOffShown { .. } => matches!(c.state, State::BackOff | State::PullBackOff),
            PodEvent::PostStartFinished { .. } => c.instance().is_some_and(|i| i.in_post_start),
            PodEvent::BootFinished { .. } => c.instance().is_some_and(|i| !i.booted),
            PodEvent::Crashed { .. } | PodEvent::RunFinished { .. } => c.is_running(),
            PodEvent::PreStopFinished { .. } => matches!(stop(), Some(Stop::Hook { .. })),
            PodEvent::TurnWaitExpired { .. } => matches!(stop(), Some(Stop::AwaitingTurn { .. })),
            PodEvent::Drained { .. } | PodEvent::Killed { .. } => stop() == Some(Stop::Draining),
            PodEvent::Created
            | PodEvent::DeletionRequested
            | PodEvent::NodeBack
            | PodEvent::ActionDue { .. } => true,
        }
    }

    fn handle(&mut self, now: SimTime, event: PodEvent, s: &mut Scheduler<'_, PodEvent>) {
        match event {
            PodEvent::Created => {
                self.schedule_actions(ActionTime::At, now, s);
                self.sync(now, s)
            }
            PodEvent::DeletionRequested => self.deletion_requested(now, None, s),
            PodEvent::ActionDue { action } => self.action_due(action, now, s),
            PodEvent::NodeBack => self.node_back(now, s),
            PodEvent::BackOffExpired { container, .. } => self.back_off_expired(container, now, s),
            PodEvent::BootFinished { container, .. } => self.boot_finished(container, now, s),
            PodEvent::Crashed { container, .. } => self.exit(container, now, ExitReason::Crashed, s),
            PodEvent::RunFinished { container, .. } => {
                let code = self.spec_of(container).exit_code;
                let reason = if code == 0 {
                    ExitReason::Completed
                } else {
                    ExitReason::Failed(code)
                };
                self.exit(container, now, reason, s);
            }
            PodEvent::ProbeDue { container, probe, .. } => self.probe_tick(container, probe, now, s),
            PodEvent::PostStartFinished { container, .. } => self.post_start_finished(container, now, s),
            // The image back-off's end is a crash back-off's: the next sync pulls again.
            PodEvent::PullBackOffExpired { container, .. } => self.back_off_expired(container, now, s),
            PodEvent::BackOffShown { container, .. } => self.emit(now, Some(container), Change::BackOffShown),
            PodEvent::PreStopFinished { container, .. } => self.pre_stop_finished(container, now, s),
            PodEvent::TurnWaitExpired { container, .. } => self.end_turn_wait(container, now, s),
            PodEvent::Drained { container, .. } => {
                let spec = self.spec_of(container);
                // R59: a stop signal it has no handler for ended it at once.
                let reason = match Reaction::of(spec.stop_signal, spec.drains_on) {
                    Reaction::Dies(signal) => ExitReason::Signalled(signal),
                    Reaction::Drains | Reaction::Survives => {
                        ExitReason::Terminated(spec.exit_code_on_sigterm)
                    }
                };
                self.exit(container, now, reason, s);
            }
            PodEvent::Killed { container, .. } => {
                self.emit(now, Some(container), Change::Sigkill);
                self.exit(container, now, ExitReason::Killed, s);
            }
        }
    }
}

/// One Pod on the engine: its spec, the state of each container, and what
/// watches it: the meters always, and the observer `O` (`()` keeps nothing,
/// a `Trace` keeps the whole history). `R` lends the Pod, the horizon and
/// the stream (`spec::run`): a whole scenario's spec for a sweep, which sets
/// its keys on it in place, or a plain `PodRunSpec`.
pub struct PodModel<O: Observer = (), R: PodRun = PodRunSpec> {
    /// The Pod and the horizon; the engine reads the horizon at each run.
    run: R,
    containers: Vec<Container>,
    /// The probe workers of every container that has probes (`worker`).
    workers: Vec<Worker>,
    stage: Stage,
    /// The container whose postStart hook (or the kill after its failure),
    /// or whose failed probe's kill, holds the kubelet's sync: nothing
    /// starts meanwhile (R13, R65).
    held_by: Option<ContainerId>,
    /// What the spec's shape implies, worked out at a reset only when the
    /// spec may have changed shape since (`None`).
    shape: Option<Shape>,
    /// The deletion request has arrived.
    deleted: bool,
    /// A container has been killed this run, for whatever reason: the run
    /// has read fields that only a kill reads (`prefix`).
    has_killed: bool,
    /// The grace a termination gives: the Pod's, or a delete's (R33, R70).
    grace: SimDuration,
    /// The Pod has been Ready once: a deletion after Ready is scheduled once.
    has_been_ready: bool,
    /// The Pod is Ready now (R23); it may leave Ready and come back (R53).
    pod_ready: bool,
    /// Apps and sidecars currently Ready, and how many there are.
    ready_count: u32,
    /// Containers with a readiness probe that are started and not Ready:
    /// those a sync triggers (R52). Counted, so a sync without any costs
    /// nothing.
    awaiting_readiness: u32,
    /// Alive apps (not proxies) and alive proxies, for exposure.
    alive_apps: u32,
    alive_proxies: u32,
    /// Containers running, and apps among them: termination asks after
    /// every exit whether anything still runs, so it is counted, not
    /// searched for (a search made termination quadratic in the apps).
    running: u32,
    running_apps: u32,
    /// App containers that exited for good (R43).
    apps_done: u32,
    /// While terminating: the last-declared sidecar still running, the only
    /// one whose turn can come next (R36).
    last_sidecar: Option<ContainerId>,
    /// The init walk's frontier (R51): the last init container or sidecar
    /// the runtime holds a record of. Kept, not searched for at each sync:
    /// it moves forward at a start and back only when records are
    /// forgotten (R75, a start over).
    frontier: Option<ContainerId>,
    exposed: bool,
    meters: Meters,
    observer: O,
    /// The last phase reported; kept only when `O` keeps the history.
    reported_phase: PodPhase,
    /// `[[actions]]` entries whose timings are swapped into the spec
    /// now, in the order swapped (`action::restore_images`).
    swapped: Vec<u32>,
}

/// Where the Pod as a whole is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Init containers and sidecars start one after another (R4, R5).
    Initializing,
    /// Every init container completed and every sidecar started once (R24):
    /// apps start, and restart on their own.
    Initialized,
    /// The node is rebooting (R76): nothing runs and nothing starts until
    /// it is back.
    NodeDown,
    /// Every running container is being stopped (R34), for this reason.
    Terminating(Cause),
    /// Termination is over: no container runs any more.
    Stopped(Cause),
}

/// Why the containers are being stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cause {
    Deleted,
    /// A regular init container failed under `restartPolicy: Never` (R9).
    InitFailed,
    /// No app container runs or will run again (R43).
    AppsFinished,
    /// The node rebooted under `restartPolicy: Never`: no new sandbox (R78).
    NodeLost,
}

impl<O: Observer, R: PodRun> PodModel<O, R> {
    /// A model of `run`, reporting to `observer`.
    pub fn new(run: R, observer: O) -> Self {
        let mut model = PodModel {
            run,
            containers: Vec::new(),
            workers: Vec::new(),
            stage: Stage::Initializing,
            held_by: None,
            shape: None,
            deleted: false,
            has_killed: false,
            grace: SimDuration::ZERO,
            has_been_ready: false,
            pod_ready: false,
            ready_count: 0,
            awaiting_readiness: 0,
            alive_apps: 0,
            alive_proxies: 0,
            running: 0,
            running_apps: 0,
            apps_done: 0,
            last_sidecar: None,
            frontier: None,
            exposed: false,
            meters: Meters::default(),
            observer,
            reported_phase: PodPhase::Pending,
            swapped: Vec::new(),
        };
        model.reset();
        model
    }

    /// The Pod and the horizon.
    pub fn run_spec(&self) -> &R {
        &self.run
    }

    /// The run to change between runs; call `reset` before the next run,
    /// which works out the spec's shape again.
    pub fn run_spec_mut(&mut self) -> &mut R {
        self.shape = None;
        &mut self.run
    }

    /// The run to change between runs, keeping the shape worked out for the
    /// spec: for a caller that changes nothing `Shape::of` reads (a sweep
    /// whose axes that turned are durations and counts, `Field::shapes_the_pod`).
    pub fn run_spec_mut_keeping_shape(&mut self) -> &mut R {
        &mut self.run
    }

    /// What the observer kept of the last run.
    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// What the observer kept, to take from (a model driving this one).
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }

    /// Back to a Pod that was never created, keeping allocations. The
    /// spec's `Shape` is worked out again if the spec may have changed
    /// shape since the last reset (`run_spec_mut`); the probe workers,
    /// which carry a run's state, are made afresh.
    pub fn reset(&mut self) {
        self.restore_images();
        let pod = self.run.pod();
        let shape = *self.shape.get_or_insert_with(|| Shape::of(pod));
        self.containers.clear();
        self.containers.resize(pod.containers.len(), Container::NEW);
        self.workers.clear();
        // Most Pods have no probe and no actions: no worker to add.
        if shape.may_probe {
            for (i, spec) in pod.containers.iter().enumerate() {
                if spec.has_probes() || !pod.actions.is_empty() {
                    worker::add(
                        pod,
                        ContainerId(i as u32),
                        &mut self.containers[i],
                        &mut self.workers,
                    );
                }
            }
        }
        self.stage = Stage::Initializing;
        self.held_by = None;
        self.deleted = false;
        self.has_killed = false;
        self.grace = self.pod_grace();
        self.has_been_ready = false;
        self.pod_ready = false;
        self.ready_count = 0;
        self.awaiting_readiness = 0;
        self.alive_apps = 0;
        self.alive_proxies = 0;
        self.running = 0;
        self.running_apps = 0;
        self.apps_done = 0;
        self.last_sidecar = None;
        self.frontier = None;
        self.exposed = false;
        self.meters.clear();
        self.observer.clear();
        self.reported_phase = PodPhase::Pending;
    }

    /// The events that open a run: creation, and a deletion at a fixed time.
    pub fn initial_events(&self) -> ((SimTime, PodEvent), Option<(SimTime, PodEvent)>) {
        let deletion = match self.run.pod().deletion {
            Deletion::At(at) => Some((SimTime::ZERO + at, PodEvent::DeletionRequested)),
            Deletion::Never | Deletion::AfterReady(_) => None,
        };
        ((SimTime::ZERO, PodEvent::Created), deletion)
    }

    /// The metrics of a run that ended at `end` for reason `how`.
    #[inline]
    pub fn finish(&mut self, end: SimTime, how: RunEnd) -> Metrics {
        if !self.swapped.is_empty() {
            self.restore_images();
        }
        // The ticks up to the end ran, those at the end included.
        self.end_probes_at_finish(end);
        let phase = self.phase();
        self.note_phase(end);
        let outcome = match how {
            // A halted run was cut short as one at the horizon is; its
            // figures are no result, and callers drop them.
            RunEnd::Horizon | RunEnd::Halted(_) => Outcome::Horizon,
            RunEnd::Quiet if self.run.pod().mode == PodMode::Job && !phase.is_terminal() => {
                self.unfinished_app().map_or(Outcome::Settled, Outcome::Stuck)
            }
            RunEnd::Quiet => Outcome::Settled,
        };
        self.meters.metrics(end, phase, outcome)
    }

    /// Reports a change to the meters and the observer.
    #[inline]
    fn emit(&mut self, at: SimTime, container: Option<ContainerId>, what: Change) {
        let entry = TraceEntry { at, container, what };
        self.meters.observe(entry);
        self.observer.observe(entry);
    }

    /// A container became alive (booted) or stopped being alive: exposure
    /// may begin or end (an app alive while no proxy is).
    fn set_alive(&mut self, id: ContainerId, alive: bool, now: SimTime) {
        let spec = self.spec_of(id);
        let counter = if spec.proxy {
            &mut self.alive_proxies
        } else if spec.kind == ContainerKind::App {
            &mut self.alive_apps
        } else {
            return;
        };
        if alive {
            *counter += 1;
        } else {
            *counter -= 1;
        }
        let exposed = self.shape().measures_exposure && self.alive_apps > 0 && self.alive_proxies == 0;
        if exposed != self.exposed {
            self.exposed = exposed;
            let change = if exposed {
                Change::ExposureBegan
            } else {
                Change::ExposureEnded
            };
            self.emit(now, None, change);
        }
    }

    /// The shape of the spec being run: known from the reset on.
    fn shape(&self) -> Shape {
        self.shape.unwrap_or_else(|| Shape::of(self.run.pod()))
    }

    /// Termination has begun (it may be over already).
    fn is_terminating(&self) -> bool {
        matches!(self.stage, Stage::Terminating(_) | Stage::Stopped(_))
    }

    fn ids(&self) -> impl DoubleEndedIterator<Item = ContainerId> + use<O, R> {
        (0..self.containers.len() as u32).map(ContainerId)
    }

    /// Each container's spec with its state, in declaration order: a scan
    /// over both without indexing either (no bounds check per container).
    fn with_specs(&self) -> impl Iterator<Item = (&ContainerSpec, &Container)> {
        self.run.pod().containers.iter().zip(&self.containers)
    }

    fn container(&self, id: ContainerId) -> &Container {
        &self.containers[id.index()]
    }

    fn container_mut(&mut self, id: ContainerId) -> &mut Container {
        &mut self.containers[id.index()]
    }

    fn spec_of(&self, id: ContainerId) -> &ContainerSpec {
        &self.run.pod().containers[id.index()]
    }

    /// `dist` drawn for container `id`'s current attempt. A fixed duration
    /// returns at once: it costs a sweep without distributions nothing.
    #[inline]
    fn draw(&self, id: ContainerId, key: DrawKey, dist: &Dist) -> SimDuration {
        match dist.fixed() {
            Some(d) => d,
            None => self.draw_random(id, key, dist),
        }
    }

    /// Kept out of line, so the fixed path inlined into every handler stays
    /// as small as it was before distributions existed.
    #[inline(never)]
    fn draw_random(&self, id: ContainerId, key: DrawKey, dist: &Dist) -> SimDuration {
        dist.sample(self.uniform(id, key))
    }

    /// The uniform for `key` of container `id`'s current attempt.
    #[inline(never)]
    fn uniform(&self, id: ContainerId, key: DrawKey) -> f64 {
        let name = name_hash(&self.spec_of(id).name);
        self.run.stream().uniform(name, key, self.container(id).attempt)
    }

    fn kind(&self, id: ContainerId) -> ContainerKind {
        self.spec_of(id).kind
    }
}

//! One replica as the Service sees it: what its Pod model reports (alive,
//! Ready, SIGTERM, exited, stopped) turned into whether it accepts
//! connections and answers requests, and the app's reaction to SIGTERM
//! (`OnSigterm`, disruption-model.md A.4).
//!
//! Invariant: the Pod's own rules stay in the Pod model. The Service only
//! decides, for the apps that drain, *when* the app exits, and it does so
//! through the Pod model's own `Drained` event, so grace, SIGKILL, sidecar
//! order and the metrics are the Pod model's.

use super::connection::ConnState;
use super::history::{ServiceChange, ServiceObserver};
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Model, Scheduler, SimDuration, SimTime};
use crate::model::dist::Dist;
use crate::model::draw::{DrawKey, Stream, name_hash};
use crate::model::pod::spec::{ContainerId, ContainerKind, Deletion, Drain, PodSpec};
use crate::model::pod::{Change, PodEvent, TraceEntry};
use crate::model::service::spec::OnSigterm;

/// Node's `server.keepAliveTimeout` default (5 s): how long a hostage
/// socket may sit idle before the server closes it.
const NODE_KEEP_ALIVE_TIMEOUT: SimDuration = SimDuration::from_secs(5);

/// A drain the Pod model never finishes by itself: the Service ends it.
pub(super) const NEVER: SimDuration = SimDuration(u64::MAX / 4);

/// One replica's serving state.
#[derive(Clone, Debug, Default)]
pub(super) struct Replica {
    /// The stream its Pod draws from (replica 0: the run's own).
    pub stream: Stream,
    pub app: Option<ContainerId>,
    pub proxy: Option<ContainerId>,
    pub app_attempt: u32,
    pub app_alive: bool,
    pub proxy_alive: bool,
    pub app_listening: bool,
    pub proxy_listening: bool,
    /// Containers (apps and sidecars) Ready now, and all of them, as bits.
    pub ready: u64,
    pub needed: u64,
    /// The app's SIGTERM came: it drains.
    pub sigterm: Option<SimTime>,
    /// Go's shutdown: a connection closes after its current response.
    pub closing: bool,
    /// Node's: a busy connection keeps serving until idle for 5 s.
    pub hostage: bool,
    /// The app's own shutdown work ends here; it exits once idle too.
    pub exit_not_before: SimTime,
    /// Open connections to it (idle or busy).
    pub open: Vec<u32>,
    /// Its deletion timestamp is set (a user, its ReplicaSet, an eviction).
    pub deleted: bool,
    /// The Pod object is gone: its IP answers nothing.
    pub object_gone: bool,
    /// Its node's kubelet killed it in a graceful shutdown: no deletion
    /// timestamp, so it stays active (its endpoint not terminating) until
    /// its containers stop.
    pub shut_down: bool,
    /// Its phase turned Failed (a shut-down Pod whose containers stopped):
    /// out of the slice and of the ReplicaSet's count; its object stays.
    pub failed: bool,
    /// Its readiness probe fails for a while (a `[[disruptions]] unready`
    /// window) while its app serves on.
    pub failing_readiness: bool,
    /// Its node was lost: no packet from another node reaches it.
    pub unreachable: bool,
    /// Its node is off: nothing on it runs, nothing answers.
    pub host_down: bool,
    /// The node controller marked it not Ready (its node went NotReady).
    pub node_not_ready: bool,
    /// Counting: its last accepted request is answered then, and a
    /// draining app waits for it as for an open connection.
    pub busy_until: SimTime,
}

impl Replica {
    /// A replica of `pod` whose draws come from `stream`.
    pub fn new(pod: &PodSpec, stream: Stream) -> Self {
        let app = serving_app(pod);
        let proxy = pod.containers.iter().position(|c| c.proxy);
        let needed = pod
            .containers
            .iter()
            .enumerate()
            .filter(|(i, c)| c.kind != ContainerKind::Init && *i < 64)
            .fold(0, |m, (i, _)| m | 1 << i);
        Replica {
            stream,
            app,
            proxy: proxy.map(|i| ContainerId(i as u32)),
            proxy_alive: proxy.is_none(),
            proxy_listening: proxy.is_none(),
            needed,
            open: Vec::new(),
            ..Replica::default()
        }
    }

    /// Its deletion timestamp is set or its node's kubelet killed it: the
    /// meters time the last request routed to it.
    pub fn ending(&self) -> bool {
        self.deleted || self.shut_down
    }

    /// A new connection to it is accepted.
    pub fn accepting(&self) -> bool {
        self.app_listening && self.proxy_listening && self.answering()
    }

    /// A request on an open connection is answered.
    pub fn answering(&self) -> bool {
        self.app_alive && self.proxy_alive
    }

    /// Every app and sidecar is Ready, and no unready window or lost node holds it.
    pub fn serving(&self) -> bool {
        self.needed != 0 && self.ready == self.needed && !self.failing_readiness && !self.node_not_ready
    }
}

/// The container that answers the Service's requests: the Pod's first app
/// that is not its proxy.
pub fn serving_app(pod: &PodSpec) -> Option<ContainerId> {
    let i = pod
        .containers
        .iter()
        .position(|c| c.kind == ContainerKind::App && !c.proxy)?;
    Some(ContainerId(i as u32))
}

/// Schedules the check that lets a draining app exit at `at`, the end of
/// its `drain`. A drain that never ends (R55) is ended by SIGKILL alone, so
/// nothing is scheduled: an event at `NEVER` would hold the run open to its
/// horizon.
fn drain_due(replica: u32, at: SimTime, drain: SimDuration, s: &mut Scheduler<'_, ServiceEvent>) {
    if drain != NEVER {
        s.at(at, ServiceEvent::DrainDue { replica });
    }
}

/// The Pod a replica of `pod` runs: deleted only by the Service, and with
/// an app whose drain the Service ends (`Drained`) unless it exits at once.
pub(super) fn replica_pod(pod: &PodSpec, on_sigterm: OnSigterm) -> PodSpec {
    let mut pod = pod.clone();
    pod.deletion = Deletion::Never;
    if let Some(app) = Replica::new(&pod, Stream::default()).app {
        pod.containers[app.index()].drain = match on_sigterm {
            OnSigterm::ExitImmediately => SimDuration::ZERO.into(),
            _ => Drain::Never,
        };
    }
    pod
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Reacts to what replica `r`'s Pod model reported.
    pub(super) fn react(&mut self, r: usize, entry: TraceEntry, s: &mut Scheduler<'_, ServiceEvent>) {
        let now = entry.at;
        let rep = &mut self.replicas[r];
        let Some(id) = entry.container else {
            if entry.what == Change::ContainersStopped && rep.deleted {
                s.after(
                    self.service.cleanup,
                    ServiceEvent::ObjectDeleted { replica: r as u32 },
                );
            } else if entry.what == Change::ContainersStopped && rep.shut_down {
                self.pod_failed(r, now, s);
            }
            return;
        };
        let (is_app, is_proxy) = (rep.app == Some(id), rep.proxy == Some(id));
        let bit = if id.0 < 64 { 1u64 << id.0 } else { 0 };
        match entry.what {
            Change::Starting { attempt } if is_app => rep.app_attempt = attempt,
            Change::Alive { .. } if is_app => {
                rep.app_alive = true;
                rep.app_listening = rep.sigterm.is_none();
            }
            Change::Alive { .. } if is_proxy => {
                rep.proxy_alive = true;
                rep.proxy_listening = true;
            }
            Change::Ready { .. } => {
                rep.ready |= bit;
                self.slice.touch(r);
                self.endpoints_changed(now, s);
            }
            Change::Unready => {
                rep.ready &= !bit;
                self.slice.touch(r);
                self.endpoints_changed(now, s);
            }
            Change::Sigterm { .. } if is_app => self.app_sigterm(r, now, s),
            Change::Sigterm { .. } if is_proxy => rep.proxy_listening = false,
            Change::Exited(_) => {
                rep.ready &= !bit;
                self.slice.touch(r);
                if is_app || is_proxy {
                    if is_app {
                        rep.app_alive = false;
                        rep.app_listening = false;
                    } else {
                        rep.proxy_alive = false;
                        rep.proxy_listening = false;
                    }
                    self.path_died(r, now, s);
                }
                self.endpoints_changed(now, s);
            }
            _ => {}
        }
    }

    /// The app got SIGTERM: its listener and connections follow `on_sigterm`.
    fn app_sigterm(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let app = self.service.app;
        let drain = self.app_drain(r);
        let rep = &mut self.replicas[r];
        rep.sigterm = Some(now);
        let replica = r as u32;
        match app.on_sigterm {
            // The Pod model ends it: a drain of 0, or SIGKILL.
            OnSigterm::ExitImmediately => rep.app_listening = false,
            OnSigterm::Ignore => {}
            OnSigterm::CloseThenDrain | OnSigterm::CloseKeepBusy => {
                rep.exit_not_before = now + drain;
                drain_due(replica, rep.exit_not_before, drain, s);
                self.close_listener(r, now, s);
            }
            OnSigterm::DelayThenDrain => {
                rep.exit_not_before = now + app.drain_delay + drain;
                s.after(app.drain_delay, ServiceEvent::ListenerClosing { replica });
                drain_due(replica, rep.exit_not_before, drain, s);
            }
        }
    }

    /// The app's own `drain` for its current attempt, drawn as the Pod
    /// model would have drawn it.
    fn app_drain(&self, r: usize) -> SimDuration {
        let rep = &self.replicas[r];
        let Some(app) = rep.app else {
            return SimDuration::ZERO;
        };
        let spec = self.template_of(r).container(app);
        match &spec.drain {
            Drain::After(Dist::Fixed(d)) => *d,
            Drain::After(dist) => dist.sample(rep.stream.uniform(
                name_hash(&spec.name),
                DrawKey::Drain,
                rep.app_attempt,
            )),
            // R55: it holds its connections until SIGKILL ends the Pod.
            Drain::Never => NEVER,
        }
    }

    /// The app stops accepting and closes its idle connections; busy ones
    /// close after their response (Go) or are held (Node).
    pub(super) fn close_listener(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        if self.counting.on && self.replicas[r].app_listening {
            self.last_in_flight(r, now, s);
        }
        let hostage = self.service.app.on_sigterm == OnSigterm::CloseKeepBusy;
        let rep = &mut self.replicas[r];
        rep.app_listening = false;
        rep.closing = !hostage;
        rep.hostage = hostage;
        let mut i = 0;
        while i < rep.open.len() {
            let c = rep.open[i];
            if self.conns.get(c).state == ConnState::Idle {
                self.conns.close(c, now, false, &mut rep.open);
                self.observers.emit(
                    now,
                    ServiceChange::ConnectionClosed {
                        conn: c,
                        reset: false,
                    },
                );
            } else {
                i += 1;
            }
        }
    }

    /// A connection of a draining Node app went idle: closed in 5 s unless reused.
    pub(super) fn hold_idle(&mut self, c: u32, s: &mut Scheduler<'_, ServiceEvent>) {
        let generation = self.conns.get(c).generation;
        s.after(
            NODE_KEEP_ALIVE_TIMEOUT,
            ServiceEvent::IdleExpired { conn: c, generation },
        );
    }

    /// A draining app exits once its shutdown work is done and no
    /// connection is left: through the Pod model's `Drained`.
    pub(super) fn maybe_exit(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let rep = &self.replicas[r];
        let drains = matches!(
            self.service.app.on_sigterm,
            OnSigterm::CloseThenDrain | OnSigterm::CloseKeepBusy | OnSigterm::DelayThenDrain
        );
        let done = drains
            && rep.sigterm.is_some()
            && rep.app_alive
            && !rep.app_listening
            && now >= rep.exit_not_before
            && now >= rep.busy_until
            && rep.open.is_empty();
        if let (true, Some(app)) = (done, rep.app) {
            let event = PodEvent::Drained {
                container: app,
                attempt: rep.app_attempt,
            };
            self.pod_event(r, now, event, s);
        }
    }

    /// `[[disruptions]] crash`: replica `r`'s serving app dies as the Pod
    /// model's scripted crash does (exit 1), so everything after is the
    /// kubelet's: the exit drops its Ready bit at once (the status sync
    /// reports a container that is not running as not ready), `react`
    /// resets its connections and takes it out of the endpoints, and the
    /// restart waits out the container's CrashLoopBackOff (R14, R15: the
    /// first at once, then 10 s doubling to 300 s). An app not running now
    /// (deleted, or between two starts) has nothing to crash.
    pub(super) fn crash(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(rep) = self.replicas.get(r) else {
            return;
        };
        let Some(container) = rep.app else {
            return;
        };
        let event = PodEvent::Crashed {
            container,
            attempt: rep.app_attempt,
        };
        // Booting counts: its process runs (the Pod model's test).
        if self.pods[r].is_current(&event) {
            self.emit(now, ServiceChange::Crashed { replica: r as u32 });
        }
        self.pod_event(r, now, event, s);
    }

    /// The app or the proxy died (or a load balancer cut the target's
    /// flows): requests in flight are cut, connections reset.
    pub(super) fn path_died(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        if self.counting.on {
            self.cut_in_flight(r, now);
        }
        let mut open = std::mem::take(&mut self.replicas[r].open);
        while let Some(&c) = open.last() {
            let state = self.conns.get(c).state;
            self.conns.close(c, now, true, &mut open);
            self.emit(now, ServiceChange::ConnectionClosed { conn: c, reset: true });
            if let ConnState::Busy(request) = state {
                self.fail(request, super::Cause::Inflight, now, s);
            }
        }
        self.replicas[r].open = open;
    }
}

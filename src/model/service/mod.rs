//! The Service model: R replicas of the scenario's Pod behind one Service,
//! on N nodes, each node with its kube-proxy, and clients sending requests
//! to it, so a `kubectl delete pod` is measured in failed requests by cause
//! (disruption-model.md A.1–A.4). One room per concern:
//!
//! - `spec`: the scenario's `[service]`, `[traffic]`, `[app]`, `[[disruptions]]`;
//! - `endpoints`: the EndpointSlice (KEP-1672) and the rules it gives (KEP-1669);
//! - `proxy`: one kube-proxy per node, its bounded-frequency runner;
//! - `cluster`, `background`: the other Services each node's kube-proxy
//!   syncs too, their churn, and how long a sync takes (`[cluster]`);
//! - `traffic`: arrivals, routing, answers, failures, the retries;
//! - `client`: the client library's profile (pool, close detection, retries);
//! - `hop`: an ingress, a mesh sidecar or a cloud load balancer between
//!   the clients and the Pods, as presets; `router`: it running, with its
//!   own view, balancing, health check and retries; `scores`: what it
//!   learns of each upstream from its tries (EWMA, outlier detection);
//! - `connection`: connections pinned to a Pod, clients' keep-alive pools;
//! - `app`: a replica's serving state, the app's reaction to SIGTERM;
//! - `outcome`: failure causes and the metrics;
//! - `history`: the typed changes the Service reports, and its observers;
//! - `meters`: the metrics, accumulated from the changes as they come;
//! - `finish`: the end of a run: each replica's own end, the metrics;
//! - `trace`: what a recorded run keeps of its history (`ServiceTrace`),
//!   in memory bounded whatever the requests (`sent`);
//! - `deployment`: a rollout as the scenario states it, and its fenceposts;
//! - `rollout`: the Deployment controller and its ReplicaSets;
//! - `pdb`, `drain`: a PodDisruptionBudget, the Eviction API, kubectl drain;
//! - `node_failure`, `node`: a lost node as stated, and the node
//!   lifecycle and taint eviction controllers, a spot reclaim's handler;
//! - `disrupt`: each disruption's rounds to its kind's room; deletes, unready windows;
//! - `event`: what the queue holds;
//! - `dispatch`: the engine's way in: each event to the room that handles it.
//!
//! Every replica is a whole `PodModel`, driven on the Service's own queue:
//! its events travel as `ServiceEvent::Pod`, its handler schedules into a
//! scratch queue whose events are moved over in order, and its observer
//! (`Tap`) holds each change for the Service, which reports it on and
//! reacts to it. That keeps one clock and one tie order for everything (a
//! sub-simulation per replica would need its own tie rule between queues),
//! and the Pod's rules are reused, not copied: the Service never decides
//! what the kubelet does, only, for an app that drains, when it has
//! finished (through `Drained`).
//!
//! ## The history and its observers
//!
//! As the Pod model does, the Service reports every change as it happens,
//! typed (`ServiceChange`, in `history`), through one place (`emit`): each
//! replica's own Pod changes tagged with the replica; what the API and the
//! slice showed of each Pod and the slice's ready endpoints; each node's
//! rules as its syncs change them; each request sent, routed, retried,
//! answered or failed with its cause; each connection opened and closed;
//! and the controllers' steps (a rollout's start and ends, a ReplicaSet
//! scaled or a Pod made, a drain, each eviction allowed or refused).
//! The model keeps only what decides what happens next; everything
//! measured or shown is made of the changes by their observers:
//!
//! - `ServiceMeters`, which every run has: the `ServiceMetrics`,
//!   accumulated change by change (a sweep row pays for these alone);
//! - the observer `O`: `()` keeps nothing (the sweep's, compiled away),
//!   `ServiceHistory` keeps every change (tests), and `ServiceTrace`
//!   keeps what `podsim run`'s text, pictures and JSON read, in bounded
//!   memory.
//!
//! Invariant: a Service with one replica and no traffic gives that replica
//! exactly the metrics the Pod model gives the Pod alone.

mod app;
mod autoscaler;
mod background;
mod client;
mod cluster;
mod connection;
mod counting;
mod deployment;
mod dispatch;
mod disrupt;
mod drain;
mod endpoints;
mod event;
mod finish;
mod history;
mod hop;
mod meters;
mod node;
mod node_failure;
mod outcome;
mod pdb;
mod poisson;
mod proxy;
mod rollout;
mod router;
mod scale;
mod scores;
mod sent;
mod shutdown;
mod simulator;
mod spec;
mod trace;
mod traffic;

pub use app::serving_app;
pub use autoscaler::{Abort, ScaleDown};
pub use client::{ClientPreset, ClientSpec, OnClosed, Profile, Retries};
pub use cluster::{Changed, ClusterSpec, ProxyMode};
pub use deployment::{Rollout, RolloutFigures, Scaled, Strategy};
pub use drain::{DrainFigures, EVICTION_RETRY};
pub use event::ServiceEvent;
pub use history::{Fate, PodFact, ServiceChange, ServiceEntry, ServiceHistory, ServiceObserver};
pub use hop::{Balance, Health, Hop, HopPreset, HopSpec, Outlier, Status};
pub use node::{NodeState, TCP_RETRANSMIT_LIMIT};
pub use node_failure::{LostNode, NodeFailure, NodeFigures, Provider, Spot, default_grace};
pub use outcome::{Cause, CrashFigures, Deleted, FailedRequest, HopFigures, RetryFigures, ServiceMetrics};
pub use pdb::{Budget, Candidate, EvictionPolicy, Pdb};
pub use rollout::ReplicaSet;
pub use scale::Annotate;
pub use sent::SentTimes;
pub use shutdown::{BUILT_IN_CLASSES, NodeShutdown, PriorityGroup, SYSTEM_CRITICAL};
pub use simulator::{ServiceReport, ServiceRun, ServiceSimulator, simulate_service, simulate_service_within};
pub use spec::{AUTO_RATE, TrafficModel};
pub use spec::{
    AppSpec, Arrival, Connections, Disruption, OnSigterm, Preset, Propagation, Rate, Retry, ServiceSpec,
    TrafficSpec, Unready, When,
};
pub use trace::{FailedSpan, ServiceTrace};
pub use traffic::SETTLE_TAIL;

use self::app::{Replica, replica_pod};
use self::cluster::Runner;
use self::connection::{Client, Conns};
use self::endpoints::Slice;
use self::history::{Observers, Tap};
use self::meters::ServiceMeters;
use self::proxy::Proxy;
use self::rollout::Deploy;
use self::router::HopState;
use self::traffic::Requests;
use crate::engine::{EventQueue, Model, Scheduler, SimTime};
use crate::model::draw::{DrawKey, Seeded};
use crate::model::pod::spec::PodRunSpec;
use crate::model::pod::{PodEvent, PodModel, TraceEntry};

/// The Service on the engine: the state that decides what happens next,
/// and what watches it (the meters always, and the observer `O`).
pub struct ServiceModel<O: ServiceObserver, R: ServiceRun> {
    /// The Pod template, the Service and the horizon, as the caller lends
    /// them (`ServiceRun`); `service` and `stream` are this run's copies.
    run: R,
    service: ServiceSpec,
    /// Folded in once a run: the Service draws a few times a request.
    stream: Seeded,
    pods: Vec<PodModel<Tap<O>>>,
    replicas: Vec<Replica>,
    /// When each replica's Pod last handled an event: where its own run ended.
    last_pod_event: Vec<SimTime>,
    scratch: EventQueue<PodEvent>,
    slice: Slice,
    proxies: Vec<Proxy>,
    clients: Vec<Client>,
    /// The traffic's client, every field resolved.
    profile: Profile,
    conns: Conns,
    requests: Requests,
    /// The next request's index: the counter of its draws.
    next_request: u32,
    next_arrival: f64,
    /// The next request's client, of a Poisson stream: drawn with its gap.
    next_client: u32,
    started: Option<SimTime>,
    traffic_end: Option<SimTime>,
    /// Disruptions that have happened: traffic settles once all have.
    disrupted: usize,
    /// The Deployment, in a scenario with a rollout.
    deploy: Option<Deploy>,
    /// Per node, whether it is up; empty in a scenario that loses none.
    node_down: Vec<node::Down>,
    /// The router between the clients and the Pods, in a scenario with a `[hop]`.
    hop: Option<HopState>,
    /// Each node's runner state with a `[cluster]` (empty without one).
    runners: Vec<Runner>,
    /// When the last background change was published (ms), and its index.
    churn_next: f64,
    churn_index: u32,
    /// The counting traffic model's state (`counting`), off for per-request runs.
    counting: counting::Counting,
    observers: Observers<O>,
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// A model of `run`, which must have a `service`, reporting to `observer`.
    pub fn new(run: R, observer: O) -> Self {
        let mut model = ServiceModel {
            service: ServiceSpec::default(),
            stream: run.stream().seeded(),
            run,
            pods: Vec::new(),
            replicas: Vec::new(),
            last_pod_event: Vec::new(),
            scratch: EventQueue::new(),
            slice: Slice::default(),
            proxies: Vec::new(),
            clients: Vec::new(),
            profile: Profile::default(),
            conns: Conns::default(),
            requests: Requests::default(),
            next_request: 0,
            next_arrival: 0.0,
            next_client: 0,
            started: None,
            traffic_end: None,
            disrupted: 0,
            deploy: None,
            node_down: Vec::new(),
            hop: None,
            runners: Vec::new(),
            churn_next: 0.0,
            churn_index: 0,
            counting: counting::Counting::default(),
            observers: Observers {
                meters: ServiceMeters::default(),
                observer,
            },
        };
        model.reset();
        model
    }

    /// Back to replicas never created, for the current `run`.
    pub fn reset(&mut self) {
        self.service = self.run.service().cloned().unwrap_or_default();
        self.stream = self.run.stream().seeded();
        let replicas = self.service.replicas.max(1);
        let nodes = self.service.nodes.max(1);
        let pod = replica_pod(self.run.pod(), self.service.app.on_sigterm);
        self.pods.truncate(replicas as usize);
        for r in 0..replicas {
            let run = PodRunSpec {
                pod: pod.clone(),
                horizon: self.run.horizon(),
                stream: self.run.stream().moved(r),
            };
            match self.pods.get_mut(r as usize) {
                Some(model) => {
                    *model.run_spec_mut() = run;
                    model.reset();
                }
                None => self.pods.push(PodModel::new(run, Tap::default())),
            }
        }
        self.replicas.clear();
        self.replicas
            .extend((0..replicas).map(|r| Replica::new(&pod, self.run.stream().moved(r))));
        self.last_pod_event.clear();
        self.last_pod_event.resize(replicas as usize, SimTime::ZERO);
        self.scratch.clear();
        self.slice.reset(replicas as usize);
        self.proxies.resize_with(nodes as usize, Proxy::default);
        self.proxies.truncate(nodes as usize);
        for p in &mut self.proxies {
            p.reset(self.service.min_sync_period);
        }
        let clients = self.service.traffic.as_ref().map_or(0, |t| t.clients.max(1));
        self.profile = self
            .service
            .traffic
            .as_ref()
            .map(|t| t.profile())
            .unwrap_or_default();
        self.hop = self.service.hop.as_ref().map(|h| HopState::new(h.resolve()));
        if let (Some(h), Some(t)) = (&self.hop, &self.service.traffic) {
            self.profile = h.hop.upstream(t, self.profile);
        }
        self.clients.clear();
        self.clients.extend((0..clients).map(|c| Client {
            node: c % nodes,
            pool: Vec::new(),
        }));
        self.conns.clear();
        self.requests.clear();
        self.next_request = 0;
        self.next_arrival = 0.0;
        self.next_client = 0;
        self.started = None;
        self.traffic_end = None;
        self.disrupted = 0;
        let loses = (self.service.disruptions.iter()).any(|d| d.node_failure.is_some());
        let controlled = (self.service.disruptions.iter()).any(|d| {
            d.rollout.is_some() || d.drain.is_some() || d.scale_to.is_some() || d.node_shutdown.is_some()
        }) || (self.service.disruptions.iter()).any(|d| d.scale_down_node.is_some());
        self.deploy = (controlled || loses).then(|| Deploy::new(replicas, nodes));
        self.node_down.clear();
        if loses {
            self.node_down.resize(nodes as usize, node::Down::Up);
        }
        self.reset_background();
        self.counting.reset(self.service.counts());
        self.observers.meters.reset(&self.service);
        self.observers.observer.clear();
    }

    /// What the observer kept of the last run.
    pub fn observer(&self) -> &O {
        &self.observers.observer
    }

    /// What the observer kept, to take it away.
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observers.observer
    }

    /// Reports a change (`Observers::emit`).
    #[inline(always)]
    fn emit(&mut self, at: SimTime, what: ServiceChange) {
        self.observers.emit(at, what);
    }

    /// Reports what replica `r`'s Pod model changed since it was last asked.
    fn report_pod_changes(&mut self, r: usize) -> Vec<TraceEntry> {
        let changes = std::mem::take(&mut self.pods[r].observer_mut().changes);
        let replica = r as u32;
        for e in &changes {
            let (container, change) = (e.container, e.what);
            self.emit(
                e.at,
                ServiceChange::Pod {
                    replica,
                    container,
                    change,
                },
            );
        }
        changes
    }
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Handles `event` of replica `r`'s Pod now, then what it changed.
    fn pod_event(&mut self, r: usize, now: SimTime, event: PodEvent, s: &mut Scheduler<'_, ServiceEvent>) {
        if !self.pods[r].is_current(&event) {
            return;
        }
        // No kubelet runs an off node's Pods, and none on a lost node
        // hears of a deletion.
        let rep = &self.replicas[r];
        if rep.unreachable && (rep.host_down || event == PodEvent::DeletionRequested) {
            return;
        }
        self.last_pod_event[r] = now;
        if event == PodEvent::Created {
            let fact = PodFact::Created(self.replica_set_of(r));
            self.emit(
                now,
                ServiceChange::Api {
                    replica: r as u32,
                    fact,
                },
            );
        }
        self.pods[r].handle(now, event, &mut Scheduler::over(now, &mut self.scratch));
        let replica = r as u32;
        while let Some((at, event)) = self.scratch.pop() {
            s.at(at, ServiceEvent::Pod { replica, event });
        }
        // Every change is reported before the first is reacted to: a
        // reaction may hand the Pod a nested event, whose changes come after.
        let mut changes = self.report_pod_changes(r);
        for &entry in &changes {
            self.react(r, entry, s);
        }
        self.pod_changed(r, &changes, now, s);
        changes.clear();
        // Keep the buffer unless a nested event refilled it meanwhile.
        let slot = &mut self.pods[r].observer_mut().changes;
        if slot.is_empty() {
            *slot = changes;
        }
    }

    /// The replicas' serving state went into the slice: a new version, if
    /// the rules change, heard by each node after its propagation delay.
    fn endpoints_changed(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let (replicas, observers) = (&self.replicas, &mut self.observers);
        let state = |r: usize| {
            (
                replicas[r].serving(),
                replicas[r].object_gone || replicas[r].failed,
            )
        };
        let ready = self.slice.update(state, |replica, serving| {
            let fact = PodFact::Serving(serving);
            observers.emit(now, ServiceChange::Api { replica, fact });
        });
        if let Some(ready) = ready {
            self.emit(now, ServiceChange::ReadyEndpoints { ready });
        }
        if !self.slice.publish() {
            return;
        }
        let version = self.slice.version();
        let dist = self.service.propagation.dist();
        for (node, p) in self.proxies.iter_mut().enumerate() {
            // A lost node's kube-proxy hears nothing more.
            if self.node_down.get(node).is_some_and(|&d| d != node::Down::Up) {
                continue;
            }
            let delay = match dist.fixed() {
                Some(d) => d,
                None => dist.sample(self.stream.uniform(node as u64, DrawKey::Propagation, version)),
            };
            if let Some(at) = p.hear_at(now + delay, version) {
                let node = node as u32;
                s.at(at, ServiceEvent::Heard { node, version });
            }
        }
        self.hop_publish(version, now, s);
        if !self.runners.is_empty() {
            self.rolling_changed(version, now, s);
        }
    }

    /// A node's sync ran at `now`: its rules become the newest version it
    /// heard of (when it started, if syncs take time), each replica they
    /// gain or lose reported.
    fn synced(&mut self, node: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        if self.node_down(node) {
            return;
        }
        let (upto, queued) = self.sync_end(node, now);
        let p = &mut self.proxies[node];
        let (observers, node) = (&mut self.observers, node as u32);
        p.sync(upto, self.slice.changes(p.applied, upto), |replica, added| {
            let change = match added {
                true => ServiceChange::RuleAdded { node, replica },
                false => ServiceChange::RuleDropped { node, replica },
            };
            observers.emit(now, change);
        });
        self.emit(now, ServiceChange::Synced { node });
        if queued {
            self.ask_sync(node, now, s);
        }
        self.maybe_start(now, s);
        self.maybe_settle(now);
    }

    /// Traffic starts once every replica is Ready in every node's rules.
    fn maybe_start(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let all = self.service.replicas.max(1) as usize;
        if self.started.is_some()
            || self.proxies.iter().any(|p| p.rules.len() < all)
            || !self.hop_complete(all)
        {
            return;
        }
        self.started = Some(now);
        for (index, d) in self.service.disruptions.iter().enumerate() {
            if let When::AfterReady(after) = d.when {
                let index = index as u32;
                s.after(after, ServiceEvent::Disrupt { index, round: 0 });
            }
        }
        if let Some(t) = &self.service.traffic {
            let (rate, arrival) = (t.rate.get(), t.arrival);
            self.traffic_end = t.duration.map(|d| now + d);
            self.next_arrival = now.as_millis() as f64;
            match self.counting.on {
                true => self.counting.start(now),
                false => self.schedule_arrival(0, rate, arrival, now, s),
            }
        }
        let until = self.traffic_end;
        self.emit(now, ServiceChange::TrafficStarted { until });
    }

    /// Traffic without a set duration stops 10 s after every disruption
    /// has happened, every deleted Pod is gone and every node is in sync
    /// (a lost node's Pods and kube-proxy aside: they never will be).
    fn maybe_settle(&mut self, now: SimTime) {
        let settled = self.started.is_some()
            && self.traffic_end.is_none()
            && self.disrupted == self.service.disruptions.len()
            && self
                .replicas
                .iter()
                .all(|r| (!r.deleted || r.object_gone || r.unreachable) && (!r.shut_down || r.failed))
            && (self.proxies.iter().enumerate())
                .all(|(n, p)| p.applied == self.slice.version() || self.node_down(n))
            && self.hop_in_sync(&self.slice)
            && self.rollout_settled();
        if settled {
            let until = now + SETTLE_TAIL;
            self.traffic_end = Some(until);
            self.emit(now, ServiceChange::Settled { until });
        }
    }
}

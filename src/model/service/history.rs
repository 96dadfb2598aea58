//! The one history of a Service run: typed changes the Service model
//! reports as they happen — each replica's own Pod changes, what the API
//! and the EndpointSlice showed, each node's rules, every request and
//! connection, and the controllers' steps — to its meters and to whatever
//! else observes the run.
//!
//! Invariant: every view of a Service run — the metrics, the text, the
//! pictures, JSON — is built from these changes alone; none looks at the
//! model's state. Changes come in the order the model made them, several
//! at one instant included, except that each replica's last changes (its
//! probe totals and phase, reported when the run ends) come after the
//! Service's own.

use std::marker::PhantomData;

use super::hop::Status;
use super::meters::ServiceMeters;
use super::node::NodeState;
use super::outcome::Cause;
use super::rollout::ReplicaSet;
use crate::engine::SimTime;
use crate::model::pod::spec::ContainerId;
use crate::model::pod::{Change, Observer, TraceEntry};

/// What the API server or the EndpointSlice showed of a Pod, which no
/// kubelet history holds: the deletion reaches the kubelet later, and the
/// object outlives its containers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodFact {
    /// The Pod object was created, owned by this ReplicaSet.
    Created(ReplicaSet),
    /// Its endpoint turned serving (every app and sidecar Ready), or stopped.
    Serving(bool),
    /// Its deletion timestamp was set: `kubectl delete`, a scale-down, an
    /// eviction. Its endpoint is terminating from now on.
    Deleted,
    /// Its object is gone: it leaves the slice and `kubectl get`.
    Gone,
    /// Its node's kubelet killed it in a graceful shutdown: no deletion
    /// timestamp, its endpoint serving until the node controller's check.
    ShutDown,
    /// Its phase turned Failed (a shut-down Pod whose containers stopped):
    /// it leaves the slice, its object stays.
    Failed,
}

/// Something that changed at one instant in a Service run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceChange {
    /// A replica's Pod changed, as its kubelet reports it (the Pod model's
    /// own change).
    Pod {
        /// The replica, from 0 (new Pods are numbered on after the old ones).
        replica: u32,
        /// `None` for what happens to the Pod as a whole.
        container: Option<ContainerId>,
        /// What changed.
        change: Change,
    },
    /// The API or the slice showed something new of a replica's Pod.
    Api {
        /// The replica, from 0.
        replica: u32,
        /// What it showed.
        fact: PodFact,
    },
    /// The slice's ready endpoints (serving, not terminating) are this
    /// many now.
    ReadyEndpoints {
        /// Ready endpoints from now on.
        ready: u32,
    },
    /// A node's sync put a replica into its rules: new connections
    /// through it may go there.
    RuleAdded {
        /// The node, from 0.
        node: u32,
        /// The replica.
        replica: u32,
    },
    /// A node's sync took a replica out of its rules.
    RuleDropped {
        /// The node, from 0.
        node: u32,
        /// The replica.
        replica: u32,
    },
    /// A node's sync ran (after the rule changes it made, if any): its
    /// rules show the newest slice version it has heard of (by the sync's
    /// start, with a `[cluster]`, where a sync takes time).
    Synced {
        /// The node, from 0.
        node: u32,
    },
    /// Every replica is Ready in every node's rules: traffic starts, and
    /// the disruptions timed after it are due.
    TrafficStarted {
        /// When the traffic stops, if its duration is set.
        until: Option<SimTime>,
    },
    /// Every disruption has happened, every deleted Pod is gone and every
    /// node is in sync: traffic without a set duration stops at `until`.
    Settled {
        /// When the traffic stops.
        until: SimTime,
    },
    /// A client sent a request (its first try).
    RequestSent {
        /// The request's number in the run, from 0.
        request: u32,
        /// The client, from 0.
        client: u32,
    },
    /// A try of a request went to a replica: through its client's node's
    /// rules on a new connection (`fresh`), or on a kept-alive one.
    Routed {
        /// The request's number in the run, from 0.
        request: u32,
        /// 1, or 2, 3, … for each retry.
        tries: u32,
        /// The client's node.
        node: u32,
        /// The replica it went to.
        replica: u32,
        /// A new connection, chosen by the rules (else a kept-alive one, pinned).
        fresh: bool,
    },
    /// A request's try failed, and its client sends it again: now, or
    /// after its back-off.
    Retried {
        /// The request's number in the run, from 0.
        request: u32,
        /// Why the try failed.
        cause: Cause,
    },
    /// A request was answered.
    Answered {
        /// The request's number in the run, from 0.
        request: u32,
        /// When it was sent.
        sent: SimTime,
        /// When the try that was answered went out (`sent` for the first):
        /// a retried request's extra latency is the difference.
        try_sent: SimTime,
        /// 1, or 2, 3, … if a retry answered it.
        tries: u32,
    },
    /// A request failed for good, with the cause of its last try.
    RequestFailed {
        /// The request's number in the run, from 0.
        request: u32,
        /// When it was sent.
        sent: SimTime,
        /// Why it failed.
        cause: Cause,
        /// The replica it was routed to, if it got that far.
        replica: Option<u32>,
        /// The client that sent it, from 0.
        client: u32,
    },
    /// A connection to a replica was opened.
    ConnectionOpened {
        /// The connection's slot (reused once it is closed and freed).
        conn: u32,
        /// The client that opened it.
        client: u32,
        /// The replica it is pinned to.
        replica: u32,
    },
    /// A connection was closed: by the process dying (`reset`) or gracefully.
    ConnectionClosed {
        /// The connection's slot.
        conn: u32,
        /// Closed by the process dying: a request on it now is reset.
        reset: bool,
    },
    /// The hop's view gained a replica: its new upstream connections may go there.
    HopRuleAdded {
        /// The replica.
        replica: u32,
    },
    /// The hop's view lost a replica.
    HopRuleDropped {
        /// The replica.
        replica: u32,
    },
    /// The hop's health check took a replica out of rotation, or brought
    /// it back.
    HopHealth {
        /// The replica.
        replica: u32,
        /// In rotation from now on.
        healthy: bool,
    },
    /// The hop's outlier detection ejected a replica, or brought it back.
    HopEjected {
        /// The replica.
        replica: u32,
        /// Ejected from now on (else back).
        ejected: bool,
    },
    /// The hop's deregistration delay for a replica out of rotation is
    /// over: it resets the connections still open to it.
    HopTerminated {
        /// The replica.
        replica: u32,
    },
    /// The hop sends a failed try of a request to its next upstream.
    HopRetried {
        /// The request's number in the run, from 0.
        request: u32,
        /// Why the try failed.
        cause: Cause,
    },
    /// The hop answered a request with an error: its last try failed.
    HopAnswered {
        /// The request's number in the run, from 0.
        request: u32,
        /// The answer.
        status: Status,
    },
    /// The Deployment's rollout began: the new ReplicaSet exists from now.
    RolloutStarted,
    /// A ReplicaSet's `spec.replicas` changed (the Deployment controller's
    /// scaling step).
    Scaled {
        /// Which ReplicaSet.
        rs: ReplicaSet,
        /// Its `spec.replicas` from now on.
        replicas: u32,
    },
    /// The ReplicaSet controller created a Pod object, placed on `node`;
    /// the kubelet hears of it later in this instant (`PodFact::Created`).
    PodMade {
        /// The new replica's number.
        replica: u32,
        /// Its ReplicaSet.
        rs: ReplicaSet,
        /// The node it runs on.
        node: u32,
    },
    /// The ReplicaSet controller synced both ReplicaSets: the Pods it
    /// counts active (no deletion timestamp, phase not terminal) in each.
    ReplicaSetsSynced {
        /// Active Pods of the old and the new ReplicaSet.
        active: [u32; 2],
    },
    /// The new ReplicaSet is fully available (`kubectl rollout status` returns).
    RolloutComplete,
    /// The rollout is complete and the last old Pod object is gone.
    RolloutDone,
    /// `kubectl drain` cordoned a node and asked to evict its Pods.
    DrainStarted {
        /// The drain's number in the run, from 0.
        drain: u32,
        /// The node drained.
        node: u32,
    },
    /// Every Pod that was on a drained node is gone.
    DrainDone {
        /// The drain's number in the run, from 0.
        drain: u32,
    },
    /// The Eviction API allowed an eviction: the Pod is deleted now.
    Evicted {
        /// The replica.
        replica: u32,
    },
    /// The budget refused an eviction (HTTP 429): kubectl drain tries again in 5 s.
    EvictionRefused {
        /// The replica.
        replica: u32,
    },
    /// A node's state changed (a lost node, issue 40).
    Node {
        /// The node, from 0.
        node: u32,
        /// Its state from now on.
        state: NodeState,
    },
    /// The taint eviction controller deleted a lost node's Pod (no budget
    /// consulted); its `PodFact::Deleted` came just before.
    TaintEvicted {
        /// The replica.
        replica: u32,
    },
    /// `[[disruptions]] crash`: the replica's running app crashed now (the
    /// Pod's own changes follow: its exit, back-off and restart).
    Crashed {
        /// The replica.
        replica: u32,
    },
    /// `[[disruptions]] node_shutdown`: the node is shutting down (its
    /// kubelet reports it not Ready and kills every Pod on it).
    NodeShuttingDown {
        /// The node, from 0.
        node: u32,
        /// The regular Pods' budget: shutdownGracePeriod −
        /// shutdownGracePeriodCriticalPods, the most grace a Pod gets.
        budget: crate::engine::SimDuration,
    },
    /// `[[disruptions]] scale_down_node`: the cluster-autoscaler gave the
    /// node's scale-down up and removed its taint; the node stays.
    ScaleDownAborted {
        /// The node, from 0.
        node: u32,
        /// Why.
        why: super::autoscaler::Abort,
    },
    /// The counting traffic model's requests: `n` sent between `from` and
    /// `to` to one replica (or to none: no endpoints), all with one fate.
    /// A failure's instant is each request's send plus the time from `to`
    /// to this change (none for a refusal, the connect timeout for a
    /// timeout), except in flight, where it is this change's.
    Counted {
        /// The span of their sending.
        from: SimTime,
        /// Its end.
        to: SimTime,
        /// How many.
        n: u64,
        /// The replica they were routed to, if any (`u32::MAX`: none).
        replica: u32,
        /// What became of them.
        fate: Fate,
    },
    /// PodGC force-deleted a lost node's Pod (its Node object gone, or
    /// tainted out-of-service): its object leaves the slice and `kubectl
    /// get`; its `PodFact::Gone` follows.
    PodGarbageCollected {
        /// The replica.
        replica: u32,
    },
}

/// What became of the requests a `ServiceChange::Counted` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Answered.
    Answered,
    /// Failed, for this cause.
    Failed(Cause),
    /// Still in flight when the run ended (sent, neither answered nor failed).
    Unfinished,
}

impl ServiceChange {
    /// The change's name in snake_case: JSON's `type`.
    pub fn name(self) -> &'static str {
        match self {
            ServiceChange::Pod { change, .. } => change.name(),
            ServiceChange::Api { fact, .. } => match fact {
                PodFact::Created(_) => "pod_created",
                PodFact::Serving(_) => "serving",
                PodFact::Deleted => "pod_deleted",
                PodFact::Gone => "pod_gone",
                PodFact::ShutDown => "pod_shut_down",
                PodFact::Failed => "pod_failed",
            },
            ServiceChange::ReadyEndpoints { .. } => "ready_endpoints",
            ServiceChange::RuleAdded { .. } => "rule_added",
            ServiceChange::RuleDropped { .. } => "rule_dropped",
            ServiceChange::Synced { .. } => "synced",
            ServiceChange::TrafficStarted { .. } => "traffic_started",
            ServiceChange::Settled { .. } => "settled",
            ServiceChange::RequestSent { .. } => "request_sent",
            ServiceChange::Routed { .. } => "routed",
            ServiceChange::Retried { .. } => "retried",
            ServiceChange::Answered { .. } => "answered",
            ServiceChange::RequestFailed { .. } => "request_failed",
            ServiceChange::ConnectionOpened { .. } => "connection_opened",
            ServiceChange::ConnectionClosed { .. } => "connection_closed",
            ServiceChange::HopRuleAdded { .. } => "hop_rule_added",
            ServiceChange::HopRuleDropped { .. } => "hop_rule_dropped",
            ServiceChange::HopHealth { .. } => "hop_health",
            ServiceChange::HopTerminated { .. } => "hop_terminated",
            ServiceChange::HopEjected { .. } => "hop_ejected",
            ServiceChange::HopRetried { .. } => "hop_retried",
            ServiceChange::HopAnswered { .. } => "hop_answered",
            ServiceChange::RolloutStarted => "rollout_started",
            ServiceChange::Scaled { .. } => "scaled",
            ServiceChange::PodMade { .. } => "pod_made",
            ServiceChange::ReplicaSetsSynced { .. } => "replica_sets_synced",
            ServiceChange::RolloutComplete => "rollout_complete",
            ServiceChange::RolloutDone => "rollout_done",
            ServiceChange::DrainStarted { .. } => "drain_started",
            ServiceChange::DrainDone { .. } => "drain_done",
            ServiceChange::Evicted { .. } => "evicted",
            ServiceChange::EvictionRefused { .. } => "eviction_refused",
            ServiceChange::Node { .. } => "node_state",
            ServiceChange::TaintEvicted { .. } => "taint_evicted",
            ServiceChange::Crashed { .. } => "crashed",
            ServiceChange::NodeShuttingDown { .. } => "node_shutting_down",
            ServiceChange::ScaleDownAborted { .. } => "scale_down_aborted",
            ServiceChange::Counted { .. } => "counted",
            ServiceChange::PodGarbageCollected { .. } => "pod_garbage_collected",
        }
    }
}

/// One change and when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceEntry {
    /// The instant of the change.
    pub at: SimTime,
    /// What changed.
    pub what: ServiceChange,
}

/// The whole history of a Service run, every request included: for tests
/// and short runs (a day of traffic is millions of entries; `podsim run`
/// keeps a `ServiceTrace`).
pub type ServiceHistory = Vec<ServiceEntry>;

/// Whoever watches a Service run; the model hands it every change as it
/// happens.
///
/// The model takes its observer as a type parameter, so a simulator that
/// keeps nothing (`()`, the sweep's) compiles the reporting away and pays
/// only for its meters.
pub trait ServiceObserver {
    /// Whether this observer keeps the history. Only then do the replicas'
    /// Pod models work out what nothing else needs (`Observer::KEEPS_HISTORY`).
    const KEEPS_HISTORY: bool;

    /// Takes note of one change.
    fn observe(&mut self, entry: ServiceEntry);

    /// Forgets the last run before the next, keeping allocations.
    fn clear(&mut self);
}

/// Keeps nothing: a sweep's runs need their metrics only.
impl ServiceObserver for () {
    const KEEPS_HISTORY: bool = false;

    #[inline]
    fn observe(&mut self, _: ServiceEntry) {}

    fn clear(&mut self) {}
}

impl ServiceObserver for ServiceHistory {
    const KEEPS_HISTORY: bool = true;

    fn observe(&mut self, entry: ServiceEntry) {
        self.push(entry);
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// A replica's observer: it holds the Pod model's changes until the
/// Service takes them (after each Pod event), reacts to them and reports
/// them as `ServiceChange::Pod`. It keeps a history exactly when the
/// Service's observer `O` does, so the Pod model reports what that needs.
pub(super) struct Tap<O> {
    pub(super) changes: Vec<TraceEntry>,
    keeps: PhantomData<fn() -> O>,
}

impl<O> Default for Tap<O> {
    fn default() -> Self {
        Tap {
            changes: Vec::new(),
            keeps: PhantomData,
        }
    }
}

impl<O: ServiceObserver> Observer for Tap<O> {
    const KEEPS_HISTORY: bool = O::KEEPS_HISTORY;

    #[inline]
    fn observe(&mut self, entry: TraceEntry) {
        self.changes.push(entry);
    }

    fn clear(&mut self) {
        self.changes.clear();
    }
}

/// What watches a Service run: the meters always, and the observer `O`.
/// A field of its own in the model, so a change can be reported while the
/// model's state is borrowed.
pub(super) struct Observers<O> {
    pub meters: ServiceMeters,
    pub observer: O,
}

impl<O: ServiceObserver> Observers<O> {
    /// Reports a change to the meters and the observer: the one way out
    /// of the model for anything a figure or a view needs.
    #[inline(always)]
    pub fn emit(&mut self, at: SimTime, what: ServiceChange) {
        let entry = ServiceEntry { at, what };
        self.meters.observe(entry);
        self.observer.observe(entry);
    }
}

//! What the Service's queue holds: the replicas' Pod events and the
//! Service's own (disruptions, kube-proxy, requests, the Deployment
//! controller's timers).
//!
//! Invariant: every event that can go stale (a slot or connection reused)
//! carries the generation that makes it stale, so it is dropped at pop time.

use crate::model::pod::PodEvent;

/// What the Service's queue holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceEvent {
    /// An event of replica `replica`'s Pod model.
    Pod {
        /// The replica, from 0.
        replica: u32,
        /// The Pod model's own event.
        event: PodEvent,
    },
    /// Disruption `index` (a `kubectl delete pod`, a rollout or a drain),
    /// its `round`-th repetition.
    Disrupt {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
        /// 0, then 1, 2, … for a deletion with `every`.
        round: u32,
    },
    /// A node's kube-proxy hears of slice version `version`.
    Heard {
        /// The node, from 0.
        node: u32,
        /// The EndpointSlice version it hears of.
        version: u32,
    },
    /// The hop hears of slice version `version`: its view shows it.
    HopHeard {
        /// The EndpointSlice version it hears of.
        version: u32,
    },
    /// The hop's health check of its targets is due.
    HopCheck,
    /// The hop's outlier sweep is due: ejected upstreams may come back.
    HopSweep,
    /// A target's deregistration delay at the hop is over.
    HopDeregistered {
        /// The replica.
        replica: u32,
        /// Its leavings so far: stale if it came back since.
        epoch: u32,
    },
    /// A node's sync ran: its rules show what it has heard.
    Synced {
        /// The node, from 0.
        node: u32,
    },
    /// The arrival process's next request.
    Arrival,
    /// The app answered request slot `request`.
    Answered {
        /// The request's slot.
        request: u32,
        /// The slot's use, so a reused slot's old events fall out as stale.
        generation: u32,
    },
    /// A retried request's back-off is over: its next try goes out.
    Resend {
        /// The request's slot.
        request: u32,
        /// The slot's use, so a reused slot's old events fall out as stale.
        generation: u32,
    },
    /// A connect to a vanished Pod IP gave up.
    ConnectGaveUp {
        /// The request's slot.
        request: u32,
        /// The slot's use, so a reused slot's old events fall out as stale.
        generation: u32,
    },
    /// `delay-then-drain`: the delay is over, the listener closes.
    ListenerClosing {
        /// The replica, from 0.
        replica: u32,
    },
    /// The app's shutdown work is done; it exits once idle.
    DrainDue {
        /// The replica, from 0.
        replica: u32,
    },
    /// A held (Node) connection sat idle for the keep-alive timeout.
    IdleExpired {
        /// The connection's slot.
        conn: u32,
        /// The slot's use, so a reused slot's old events fall out as stale.
        generation: u32,
    },
    /// The Pod object is gone: the endpoint leaves the slice, the IP goes.
    ObjectDeleted {
        /// The replica, from 0.
        replica: u32,
    },
    /// kubectl drain asks the Eviction API to evict a Pod (again after a 429).
    Evict {
        /// The replica, from 0.
        replica: u32,
    },
    /// An `unready` disruption's window is over: the replica's readiness
    /// passes again.
    ReadyAgain {
        /// The replica, from 0.
        replica: u32,
    },
    /// A Ready Pod's minReadySeconds are over: it counts as available.
    Available {
        /// The replica, from 0.
        replica: u32,
    },
    /// A spot reclaim's notice is over: disruption `index`'s node vanishes.
    NodeLost {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
    },
    /// The node monitor's grace period is over: disruption `index`'s node
    /// is marked NotReady and tainted.
    NodeNotReady {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
    },
    /// The node lifecycle controller's first check since node `node`
    /// reported itself NotReady for its graceful shutdown: its Pods not
    /// Ready (`MarkPodsNotReady`).
    ShutdownNotReady {
        /// The node, from 0.
        node: u32,
    },
    /// The lost node's Pods' toleration of the unreachable taint is over.
    TaintEviction {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
    },
    /// A request on a connection to a lost node's Pod: its client's
    /// timeout is over, and no answer came.
    NoAnswer {
        /// The request's slot.
        request: u32,
        /// The slot's use, so a reused slot's old events fall out as stale.
        generation: u32,
    },
    /// `[cluster]`: a node's sync starts (it writes what the node has
    /// heard by now; its rules change when it ends, `Synced`).
    SyncStart {
        /// The node, from 0.
        node: u32,
    },
    /// `[cluster]`: a node hears of another Service's endpoint change.
    BackgroundHeard {
        /// The node, from 0.
        node: u32,
        /// A Deployment rolling with ours changed (else a churned Service).
        rolling: bool,
    },
    /// `[cluster]`: the next background endpoint change is published.
    Churn,
    /// The cluster-autoscaler asks again to evict a replica for
    /// disruption `index`'s scale-down (10 s after a 429).
    ScaleDownEvict {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
        /// The replica, from 0.
        replica: u32,
    },
    /// The cluster-autoscaler looks whether disruption `index`'s node is
    /// empty (every 5 s once its evictions passed).
    ScaleDownCheck {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
    },
    /// `[cluster] full_sync`: every node's periodic full resync is due.
    FullSync,
    /// The counting traffic model's instant: a span of requests' answers
    /// or timeouts are due, or the traffic ends; the run lasts until its
    /// last such instant, as the per-request model's last request does.
    Counting,
    /// The cloud node lifecycle controller deletes disruption `index`'s
    /// Node object (its instance gone).
    NodeDeleted {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
    },
    /// An operator taints disruption `index`'s node out-of-service.
    OutOfService {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
    },
    /// PodGC's pass force-deletes disruption `index`'s lost Pods.
    PodGc {
        /// Which `[[disruptions]]` entry, from 0.
        index: u32,
    },
}

//! A Service scenario as the model sees it: the replicas and nodes, the
//! control plane's and kube-proxy's delays, the traffic, the app's reaction
//! to SIGTERM and the disruptions. The Pod template stays a `PodSpec`: every
//! replica is that Pod, run by the Pod model.
//!
//! Invariant: every value is exact (integer milliseconds, a rate kept by its
//! bits), so a spec stays `Eq` and `Hash` like the Pod's, and every default
//! below names its source in disruption-model.md (A.6, d).

use super::client::ClientSpec;
use super::cluster::ClusterSpec;
use super::hop::HopSpec;
use super::pdb::Pdb;
use crate::engine::SimDuration;
use crate::model::dist::Dist;

mod disruption;

pub use disruption::{Disruption, Unready, When};

/// The Service in front of R replicas of the scenario's Pod.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ServiceSpec {
    /// Replicas, placed round robin on the nodes (replica r on node r mod N).
    pub replicas: u32,
    /// Nodes, each with its kube-proxy; clients are placed round robin too.
    pub nodes: u32,
    /// Per node, endpoint change → that node's sync request.
    pub propagation: Propagation,
    /// Deletion → the kubelet starts preStop/SIGTERM (A.6: 0.05–0.3 s, inferred).
    pub kubelet_delay: SimDuration,
    /// kube-proxy's `minSyncPeriod` (1 s, burst 2: defaults.go).
    pub min_sync_period: SimDuration,
    /// Last container exit → the Pod object is gone: the endpoint leaves the
    /// slice and the Pod IP stops answering (E8 → E9; 1 s, inferred).
    pub cleanup: SimDuration,
    /// Requests, if any are sent.
    pub traffic: Option<TrafficSpec>,
    /// How the serving app reacts to SIGTERM.
    pub app: AppSpec,
    /// Pods deleted during the run, in the order written.
    pub disruptions: Vec<Disruption>,
    /// The budget the Eviction API (a drain) consults, if any.
    pub pdb: Option<Pdb>,
    /// A router between the clients and the Pods (`[hop]`), if any.
    pub hop: Option<HopSpec>,
    /// The other Services every node's kube-proxy syncs too, if any
    /// (`None`: ours is alone, and a sync takes no time).
    pub cluster: Option<ClusterSpec>,
    /// The replicas' resolved `spec.priority` (their PriorityClass's
    /// value; 0 without one): one value, as the Deployment's replicas share
    /// one template. A graceful node shutdown groups its Pods by it.
    pub pod_priority: u32,
}

/// Written as derived, but without `pdb`, `hop` or `cluster` when there is none (nor
/// `pod_priority` when it is 0): a grid's hash
/// is taken over its base's `Debug` text, and a Service grid written before
/// budgets existed keeps the hash its shards carry. The destructuring has no
/// `..`, so a new field must be written here too.
impl std::fmt::Debug for ServiceSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ServiceSpec {
            replicas,
            nodes,
            propagation,
            kubelet_delay,
            min_sync_period,
            cleanup,
            traffic,
            app,
            disruptions,
            pdb,
            hop,
            cluster,
            pod_priority,
        } = self;
        let mut d = f.debug_struct("ServiceSpec");
        d.field("replicas", replicas)
            .field("nodes", nodes)
            .field("propagation", propagation)
            .field("kubelet_delay", kubelet_delay)
            .field("min_sync_period", min_sync_period)
            .field("cleanup", cleanup)
            .field("traffic", traffic)
            .field("app", app)
            .field("disruptions", disruptions);
        if let Some(pdb) = pdb {
            d.field("pdb", pdb);
        }
        if let Some(hop) = hop {
            d.field("hop", hop);
        }
        if let Some(cluster) = cluster {
            d.field("cluster", cluster);
        }
        if *pod_priority != 0 {
            d.field("pod_priority", pod_priority);
        }
        d.finish()
    }
}

impl Default for ServiceSpec {
    fn default() -> Self {
        ServiceSpec {
            replicas: 3,
            nodes: 3,
            propagation: Propagation::Preset(Preset::Tiny),
            kubelet_delay: SimDuration::from_millis(100),
            min_sync_period: SimDuration::from_secs(1),
            cleanup: SimDuration::from_secs(1),
            traffic: None,
            app: AppSpec::default(),
            disruptions: Vec::new(),
            pdb: None,
            hop: None,
            cluster: None,
            pod_priority: 0,
        }
    }
}

/// A node's propagation delay: a named, sourced preset or any duration or
/// distribution.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Propagation {
    /// A named preset, with its source.
    Preset(Preset),
    /// Any duration or distribution.
    Custom(Dist),
}

impl Propagation {
    /// The distribution a node's delay is drawn from.
    pub fn dist(&self) -> Dist {
        match self {
            Propagation::Preset(p) => p.dist(),
            Propagation::Custom(d) => d.clone(),
        }
    }
}

/// Propagation presets (disruption-model.md A.6 and part d).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// kind, 1–3 quiet nodes: lognormal, median 0.2 s, p99 1 s.
    Tiny,
    /// ~100 nodes: median 1 s, p99 4 s ("sleep 3 is generally sufficient", kubernetes#43576) (inferred).
    Medium,
    /// 5k nodes with iptables churn: median 8 s, p99 30 s (KEP-3453; CL2's 30 s threshold).
    Large,
    /// A GCP load balancer's health checks: 32 s (openshift/origin upgrade test).
    GcpLb,
    /// An Azure load balancer's health checks: 15 s (same test).
    AzureLb,
    /// An AWS NLB with IP targets: about 120 s (aws-load-balancer-controller#2366).
    NlbIp,
}

impl Preset {
    crate::model::words::words! {
        /// The spellings, in the order messages list them.
        Tiny => "tiny",
        Medium => "medium",
        Large => "large",
        GcpLb => "gcp-lb",
        AzureLb => "azure-lb",
        NlbIp => "nlb-ip",
    }

    /// The preset's per-node delay distribution.
    pub fn dist(self) -> Dist {
        let ms = SimDuration::from_millis;
        let lognormal = |median, p99| Dist::LogNormal {
            median: ms(median),
            p99: ms(p99),
        };
        match self {
            Preset::Tiny => lognormal(200, 1000),
            Preset::Medium => lognormal(1000, 4000),
            Preset::Large => lognormal(8000, 30_000),
            Preset::GcpLb => Dist::Fixed(ms(32_000)),
            Preset::AzureLb => Dist::Fixed(ms(15_000)),
            Preset::NlbIp => Dist::Fixed(ms(120_000)),
        }
    }
}

/// Requests per second, positive and finite; kept by its bits so it is `Eq`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(f64);

impl Rate {
    /// `r`, if it is a usable rate.
    pub fn new(r: f64) -> Option<Rate> {
        (r.is_finite() && r > 0.0).then_some(Rate(r))
    }

    /// Requests per second.
    pub fn get(self) -> f64 {
        self.0
    }

    /// The rate whose `get().to_bits()` is `bits` (an axis value).
    pub fn from_bits(bits: u64) -> Rate {
        Rate(f64::from_bits(bits))
    }
}

impl Eq for Rate {}

impl std::hash::Hash for Rate {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

/// The load: clients on the nodes sending requests to the Service.
///
/// `connections`, `pool` and `connect_timeout` are `None` unless written:
/// then the client's preset gives them (`TrafficSpec::profile`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TrafficSpec {
    /// Requests per second to the whole Service: each request's client is
    /// drawn uniformly (Poisson arrivals), or taken round robin (constant).
    pub rate: Rate,
    /// How requests are spaced.
    pub arrival: Arrival,
    /// One connection per request, or pooled keep-alive ones.
    pub connections: Option<Connections>,
    /// Keep-alive only: idle connections a client keeps (Go's MaxIdleConnsPerHost).
    pub pool: Option<u32>,
    /// Clients, placed on the nodes round robin.
    pub clients: u32,
    /// How long the app takes to answer.
    pub service_time: Dist,
    /// `ideal` client only: whether a failed request is sent once more.
    pub retry: Retry,
    /// Traffic runs this long from its start; `None`: until 10 s after the
    /// last disruption has settled.
    pub duration: Option<SimDuration>,
    /// A SYN to a vanished Pod IP fails after this (Go's net.Dialer in
    /// DefaultTransport: 30 s, the `ideal` client's).
    pub connect_timeout: Option<SimDuration>,
    /// The client library, and the fields of it the scenario wrote.
    pub client: ClientSpec,
    /// Each request simulated, or the requests counted per span of
    /// constant routing state (`counting`).
    pub model: TrafficModel,
}

/// Written as derived before client profiles, with the `ideal` client's
/// values where a field is unwritten, without `client` while it is
/// `ideal` untouched and without `model` while it is `auto`: a grid's hash is taken over its base's `Debug` text,
/// and a Service grid written before profiles keeps the hash its shards
/// carry. No `..`, so a new field must be written here too.
impl std::fmt::Debug for TrafficSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let TrafficSpec {
            rate,
            arrival,
            connections,
            pool,
            clients,
            service_time,
            retry,
            duration,
            connect_timeout,
            client,
            model,
        } = self;
        let ideal = TrafficSpec::default().profile();
        let mut d = f.debug_struct("TrafficSpec");
        d.field("rate", rate)
            .field("arrival", arrival)
            .field("connections", &connections.unwrap_or(ideal.connections))
            .field("pool", &pool.unwrap_or(ideal.pool))
            .field("clients", clients)
            .field("service_time", service_time)
            .field("retry", retry)
            .field("duration", duration)
            .field(
                "connect_timeout",
                &connect_timeout.unwrap_or(ideal.connect_timeout),
            );
        if !client.is_ideal() {
            d.field("client", client);
        }
        if *model != TrafficModel::Auto {
            d.field("model", model);
        }
        d.finish()
    }
}

impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec {
            rate: Rate(10.0),
            arrival: Arrival::Poisson,
            connections: None,
            pool: None,
            clients: 1,
            service_time: Dist::Fixed(SimDuration::from_millis(50)),
            retry: Retry::None,
            duration: None,
            connect_timeout: None,
            client: ClientSpec::default(),
            model: TrafficModel::Auto,
        }
    }
}

/// When requests arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arrival {
    /// Exponential gaps of mean 1/rate.
    Poisson,
    /// A request every 1/rate.
    Constant,
}

impl Arrival {
    crate::model::words::words! {
        /// The spellings.
        Poisson => "poisson",
        Constant => "constant",
    }
}

/// How clients use connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Connections {
    /// One connection per request: isolates the endpoint race (the e2e tests' DisableKeepAlives).
    New,
    /// A pool of reused connections, pinned to their Pod by conntrack.
    KeepAlive,
}

impl Connections {
    crate::model::words::words! {
        /// The spellings.
        New => "new",
        KeepAlive => "keep-alive",
    }
}

/// What a client does with a failed request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Retry {
    /// Never.
    None,
    /// A connection-level failure is sent once more on a fresh connection.
    Once,
}

impl Retry {
    crate::model::words::words! {
        /// The spellings.
        None => "none",
        Once => "once",
    }
}

/// The serving app: the first app container that is not a proxy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AppSpec {
    /// What the app does on SIGTERM.
    pub on_sigterm: OnSigterm,
    /// `delay-then-drain` only: the listener stays open this long after SIGTERM.
    pub drain_delay: SimDuration,
}

/// The app's reaction to SIGTERM (disruption-model.md A.4). The container's
/// `drain` is the app's own shutdown work: an idle app exits that long
/// after SIGTERM (after `drain_delay`), a busy one when its last request is done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnSigterm {
    /// Exits at the signal: listener gone, in-flight requests cut.
    ExitImmediately,
    /// No handler (PID 1): serves on until SIGKILL at the grace deadline.
    Ignore,
    /// Keeps the listener open `drain_delay`, then as `CloseThenDrain`.
    DelayThenDrain,
    /// Go's `Server.Shutdown`: listener and idle connections closed, busy
    /// ones closed after their current response.
    #[default]
    CloseThenDrain,
    /// Node's `server.close()`: listener and idle sockets closed; busy
    /// keep-alive sockets keep serving until idle for 5 s, or SIGKILL.
    CloseKeepBusy,
}

impl OnSigterm {
    crate::model::words::words! {
        /// The spellings.
        ExitImmediately => "exit-immediately",
        Ignore => "ignore",
        DelayThenDrain => "delay-then-drain",
        CloseThenDrain => "close-then-drain",
        CloseKeepBusy => "close-keep-busy",
    }
}

/// How a Service run simulates its requests (issue 41; docs/traffic-models.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TrafficModel {
    /// Each request an event: routed, answered or failed one by one.
    PerRequest,
    /// The requests of each span of constant routing state counted by one
    /// Poisson draw per endpoint and outcome, where that is exact.
    Counting,
    /// `counting` where it is exact and the rate is at least `AUTO_RATE`,
    /// else `per-request`.
    #[default]
    Auto,
}

impl TrafficModel {
    crate::model::words::words! {
        /// The spellings.
        PerRequest => "per-request",
        Counting => "counting",
        Auto => "auto",
    }
}

/// `auto` counts from this many requests a second: below it a run sends
/// a few thousand requests a minute, which the per-request model simulates
/// in milliseconds while keeping each request's own instant, route and
/// client in the views (so every bundled scenario keeps its bytes).
pub const AUTO_RATE: f64 = 1000.0;

impl ServiceSpec {
    /// What makes the counting model inexact for this Service, if anything:
    /// the feature that needs requests one by one.
    pub fn counting_blocker(&self) -> Option<&'static str> {
        let t = self.traffic.as_ref()?;
        let p = t.profile();
        if t.arrival == Arrival::Constant {
            return Some("constant arrivals (a Poisson stream's counts are what is drawn)");
        }
        if p.connections == Connections::KeepAlive
            && let Some(why) = super::counting::keep_alive_blocker(t, &p)
        {
            return Some(why);
        }
        if p.retries.connect > 0 || p.retries.reset > 0 {
            return Some("client retries (a retried request routes again)");
        }
        if t.service_time.fixed().is_none() {
            return Some("a service-time distribution (in-flight requests are counted for a fixed one)");
        }
        if self.hop.is_some() {
            return Some("a hop (its own balancing and retries route each request)");
        }
        if self.disruptions.iter().any(|d| d.node_failure.is_some()) {
            return Some("a lost node (each request to it times out on its client's own clock)");
        }
        None
    }

    /// Whether a run counts its requests: `counting` or `auto` where exact
    /// (`auto` from `AUTO_RATE` on).
    pub fn counts(&self) -> bool {
        let Some(t) = &self.traffic else {
            return false;
        };
        let wanted = match t.model {
            TrafficModel::PerRequest => false,
            TrafficModel::Counting => true,
            TrafficModel::Auto => t.rate.get() >= AUTO_RATE,
        };
        wanted && self.counting_blocker().is_none()
    }

    /// The notice for a run that asked for counting (or would have had it
    /// by its rate) but simulates each request: which feature forces it.
    pub fn traffic_model_notice(&self) -> Option<String> {
        let t = self.traffic.as_ref()?;
        let asked = match t.model {
            TrafficModel::PerRequest => false,
            TrafficModel::Counting => true,
            TrafficModel::Auto => t.rate.get() >= AUTO_RATE,
        };
        let blocker = self.counting_blocker().filter(|_| asked)?;
        Some(format!(
            "traffic.model: each request is simulated one by one, not counted, because of {blocker}; \
             the run's cost grows with traffic.rate (docs/traffic-models.md)"
        ))
    }
}

//! A hop between the clients and the Pods (issue 39 item 2): an ingress
//! controller, a mesh sidecar or a cloud load balancer that targets Pod IPs
//! itself, with its own view of the endpoints, its own propagation, its
//! own balancing and its own retries, in place of the nodes' kube-proxy
//! rules for the requests (each of these sends to Pod IPs directly).
//!
//! An L7 hop (`ingress-nginx`, `envoy`, `gcp-lb`) holds the connections to
//! the Pods itself: a try that fails there is sent to the next upstream as
//! its retries allow, and past them the client gets the hop's error answer
//! (502, 503, 504), which the client's profile may send again
//! (`Retries::status`). An L4 hop (`nlb-ip`) only picks the Pod of each
//! new connection: the client sees the Pod's own failures, as through
//! kube-proxy.
//!
//! This room is the hop as data: the presets, each with its sources, and
//! what a scenario wrote resolved into one `Hop`; `router` runs it.
//!
//! Invariant: a key written in `[hop]` overrides its preset's field
//! whatever the order written (`HopSpec` keeps what was written, `Hop` is
//! the result), as the client's keys do.

use super::client::{OnClosed, Profile, Retries};
use super::outcome::Cause;
use super::spec::{Connections, Propagation, TrafficSpec};
use crate::engine::SimDuration;
use crate::model::dist::Dist;

/// A hop, as a preset of every field of a `Hop`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HopPreset {
    /// The Kubernetes ingress-nginx controller (`kubernetes/ingress-nginx`).
    #[default]
    IngressNginx,
    /// An Istio sidecar's Envoy on the client, fed by istiod's EDS.
    Envoy,
    /// A GKE Ingress (an Application Load Balancer) on container-native NEGs.
    GcpLb,
    /// An AWS Network Load Balancer with IP targets (aws-load-balancer-controller).
    NlbIp,
}

impl HopPreset {
    crate::model::words::words! {
        /// The spellings.
        IngressNginx => "ingress-nginx",
        Envoy => "envoy",
        GcpLb => "gcp-lb",
        NlbIp => "nlb-ip",
    }
}

/// How a hop picks the Pod of a new upstream connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Balance {
    /// Uniformly at random, as kube-proxy's iptables rules do.
    Random,
    /// In turn over its view (ingress-nginx's `round_robin`).
    RoundRobin,
    /// The less busy of two picked at random (Envoy's `LEAST_REQUEST`,
    /// `choice_count` 2).
    LeastRequest,
    /// The lower decayed round-trip average of two picked at random
    /// (ingress-nginx's `load-balance: ewma`, a peak-EWMA after Finagle).
    Ewma,
}

impl Balance {
    crate::model::words::words! {
        /// The spellings.
        Random => "random",
        RoundRobin => "round-robin",
        LeastRequest => "least-request",
        Ewma => "ewma",
    }
}

/// The error answer an L7 hop gives the client when its upstream failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// 502 Bad Gateway: the upstream refused, reset or closed.
    BadGateway,
    /// 503 Service Unavailable: no upstream to send to (Envoy: any
    /// upstream failure).
    Unavailable,
    /// 504 Gateway Timeout: the connect to the upstream timed out.
    GatewayTimeout,
}

impl Status {
    /// Every status, in the order the figures list them.
    pub const ALL: [Status; 3] = [Status::BadGateway, Status::Unavailable, Status::GatewayTimeout];

    /// The HTTP code.
    pub fn code(self) -> u16 {
        match self {
            Status::BadGateway => 502,
            Status::Unavailable => 503,
            Status::GatewayTimeout => 504,
        }
    }
}

/// The `[hop]` keys as the scenario wrote them: the preset, and each field
/// it overrides (`None`: the preset's).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct HopSpec {
    /// `preset`: the hop whose defaults the rest override.
    pub preset: HopPreset,
    /// `propagation`: endpoint change → the hop's view shows it.
    pub propagation: Option<Propagation>,
    /// `balance`: `Hop::balance`.
    pub balance: Option<Balance>,
    /// `tries`: tries of one request at the hop, the first included.
    pub tries: Option<u32>,
    /// `connect_timeout`: the hop's connect to a vanished Pod IP gives up after this.
    pub connect_timeout: Option<SimDuration>,
    /// `health_interval`: time between two health checks of a target; 0: none.
    pub health_interval: Option<SimDuration>,
    /// `unhealthy_threshold`: failed checks in a row that take a target out.
    pub unhealthy_threshold: Option<u32>,
    /// `deregistration_delay`: a target out of rotation drains this long.
    pub deregistration_delay: Option<SimDuration>,
    /// `connection_termination`: the hop resets a drained target's
    /// connections when its deregistration delay is over.
    pub connection_termination: Option<bool>,
    /// `consecutive_5xx`: failed tries in a row that eject an upstream
    /// (outlier detection); 0: none.
    pub consecutive_5xx: Option<u32>,
    /// `base_ejection_time`: an upstream's first ejection lasts this long.
    pub base_ejection_time: Option<SimDuration>,
}

/// Envoy's outlier detection, its consecutive-5xx kind: an upstream whose
/// tries fail `consecutive` times in a row is ejected (no new request)
/// for `base_ejection` times its ejections so far, and comes back at the
/// first sweep, every `interval`, after that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outlier {
    /// Failed tries in a row (5xx answers, or failures of Envoy's own, such
    /// as a refused connect, mapped to 5xx) that eject.
    pub consecutive: u32,
    /// Time between two sweeps, which bring the ejected back.
    pub interval: SimDuration,
    /// The first ejection's length.
    pub base_ejection: SimDuration,
    /// At most this percent of the upstreams ejected, though always one.
    pub max_percent: u32,
}

/// A load balancer's active health check of its targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Health {
    /// Time between two checks of a target.
    pub interval: SimDuration,
    /// Failed checks in a row that take a target out of rotation; one
    /// passing check brings it back.
    pub unhealthy: u32,
}

/// A hop, every field resolved: what the model runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Hop {
    /// The preset it was resolved from: its answers' codes follow it.
    pub preset: HopPreset,
    /// Endpoint change → the hop's view shows it.
    pub propagation: Dist,
    /// How it picks the Pod of a new upstream connection.
    pub balance: Balance,
    /// The hop's own retries of a failed try (`connect`, and `reset` for
    /// what failed after the request was sent, idempotent requests only).
    pub retries: Retries,
    /// It answers the client itself (L7): an error answer past its retries.
    pub answers: bool,
    /// Its upstream connections, where the scenario's `[traffic]` keys
    /// leave them unwritten (an L7 hop's own pool).
    pub pool: u32,
    /// An idle upstream connection is closed by the hop after this.
    pub idle_timeout: Option<SimDuration>,
    /// Its connect to a vanished Pod IP gives up after this.
    pub connect_timeout: SimDuration,
    /// Its health check of the Pods, if it has one.
    pub health: Option<Health>,
    /// A target out of rotation (dropped from the view, or failing its
    /// health check) gets no new connection; its open ones are kept this
    /// long (AWS's deregistration delay, GCP's connection draining).
    pub deregistration_delay: SimDuration,
    /// At the delay's end the hop resets the target's connections still
    /// open; otherwise they stay until one side closes them.
    pub terminates: bool,
    /// Its outlier detection, if it has one.
    pub outlier: Option<Outlier>,
}

const fn ms(ms: u64) -> SimDuration {
    SimDuration::from_millis(ms)
}

impl HopSpec {
    /// The hop this spec runs: its preset, each field the scenario wrote instead.
    pub fn resolve(&self) -> Hop {
        let none = SimDuration::ZERO;
        let lognormal = |median, p99| Dist::LogNormal {
            median: ms(median),
            p99: ms(p99),
        };
        let retries = |tries: u32, reset: bool, backoff| Retries {
            connect: tries - 1,
            reset: if reset { tries - 1 } else { 0 },
            backoff,
            ..Retries::default()
        };
        let mut hop = match self.preset {
            // Propagation: the controller syncs at most `--sync-rate-limit`
            // 0.3 times a second (cmd/nginx/flags.go), POSTs the backends
            // to Lua, whose workers pick them up every
            // BACKENDS_SYNC_INTERVAL = 1 s (rootfs/etc/nginx/lua/balancer.lua):
            // up to ~4.3 s after the watch (inferred: median 2 s, p99 5 s).
            // ConfigMap defaults (docs/user-guide/nginx-configuration/configmap.md):
            // load-balance "round_robin", proxy-next-upstream "error
            // timeout", proxy-next-upstream-tries 3, proxy-connect-timeout
            // 5 s, upstream-keepalive-connections 320,
            // upstream-keepalive-timeout 60 s. nginx passes a request that
            // was sent upstream to the next server only if its method is
            // idempotent (ngx_http_proxy_module, proxy_next_upstream
            // `non_idempotent`); a failed connect always.
            HopPreset::IngressNginx => Hop {
                preset: self.preset,
                propagation: lognormal(2000, 5000),
                balance: Balance::RoundRobin,
                retries: retries(3, true, none),
                answers: true,
                pool: 320,
                idle_timeout: Some(SimDuration::from_secs(60)),
                connect_timeout: SimDuration::from_secs(5),
                // Its Lua balancer keeps no active health check; a
                // removed upstream's keep-alive connections are no longer
                // picked but never cut.
                health: None,
                deregistration_delay: none,
                terminates: false,
                outlier: None,
            },
            // istiod debounces pushes (PILOT_DEBOUNCE_AFTER 100 ms, up to
            // PILOT_DEBOUNCE_MAX 10 s) before EDS reaches the sidecars
            // (inferred: median 0.5 s, p99 3 s). Istio's default load
            // balancer is LEAST_REQUEST; its retry policy is client.rs's
            // `envoy` profile (2 retries on connect-failure, refused-stream,
            // unavailable, cancelled, retriable-status-codes; 25 ms back-off;
            // no `reset`); outlier detection off without a DestinationRule;
            // Envoy answers an upstream failure with 503 (UF, UR).
            HopPreset::Envoy => Hop {
                preset: self.preset,
                propagation: lognormal(500, 3000),
                balance: Balance::LeastRequest,
                retries: retries(3, false, ms(25)),
                answers: true,
                pool: u32::MAX,
                idle_timeout: Some(SimDuration::from_secs(3600)),
                connect_timeout: SimDuration::from_secs(10),
                // Outlier detection is off without a DestinationRule.
                health: None,
                // A host removed by EDS is drained: no new request, the
                // ones under way finish.
                deregistration_delay: none,
                terminates: false,
                outlier: None,
            },
            // The NEG controller's endpoint update and the load balancer's
            // programming: 32 s (propagation's `gcp-lb` preset, the
            // openshift/origin upgrade test); no retry of its own modelled.
            // Health check: the Compute Engine API's defaults,
            // checkIntervalSec 5, unhealthyThreshold 2 (healthChecks
            // resource; a BackendConfig or the readiness probe may say
            // otherwise).
            HopPreset::GcpLb => Hop {
                preset: self.preset,
                propagation: Dist::Fixed(ms(32_000)),
                balance: Balance::RoundRobin,
                retries: retries(1, false, none),
                answers: true,
                pool: u32::MAX,
                idle_timeout: Some(SimDuration::from_secs(600)),
                connect_timeout: SimDuration::from_secs(5),
                health: Some(Health {
                    interval: SimDuration::from_secs(5),
                    unhealthy: 2,
                }),
                // The backend service's connection draining
                // (`connectionDraining.drainingTimeoutSec`): "after the
                // timeout duration is reached, all remaining TCP
                // connections ... are closed", and 0 disables draining
                // (Load Balancing's "Enable connection draining"). Its
                // default for a GKE Ingress's NEG backends is not
                // confirmed here: 0, as a BackendConfig that writes no
                // `connectionDraining` leaves it (inferred).
                deregistration_delay: none,
                terminates: true,
                outlier: None,
            },
            // Deregistration reaching the NLB's data plane: about 120 s
            // (aws-load-balancer-controller#2366); L4, so no answer and no
            // retry of its own; targets picked by flow hash (random).
            // Health check: aws-load-balancer-controller's service
            // annotations' defaults, healthcheck-interval 10 s,
            // healthcheck-unhealthy-threshold 3 (docs/guide/service/annotations.md).
            HopPreset::NlbIp => Hop {
                preset: self.preset,
                propagation: Dist::Fixed(ms(120_000)),
                balance: Balance::Random,
                retries: retries(1, false, none),
                answers: false,
                pool: 0,
                idle_timeout: None,
                connect_timeout: SimDuration::from_secs(30),
                health: Some(Health {
                    interval: SimDuration::from_secs(10),
                    unhealthy: 3,
                }),
                // Target group attributes (Elastic Load Balancing API,
                // ModifyTargetGroupAttributes):
                // `deregistration_delay.timeout_seconds` 300;
                // `deregistration_delay.connection_termination.enabled`
                // false for TCP target groups, so a deregistered target's
                // flows go on until one side closes them.
                deregistration_delay: SimDuration::from_secs(300),
                terminates: false,
                outlier: None,
            },
        };
        if let Some(p) = &self.propagation {
            hop.propagation = p.dist();
        }
        if let Some(b) = self.balance {
            hop.balance = b;
        }
        if let Some(t) = self.tries {
            let reset = hop.retries.reset > 0;
            hop.retries = retries(t.max(1), reset, hop.retries.backoff);
        }
        if let Some(c) = self.connect_timeout {
            hop.connect_timeout = c;
        }
        if let Some(d) = self.deregistration_delay {
            hop.deregistration_delay = d;
        }
        if let Some(t) = self.connection_termination {
            hop.terminates = t;
        }
        // Envoy's OutlierDetection defaults (config.cluster.v3): consecutive_5xx
        // 5, interval 10 s, base_ejection_time 30 s, max_ejection_percent 10
        // ("but will eject at least one host regardless"); Istio configures
        // none without a DestinationRule's `outlierDetection`.
        let consecutive = self.consecutive_5xx.unwrap_or(0);
        hop.outlier = (consecutive > 0).then(|| Outlier {
            consecutive,
            interval: SimDuration::from_secs(10),
            base_ejection: self.base_ejection_time.unwrap_or(SimDuration::from_secs(30)),
            max_percent: 10,
        });
        let (interval, unhealthy) = match hop.health {
            Some(h) => (h.interval, h.unhealthy),
            None => (SimDuration::ZERO, 2),
        };
        let interval = self.health_interval.unwrap_or(interval);
        let unhealthy = self.unhealthy_threshold.unwrap_or(unhealthy).max(1);
        hop.health = (interval > SimDuration::ZERO).then_some(Health { interval, unhealthy });
        hop
    }
}

impl Hop {
    /// The answer the client gets when the hop's last try failed with `cause`.
    pub fn status(&self, cause: Cause) -> Status {
        match (self.preset, cause) {
            (HopPreset::Envoy, _) | (_, Cause::NoEndpoints) => Status::Unavailable,
            (_, Cause::Timeout) => Status::GatewayTimeout,
            _ => Status::BadGateway,
        }
    }

    /// The client's `profile` with the hop's upstream connections where
    /// `[traffic]` did not write them: an L7 hop's own pool talks to the
    /// Pods, and sees an idle upstream close unless it races a request.
    pub fn upstream(&self, t: &TrafficSpec, profile: Profile) -> Profile {
        if !self.answers {
            return profile;
        }
        let c = &t.client;
        Profile {
            connections: t.connections.unwrap_or(Connections::KeepAlive),
            pool: t.pool.unwrap_or(self.pool),
            idle_timeout: c
                .idle_timeout
                .map_or(self.idle_timeout, |d| (d > SimDuration::ZERO).then_some(d)),
            connect_timeout: t.connect_timeout.unwrap_or(self.connect_timeout),
            on_closed: c.on_closed.unwrap_or(OnClosed::Raced),
            ..profile
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_key_overrides_the_preset_and_a_zero_interval_drops_the_check() {
        let mut spec = HopSpec {
            preset: HopPreset::NlbIp,
            ..HopSpec::default()
        };
        let hop = spec.resolve();
        // aws-load-balancer-controller's defaults: every 10 s, out after 3; L4, no retry.
        let health = Health {
            interval: SimDuration::from_secs(10),
            unhealthy: 3,
        };
        assert_eq!(
            (hop.health, hop.answers, hop.retries.connect),
            (Some(health), false, 0)
        );
        spec.health_interval = Some(SimDuration::ZERO);
        spec.tries = Some(2);
        let hop = spec.resolve();
        assert_eq!((hop.health, hop.retries.connect), (None, 1));
    }

    #[test]
    fn nginx_passes_a_sent_request_on_and_envoy_only_a_failed_connect() {
        let nginx = HopSpec::default().resolve();
        assert_eq!((nginx.retries.connect, nginx.retries.reset), (2, 2));
        let envoy = HopSpec {
            preset: HopPreset::Envoy,
            ..HopSpec::default()
        }
        .resolve();
        assert_eq!(
            (envoy.retries.connect, envoy.retries.reset, envoy.balance),
            (2, 0, Balance::LeastRequest)
        );
        // Envoy answers every upstream failure 503; nginx by the failure.
        assert_eq!(envoy.status(Cause::Refused), Status::Unavailable);
        assert_eq!(
            [Cause::Refused, Cause::NoEndpoints, Cause::Timeout].map(|c| nginx.status(c)),
            [Status::BadGateway, Status::Unavailable, Status::GatewayTimeout]
        );
    }
}

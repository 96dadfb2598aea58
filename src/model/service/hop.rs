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
//! Invariant: without a hop nothing here runs and no draw is made, so a
//! scenario without `[hop]` keeps every byte it had.

use super::client::{OnClosed, Profile, Retries};
use super::endpoints::Slice;
use super::history::{ServiceChange, ServiceObserver};
use super::outcome::Cause;
use super::proxy::Proxy;
use super::spec::{Connections, Propagation, TrafficSpec};
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::dist::Dist;
use crate::model::draw::DrawKey;

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
}

impl Balance {
    crate::model::words::words! {
        /// The spellings.
        Random => "random",
        RoundRobin => "round-robin",
        LeastRequest => "least-request",
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
    /// `kind`: the hop whose defaults the rest override.
    pub preset: HopPreset,
    /// `propagation`: endpoint change → the hop's view shows it.
    pub propagation: Option<Propagation>,
    /// `balance`: `Hop::balance`.
    pub balance: Option<Balance>,
    /// `tries`: tries of one request at the hop, the first included.
    pub tries: Option<u32>,
    /// `connect_timeout`: the hop's connect to a vanished Pod IP gives up after this.
    pub connect_timeout: Option<SimDuration>,
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
            },
            // The NEG controller's endpoint update and the load balancer's
            // programming: 32 s (propagation's `gcp-lb` preset, the
            // openshift/origin upgrade test); no retry of its own modelled.
            HopPreset::GcpLb => Hop {
                preset: self.preset,
                propagation: Dist::Fixed(ms(32_000)),
                balance: Balance::RoundRobin,
                retries: retries(1, false, none),
                answers: true,
                pool: u32::MAX,
                idle_timeout: Some(SimDuration::from_secs(600)),
                connect_timeout: SimDuration::from_secs(5),
            },
            // Deregistration reaching the NLB's data plane: about 120 s
            // (aws-load-balancer-controller#2366); L4, so no answer and no
            // retry of its own; targets picked by flow hash (random).
            HopPreset::NlbIp => Hop {
                preset: self.preset,
                propagation: Dist::Fixed(ms(120_000)),
                balance: Balance::Random,
                retries: retries(1, false, none),
                answers: false,
                pool: 0,
                idle_timeout: None,
                connect_timeout: SimDuration::from_secs(30),
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

/// The hop in a run: what it is, and its view of the endpoints.
#[derive(Clone, Debug)]
pub(super) struct HopState {
    pub hop: Hop,
    /// Its endpoint view: a runner with no period, so each version is
    /// installed as soon as the hop hears of it.
    pub view: Proxy,
    /// The round robin's next turn.
    turn: u32,
}

impl HopState {
    pub fn new(hop: Hop) -> Self {
        let mut view = Proxy::default();
        view.reset(SimDuration::ZERO);
        HopState { hop, view, turn: 0 }
    }
}

/// What the hop made of a failed try.
pub(super) enum HopVerdict {
    /// It sends the request to the next upstream.
    Retried,
    /// It answers the client with this error.
    Answered(Status),
    /// There is no hop, or it is L4: the client sees the failure itself.
    Passed,
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// The slice published `version` now: the hop hears of it after its
    /// own propagation delay, never before an earlier one.
    pub(super) fn hop_publish(&mut self, version: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(h) = &mut self.hop else {
            return;
        };
        let dist = &h.hop.propagation;
        let delay = match dist.fixed() {
            Some(d) => d,
            None => dist.sample(self.stream.uniform(0, DrawKey::HopPropagation, version)),
        };
        if let Some(at) = h.view.hear_at(now + delay, version) {
            s.at(at, ServiceEvent::HopHeard { version });
        }
    }

    /// The hop heard of `version`: its view installs it at once, each
    /// replica it gains or loses reported.
    pub(super) fn hop_heard(&mut self, version: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(h) = &mut self.hop else {
            return;
        };
        h.view.heard(version);
        let observers = &mut self.observers;
        let changes = self.slice.changes(h.view.applied, h.view.heard);
        h.view.sync(changes, |replica, added| {
            let change = match added {
                true => ServiceChange::HopRuleAdded { replica },
                false => ServiceChange::HopRuleDropped { replica },
            };
            observers.emit(now, change);
        });
        self.maybe_start(now, s);
        self.maybe_settle(now);
    }

    /// The replica a new connection of `request` (its `tries`-th try)
    /// goes to: the hop's pick from its view, or, without a hop, a draw
    /// over `node`'s rules. `None`: nothing to send to.
    #[inline]
    pub(super) fn pick(&mut self, node: u32, index: u32, tries: u32) -> Option<u32> {
        let u = |s: &Self| s.stream.uniform(u64::from(index), DrawKey::Endpoint, tries);
        let Some(h) = &self.hop else {
            let rules = &self.proxies[node as usize].rules;
            if rules.is_empty() {
                return None;
            }
            return Some(rules[((u(self) * rules.len() as f64) as usize).min(rules.len() - 1)]);
        };
        let rules = &h.view.rules;
        if rules.is_empty() {
            return None;
        }
        let n = rules.len();
        let at = |u: f64| ((u * n as f64) as usize).min(n - 1);
        let pick = match h.hop.balance {
            Balance::Random => rules[at(u(self))],
            Balance::RoundRobin => rules[h.turn as usize % n],
            Balance::LeastRequest => {
                let (a, b) = (
                    rules[at(u(self))],
                    rules[at(self.stream.uniform(u64::from(index), DrawKey::HopPick, tries))],
                );
                if self.busy(b) < self.busy(a) { b } else { a }
            }
        };
        if let Some(h) = &mut self.hop {
            h.turn = h.turn.wrapping_add(1);
        }
        Some(pick)
    }

    /// Requests in progress on replica `r`'s connections.
    fn busy(&self, r: u32) -> usize {
        let open = &self.replicas[r as usize].open;
        open.iter()
            .filter(|&&c| matches!(self.conns.get(c).state, super::connection::ConnState::Busy(_)))
            .count()
    }

    /// The hop's part in a failed try of `slot` (`tries`-th at the hop
    /// since the client's last send): sent to the next upstream if its
    /// retries allow, else answered with an error if it answers.
    pub(super) fn hop_failed(
        &mut self,
        slot: u32,
        cause: Cause,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) -> HopVerdict {
        let Some(h) = &self.hop else {
            return HopVerdict::Passed;
        };
        if !h.hop.answers {
            return HopVerdict::Passed;
        }
        let request = self.requests.all[slot as usize];
        let retries = &h.hop.retries;
        let allowed = match cause {
            // No upstream to pass it to.
            Cause::NoEndpoints => 0,
            // Nothing reached the app: any request goes to the next one.
            Cause::Refused | Cause::Timeout => retries.connect,
            // Sent upstream: passed on only if its method is idempotent.
            _ if self.profile.idempotent => retries.reset,
            _ => 0,
        };
        if request.hop_try <= allowed {
            let wait = h.hop.retries.wait(request.hop_try);
            let r = &mut self.requests.all[slot as usize];
            r.tries += 1;
            r.hop_try += 1;
            r.conn = super::traffic::NO_CONN;
            let generation = r.generation;
            self.emit(
                now,
                ServiceChange::HopRetried {
                    request: request.index,
                    cause,
                },
            );
            if wait == SimDuration::ZERO {
                self.resend(slot, now, s);
            } else {
                let request = slot;
                s.after(wait, ServiceEvent::Resend { request, generation });
            }
            return HopVerdict::Retried;
        }
        let status = h.hop.status(cause);
        self.emit(
            now,
            ServiceChange::HopAnswered {
                request: request.index,
                status,
            },
        );
        HopVerdict::Answered(status)
    }

    /// The hop's view holds every replica (or there is no hop).
    pub(super) fn hop_complete(&self, all: usize) -> bool {
        self.hop.as_ref().is_none_or(|h| h.view.rules.len() >= all)
    }

    /// The hop's view shows the slice's newest version (or there is no hop).
    pub(super) fn hop_in_sync(&self, slice: &Slice) -> bool {
        self.hop
            .as_ref()
            .is_none_or(|h| h.view.applied == slice.version())
    }
}

//! The counting model's keep-alive client (issue 41): where a client's
//! requests ride one pooled connection between pool events, they are
//! counted per span like new connections are.
//!
//! No client library picks among its idle connections at random (Go's
//! Transport and urllib3 reuse the most recently idle one, OkHttp the
//! first in its pool's list), so while several connections are open the
//! requests each one carries are not a thinning of the stream: which one
//! a request takes, and whether it dials, depends on the order of every
//! earlier answer. With one client and a service time of 0 there is never
//! more than one: each answer comes in the instant its request was sent,
//! before the next one leaves, and the connection is back in the pool.
//! So between two events every request of the span takes that one
//! connection (one Poisson count, answered on its replica), and it
//! changes only at a pool event: its server closes it (`close_listener`,
//! `path_died` close the real `Conn` the client holds here, as they would
//! per request). The first request after the close then fails on it
//! (`fails-next`) or dials (`detected`); a dial picks one of the node's
//! rules uniformly, and a refused or timed-out one leaves the next request
//! to dial again: a run of independent picks until one is accepted (at
//! most a few, one by one), or, with no rule accepting, the new-connection
//! count of the rest of the span.
//!
//! Invariant: every draw here is keyed `DrawKey::Pool` by the run's own
//! count of them, made in the order of the run's events; the client holds
//! at most one connection, the top of its pool, idle or closed.

use super::{NONE, Piece};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;
use crate::model::service::client::{OnClosed, Profile};
use crate::model::service::connection::ConnState;
use crate::model::service::history::{Fate, ServiceChange, ServiceObserver};
use crate::model::service::outcome::Cause;
use crate::model::service::poisson::Draw;
use crate::model::service::spec::TrafficSpec;
use crate::model::service::{ServiceEvent, ServiceModel, ServiceRun};

/// The per-request model's gaps never exceed 37.4 mean gaps (−ln of its
/// largest uniform, 1 − 2⁻⁵⁴); past 50 a real Poisson stream's chance of
/// one is e⁻⁵⁰ ≈ 2·10⁻²², so a client idle timeout that long is never met.
const IDLE_UNREACHED: f64 = 50.0;

/// What keeps the counting model from counting a keep-alive client `p`
/// with traffic `t`, if anything.
pub(in crate::model::service) fn keep_alive_blocker(t: &TrafficSpec, p: &Profile) -> Option<&'static str> {
    if t.clients.max(1) > 1 {
        return Some(
            "several keep-alive clients (each one's pool is a Poisson stream of its own, but only one client's is counted yet)",
        );
    }
    if t.service_time.fixed() != Some(SimDuration::ZERO) {
        return Some(
            "keep-alive connections with a service time (requests overlap on several pooled \
             connections, and which one each takes depends on every answer's order)",
        );
    }
    if p.pool == 0 {
        return Some("a keep-alive pool of no idle connection (each connection closes after its request)");
    }
    if p.on_closed == OnClosed::Raced {
        return Some("the keep-alive race (a request fails only in its close's own millisecond)");
    }
    let per_ms = t.rate.get() / 1000.0;
    if p.idle_timeout
        .is_some_and(|d| d.as_millis() as f64 * per_ms < IDLE_UNREACHED)
    {
        return Some("a client idle timeout within reach of the gaps between requests");
    }
    None
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    fn pool_draw(&mut self) -> Draw {
        self.counting.pool_draws += 1;
        Draw::keyed(self.stream, self.counting.pool_draws, DrawKey::Pool)
    }

    /// The client's requests a ms.
    fn client_rate(&self) -> f64 {
        self.service
            .traffic
            .as_ref()
            .map_or(0.0, |t| t.rate.get() / 1000.0)
    }

    /// The keep-alive client's requests over `a..b` ms, a span of constant
    /// routing state: on its pooled connection, or dialled.
    pub(super) fn count_pooled(&mut self, a: f64, b: f64, s: Option<&mut Scheduler<'_, ServiceEvent>>) {
        let Some(&c) = self.clients[0].pool.last() else {
            return self.dial(a, false, b, s);
        };
        let conn = *self.conns.get(c);
        let ConnState::Closed { reset, .. } = conn.state else {
            return self.ride(c, a, b);
        };
        // Its server closed it: the first request finds out.
        let x = a + self.pool_draw().exp1() / self.client_rate();
        if x >= b {
            return;
        }
        self.clients[0].pool.pop();
        self.conns.unpool(c);
        if self.profile.on_closed == OnClosed::FailsNext {
            let cause = if reset { Cause::Reset } else { Cause::KeepaliveRace };
            let at = SimTime(x.round() as u64);
            self.count(at, at, at, 1, conn.replica, Fate::Failed(cause));
            return self.dial(x, false, b, s);
        }
        self.dial(x, true, b, s)
    }

    /// The client has no connection after `x` (one request at `x` still to
    /// send if `pending`): each request dials until one is accepted.
    fn dial(
        &mut self,
        mut x: f64,
        mut pending: bool,
        b: f64,
        mut s: Option<&mut Scheduler<'_, ServiceEvent>>,
    ) {
        let node = self.clients[0].node as usize;
        let rules = &self.proxies[node].rules;
        let accepts = |r: &u32| {
            let rep = &self.replicas[*r as usize];
            !rep.object_gone && rep.accepting()
        };
        let accepting = rules.iter().any(accepts);
        loop {
            if !pending {
                x += self.pool_draw().exp1() / self.client_rate();
                if x >= b {
                    return;
                }
            }
            if !accepting {
                if pending {
                    self.dial_one(x, s.as_deref_mut());
                }
                return self.count_new(x, b, s);
            }
            pending = false;
            if let Some(c) = self.dial_one(x, s.as_deref_mut()) {
                return self.ride(c, x, b);
            }
        }
    }

    /// The request sent at `x` picks one of the client's node's rules
    /// uniformly and dials it: the connection, if accepted.
    fn dial_one(&mut self, x: f64, s: Option<&mut Scheduler<'_, ServiceEvent>>) -> Option<u32> {
        let node = self.clients[0].node;
        let at = SimTime(x.round() as u64);
        if self.proxies[node as usize].rules.is_empty() {
            self.count(at, at, at, 1, NONE, Fate::Failed(Cause::NoEndpoints));
            return None;
        }
        let u = self.pool_draw().uniform();
        let rules = &self.proxies[node as usize].rules;
        let replica = rules[((u * rules.len() as f64) as usize).min(rules.len() - 1)];
        let rep = &self.replicas[replica as usize];
        let (gone, accepting, deleted) = (rep.object_gone, rep.accepting(), rep.ending());
        if deleted {
            let routed = ServiceChange::Routed {
                request: NONE,
                tries: 1,
                node,
                replica,
                fresh: true,
            };
            self.emit(at, routed);
        }
        let point = |timeout| Piece {
            replica,
            timeout,
            point: true,
            from: x,
            to: x,
            rate: 0.0,
        };
        if gone {
            // A SYN to a vanished IP: it fails a connect timeout later.
            self.counting.pieces.push(point(true));
            if let Some(s) = s {
                let due = at + self.profile.connect_timeout;
                s.at(due.max(s.now()), ServiceEvent::Counting);
            }
            return None;
        }
        if !accepting {
            self.count(at, at, at, 1, replica, Fate::Failed(Cause::Refused));
            return None;
        }
        let rep = &mut self.replicas[replica as usize];
        let c = self.conns.open(0, replica, &mut rep.open);
        let conn = self.conns.get_mut(c);
        (conn.pooled, conn.idle_since) = (true, at);
        self.clients[0].pool.push(c);
        let opened = ServiceChange::ConnectionOpened {
            conn: c,
            client: 0,
            replica,
        };
        self.emit(at, opened);
        self.counting.pieces.push(point(false));
        Some(c)
    }

    /// The requests sent after `x` and before `b` ride open connection `c`:
    /// answered on its replica unless it dies first. The last of them is
    /// drawn first, as for a new connection's span (`count_new`).
    fn ride(&mut self, c: u32, x: f64, b: f64) {
        let (replica, rate) = (self.conns.get(c).replica, self.client_rate());
        let gap = self.pool_draw().exp1() / rate;
        if gap >= b - x {
            return;
        }
        let last = b - gap;
        if self.replicas[replica as usize].ending() {
            let routed = ServiceChange::Routed {
                request: NONE,
                tries: 1,
                node: self.clients[0].node,
                replica,
                fresh: false,
            };
            self.emit(SimTime(last.round() as u64), routed);
        }
        let piece = |point, from, to| Piece {
            replica,
            timeout: false,
            point,
            from,
            to,
            rate,
        };
        self.counting.pieces.push(piece(false, x, last));
        self.counting.pieces.push(piece(true, last, last));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::service::{ClientPreset, Rate};

    /// One client of `preset` at `rate` requests a second, answered after `service_ms`.
    fn traffic(preset: ClientPreset, rate: f64, service_ms: u64) -> TrafficSpec {
        let mut t = TrafficSpec {
            rate: Rate::new(rate).unwrap(),
            clients: 1,
            service_time: SimDuration::from_millis(service_ms).into(),
            ..TrafficSpec::default()
        };
        t.client.preset = preset;
        t
    }

    fn blocker(t: &TrafficSpec) -> Option<&'static str> {
        keep_alive_blocker(t, &t.profile())
    }

    #[test]
    fn one_connection_at_a_time_is_counted_and_overlapping_ones_are_not() {
        let mut t = traffic(ClientPreset::PythonRequests, 1e5, 0);
        assert_eq!(blocker(&t), None);
        t.client.preset = ClientPreset::PythonHttpClient;
        assert_eq!(blocker(&t), None);
        let served = traffic(ClientPreset::PythonRequests, 1e5, 20);
        assert!(blocker(&served).is_some_and(|b| b.contains("service time")));
        t.clients = 2;
        assert!(blocker(&t).is_some_and(|b| b.contains("several")));
        t.clients = 1;
        t.pool = Some(0);
        assert!(blocker(&t).is_some_and(|b| b.contains("pool")));
        // The ideal client keep-alive: the close races a request.
        let mut ideal = traffic(ClientPreset::Ideal, 1e5, 0);
        ideal.connections = Some(super::super::Connections::KeepAlive);
        assert!(blocker(&ideal).is_some_and(|b| b.contains("race")));
    }

    #[test]
    fn an_idle_timeout_is_out_of_reach_from_fifty_mean_gaps() {
        // undici closes a connection idle 4 s: 50 mean gaps at 12.5 requests
        // a second (80 ms each), 48 at 12.
        assert_eq!(blocker(&traffic(ClientPreset::NodeUndici, 12.5, 0)), None);
        let near = traffic(ClientPreset::NodeUndici, 12.0, 0);
        assert!(blocker(&near).is_some_and(|b| b.contains("idle timeout")));
    }
}

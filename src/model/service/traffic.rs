//! Requests: the arrival process, the route each takes (a kept-alive
//! connection, or a new one through the client's node's rules, A.3), its
//! answer or its failure, and the retries its client's profile allows
//! (`client`: which failures, how many times, after what back-off).
//!
//! Invariant: every draw of a request is keyed by its index and its try
//! (`DrawKey::ArrivalGap`, which gives its client too, `Endpoint`,
//! `ServiceTime`), never by the order in which things happened to be
//! drawn, so a run is the same on any thread.

use super::client::OnClosed;
use super::connection::ConnState;
use super::history::{ServiceChange, ServiceObserver};
use super::outcome::Cause;
use super::router::HopVerdict;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;
use crate::model::service::spec::{Arrival, Connections, TrafficSpec};

/// No connection yet.
pub(super) const NO_CONN: u32 = u32::MAX;

/// A request in progress.
#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    pub client: u32,
    /// Its number in the run: the counter of its draws.
    pub index: u32,
    pub sent: SimTime,
    /// When its current try went out (`sent`, or its last retry).
    pub try_sent: SimTime,
    /// 1, then 2, 3, … for each retry (the client's or the hop's).
    pub tries: u32,
    /// The client's send of it: 1, then 2, 3, … for each of its retries.
    pub attempt: u32,
    /// Its try at the hop since the client's last send: 1, 2, … for
    /// each of the hop's own retries.
    pub hop_try: u32,
    pub conn: u32,
    /// Its current try went out on a pooled connection (else a fresh one).
    pub pooled: bool,
    /// Where it was routed, once it was.
    pub replica: Option<u32>,
    /// Bumped when the slot is freed, so its pending events go stale.
    pub generation: u32,
}

/// Requests in progress, by slot, with the free slots to reuse.
#[derive(Clone, Debug, Default)]
pub(super) struct Requests {
    pub all: Vec<Request>,
    free: Vec<u32>,
}

impl Requests {
    pub fn clear(&mut self) {
        self.all.clear();
        self.free.clear();
    }

    #[inline]
    fn alloc(&mut self, client: u32, index: u32, sent: SimTime) -> u32 {
        let request = Request {
            client,
            index,
            sent,
            try_sent: sent,
            tries: 1,
            attempt: 1,
            hop_try: 1,
            conn: NO_CONN,
            pooled: false,
            replica: None,
            generation: 0,
        };
        match self.free.pop() {
            Some(slot) => {
                let generation = self.all[slot as usize].generation;
                self.all[slot as usize] = Request {
                    generation,
                    ..request
                };
                slot
            }
            None => {
                self.all.push(request);
                (self.all.len() - 1) as u32
            }
        }
    }

    #[inline]
    fn release(&mut self, slot: u32) {
        let r = &mut self.all[slot as usize];
        r.generation = r.generation.wrapping_add(1);
        self.free.push(slot);
    }
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    fn traffic(&self) -> &TrafficSpec {
        self.service
            .traffic
            .as_ref()
            .expect("requests only run with traffic")
    }

    /// The arrival process's next request, unless the traffic is over.
    pub(super) fn arrival(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        if self.traffic_end.is_some_and(|end| now >= end) {
            return;
        }
        let t = self.traffic();
        let (clients, rate, arrival) = (t.clients.max(1), t.rate.get(), t.arrival);
        let index = self.next_request;
        self.next_request += 1;
        let client = match arrival {
            Arrival::Constant => index % clients,
            Arrival::Poisson => self.next_client,
        };
        // A client on a machine that is off sends nothing.
        if !self.node_down.is_empty() && self.node_off(self.clients[client as usize].node) {
            return self.schedule_arrival(index + 1, rate, arrival, now, s);
        }
        self.emit(
            now,
            ServiceChange::RequestSent {
                request: index,
                client,
            },
        );
        let slot = self.requests.alloc(client, index, now);
        self.send(slot, now, true, s);
        self.schedule_arrival(index + 1, rate, arrival, now, s);
    }

    /// Schedules request `index`'s arrival, a gap after the previous one.
    /// Of a Poisson stream, its client is drawn here too, uniformly, from
    /// the next output of the gap's own hash chain: real clients send
    /// independently, and each one's requests are then a Poisson stream of
    /// `1/clients` the rate (thinning), so a node's are too and the
    /// counting model is exact with clients on several nodes. A constant
    /// stream takes them in turn, so a deterministic schedule stays
    /// deterministic.
    pub(super) fn schedule_arrival(
        &mut self,
        index: u32,
        rate: f64,
        arrival: Arrival,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let mean_ms = 1000.0 / rate;
        let gap = match arrival {
            Arrival::Constant => mean_ms,
            Arrival::Poisson => {
                let (clients, key) = (self.clients.len() as u32, DrawKey::ArrivalGap);
                let (u, client) = self.stream.uniform_and_index(u64::from(index), key, 1, clients);
                self.next_client = client;
                -mean_ms * (-u).ln_1p()
            }
        };
        self.next_arrival += gap;
        let at = SimTime::nearest(self.next_arrival);
        s.at(at.max(now), ServiceEvent::Arrival);
    }

    /// Sends request `slot`: on an idle kept-alive connection if `reuse`
    /// and there is one, else on a new one through the node's rules.
    fn send(&mut self, slot: u32, now: SimTime, reuse: bool, s: &mut Scheduler<'_, ServiceEvent>) {
        let p = &self.profile;
        let keep_alive = p.connections == Connections::KeepAlive;
        let (timeout, on_closed, idle_timeout) = (p.connect_timeout, p.on_closed, p.idle_timeout);
        let request = self.requests.all[slot as usize];
        let client = request.client as usize;
        let node = self.clients[client].node;
        let pooled = reuse && keep_alive;
        while let Some(c) = pooled.then(|| self.clients[client].pool.pop()).flatten() {
            self.conns.unpool(c);
            let conn = *self.conns.get(c);
            // The client closed it once idle that long: it is not sent on.
            // Found when the client next looks, rather than by an event at
            // the instant, which would hold a run open an idle timeout
            // (Envoy's: an hour) after its traffic; the Pod sees the close
            // late, which no app's drain waits for.
            if idle_timeout.is_some_and(|idle| now >= conn.idle_since + idle) {
                self.idle_expired(c, now, s);
                continue;
            }
            match conn.state {
                ConnState::Idle => {
                    let conn = self.conns.get_mut(c);
                    conn.generation = conn.generation.wrapping_add(1);
                    let replica = conn.replica;
                    self.routed(&request, node, replica, false, now);
                    return self.start(slot, c, true, s);
                }
                // Sent on it all the same: in the instant it closed (the
                // race), or at any time by a client that does not look.
                ConnState::Closed { at, reset }
                    if on_closed == OnClosed::FailsNext || (at == now && on_closed == OnClosed::Raced) =>
                {
                    let cause = if reset { Cause::Reset } else { Cause::KeepaliveRace };
                    let r = &mut self.requests.all[slot as usize];
                    (r.replica, r.pooled) = (Some(conn.replica), true);
                    return self.fail(slot, cause, now, s);
                }
                // The client saw the FIN (or RST) and drops it.
                _ => {}
            }
        }
        let Some(pick) = self.pick(node, &request, now) else {
            return self.fail(slot, Cause::NoEndpoints, now, s);
        };
        self.requests.all[slot as usize].replica = Some(pick);
        self.routed(&request, node, pick, true, now);
        let cut_off = self.cut_off(pick, node);
        let rep = &mut self.replicas[pick as usize];
        if rep.object_gone || cut_off {
            let generation = request.generation;
            s.after(
                timeout,
                ServiceEvent::ConnectGaveUp {
                    request: slot,
                    generation,
                },
            );
        } else if !rep.accepting() {
            self.fail(slot, Cause::Refused, now, s);
        } else {
            let c = self.conns.open(request.client, pick, &mut rep.open);
            let (conn, client, replica) = (c, request.client, pick);
            self.emit(
                now,
                ServiceChange::ConnectionOpened {
                    conn,
                    client,
                    replica,
                },
            );
            self.start(slot, c, false, s);
        }
    }

    /// Request `slot` goes out on connection `c`; its answer is due after
    /// the service time.
    fn start(&mut self, slot: u32, c: u32, pooled: bool, s: &mut Scheduler<'_, ServiceEvent>) {
        self.conns.get_mut(c).state = ConnState::Busy(slot);
        let replica = self.conns.get(c).replica;
        let request = &mut self.requests.all[slot as usize];
        request.conn = c;
        request.replica = Some(replica);
        request.pooled = pooled;
        let (index, tries, generation) = (request.index, request.tries, request.generation);
        let dist = &self.traffic().service_time;
        let took = match dist.fixed() {
            Some(d) => d,
            None => dist.sample(self.stream.uniform(u64::from(index), DrawKey::ServiceTime, tries)),
        };
        s.after(
            took,
            ServiceEvent::Answered {
                request: slot,
                generation,
            },
        );
    }

    /// A try of `request` went to `replica` through `node`'s rules
    /// on a new connection (`fresh`), or on a pooled one.
    fn routed(&mut self, request: &Request, node: u32, replica: u32, fresh: bool, now: SimTime) {
        let (request, tries) = (request.index, request.tries);
        self.emit(
            now,
            ServiceChange::Routed {
                request,
                tries,
                node,
                replica,
                fresh,
            },
        );
    }

    /// Request `slot` was answered; its connection goes back to the pool,
    /// is held, or closes.
    pub(super) fn answered(&mut self, slot: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let request = self.requests.all[slot as usize];
        if !self.node_down.is_empty() {
            let to = self.conns.get(request.conn).replica;
            if self.cut_off(to, self.clients[request.client as usize].node) {
                return self.answer_lost(slot, now, s);
            }
        }
        let (sent, try_sent, tries) = (request.sent, request.try_sent, request.tries);
        self.emit(
            now,
            ServiceChange::Answered {
                request: request.index,
                sent,
                try_sent,
                tries,
            },
        );
        self.requests.release(slot);
        let c = request.conn;
        let conn = *self.conns.get(c);
        self.hop_answered(conn.replica, now.since(request.try_sent), now);
        let r = conn.replica as usize;
        let p = &self.profile;
        let (keep_alive, pool) = (p.connections == Connections::KeepAlive, p.pool as usize);
        let rep = &mut self.replicas[r];
        let client = &mut self.clients[conn.client as usize];
        let room = self.conns.idle_in(&client.pool) < pool;
        if !keep_alive || rep.closing || !(room || rep.hostage) {
            self.conns.close(c, now, false, &mut rep.open);
            self.emit(
                now,
                ServiceChange::ConnectionClosed {
                    conn: c,
                    reset: false,
                },
            );
        } else {
            let conn = self.conns.get_mut(c);
            conn.state = ConnState::Idle;
            conn.pooled = true;
            conn.idle_since = now;
            client.pool.push(c);
            if rep.hostage {
                self.hold_idle(c, s);
            }
        }
        self.maybe_exit(r, now, s);
    }

    /// The connect attempt of request `slot` to a vanished Pod IP, or to
    /// a lost node's Pod, gave up.
    pub(super) fn connect_gave_up(&mut self, slot: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let request = self.requests.all[slot as usize];
        let node = self.clients[request.client as usize].node;
        let cause = match request.replica {
            Some(r) if self.cut_off(r, node) => Cause::Unreachable,
            _ => Cause::Timeout,
        };
        self.fail(slot, cause, now, s);
    }

    /// Request `slot`'s answer was due from a lost node's Pod, and none
    /// comes: its client gives up once its request timeout (else the
    /// kernel's retransmission limit) from the try's send is over.
    fn answer_lost(&mut self, slot: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let request = self.requests.all[slot as usize];
        let wait = self.profile.timeout.unwrap_or(super::TCP_RETRANSMIT_LIMIT);
        let at = (request.try_sent + wait).max(now);
        let generation = request.generation;
        s.at(
            at,
            ServiceEvent::NoAnswer {
                request: slot,
                generation,
            },
        );
    }

    /// Request `slot` on a connection to a lost node's Pod timed out: its
    /// client drops the connection, and the request fails.
    pub(super) fn no_answer(&mut self, slot: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let c = self.requests.all[slot as usize].conn;
        let r = self.conns.get(c).replica as usize;
        self.conns.close(c, now, true, &mut self.replicas[r].open);
        self.emit(now, ServiceChange::ConnectionClosed { conn: c, reset: true });
        self.fail(slot, Cause::Unreachable, now, s);
    }

    /// Idle connection `c` is closed cleanly: a hostage connection that
    /// sat idle for the keep-alive timeout, or one a client found past its
    /// idle timeout when it took it out of its pool.
    pub(super) fn idle_expired(&mut self, c: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let conn = *self.conns.get(c);
        if conn.state != ConnState::Idle {
            return;
        }
        let r = conn.replica as usize;
        self.conns.close(c, now, false, &mut self.replicas[r].open);
        self.emit(
            now,
            ServiceChange::ConnectionClosed {
                conn: c,
                reset: false,
            },
        );
        self.maybe_exit(r, now, s);
    }

    /// Request `slot` failed with `cause`: sent again if its client's
    /// retries allow (now, or after the back-off), else counted.
    pub(super) fn fail(
        &mut self,
        slot: u32,
        cause: Cause,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let verdict = self.hop_failed(slot, cause, now, s);
        let request = self.requests.all[slot as usize];
        let p = &self.profile;
        let allowed = match (verdict, cause) {
            (HopVerdict::Retried, _) => return,
            // The client got the hop's answer, not the failure.
            (HopVerdict::Answered(status), _) => p.retries.for_status(status),
            (_, Cause::Refused | Cause::NoEndpoints | Cause::Timeout) => p.retries.connect,
            // No connection was made: as a connect timeout.
            (_, Cause::Unreachable) if request.conn == NO_CONN => p.retries.connect,
            // On a fresh connection the server had no reason to hang up.
            _ if !request.pooled => 0,
            // Never reached the app: safe for any request.
            (_, Cause::Reset | Cause::KeepaliveRace) => p.retries.reset,
            // No answer: the app may have acted on it.
            (_, Cause::Inflight | Cause::Unreachable) if p.idempotent => p.retries.reset,
            (_, Cause::Inflight | Cause::Unreachable) => 0,
        };
        if request.attempt <= allowed {
            let wait = p.retries.wait(request.attempt);
            let r = &mut self.requests.all[slot as usize];
            r.tries += 1;
            r.attempt += 1;
            r.hop_try = 1;
            r.conn = NO_CONN;
            let (index, generation) = (request.index, r.generation);
            self.emit(
                now,
                ServiceChange::Retried {
                    request: index,
                    cause,
                },
            );
            if wait == SimDuration::ZERO {
                return self.resend(slot, now, s);
            }
            s.after(
                wait,
                ServiceEvent::Resend {
                    request: slot,
                    generation,
                },
            );
            return;
        }
        self.emit(
            now,
            ServiceChange::RequestFailed {
                request: request.index,
                sent: request.sent,
                cause,
                replica: request.replica,
                client: request.client,
            },
        );
        self.requests.release(slot);
    }

    /// Request `slot`'s next try goes out now, on a fresh connection.
    pub(super) fn resend(&mut self, slot: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let r = &mut self.requests.all[slot as usize];
        (r.try_sent, r.pooled) = (now, false);
        self.send(slot, now, false, s);
    }
}

/// The default tail: traffic runs this long after the last disruption has settled.
pub const SETTLE_TAIL: SimDuration = SimDuration::from_secs(10);

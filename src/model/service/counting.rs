//! The counting traffic model (issue 41): requests counted per span of
//! constant routing state instead of simulated one by one, so a run costs
//! the same at 10 and at 10⁹ requests a second.
//!
//! Between two events nothing a new connection meets changes: each node's
//! rules, each replica's listener, process and IP. With Poisson arrivals,
//! new connections and the `ideal` client without retries, the requests a
//! node sends in such a span to one endpoint form a Poisson process (the
//! node's share of the stream, thinned by the uniform endpoint pick), and
//! these processes are independent; so are the requests to one replica,
//! summed over the nodes. Their fate follows from the replica's state:
//! none listed (REJECT), refused, a timeout, or accepted. So one Poisson
//! draw per replica and span gives how many, exactly in distribution
//! (docs/traffic-models.md). A keep-alive client whose requests all ride
//! one pooled connection is counted too (`keepalive`).
//!
//! An accepted request's fate waits for its service time: answered, or cut
//! in flight if its replica dies first. Its span stays a `Piece` (a rate
//! over a stretch of time, not yet drawn) until its fate is known, and is
//! then drawn in two independent parts, before and after the cut: the
//! counts of a Poisson process on disjoint stretches are independent. The
//! last request of each span is drawn first (an exponential gap back from
//! its end), as a piece of its own: its instant is when the run's last
//! answer or timeout is due, when a draining app's last connection ends,
//! and a deleted replica's last request.
//!
//! Invariant: every draw is keyed by the run's count of draws
//! (`poisson::Draw`), made in the order of the run's own events, never of
//! a thread; a request is counted once, in one `ServiceChange::Counted`.

mod keepalive;

pub(super) use keepalive::keep_alive_blocker;

use super::history::{Fate, ServiceChange, ServiceObserver};
use super::outcome::Cause;
use super::poisson::Draw;
use super::spec::Connections;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};

/// No replica (`Counted::replica`), no request or node (a counted `Routed`).
const NONE: u32 = u32::MAX;

/// Requests of one replica not yet counted, over `from..to` ms at `rate`
/// a ms, or exactly one at `from` (`point`).
#[derive(Clone, Copy, Debug)]
struct Piece {
    replica: u32,
    /// Sent to a vanished IP: they time out. Else accepted: answered
    /// unless the replica dies first.
    timeout: bool,
    point: bool,
    from: f64,
    to: f64,
    rate: f64,
}

impl Piece {
    /// The instant of its last request, as the per-request model's whole
    /// milliseconds place it.
    fn last_ms(&self) -> u64 {
        self.to.round() as u64
    }
}

/// The counting model's state in a run.
#[derive(Clone, Debug, Default)]
pub(super) struct Counting {
    /// This run counts its requests (`ServiceSpec::counts`).
    pub on: bool,
    /// The open span's start, while the traffic runs.
    since: Option<SimTime>,
    /// The traffic's end has its event.
    end_due: bool,
    pieces: Vec<Piece>,
    /// Draws made: the next one's key.
    draws: u64,
    /// The keep-alive client's draws made (`keepalive`), on their own key.
    pool_draws: u64,
    /// Per replica, the rate (a ms) of the open span; scratch.
    rates: Vec<f64>,
}

impl Counting {
    /// Ready for a run, counting or not.
    pub fn reset(&mut self, on: bool) {
        *self = Counting {
            on,
            pieces: std::mem::take(&mut self.pieces),
            rates: std::mem::take(&mut self.rates),
            ..Counting::default()
        };
        self.pieces.clear();
    }

    /// The traffic starts now.
    pub fn start(&mut self, now: SimTime) {
        self.since = Some(now);
    }
}

fn ms(t: SimTime) -> f64 {
    t.as_millis() as f64
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    fn next_draw(&mut self) -> Draw {
        self.counting.draws += 1;
        Draw::new(self.stream, self.counting.draws)
    }

    /// The fixed service time and the connect timeout, in ms.
    fn waits(&self) -> (u64, u64) {
        let t = self.service.traffic.as_ref().expect("counting runs with traffic");
        let service = t.service_time.fixed().map_or(0, |d| d.as_millis());
        (service, self.profile.connect_timeout.as_millis())
    }

    fn count(&mut self, at: SimTime, from: SimTime, to: SimTime, n: u64, replica: u32, fate: Fate) {
        if n > 0 {
            let what = ServiceChange::Counted {
                from,
                to,
                n,
                replica,
                fate,
            };
            self.emit(at, what);
        }
    }

    /// Before an event at `now`: counts the span since the last one (the
    /// routing state held all through it), then what is due by now.
    #[inline(never)] // off the per-request model's event loop
    pub(super) fn count_until(&mut self, now: SimTime, mut s: Option<&mut Scheduler<'_, ServiceEvent>>) {
        if let Some(since) = self.counting.since {
            let end = self.traffic_end.map_or(now, |e| e.min(now));
            if end > since {
                self.count_span(since, end, s.as_deref_mut());
            }
            self.counting.since = Some(end);
            if self.traffic_end.is_some_and(|e| now >= e) {
                self.counting.since = None;
                self.first_after_end(end, now, s.as_deref_mut());
                self.last_answer_due(now, s);
            }
        }
        self.settle(now);
    }

    /// After an event: the traffic's end, once known, has its event.
    #[inline(never)] // off the per-request model's event loop
    pub(super) fn counting_after(&mut self, s: &mut Scheduler<'_, ServiceEvent>) {
        if let (false, Some(end)) = (self.counting.end_due, self.traffic_end) {
            self.counting.end_due = true;
            s.at(end.max(s.now()), ServiceEvent::Counting);
        }
    }

    /// The per-request model's last arrival event is the first past the
    /// traffic's end (it sends nothing): an exponential gap after it.
    fn first_after_end(&mut self, end: SimTime, now: SimTime, s: Option<&mut Scheduler<'_, ServiceEvent>>) {
        let (Some(s), Some(t)) = (s, self.service.traffic.as_ref()) else {
            return;
        };
        let per_ms = t.rate.get() / 1000.0;
        let gap = self.next_draw().exp1() / per_ms;
        let at = SimTime((ms(end) + gap).round() as u64).max(now);
        s.at(at, ServiceEvent::Counting);
    }

    /// The traffic is over: the run lasts until its last answer is due,
    /// as the per-request model's last `Answered` event holds it.
    fn last_answer_due(&mut self, now: SimTime, s: Option<&mut Scheduler<'_, ServiceEvent>>) {
        let (service, _) = self.waits();
        let last = (self.counting.pieces.iter())
            .filter(|p| !p.timeout)
            .map(|p| p.last_ms() + service)
            .max();
        if let (Some(last), Some(s)) = (last, s) {
            s.at(SimTime(last).max(now), ServiceEvent::Counting);
        }
    }

    /// Each replica's rate from every node's rules now, and the rate of
    /// the nodes with none listed (REJECT).
    fn span_rates(&mut self) -> f64 {
        let t = self.service.traffic.as_ref().expect("counting runs with traffic");
        let (per_ms, clients) = (t.rate.get() / 1000.0, t.clients.max(1));
        let nodes = self.proxies.len() as u32;
        let rates = &mut self.counting.rates;
        rates.clear();
        rates.resize(self.replicas.len(), 0.0);
        let mut none = 0.0;
        for (n, p) in self.proxies.iter().enumerate() {
            // Client c is on node c mod N, and each request's client is
            // drawn uniformly: the node's requests are a Poisson stream
            // of its clients' share of the rate (thinning).
            let on_node = clients / nodes + u32::from((n as u32) < clients % nodes);
            let node_rate = per_ms * f64::from(on_node) / f64::from(clients);
            if p.rules.is_empty() {
                none += node_rate;
                continue;
            }
            let each = node_rate / p.rules.len() as f64;
            for &r in &p.rules {
                rates[r as usize] += each;
            }
        }
        none
    }

    /// The requests sent over `from..to`, a span of constant routing state:
    /// each on a new connection, or the keep-alive client's (`keepalive`).
    fn count_span(&mut self, from: SimTime, to: SimTime, s: Option<&mut Scheduler<'_, ServiceEvent>>) {
        match self.profile.connections {
            Connections::KeepAlive => self.count_pooled(ms(from), ms(to), s),
            Connections::New => self.count_new(ms(from), ms(to), s),
        }
    }

    /// The requests sent over `a..b` ms, each on a new connection.
    fn count_new(&mut self, a: f64, b: f64, mut s: Option<&mut Scheduler<'_, ServiceEvent>>) {
        let (_, timeout) = self.waits();
        let none = self.span_rates();
        let (from, to) = (SimTime(a.round() as u64), SimTime(b.round() as u64));
        let rejected = self.next_draw().poisson(none * (b - a));
        self.count(to, from, to, rejected, NONE, Fate::Failed(Cause::NoEndpoints));
        for r in 0..self.replicas.len() {
            let rate = self.counting.rates[r];
            if rate <= 0.0 {
                continue;
            }
            let mut d = self.next_draw();
            let gap = d.exp1() / rate;
            if gap >= b - a {
                continue;
            }
            let last = b - gap;
            let rep = &self.replicas[r];
            let (replica, gone, accepting, deleted) =
                (r as u32, rep.object_gone, rep.accepting(), rep.ending());
            let last_at = SimTime(last.round() as u64);
            if deleted {
                let routed = ServiceChange::Routed {
                    request: NONE,
                    tries: 1,
                    node: NONE,
                    replica,
                    fresh: true,
                };
                self.emit(last_at, routed);
            }
            if !gone && !accepting {
                let n = 1 + d.poisson(rate * (last - a));
                self.count(to, from, to, n, replica, Fate::Failed(Cause::Refused));
                continue;
            }
            let piece = |point, from, to| Piece {
                replica,
                timeout: gone,
                point,
                from,
                to,
                rate,
            };
            self.counting.pieces.push(piece(false, a, last));
            self.counting.pieces.push(piece(true, last, last));
            // A timeout fails at its own instant; answers are counted at
            // the next event, or at the last one due after the traffic.
            if let (true, Some(s)) = (gone, s.as_deref_mut()) {
                let due = last_at + SimDuration::from_millis(timeout);
                s.at(due.max(s.now()), ServiceEvent::Counting);
            }
        }
    }

    /// Counts the pieces whose fate is known by `now`: answered once their
    /// last request's answer is due, timed out once its timeout is.
    fn settle(&mut self, now: SimTime) {
        let (service, timeout) = self.waits_or_zero();
        let mut i = 0;
        while i < self.counting.pieces.len() {
            let p = self.counting.pieces[i];
            let wait = if p.timeout { timeout } else { service };
            if p.last_ms() + wait > now.as_millis() {
                i += 1;
                continue;
            }
            self.counting.pieces.remove(i);
            self.count_piece(now, p, p.to, fate_of(&p));
        }
    }

    /// The service and connect waits, or none in a run without traffic.
    fn waits_or_zero(&self) -> (u64, u64) {
        match self.service.traffic {
            Some(_) => self.waits(),
            None => (0, 0),
        }
    }

    /// Counts the requests of `p` sent before `until` (a point's one) with
    /// `fate`, reported at `at`.
    fn count_piece(&mut self, at: SimTime, p: Piece, until: f64, fate: Fate) {
        let n = match p.point {
            true => 1,
            false => self.next_draw().poisson(p.rate * (until.min(p.to) - p.from)),
        };
        let to = SimTime(until.min(p.to).round() as u64);
        self.count(at, SimTime(p.from.round() as u64), to, n, p.replica, fate);
    }

    /// Replica `r` died now: its accepted requests whose answers were not
    /// due yet are cut in flight (those sent after `now - service time`;
    /// the per-request model's whole milliseconds put the line half a
    /// millisecond on), the others answered.
    pub(super) fn cut_in_flight(&mut self, r: usize, now: SimTime) {
        let (service, _) = self.waits();
        let cut = ms(now) - service as f64 + 0.5;
        let mut i = 0;
        while i < self.counting.pieces.len() {
            let p = self.counting.pieces[i];
            if p.replica as usize != r || p.timeout {
                i += 1;
                continue;
            }
            self.counting.pieces.remove(i);
            self.split_at(now, p, cut, Fate::Answered, Fate::Failed(Cause::Inflight));
        }
    }

    /// Counts piece `p` at `at`: its requests sent before `cut` with
    /// `before`, the others with `after` (independent Poisson counts).
    fn split_at(&mut self, at: SimTime, p: Piece, cut: f64, before: Fate, after: Fate) {
        if p.point {
            let fate = if p.from < cut { before } else { after };
            let sent = SimTime(p.from.round() as u64);
            return self.count(at, sent, sent, 1, p.replica, fate);
        }
        if p.from < cut {
            self.count_piece(at, p, cut, before);
        }
        if p.to > cut {
            let rest = Piece {
                from: p.from.max(cut),
                ..p
            };
            self.count_piece(at, rest, rest.to, after);
        }
    }

    /// Replica `r`'s app closed its listener now: its last accepted request
    /// still in flight (drawn back from now) holds its drain until answered.
    pub(super) fn last_in_flight(&mut self, r: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let (service, _) = self.waits();
        let window = ms(now) - service as f64 + 0.5;
        let mut budget = self.next_draw().exp1();
        let mut last = None;
        let mut i = self.counting.pieces.len();
        while i > 0 {
            i -= 1;
            let p = self.counting.pieces[i];
            if p.replica as usize != r || p.timeout || p.to < window {
                continue;
            }
            if p.point {
                last = Some(p.from);
                break;
            }
            let lo = p.from.max(window);
            let mean = p.rate * (p.to - lo);
            if budget < mean {
                // The last one is here; none after it.
                let at = p.to - budget / p.rate;
                self.counting.pieces[i].to = at;
                let point = Piece {
                    point: true,
                    from: at,
                    to: at,
                    ..p
                };
                self.counting.pieces.insert(i + 1, point);
                last = Some(at);
                break;
            }
            // None in flight from this piece: it ends at the window.
            budget -= mean;
            self.counting.pieces[i].to = lo;
        }
        if let Some(at) = last {
            let until = SimTime(at.round() as u64 + service);
            self.replicas[r].busy_until = until;
            s.at(until.max(now), ServiceEvent::DrainDue { replica: r as u32 });
        }
    }

    /// The run ends at `end`: the open span is counted, and each piece's
    /// requests are answered or timed out if that was due by then, else
    /// unfinished (the horizon cut them).
    pub(super) fn count_at_end(&mut self, end: SimTime) {
        self.count_until(end, None);
        let (service, timeout) = self.waits_or_zero();
        for p in std::mem::take(&mut self.counting.pieces) {
            let wait = if p.timeout { timeout } else { service };
            let cut = ms(end) - wait as f64 + 0.5;
            self.split_at(end, p, cut, fate_of(&p), Fate::Unfinished);
        }
    }
}

/// What a piece's requests come to once due.
fn fate_of(p: &Piece) -> Fate {
    match p.timeout {
        true => Fate::Failed(Cause::Timeout),
        false => Fate::Answered,
    }
}

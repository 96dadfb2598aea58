//! The hop in a run (`hop` says what it is): its view of the endpoints,
//! fed by the slice after its own propagation; its pick of a Pod for each
//! new upstream connection, in place of the node's kube-proxy rules; its
//! health check of the targets; and its part in a failed try, a retry to
//! the next upstream or an error answer to the client.
//!
//! Invariant: without a hop nothing here runs and no draw is made, so a
//! scenario without `[hop]` keeps every byte it had (the pick without a
//! hop is the node's rules' draw, as before).

use super::endpoints::Slice;
use super::history::{ServiceChange, ServiceObserver};
use super::hop::{Balance, Hop, Status};
use super::outcome::Cause;
use super::proxy::Proxy;
use super::scores::Scores;
use super::traffic::Request;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;

/// The hop in a run: what it is, and its view of the endpoints.
#[derive(Clone, Debug)]
pub(super) struct HopState {
    pub hop: Hop,
    /// Its endpoint view: a runner with no period, so each version is
    /// installed as soon as the hop hears of it.
    pub view: Proxy,
    /// The round robin's next turn.
    turn: u32,
    /// Per replica: health checks failed in a row, and whether that took
    /// it out of rotation.
    fails: Vec<u32>,
    down: Vec<bool>,
    /// Its health checks have begun (at its first hearing).
    checking: bool,
    /// Scratch: the view less the targets out of rotation.
    healthy: Vec<u32>,
    /// Per replica: out of rotation (dropped from the view, or down),
    /// and its deregistrations so far, which make a pending one stale.
    out: Vec<bool>,
    epochs: Vec<u32>,
    /// Scratch: the replicas the view's last sync moved.
    moved: Vec<u32>,
    /// What it learned of each upstream from its tries.
    scores: Scores,
}

impl HopState {
    pub fn new(hop: Hop) -> Self {
        let mut view = Proxy::default();
        view.reset(SimDuration::ZERO);
        HopState {
            hop,
            view,
            turn: 0,
            fails: Vec::new(),
            down: Vec::new(),
            checking: false,
            healthy: Vec::new(),
            out: Vec::new(),
            epochs: Vec::new(),
            moved: Vec::new(),
            scores: Scores::default(),
        }
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
        if !h.checking {
            if let Some(health) = h.hop.health {
                s.after(health.interval, ServiceEvent::HopCheck);
            }
            if let Some(outlier) = h.hop.outlier {
                s.after(outlier.interval, ServiceEvent::HopSweep);
            }
        }
        h.checking = true;
        let observers = &mut self.observers;
        let upto = h.view.heard;
        let changes = self.slice.changes(h.view.applied, upto);
        let moved = &mut h.moved;
        moved.clear();
        h.view.sync(upto, changes, |replica, added| {
            let change = match added {
                true => ServiceChange::HopRuleAdded { replica },
                false => ServiceChange::HopRuleDropped { replica },
            };
            observers.emit(now, change);
            moved.push(replica);
        });
        if h.hop.balance == Balance::Ewma {
            h.scores.synced(&h.view.rules, &h.moved, now);
        }
        let moved = std::mem::take(&mut h.moved);
        for &r in &moved {
            self.hop_rotation(r, s);
        }
        if let Some(h) = &mut self.hop {
            h.moved = moved;
        }
        self.maybe_start(now, s);
        self.maybe_settle(now);
    }

    /// The replica a new connection of `request` (its current try) goes
    /// to: the hop's pick from its view, or, without a hop, a draw over
    /// `node`'s rules. `None`: nothing to send to.
    #[inline]
    pub(super) fn pick(&mut self, node: u32, request: &Request, now: SimTime) -> Option<u32> {
        let (index, tries) = (request.index, request.tries);
        let u = |s: &Self| s.stream.uniform(u64::from(index), DrawKey::Endpoint, tries);
        let Some(h) = &mut self.hop else {
            let rules = &self.proxies[node as usize].rules;
            if rules.is_empty() {
                return None;
            }
            return Some(rules[((u(self) * rules.len() as f64) as usize).min(rules.len() - 1)]);
        };
        if h.view.rules.is_empty() {
            return None;
        }
        // Targets out of rotation (down, or ejected as outliers) are
        // skipped, unless every one is: then the load balancer fails open
        // to them all (NLB, GCP, Envoy's panic alike).
        let some_down = h.down.iter().any(|&d| d) || h.scores.any_ejected();
        if some_down {
            let (down, view, scores) = (&h.down, &h.view.rules, &h.scores);
            let up = |r: &&u32| !(down.get(**r as usize).is_some_and(|&d| d) || scores.is_ejected(**r));
            h.healthy.clear();
            h.healthy.extend(view.iter().filter(up));
        }
        let turn = h.turn;
        h.turn = h.turn.wrapping_add(1);
        let h = self.hop.as_ref().expect("a hop");
        let rules = match some_down && !h.healthy.is_empty() {
            true => &h.healthy,
            false => &h.view.rules,
        };
        let n = rules.len();
        let at = |u: f64| ((u * n as f64) as usize).min(n - 1);
        let pick = match h.hop.balance {
            Balance::Random => rules[at(u(self))],
            Balance::RoundRobin => rules[turn as usize % n],
            Balance::LeastRequest => {
                let (a, b) = (
                    rules[at(u(self))],
                    rules[at(self.stream.uniform(u64::from(index), DrawKey::HopPick, tries))],
                );
                if self.busy(b) < self.busy(a) { b } else { a }
            }
            Balance::Ewma => self.ewma_pick(rules, request, now),
        };
        Some(pick)
    }

    /// ewma.lua's `balance`: of the upstreams this request has not tried
    /// at the hop (its last try's; all if none is left), two picked at
    /// random without repeat (a partial Fisher–Yates shuffle), the lower
    /// score wins, the first drawn on a tie; one alone is taken.
    fn ewma_pick(&self, rules: &[u32], request: &Request, now: SimTime) -> u32 {
        let h = self.hop.as_ref().expect("a hop");
        let tried = request
            .replica
            .filter(|r| request.hop_try > 1 && rules.len() > 1 && rules.contains(r));
        let n = rules.len() - usize::from(tried.is_some());
        // The i-th upstream not tried.
        let nth = |i: usize| {
            let at = tried.and_then(|t| rules.iter().position(|&r| r == t));
            rules[if at.is_some_and(|at| i >= at) { i + 1 } else { i }]
        };
        if n == 1 {
            return nth(0);
        }
        let (index, tries) = (u64::from(request.index), request.tries);
        let draw = |key, m: usize| {
            let u = self.stream.uniform(index, key, tries);
            ((u * m as f64) as usize).min(m - 1)
        };
        let i = draw(DrawKey::Endpoint, n);
        let j = draw(DrawKey::HopPick, n - 1);
        let (a, b) = (nth(i), nth(if j >= i { j + 1 } else { j }));
        if h.scores.score(b, now) < h.scores.score(a, now) {
            b
        } else {
            a
        }
    }

    /// A try at replica `r` was answered `rtt` after it went out: the
    /// EWMA takes the sample (the request's last try), and the outlier
    /// detector forgets its failures.
    #[inline]
    pub(super) fn hop_answered(&mut self, r: u32, rtt: SimDuration, now: SimTime) {
        let Some(h) = &mut self.hop else {
            return;
        };
        if h.hop.balance == Balance::Ewma {
            h.scores.touch(r, rtt, now);
        }
        if h.hop.outlier.is_some() {
            h.scores.succeeded(r);
        }
    }

    /// Envoy's outlier sweep: the ejected whose time is over come back;
    /// the next is due an interval later while the traffic runs.
    pub(super) fn hop_sweep(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(h) = &mut self.hop else {
            return;
        };
        let Some(outlier) = h.hop.outlier else {
            return;
        };
        h.moved.clear();
        h.scores.sweep(&outlier, now, &mut h.moved);
        for &replica in &h.moved {
            let ejected = false;
            self.observers
                .emit(now, ServiceChange::HopEjected { replica, ejected });
        }
        if self.traffic_end.is_none_or(|end| now < end) {
            s.after(outlier.interval, ServiceEvent::HopSweep);
        }
    }

    /// A health check of every target: one that does not accept a
    /// connection fails it, `unhealthy` failures in a row take it out of
    /// rotation, a pass brings it back; the next is due an interval later
    /// while the traffic runs.
    pub(super) fn hop_check(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(h) = &mut self.hop else {
            return;
        };
        let Some(health) = h.hop.health else {
            return;
        };
        let n = self.replicas.len();
        h.moved.clear();
        h.fails.resize(n, 0);
        h.down.resize(n, false);
        for (r, rep) in self.replicas.iter().enumerate() {
            let was = h.down[r];
            if rep.accepting() {
                (h.fails[r], h.down[r]) = (0, false);
            } else {
                h.fails[r] += 1;
                h.down[r] |= h.fails[r] >= health.unhealthy;
            }
            if h.down[r] != was {
                let (replica, healthy) = (r as u32, !h.down[r]);
                self.observers
                    .emit(now, ServiceChange::HopHealth { replica, healthy });
                h.moved.push(replica);
            }
        }
        let moved = std::mem::take(&mut h.moved);
        for &r in &moved {
            self.hop_rotation(r, s);
        }
        if let Some(h) = &mut self.hop {
            h.moved = moved;
            h.moved.clear();
        }
        if self.traffic_end.is_none_or(|end| now < end) {
            s.after(health.interval, ServiceEvent::HopCheck);
        }
    }

    /// Replica `r` may have left the hop's rotation or come back: a target
    /// that left starts its deregistration delay, at whose end, if the hop
    /// terminates connections, its open ones are reset (`hop_deregistered`);
    /// one that came back makes that pending end stale.
    fn hop_rotation(&mut self, r: u32, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(h) = &mut self.hop else {
            return;
        };
        let i = r as usize;
        if h.out.len() <= i {
            h.out.resize(i + 1, false);
            h.epochs.resize(i + 1, 0);
        }
        let down = h.down.get(i).is_some_and(|&d| d);
        let out = down || !h.view.rules.contains(&r);
        if out == h.out[i] {
            return;
        }
        h.out[i] = out;
        h.epochs[i] = h.epochs[i].wrapping_add(1);
        if out && h.hop.terminates {
            let epoch = h.epochs[i];
            s.after(
                h.hop.deregistration_delay,
                ServiceEvent::HopDeregistered { replica: r, epoch },
            );
        }
    }

    /// Replica `r`'s deregistration delay is over (`epoch`: the leaving
    /// it ends, stale if the target came back since): the hop resets its
    /// connections, as the target's own death would, requests on them cut.
    pub(super) fn hop_deregistered(
        &mut self,
        r: u32,
        epoch: u32,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let current = (self.hop.as_ref()).is_some_and(|h| h.epochs.get(r as usize) == Some(&epoch));
        if current {
            self.emit(now, ServiceChange::HopTerminated { replica: r });
            self.path_died(r as usize, now, s);
        }
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
        if let (Some(outlier), Some(r)) = (h.hop.outlier, request.replica) {
            let hosts = h.view.rules.len();
            let h = self.hop.as_mut().expect("a hop");
            if h.scores.failed(r, &outlier, hosts, now) {
                let (replica, ejected) = (r, true);
                self.observers
                    .emit(now, ServiceChange::HopEjected { replica, ejected });
            }
        }
        let h = self.hop.as_ref().expect("a hop");
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
        if let (Balance::Ewma, Some(r)) = (h.hop.balance, request.replica) {
            let rtt = now.since(request.try_sent);
            self.hop.as_mut().expect("a hop").scores.touch(r, rtt, now);
        }
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

//! The cluster's background on the Service's queue (`[cluster]`, the
//! figures in `cluster`): other Services' endpoint changes reaching each
//! node, and each node's one runner syncing them with ours, a sync taking
//! the time its lines take.
//!
//! Without a `[cluster]` none of this runs: `runners` is empty, a hearing
//! asks for `Synced` at once as it always did, and a sync takes no time.
//! With one, a sync request schedules `SyncStart`, which takes the version
//! heard by then and schedules `Synced` a sync's duration later; a request
//! while a sync runs is kept (the runner's one-slot `run` channel) and
//! asked again when it ends. The periodic full resync (`full_sync`) asks
//! every runner for a sync that writes every line.

use super::cluster::Runner;
use super::history::ServiceObserver;
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::draw::DrawKey;

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// Back to no change heard, for the current `service`: a runner per
    /// node with a `[cluster]`, none without.
    pub(super) fn reset_background(&mut self) {
        self.runners.clear();
        if self.service.cluster.is_some() {
            self.runners.resize(self.proxies.len(), Runner::default());
        }
        self.churn_next = 0.0;
        self.churn_index = 0;
    }

    /// Node `node` wants a sync now (it heard of a change): kept for the
    /// end of the running one, or scheduled when the bucket allows.
    pub(super) fn ask_sync(&mut self, node: u32, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let period = self.service.min_sync_period;
        let p = &mut self.proxies[node as usize];
        match self.runners.get_mut(node as usize) {
            None => match p.request_sync(now, period) {
                Some(at) if at == now => self.synced(node as usize, now, s),
                Some(at) => s.at(at, ServiceEvent::Synced { node }),
                None => {}
            },
            Some(runner) if runner.running => runner.queued = true,
            Some(_) => {
                if let Some(at) = p.request_sync(now, period) {
                    s.at(at, ServiceEvent::SyncStart { node });
                }
            }
        }
    }

    /// Node `node`'s sync starts: it writes what was heard by now, and
    /// ends when its lines are written.
    pub(super) fn sync_start(&mut self, node: u32, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(cluster) = &self.service.cluster else {
            return;
        };
        let p = &mut self.proxies[node as usize];
        p.sync_pending = false;
        let runner = &mut self.runners[node as usize];
        runner.running = true;
        runner.taking = p.heard;
        let changed = std::mem::take(&mut runner.changed);
        let took = cluster.sync_time(self.service.replicas.max(1), changed);
        s.after(took, ServiceEvent::Synced { node });
    }

    /// Node `node`'s sync ended now (the runner's `lastRun`): the version
    /// its rules now show (the one heard when it started, or the one heard
    /// now if syncs take no time), and whether a request came meanwhile.
    pub(super) fn sync_end(&mut self, node: usize, now: SimTime) -> (u32, bool) {
        self.proxies[node].ended(now);
        match self.runners.get_mut(node) {
            None => (self.proxies[node].heard, false),
            Some(runner) => {
                runner.running = false;
                (runner.taking, std::mem::take(&mut runner.queued))
            }
        }
    }

    /// Our slice published `version` now: each Deployment rolling with
    /// ours changes too (the k-th `stagger` × k later), heard by each node
    /// after its own delay.
    pub(super) fn rolling_changed(
        &mut self,
        version: u32,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let Some(c) = &self.service.cluster else {
            return;
        };
        let dist = self.service.propagation.dist();
        for k in 0..u64::from(c.rolling) {
            let published = now + SimDuration(c.stagger.as_millis() * (k + 1));
            for node in 0..self.proxies.len() as u64 {
                let delay = match dist.fixed() {
                    Some(d) => d,
                    None => dist.sample(self.stream.uniform(
                        node << 32 | k,
                        DrawKey::RollingPropagation,
                        version,
                    )),
                };
                let node = node as u32;
                s.at(
                    published + delay,
                    ServiceEvent::BackgroundHeard { node, rolling: true },
                );
            }
        }
    }

    /// When the first background change is due, if the cluster churns.
    pub(super) fn first_churn(&mut self) -> Option<SimTime> {
        let rate = self.service.cluster.as_ref()?.churn?.get();
        Some(self.next_churn(rate))
    }

    /// The next background change after the last one (exponential gaps
    /// of mean 1/rate, each drawn by the change's index).
    fn next_churn(&mut self, rate: f64) -> SimTime {
        let u = self.stream.uniform(0, DrawKey::ChurnGap, self.churn_index);
        self.churn_next += -(1000.0 / rate) * (-u).ln_1p();
        SimTime::nearest(self.churn_next)
    }

    /// A background change is published now: every node hears of it after
    /// its delay. The churn stops with the traffic.
    pub(super) fn churn(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(rate) = self.service.cluster.as_ref().and_then(|c| c.churn) else {
            return;
        };
        if self.traffic_end.is_some_and(|end| now >= end) {
            return;
        }
        let dist = self.service.propagation.dist();
        let index = self.churn_index;
        for node in 0..self.proxies.len() as u32 {
            let delay = match dist.fixed() {
                Some(d) => d,
                None => dist.sample(
                    self.stream
                        .uniform(u64::from(node), DrawKey::ChurnPropagation, index),
                ),
            };
            s.at(
                now + delay,
                ServiceEvent::BackgroundHeard { node, rolling: false },
            );
        }
        self.churn_index += 1;
        let at = self.next_churn(rate.get());
        s.at(at.max(now), ServiceEvent::Churn);
    }

    /// Node `node` heard of another Service's change: its next sync writes
    /// that Service's chains too.
    pub(super) fn background_heard(
        &mut self,
        node: u32,
        rolling: bool,
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let changed = &mut self.runners[node as usize].changed;
        match rolling {
            true => changed.rolling += 1,
            false => changed.churned += 1,
        }
        self.ask_sync(node, now, s);
    }

    /// When every node's periodic full resync is due, if in the run.
    pub(super) fn full_sync_at(&self) -> Option<SimTime> {
        Some(SimTime::ZERO + self.service.cluster.as_ref()?.full_sync?)
    }

    /// Every node's periodic full resync is due: its runner is asked for a
    /// sync that writes every line (after the running one, if one runs).
    pub(super) fn full_sync(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        for node in 0..self.runners.len() {
            if self.node_down(node) {
                continue;
            }
            self.runners[node].changed.full = true;
            self.ask_sync(node as u32, now, s);
        }
    }

    /// Node `node` heard of our change: its next sync writes our chains.
    #[inline]
    pub(super) fn ours_heard(&mut self, node: u32) {
        if let Some(runner) = self.runners.get_mut(node as usize) {
            runner.changed.ours = true;
        }
    }
}

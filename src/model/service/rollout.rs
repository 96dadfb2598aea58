//! The Deployment controller and its two ReplicaSets, on the Service model
//! (disruption-model.md A.5): RollingUpdate within maxSurge and
//! maxUnavailable (`rolling.go`), Recreate (`recreate.go`), availability
//! after minReadySeconds, and the scale-down victim order
//! (`ActivePodsWithRanks`).
//!
//! It is event-driven as the controller is: a sync runs when the rollout
//! starts, when a Pod's readiness or phase changes, when a Pod object is
//! gone and when a Ready Pod's minReadySeconds are over; nothing polls.
//! The ReplicaSet controller and the API are taken as instant: a sync's
//! new replica counts are acted on (Pods created, victims deleted) in the
//! same millisecond, and the next sync sees the result.
//!
//! The same ReplicaSets replace the Pods a drain evicts (`drain`), so a
//! scenario with a drain has a Deployment too, without a rollout.
//!
//! Invariant: the controller counts only active Pods (no deletion
//! timestamp, phase not terminal), so the Pods alive at once may exceed
//! replicas + surge while old ones drain, and never the counted ones.

use std::cmp::Reverse;

use super::app::Replica;
use super::app::replica_pod;
use super::deployment::Strategy;
use super::history::{ServiceChange, ServiceObserver, Tap};
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Scheduler, SimDuration, SimTime};
use crate::model::pod::spec::{PodRunSpec, PodSpec};
use crate::model::pod::{Change, PodEvent, PodModel, PodPhase, TraceEntry};

/// Which ReplicaSet a Pod belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReplicaSet {
    /// The one the scenario's replicas started in.
    Old = 0,
    /// The rollout's.
    New = 1,
}

/// What the controller knows of one Pod (by replica index).
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    rs: ReplicaSet,
    /// The node it runs on.
    pub node: u32,
    created: SimTime,
    /// Since when the Pod is Ready, while it is.
    ready_since: Option<SimTime>,
    restarts: u32,
    /// Every container has stopped: the phase is terminal.
    stopped: bool,
    /// Its `controller.kubernetes.io/pod-deletion-cost` (0 without one).
    pub deletion_cost: u32,
}

/// A rollout under way or done: the numbers the controller resolved.
#[derive(Clone, Debug)]
struct Plan {
    strategy: Strategy,
    surge: u32,
    unavailable: u32,
    min_ready: SimDuration,
    /// The new Pods' template, as written (before the Service adjusts its app).
    template: PodSpec,
    /// The controller's view: the new ReplicaSet is fully available.
    complete: Option<SimTime>,
    /// The cluster's view: the last old Pod object is gone.
    done: Option<SimTime>,
}

/// The Deployment that owns the replicas, in a scenario with a rollout or
/// a drain (whose evicted Pods its ReplicaSet replaces).
#[derive(Clone, Debug, Default)]
pub(super) struct Deploy {
    pub members: Vec<Member>,
    plan: Option<Plan>,
    /// `spec.replicas` of the old and the new ReplicaSet.
    pub spec: [u32; 2],
    /// Nodes a drain cordoned: no new Pod goes there.
    pub cordoned: Vec<bool>,
    /// The node the next new Pod tries first (round robin).
    next_node: u32,
    /// The drains under way or done.
    pub drains: Vec<super::drain::Drain>,
    /// The cluster-autoscaler's scale-downs under way.
    pub scale_downs: Vec<super::autoscaler::Actuation>,
}

impl Deploy {
    /// A Deployment whose `replicas` Pods were all created at 0, replica
    /// r on node r mod `nodes`.
    pub fn new(replicas: u32, nodes: u32) -> Deploy {
        let member = |r: u32| Member {
            rs: ReplicaSet::Old,
            node: r % nodes,
            created: SimTime::ZERO,
            ready_since: None,
            restarts: 0,
            stopped: false,
            deletion_cost: 0,
        };
        Deploy {
            members: (0..replicas).map(member).collect(),
            plan: None,
            spec: [replicas, 0],
            cordoned: vec![false; nodes as usize],
            next_node: replicas % nodes,
            drains: Vec::new(),
            scale_downs: Vec::new(),
        }
    }

    /// The node the next new Pod goes to, if any is not cordoned.
    fn next_node(&mut self) -> Option<u32> {
        let nodes = self.cordoned.len() as u32;
        let node = (0..nodes)
            .map(|i| (self.next_node + i) % nodes)
            .find(|&n| !self.cordoned[n as usize])?;
        self.next_node = (node + 1) % nodes;
        Some(node)
    }
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// The ReplicaSet replica `r` belongs to: the old one outside a
    /// rollout's new Pods (a scenario without a Deployment included).
    pub(super) fn replica_set_of(&self, r: usize) -> ReplicaSet {
        self.deploy
            .as_ref()
            .and_then(|d| d.members.get(r))
            .map_or(ReplicaSet::Old, |m| m.rs)
    }

    /// The Pod template replica `r` was made from, as written.
    pub(super) fn template_of(&self, r: usize) -> &PodSpec {
        match &self.deploy {
            Some(Deploy {
                members,
                plan: Some(plan),
                ..
            }) if members[r].rs == ReplicaSet::New => &plan.template,
            _ => self.run.pod(),
        }
    }

    /// Disruption `index` is a rollout: the new ReplicaSet exists from now.
    pub(super) fn start_rollout(&mut self, index: usize, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let replicas = self.service.replicas.max(1);
        let Some(rollout) = &self.service.disruptions[index].rollout else {
            return;
        };
        let Some(deploy) = &mut self.deploy else {
            return;
        };
        if deploy.plan.is_some() {
            return;
        }
        let (surge, unavailable) = rollout.fenceposts(replicas);
        deploy.plan = Some(Plan {
            strategy: rollout.strategy,
            surge,
            unavailable,
            min_ready: rollout.min_ready,
            template: rollout.template.as_deref().unwrap_or(self.run.pod()).clone(),
            complete: None,
            done: None,
        });
        self.disrupted += 1;
        self.emit(now, ServiceChange::RolloutStarted);
        self.rollout_sync(now, s);
    }

    /// What replica `r`'s Pod just reported, as the controller sees it: a
    /// change of readiness or phase triggers a sync.
    pub(super) fn pod_changed(
        &mut self,
        r: usize,
        changes: &[TraceEntry],
        now: SimTime,
        s: &mut Scheduler<'_, ServiceEvent>,
    ) {
        let serving = self.replicas[r].serving();
        let Some(deploy) = &mut self.deploy else {
            return;
        };
        let m = &mut deploy.members[r];
        let mut relevant = false;
        for e in changes {
            match e.what {
                Change::Starting { attempt } if attempt > 1 => m.restarts += 1,
                Change::ContainersStopped => {
                    m.stopped = true;
                    relevant = true;
                }
                _ => {}
            }
        }
        if serving != m.ready_since.is_some() {
            m.ready_since = serving.then_some(now);
            relevant = true;
            if let Some(plan) = &deploy.plan
                && serving
                && plan.min_ready > SimDuration::ZERO
            {
                let replica = r as u32;
                s.after(plan.min_ready, ServiceEvent::Available { replica });
            }
        }
        if relevant {
            self.rollout_sync(now, s);
        }
    }

    /// Replica `r`'s Pod object is gone.
    pub(super) fn pod_gone(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        if self.deploy.is_some() {
            self.rollout_sync(now, s);
        }
    }

    /// One sync of the Deployment, repeated while it changes a ReplicaSet
    /// (each change would requeue it at once), then its completion.
    pub(super) fn rollout_sync(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(deploy) = &self.deploy else {
            return;
        };
        let strategy = deploy.plan.as_ref().map(|p| p.strategy);
        loop {
            let before = self.deploy.as_ref().map_or([0; 2], |d| d.spec);
            let changed = match strategy {
                Some(Strategy::RollingUpdate) => self.rolling_step(now),
                Some(Strategy::Recreate) => self.recreate_step(),
                None => false,
            };
            let after = self.deploy.as_ref().map_or([0; 2], |d| d.spec);
            for rs in [ReplicaSet::Old, ReplicaSet::New] {
                let replicas = after[rs as usize];
                if replicas != before[rs as usize] {
                    self.emit(now, ServiceChange::Scaled { rs, replicas });
                }
            }
            self.reconcile_replica_sets(now, s);
            if !changed {
                break;
            }
        }
        self.note_progress(now);
        self.drain_progress(now);
    }

    /// Active and available Pods of each ReplicaSet.
    fn counts(&self, now: SimTime) -> ([u32; 2], [u32; 2]) {
        let (mut active, mut available) = ([0; 2], [0; 2]);
        let Some(deploy) = &self.deploy else {
            return (active, available);
        };
        let min_ready = deploy.plan.as_ref().map_or(SimDuration::ZERO, |p| p.min_ready);
        for (r, m) in deploy.members.iter().enumerate() {
            if !self.is_active(r, m) {
                continue;
            }
            active[m.rs as usize] += 1;
            if m.ready_since.is_some_and(|t| now >= t + min_ready) {
                available[m.rs as usize] += 1;
            }
        }
        (active, available)
    }

    /// No deletion timestamp and a phase that is not terminal (`FilterActivePods`).
    pub(super) fn is_active(&self, r: usize, m: &Member) -> bool {
        !self.replicas[r].deleted && !m.stopped
    }

    /// `rolloutRolling`: scale the new ReplicaSet up within the surge, else
    /// the old one down within the unavailable; whether either changed.
    fn rolling_step(&mut self, now: SimTime) -> bool {
        let replicas = i64::from(self.service.replicas.max(1));
        let (_, available) = self.counts(now);
        let Some(Deploy {
            plan: Some(plan),
            spec,
            ..
        }) = &mut self.deploy
        else {
            return false;
        };
        let [old, new] = spec.map(i64::from);
        let total = old + new;
        // reconcileNewReplicaSet: NewRSNewReplicas.
        let max_total = replicas + i64::from(plan.surge);
        if new < replicas && total < max_total {
            spec[1] += (max_total - total).min(replicas - new) as u32;
            return true;
        }
        // reconcileOldReplicaSets.
        if old == 0 {
            return false;
        }
        let min_available = replicas - i64::from(plan.unavailable);
        let new_unavailable = new - i64::from(available[1]);
        let max_scaled_down = total - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return false;
        }
        // cleanupUnhealthyReplicas: the old ones that are not available go first.
        let unhealthy = (old - i64::from(available[0])).max(0);
        let cleaned = unhealthy.min(max_scaled_down);
        // scaleDownOldReplicaSetsForRollingUpdate: down to minAvailable.
        let left = old - cleaned;
        let available_all = i64::from(available[0] + available[1]);
        let down = (available_all - min_available).clamp(0, left);
        spec[0] = (left - down) as u32;
        cleaned + down > 0
    }

    /// `rolloutRecreate`: the old ReplicaSet to 0, then the new one to the
    /// replicas once no old Pod runs (`oldPodsRunning`).
    fn recreate_step(&mut self) -> bool {
        let replicas = self.service.replicas.max(1);
        let running = self.deploy.as_ref().is_some_and(|d| {
            (d.members.iter().enumerate())
                .any(|(r, m)| m.rs == ReplicaSet::Old && !m.stopped && !self.replicas[r].object_gone)
        });
        let Some(Deploy { spec, .. }) = &mut self.deploy else {
            return false;
        };
        if spec[0] > 0 {
            spec[0] = 0;
            return true;
        }
        if running || spec[1] == replicas {
            return false;
        }
        spec[1] = replicas;
        true
    }

    /// The ReplicaSet controller: each ReplicaSet gets its `spec.replicas`
    /// of active Pods, creating new ones or deleting victims in rank order.
    fn reconcile_replica_sets(&mut self, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(spec) = self.deploy.as_ref().map(|d| d.spec) else {
            return;
        };
        let (active, _) = self.counts(now);
        for rs in [ReplicaSet::Old, ReplicaSet::New] {
            let (want, have) = (spec[rs as usize], active[rs as usize]);
            for _ in have..want {
                self.create_pod(rs, now, s);
            }
            if have > want {
                for r in self.victims(rs, (have - want) as usize) {
                    self.delete_pod(r, None, now, s);
                }
            }
        }
        let (active, _) = self.counts(now);
        self.emit(now, ServiceChange::ReplicaSetsSynced { active });
    }

    /// The `count` active Pods of `rs` to delete first (`getPodsToDelete`
    /// in pkg/controller/replicaset/replica_set.go, sorting by
    /// `ActivePodsWithRanks` in pkg/controller/controller_utils.go):
    /// Pending before Running, not Ready before Ready, a lower
    /// pod-deletion-cost first, more Pods of the Deployment on the same
    /// node first, Ready for less time, more restarts, newer; the last tie
    /// by the higher replica number. Every Pod here has a node, so the
    /// first rule (unassigned first) never decides; ready and creation
    /// times are compared exactly, where LogarithmicScaleDown compares
    /// their log2 buckets and breaks ties by UID (a pseudorandom order).
    fn victims(&self, rs: ReplicaSet, count: usize) -> Vec<usize> {
        let Some(deploy) = &self.deploy else {
            return Vec::new();
        };
        let nodes = self.service.nodes.max(1) as usize;
        let mut on_node = vec![0u32; nodes];
        let active: Vec<usize> = (0..deploy.members.len())
            .filter(|&r| self.is_active(r, &deploy.members[r]))
            .collect();
        for &r in &active {
            on_node[deploy.members[r].node as usize % nodes] += 1;
        }
        let mut ranked: Vec<usize> = active
            .into_iter()
            .filter(|&r| deploy.members[r].rs == rs)
            .collect();
        ranked.sort_by_key(|&r| {
            let m = &deploy.members[r];
            let running = self.pods[r].phase() != PodPhase::Pending;
            (
                running,
                m.ready_since.is_some(),
                m.deletion_cost,
                Reverse(on_node[m.node as usize % nodes]),
                Reverse(m.ready_since),
                Reverse(m.restarts),
                Reverse(m.created),
                Reverse(r),
            )
        });
        ranked.truncate(count);
        ranked
    }

    /// A new Pod of `rs`, created now, placed on the next node round robin
    /// that is not cordoned; with every node cordoned it could never be
    /// scheduled, and is not made.
    fn create_pod(&mut self, rs: ReplicaSet, now: SimTime, s: &mut Scheduler<'_, ServiceEvent>) {
        let Some(node) = self.deploy.as_mut().and_then(Deploy::next_node) else {
            return;
        };
        let r = self.pods.len() as u32;
        let template = match (rs, self.deploy.as_ref().and_then(|d| d.plan.as_ref())) {
            (ReplicaSet::New, Some(plan)) => &plan.template,
            _ => self.run.pod(),
        };
        let pod = replica_pod(template, self.service.app.on_sigterm);
        let stream = self.run.stream().moved(r);
        self.replicas.push(Replica::new(&pod, stream));
        let run = PodRunSpec {
            pod,
            horizon: self.run.horizon(),
            stream,
        };
        self.pods.push(PodModel::new(run, Tap::default()));
        self.last_pod_event.push(now);
        self.slice.push();
        if let Some(d) = &mut self.deploy {
            d.members.push(Member {
                rs,
                node,
                created: now,
                ready_since: None,
                restarts: 0,
                stopped: false,
                deletion_cost: 0,
            });
        }
        self.emit(now, ServiceChange::PodMade { replica: r, rs, node });
        let event = PodEvent::Created;
        s.at(now, ServiceEvent::Pod { replica: r, event });
    }

    /// Marks the rollout complete (the controller's view) and done (the
    /// cluster's) the first time each holds.
    fn note_progress(&mut self, now: SimTime) {
        let replicas = self.service.replicas.max(1);
        let (active, available) = self.counts(now);
        let old_left = self.deploy.as_ref().is_some_and(|d| {
            (d.members.iter().enumerate())
                .any(|(r, m)| m.rs == ReplicaSet::Old && !self.replicas[r].object_gone)
        });
        let Some(Deploy {
            plan: Some(plan),
            spec,
            ..
        }) = &mut self.deploy
        else {
            return;
        };
        let complete = *spec == [0, replicas] && available[1] == replicas && active[0] == 0;
        if complete && plan.complete.is_none() {
            plan.complete = Some(now);
            self.observers.emit(now, ServiceChange::RolloutComplete);
        }
        if plan.complete.is_some() && !old_left && plan.done.is_none() {
            plan.done = Some(now);
            self.observers.emit(now, ServiceChange::RolloutDone);
        }
    }

    /// No rollout or drain is under way (whether each has begun, the
    /// count of disruptions that happened says).
    pub(super) fn rollout_settled(&self) -> bool {
        self.deploy.as_ref().is_none_or(|d| {
            d.plan.as_ref().is_none_or(|p| p.done.is_some()) && d.drains.iter().all(|x| x.done || x.cut)
        })
    }
}

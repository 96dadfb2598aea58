//! The engine's way into the Service: which events went stale, and which
//! room handles each one. It lives apart from the model's state and its
//! handlers so that it reads as one map from every `ServiceEvent` to the
//! code that owns it (the replicas' Pods, the proxies, the traffic, the
//! drain, the rollout); a new kind of event is added here and in `event`.

use super::history::{PodFact, ServiceChange, ServiceObserver};
use super::{ServiceEvent, ServiceModel, ServiceRun};
use crate::engine::{Model, Scheduler, SimTime};

impl<O: ServiceObserver, R: ServiceRun> Model for ServiceModel<O, R> {
    type Event = ServiceEvent;

    #[inline]
    fn is_current(&self, event: &ServiceEvent) -> bool {
        match *event {
            ServiceEvent::Pod { replica, event } => self.pods[replica as usize].is_current(&event),
            ServiceEvent::Answered { request, generation }
            | ServiceEvent::ConnectGaveUp { request, generation }
            | ServiceEvent::Resend { request, generation }
            | ServiceEvent::NoAnswer { request, generation } => {
                self.requests.all[request as usize].generation == generation
            }
            ServiceEvent::IdleExpired { conn, generation } => self.conns.get(conn).generation == generation,
            _ => true,
        }
    }

    // Inline, so the engine's event loop takes it in whichever codegen
    // unit it lands (a call per event costs the sweep about 6 %; with the
    // hop's, the lost node's and the cluster's arms a plain `#[inline]`
    // was no longer taken, and the Service grid cost 11 % more a row).
    #[inline(always)]
    fn handle(&mut self, now: SimTime, event: ServiceEvent, s: &mut Scheduler<'_, ServiceEvent>) {
        // One look an event at the traffic model (a per-request run's
        // events are most of a Service grid's), the counted run's out of line.
        match self.counting.on {
            true => self.handle_counted(now, event, s),
            false => self.dispatch(now, event, s),
        }
    }
}

impl<O: ServiceObserver, R: ServiceRun> ServiceModel<O, R> {
    /// `handle` in a counted run: the span up to this event met the
    /// routing state as it was, so it is counted before the event changes
    /// anything; after it, the traffic's end has its event once known.
    #[inline(never)]
    fn handle_counted(&mut self, now: SimTime, event: ServiceEvent, s: &mut Scheduler<'_, ServiceEvent>) {
        self.count_until(now, Some(s));
        self.dispatch(now, event, s);
        self.counting_after(s);
    }

    /// Hands `event` to the room that handles it.
    #[inline(always)]
    fn dispatch(&mut self, now: SimTime, event: ServiceEvent, s: &mut Scheduler<'_, ServiceEvent>) {
        match event {
            ServiceEvent::Pod { replica, event } => self.pod_event(replica as usize, now, event, s),
            ServiceEvent::Disrupt { index, round } => self.disrupt(index as usize, round, now, s),
            ServiceEvent::Heard { node, version } => {
                self.proxies[node as usize].heard(version);
                self.ours_heard(node);
                self.ask_sync(node, now, s);
            }
            ServiceEvent::Synced { node } => self.synced(node as usize, now, s),
            ServiceEvent::HopHeard { version } => self.hop_heard(version, now, s),
            ServiceEvent::HopCheck => self.hop_check(now, s),
            ServiceEvent::HopSweep => self.hop_sweep(now, s),
            ServiceEvent::HopDeregistered { replica, epoch } => self.hop_deregistered(replica, epoch, now, s),
            ServiceEvent::Arrival => self.arrival(now, s),
            ServiceEvent::Answered { request, .. } => self.answered(request, now, s),
            ServiceEvent::ConnectGaveUp { request, .. } => self.connect_gave_up(request, now, s),
            ServiceEvent::Resend { request, .. } => self.resend(request, now, s),
            ServiceEvent::ListenerClosing { replica } => {
                self.close_listener(replica as usize, now, s);
                self.maybe_exit(replica as usize, now, s);
            }
            ServiceEvent::DrainDue { replica } => self.maybe_exit(replica as usize, now, s),
            ServiceEvent::IdleExpired { conn, .. } => self.idle_expired(conn, now, s),
            ServiceEvent::ObjectDeleted { replica } => {
                self.replicas[replica as usize].object_gone = true;
                self.slice.touch(replica as usize);
                let fact = PodFact::Gone;
                self.emit(now, ServiceChange::Api { replica, fact });
                self.endpoints_changed(now, s);
                self.pod_gone(now, s);
                self.maybe_settle(now);
            }
            // A Pod's minReadySeconds may be the last thing a rollout
            // waits for: the traffic settles then, as after a Pod's exit.
            ServiceEvent::Available { .. } => {
                self.rollout_sync(now, s);
                self.maybe_settle(now);
            }
            ServiceEvent::ReadyAgain { replica } => self.readiness_failing(replica as usize, false, now, s),
            ServiceEvent::Evict { replica } => self.evict(replica as usize, now, s),
            ServiceEvent::NodeLost { index } => self.lose_node(index as usize, now, s),
            ServiceEvent::NodeNotReady { index } => self.node_not_ready(index as usize, now, s),
            ServiceEvent::ShutdownNotReady { node } => self.shutdown_not_ready(node, now, s),
            ServiceEvent::TaintEviction { index } => self.taint_evict(index as usize, now, s),
            ServiceEvent::NoAnswer { request, .. } => self.no_answer(request, now, s),
            ServiceEvent::SyncStart { node } => self.sync_start(node, s),
            ServiceEvent::BackgroundHeard { node, rolling } => self.background_heard(node, rolling, now, s),
            ServiceEvent::Churn => self.churn(now, s),
            ServiceEvent::ScaleDownEvict { index, replica } => {
                self.scale_down_evict(index, replica as usize, now, s)
            }
            ServiceEvent::ScaleDownCheck { index } => self.pods_checked(index, now, s),
            ServiceEvent::FullSync => self.full_sync(now, s),
            // Its work was the count before it.
            ServiceEvent::Counting => {}
            ServiceEvent::NodeDeleted { index } => self.node_deleted(index as usize, now, s),
            ServiceEvent::OutOfService { index } => self.out_of_service(index as usize, now, s),
            ServiceEvent::PodGc { index } => self.pod_gc(index as usize, now, s),
        }
    }
}

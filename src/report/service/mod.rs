//! What `podsim run` shows of a Service scenario: the figures, each deleted
//! Pod (when each node's rules dropped it, its last request, its
//! termination), every failed request with its time and cause, and each
//! replica's own event timeline; as text, or as one JSON document. The
//! race's pictures have rooms of their own: `picture` (SVG), `chart`
//! (terminal cells), both reading the requests through `strip`; a
//! Deployment's Pods stacked by ReplicaSet and state (`rollout`, reading
//! `stack`), at the
//! top of its picture; and `kubectl get pods -w` for every Pod (`watch`).
//!
//! Everything shown is read from the run's history (`ServiceTrace`) and
//! the metrics its meters made of it, never from the model; a failed
//! request is a JSON event with the history's `type`, as a Pod's are.
//!
//! Invariant: the metric keys are `ServiceMetrics::NAMES`, in that order,
//! then for a rollout `RolloutFigures::NAMES`: the CSV's columns, so JSON
//! and CSV never disagree about a name.

mod chart;
mod crash;
mod drain;
mod hop;
mod node;
mod picture;
pub mod rollout;
pub mod stack;
pub mod strip;
pub mod watch;

use std::fmt::Write;

use serde_json::{Map, Value, json};

use crate::engine::SimTime;
use crate::model::service::{
    Cause, CrashFigures, DrainFigures, Fate, HopFigures, NodeFigures, RetryFigures, RolloutFigures,
    ServiceChange, ServiceMetrics, ServiceReport, Status,
};
use crate::model::{PodReport, PodSpec};

use super::{json as pod_json, timeline};

pub use chart::chart;
pub use picture::{MAX_MARKS, service_svg};

/// The figures as a JSON object, absent ones as `null`.
pub fn metrics_object(m: &ServiceMetrics) -> Value {
    let mut object = Map::new();
    for (name, n) in ServiceMetrics::NAMES.iter().zip(m.numbers()) {
        let value = match *name {
            "outcome" => Value::from(m.outcome()),
            _ => n.map_or(Value::Null, Value::from),
        };
        object.insert(name.to_string(), value);
    }
    for (name, n) in deployment_figures(m) {
        object.insert(name.to_string(), n.map_or(Value::Null, Value::from));
    }
    Value::Object(object)
}

/// A rollout's and a drain's figures by name (`RolloutFigures::NAMES`,
/// `DrainFigures::NAMES`), then a client's retries (`RetryFigures::NAMES`)
/// a hop's (`HopFigures::NAMES`) and the crashes (`CrashFigures::NAMES`),
/// those the run has: what follows the Service's own figures in JSON and
/// the report's table (the CSV has all but the retries and the hop's,
/// whose columns would change every Service grid's header).
pub fn deployment_figures(m: &ServiceMetrics) -> impl Iterator<Item = (&'static str, Option<u64>)> + '_ {
    let rollout = (m.rollout.iter()).flat_map(|r| RolloutFigures::NAMES.into_iter().zip(r.numbers()));
    let drain = (m.drain.iter()).flat_map(|d| DrainFigures::NAMES.into_iter().zip(d.numbers()));
    let node = (m.node.iter()).flat_map(|n| NodeFigures::NAMES.into_iter().zip(n.numbers()));
    let retry = (m.retry.iter()).flat_map(|r| RetryFigures::NAMES.into_iter().zip(r.numbers()));
    let hop = (m.hop.iter()).flat_map(|h| HopFigures::NAMES.into_iter().zip(h.numbers()));
    let crash = (m.crash.iter()).flat_map(|c| CrashFigures::NAMES.into_iter().zip(c.numbers()));
    rollout
        .chain(drain)
        .chain(node)
        .chain(retry)
        .chain(hop)
        .chain(crash)
}

/// The history's failed requests, each typed as the Pod's events are:
/// when, its `type`, and that type's own fields.
fn failed_requests(report: &ServiceReport) -> Vec<Value> {
    let entries = report.trace.entries().iter();
    entries
        .filter_map(|e| match e.what {
            ServiceChange::RequestFailed {
                sent,
                cause,
                replica,
                client,
                ..
            } => Some(json!({
                "at_ms": e.at.as_millis(),
                "type": e.what.name(),
                "sent_ms": sent.as_millis(),
                "cause": cause.name(),
                "replica": replica,
                "client": client,
            })),
            // A counted span: one record of how many, not one each.
            ServiceChange::Counted {
                from,
                to,
                n,
                replica,
                fate: Fate::Failed(cause),
            } => Some(json!({
                "at_ms": e.at.as_millis(),
                "type": e.what.name(),
                "sent_from_ms": from.as_millis(),
                "sent_to_ms": to.as_millis(),
                "count": n,
                "cause": cause.name(),
                "replica": (replica != u32::MAX).then_some(replica),
            })),
            _ => None,
        })
        .collect()
}

/// `{"name", "metrics", "deleted": […], "failed_requests": [{"at_ms", "type", …}, …],
/// "replicas": [{"metrics", "events"}, …]}`.
pub fn run_document(name: &str, pod: &PodSpec, report: &ServiceReport) -> Value {
    let m = &report.metrics;
    let deleted: Vec<Value> = m
        .deleted
        .iter()
        .map(|d| {
            let mut doc = json!({
                "replica": d.replica,
                "deleted_ms": d.deleted_ms,
                "termination_ms": d.termination_ms,
                "last_request_ms": d.last_request_ms,
                "rules_dropped_ms": d.rules_dropped_ms,
            });
            // A shut-down Pod's entry says so; a deleted one's keeps its fields.
            if let (true, Some(o)) = (d.shut_down, doc.as_object_mut()) {
                o.insert("node_shutdown".into(), true.into());
            }
            if let (Some(_), Some(o)) = (&m.hop, doc.as_object_mut()) {
                o.insert("hop_dropped_ms".into(), d.hop_dropped_ms.into());
            }
            doc
        })
        .collect();
    let replicas: Vec<Value> = replica_reports(report)
        .map(|r| pod_json::run_document(name, pod, &r))
        .map(|mut doc| {
            if let Some(o) = doc.as_object_mut() {
                o.remove("name");
            }
            doc
        })
        .collect();
    let mut doc = json!({
        "name": name,
        "metrics": metrics_object(m),
        "deleted": deleted,
        "failed_requests": failed_requests(report),
        "replicas": replicas,
    });
    // Only a run that lost a node has its nodes: every other keeps its bytes.
    if let (Some(nodes), Some(o)) = (node::json(report), doc.as_object_mut()) {
        o.insert("nodes".to_string(), nodes);
    }
    doc
}

/// Each replica's history as the Pod views read it.
fn replica_reports(report: &ServiceReport) -> impl Iterator<Item = PodReport> + '_ {
    report
        .replica_traces()
        .into_iter()
        .zip(&report.metrics.replicas)
        .map(|(trace, metrics)| PodReport {
            metrics: *metrics,
            trace,
            job: None,
        })
}

/// What deleted the run's Pods, as the pictures label each deletion: the
/// user, the ReplicaSet (a rollout's, or a `scale_to`'s: its history has
/// the scaling), or a drain's evictions.
fn deleted_by(report: &ServiceReport) -> &'static str {
    let m = &report.metrics;
    let scaled = || (report.trace.entries().iter()).any(|e| matches!(e.what, ServiceChange::Scaled { .. }));
    match (&m.rollout, &m.drain) {
        _ if shut_down(report) => "node shutdown",
        (Some(_), _) => "scale-down",
        _ if m.node.is_some() => "eviction",
        (_, Some(_)) => "eviction",
        _ if scaled() => "scale-down",
        _ => "kubectl delete",
    }
}

/// Whether the run's disrupted Pods were killed by a node shutdown, not deleted.
fn shut_down(report: &ServiceReport) -> bool {
    report.metrics.deleted.iter().any(|d| d.shut_down)
}

/// What the views call the run's disrupted Pods: `deleted`, or
/// `shut-down` when a node shutdown's kubelet killed them (never deleted).
fn ended_word(report: &ServiceReport) -> &'static str {
    if shut_down(report) { "shut-down" } else { "deleted" }
}

fn at(ms: u64) -> SimTime {
    SimTime(ms)
}

/// The text `podsim run` prints for a Service scenario; its chart at most
/// `width` cells wide.
pub fn text(pod: &PodSpec, report: &ServiceReport, max_failures: usize, width: u64) -> String {
    let m = &report.metrics;
    let mut out = String::new();
    let _ = match m.ready_ms {
        Some(ms) => writeln!(
            out,
            "Service ready (every replica in every node's rules) at {}",
            at(ms)
        ),
        None => writeln!(
            out,
            "Service never ready: some replica never reached every node's rules"
        ),
    };
    if let Some(r) = &m.rollout {
        let took = |ms: Option<u64>| ms.map_or("not within the run".to_string(), |ms| format!("{}", at(ms)));
        let _ = writeln!(
            out,
            "rollout: new ReplicaSet available after {}, last old Pod gone after {}; \
             at most {} Pods ({} counted by the controller)",
            took(r.rollout_ms),
            took(r.rollout_done_ms),
            r.peak_pods,
            r.peak_counted_pods
        );
    }
    // A lost node has the drain's figures for its budget; a drain's line
    // is only where one ran.
    let drained =
        (report.trace.entries().iter()).any(|e| matches!(e.what, ServiceChange::DrainStarted { .. }));
    if let Some(d) = m.drain.as_ref().filter(|_| m.node.is_none() || drained) {
        let took = d
            .drain_ms
            .map_or("not finished within the run".to_string(), |ms| {
                format!("every Pod of the node gone after {}", at(ms))
            });
        let _ = writeln!(
            out,
            "drain: {took}; evictions refused {}; below the budget {} ms",
            d.evictions_refused, d.below_min_available_ms
        );
    }
    node::text(report, &mut out);
    if let Some(line) = crash::summary(&crash::crashes(report)) {
        let _ = writeln!(out, "{line}");
    }
    for e in report.trace.entries() {
        if let ServiceChange::NodeShuttingDown { node, budget } = e.what {
            let _ = writeln!(
                out,
                "node {node} shutting down at {}: not Ready, its kubelet kills its Pods (no deletion), each within {budget} \
                 (shutdownGracePeriod − shutdownGracePeriodCriticalPods)",
                e.at
            );
        }
    }
    node::scale_down_text(report, &mut out);
    for d in &m.deleted {
        let after = |ms: Option<u64>| ms.map_or("never".to_string(), |ms| format!("+{}", at(ms)));
        let _ = writeln!(
            out,
            "replica {} {} at {}: terminated {}, last request routed to it {}",
            d.replica,
            d.how(),
            at(d.deleted_ms),
            after(d.termination_ms),
            after(d.last_request_ms)
        );
        let nodes: Vec<String> = d
            .rules_dropped_ms
            .iter()
            .enumerate()
            .map(|(i, ms)| format!("node {i} {}", after(*ms)))
            .collect();
        let hop = match &m.hop {
            Some(_) => format!("; the hop's view {}", after(d.hop_dropped_ms)),
            None => String::new(),
        };
        let _ = writeln!(out, "  rules dropped it: {}{hop}", nodes.join(", "));
    }
    let causes: Vec<String> = Cause::ALL
        .iter()
        .filter(|&&c| m.failed_of(c) > 0)
        .map(|&c| format!("{} {}", c.name(), m.failed_of(c)))
        .collect();
    let causes = if causes.is_empty() {
        String::new()
    } else {
        format!(" ({})", causes.join(", "))
    };
    let _ = writeln!(
        out,
        "requests {}, failed {}{causes}, answered by a retry {}",
        m.requests, m.failed, m.retried_ok
    );
    if let Some(r) = &m.retry {
        let causes: Vec<String> = (Cause::ALL.iter())
            .filter(|&&c| r.retried_by[c as usize] > 0)
            .map(|&c| format!("{} {}", c.name(), r.retried_by[c as usize]))
            .collect();
        let causes = if causes.is_empty() {
            String::new()
        } else {
            format!(" (after {})", causes.join(", "))
        };
        let answered = match m.retried_ok {
            0 => String::new(),
            _ => format!(
                "; the requests they answered waited {} ms more, {} ms at most",
                r.extra_ms, r.extra_max_ms
            ),
        };
        let _ = writeln!(out, "retries {}{causes}{answered}", r.retries());
    }
    if let Some(h) = &m.hop {
        let answers: Vec<String> = (Status::ALL.iter().zip(h.answered))
            .map(|(s, n)| format!("{} {n}", s.code()))
            .collect();
        let _ = writeln!(
            out,
            "hop: sent to the next upstream {}; answered the client {}",
            h.retries,
            answers.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "fewest ready endpoints {}, time with none {} ms",
        m.min_ready_endpoints.map_or("-".to_string(), |n| n.to_string()),
        m.zero_endpoints_ms
    );
    let _ = write!(out, "\n{}", chart(pod, report, width));
    let failed = report.trace.failed_count();
    if failed > 0 {
        let _ = writeln!(out, "\nfailed requests (sent → failed, cause, replica):");
        for f in report.trace.failures().take(max_failures) {
            let replica = f.replica.map_or("-".to_string(), |r| r.to_string());
            let _ = writeln!(out, "  {} → {}  {:<14} {replica}", f.sent, f.at, f.cause.name());
        }
        if failed > max_failures as u64 {
            let _ = writeln!(
                out,
                "  … and {} more (all of them: --format json)",
                failed - max_failures as u64
            );
        }
    }
    for (r, replica) in replica_reports(report).enumerate() {
        if let Some(d) = m.deleted.iter().find(|d| d.replica as usize == r) {
            let _ = writeln!(out, "\n-- replica {r} ({})\n", d.how());
            let _ = write!(out, "{}", timeline::event_lines(pod, &replica));
        }
    }
    out
}

//! `kubectl get pods -w` for a Service's Pods, as if it had run from the
//! moment the Deployment's Pods were created: every Pod, old and new, with
//! kubectl's name (`<deployment>-<pod-template-hash>-<5 chars>`), a line
//! whenever its row changes, the lines of all Pods in the order the
//! cluster made the changes.
//!
//! Each Pod's rows are `report::kubectl::watch` of its own history (the Pod
//! view of one replica is a Pod model's record), read with three facts
//! only the API has (the history's `PodFact`s):
//!
//! - a Pod the ReplicaSet creates is stored before any kubelet sees it: the
//!   watch's ADDED event prints it `Pending` (printPod: no container
//!   statuses, so the phase), then the kubelet's `ContainerCreating`;
//! - `Terminating` starts when the API sets the deletion timestamp, which
//!   the kubelet hears of `kubelet_delay` later;
//! - when the object is gone, the DELETED event prints the Pod's last row
//!   once more: `kubectl get -w` prints every watch event's object and says
//!   nothing else of a deletion (kubernetes/kubectl#185). Since v1.27 the
//!   kubelet moves a deleted Pod to a terminal phase first, so that row
//!   reads `Completed` (exit 0) or `Error`, not `Terminating` (R48, R50);
//! - a Pod its node's kubelet killed in a graceful shutdown was never
//!   deleted: no `Terminating` (the Pod model's own deletion is the
//!   kubelet's kill, not the API's), its row turns `Error` or `Completed`
//!   when its containers stop, and no DELETED line follows (the Failed
//!   object stays).
//!
//! Names are deterministic: the hash is `SafeEncodeString` of an FNV-32a
//! of the Deployment's name and ReplicaSet, as `ComputeHash` makes one of
//! the template, and the suffix five letters of kubectl's alphabet drawn
//! from the hash and the replica's number, where the API server draws at
//! random.
//!
//! Invariant: at one instant, Pods' lines come in the order of the facts
//! that caused them (a new Pod Ready, then the old one it lets go, then the
//! one created in its place); lines no API fact caused (a kubelet's
//! `ContainerCreating`) come after, by replica; one Pod's lines keep their
//! own order.

use crate::engine::SimTime;
use crate::model::service::{PodFact, ReplicaSet, ServiceReport};
use crate::model::{Change, PodReport, PodSpec, TraceEntry};
use crate::report::kubectl::{self, WatchLine};

/// `rand.SafeEncodeString`: each byte to a letter of `ALPHANUMS`.
fn safe_encode(s: &str) -> String {
    s.bytes()
        .map(|b| kubectl::ALPHANUMS[b as usize % kubectl::ALPHANUMS.len()] as char)
        .collect()
}

/// The ReplicaSet's pod-template-hash: `SafeEncodeString` of an FNV-32a
/// in decimal, as `controller.ComputeHash` writes it.
pub fn template_hash(deployment: &str, rs: ReplicaSet) -> String {
    let key = format!("{deployment}/{}", rs as u8);
    let fnv = key.bytes().fold(0x811C_9DC5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    safe_encode(&fnv.to_string())
}

/// Pod `replica`'s name in ReplicaSet `rs` of `deployment`.
pub fn pod_name(deployment: &str, rs: ReplicaSet, replica: u32) -> String {
    let hash = template_hash(deployment, rs);
    format!(
        "{deployment}-{hash}-{}",
        kubectl::name_suffix(&format!("{hash}-{replica}"))
    )
}

/// One Pod's story as the API tells it.
#[derive(Clone, Copy, Debug, Default)]
struct Api {
    created: Option<(SimTime, ReplicaSet)>,
    deleted: Option<SimTime>,
    gone: Option<SimTime>,
    shut_down: bool,
}

/// One line with what orders it among every Pod's.
struct Placed {
    at: SimTime,
    cause: usize,
    replica: usize,
    seq: usize,
    name: String,
    line: WatchLine,
}

/// The lines of every Pod of `report` (a run of the Service whose Pod is
/// `pod`, owned by `deployment`), in the order kubectl would print them;
/// each line's `at` is the Pod's AGE.
pub fn watch_lines(deployment: &str, pod: &PodSpec, report: &ServiceReport) -> Vec<(String, WatchLine)> {
    let count = report.metrics.replicas.len();
    let facts: Vec<(SimTime, u32, PodFact)> = report.trace.pod_facts().collect();
    let mut api = vec![Api::default(); count];
    for &(at, replica, fact) in &facts {
        let a = &mut api[replica as usize];
        match fact {
            PodFact::Created(rs) => a.created = Some((at, rs)),
            PodFact::Deleted => a.deleted = Some(at),
            PodFact::Gone => a.gone = Some(at),
            PodFact::ShutDown => a.shut_down = true,
            PodFact::Serving(_) | PodFact::Failed => {}
        }
    }
    // What caused replica r's line at instant t: its creation for the ADDED
    // line, else the fact of r at t the cluster made last; a line no fact
    // caused (the kubelet's own news) comes after them all.
    let cause = |r: usize, at: SimTime, added: bool| {
        (facts.iter())
            .rposition(|&(t, replica, fact)| {
                replica as usize == r && t == at && added == matches!(fact, PodFact::Created(_))
            })
            .unwrap_or(usize::MAX)
    };
    let mut placed = Vec::new();
    for (r, (a, run)) in api.iter().zip(super::replica_reports(report)).enumerate() {
        let Some((created, rs)) = a.created else {
            continue;
        };
        let name = pod_name(deployment, rs, r as u32);
        let mut lines = kubectl::watch(pod, &pod_history(run, created, a).trace);
        if let Some(first) = lines.first().cloned() {
            let added = WatchLine {
                status: "Pending".to_string(),
                restarts: 0,
                ..first
            };
            lines.insert(0, added);
        }
        if let (Some(gone), Some(last)) = (a.gone, lines.last().cloned()) {
            lines.push(WatchLine {
                at: SimTime(gone.since(created).as_millis()),
                ..last
            });
        }
        for (seq, line) in lines.into_iter().enumerate() {
            let at = created + line.at.since(SimTime::ZERO);
            placed.push(Placed {
                at,
                cause: cause(r, at, seq == 0),
                replica: r,
                seq,
                name: name.clone(),
                line,
            });
        }
    }
    placed.sort_by_key(|p| (p.at, p.cause, p.replica, p.seq));
    placed.into_iter().map(|p| (p.name, p.line)).collect()
}

/// A replica's run with its history from its creation on (times since
/// then), and the API's deletion instant folded in as the deletion kubectl
/// sees; a shut-down Pod's kill, no deletion, left out.
fn pod_history(mut run: PodReport, created: SimTime, api: &Api) -> PodReport {
    let since = |at: SimTime| SimTime(at.since(created).as_millis());
    for e in &mut run.trace {
        e.at = since(e.at);
    }
    if api.shut_down {
        (run.trace).retain(|e| !matches!(e.what, Change::DeletionRequested { .. }));
    }
    if let Some(deleted) = api.deleted {
        let grace = (run.trace.iter())
            .find_map(|e| match e.what {
                Change::DeletionRequested { grace } => Some(grace),
                _ => None,
            })
            .unwrap_or_default();
        let at = since(deleted);
        let i = run.trace.partition_point(|e| e.at <= at);
        let what = Change::DeletionRequested { grace };
        run.trace.insert(
            i,
            TraceEntry {
                at,
                container: None,
                what,
            },
        );
    }
    run
}

/// `kubectl get pods -w`'s text for `report`: one header, a line per change.
pub fn watch_text(deployment: &str, pod: &PodSpec, report: &ServiceReport) -> String {
    let rows: Vec<(String, Vec<WatchLine>)> = watch_lines(deployment, pod, report)
        .into_iter()
        .map(|(name, line)| (name, vec![line]))
        .collect();
    kubectl::watch_text(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_like_a_deployments_pods_and_differ_per_replica_set() {
        let old = pod_name("web", ReplicaSet::Old, 0);
        let hash = template_hash("web", ReplicaSet::Old);
        assert!(old.starts_with(&format!("web-{hash}-")), "{old}");
        assert_eq!(old.len(), "web-".len() + hash.len() + 1 + 5);
        assert!(
            hash.bytes()
                .chain(old.bytes().rev().take(5))
                .all(|b| crate::report::kubectl::ALPHANUMS.contains(&b))
        );
        assert_ne!(hash, template_hash("web", ReplicaSet::New));
        assert_ne!(old, pod_name("web", ReplicaSet::Old, 1));
        // SafeEncodeString maps each byte by its value modulo 27: '0' (48) → 21 → '4', '9' (57) → 3 → 'f'.
        assert_eq!(safe_encode("09"), "4f");
    }
}

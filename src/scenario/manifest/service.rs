//! A manifest's Pod behind a Service: the Service's keys written as
//! `podsim.dev/` annotations (`podsim.dev/service.replicas: "3"`,
//! `podsim.dev/traffic.rate: "8.3"`, `podsim.dev/app.on_sigterm`,
//! `podsim.dev/disruptions.0.after_ready`) or as the timings overlay's
//! `[service]`, `[traffic]`, `[app]` and `[disruptions.<i>]` tables, in
//! the words of a TOML scenario's tables and a grid axis's paths.
//!
//! Invariant: a manifest with any of these keys becomes a Service scenario
//! under exactly the rules a TOML one obeys (a `[traffic]` needs a rate, a
//! disruption says when once, `check_service`), and each refusal points at
//! the annotation or overlay key that broke it.
//!
//! The room of Services and budgets: the file's own `v1` Services and
//! PodDisruptionBudgets and what they select are in `behind`, the
//! Deployment's and the budget's fields as keys in `fields`, the Pod
//! template's priority in `priority`.

pub(super) mod behind;
mod fields;
pub(super) mod priority;

use crate::model::RunSpec;
use crate::scenario::key::path::{self, Place, Spelling};
use crate::scenario::key::{Field, Key, Scope, Value};
use crate::scenario::rules::check_service;
use crate::scenario::rules::service::check_written;

use super::timings::Setting;

/// The tables a Service key is written under, as its path starts.
const TABLES: [Scope; 7] = Scope::SERVICE;

/// Makes the Service that `settings` write into, with as many disruptions
/// as their indices name, before they are set; nothing if none is a
/// Service key (the manifest stays a Pod scenario).
pub fn prepare(run: &mut RunSpec, settings: &[Setting]) {
    let service_keys = settings.iter().filter(|s| TABLES.contains(&s.field.scope()));
    let Some(last) = service_keys.map(|s| s.index.map_or(0, |i| i + 1)).max() else {
        return;
    };
    let service = run.service.get_or_insert_with(Default::default);
    service.disruptions.resize(last, Default::default());
}

/// A key the manifest's own fields set (a Deployment's replicas and
/// strategy behind a Service, a budget's fields): the source of truth,
/// which a setting may repeat but not contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derived {
    pub field: Field,
    /// The value; `None`: the manifest has none (maxSurge under a
    /// Recreate), and a setting of the key contradicts it.
    pub value: Option<Value>,
    /// The field and where, for the message: `the Deployment's spec.replicas: 3 (6:13)`.
    pub said: String,
}

/// Sets the `derived` keys over `settings` (already set): the Service's
/// and the budget's, and a rollout's on each disruption that is one (the
/// annotations say when a rollout happens, the Deployment how), in a
/// Service scenario only. A setting that contradicts one is refused: its
/// index in `settings` and the message.
pub fn derive(run: &mut RunSpec, settings: &[Setting], derived: &[Derived]) -> Result<(), (usize, String)> {
    for d in derived {
        if let Some(i) = settings
            .iter()
            .position(|s| s.field == d.field && Some(&s.value) != d.value.as_ref())
        {
            let place = settings[i].index.map_or(Place::Table, Place::Index);
            let path = path::print(d.field, place, Spelling::Axis);
            return Err((
                i,
                format!(
                    "{path} contradicts {}, which podsim reads as it is: the manifest is the source of truth; \
                     edit it there, or drop {path}",
                    d.said
                ),
            ));
        }
    }
    // The Service's own keys (a Service document) make a Service
    // scenario; a Deployment's rollout keys, a budget's and the Pod
    // template's priority only fill one.
    if derived
        .iter()
        .any(|d| d.field.scope() == Scope::Service && d.field != Field::PodPriority)
    {
        run.service.get_or_insert_with(Default::default);
    }
    let Some(service) = run.service.as_deref() else {
        return Ok(());
    };
    let rollouts: Vec<usize> = (0..service.disruptions.len())
        .filter(|&i| service.disruptions[i].rollout.is_some())
        .collect();
    for d in derived {
        let Some(value) = &d.value else {
            continue;
        };
        let indices = match d.field.scope() {
            Scope::Disruption => rollouts.iter().map(|&i| Some(i)).collect(),
            _ => vec![None],
        };
        for index in indices {
            Key {
                field: d.field,
                container: index,
            }
            .set(run, value);
        }
    }
    Ok(())
}

/// The Service's rules once `settings` are set: which setting to point at
/// (an index into `settings`) and the message.
pub fn check(run: &RunSpec, settings: &[Setting]) -> Result<(), (usize, String)> {
    let Some(service) = run.service.as_deref() else {
        return Ok(());
    };
    let position = |keep: &dyn Fn(&Setting) -> bool| settings.iter().rposition(keep);
    let is_traffic = |s: &Setting| s.field.scope() == Scope::Traffic;
    if let Some(i) = position(&is_traffic)
        && position(&|s| s.field == Field::Rate).is_none()
    {
        return Err((
            i,
            "traffic needs a rate: add traffic.rate (requests per second)".into(),
        ));
    }
    for d in 0..service.disruptions.len() {
        let of = |s: &Setting| s.index == Some(d);
        let Some(i) = position(&of) else {
            return Err((
                position(&|s| s.index > Some(d)).unwrap_or(0),
                format!("disruption {d} is missing: number the disruptions from 0 without a gap"),
            ));
        };
        let whens = [Field::At, Field::AfterReady].map(|f| position(&|s| of(s) && s.field == f));
        if let [Some(a), Some(b)] = whens {
            return Err((
                a.max(b),
                format!("disruption {d}: at and after_ready are both set; keep one"),
            ));
        }
        if whens == [None, None] {
            return Err((
                i,
                format!(
                    "disruption {d}: say when with one of disruptions.{d}.at or disruptions.{d}.after_ready"
                ),
            ));
        }
        let keys: Vec<Field> = settings.iter().filter(|s| of(s)).map(|s| s.field).collect();
        if let Err((key, message)) = check_written(&keys) {
            let at = position(&|s| of(s) && s.field == key).unwrap_or(i);
            return Err((at, format!("disruption {d}: {message}")));
        }
    }
    check_service(run).map_err(|p| {
        let blamed = position(&|s| s.field == p.field && (p.index.is_none() || s.index == p.index));
        let any_service = position(&|s| TABLES.contains(&s.field.scope()));
        (blamed.or(any_service).unwrap_or(0), p.to_string())
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::SimDuration;
    use crate::model::service::{Arrival, Connections, OnSigterm, Preset, Propagation, When};
    use crate::scenario::manifest::{Timings, parse};

    /// A Pod whose annotations (line 5 on) put it behind a Service.
    fn pod(annotations: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  annotations:\n    podsim.dev/web.boot: \"2s\"\n\
             {annotations}spec:\n  containers:\n  - name: web\n    image: nginx\n"
        )
    }

    fn error(text: &str, overlay: Option<&Timings>) -> String {
        parse(text, "pod.yaml", overlay).unwrap_err().to_string()
    }

    const SERVICE: &str = "    podsim.dev/service.replicas: \"3\"\n    podsim.dev/service.propagation: \"medium\"\n\
        \x20   podsim.dev/service.kubelet_delay: \"200ms\"\n    podsim.dev/traffic.rate: \"8.3\"\n\
        \x20   podsim.dev/traffic.arrival: \"constant\"\n    podsim.dev/traffic.connections: \"keep-alive\"\n\
        \x20   podsim.dev/app.on_sigterm: \"ignore\"\n    podsim.dev/disruptions.0.after_ready: \"10s\"\n\
        \x20   podsim.dev/disruptions.0.delete: \"2\"\n    podsim.dev/disruptions.1.at: \"40s\"\n";

    #[test]
    fn service_annotations_make_a_service_scenario() {
        let s = parse(&pod(SERVICE), "pod.yaml", None).unwrap_or_else(|e| panic!("{e}"));
        let service = s.run.service.as_deref().expect("a Service scenario");
        assert_eq!(service.replicas, 3);
        assert_eq!(service.propagation, Propagation::Preset(Preset::Medium));
        assert_eq!(service.kubelet_delay, SimDuration::from_millis(200));
        let t = service.traffic.as_ref().unwrap();
        assert_eq!(
            (t.rate.get(), t.arrival, t.connections),
            (8.3, Arrival::Constant, Some(Connections::KeepAlive))
        );
        assert_eq!(service.app.on_sigterm, OnSigterm::Ignore);
        let disruptions: Vec<(When, u32)> = service.disruptions.iter().map(|d| (d.when, d.replica)).collect();
        assert_eq!(
            disruptions,
            [
                (When::AfterReady(SimDuration::from_secs(10)), 2),
                (When::At(SimDuration::from_secs(40)), 0)
            ]
        );
        // The Pod is still the manifest's, its annotations applied.
        assert_eq!(s.run.pod.containers[0].boot, SimDuration::from_secs(2));
        // Deleted by a disruption: no "never deleted" notice.
        assert!(
            s.notices.iter().all(|n| !n.to_string().contains("never deleted")),
            "{:?}",
            s.notices
        );
    }

    #[test]
    fn the_overlay_writes_the_service_tables_and_wins_over_annotations() {
        let overlay = Timings::parse(
            "[service]\nreplicas = 5\n[traffic]\nrate = 20\n[app]\non_sigterm = \"close-keep-busy\"\n\
             [disruptions.0]\nat = \"3s\"\ndelete = 4\n",
            "t.toml",
        )
        .unwrap();
        let text = pod("    podsim.dev/service.replicas: \"2\"\n    podsim.dev/traffic.rate: \"1\"\n");
        let s = parse(&text, "pod.yaml", Some(&overlay)).unwrap_or_else(|e| panic!("{e}"));
        let service = s.run.service.as_deref().unwrap();
        assert_eq!(service.replicas, 5);
        assert_eq!(service.traffic.as_ref().unwrap().rate.get(), 20.0);
        assert_eq!(service.app.on_sigterm, OnSigterm::CloseKeepBusy);
        assert_eq!(service.disruptions[0].when, When::At(SimDuration::from_secs(3)));
        assert_eq!(service.disruptions[0].replica, 4);
    }

    #[test]
    fn a_pod_without_service_keys_stays_a_pod_scenario() {
        let s = parse(&pod(""), "pod.yaml", None).unwrap();
        assert!(s.run.service.is_none());
        // A container called like a table keeps its own keys.
        let text = pod("").replace("web", "app");
        let s = parse(&text, "pod.yaml", None).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.run.service.is_none());
        assert_eq!(s.run.pod.containers[0].boot, SimDuration::from_secs(2));
    }

    #[test]
    fn bad_service_annotations_are_refused_where_they_are_written() {
        // Line 7 is the first annotation after web.boot.
        let one = |line: &str| error(&pod(&format!("    {line}\n")), None);
        assert_eq!(
            one("podsim.dev/traffic.rate: \"0\""),
            // Column 30: the value's opening quote.
            "pod.yaml:7:30: annotation \"podsim.dev/traffic.rate\": rate must be a number of requests per \
             second above 0 (e.g. 8.3), not 0"
        );
        assert_eq!(
            one("podsim.dev/service.replicas: \"0\""),
            "pod.yaml:7:5: replicas must be 1 or more"
        );
        let e = one("podsim.dev/service.propagation: \"tinny\"");
        assert!(
            e.starts_with("pod.yaml:7:37: ") && e.contains("did you mean \"tiny\""),
            "{e}"
        );
        let e = one("podsim.dev/service.replica: \"3\"");
        assert!(
            e.starts_with("pod.yaml:7:5: ") && e.contains("did you mean \"replicas\""),
            "{e}"
        );
        assert_eq!(
            one("podsim.dev/traffic.clients: \"2\""),
            "pod.yaml:7:5: traffic needs a rate: add traffic.rate (requests per second)"
        );
        assert_eq!(
            one("podsim.dev/disruptions.0.delete: \"1\""),
            "pod.yaml:7:5: disruption 0: say when with one of disruptions.0.at or disruptions.0.after_ready"
        );
        assert_eq!(
            one("podsim.dev/disruptions.1.at: \"5s\""),
            "pod.yaml:7:5: disruption 0 is missing: number the disruptions from 0 without a gap"
        );
        let e = one("podsim.dev/disruptions.first.at: \"5s\"");
        assert!(e.contains("\"first\" is not a disruption's index"), "{e}");
        let e = error(
            &pod("    podsim.dev/disruptions.0.at: \"5s\"\n    podsim.dev/disruptions.0.delete: \"3\"\n"),
            None,
        );
        assert_eq!(
            e,
            "pod.yaml:8:5: disruption 0: delete = 3 is beyond the replicas: with replicas = 3, delete one of 0 to 2"
        );
        // A Pod deletion competes with the disruptions.
        let e = error(
            &pod("    podsim.dev/stop_at: \"5s\"\n    podsim.dev/service.nodes: \"2\"\n"),
            None,
        );
        assert!(
            e.starts_with("pod.yaml:") && e.contains("deletes Pods with [[disruptions]]"),
            "{e}"
        );
    }

    #[test]
    fn bad_overlay_service_keys_are_refused_in_the_overlay() {
        let e = Timings::parse("[traffic]\nrat = 5\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml:2:1: ") && e.contains("did you mean \"rate\""),
            "{e}"
        );
        let e = Timings::parse("[disruptions.x]\nat = \"1s\"\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml:1:14: ") && e.contains("[disruptions.0]"),
            "{e}"
        );
        let overlay = Timings::parse("[service]\nreplicas = 0\n", "t.toml").unwrap();
        assert_eq!(
            error(&pod(""), Some(&overlay)),
            "t.toml:2:1: replicas must be 1 or more"
        );
    }
}

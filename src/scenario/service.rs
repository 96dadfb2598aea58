//! The rules of a Service scenario (`[service]`, `[traffic]`, `[app]`,
//! `[[disruptions]]`), checked after reading, whatever wrote the values: a
//! scenario file or a grid axis.
//!
//! Invariant: a `RunSpec` with a `service` that passes `check_service` runs
//! without surprises: at least one replica and one node, disruptions that
//! name a replica that exists, one way to say when, and no Pod-level
//! deletion competing with them.

use crate::model::service::ServiceSpec;
use crate::model::{Deletion, RunSpec};

use super::key::Field;

/// A rule a Service breaks: the field to point at (with the disruption's
/// index for a disruption's field) and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceProblem {
    /// The key to point at.
    pub field: Field,
    /// The disruption's index, for a disruption's key.
    pub index: Option<usize>,
    /// What is wrong, and what would do.
    pub message: String,
}

fn problem(field: Field, index: Option<usize>, message: String) -> Result<(), ServiceProblem> {
    Err(ServiceProblem {
        field,
        index,
        message,
    })
}

/// Checks the Service of `run`, if it has one.
pub fn check_service(run: &RunSpec) -> Result<(), ServiceProblem> {
    let Some(service) = run.service.as_deref() else {
        return Ok(());
    };
    let ServiceSpec { replicas, nodes, .. } = *service;
    if replicas == 0 {
        return problem(Field::Replicas, None, "replicas must be 1 or more".into());
    }
    if nodes == 0 {
        return problem(Field::Nodes, None, "nodes must be 1 or more".into());
    }
    if let Some(t) = &service.traffic
        && t.clients == 0
    {
        return problem(Field::Clients, None, "clients must be 1 or more".into());
    }
    let deletion = match run.pod.deletion {
        Deletion::Never => None,
        Deletion::At(_) => Some(Field::StopAt),
        Deletion::AfterReady(_) => Some(Field::StopAfterReady),
    };
    if let Some(field) = deletion {
        return problem(
            field,
            None,
            format!(
                "{}: a Service scenario deletes Pods with [[disruptions]] (at or after_ready, delete = <replica>); \
                 remove it from [pod]",
                field.name()
            ),
        );
    }
    for (i, d) in service.disruptions.iter().enumerate() {
        if d.every == Some(crate::engine::SimDuration::ZERO) {
            return problem(
                Field::Every,
                Some(i),
                format!(
                    "disruption {i}: every must be above 0s: write the time between two deletions, such as \"10m\""
                ),
            );
        }
        if d.replica >= replicas {
            return problem(
                Field::Delete,
                Some(i),
                format!(
                    "disruption {i}: delete = {} is beyond the replicas: with replicas = {replicas}, delete one of 0 to {}",
                    d.replica,
                    replicas - 1
                ),
            );
        }
        if let Some(j) = service.disruptions[..i]
            .iter()
            .position(|e| e.replica == d.replica)
        {
            return problem(
                Field::Delete,
                Some(i),
                format!(
                    "disruption {i}: replica {} is already deleted by disruption {j}",
                    d.replica
                ),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    const POD: &str = "[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";

    fn error_of(service: &str) -> String {
        Scenario::parse(&format!("{service}{POD}"), "s.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_service_input_is_refused_where_it_is_written() {
        assert_eq!(
            error_of("[service]\nreplicas = 0\n"),
            "s.toml:2:12: replicas must be 1 or more"
        );
        assert_eq!(
            error_of("[service]\nreplicas = 2\n[[disruptions]]\nat = \"5s\"\ndelete = 2\n"),
            "s.toml:5:10: disruption 0: delete = 2 is beyond the replicas: with replicas = 2, delete one of 0 to 1"
        );
        let e = error_of("[service]\n[traffic]\nrate = 0\n");
        assert!(e.starts_with("s.toml:3:8: ") && e.contains("above 0"), "{e}");
        let e = error_of("[service]\n[traffic]\nrate = -2.5\n");
        assert!(e.starts_with("s.toml:3:8: ") && e.contains("above 0"), "{e}");
        let e = error_of("[service]\npropagation = \"tinny\"\n");
        assert!(
            e.starts_with("s.toml:2:15: ")
                && e.contains("did you mean \"tiny\"")
                && e.contains("tiny, medium, large, gcp-lb, azure-lb, nlb-ip"),
            "{e}"
        );
        assert_eq!(
            error_of("[traffic]\nrate = 5\n"),
            "s.toml:1:2: [traffic] needs a [service] to send to: add [service] (replicas, nodes, propagation, …)"
        );
        assert_eq!(
            error_of("[service]\n[[disruptions]]\nat = \"5s\"\nevery = \"0s\"\n"),
            "s.toml:4:9: disruption 0: every must be above 0s: write the time between two deletions, such as \"10m\""
        );
        let e = error_of("[service]\n[[disruptions]]\ndelete = 0\n");
        assert!(e.contains("say when with one of at"), "{e}");
    }

    #[test]
    fn a_service_scenario_reads_into_the_spec() {
        let text = format!(
            "seed = 4\n[service]\nreplicas = 2\npropagation = \"gcp-lb\"\n[traffic]\nrate = 8.3\n\
             connections = \"keep-alive\"\n[app]\non_sigterm = \"ignore\"\n[[disruptions]]\n\
             after_ready = \"10s\"\ndelete = 1\ngrace_period = \"5s\"\n{POD}"
        );
        let s = Scenario::parse(&text, "s.toml").unwrap();
        let service = s.run.service.as_deref().unwrap();
        use crate::model::service::*;
        assert_eq!(service.replicas, 2);
        assert_eq!(service.propagation, Propagation::Preset(Preset::GcpLb));
        let t = service.traffic.as_ref().unwrap();
        assert_eq!((t.rate.get(), t.connections), (8.3, Connections::KeepAlive));
        assert_eq!(service.app.on_sigterm, OnSigterm::Ignore);
        assert_eq!(
            service.disruptions,
            [Disruption {
                when: When::AfterReady(crate::engine::SimDuration::from_secs(10)),
                replica: 1,
                grace_period: Some(crate::engine::SimDuration::from_secs(5)),
                every: None,
            }]
        );
        assert_eq!(s.run.stream.seed, 4);
    }
}
